/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_mirror_feature.c - the metadata mirror as a feature of the core's
 * lifecycle table (core.h: struct pool_feature; mirror.h): the second
 * leg opened after the VG is read and the good leg chosen (meta_attach),
 * a lost first leg refused to the writers that cannot run without it
 * (vg_read), the newer VG copy that names another second leg (vg_same),
 * a writer refused after a scrub found reads mixing the legs
 * (open_check), a stale leg that a writer's first VG commit resyncs
 * (open_thin, commit_targets: it also gets its VG copy there), its label
 * (sync_labels, labels_behind), the mirror made again over the devices
 * reopened for the kernel (devices_shared), the kernel's raid1 under the
 * metadata device (kernel_table) and what an activation left out
 * (activated), and the bad blocks said at close (detach). Its state of a
 * pool: the primary leg and the resync due. */
#include "lib/pool/mirror/mirror_int.h"

#include "kernel/dm.h"
#include "lib/base/le.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "lib/pool/host/host.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mirror's state of an open mirrored pool (its slot). */
struct mirror_state {
	unsigned primary;	/* the leg that validated */
	/* a writer found a stale leg: resynced at its first VG commit
	 * (commit_targets), so that a writer refused before it writes
	 * nothing */
	int resync_due;
};

/* The superblock block of the active area on leg IO, checked quietly
 * (location, magic, checksum): 0 with *SB and RAW, -EUCLEAN, or -errno */
static int leg_sb(const struct pool *p, struct io_engine *io, struct thin_sb *sb,
		  unsigned char *raw)
{
	const struct vg_area *a = &pool_vg(p)->dev[VG_ROLE_META].area[pool_vg(p)->metadata_area];
	int r;

	if (!io)
		return -ENODEV;
	if ((r = io_read(io, a->offset, raw, THIN_METADATA_BLOCK_SIZE)))
		return r;
	if (!bm_header_valid(raw, THIN_SB_BLOCK, THIN_SB_CSUM_XOR) ||
	    le64_get(raw + 0x20) != THIN_SB_MAGIC)
		return -EUCLEAN;
	thin_sb_unpack(raw, sb);
	/* a valid superblock of other thin metadata (another pool's copy at
	 * the same place): not this pool's, whatever its transaction id */
	if (sb->data_block_size != pool_vg(p)->chunk_size ||
	    sb->data_sm.nr_blocks > vg_data_chunks(pool_vg(p)))
		return -ENOENT;
	return 0;
}

/* Which leg is good: take the other out when it is stale. */
static void pick_legs(struct pool *p, struct mirror_state *st)
{
	static unsigned char raw[2][THIN_METADATA_BLOCK_SIZE];
	struct thin_sb sb[2];
	int r[2];
	unsigned good;

	for (unsigned i = 0; i < 2; i++)
		r[i] = (io_mirror_in_use(pool_meta_engine(p)) & (1u << i))
			       ? leg_sb(p, LEG(p, i).io,
					&sb[i], raw[i])
			       : -ENODEV;
	if (r[0] && r[1])
		return;		/* neither validates: the open and the check say so */
	/* a leg the kernel was rebuilding when the pool went down (its raid
	 * metadata's recovery offset short of the end, the other's at the
	 * end): its thin superblock may match while blocks behind it do not */
	if (!r[0] && !r[1]) {
		uint64_t rec[2];

		for (unsigned i = 0; i < 2; i++)
			if (pool_raid_sb(pool_vg(p), LEG(p, i).io,
					 &rec[i]) != 1)
				rec[i] = UINT64_MAX;	/* no raid metadata: nothing under way */
		if ((rec[0] == UINT64_MAX) != (rec[1] == UINT64_MAX)) {
			good = rec[0] == UINT64_MAX ? 0 : 1;
			io_mirror_take_out(pool_meta_engine(p), 1 - good, -EINPROGRESS);
			st->primary = good;
			return;
		}
	}
	if (r[0] || r[1]) {
		good = r[0] ? 1 : 0;
		if (r[1 - good] != -ENODEV)
			io_mirror_take_out(pool_meta_engine(p), 1 - good,
					   r[1 - good] == -EIO ? -EIO
					   : r[1 - good] == -ENOENT ? -EMEDIUMTYPE : -EUCLEAN);
		st->primary = good;
		return;
	}
	if (!memcmp(raw[0], raw[1], sizeof(raw[0])))
		return;		/* in step */
	if ((sb[0].trans_id == pool_vg(p)->transaction_id) != (sb[1].trans_id == pool_vg(p)->transaction_id))
		good = sb[1].trans_id == pool_vg(p)->transaction_id;
	else
		good = sb[1].trans_id > sb[0].trans_id;
	io_mirror_take_out(pool_meta_engine(p), 1 - good, -ESTALE);
	st->primary = good;
}

