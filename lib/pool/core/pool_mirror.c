/* pool_mirror.c - mirrored thin metadata (core.h: pool_meta_io,
 * pool_meta_legs; core_int.h: pool_attach_meta1): the second metadata
 * device of a pool made with tpcreate --meta DEV1,DEV2 (vg.meta1, laid out
 * as the first), opened after the VG is read, and the mirror engine
 * (lib/base/io.h: io_mirror) over the two that every offline read and
 * write of the thin-metadata areas goes through. At open the superblocks
 * of the active area on both legs are compared: a leg whose superblock
 * does not validate, or differs from the other's (a write it missed, a
 * crash between the legs' writes), is stale and taken out, never read;
 * the one that validates, with the VG's transaction id (else the higher
 * one, else the first leg), is the primary. Live, the kernel's raid1
 * (pool_layout.c) runs both legs and its status says their health. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/le.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *leg_path(const struct pool *p, unsigned i)
{
	const struct vg_pv *pv = i ? &p->pv[POOL_META1_PV] : &p->pv[VG_ROLE_META];

	if (pv->io)
		return pv->io->name;
	return i ? (p->vg->meta1.path[0] ? p->vg->meta1.path : "?") : "?";
}

/* The superblock block of the active area on leg IO, checked quietly
 * (location, magic, checksum): 0 with *SB and RAW, -EUCLEAN, or -errno */
static int leg_sb(const struct pool *p, struct io_engine *io, struct thin_sb *sb,
		  unsigned char *raw)
{
	const struct vg_area *a = &p->vg->dev[VG_ROLE_META].area[p->vg->metadata_area];
	int r;

	if (!io)
		return -ENODEV;
	if ((r = io_read(io, a->offset, raw, THIN_METADATA_BLOCK_SIZE)))
		return r;
	if (!bm_header_valid(raw, THIN_SB_BLOCK, THIN_SB_CSUM_XOR) ||
	    le64_get(raw + 0x20) != THIN_SB_MAGIC)
		return -EUCLEAN;
	thin_sb_unpack(raw, sb);
	return 0;
}

/* Which leg is good: take the other out when it is stale. */
static void pick_legs(struct pool *p)
{
	static unsigned char raw[2][THIN_METADATA_BLOCK_SIZE];
	struct thin_sb sb[2];
	int r[2];
	unsigned good;

	for (unsigned i = 0; i < 2; i++)
		r[i] = (io_mirror_in_use(p->meta_io) & (1u << i))
			       ? leg_sb(p, i ? p->pv[POOL_META1_PV].io : p->pv[VG_ROLE_META].io,
					&sb[i], raw[i])
			       : -ENODEV;
	if (r[0] && r[1])
		return;		/* neither validates: the open and the check say so */
	if (r[0] || r[1]) {
		good = r[0] ? 1 : 0;
		if (r[1 - good] != -ENODEV)
			io_mirror_take_out(p->meta_io, 1 - good,
					   r[1 - good] == -EIO ? -EIO : -EUCLEAN);
		p->meta_primary = good;
		return;
	}
	if (!memcmp(raw[0], raw[1], sizeof(raw[0])))
		return;		/* in step */
	if ((sb[0].trans_id == p->vg->transaction_id) != (sb[1].trans_id == p->vg->transaction_id))
		good = sb[1].trans_id == p->vg->transaction_id;
	else
		good = sb[1].trans_id > sb[0].trans_id;
	io_mirror_take_out(p->meta_io, 1 - good, -ESTALE);
	p->meta_primary = good;
}

static const char *leg_why(int err)
{
	switch (err) {
	case 0: return "in sync";
	case -ENODEV: return "missing";
	case -ESTALE: return "stale";
	case -EUCLEAN: return "stale (its thin superblock does not validate)";
	case -ENOENT: return "not the pool's (its label)";
	default: return "failed";
	}
}

