/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_mirror_replace.c - tpchange --meta-replace and --meta-mirror
 * (pool.h: pool_meta_replace, pool_meta_mirror_add): apart from
 * pool_mirror.c, which the attach, the offline engine and the commit use
 * (the commit resyncs a stale leg there), because this uses them. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/dev/probe.h"
#include "lib/pool/host/host.h"
#include "metadata/thin/thin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new leg at PATH carries a signature: refuse, unless it is a
 * metadata label of this pool (the old leg, or a replace cut short) or
 * any other orphan of it: no device in use is PATH, the caller made sure.
 * Another pool's label is refused with what it is (pool_label_owner) and
 * the command that frees it. */
static int check_new_leg(const struct pool *p, const char *path)
{
	const char *auto_dev = p->vg->monitor.autoextend_device;
	struct tp_probe_result res;
	struct pool_label_owner o;
	struct vg_label l;
	char one[160];
	int r;

	/* the device tpmonitor is to add as data is not a metadata leg too */
	if (auto_dev[0] && pool_same_device(auto_dev, path)) {
		log_error("pool %s: %s is its --autoextend-device, the device tpmonitor adds as "
			  "a data device; name another device for the metadata leg, or first "
			  "'tpchange --autoextend-device none %s'; nothing was changed", p->name,
			  path, p->name);
		return -EINVAL;
	}
	r = pool_read_label(path, &l);

	if (!r && !strcmp(l.pool_uuid, p->vg->uuid) &&
	    (l.role == VG_ROLE_META || !vg_lists_device(p->vg, l.pv_uuid)))
		return 0;
	if (r == -ENOTBLK)
		return r;	/* no device (a FIFO, a directory): said, the caller's input */
	if (r != -ENOENT) {
		if ((r = pool_label_owner(path, &o)))
			return r;
		pool_label_refusal(path, &o, "nothing was changed", 0);
		return -EBUSY;
	}
	if ((r = tp_dev_probe(path, NULL, &res)) < 0) {
		log_error("pool %s: cannot probe %s: %s", p->name, path, strerror(-r));
		return r;
	}
	if (res.count) {
		tp_signature_describe(&res.sig[0], one, sizeof(one));
		log_error("pool %s: %s carries %s; nothing was changed. Wipe it ('wipefs -a %s') "
			  "if its contents are no longer needed", p->name, path, one, path);
		return -EBUSY;
	}
	return 0;
}

/* P's device SLOT opened again without O_EXCL (the flock claim stays), so
 * the kernel can open it as a raid1 leg, as at activation. 0 or -errno. */
static int reopen_shared(struct pool *p, unsigned slot)
{
	struct io_engine *shared;
	int r = io_fd_open(p->pv[slot].io->name, 0, &shared);

	if (r) {
		log_error("pool %s: cannot reopen %s: %s", p->name, p->pv[slot].io->name,
			  strerror(-r));
		return r;
	}
	io_destroy(p->pv[slot].io);
	p->pv[slot].io = shared;
	return 0;
}

/* P's thin metadata closed and its engine made again: the mirror over
 * both legs, leg PRIMARY read first. 0 or -errno (the old engine kept). */
static int remirror(struct pool *p, unsigned primary)
{
	struct io_engine *mio;
	int r;

	thin_close(p->md);
	p->md = NULL;
	io_destroy(p->thin_io);
	p->thin_io = NULL;
	if ((r = pool_meta_mirror_make(p, p->pv[VG_ROLE_META].io, p->pv[POOL_META1_PV].io, primary,
				       &mio)))
		return r;
	io_destroy(p->meta_io);
	p->meta_io = mio;
	return 0;
}


