/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_mirror.c - mirrored thin metadata (mirror.h: pool_meta_legs,
 * pool_zero_raid_meta, ...; pool.h: pool_meta_health): the second
 * metadata device of a pool made with tpcreate --meta DEV1,DEV2 (vg.meta1,
 * laid out as the first), opened after the VG is read (the feature's
 * meta_attach hook, pool_mirror_feature.c), and the mirror engine
 * (lib/base/io.h: io_mirror) over the two that every offline read and
 * write of the thin-metadata areas goes through (core.h: pool_meta_io);
 * the replace is pool_mirror_replace.c. At open the superblocks of the
 * active area on both legs are compared: a leg whose superblock does not
 * validate, or differs from the other's (a write it missed, a crash
 * between the legs' writes), is stale and taken out, never read; the one
 * that validates, with the VG's transaction id (else the higher one, else
 * the first leg), is the primary. Live, the kernel's raid1 (the feature's
 * kernel_table hook) runs both legs and its status says their health. */
#include "lib/pool/mirror/mirror_int.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/le.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/thin/scrub.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *pool_meta_leg_path(const struct pool *p, unsigned i)
{
	const struct vg_pv *pv = i ? &LEG(p, 1) : &LEG(p, 0);
	const char *last = i ? pool_vg(p)->meta1.path : pool_vg(p)->dev[VG_ROLE_META].path;

	if (pv->io)
		return pv->io->name;
	return last[0] ? last : "?";	/* where the VG saw it last */
}

const char *pool_meta_leg_why(int err)
{
	switch (err) {
	case 0: return "in sync";
	case -ENODEV: return "missing";
	case -ESTALE: return "stale";
	case -EUCLEAN: return "stale (its thin superblock does not validate)";
	case -EINPROGRESS: return "stale (the kernel's rebuild of it did not finish)";
	case -EMEDIUMTYPE: return "stale (it holds thin metadata of another pool)";
	case -ENOENT: return "not the pool's (its label)";
	default: return "failed";
	}
}

int pool_meta_leg_area_io(const struct pool *p, unsigned leg, struct io_engine **out)
{
	const struct vg_area *a = &LEG(p, 0).label.area[pool_vg(p)->metadata_area];
	struct io_engine *io = leg ? LEG(p, 1).io : LEG(p, 0).io;

	*out = NULL;
	if (!io || (!leg && !pool_vg(p)->meta_mirror))
		return -ENODEV;
	if (!a->size)
		return -ENOSPC;
	return io_window_create(io, a->offset, a->size, 0, out);
}