static struct pool_feature mirror_feature;

/* The meta_attach hook: open the second metadata device of a mirrored
 * pool and build the mirror over both (pool_set_meta_io), the leg that
 * validates its primary; a leg missing, unreadable or stale is taken out
 * (a warning, or a finding with REP), not an error. 1, 0 for a pool
 * without a mirror (the core wants its one metadata device), -errno. */
static int mirror_attach(struct pool *p, unsigned claim, struct pool_check_report *rep)
{
	const struct vg_device *d = &pool_vg(p)->meta1;
	struct io_engine *io = NULL, *legs[2], *mio;
	struct mirror_state *st;
	void **slot;
	struct vg_label l;
	char *path = NULL;
	int r, why = 0;

	if (!pool_vg(p)->meta_mirror)
		return 0;
	slot = pool_feature_state(p, &mirror_feature);
	if (!slot)
		return -EINVAL;
	if (!*slot && !(*slot = calloc(1, sizeof(*st)))) {
		log_error("pool %s: out of memory", pool_name(p));
		return -ENOMEM;
	}
	st = *slot;
	r = pool_find_meta_leg(pool_name(p), pool_vg(p)->uuid, d->pv_uuid, d->path,
			       !(pool_flags(p) & POOL_RDONLY), &path);
	if (r == -ENOENT) {
		/* not found: missing, unless the device the VG names is there
		 * and its label cannot be read (an I/O error: failed) */
		struct vg_label seen;
		int lr = d->path[0] ? pool_read_label(d->path, &seen) : -ENOENT;

		why = lr == -EIO || lr == -ENXIO ? -EIO : -ENODEV;
	} else if (r) {
		return r;
	}
	if (!why) {
		r = pool_open_pv(p, pool_meta_dev_index(1), path, claim, &io);
		if (r == -EBUSY && !(pool_flags(p) & POOL_RDONLY)) {
			free(path);
			return r;
		}
		if (r)
			why = -EIO;
	}
	if (io) {
		r = vg_label_read(io, &l);
		if (r != VG_LABEL_FOUND || l.role != VG_ROLE_META || l.data_index != 1 ||
		    strcmp(l.pv_uuid, d->pv_uuid) || strcmp(l.pool_uuid, pool_vg(p)->uuid)) {
			why = r < 0 && r != -EUCLEAN ? -EIO : -ENOENT;
			io_destroy(io);
			io = NULL;
		}
	}
	if (io) {
		LEG(p, 1).io = io;
		LEG(p, 1).label = l;
	}
	free(path);
	legs[0] = LEG(p, 0).io;
	legs[1] = io;
	if (!legs[0] && !legs[1]) {
		log_error("pool %s: neither of its metadata devices (device uuids %s and %s) is "
			  "there; attach one and run the command again", pool_name(p),
			  pool_vg(p)->dev[VG_ROLE_META].pv_uuid, d->pv_uuid);
		return -ENODEV;
	}
	if (!legs[0]) {
		/* the first leg lost: the second stands in for its label's
		 * areas (laid out alike, vg_check_model) */
		LEG(p, 0).label = l;
		LEG(p, 0).label.data_index = 0;
		snprintf(LEG(p, 0).label.pv_uuid, sizeof(l.pv_uuid), "%s",
			 pool_vg(p)->dev[VG_ROLE_META].pv_uuid);
	}
	if ((r = pool_meta_mirror_make(p, legs[0], legs[1], legs[0] ? 0 : 1, &mio)))
		return r;
	pool_set_meta_io(p, mio);
	if (why)
		io_mirror_take_out(pool_meta_engine(p), 1, why);
	if (!pool_is_live(p))
		pick_legs(p, st);
	for (unsigned i = 0; i < 2; i++) {
		int e = io_mirror_error(pool_meta_engine(p), i);

		if (!e)
			continue;
		/* an offline writer resyncs it at its first commit, and says so
		 * (pool.c, pool_commit.c);
		 * one that keeps it does something with it and says what
		 * (an activation, pool_activate.c; a replace) */
		if (!rep && !pool_is_live(p) && !(pool_flags(p) & POOL_RDONLY) &&
		    pool_meta_stale_leg(p) == (int)i)
			continue;
		if (rep)
			pool_problem(rep, 0, "metadata mirror degraded: leg %u (%s) is %s; "
				     "'tpchange --meta-replace DEV %s' resyncs it", i, pool_meta_leg_path(p, i),
				     pool_meta_leg_why(e), pool_name(p));
		else
			log_warn("pool %s: metadata mirror leg %u (%s) is %s: its thin metadata runs "
				 "on the other leg (degraded); 'tpchange --meta-replace DEV %s' "
				 "resyncs onto DEV", pool_name(p), i, pool_meta_leg_path(p, i), pool_meta_leg_why(e), pool_name(p));
	}
	return 1;
}