int pool_attach_meta1(struct pool *p, unsigned claim, struct pool_check_report *rep)
{
	const struct vg_device *d = &p->vg->meta1;
	struct io_engine *io = NULL, *legs[2];
	struct vg_label l;
	char *path = NULL;
	int r, why = 0;

	if (!p->vg->meta_mirror)
		return 0;
	r = pool_find_meta_leg(p->name, p->vg->uuid, d->pv_uuid, d->path,
			       !(p->flags & POOL_RDONLY), &path);
	if (r == -ENOENT)
		why = -ENODEV;
	else if (r)
		return r;
	if (!why) {
		r = pool_open_pv(p, POOL_META1_PV, path, claim, &io);
		if (r == -EBUSY && !(p->flags & POOL_RDONLY)) {
			free(path);
			return r;
		}
		if (r)
			why = -EIO;
	}
	if (io) {
		r = vg_label_read(io, &l);
		if (r != VG_LABEL_FOUND || l.role != VG_ROLE_META || l.data_index != 1 ||
		    strcmp(l.pv_uuid, d->pv_uuid) || strcmp(l.pool_uuid, p->vg->uuid)) {
			why = r < 0 && r != -EUCLEAN ? -EIO : -ENOENT;
			io_destroy(io);
			io = NULL;
		}
	}
	if (io) {
		p->pv[POOL_META1_PV].io = io;
		p->pv[POOL_META1_PV].label = l;
	}
	free(path);
	legs[0] = p->pv[VG_ROLE_META].io;
	legs[1] = io;
	if ((r = io_mirror_create(legs[0], legs[1], 0, legs[0]->name, 0, &p->meta_io)))
		return r;
	if (why)
		io_mirror_take_out(p->meta_io, 1, why);
	if (!p->be->live)
		pick_legs(p);
	for (unsigned i = 0; i < 2; i++) {
		int e = io_mirror_error(p->meta_io, i);

		if (!e)
			continue;
		if (rep)
			pool_problem(rep, 0, "metadata mirror degraded: leg %u (%s) is %s; "
				     "'tpchange --meta-replace DEV %s' resyncs it", i, leg_path(p, i),
				     leg_why(e), p->name);
		else
			log_warn("pool %s: metadata mirror leg %u (%s) is %s: its thin metadata runs "
				 "on the other leg (degraded); 'tpchange --meta-replace DEV %s' "
				 "resyncs onto DEV", p->name, i, leg_path(p, i), leg_why(e), p->name);
	}
	return 0;
}

struct io_engine *pool_meta_io(const struct pool *p)
{
	return p->meta_io ? p->meta_io : p->pv[VG_ROLE_META].io;
}

/* The kernel's raid1 under tmeta: its health characters, when it runs */
static int live_health(const struct pool *p, char health[3], int *syncing)
{
	struct tp_dm_raid_status st;
	char name[TP_DM_NAME_MAX];
	int r;

	if ((r = tp_dm_name(name, sizeof(name), p->name, TP_DM_ROLE_TMETA, NULL)) ||
	    (r = tp_dm_raid_status(name, &st)))
		return r;
	if (st.nr_devs != 2)
		return -EPROTO;
	memcpy(health, st.health, 3);
	*syncing = st.sync_done < st.sync_total;
	return 0;
}

int pool_meta_legs(const struct pool *p, struct pool_meta_leg leg[2])
{
	char health[3] = "AA";
	int syncing = 0, live = 0;

	memset(leg, 0, 2 * sizeof(*leg));
	if (!p->vg->meta_mirror)
		return 0;
	if (p->be->live && !live_health(p, health, &syncing))
		live = 1;
	for (unsigned i = 0; i < 2; i++) {
		int e = p->meta_io ? io_mirror_error(p->meta_io, i) : -ENODEV;
		char h = health[i];	/* leg I is the raid table's place I */

		snprintf(leg[i].path, sizeof(leg[i].path), "%s", leg_path(p, i));
		leg[i].err = e;
		if (live && h == 'D' && !e)
			leg[i].err = -EIO;
		leg[i].state = leg_why(leg[i].err);
		if (live && h == 'a' && !leg[i].err)
			leg[i].state = "resyncing";
		leg[i].resyncing = live && h == 'a';
	}
	return 1;
}

const char *pool_meta_health(const struct pool *p)
{
	struct pool_meta_leg leg[2];

	if (!pool_meta_legs(p, leg))
		return "single";
	if (leg[0].err || leg[1].err)
		return "degraded";
	return leg[0].resyncing || leg[1].resyncing ? "resyncing" : "mirrored";
}

int pool_meta_rebuild(struct pool *p)
{
	struct io_engine *old = p->meta_io, *io;
	int r = io_mirror_create(p->pv[VG_ROLE_META].io, p->pv[POOL_META1_PV].io,
				 old ? io_mirror_primary(old) : 0, p->pv[VG_ROLE_META].io->name, 0,
				 &io);

	if (r)
		return r;
	for (unsigned i = 0; old && i < 2; i++)
		if (io_mirror_error(old, i))
			io_mirror_take_out(io, i, io_mirror_error(old, i));
	io_destroy(old);
	p->meta_io = io;
	return 0;
}