int pool_meta_replace(struct pool *p, const char *path)
{
	struct pool_meta_leg leg[2];
	struct tp_dm_pool_layout l;
	struct io_engine *io = NULL;
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
		/* both in use: a leg whose device failed reads in the last
		 * scrub (tpcheck) is the one to replace */
		struct pool_scrub_state sc;

		if (!pool_scrub_state_read(p->vg->uuid, &sc) && !sc.unreadable[0] != !sc.unreadable[1]) {
			unsigned bad = sc.unreadable[0] ? 0 : 1;

			io_mirror_take_out(p->meta_io, bad, -EIO);
			pool_meta_legs(p, leg);
		}
	}
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
	if (!same && (r = check_new_leg(p, abs)))
		goto fail;
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
	if (!p->be->live && (r = pool_meta_copy_areas(p, 1 - out, io, 3))) {
		if (same)
			log_error("pool %s: cannot copy its thin metadata onto %s: %s; the pool "
				  "was not changed (that leg stays stale): put the leg on another "
				  "device with 'tpchange --meta-replace DEV %s'", p->name, abs,
				  strerror(-r), p->name);
		else
			log_error("pool %s: cannot copy its thin metadata onto %s: %s; the pool "
				  "was not changed: name another device", p->name, abs,
				  strerror(-r));
		goto fail;
	}
	/* a new leg's raid metadata zeroed: the kernel rebuilds it; its
	 * integrity superblocks too: the kernel formats them and computes
	 * every tag (the copy above wrote none) */
	if ((r = pool_integrity_reset(next, io)) || (r = pool_zero_raid_meta(io, next)) ||
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
		if ((r = reopen_shared(p, slot)))
			goto fail;
	}
	/* the mirror over both legs again */
	if ((r = remirror(p, 1 - out)))
		goto fail;
	if (p->be->live) {
		pool_dm_layout(p, &l);
		r = tp_dm_meta_replace_leg(&l, out);
	} else {
		r = pool_open_thin(p);
	}
	if (!r)
		pool_scrub_state_forget(p->vg->uuid);
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


/* Where META (the pool's metadata device) has VG_RAID_META_BYTES free for
 * the raid metadata: right after its VG area (0: the derived place), else
 * on the first 1 MiB boundary behind its last area; -ENOSPC when neither. */
static int raid_meta_place(const struct vg *vg, uint64_t *off)
{
	const struct vg_device *m = &vg->dev[VG_ROLE_META];
	uint64_t after_mda = m->mda.offset + m->mda.size, end = 0, first = UINT64_MAX;

	for (unsigned a = 0; a < 2; a++) {
		first = TP_MIN(first, m->area[a].offset);
		end = TP_MAX(end, m->area[a].offset + m->area[a].size);
	}
	if (vg->lock.type != VG_LOCK_NONE) {
		first = TP_MIN(first, vg->lock.offset);
		end = TP_MAX(end, vg->lock.offset + VG_LOCK_AREA_BYTES);
	}
	if (after_mda + VG_RAID_META_BYTES <= first) {
		*off = 0;
		return 0;
	}
	end = (end + (1u << 20) - 1) / (1u << 20) * (1u << 20);
	if (end + VG_RAID_META_BYTES <= m->size) {
		*off = end;
		return 0;
	}
	return -ENOSPC;
}

/* Where VG (being mirrored onto a device of DEV_SIZE bytes) can keep
 * dm-integrity's metadata for both thin-metadata areas: on the first
 * 1 MiB boundary behind everything else of the meta device (its areas,
 * the raid metadata, the lease area), both regions large enough for
 * areas of four times the active one's size (or the format's limit),
 * inside both devices. 0 with *OFF and *SIZE set, or -ENOSPC. */
