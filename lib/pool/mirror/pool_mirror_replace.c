/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_mirror_replace.c - tpchange --meta-replace and --meta-mirror
 * (pool.h: pool_meta_replace, pool_meta_mirror_add): apart from
 * pool_mirror.c, which the feature's hooks use (pool_mirror_feature.c:
 * the attach, the commit that resyncs a stale leg), because this uses it. */
#include "lib/pool/mirror/mirror_int.h"

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
	const char *auto_dev = pool_vg(p)->monitor.autoextend_device;
	struct tp_probe_result res;
	struct pool_label_owner o;
	struct vg_label l;
	char one[160];
	int r;

	/* the device tpmonitor is to add as data is not a metadata leg too */
	if (auto_dev[0] && pool_same_device(auto_dev, path)) {
		log_error("pool %s: %s is its --autoextend-device, the device tpmonitor adds as "
			  "a data device; name another device for the metadata leg, or first "
			  "'tpchange --autoextend-device none %s'; nothing was changed", pool_name(p),
			  path, pool_name(p));
		return -EINVAL;
	}
	r = pool_read_label(path, &l);

	if (!r && !strcmp(l.pool_uuid, pool_vg(p)->uuid) &&
	    (l.role == VG_ROLE_META || !vg_lists_device(pool_vg(p), l.pv_uuid)))
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
		log_error("pool %s: cannot probe %s: %s", pool_name(p), path, strerror(-r));
		return r;
	}
	if (res.count) {
		tp_signature_describe(&res.sig[0], one, sizeof(one));
		log_error("pool %s: %s carries %s; nothing was changed. Wipe it ('wipefs -a %s') "
			  "if its contents are no longer needed", pool_name(p), path, one, path);
		return -EBUSY;
	}
	return 0;
}

/* P's metadata leg SLOT opened again without O_EXCL (the flock claim stays), so
 * the kernel can open it as a raid1 leg, as at activation. 0 or -errno. */
static int reopen_shared(struct pool *p, unsigned slot)
{
	struct io_engine *shared;
	int r = io_fd_open(LEG(p, slot).io->name, 0, &shared);

	if (r) {
		log_error("pool %s: cannot reopen %s: %s", pool_name(p), LEG(p, slot).io->name,
			  strerror(-r));
		return r;
	}
	io_destroy(LEG(p, slot).io);
	LEG(p, slot).io = shared;
	return 0;
}

/* P's thin metadata closed and its engine made again: the mirror over
 * both legs, leg PRIMARY read first. 0 or -errno (the old engine kept). */
