/* SPDX-License-Identifier: GPL-2.0-or-later */
/* removal.h - the removal module (lib/pool/removal/pool_removal.c): a
 * volume's removal in bounded steps, and the finish of an interrupted one
 * at a writer's open (its hook in the core's lifecycle table, core.h). */
#ifndef TP_POOL_REMOVAL_H
#define TP_POOL_REMOVAL_H

#include "lib/base/compiler.h"
#include "lib/base/progress.h"

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

#endif
