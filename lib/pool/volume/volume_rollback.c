/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume_rollback.c - roll a thin volume back to one of its snapshots
 * (pool.h: pool_volume_rollback). VOL keeps its name, activation flag and
 * creation time; its content and virtual size become SNAP's; SNAP is kept.
 *
 * One change under the transaction-id protocol (pool_change): the VG is
 * committed first with VOL on a new thin device id, recorded as a
 * snapshot of SNAP; then, in one thin transaction, the new id is made a
 * snapshot of SNAP's device and VOL's old device is deleted. A crash
 * between the two commits is completed by the replay (pool_txn.c) from
 * the VG alone: it deletes the id the VG no longer lists and snapshots
 * the new one from its recorded origin, SNAP. So the VG's origins must
 * stay a forest: when SNAP descends from VOL, the volume of SNAP's chain
 * that was a direct snapshot of VOL takes VOL's former origin (the old
 * device it recorded is gone).
 *
 * SNAP must be of VOL's snapshot family (the same first volume at the
 * end of both origin chains): a snapshot of VOL, direct or deeper, VOL's
 * origin after an earlier rollback, or a snapshot sharing an origin; so
 * a volume can be rolled back to one checkpoint again and again, and a
 * typo naming an unrelated volume is refused. Refused (logged): SNAP of
 * another family or VOL itself (-EINVAL); VOL read-only (-EROFS); VOL
 * open in the kernel (-EBUSY).
 *
 * Live, the thin operations are the kernel's pool messages (create_snap,
 * SNAP suspended meanwhile when it is active; delete). A loaded VOL that
 * nobody holds open is unloaded before its old device is deleted (the
 * kernel refuses to delete a device a table holds) and loaded again
 * after the change, on its new device: a fresh dm device whose uuid
 * names the new id, where a table reload would keep one naming the
 * deleted id. A step that fails after create_snap deletes the new device
 * again, so the kernel is as before and the VG commit is undone
 * (pool_live_settle). */
#include "lib/pool/core/core.h"
#include "lib/pool/pool_volume.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct rollback {
	uint32_t old_id, new_id;
	int loaded;			/* live: VOL's dm device exists */
	char vol[VG_NAME_MAX + 1], snap[VG_NAME_MAX + 1];
};

static int apply_rollback(struct pool *p, const void *arg)
{
	const struct rollback *rb = arg;
	const struct vg_volume *s = vg_find_volume(pool_vg(p), rb->snap);
	int r = pool_op_snap(p, rb->new_id, s);

	if (r) {
		log_error("pool %s: cannot snapshot thin device %u: %s", pool_name(p), s->dev_id,
			  strerror(-r));
		return r;
	}
	r = pool_op_delete(p, rb->old_id, rb->loaded ? rb->vol : NULL);
	if (r) {
		if (r != -EBUSY)
			log_error("pool %s: cannot delete thin device %u: %s", pool_name(p),
				  rb->old_id, strerror(-r));
		pool_op_unmake(p, rb->new_id);
	}
	return r;
}

/* The volume of SNAP's origin chain whose origin is VOL, or NULL when
 * SNAP is not a snapshot of VOL (the VG's origins have no cycles). */
static struct vg_volume *below(struct vg *vg, const char *snap, const char *vol)
{
	struct vg_volume *v = vg_find_volume(vg, snap);

	for (unsigned depth = 0; v && v->origin[0] && depth <= vg->nr_volumes; depth++) {
		if (!strcmp(v->origin, vol))
			return v;
		v = vg_find_volume(vg, v->origin);
	}
	return NULL;
}

/* The first volume of NAME's origin chain (NAME itself when it has no
 * origin): the root of its snapshot family. */
static const struct vg_volume *family(const struct vg *vg, const char *name)
{
	const struct vg_volume *v = vg_find_volume(vg, name);

	for (unsigned depth = 0; v && v->origin[0] && depth <= vg->nr_volumes; depth++)
		v = vg_find_volume(vg, v->origin);
	return v;
}

/* Whether VOL's dm device exists (live). */
static int is_loaded(const struct pool *p, const char *vol)
{
	struct tp_dm_info info;

	return pool_volume_loaded(p, vol, &info) > 0;
}

/* Live: *LOADED set when VOL's dm device exists; -EBUSY (logged) when
 * something holds it open. */
static int refuse_open(struct pool *p, const char *vol, int *loaded)
{
	struct tp_dm_info info;
	int r;

	*loaded = 0;
	if ((r = pool_volume_loaded(p, vol, &info)) <= 0)
		return r;
	*loaded = 1;
	if (info.open_count <= 0)
		return 0;
	log_error("pool %s: volume %s is open (mounted or in use by %d opener%s); unmount or "
		  "close it first, then roll it back", pool_name(p), vol, info.open_count,
		  info.open_count == 1 ? "" : "s");
	return -EBUSY;
}

int pool_volume_rollback(struct pool *p, const char *vol, const char *snap, uint64_t *old_size)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol), *s;
	struct vg_volume *nv, *child;
	struct rollback rb;
	struct vg *next;
	int r, a;

	if (!v || !(s = vg_find_volume(pool_vg(p), snap)))
		return pool_volume_missing(p, v ? snap : vol);
	if (!strcmp(vol, snap) || family(pool_vg(p), vol) != family(pool_vg(p), snap)) {
		log_error("pool %s: %s is not a snapshot of %s's family (neither is a snapshot of "
			  "the other, directly or through others, nor do they share an origin); a "
			  "volume rolls back only to the snapshots of its family ('tpstatus -o "
			  "vol_name,vol_origin %s' shows them)", pool_name(p), snap, vol, pool_name(p));
		return -EINVAL;
	}
	if ((r = pool_volume_refuse_readonly(p, vol, "a rollback")) ||
	    (r = refuse_open(p, vol, &rb.loaded)))
		return r;
	if ((r = pool_next_dev_id(p, &rb.new_id)))
		return r;
	*old_size = v->size;
	rb.old_id = v->dev_id;
	snprintf(rb.vol, sizeof(rb.vol), "%s", vol);
	snprintf(rb.snap, sizeof(rb.snap), "%s", snap);
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	nv = vg_find_volume(next, vol);
	if ((child = below(next, snap, vol)))
		snprintf(child->origin, sizeof(child->origin), "%s", nv->origin);
	snprintf(nv->origin, sizeof(nv->origin), "%s", snap);
	nv->dev_id = rb.new_id;
	nv->size = s->size;
	nv->content_uuid[0] = '\0';
	/* the content is the snapshot's, header and all */
	snprintf(nv->luks_uuid, sizeof(nv->luks_uuid), "%s", s->luks_uuid);
	next->next_dev_id = rb.new_id + 1;
	r = pool_change(p, next, apply_rollback, &rb);
	if (!rb.loaded || is_loaded(p, vol))
		return r;	/* (a change that failed early left it loaded) */
	a = pool_activate(p, (const char *const[]){ vol }, 1);
	if (a)
		log_error("pool %s: volume %s %s but could not be loaded again; 'tpactivate %s "
			  "%s' loads it", pool_name(p), vol, r ? "was not rolled back" : "was rolled back",
			  pool_name(p), vol);
	return r ? r : a;
}
