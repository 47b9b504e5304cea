/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mirror_int.h - what only lib/pool/mirror sees: the legs of a mirrored
 * pool's thin metadata as the core's slots hold them (core.h:
 * pool_meta_dev_slot; leg 0 the meta device, leg 1 vg.meta1), and the
 * functions of pool_mirror.c that the feature's hooks
 * (pool_mirror_feature.c) and the replace (pool_mirror_replace.c) use. */
#ifndef TP_POOL_MIRROR_INT_H
#define TP_POOL_MIRROR_INT_H

#include "lib/pool/core/core.h"
#include "lib/pool/mirror/mirror.h"

/* Leg I's slot of P: const for a const P. */
#define LEG(p, i)                                                                         \
	(*_Generic((p), struct pool *: pool_meta_dev_slot,                                 \
		   const struct pool *: pool_meta_dev_at)((p), (i)))

/* Leg I's path (the open device, else the VG's hint) and
 * the word for why a leg is out (io_mirror_error's -errno; 0 in sync). */
const char *pool_meta_leg_path(const struct pool *p, unsigned i);

const char *pool_meta_leg_why(int err);
/* The mirror built again over the legs now open (pool_set_meta_io), the legs out staying out. */
int pool_meta_rebuild(struct pool *p) TP_MUST_CHECK;
/* The leg of P that is stale while its device is there and
 * the other leg is in use (a resync can bring it back: -ESTALE, -EUCLEAN,
 * -EINPROGRESS), or -1. */
int pool_meta_stale_leg(const struct pool *p);
/* Does leg IO carry a dm-raid superblock at the start of its
 * raid metadata? 1 yes (*RECOVERY: its disk_recovery_offset, UINT64_MAX
 * when the kernel had it in sync; may be NULL), 0 no (zeroed), -1
 * unreadable. */
int pool_raid_sb(const struct vg *vg, struct io_engine *io, uint64_t *recovery);
/* A writer's first VG commit (the commit_targets hook) resyncs the
 * stale leg (pool_meta_stale_leg) in place from the good one: both areas
 * copied (pool_meta_copy_areas), the active superblock last, its raid
 * metadata zeroed (the kernel rebuilds it at the next activation), the
 * mirror over both legs again; one warning. A failure is a warning too:
 * the leg stays out. */
void pool_meta_resync_stale(struct pool *p);
/* A writer's open: -EUCLEAN (said) when the last scrub recorded reads
 * mixing the legs (pool_meta_scrubbed's MIXED), else 0. */
int pool_meta_refuse_mixed(const struct pool *p);
/* The thin-metadata areas of leg GOOD of P (bit A of AREAS: area A)
 * copied onto IO, the active superblock last. 0 or -errno. */
int pool_meta_copy_areas(struct pool *p, unsigned good, struct io_engine *io, unsigned areas);

/* At close: the blocks this command found bad on a leg and read from the
 * other, in one line a leg (rewritten when it committed; else what to run). */
void pool_meta_say_bad(const struct pool *p);

#endif
