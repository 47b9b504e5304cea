/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_trash.c - the trash (removal.h): with the pool's trash retention on,
 * tvremove moves a volume to the VG's trash in one change instead of
 * removing it. An entry keeps its thin device, so its data and the chunks
 * it shares with snapshots stay as they were; it is no volume (nothing
 * lists, activates, sends or snapshots it, its content uuid names no base)
 * and its name is free. Each step is one change:
 * - to the trash: the volume leaves the volumes for the trash (live, its
 *   device is unloaded first);
 * - undo: the entry comes back as a volume, under its name or a new one;
 * - purge: a change marks the entry purging (it can never come back: its
 *   mappings are about to go), then the removal's own bounded steps and
 *   its last change, which drops the entry and deletes the thin device
 *   (removal_run_entry). A purge cut anywhere is finished by the next
 *   writer's open (the removal module's opened hook) or the next purge. */
#include "lib/pool/removal/removal.h"
#include "lib/pool/removal/removal_int.h"

#include "lib/pool/core/core.h"
#include "lib/pool/core/pool_usage.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pool_trash_put(struct pool *p, const char *name, int64_t now)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), name);
	struct vg *next;
	int r;

	if (!v)
		return pool_volume_missing(p, name);
	if (!pool_vg(p)->trash_retention) {
		log_error("pool %s keeps no trash (its trash retention is off)", pool_name(p));
		return -EINVAL;
	}
	if ((r = pool_refuse_latched(p)) ||
	    (r = pool_guard(p, "the move to the trash", "nothing was changed", 0)))
		return r;
	/* a volume whose thin device was lost keeps nothing worth a trash:
	 * the caller removes it (its removal says so) */
	if ((r = removal_thin_missing(p, v->dev_id)) != 0)
		return r;
	/* live, an open volume is refused before anything changes */
	if (pool_is_live(p) && (r = pool_op_vol_deactivate(p, name)))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	if ((r = vg_trash_volume(next, name, now))) {
		vg_free(next);
		return r;
	}
	return pool_change(p, next, removal_apply_nothing, NULL);
}

int pool_trash_undo(struct pool *p, const char *name, const char *as, uint32_t *dev_id)
{
	const struct vg_volume *t = vg_find_trash(pool_vg(p), name);
	const char *want = as ? as : name;
	struct vg *next;
	int r;

	if (!t) {
		log_error("pool %s has no volume named %s in its trash (see 'tpstatus --trash %s')",
			  pool_name(p), name, pool_name(p));
		return -ENOENT;
	}
	if (t->purging) {
		log_error("pool %s: the purge of %s from the trash is under way; it cannot come "
			  "back ('tvremove --purge %s/%s' finishes the purge)", pool_name(p), name,
			  pool_name(p), name);
		return -EBUSY;
	}
	if (vg_name_used(pool_vg(p), want)) {
		if (as)
			log_error("pool %s already has a volume, an unfinished receive or a removal "
				  "named %s; give another name with --name", pool_name(p), want);
		else
			log_error("pool %s has a volume named %s again; bring the trashed one back "
				  "under another name: 'tvremove --undo --name NEWNAME %s/%s'",
				  pool_name(p), name, pool_name(p), name);
		return -EEXIST;
	}
	*dev_id = t->dev_id;
	/* an entry a restored VG brought back after its device was purged:
	 * its data is gone, an undo would make a volume without a device */
	if ((r = removal_thin_missing(p, *dev_id)) < 0)
		return r;
	if (r) {
		log_error("pool %s: the trash entry %s cannot come back: its thin device %u is "
			  "missing from the thin metadata, its data is gone; 'tvremove --purge "
			  "%s/%s' drops the entry (nothing was changed)", pool_name(p), name,
			  (unsigned)*dev_id, pool_name(p), name);
		return -ECANCELED;
	}
	if ((r = pool_refuse_latched(p)) ||
	    (r = pool_guard(p, "the undo", "nothing was changed", 0)))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	if ((r = vg_untrash(next, *dev_id, want))) {
		vg_free(next);
		return r;
	}
	return pool_change(p, next, removal_apply_nothing, NULL);
}

/* The name the purge of thin device ID loads its device under, live:
 * trash.ID, or trash.ID.N when a volume, receive or removal has that. */