/* The kernel's raid1 under tmeta: its health characters, when it runs */
static int live_health(const struct pool *p, char health[3], int *syncing)
{
	struct tp_dm_raid_status st;
	char name[TP_DM_NAME_MAX];
	int r;

	if ((r = tp_dm_name(name, sizeof(name), pool_name(p), TP_DM_ROLE_TMETA, NULL)) ||
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
	struct pool_scrub_state sc;
	int scrubbed;

	memset(leg, 0, 2 * sizeof(*leg));
	if (!pool_vg(p)->meta_mirror)
		return 0;
	if (pool_is_live(p) && !live_health(p, health, &syncing))
		live = 1;
	scrubbed = !pool_scrub_state_read(pool_vg(p)->uuid, &sc);
	for (unsigned i = 0; i < 2; i++) {
		int e = pool_meta_engine(p) ? io_mirror_error(pool_meta_engine(p), i) : -ENODEV;
		char h = health[i];	/* leg I is the raid table's place I */
		struct io_mirror_bad b;

		snprintf(leg[i].path, sizeof(leg[i].path), "%s", pool_meta_leg_path(p, i));
		leg[i].err = e;
		if (live && h == 'D' && !e)
			leg[i].err = -EIO;
		leg[i].state = pool_meta_leg_why(leg[i].err);
		if (live && h == 'a' && !leg[i].err)
			leg[i].state = "resyncing";
		leg[i].resyncing = live && h == 'a';
		if (live && pool_vg(p)->integrity_size) {
			struct tp_dm_integrity_status is;

			if (!tp_dm_meta_leg_integrity(pool_name(p), i, &is)) {
				leg[i].integrity = 1;
				leg[i].mismatches = is.mismatches;
				leg[i].integrity_pct = is.provided && is.recalc < is.provided
							       ? (unsigned)(is.recalc * 100 / is.provided)
							       : 100;
			}
		}
		if (leg[i].err || leg[i].resyncing || !pool_meta_engine(p))
			continue;
		io_mirror_bad(pool_meta_engine(p), i, &b);
		leg[i].bad = TP_MAX(b.bad - b.healed, scrubbed ? sc.bad[i] : 0);
		if (leg[i].bad)
			leg[i].state = "bad blocks";
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
	if (leg[0].resyncing || leg[1].resyncing)
		return "resyncing";
	return leg[0].bad || leg[1].bad ? "damaged" : "mirrored";
}

void pool_meta_scrubbed(struct pool *p, const struct thin_scrub_report *s, int mixed)
{
	struct pool_scrub_state st;
	int64_t now = (int64_t)time(NULL);

	memset(&st, 0, sizeof(st));
	st.time = now > 0 ? now : 1;
	st.blocks = s->blocks;
	for (unsigned i = 0; i < 2; i++) {
		st.bad[i] = s->bad[i] - TP_MIN(s->bad[i], s->healed[i]);
		st.unreadable[i] = TP_MIN(s->unreadable[i], st.bad[i]);
		st.healed[i] = s->healed[i];
	}
	st.mismatched = s->mismatched - TP_MIN(s->mismatched, s->healed[0] + s->healed[1]);
	st.mixed = mixed != 0;
	if (pool_scrub_state_write(pool_vg(p)->uuid, &st))
		log_warn("pool %s: the scrub's result is not recorded; tpstatus shows the one before", pool_name(p));
	if (pool_meta_engine(p))
		io_mirror_bad_clear(pool_meta_engine(p));	/* the check says them */
}

void pool_meta_say_bad(const struct pool *p)
{
	struct pool_scrub_state sc;
	int scrubbed = pool_vg(p) && pool_vg(p)->meta_mirror && !pool_scrub_state_read(pool_vg(p)->uuid, &sc);
	int fixed = 0;

	for (unsigned i = 0; pool_vg(p) && pool_vg(p)->meta_mirror && pool_meta_engine(p) && i < 2; i++) {
		struct io_mirror_bad b;

		io_mirror_bad(pool_meta_engine(p), i, &b);
		if (!b.bad)
			continue;
		/* the blocks a writer rewrote are no longer bad there: the last
		 * scrub's record says fewer */
		if (scrubbed && b.healed && sc.bad[i]) {
			sc.bad[i] -= TP_MIN(sc.bad[i], b.healed);
			fixed = 1;
		}
		if (b.healed < b.bad && io_mirror_error(pool_meta_engine(p), i))
			log_warn("pool %s: metadata mirror leg %u (%s): %" PRIu64 " block%s bad "
				 "there, and the leg failed (%s): it is out of the mirror; put it on "
				 "another device with 'tpchange --meta-replace DEV %s'", pool_name(p), i,
				 pool_meta_leg_path(p, i), b.bad - b.healed,
				 b.bad - b.healed == 1 ? "" : "s",
				 strerror(-io_mirror_error(pool_meta_engine(p), i)), pool_name(p));
		else if (b.healed >= b.bad)
			log_warn("pool %s: metadata mirror leg %u (%s): %" PRIu64 " bad block%s "
				 "rewritten from leg %u", pool_name(p), i, pool_meta_leg_path(p, i), b.bad,
				 b.bad == 1 ? "" : "s", 1 - i);
		else
			log_warn("pool %s: metadata mirror leg %u (%s): %" PRIu64 " block%s bad "
				 "there (%s the first at byte %" PRIu64 ") and read from leg %u; "
				 "'tprepair %s' rewrites %s ('tpcheck %s' compares the legs)",
				 pool_name(p), i, pool_meta_leg_path(p, i), b.bad - b.healed,
				 b.bad - b.healed == 1 ? "" : "s",
				 b.unreadable ? "unreadable there;" : "invalid there;", b.first_off,
				 1 - i, pool_name(p), b.bad - b.healed == 1 ? "it" : "them", pool_name(p));
	}
	if (fixed && pool_scrub_state_write(pool_vg(p)->uuid, &sc))
		log_warn("pool %s: the scrub record still counts the blocks rewritten", pool_name(p));
}

/* The regions of IO's (a leg's) integrity metadata, as VG lays them out. */
static void integrity_regions(const struct vg *vg, struct io_integrity_region reg[2])
{
	const struct vg_device *m = &vg->dev[VG_ROLE_META];

	for (unsigned a = 0; a < 2; a++)
		reg[a] = (struct io_integrity_region){ m->area[a].offset, m->area[a].size,
						       vg_imeta_offset(vg, a), vg->integrity_size };
}

int pool_meta_mirror_make(const struct pool *p, struct io_engine *leg0, struct io_engine *leg1,
			  unsigned primary, struct io_engine **out)
{
	struct io_engine *in[2] = { leg0, leg1 }, *w[2] = { NULL, NULL };
	struct io_integrity_region reg[2];
	int r = 0, failed[2] = { 0, 0 };

	*out = NULL;
	integrity_regions(pool_vg(p), reg);
	for (unsigned i = 0; i < 2 && !r; i++) {
		if (!in[i])
			continue;
		/* a leg under dm-integrity keeps its tags offline (io.h); the
		 * others go through a window over the whole device, so that
		 * the mirror owns what it reads each leg through */
		r = pool_vg(p)->integrity_size ? io_integrity_create(in[i], reg, 2, 0, &w[i])
					  : io_window_create(in[i], 0, in[i]->size, 0, &w[i]);
		if (r && r != -ENOMEM) {
			/* its integrity metadata unreadable: the leg failed, the
			 * other carries the pool (degraded, said at attach) */
			log_warn("pool %s: cannot read the integrity metadata of %s: %s", pool_name(p),
				 in[i]->name, strerror(-r));
			failed[i] = r;
			w[i] = NULL;
			r = 0;
		} else if (r) {
			log_error("pool %s: cannot read the integrity metadata of %s: %s", pool_name(p),
				  in[i]->name, strerror(-r));
		}
	}
	if (!r && !w[0] && !w[1])
		r = -EIO;	/* neither leg left */
	if (!r)
		r = io_mirror_create(w[0], w[1], w[primary] ? primary : 1 - primary,
				     leg0 ? leg0->name : leg1->name, 1, out);
	for (unsigned i = 0; !r && i < 2; i++)
		if (failed[i])
			io_mirror_take_out(*out, i, -EIO);
	if (r) {
		io_destroy(w[0]);
		io_destroy(w[1]);
	}
	return r;
}

int pool_integrity_reset(const struct vg *vg, struct io_engine *io)
{
	static const unsigned char zero[4096] __attribute__((aligned(4096)));
	int r = 0;

	for (unsigned a = 0; vg->integrity_size && a < 2 && !r; a++)
		r = io_write(io, vg_imeta_offset(vg, a), zero, sizeof(zero));
	return r || !vg->integrity_size ? r : io_flush(io);
}

int pool_meta_rebuild(struct pool *p)
{
	struct io_engine *old = pool_meta_engine(p), *io;
	int r = pool_meta_mirror_make(p, LEG(p, 0).io, LEG(p, 1).io,
				      old ? io_mirror_primary(old) : 0, &io);

	if (r)
		return r;
	for (unsigned i = 0; old && i < 2; i++)
		if (io_mirror_error(old, i))
			io_mirror_take_out(io, i, io_mirror_error(old, i));
	if (old)
		io_mirror_carry(io, old);
	pool_set_meta_io(p, io);	/* the old one destroyed */
	return 0;
}

int pool_meta_stale_leg(const struct pool *p)
{
	for (unsigned i = 0; pool_vg(p)->meta_mirror && pool_meta_engine(p) && i < 2; i++) {
		int e = io_mirror_error(pool_meta_engine(p), i);
		const struct vg_pv *pv = i ? &LEG(p, 1) : &LEG(p, 0);

		if ((e == -ESTALE || e == -EUCLEAN || e == -EINPROGRESS || e == -EMEDIUMTYPE) &&
		    pv->io &&
		    !io_mirror_error(pool_meta_engine(p), 1 - i))
			return (int)i;
	}
	return -1;
}

int pool_meta_scrub_live(struct pool *p, struct pool_live_scrub *res)
{
	struct tp_dm_integrity_status before[2], after;
	struct tp_dm_raid_status st;
	char tmeta[TP_DM_NAME_MAX];
	int r, started = 0;

	memset(res, 0, sizeof(*res));
	memset(before, 0, sizeof(before));
	if (!pool_vg(p)->meta_mirror || !pool_is_live(p))
		return -EOPNOTSUPP;
	if ((r = tp_dm_name(tmeta, sizeof(tmeta), pool_name(p), TP_DM_ROLE_TMETA, NULL)) ||
	    (r = tp_dm_raid_status(tmeta, &st)))
		return r;
	if (strcmp(st.action, "idle") || st.sync_done < st.sync_total) {
		log_error("pool %s: the kernel is busy with its metadata mirror (%s, %" PRIu64
			  " of %" PRIu64 " sectors): scrub it once that is done; nothing was "
			  "changed", pool_name(p), st.action, st.sync_done, st.sync_total);
		return -EBUSY;
	}
	for (unsigned i = 0; i < 2; i++)
		if (st.health[i] != 'A') {
			log_error("pool %s: leg %u of its metadata mirror (%s) is %s: there is "
				  "nothing to compare it with; 'tpchange --meta-replace DEV %s' "
				  "puts it on DEV; nothing was changed", pool_name(p), i,
				  pool_meta_leg_path(p, i), st.health[i] == 'D' ? "failed" : "out",
				  pool_name(p));
			return -ESTALE;
		}
	for (unsigned i = 0; i < 2; i++)
		if (!tp_dm_meta_leg_integrity(pool_name(p), i, &before[i]))
			res->integrity = 1;
	if ((r = tp_dm_message(tmeta, "check"))) {
		log_error("pool %s: the kernel refused to check its metadata mirror: %s", pool_name(p),
			  strerror(-r));
		return r;
	}
	/* until md has begun the check (its status says so at once, or
	 * within 5 s) and then ended it; a signal stops it */
	for (unsigned polls = 0;; polls++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if ((r = tp_dm_raid_status(tmeta, &st)))
			return r;
		if (strcmp(st.action, "idle"))
			started = 1;
		else if (started || polls >= 50)
			break;
		if (tp_critical_pending()) {
			if (tp_dm_message(tmeta, "idle"))
				log_warn("pool %s: could not stop the kernel's check of its "
					 "metadata mirror", pool_name(p));
			return -EINTR;
		}
		nanosleep(&ts, NULL);
	}
	res->sectors = st.sync_total;
	res->mismatches = st.mismatches;
	memcpy(res->health, st.health, 2);
	for (unsigned i = 0; res->integrity && i < 2; i++)
		if (!tp_dm_meta_leg_integrity(pool_name(p), i, &after))
			res->corrected[i] = after.mismatches - TP_MIN(after.mismatches,
								      before[i].mismatches);
	return 0;
}

int pool_raid_sb(const struct vg *vg, struct io_engine *io, uint64_t *recovery)
{
	static unsigned char b[4096] __attribute__((aligned(4096)));

	if (!io || io_read(io, vg_raid_meta_offset(vg), b, sizeof(b)))
		return -1;
	if (le32_get(b) != 0x64526D44u)	/* "DmRd", dm-raid.c's DM_RAID_MAGIC */
		return 0;
	if (recovery)	/* struct dm_raid_superblock: disk_recovery_offset */
		*recovery = le64_get(b + 32);
	return 1;
}

int pool_zero_raid_meta(struct io_engine *io, const struct vg *vg)
{
	static const unsigned char zero[64 * 1024];
	int r = 0;

	for (uint64_t off = 0; off < VG_RAID_META_BYTES && !r; off += sizeof(zero))
		r = io_write(io, vg_raid_meta_offset(vg) + off, zero, sizeof(zero));
	return r ? r : io_flush(io);
}

/* Copy both thin-metadata areas of the good leg GOOD onto IO: each area
 * but its first block, flushed, then the first blocks (the superblocks),
 * the active area's last, flushed; a copy cut short leaves IO's active
 * superblock as it was, so a stale leg stays stale. */
int pool_meta_copy_areas(struct pool *p, unsigned good, struct io_engine *io, unsigned areas)
{
	struct io_engine *src = good ? LEG(p, 1).io : LEG(p, 0).io;
	const struct vg_device *m = &pool_vg(p)->dev[VG_ROLE_META];
	size_t len = 1u << 20;
	char *buf = malloc(len);
	int r = buf ? 0 : -ENOMEM;

	for (unsigned a = 0; a < 2 && !r; a++)
		for (uint64_t off = THIN_METADATA_BLOCK_SIZE;
		     (areas & (1u << a)) && off < m->area[a].size && !r;
		     off += len) {
			size_t n = (size_t)TP_MIN((uint64_t)len, m->area[a].size - off);

			if (!(r = io_read(src, m->area[a].offset + off, buf, n)))
				r = io_write(io, m->area[a].offset + off, buf, n);
		}
	if (!r)
		r = io_flush(io);
	for (unsigned k = 0; k < 2 && !r; k++) {
		unsigned a = k ? pool_vg(p)->metadata_area : 1 - pool_vg(p)->metadata_area;

		if (!(areas & (1u << a)))
			continue;
		if (!(r = io_read(src, m->area[a].offset, buf, THIN_METADATA_BLOCK_SIZE)))
			r = io_write(io, m->area[a].offset, buf, THIN_METADATA_BLOCK_SIZE);
		if (!r && !k)
			r = io_flush(io);
	}
	free(buf);
	return r ? r : io_flush(io);
}

void pool_meta_resync_stale(struct pool *p)
{
	int i = pool_meta_stale_leg(p), e, r;

	if (i < 0)
		return;
	e = io_mirror_error(pool_meta_engine(p), (unsigned)i);
	/* the raid metadata zeroed last: a cut before it leaves a leg in
	 * step whose old raid metadata the kernel reconciles (or, after an
	 * unfinished rebuild, still says stale: resynced again) */
	if ((r = pool_meta_copy_areas(p, 1 - (unsigned)i, LEG(p, (unsigned)i).io, 3)) ||
	    (r = pool_integrity_reset(pool_vg(p), LEG(p, (unsigned)i).io)) ||
	    (r = pool_zero_raid_meta(LEG(p, (unsigned)i).io, pool_vg(p))) ||
	    (r = io_mirror_readmit(pool_meta_engine(p), (unsigned)i))) {
		log_warn("pool %s: metadata mirror leg %u (%s) is %s and could not be resynced: "
			 "%s; it stays out (degraded); 'tprepair %s' tries again", pool_name(p), i,
			 pool_meta_leg_path(p, (unsigned)i), pool_meta_leg_why(e), strerror(-r),
			 pool_name(p));
		return;
	}
	pool_scrub_state_forget(pool_vg(p)->uuid);
	log_warn("pool %s: metadata mirror leg %u (%s) was %s: resynced from leg %u", pool_name(p), i,
		 pool_meta_leg_path(p, (unsigned)i), pool_meta_leg_why(e), 1 - i);
}

int pool_meta_resync_from(struct pool *p, unsigned good)
{
	struct io_engine *io = good ? LEG(p, 0).io : LEG(p, 1).io;
	int r;

	if (!pool_vg(p)->meta_mirror || !io || !LEG(p, good).io)
		return -ENODEV;
	/* the active area only: the other's spare keeps what it holds */
	if ((r = pool_meta_copy_areas(p, good, io, 1u << pool_vg(p)->metadata_area)) ||
	    (r = pool_integrity_reset(pool_vg(p), io)) || (r = pool_zero_raid_meta(io, pool_vg(p))))
		log_error("pool %s: cannot copy metadata mirror leg %u's thin metadata over leg "
			  "%u (%s): %s", pool_name(p), good, 1 - good, pool_meta_leg_path(p, 1 - good),
			  strerror(-r));
	return r;
}

int pool_meta_refuse_mixed(const struct pool *p)
{
	struct pool_scrub_state sc;

	if (!pool_vg(p)->meta_mirror || pool_scrub_state_read(pool_vg(p)->uuid, &sc) || !sc.mixed)
		return 0;
	log_error("pool %s: its last check found that its metadata mirror's legs differ in %"
		  PRIu64 " blocks that validate on both and that reads mix them; nothing was "
		  "changed: run 'tprepair %s' first", pool_name(p), sc.mismatched, pool_name(p));
	return -EUCLEAN;
}
