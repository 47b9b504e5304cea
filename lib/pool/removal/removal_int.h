/* SPDX-License-Identifier: GPL-2.0-or-later */
/* removal_int.h - the removal module's own (pool_removal.c, pool_trash.c):
 * the run of bounded steps shared by a removal under way and a trash
 * entry's purge. */
#ifndef TP_POOL_REMOVAL_INT_H
#define TP_POOL_REMOVAL_INT_H

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "metadata/vg/vg.h"

#include <stdint.h>

struct pool;

/* What the last change of a removal gives the backend: the thin device to
 * delete, and the name its device is loaded under (live). */
struct removal_end {
	uint32_t dev_id;
	char name[VG_NAME_MAX + 1];
};

/* pool_change's apply: nothing on the thin side / the delete of
 * struct removal_end's device. */
int removal_apply_nothing(struct pool *p, const void *arg);
int removal_apply_end(struct pool *p, const void *arg);
/* Is thin device ID missing from P's thin metadata? 1, 0, -errno. */
int removal_thin_missing(struct pool *p, uint32_t id);
/* Run ENTRY (a removal under way, or with TRASH a trash entry whose purge
 * began) to its end: bounded steps (live through its device loaded as
 * DM_NAME), then the change that drops it from the VG and deletes its
 * thin device. 0 or -errno, logged; a cut leaves it for the next run. */
int removal_run_entry(struct pool *p, const struct vg_volume *entry, const char *dm_name,
		      int trash, tp_progress_fn *fn, void *ctx) TP_MUST_CHECK;

#endif