static void purge_dm_name(const struct pool *p, uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "trash.%u", (unsigned)id);
	for (unsigned n = 1; vg_name_used(pool_vg(p), buf); n++)
		snprintf(buf, len, "trash.%u.%u", (unsigned)id, n);
}

int pool_trash_purge(struct pool *p, uint32_t dev_id, tp_progress_fn *fn, void *ctx)
{
	const struct vg_volume *t = vg_find_trash_id(pool_vg(p), dev_id);
	char dm[VG_NAME_MAX + 1];
	struct vg_volume entry;
	struct vg *next;
	int r;

	if (!t)
		return -ENOENT;
	if (!t->purging) {
		if ((r = pool_refuse_latched(p)) ||
		    (r = pool_guard(p, "the purge", "nothing was changed", 0)))
			return r;
		if ((r = vg_clone(pool_vg(p), &next)))
			return r;
		vg_find_trash_id(next, dev_id)->purging = 1;
		if ((r = pool_change(p, next, removal_apply_nothing, NULL)))
			return r;
		tp_test_pause("trash-purge-begun");
		t = vg_find_trash_id(pool_vg(p), dev_id);
		if (!t)
			return -ENOENT;
	}
	entry = *t;
	purge_dm_name(p, dev_id, dm, sizeof(dm));
	return removal_run_entry(p, &entry, dm, 1, fn, ctx);
}

void pool_trash_finish_purges(struct pool *p, void (*done)(void *ctx, const char *name),
			      void *ctx)
{
	for (unsigned i = 0; i < pool_vg(p)->nr_trash; i++) {
		const struct vg_volume *t = &pool_vg(p)->trash[i];
		char name[VG_NAME_MAX + 1];
		uint32_t id = t->dev_id;

		if (!t->purging)
			continue;
		snprintf(name, sizeof(name), "%s", t->name);
		log_warn("pool %s: finishing the interrupted purge of %s (thin device %u) from "
			 "the trash", pool_name(p), name, (unsigned)id);
		if (pool_trash_purge(p, id, NULL, NULL)) {
			log_warn("pool %s: the purge of %s from the trash is still under way; "
				 "'tvremove --purge %s/%s' goes on with it", pool_name(p), name,
				 pool_name(p), name);
			return;
		}
		if (done)
			done(ctx, name);
		i = (unsigned)-1;	/* the VG changed: from the start */
	}
}

int pool_trash_usage(struct pool *p, int sharing, struct pool_trash_entry **out, unsigned *nr)
{
	const struct vg *vg = pool_vg(p);
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	struct pool_dev_usage *u = NULL;
	struct pool_trash_entry *e;
	unsigned *order;
	uint64_t mu, mt, du, dt;
	size_t nu = 0;
	int r;

	*out = NULL;
	*nr = 0;
	if (!vg->nr_trash)
		return 0;
	if ((r = pool_fill_blocks(p, &mu, &mt, &du, &dt)) ||
	    (r = sharing ? pool_dev_usage(p, dt, &u, &nu) : pool_dev_mapped(p, &u, &nu))) {
		log_error("pool %s: cannot read what its trash maps: %s; run 'tpcheck %s'",
			  pool_name(p), strerror(-r), pool_name(p));
		return r;
	}
	e = calloc(vg->nr_trash, sizeof(*e));
	order = calloc(vg->nr_trash, sizeof(*order));
	if (!e || !order) {
		free(e);
		free(order);
		free(u);
		return -ENOMEM;
	}
	vg_trash_order(vg, order);
	for (unsigned i = 0; i < vg->nr_trash; i++) {
		const struct vg_volume *t = &vg->trash[order[i]];
		const struct pool_dev_usage *d = pool_usage_find(u, nu, t->dev_id);

		snprintf(e[i].name, sizeof(e[i].name), "%s", t->name);
		e[i].dev_id = t->dev_id;
		e[i].size = t->size;
		e[i].trashed_at = t->trashed_at;
		e[i].expires = vg_trash_expiry(vg, t);
		e[i].purging = t->purging;
		e[i].read_only = t->read_only;
		e[i].mapped = d ? d->mapped * chunk : 0;
		e[i].exclusive = d ? d->exclusive * chunk : 0;
	}
	free(order);
	free(u);
	*out = e;
	*nr = vg->nr_trash;
	return 0;
}