/* Copy both thin-metadata areas of the good leg GOOD onto IO: each area
 * but its first block, flushed, then the first blocks (the superblocks),
 * flushed; a copy cut short leaves IO's superblock as it was, so a stale
 * leg stays stale. */
static int copy_areas(struct pool *p, unsigned good, struct io_engine *io)
{
	struct io_engine *src = good ? p->pv[POOL_META1_PV].io : p->pv[VG_ROLE_META].io;
	const struct vg_device *m = &p->vg->dev[VG_ROLE_META];
	size_t len = 1u << 20;
	char *buf = malloc(len);
	int r = buf ? 0 : -ENOMEM;

	for (unsigned a = 0; a < 2 && !r; a++)
		for (uint64_t off = THIN_METADATA_BLOCK_SIZE; off < m->area[a].size && !r;
		     off += len) {
			size_t n = (size_t)TP_MIN((uint64_t)len, m->area[a].size - off);

			if (!(r = io_read(src, m->area[a].offset + off, buf, n)))
				r = io_write(io, m->area[a].offset + off, buf, n);
		}
	if (!r)
		r = io_flush(io);
	for (unsigned a = 0; a < 2 && !r; a++)
		if (!(r = io_read(src, m->area[a].offset, buf, THIN_METADATA_BLOCK_SIZE)))
			r = io_write(io, m->area[a].offset, buf, THIN_METADATA_BLOCK_SIZE);
	free(buf);
	return r ? r : io_flush(io);
}

