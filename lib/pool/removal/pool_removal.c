/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_removal.c - the removal of a volume in bounded steps (core.h).
 *
 * A removal is three kinds of transaction, so that no one of them does
 * work in proportion to the volume's mappings:
 * 1. a change (pool_change) moves the volume from the VG's volumes to
 *    its removals: from then on it is no volume (nothing lists,
 *    activates, sends or snapshots it) but its name stays taken and its
 *    thin device stays;
 * 2. steps, each unmapping at most one step's worth of its mappings and
 *    committing (offline a thin commit of its own; live a discard through
 *    its device and a flush, after which the kernel commits): the VG does
 *    not change, the transaction ids stay equal;
 * 3. a change that drops the removal from the VG and deletes the now
 *    empty thin device.
 * A cut anywhere leaves a removal that the next tvremove of its name, or
 * the next change of any kind (pool_change), finishes from what is
 * durable: the steps only ever take away mappings the device still has.
 * Steps 2 and 3 are removal_run.c's, which a trash entry's purge shares
 * (pool_trash.c); the writer's open here finishes both kinds, and the
 * previous VG copy (previous_vg) tells what the pool's last change did. */
#include "lib/pool/removal/removal.h"
#include "lib/pool/removal/removal_int.h"

#include "lib/pool/core/core.h"
#include "lib/pool/pool_owner.h"
#include "lib/pool/core/pool_usage.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "metadata/vg/mda.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int run(struct pool *p, const char *name, tp_progress_fn *fn, void *ctx)
{
	const struct vg_volume *v = vg_find_removal(pool_vg(p), name);
	struct vg_volume rm;

	if (!v)
		return pool_volume_missing(p, name);
	rm = *v;
	return removal_run_entry(p, &rm, rm.name, 0, fn, ctx);
}

int pool_removal_run(struct pool *p, const char *name, tp_progress_fn *fn, void *ctx)
{
	return run(p, name, fn, ctx);
}

/* The removals this command's open finished (the feature's state). */
struct removal_state {
	unsigned n;
	char name[4][VG_NAME_MAX + 1];
	int wiped[4];	/* its record said tvremove --wipe zeroed it first */
	unsigned npurged;	/* and the trash purges it finished */
	char purged[4][VG_NAME_MAX + 1];
};

static struct pool_feature removal_feature;

/* The feature's opened hook (core.h): a writer's open finishes every
 * interrupted removal and trash purge (a failure is warned about; it
 * stays for the next writer). */
/* A purge the open finished, kept for pool_trash_finished. */
static void purge_done(void *ctx, const char *name)
{
	void **slot = pool_feature_state(ctx, &removal_feature);
	struct removal_state *st;

	if (!slot || (!*slot && !(*slot = calloc(1, sizeof(struct removal_state)))))
		return;	/* only tvremove's message is lost */
	st = *slot;
	if (st->npurged < TP_ARRAY_SIZE(st->purged))
		snprintf(st->purged[st->npurged++], sizeof(st->purged[0]), "%s", name);
}

int pool_trash_finished(const struct pool *p, const char *name)
{
	const struct removal_state *st = pool_feature_state_get(p, &removal_feature);

	for (unsigned i = 0; st && i < st->npurged; i++)
		if (!strcmp(st->purged[i], name))
			return 1;
	return 0;
}

