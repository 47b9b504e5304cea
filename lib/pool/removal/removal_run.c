/* SPDX-License-Identifier: GPL-2.0-or-later */
/* removal_run.c - the run of bounded steps a removal under way and a trash
 * entry's purge share (removal_int.h): each step unmaps at most one
 * step's worth of the device's mappings and is durable, then one change
 * drops the entry from the VG and deletes its emptied thin device. */
#include "lib/pool/removal/removal_int.h"

#include "lib/pool/core/core.h"
#include "lib/pool/core/pool_usage.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the wall clock in ms, for the debug log (the benchmark lines its steps
 * up with fio's latency log) */
static unsigned long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}


/* Is thin device ID missing from P's thin metadata (the kernel's, live)?
 * 1 missing, 0 there, -errno. A volume whose device is missing while the
 * transaction ids agree was lost (a salvage could not save it: tprepair
 * said so): its removal has nothing to unmap or delete. */
int removal_thin_missing(struct pool *p, uint32_t id)
{
	struct pool_dev_usage *u = NULL;
	size_t n = 0;
	int r = pool_dev_mapped(p, &u, &n), missing = 1;

	if (r)
		return r;
	for (size_t i = 0; i < n && missing; i++)
		missing = u[i].dev_id != id;
	free(u);
	return missing;
}


int removal_apply_end(struct pool *p, const void *arg)
{
	const struct removal_end *e = arg;
	int r = pool_op_delete(p, e->dev_id, e->name);

	if (r && r != -EBUSY)
		log_error("pool %s: cannot delete thin device %u: %s", pool_name(p), e->dev_id,
			  strerror(-r));
	return r;
}

/* The VG edit that ends RM: a removal under way leaves the removals (by
 * name), a trash entry's purge the trash (by dev id). */
static int end_edit(struct vg *next, const struct vg_volume *rm, int trash)
{
	return trash ? vg_drop_trash(next, rm->dev_id) : vg_end_removal(next, rm->name);
}

int removal_run_entry(struct pool *p, const struct vg_volume *entry, const char *dm_name,
		      int trash, tp_progress_fn *fn, void *ctx)
{
	struct vg_volume rm = *entry;	/* the VG is replaced by the end's commit */
	char name[VG_NAME_MAX + 1];
	struct removal_end e;
	uint64_t pos = 0, left = 0, total;
	unsigned long n = 0;
	struct vg *next;
	int r;

	/* the steps load its device under DM_NAME (a trash entry's own name
	 * may be a live volume's again) */
	snprintf(name, sizeof(name), "%s", rm.name);
	snprintf(rm.name, sizeof(rm.name), "%s", dm_name);
	if ((r = pool_refuse_latched(p)) ||
	    (r = pool_guard(p, "the removal", "nothing was changed", 0)))
		return r;
	if ((r = removal_thin_missing(p, rm.dev_id)) < 0)
		return r;
	if (r) {	/* lost: only the VG keeps it */
		if ((r = vg_clone(pool_vg(p), &next)))
			return r;
		if ((r = end_edit(next, entry, trash))) {
			vg_free(next);
			return r;
		}
		return pool_change(p, next, removal_apply_nothing, NULL);
	}
	if ((r = pool_unmap_step(p, &rm, 0, &pos, &left)))
		return r;
	total = left;
	if (fn)
		fn(ctx, 0, total);
	while (left && r == 0) {
		uint64_t before = pos;
		unsigned long long at;
		double t;

		tp_test_pause_n("remove-step", n++);
		at = wall_ms();
		t = seconds();
		r = pool_unmap_step(p, &rm, 1, &pos, &left);
		/* what one step cost (the benchmark's worst transaction) */
		log_debug(TP_DBG_POOL, "removal of %s: step %lu in %.3f s, %llu mappings left "
			  "(at %llu ms)", name, n, seconds() - t, (unsigned long long)left, at);
		if (r == -EOPNOTSUPP) {
			log_info("pool %s ignores discards: the delete of %s gives its chunks back "
				 "in one transaction", pool_name(p), name);
			r = 0;
			break;
		}
		if (!r && fn)
			fn(ctx, total - (left < total ? left : total), total);
		/* a step that got nowhere would loop for ever */
		if (!r && left && pos == before) {
			log_error("pool %s: the removal of %s got no further at chunk %llu; run "
				  "'tpcheck %s'", pool_name(p), name, (unsigned long long)pos, pool_name(p));
			r = -EUCLEAN;
		}
	}
	pool_unmap_end(p);	/* before the delete unloads it */
	if (r)
		return r;
	tp_test_pause("remove-emptied");
	e.dev_id = rm.dev_id;
	snprintf(e.name, sizeof(e.name), "%s", rm.name);
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	if ((r = end_edit(next, entry, trash))) {
		vg_free(next);
		return r;
	}
	return pool_change(p, next, removal_apply_end, &e);
}

int removal_apply_nothing(struct pool *p, const void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}