int pool_meta_replace(struct pool *p, const char *path)
{
	struct pool_meta_leg leg[2];
	struct tp_dm_pool_layout l;
	struct io_engine *io = NULL, *mio;
	struct tp_lock *claim = NULL;
	struct vg *next = NULL;
	struct vg_device *d;
	struct vg_label lab;
	unsigned out, slot;
	int same = 0;
	char old_uuid[VG_UUID_LEN + 1];
	char *abs;
	int r;

	if (!p->vg->meta_mirror) {
		log_error("pool %s has one metadata device, no mirror: nothing to replace "
			  "(tpcreate --meta DEV1,DEV2 makes a mirrored pool); nothing was changed",
			  p->name);
		return -EINVAL;
	}
	pool_meta_legs(p, leg);
	if (!leg[0].err && !leg[1].err) {
		log_error("pool %s: both legs of its metadata mirror (%s, %s) are in sync: "
			  "nothing to replace; nothing was changed", p->name, leg[0].path,
			  leg[1].path);
		return -EBUSY;
	}
	if (leg[0].err && leg[1].err) {
		log_error("pool %s: neither leg of its metadata mirror is in sync: there is "
			  "nothing to resync from; 'tpcheck %s' says more", p->name, p->name);
		return -EUCLEAN;
	}
	out = leg[0].err ? 0 : 1;
	slot = out ? POOL_META1_PV : VG_ROLE_META;
	if ((r = pool_refuse_latched(p)))
		return r;
	abs = realpath(path, NULL);
	if (!abs) {
		log_error("pool %s: --meta-replace %s: %s", p->name, path, strerror(errno));
		return -ENOENT;
	}
	/* the leg that is out may be given again: its device is resynced in
	 * place, its label (it matched) and device uuid kept */
	if (p->pv[slot].io && pool_same_device(p->pv[slot].io->name, abs)) {
		same = 1;
		lab = p->pv[slot].label;
		io_destroy(p->pv[slot].io);
		p->pv[slot].io = NULL;
		tp_lock_release(p->claim[slot]);
		p->claim[slot] = NULL;
	}
	for (unsigned i = 0; i < pool_nr_pvs(p) + 1; i++) {
		unsigned k = i < pool_nr_pvs(p) ? i : POOL_META1_PV;

		if (p->pv[k].io && pool_same_device(p->pv[k].io->name, abs)) {
			log_error("pool %s: %s is one of its devices already; nothing was changed",
				  p->name, abs);
			free(abs);
			return -EINVAL;
		}
	}
	r = pool_claim_open(p->name, abs, 0, &claim, &io);
	if (r) {
		if (r != -EBUSY)
			log_error("pool %s: cannot open %s for writing: %s", p->name, abs,
				  strerror(-r));
		goto fail;
	}
	if (io->size < p->vg->dev[VG_ROLE_META].size &&
	    io->size < TP_MAX(p->vg->dev[VG_ROLE_META].area[0].offset +
				      p->vg->dev[VG_ROLE_META].area[0].size,
			      p->vg->dev[VG_ROLE_META].area[1].offset +
				      p->vg->dev[VG_ROLE_META].area[1].size)) {
		log_error("pool %s: %s is smaller than its metadata layout; nothing was changed",
			  p->name, abs);
		r = -ENOSPC;
		goto fail;
	}
	if ((r = vg_clone(p->vg, &next)))
		goto fail;
	d = out ? &next->meta1 : &next->dev[VG_ROLE_META];
	memcpy(old_uuid, d->pv_uuid, sizeof(old_uuid));
	if (!same && (r = vg_uuid_generate(d->pv_uuid)))
		goto fail;
	snprintf(d->path, sizeof(d->path), "%s", abs);
	if (!same) {
		d->size = io->size;
		if (out)
			vg_label_from_vg_meta1(next, io->size, &lab);
		else
			vg_label_from_vg(next, VG_ROLE_META, io->size, &lab);
	}
	/* 1. offline, the areas copied from the good leg (live the kernel's
	 * raid1 rebuilds the leg), superblocks last; 2. a new device's VG
	 * area and label; 3. the VG commit that names it: before it the old
	 * VG stands and the new device is no device of the pool (the same
	 * device resynced in place is in sync once its superblocks are) */
	if (!p->be->live && (r = copy_areas(p, 1 - out, io))) {
		log_error("pool %s: cannot copy its thin metadata onto %s: %s; nothing was changed",
			  p->name, abs, strerror(-r));
		goto fail;
	}
	/* a new leg's raid metadata zeroed: the kernel rebuilds it */
	if ((r = pool_zero_raid_meta(io, next)) ||
	    (!same && ((r = vg_mda_format(io, &lab)) || (r = vg_label_write(io, &lab))))) {
		log_error("pool %s: cannot label %s: %s; nothing was changed", p->name, abs,
			  strerror(-r));
		goto fail;
	}
	io_destroy(p->pv[slot].io);
	tp_lock_release(p->claim[slot]);
	p->pv[slot].io = io;
	p->pv[slot].label = lab;
	p->claim[slot] = claim;
	io = NULL;
	claim = NULL;
	r = pool_commit_vg(p, next);
	next = NULL;
	if (r)
		goto fail;
	/* the devices file: the new leg in, the old one's entry out */
	if (!same && pool_devices_remove_pv(old_uuid) < 0)
		log_warn("pool %s: could not drop the old leg from the devices file", p->name);
	pool_record_device(p->name, VG_ROLE_META, lab.pv_uuid, abs);
	/* live, the kernel opens the new leg: our exclusive open goes (the
	 * flock claim stays), as at activation */
	if (p->be->live) {
		struct io_engine *shared;

		if ((r = io_fd_open(p->pv[slot].io->name, 0, &shared))) {
			log_error("pool %s: cannot reopen %s: %s", p->name, p->pv[slot].io->name,
				  strerror(-r));
			goto fail;
		}
		io_destroy(p->pv[slot].io);
		p->pv[slot].io = shared;
	}
	/* the mirror over both legs again */
	thin_close(p->md);
	p->md = NULL;
	io_destroy(p->thin_io);
	p->thin_io = NULL;
	if ((r = io_mirror_create(p->pv[VG_ROLE_META].io, p->pv[POOL_META1_PV].io, 1 - out,
				  p->pv[VG_ROLE_META].io->name, 0, &mio)))
		goto fail;
	io_destroy(p->meta_io);
	p->meta_io = mio;
	if (p->be->live) {
		pool_dm_layout(p, &l);
		r = tp_dm_meta_replace_leg(&l, out);
	} else {
		r = pool_open_thin(p);
	}
	if (!r)
		log_info("pool %s: metadata mirror leg %u is now %s%s", p->name, out, abs,
			 p->be->live ? " (the kernel resyncs it)" : ", resynced");
	free(abs);
	return r;
fail:
	vg_free(next);
	io_destroy(io);
	tp_lock_release(claim);
	free(abs);
	return r;
}

int pool_zero_raid_meta(struct io_engine *io, const struct vg *vg)
{
	static const unsigned char zero[64 * 1024];
	int r = 0;

	for (uint64_t off = 0; off < VG_RAID_META_BYTES && !r; off += sizeof(zero))
		r = io_write(io, vg_raid_meta_offset(vg) + off, zero, sizeof(zero));
	return r ? r : io_flush(io);
}