static int integrity_place(const struct vg *vg, uint64_t dev_size, uint64_t *off, uint64_t *size)
{
	const struct vg_device *m = &vg->dev[VG_ROLE_META];
	uint64_t end = vg_raid_meta_offset(vg) + VG_RAID_META_BYTES;
	uint64_t area = m->area[vg->metadata_area].size;

	for (unsigned a = 0; a < 2; a++)
		end = TP_MAX(end, m->area[a].offset + m->area[a].size);
	if (vg->lock.type != VG_LOCK_NONE)
		end = TP_MAX(end, vg->lock.offset + VG_LOCK_AREA_BYTES);
	end = (end + (1u << 20) - 1) / (1u << 20) * (1u << 20);
	*size = vg_imeta_need(TP_MIN(THIN_METADATA_MAX_BLOCKS * 4096, 4 * area));
	*off = end;
	return end + 2 * *size <= TP_MIN(m->size, dev_size) ? 0 : -ENOSPC;
}

/* Zero the first block (the superblock) of both thin-metadata areas on
 * IO, flushed: a leg whose content is not yet copied never validates. */
static int zero_superblocks(struct pool *p, struct io_engine *io)
{
	static const unsigned char zero[THIN_METADATA_BLOCK_SIZE] __attribute__((aligned(4096)));
	const struct vg_device *m = &p->vg->dev[VG_ROLE_META];
	int r = 0;

	for (unsigned a = 0; a < 2 && !r; a++)
		r = io_write(io, m->area[a].offset, zero, sizeof(zero));
	return r ? r : io_flush(io);
}

/* Live, after the VG commit that made P mirrored: the kernel opens the new
 * leg (our exclusive open goes, the flock claim stays, as at activation),
 * and tmeta becomes the raid1 that rebuilds it from the first leg. */
static int mirror_live(struct pool *p)
{
	struct tp_dm_pool_layout l;
	int r;

	if ((r = reopen_shared(p, POOL_META1_PV)) || (r = remirror(p, 0)))
		return r;
	pool_dm_layout(p, &l);
	if ((r = tp_dm_meta_mirror_live(&l)))
		log_error("pool %s: its VG names %s as the second metadata leg, but the kernel "
			  "runs on the first alone: %s; once the pool is deactivated, its next "
			  "change resyncs the leg", p->name, p->pv[POOL_META1_PV].io->name,
			  strerror(-r));
	return r;
}

