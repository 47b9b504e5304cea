/* pool_remove.c - tpremove's engine (pool.h: pool_remove, pool_forget):
 * wipe the labels and VG areas of an open pool's devices; or, for a pool
 * whose devices cannot all be opened, of each device the devices file
 * lists that still carries its label; then drop it from the devices
 * file. The backups stay. */
#include "lib/pool/core/core.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <string.h>

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