static int remirror(struct pool *p, unsigned primary)
{
	struct io_engine *mio;
	int r;

	pool_close_thin(p);
	if ((r = pool_meta_mirror_make(p, LEG(p, 0).io, LEG(p, 1).io, primary,
				       &mio)))
		return r;
	pool_set_meta_io(p, mio);
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

	if (!pool_vg(p)->meta_mirror) {
		log_error("pool %s has one metadata device, no mirror: nothing to replace "
			  "(tpcreate --meta DEV1,DEV2 makes a mirrored pool); nothing was changed",
			  pool_name(p));
		return -EINVAL;
	}
	pool_meta_legs(p, leg);
	if (!leg[0].err && !leg[1].err) {
		/* both in use: a leg whose device failed reads in the last
		 * scrub (tpcheck) is the one to replace */
		struct pool_scrub_state sc;

		if (!pool_scrub_state_read(pool_vg(p)->uuid, &sc) && !sc.unreadable[0] != !sc.unreadable[1]) {
			unsigned bad = sc.unreadable[0] ? 0 : 1;

			io_mirror_take_out(pool_meta_engine(p), bad, -EIO);
			pool_meta_legs(p, leg);
		}
	}
	if (!leg[0].err && !leg[1].err) {
		log_error("pool %s: both legs of its metadata mirror (%s, %s) are in sync: "
			  "nothing to replace; nothing was changed", pool_name(p), leg[0].path,
			  leg[1].path);
		return -EBUSY;
	}
	if (leg[0].err && leg[1].err) {
		log_error("pool %s: neither leg of its metadata mirror is in sync: there is "
			  "nothing to resync from; 'tpcheck %s' says more", pool_name(p), pool_name(p));
		return -EUCLEAN;
	}
	out = leg[0].err ? 0 : 1;
	slot = out;
	if ((r = pool_refuse_latched(p)))
		return r;
	abs = realpath(path, NULL);
	if (!abs) {
		log_error("pool %s: --meta-replace %s: %s", pool_name(p), path, strerror(errno));
		return -ENOENT;
	}
	/* the leg that is out may be given again: its device is resynced in
	 * place, its label (it matched) and device uuid kept */
	if (LEG(p, slot).io && pool_same_device(LEG(p, slot).io->name, abs)) {
		same = 1;
		lab = LEG(p, slot).label;
		io_destroy(LEG(p, slot).io);
		LEG(p, slot).io = NULL;
		tp_lock_release(*pool_meta_dev_claim(p, slot));
		*pool_meta_dev_claim(p, slot) = NULL;
	}
	for (unsigned i = 0; i < pool_nr_pvs(p) + 1; i++) {
		const struct vg_pv *pv = i < pool_nr_pvs(p) ? pool_pv_at(p, i) : &LEG(p, 1);

		if (pv->io && pool_same_device(pv->io->name, abs)) {
			log_error("pool %s: %s is one of its devices already; nothing was changed",
				  pool_name(p), abs);
			free(abs);
			return -EINVAL;
		}
	}
	if (!same && (r = check_new_leg(p, abs)))
		goto fail;
	r = pool_claim_open(pool_name(p), abs, 0, &claim, &io);
	if (r) {
		if (r != -EBUSY)
			log_error("pool %s: cannot open %s for writing: %s", pool_name(p), abs,
				  strerror(-r));
		goto fail;
	}
	if (io->size < pool_vg(p)->dev[VG_ROLE_META].size &&
	    io->size < TP_MAX(pool_vg(p)->dev[VG_ROLE_META].area[0].offset +
				      pool_vg(p)->dev[VG_ROLE_META].area[0].size,
			      pool_vg(p)->dev[VG_ROLE_META].area[1].offset +
				      pool_vg(p)->dev[VG_ROLE_META].area[1].size)) {
		log_error("pool %s: %s is smaller than its metadata layout; nothing was changed",
			  pool_name(p), abs);
		r = -ENOSPC;
		goto fail;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
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
	if (!pool_is_live(p) && (r = pool_meta_copy_areas(p, 1 - out, io, 3))) {
		if (same)
			log_error("pool %s: cannot copy its thin metadata onto %s: %s; the pool "
				  "was not changed (that leg stays stale): put the leg on another "
				  "device with 'tpchange --meta-replace DEV %s'", pool_name(p), abs,
				  strerror(-r), pool_name(p));
		else
			log_error("pool %s: cannot copy its thin metadata onto %s: %s; the pool "
				  "was not changed: name another device", pool_name(p), abs,
				  strerror(-r));
		goto fail;
	}
	/* a new leg's raid metadata zeroed: the kernel rebuilds it; its
	 * integrity superblocks too: the kernel formats them and computes
	 * every tag (the copy above wrote none) */
	if ((r = pool_integrity_reset(next, io)) || (r = pool_zero_raid_meta(io, next)) ||
	    (!same && ((r = vg_mda_format(io, &lab)) || (r = vg_label_write(io, &lab))))) {
		log_error("pool %s: cannot label %s: %s; nothing was changed", pool_name(p), abs,
			  strerror(-r));
		goto fail;
	}
	io_destroy(LEG(p, slot).io);
	tp_lock_release(*pool_meta_dev_claim(p, slot));
	LEG(p, slot).io = io;
	LEG(p, slot).label = lab;
	*pool_meta_dev_claim(p, slot) = claim;
	io = NULL;
	claim = NULL;
	r = pool_commit_vg(p, next);
	next = NULL;
	if (r)
		goto fail;
	/* the devices file: the new leg in, the old one's entry out */
	if (!same && pool_devices_remove_pv(old_uuid) < 0)
		log_warn("pool %s: could not drop the old leg from the devices file", pool_name(p));
	pool_record_device(pool_name(p), VG_ROLE_META, lab.pv_uuid, abs);
	/* live, the kernel opens the new leg: our exclusive open goes (the
	 * flock claim stays), as at activation */
	if (pool_is_live(p)) {
		if ((r = reopen_shared(p, slot)))
			goto fail;
	}
	/* the mirror over both legs again */
	if ((r = remirror(p, 1 - out)))
		goto fail;
	if (pool_is_live(p)) {
		pool_dm_layout(p, &l);
		r = tp_dm_meta_replace_leg(&l, out);
	} else {
		r = pool_open_thin(p);
	}
	if (!r)
		pool_scrub_state_forget(pool_vg(p)->uuid);
	if (!r)
		log_info("pool %s: metadata mirror leg %u is now %s%s", pool_name(p), out, abs,
			 pool_is_live(p) ? " (the kernel resyncs it)" : ", resynced");
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
	const struct vg_device *m = &pool_vg(p)->dev[VG_ROLE_META];
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

	if ((r = reopen_shared(p, 1)) || (r = remirror(p, 0)))
		return r;
	pool_dm_layout(p, &l);
	if ((r = tp_dm_meta_mirror_live(&l)))
		log_error("pool %s: its VG names %s as the second metadata leg, but the kernel "
			  "runs on the first alone: %s; once the pool is deactivated, its next "
			  "change resyncs the leg", pool_name(p), LEG(p, 1).io->name,
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

	if (pool_vg(p)->meta_mirror) {
		log_error("pool %s: its thin metadata is mirrored already (%s); 'tpchange "
			  "--meta-replace DEV %s' puts a failed leg on DEV; nothing was changed",
			  pool_name(p), pool_vg(p)->meta1.path, pool_name(p));
		return -EBUSY;
	}
	if ((r = pool_refuse_latched(p)))
		return r;
	if (raid_meta_place(pool_vg(p), &off)) {
		log_error("pool %s: its metadata device %s has no 512 KiB free for the kernel "
			  "raid1's metadata (behind its VG area or its last area); grow the device "
			  "first; nothing was changed", pool_name(p), LEG(p, 0).io->name);
		return -ENOSPC;
	}
	abs = realpath(path, NULL);
	if (!abs) {
		log_error("pool %s: --meta-mirror %s: %s", pool_name(p), path, strerror(errno));
		return -ENOENT;
	}
	for (unsigned i = 0; i < pool_nr_pvs(p); i++)
		if (pool_pv_at(p, i)->io && pool_same_device(pool_pv_at(p, i)->io->name, abs)) {
			log_error("pool %s: %s is one of its devices already; nothing was changed",
				  pool_name(p), abs);
			free(abs);
			return -EINVAL;
		}
	/* (check_new_leg says why itself) */
	if ((r = check_new_leg(p, abs)))
		goto fail;
	if ((r = pool_claim_open(pool_name(p), abs, 0, &claim, &io))) {
		if (r != -EBUSY)
			log_error("pool %s: cannot take %s: %s", pool_name(p), abs, strerror(-r));
		goto fail;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
		goto fail;
	next->meta_mirror = 1;
	next->raid_meta_offset = off;
	next->meta1 = next->dev[VG_ROLE_META];
	need = TP_MAX(vg_raid_meta_offset(next) + VG_RAID_META_BYTES,
		      TP_MAX(next->meta1.area[0].offset + next->meta1.area[0].size,
			     next->meta1.area[1].offset + next->meta1.area[1].size));
	if (io->size < need) {
		log_error("pool %s: %s is smaller than the layout of %s needs (%llu bytes); "
			  "nothing was changed", pool_name(p), abs, LEG(p, 0).io->name,
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
			 pool_name(p), "two regions", LEG(p, 0).io->name, abs);
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
	if ((r = pool_is_live(p) ? zero_superblocks(p, io) : pool_meta_copy_areas(p, 0, io, 3)) ||
	    (r = pool_integrity_reset(next, io)) ||
	    (r = pool_integrity_reset(next, LEG(p, 0).io)) ||
	    (r = pool_zero_raid_meta(io, next)) ||
	    (r = pool_zero_raid_meta(LEG(p, 0).io, next)) ||
	    (r = vg_mda_format(io, &lab)) || (r = vg_label_write(io, &lab))) {
		log_error("pool %s: cannot prepare %s as its second metadata device: %s; nothing "
			  "was changed", pool_name(p), abs, strerror(-r));
		goto fail;
	}
	LEG(p, 1).io = io;
	LEG(p, 1).label = lab;
	*pool_meta_dev_claim(p, 1) = claim;
	io = NULL;
	claim = NULL;
	r = pool_commit_vg(p, next);
	next = NULL;
	if (r) {
		io_destroy(LEG(p, 1).io);
		LEG(p, 1).io = NULL;
		tp_lock_release(*pool_meta_dev_claim(p, 1));
		*pool_meta_dev_claim(p, 1) = NULL;
		goto fail;
	}
	pool_record_device(pool_name(p), VG_ROLE_META, lab.pv_uuid, abs);
	if (pool_is_live(p)) {
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
