/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_remove.c - tpremove's engine (pool.h: pool_remove, pool_forget,
 * pool_label_remove): wipe the labels and VG areas of an open pool's
 * devices; or, for a pool whose devices cannot all be opened, of each
 * device the devices file lists that still carries its label; then drop
 * it from the devices file. The backups stay. tpremove --label wipes one
 * device's label that no pool's VG names (an orphan, or the label of a
 * pool that is gone), pvremove's twin. */
#include "lib/pool/core/core.h"
#include "lib/pool/pool_admin.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int pool_remove(struct pool *p)
{
	int r = pool_refuse_live(p, "removing it"), e;

	for (unsigned i = 0; !r && pool_vg(p) && i < pool_vg(p)->nr_volumes; i++)
		if (pool_vg(p)->volumes[i].read_only)
			r = pool_volume_held(p, &pool_vg(p)->volumes[i]);
	if (r) {
		pool_close(p);
		return r;
	}
	tp_critical_begin();

	for (unsigned i = 0; i < pool_nr_pvs(p); i++) {
		e = vg_label_wipe(pool_pv_at(p, i)->io, 0);
		if (e < 0 && !r)
			r = e;
	}
	for (unsigned i = 0; i < pool_nr_pvs(p); i++) {
		e = vg_mda_format(pool_pv_at(p, i)->io, &pool_pv_at(p, i)->label);
		if (e && !r)
			r = e;
	}
	/* a mirrored pool's second metadata device (a missing one keeps its
	 * label: tpcreate then names the pool it belonged to) */
	if (pool_meta1_pv(p)) {
		e = vg_label_wipe(pool_meta1_pv(p)->io, 0);
		if (e < 0 && !r)
			r = e;
		e = vg_mda_format(pool_meta1_pv(p)->io, &pool_meta1_pv(p)->label);
		if (e && !r)
			r = e;
	}
	tp_critical_end();
	if (r)
		log_error("pool %s: could not wipe all of its labels: %s", pool_name(p), strerror(-r));
	e = pool_devices_remove_pool(pool_name(p));
	if (e && !r)
		r = e;
	pool_close(p);
	return r;
}

/* Wipe the label and VG slots of the device entry E names if it still
 * carries that device's label of pool NAME (its device uuid, and its pool
 * uuid when the entry records one): a stale entry, whose path now holds
 * another device, is left alone. */
static int forget_device(const char *name, const struct pool_devices_entry *e)
{
	const char *path = e->path;
	struct tp_lock *claim;
	struct io_engine *io;
	struct vg_label l;
	int r;

	if (pool_read_label(path, &l) || strcmp(l.pool_name, name) ||
	    strcmp(l.pv_uuid, e->pv_uuid) || (e->pool_uuid[0] && strcmp(l.pool_uuid, e->pool_uuid)))
		return 0;
	r = pool_claim_open(name, path, 0, &claim, &io);
	if (r)
		return r;
	r = vg_mda_format(io, &l);
	if (!r)
		r = vg_label_wipe(io, 0);
	io_destroy(io);
	tp_lock_release(claim);
	if (r >= 0)
		log_warn("pool %s: wiped its label on %s", name, path);
	return r < 0 ? r : 0;
}

int pool_forget(const char *name)
{
	struct pool_devices_entry ent[8];
	struct tp_lock *lock;
	int n, r, e;

	r = tp_lock_acquire(name, TP_LOCK_EXCL, &lock);
	if (r)
		return r;
	n = pool_devices_lookup_pool(name, ent, TP_ARRAY_SIZE(ent));
	if (n < 0) {
		tp_lock_release(lock);
		return n;
	}
	r = 0;
	for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++) {
		e = forget_device(name, &ent[i]);
		if (e && !r)
			r = e;
	}
	e = pool_devices_remove_pool(name);
	if (e && !r)
		r = e;
	tp_lock_release(lock);
	if (!r && n == 0) {
		log_error("pool %s is not in the devices file; nothing to forget", name);
		return -ENOENT;
	}
	return r;
}

static void verdict_from(const struct pool_label_owner *o, struct pool_label_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->kind = o->kind;
	if (o->kind != POOL_LABEL_NONE && o->kind != POOL_LABEL_DAMAGED) {
		snprintf(v->pool, sizeof(v->pool), "%s", o->pool);
		snprintf(v->device_uuid, sizeof(v->device_uuid), "%s", o->label.pv_uuid);
	}
	snprintf(v->what, sizeof(v->what), "%s", o->what);
}

int pool_label_inspect(const char *path, struct pool_label_verdict *v)
{
	struct pool_label_owner o;
	int r;

	memset(v, 0, sizeof(*v));
	if (access(path, F_OK)) {
		r = -errno;
		log_error("%s: %s", path, strerror(errno));
		return r;
	}
	if ((r = pool_label_owner(path, &o)))
		return r;
	verdict_from(&o, v);
	return 0;
}

int pool_label_remove(const char *path, int force, const struct pool_label_verdict *was)
{
	struct pool_label_verdict now;
	struct pool_label_owner o;
	struct tp_lock *claim = NULL;
	struct io_engine *io = NULL;
	int r;

	/* claimed first: a command adding or taking the device away holds
	 * it, so what is seen next is settled */
	if ((r = pool_claim_open(was->pool[0] ? was->pool : "-", path, 0, &claim, &io))) {
		if (r != -EBUSY)
			log_error("%s: cannot open it for writing: %s", path, strerror(-r));
		return r;
	}
	if ((r = pool_label_owner(path, &o)))
		goto out;
	verdict_from(&o, &now);
	if (now.kind != was->kind || strcmp(now.device_uuid, was->device_uuid)) {
		log_error("%s: its label changed while tpremove asked (it now carries %s); "
			  "nothing was changed: run the command again", path,
			  now.kind ? now.what : "no tptools label");
		r = -EAGAIN;
		goto out;
	}
	switch (o.kind) {
	case POOL_LABEL_NONE:
		log_error("%s carries no tptools label: nothing to wipe ('wipefs %s' lists the "
			  "signatures other programs know)", path, path);
		r = -ENOENT;
		goto out;
	case POOL_LABEL_ORPHAN:
	case POOL_LABEL_GONE:
		break;
	case POOL_LABEL_DAMAGED:
	case POOL_LABEL_UNKNOWN:
		if (force)
			break;
		pool_label_refusal(path, &o, "tpremove --label will not wipe it without --force",
				   0);
		r = -EBUSY;
		goto out;
	default:
		pool_label_refusal(path, &o, "tpremove --label will not wipe it", 0);
		r = -EBUSY;
		goto out;
	}
	/* the label first (without it the device is nobody's), then the VG
	 * area its label describes; a damaged label describes none */
	tp_critical_begin();
	r = vg_label_wipe(io, 0);
	if (r >= 0 && o.kind != POOL_LABEL_DAMAGED)
		r = vg_mda_format(io, &o.label);
	tp_critical_end();
	if (r < 0) {
		log_error("%s: cannot wipe its tptools label: %s", path, strerror(-r));
		goto out;
	}
	r = 0;
	if (o.kind != POOL_LABEL_DAMAGED && pool_devices_remove_pv(o.label.pv_uuid))
		log_warn("%s: the devices file still lists it (device uuid %s)", path,
			 o.label.pv_uuid);
out:
	io_destroy(io);
	tp_lock_release(claim);
	return r;
}
