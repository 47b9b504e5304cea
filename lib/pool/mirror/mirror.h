/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mirror.h - the metadata mirror module (lib/pool/mirror): the second
 * metadata device of a pool made with tpcreate --meta DEV1,DEV2 (vg.meta1)
 * and the mirror engine over both legs that the thin metadata is read and
 * written through offline (pool_mirror.c), its hooks in the core's
 * lifecycle table (pool_mirror_feature.c: the second leg opened after the
 * VG is read, the good leg chosen, the VG copy it gets, its label, the
 * kernel's raid1 table), and tpchange --meta-replace / --meta-mirror
 * (pool_mirror_replace.c; pool.h: pool_meta_replace, pool_meta_mirror_add,
 * pool_meta_health). For the modules above the core that look at a
 * mirrored pool's legs (admin, check, monitor). */
#ifndef TP_POOL_MIRROR_H
#define TP_POOL_MIRROR_H

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/vg/vg.h"

#include <stdint.h>

struct pool;

/* Register the mirror with the core (pool_init). */
void pool_mirror_register(void);

/* The active thin-metadata area of mirror leg LEG alone (its device, not
 * the mirror), read-only use: to check each leg's metadata on its own.
 * 0, -ENODEV (the leg is not open) or -ENOSPC / -errno. */
int pool_meta_leg_area_io(const struct pool *p, unsigned leg, struct io_engine **out) TP_MUST_CHECK;
/* Offline, the active thin-metadata area of mirror leg GOOD copied over
 * the other leg's (superblock last; its integrity superblocks and raid
 * metadata reset, as a resync does): tprepair, when leg GOOD's thin
 * metadata is consistent alone and the other's is not. 0 or -errno
 * (logged). */
int pool_meta_resync_from(struct pool *p, unsigned good) TP_MUST_CHECK;
/* Each leg of a mirrored pool's thin metadata (leg 0 the meta device, 1
 * vg.meta1): its path, and its state ("in sync", "missing", "stale",
 * "failed", "resyncing": live from the kernel's raid1). ERR: 0 in use,
 * else why it is out. Returns 0 for a pool without a mirror (LEG zeroed),
 * else 1. */
struct pool_meta_leg {
	char path[VG_PATH_MAX + 1];
	const char *state;
	int err;
	int resyncing;
	/* in use, but blocks known bad there (this command's validating
	 * reads, or the last scrub's record; state "bad blocks") */
	uint64_t bad;
	/* live, a leg under dm-integrity: reads whose tag did not match
	 * since activation (each one read from the other leg and rewritten
	 * by the raid1), and whether its tags are still being computed (a
	 * new integrity superblock, INTEGRITY_PCT percent done) */
	int integrity;
	uint64_t mismatches;
	unsigned integrity_pct;
};
int pool_meta_legs(const struct pool *p, struct pool_meta_leg leg[2]);
/* The scrub of P's mirror that a check ran (metadata/thin/scrub.h):
 * recorded for tpstatus (host.h: pool_scrub_state; MIXED: reads mix the
 * legs, writers refuse the pool until a repair), and the bad blocks
 * the check's reads met are not said again when P is closed. */
struct thin_scrub_report;
void pool_meta_scrubbed(struct pool *p, const struct thin_scrub_report *s, int mixed);
/* The mirror engine over P's metadata legs LEG0 and LEG1 (either may be
 * NULL: out), PRIMARY read first; a pool with integrity (vg.h:
 * integrity_*) keeps each leg's dm-integrity tags offline through it
 * (io_integrity_create). 0 or -errno (logged). */
int pool_meta_mirror_make(const struct pool *p, struct io_engine *leg0, struct io_engine *leg1,
			  unsigned primary, struct io_engine **out) TP_MUST_CHECK;
/* Zero both integrity superblocks of VG's layout on IO (a leg written
 * around the mirror engine, whose tags were not kept): the kernel formats
 * them anew and recalculates every tag at the next activation. 0 for a
 * pool without integrity. */
int pool_integrity_reset(const struct vg *vg, struct io_engine *io) TP_MUST_CHECK;
/* The kernel's scrub of an active mirrored pool's metadata legs (tpcheck
 * --scrub): dm-raid's "check", which reads every block of both legs, and
 * waits for it (a signal stops it: -EINTR). A leg under dm-integrity
 * turns a bad block into a read error, which the raid1 corrects from the
 * other leg and rewrites. */
struct pool_live_scrub {
	uint64_t sectors;		/* of each leg read */
	uint64_t corrected[2];		/* integrity mismatches found on each leg */
	uint64_t mismatches;		/* blocks different between the legs (md) */
	char health[3];			/* the legs' health after it ('A', 'D', ...) */
	int integrity;			/* the legs have dm-integrity */
};
/* 0 with RES; -EOPNOTSUPP for a pool that is no active mirror, -EBUSY
 * when a resync or check is under way, -errno (logged). */
int pool_meta_scrub_live(struct pool *p, struct pool_live_scrub *res) TP_MUST_CHECK;
/* Zero the kernel raid1's metadata area of mirrored VG on IO (a leg, or
 * the mirror over both): a new raid set, or a new leg to rebuild. */
int pool_zero_raid_meta(struct io_engine *io, const struct vg *vg) TP_MUST_CHECK;
#endif