/* The vg_read hook: a mirrored pool opened without its first metadata
 * device: readers go on, and the writers that can (pool.h:
 * POOL_META_LEG0_LOST_OK). */
static int refuse_leg0_lost(struct pool *p)
{
	unsigned flags = pool_flags(p);

	const char *last = pool_vg(p)->dev[VG_ROLE_META].path;

	if (!pool_vg(p)->meta_mirror || LEG(p, 0).io || (flags & POOL_RDONLY))
		return 0;
	if (pool_vg(p)->lock.type != VG_LOCK_NONE) {
		log_error("pool %s: its first metadata device (last seen at %s) is missing, and "
			  "the pool is shared: its lease area is on that device, so nothing can "
			  "be changed or activated; attach the device and run the command again "
			  "(nothing was changed)", pool_name(p), last[0] ? last : "?");
		return -ENODEV;
	}
	if (flags & POOL_META_LEG0_LOST_OK)
		return 0;
	log_error("pool %s: its first metadata device (last seen at %s) is missing: the pool "
		  "runs degraded on the second one (%s), and only tpactivate, tpdeactivate "
		  "and 'tpchange --meta-replace DEV %s' work on it until DEV takes the lost "
		  "leg's place; nothing was changed", pool_name(p), last[0] ? last : "?",
		  pool_meta_leg_path(p, 1), pool_name(p));
	return -ENODEV;
}


/* The vg_same hook: a newer VG copy names the same second leg, or none
 * as P's. */
static int mirror_vg_same(const struct pool *p, const struct vg *vg)
{
	return vg->meta_mirror == pool_vg(p)->meta_mirror &&
	       (!vg->meta_mirror || !strcmp(vg->meta1.pv_uuid, pool_vg(p)->meta1.pv_uuid));
}

/* The open_check hook: a writer refuses a pool whose last check found
 * reads mixing its legs (equal superblocks, blocks that differ: only
 * tprepair knows which leg to keep). */
static int mirror_open_check(struct pool *p)
{
	return pool_meta_refuse_mixed(p);
}

/* The open_thin hook: a stale leg whose device is there: a writer
 * resyncs it when it commits, before the VG commit (commit_targets,
 * pool_mirror_replace.c); meanwhile it reads the good leg alone. An
 * activation keeps it (POOL_META_KEEP_STALE: the kernel rebuilds it). */
static void mirror_open_thin(struct pool *p, int write)
{
	struct mirror_state *st = pool_feature_state_get(p, &mirror_feature);

	if (st && write && !(pool_flags(p) & POOL_META_KEEP_STALE))
		st->resync_due = pool_meta_stale_leg(p) >= 0;
}