static void finish_removals(struct pool *p, int write)
{
	void **slot;

	if (!write || pool_is_foreign(p))
		return;
	pool_trash_finish_purges(p, purge_done, p);	/* a purge cut under way */
	if (!pool_vg(p)->nr_removals || !(slot = pool_feature_state(p, &removal_feature)))
		return;
	while (pool_vg(p)->nr_removals) {
		char name[VG_NAME_MAX + 1];
		struct removal_state *st;
		int wiped = pool_vg(p)->removals[0].wiped;

		snprintf(name, sizeof(name), "%s", pool_vg(p)->removals[0].name);
		log_warn("pool %s: finishing the interrupted removal of %s", pool_name(p), name);
		if (pool_removal_run(p, name, NULL, NULL)) {
			log_warn("pool %s: the removal of %s is still under way; 'tvremove %s/%s' "
				 "goes on with it", pool_name(p), name, pool_name(p), name);
			return;
		}
		if (!*slot && !(*slot = calloc(1, sizeof(struct removal_state))))
			continue;	/* only tvremove's message is lost */
		st = *slot;
		if (st->n < TP_ARRAY_SIZE(st->name)) {
			st->wiped[st->n] = wiped;
			snprintf(st->name[st->n++], sizeof(st->name[0]), "%s", name);
		}
	}
}

unsigned pool_volume_removals_say(const struct pool *p)
{
	const struct vg *vg = pool_vg(p);

	for (unsigned i = 0; i < vg->nr_removals; i++)
		log_warn("pool %s: the removal of %s is under way: it is no volume any more; "
			 "'tvremove %s/%s', or any change to the pool, finishes it", pool_name(p),
			 vg->removals[i].name, pool_name(p), vg->removals[i].name);
	return vg->nr_removals;
}

int pool_removal_finished(const struct pool *p, const char *name)
{
	return pool_removal_finished_wiped(p, name) != POOL_REMOVAL_NOT_BEGUN;
}

int pool_removal_finished_wiped(const struct pool *p, const char *name)
{
	const struct removal_state *st = pool_feature_state_get(p, &removal_feature);

	for (unsigned i = 0; st && i < st->n; i++)
		if (!strcmp(st->name[i], name))
			return st->wiped[i] ? POOL_REMOVAL_WIPED : POOL_REMOVAL_UNWIPED;
	return POOL_REMOVAL_NOT_BEGUN;
}

int pool_removal_was_last(struct pool *p, const char *name)
{
	return pool_removal_was_last_wiped(p, name) != POOL_REMOVAL_NOT_BEGUN;
}

/* The VG before the pool's last change: the newest copy the devices keep
 * of the transaction before the VG's own, matched to this pool by its
 * uuid; NULL when no copy says (logged nothing: the copies were
 * validated when the pool was opened, what they say again is no news). */
static struct vg *previous_vg(struct pool *p)
{
	struct vg_mda_copy copies[VG_MDA_MAX_DEVICES * VG_MDA_SLOTS];
	struct vg_pv pvs[VG_MDA_MAX_DEVICES];
	struct tp_log_capture quiet, *old;
	const struct vg *vg = pool_vg(p);
	struct vg *found = NULL;
	unsigned k = 0;
	int nr;

	if (!vg->transaction_id)
		return NULL;
	for (unsigned i = 0; i < pool_nr_pvs(p) && k < VG_MDA_MAX_DEVICES; i++)
		if (pool_pv_at(p, i)->io)
			pvs[k++] = *pool_pv_at(p, i);
	if (!k)
		return NULL;
	old = tp_log_capture_push(&quiet);
	nr = vg_mda_read_copies(pvs, k, copies, (unsigned)TP_ARRAY_SIZE(copies), NULL);
	tp_log_capture_pop(old);
	for (int i = 0; i < nr; i++) {
		struct vg *prev = NULL;

		/* newest first: the first copy of an earlier transaction */
		if (vg_import(copies[i].text, copies[i].len, &prev))
			continue;
		if (prev->transaction_id >= vg->transaction_id || strcmp(prev->uuid, vg->uuid)) {
			vg_free(prev);
			continue;
		}
		if (prev->transaction_id + 1 == vg->transaction_id)
			found = prev;
		else
			vg_free(prev);
		break;
	}
	if (nr > 0)
		vg_mda_free_copies(copies, (unsigned)nr);
	return found;
}

