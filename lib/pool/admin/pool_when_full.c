/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_when_full.c - what an active pool does with writes once its data
 * area is full (pool.h: pool_set_when_full): queue them (the default, for
 * an administrator to grow the pool) or fail them with ENOSPC (the
 * thin-pool feature error_if_no_space). The setting lives in the VG; an
 * active pool takes it by a reload of its table (kernel/dm_resize.c),
 * which requeues what was queued, so it fails at once. Staged with other
 * settings (pool_settings_begin), only the VG changes: the caller calls
 * again after their one commit, and the kernel follows then. */
#include "lib/pool/core/core.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

int pool_set_when_full(struct pool *p, enum pool_when_full wf)
{
	int change = pool_vg(p)->when_full != (enum vg_when_full)wf;
	struct vg *next, *undo = NULL;
	int r;

	if (change) {
		if ((r = vg_clone(pool_vg(p), &undo)) || (r = vg_clone(pool_vg(p), &next))) {
			vg_free(undo);
			return r;
		}
		next->when_full = (enum vg_when_full)wf;
		if ((r = pool_commit_vg(p, next))) {
			vg_free(undo);
			return r;
		}
	}
	/* staged with other settings (pool.h): the kernel follows once they
	 * are committed, by a call again */
	if (pool_settings_staging(p)) {
		vg_free(undo);
		return 0;
	}
	/* the VG said so already: only the kernel may lag (an interrupted change) */
	r = pool_table_follow_when_full(p, change);
	if (r && undo && pool_commit_vg(p, undo))
		log_error("pool %s: the VG metadata says when-full %s but the kernel runs the old "
			  "setting; run 'tpchange --when-full' again", pool_name(p),
			  wf == POOL_WHEN_FULL_ERROR ? "error" : "queue");
	if (r)
		return r;	/* (UNDO, if any, went to pool_commit_vg) */
	vg_free(undo);
	return 0;
}