/* The sync_labels hook: the second leg's label follows the VG. */
static int mirror_sync_labels(struct pool *p, int *changed)
{
	/* the second metadata device of a mirrored pool */
	if (pool_vg(p)->meta_mirror && LEG(p, 1).io &&
	    !strcmp(LEG(p, 1).label.pv_uuid, pool_vg(p)->meta1.pv_uuid) &&
	    pool_label_stale(&LEG(p, 1).label, pool_vg(p), &pool_vg(p)->meta1, 0)) {
		struct vg_label l;

		if (changed)
			*changed = 1;
		vg_label_from_vg_meta1(pool_vg(p), pool_vg(p)->meta1.size, &l);
		if (!(pool_flags(p) & POOL_RDONLY)) {
			int r = vg_label_write(LEG(p, 1).io, &l);

			if (r) {
				log_error("pool %s: cannot bring the label of %s in step with the VG "
					  "metadata: %s", pool_name(p), LEG(p, 1).io->name,
					  strerror(-r));
				return r;
			}
		}
		LEG(p, 1).label = l;
	}
	return 0;
}

/* The labels_behind hook. */
static void mirror_labels_behind(const struct pool *p, const char *names[], unsigned *n,
				 unsigned max)
{
	if (pool_vg(p)->meta_mirror && LEG(p, 1).io &&
	    !strcmp(LEG(p, 1).label.pv_uuid, pool_vg(p)->meta1.pv_uuid) &&
	    pool_label_stale(&LEG(p, 1).label, pool_vg(p), &pool_vg(p)->meta1, 0) && *n < max)
		names[(*n)++] = LEG(p, 1).io->name;
}

/* The commit_targets hook: the second leg gets a VG copy when it is open
 * and NEXT still lists it; the stale leg a writer found is resynced now
 * that it changes the pool (a writer refused before its commit writes
 * nothing). */
static void mirror_commit_targets(struct pool *p, struct vg *next, struct vg_pv *pvs,
				  unsigned *n)
{
	struct mirror_state *st = pool_feature_state_get(p, &mirror_feature);

	if (next->meta_mirror && LEG(p, 1).io &&
	    !strcmp(next->meta1.pv_uuid, LEG(p, 1).label.pv_uuid)) {
		pvs[(*n)++] = LEG(p, 1);
		tp_path_absolute_to(next->meta1.path, sizeof(next->meta1.path),
				    LEG(p, 1).io->name);
	}
	if (st && st->resync_due) {
		st->resync_due = 0;
		pool_meta_resync_stale(p);
	}
}

/* The devices_shared hook: the mirror over the legs reopened. */
static int mirror_devices_shared(struct pool *p)
{
	return pool_meta_engine(p) ? pool_meta_rebuild(p) : 0;
}

/* The kernel_table hook: the kernel's raid1 over the legs in use. */
static void mirror_kernel_table(const struct pool *p, struct tp_dm_pool_layout *l)
{
	const struct vg *vg = pool_vg(p);

	if (!vg->meta_mirror)
		return;
	/* the kernel's raid1 over the legs in use: a missing or stale
	 * leg is left out, the set degraded */
	l->meta_mirror = 1;
	l->raid_meta_offset = vg_raid_meta_offset(vg);
	l->raid_meta_length = VG_RAID_META_BYTES;
	/* dm-integrity under each leg: the active area's region */
	if (vg->integrity_size) {
		l->imeta_offset = vg_imeta_offset(vg, vg->metadata_area);
		l->imeta_length = vg->integrity_size;
	}
	for (unsigned i = 0; i < 2; i++) {
		const struct vg_pv *pv = &LEG(p, i);

		l->meta_leg[i] = pv->io && pool_meta_engine(p) &&
					 (io_mirror_in_use(pool_meta_engine(p)) & (1u << i))
				 ? pv->io->name
				 : NULL;
	}
	/* a stale leg whose device is there (an activation's open
	 * keeps it: POOL_META_KEEP_STALE) goes in to be rebuilt from
	 * the other, when the kernel knows that one in sync (its raid
	 * metadata written); else it stays out (degraded) */
	int stale = pool_meta_stale_leg(p);

	if (stale >= 0 && !l->meta_leg[stale] && l->meta_leg[1 - stale] &&
	    pool_raid_sb(vg, LEG(p, (unsigned)(1 - stale)).io,
			 NULL) == 1) {
		l->meta_leg[stale] = LEG(p, (unsigned)stale).io->name;
		l->meta_rebuild = stale + 1;
	}
	/* one leg's raid metadata zeroed, the other's not: the kernel
	 * takes the zeroed one as a new device, to be rebuilt */
	if (l->meta_leg[0] && l->meta_leg[1] && !l->meta_rebuild) {
		int sb0 = pool_raid_sb(vg, LEG(p, 0).io, NULL);
		int sb1 = pool_raid_sb(vg, LEG(p, 1).io, NULL);

		if (sb0 == 1 && sb1 == 0)
			l->meta_rebuild = 2;
		else if (sb0 == 0 && sb1 == 1)
			l->meta_rebuild = 1;
	}

}