int pool_meta_mirror_add(struct pool *p, const char *path, int integrate)
{
	struct io_engine *io = NULL;
	struct tp_lock *claim = NULL;
	struct vg *next = NULL;
	struct vg_label lab;
	uint64_t off, need;
	char *abs;
	int r;

	if (p->vg->meta_mirror) {
		log_error("pool %s: its thin metadata is mirrored already (%s); 'tpchange "
			  "--meta-replace DEV %s' puts a failed leg on DEV; nothing was changed",
			  p->name, p->vg->meta1.path, p->name);
		return -EBUSY;
	}
	if ((r = pool_refuse_latched(p)))
		return r;
	if (raid_meta_place(p->vg, &off)) {
		log_error("pool %s: its metadata device %s has no 512 KiB free for the kernel "
			  "raid1's metadata (behind its VG area or its last area); grow the device "
			  "first; nothing was changed", p->name, p->pv[VG_ROLE_META].io->name);
		return -ENOSPC;
	}
	abs = realpath(path, NULL);
	if (!abs) {
		log_error("pool %s: --meta-mirror %s: %s", p->name, path, strerror(errno));
		return -ENOENT;
	}
	for (unsigned i = 0; i < pool_nr_pvs(p); i++)
		if (p->pv[i].io && pool_same_device(p->pv[i].io->name, abs)) {
			log_error("pool %s: %s is one of its devices already; nothing was changed",
				  p->name, abs);
			free(abs);
			return -EINVAL;
		}
	/* (check_new_leg says why itself) */
	if ((r = check_new_leg(p, abs)))
		goto fail;
	if ((r = pool_claim_open(p->name, abs, 0, &claim, &io))) {
		if (r != -EBUSY)
			log_error("pool %s: cannot take %s: %s", p->name, abs, strerror(-r));
		goto fail;
	}
	if ((r = vg_clone(p->vg, &next)))
		goto fail;
	next->meta_mirror = 1;
	next->raid_meta_offset = off;
	next->meta1 = next->dev[VG_ROLE_META];
	need = TP_MAX(vg_raid_meta_offset(next) + VG_RAID_META_BYTES,
		      TP_MAX(next->meta1.area[0].offset + next->meta1.area[0].size,
			     next->meta1.area[1].offset + next->meta1.area[1].size));
	if (io->size < need) {
		log_error("pool %s: %s is smaller than the layout of %s needs (%llu bytes); "
			  "nothing was changed", p->name, abs, p->pv[VG_ROLE_META].io->name,
			  (unsigned long long)need);
		r = -ENOSPC;
		goto fail;
	}
	if ((r = vg_uuid_generate(next->meta1.pv_uuid)))
		goto fail;
	snprintf(next->meta1.path, sizeof(next->meta1.path), "%s", abs);
	next->meta1.size = io->size;
	/* dm-integrity under the legs when both devices have room behind the
	 * areas for its metadata (tpcreate --meta-integrity's); else the
	 * mirror goes without, and says so */
	if (integrate && integrity_place(next, io->size, &next->integrity_offset,
					 &next->integrity_size)) {
		next->integrity_offset = next->integrity_size = 0;
		log_warn("pool %s: no room for dm-integrity's metadata (%s behind the last area "
			 "of %s and of %s): the mirror goes without integrity (a bit flip on a leg "
			 "of the active pool is not corrected); grow both devices first to have it",
			 p->name, "two regions", p->pv[VG_ROLE_META].io->name, abs);
	}
	if (!integrate)
		next->integrity_offset = next->integrity_size = 0;
	vg_label_from_vg_meta1(next, io->size, &lab);
	/* 1. offline both areas copied, superblocks last (live the kernel
	 * owns them: the new leg's superblocks zeroed, so that until the
	 * kernel has rebuilt it the leg is stale, never in sync); 2. the raid
	 * metadata zeroed on both devices (free space of the meta device until
	 * the commit); 3. the new device's VG area and label; 4. the VG commit
	 * that makes the pool mirrored: before it the new device is nobody's;
	 * 5. live, tmeta reloaded from linear to the raid1 over both, the new
	 * leg to rebuild (a cut before it: the next activation or offline
	 * writer finds the leg stale) */
	if ((r = p->be->live ? zero_superblocks(p, io) : pool_meta_copy_areas(p, 0, io, 3)) ||
	    (r = pool_integrity_reset(next, io)) ||
	    (r = pool_integrity_reset(next, p->pv[VG_ROLE_META].io)) ||
	    (r = pool_zero_raid_meta(io, next)) ||
	    (r = pool_zero_raid_meta(p->pv[VG_ROLE_META].io, next)) ||
	    (r = vg_mda_format(io, &lab)) || (r = vg_label_write(io, &lab))) {
		log_error("pool %s: cannot prepare %s as its second metadata device: %s; nothing "
			  "was changed", p->name, abs, strerror(-r));
		goto fail;
	}
	p->pv[POOL_META1_PV].io = io;
	p->pv[POOL_META1_PV].label = lab;
	p->claim[POOL_META1_PV] = claim;
	io = NULL;
	claim = NULL;
	r = pool_commit_vg(p, next);
	next = NULL;
	if (r) {
		io_destroy(p->pv[POOL_META1_PV].io);
		p->pv[POOL_META1_PV].io = NULL;
		tp_lock_release(p->claim[POOL_META1_PV]);
		p->claim[POOL_META1_PV] = NULL;
		goto fail;
	}
	pool_record_device(p->name, VG_ROLE_META, lab.pv_uuid, abs);
	if (p->be->live) {
		r = mirror_live(p);
		free(abs);
		return r;
	}
	if ((r = remirror(p, 0)))
		goto fail;
	r = pool_open_thin(p);
	free(abs);
	return r;
fail:
	vg_free(next);
	io_destroy(io);
	tp_lock_release(claim);
	free(abs);
	return r;
}