int pool_removal_was_last_wiped(struct pool *p, const char *name)
{
	const struct vg_volume *rv;
	const struct vg *vg = pool_vg(p);
	struct vg *prev;
	int found = 0;

	if (vg_find_volume(vg, name) || vg_find_removal(vg, name) || !(prev = previous_vg(p)))
		return 0;
	/* a volume removed in one change mapped nothing (or its thin device
	 * was lost): it had no chunks to wipe */
	if (vg_find_volume(prev, name))
		found = POOL_REMOVAL_EMPTY;
	else if ((rv = vg_find_removal(prev, name)))
		found = rv->wiped ? POOL_REMOVAL_WIPED : POOL_REMOVAL_UNWIPED;
	vg_free(prev);
	return found;
}

int pool_trash_was_last(struct pool *p, const char *name)
{
	const struct vg *vg = pool_vg(p);
	const struct vg_volume *t;
	struct vg *prev = previous_vg(p);
	int r = 0;

	if (!prev)
		return 0;
	/* into the trash: NAME a volume before, now an entry of that thin id */
	if ((t = vg_find_volume(prev, name)) && !vg_find_volume(vg, name) &&
	    vg_find_trash_id(vg, t->dev_id))
		r = POOL_TRASH_LAST_PUT;
	/* a purge's end: an entry of NAME before, its thin id gone now */
	for (unsigned i = 0; !r && i < prev->nr_trash; i++)
		if (!strcmp(prev->trash[i].name, name) && !vg_find_dev_id(vg, prev->trash[i].dev_id))
			r = POOL_TRASH_LAST_PURGED;
	/* an undo: an entry before, a volume of that thin id now */
	for (unsigned i = 0; !r && i < prev->nr_trash; i++)
		if (!strcmp(prev->trash[i].name, name) && !vg_find_trash_id(vg, prev->trash[i].dev_id) &&
		    vg_find_dev_id(vg, prev->trash[i].dev_id))
			r = POOL_TRASH_LAST_UNDONE;
	vg_free(prev);
	return r;
}

static struct pool_feature removal_feature = {
	.name = "removal",
	.opened = finish_removals,
};

void pool_removal_register(void)
{
	pool_feature_register(&removal_feature);
}


int pool_removal_begin(struct pool *p, const char *name, int wiped)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), name);
	uint64_t pos = 0, left = 0;
	struct removal_end e;
	struct vg *next;
	int r;

	if (!v)
		return pool_volume_missing(p, name);
	e.dev_id = v->dev_id;
	snprintf(e.name, sizeof(e.name), "%s", name);
	if ((r = removal_thin_missing(p, v->dev_id)) < 0)
		return r;
	if (r) {
		/* a volume a repair reported lost: its thin device is gone, so
		 * the VG alone lets it go, in one change */
		log_warn("pool %s: volume %s has no thin device (thin device %u was lost: "
			 "'tpcheck %s' reported it); it is removed from the VG metadata", pool_name(p),
			 name, v->dev_id, pool_name(p));
		if (pool_is_live(p) && (r = pool_op_vol_deactivate(p, name)))
			return r;
		if ((r = vg_clone(pool_vg(p), &next)))
			return r;
		if ((r = vg_remove_volume(next, name))) {
			vg_free(next);
			return r;
		}
		r = pool_change(p, next, removal_apply_nothing, NULL);
		return r ? r : 1;
	}
	if ((r = pool_unmap_step(p, v, 0, &pos, &left)))
		return r;
	/* live, an open volume is refused before anything changes */
	if (pool_is_live(p) && (r = pool_op_vol_deactivate(p, name)))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	/* a volume that maps nothing goes in one change, as it always did */
	r = left ? vg_begin_removal(next, name) : vg_remove_volume(next, name);
	if (!r && left)
		vg_find_removal(next, name)->wiped = !!wiped;
	if (r) {
		vg_free(next);
		return r;
	}
	r = pool_change(p, next, left ? removal_apply_nothing : removal_apply_end, &e);
	return r ? r : !left;
}