/* The activated hook: a stale leg the open kept (POOL_META_KEEP_STALE):
 * the kernel rebuilds it, or it stays out (the kernel_table hook says
 * which). */
static void mirror_activated(const struct pool *p, const struct tp_dm_pool_layout *l)
{
	int i = pool_meta_stale_leg(p);

	if (i < 0)
		return;
	if (l->meta_rebuild == i + 1)
		log_warn("pool %s: metadata mirror leg %u (%s) is %s: the kernel rebuilds it from "
			 "leg %u ('tpstatus -o pool_meta_health %s' says resyncing until it is done)",
			 pool_name(p), i, pool_meta_leg_path(p, (unsigned)i),
			 pool_meta_leg_why(io_mirror_error(pool_meta_engine(p), (unsigned)i)), 1 - i, pool_name(p));
	else
		log_warn("pool %s: metadata mirror leg %u (%s) is %s and stays out (degraded): "
			 "leg %u has not run in the kernel since it was put in (its raid metadata "
			 "is zeroed), so the kernel could not tell the good leg; the next change "
			 "of the inactive pool resyncs it", pool_name(p), i,
			 pool_meta_leg_path(p, (unsigned)i),
			 pool_meta_leg_why(io_mirror_error(pool_meta_engine(p), (unsigned)i)), 1 - i);
}

/* The detach hook: the bad blocks this command met, said; a stale leg a
 * writer did not resync, said. */
static void mirror_detach(struct pool *p)
{
	struct mirror_state *st = pool_feature_state_get(p, &mirror_feature);
	int i;

	pool_meta_say_bad(p);
	/* a writer that found a stale leg but committed nothing (a no-op
	 * tpchange, a refused change) did not resync it: it says the leg is
	 * stale as every other command does */
	if (st && st->resync_due && (i = pool_meta_stale_leg(p)) >= 0) {
		st->resync_due = 0;
		log_warn("pool %s: metadata mirror leg %d (%s) is stale; this command changed "
			 "nothing, so it left the leg as it was: its thin metadata runs on the "
			 "other leg (degraded); the next command that changes the pool offline "
			 "resyncs it",
			 pool_name(p), i, pool_meta_leg_path(p, (unsigned)i));
	}
}

static struct pool_feature mirror_feature = {
	.name = "mirror",
	.vg_read = refuse_leg0_lost,
	.detach = mirror_detach,
	.meta_attach = mirror_attach,
	.vg_same = mirror_vg_same,
	.open_check = mirror_open_check,
	.open_thin = mirror_open_thin,
	.sync_labels = mirror_sync_labels,
	.labels_behind = mirror_labels_behind,
	.commit_targets = mirror_commit_targets,
	.devices_shared = mirror_devices_shared,
	.kernel_table = mirror_kernel_table,
	.activated = mirror_activated,
};

void pool_mirror_register(void)
{
	pool_feature_register(&mirror_feature);
}
