/* SPDX-License-Identifier: GPL-2.0-or-later */
/* removal.h - the removal module (lib/pool/removal/pool_removal.c): a
 * volume's removal in bounded steps, and the finish of an interrupted one
 * at a writer's open (its hook in the core's lifecycle table, core.h). */
#ifndef TP_POOL_REMOVAL_H
#define TP_POOL_REMOVAL_H

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "lib/pool/pool_volume.h"

#include <stdint.h>

struct pool;

/* Register the removal with the core (pool_init). */
void pool_removal_register(void);
/* Volume NAME becomes a removal under way (one change; live, its device
 * is unloaded first: -EBUSY, logged, while it is open, nothing changed):
 * 0. A volume that maps nothing is removed in that one change: 1. WIPED
 * (tvremove --wipe zeroed its chunks just before) is kept in its record. */
int pool_removal_begin(struct pool *p, const char *name, int wiped) TP_MUST_CHECK;
/* Run the removal NAME to its end: bounded steps, each durable, then the
 * change that deletes its emptied thin device. FN (may be NULL) hears
 * the mappings given back of the total it had. 0 or -errno, logged; a
 * failure leaves a removal that the next run finishes. */
int pool_removal_run(struct pool *p, const char *name, tp_progress_fn *fn, void *ctx)
	TP_MUST_CHECK;
/* 1 when the pool's last change (the transaction before the VG's own,
 * read from the previous VG copy the devices keep) removed NAME, a volume
 * or a removal under way, and the VG now has no NAME: a tvremove cut at
 * its end and run again, or run twice. 0 otherwise (also when that copy
 * is not there to say). */
int pool_removal_was_last(struct pool *p, const char *name);
/* 1 when this command's open finished the removal NAME. */
int pool_removal_finished(const struct pool *p, const char *name);
/* How a removal that began was begun (pool_removal_finished_wiped: one this
 * command's open finished; pool_removal_was_last_wiped: one the pool's last
 * change ended), from its record in the VG: */
enum {
	POOL_REMOVAL_NOT_BEGUN = 0,	/* no such removal */
	POOL_REMOVAL_WIPED,		/* tvremove --wipe zeroed its chunks first */
	POOL_REMOVAL_UNWIPED,		/* it began without a wipe */
	POOL_REMOVAL_EMPTY,		/* removed in one change: it had no chunks */
};
int pool_removal_finished_wiped(const struct pool *p, const char *name);
int pool_removal_was_last_wiped(struct pool *p, const char *name);

/* ---- the trash (pool_trash.c) ---- */

/* Volume NAME goes to the trash at NOW (one change; live, its device is
 * unloaded first: -EBUSY, logged, while it is open): 0. 1, nothing
 * changed, for a volume whose thin device was lost: remove it instead.
 * -EINVAL (logged) when the pool's retention is off. */
int pool_trash_put(struct pool *p, const char *name, int64_t now) TP_MUST_CHECK;
/* The newest trash entry named NAME comes back as volume AS (NAME when
 * NULL), one change; *DEV_ID gets its thin device. -ENOENT, -EBUSY (its
 * purge began), -EEXIST (the name is taken), logged with what to do. */
int pool_trash_undo(struct pool *p, const char *name, const char *as, uint32_t *dev_id)
	TP_MUST_CHECK;
/* Purge the trash entry of thin device DEV_ID: a change marks it purging,
 * then the removal's bounded steps and last change (FN hears the
 * mappings given back). -ENOENT when there is no such entry. */
int pool_trash_purge(struct pool *p, uint32_t dev_id, tp_progress_fn *fn, void *ctx)
	TP_MUST_CHECK;
/* Finish every purge a cut left under way (a writer's open); the names of
 * those it finished are kept for pool_trash_finished (DONE, may be NULL,
 * hears each). */
void pool_trash_finish_purges(struct pool *p, void (*done)(void *ctx, const char *name),
			      void *ctx);
/* 1 when this command's open finished a purge of an entry named NAME. */
int pool_trash_finished(const struct pool *p, const char *name);
/* What the pool's last change did to NAME in the trash, read from the
 * previous VG copy (a command cut after its change, run again): */
enum {
	POOL_TRASH_LAST_NONE = 0,
	POOL_TRASH_LAST_PUT,		/* volume NAME went to the trash */
	POOL_TRASH_LAST_PURGED,		/* an entry named NAME was purged */
	POOL_TRASH_LAST_UNDONE,		/* an entry named NAME came back */
};
int pool_trash_was_last(struct pool *p, const char *name);
/* The trash of P, the oldest first, into *OUT (malloc'd, *NR entries;
 * NULL and 0 when empty): with SHARING each entry's exclusive bytes too
 * (a walk of the mappings). 0 or -errno, logged. */
int pool_trash_usage(struct pool *p, int sharing, struct pool_trash_entry **out, unsigned *nr)
	TP_MUST_CHECK;

#endif
