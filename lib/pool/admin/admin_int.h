/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admin_int.h - what the files of lib/pool/admin share, and nobody else
 * (a *_int.h header is its directory's own). */
#ifndef TP_POOL_ADMIN_INT_H
#define TP_POOL_ADMIN_INT_H

#include "lib/base/compiler.h"

#include <stdint.h>

struct pool;
struct pool_monitor_policy;
struct vg_monitor;

struct vg;

/* Would tpextend --data take PATH: no tptools label (but a data label of
 * the pool OWN_UUID that OWN_VG does not list: a tpextend cut short), no
 * damaged one, no other signature? 0; -EBUSY (logged: what PATH carries,
 * WHO will not take or overwrite it, what to do); -ENOTBLK (no device,
 * said by the open); or the probe's -errno (logged). POOL names the pool
 * the messages are about; OWN_UUID and OWN_VG may be NULL (a pool being
 * made). */
int pool_device_unused(const char *pool, const char *own_uuid, const struct vg *own_vg,
		       const char *path, const char *who) TP_MUST_CHECK;

/* pool_move.c: 0 when P's thin metadata holds no metadata snapshot (its
 * superblock into *SB); else -EBUSY after an error saying the snapshot's
 * mappings RISK, NOTHING (what was not done), and how to release it: the
 * offline way (tprepair --force) and the kernel's (the real dm name), then
 * to run CMD again. tpmove, tpreduce --size and tptrim ask it. */
struct thin_ir_superblock;
int pool_admin_unsnapped(struct pool *p, const char *risk, const char *nothing, const char *cmd,
			 struct thin_ir_superblock *sb) TP_MUST_CHECK;

/* ---- pool_watch.c: the monitoring policy ---- */

/* M is a valid policy: 0, or -EINVAL logged naming POOL and the setting. */
int pool_monitor_policy_check(const char *pool, const struct pool_monitor_policy *m)
	TP_MUST_CHECK;
void pool_monitor_policy_to_vg(const struct pool_monitor_policy *m, struct vg_monitor *v);

/* pool_extend_data.c: 1 when PATH is one of P's open devices (a data or
 * metadata device, or a mirror's second metadata device), else 0. */
int pool_is_member_device(const struct pool *p, const char *path);

/* pool_extend_data.c: P's thin metadata rebuilt from its active area into
 * its spare one (both legs of a mirror, what the spare held saved first)
 * with a data space map of NR_BLOCKS chunks; no mapping may lie at or
 * beyond it (-EUCLEAN, logged, when one would be lost). The VG commit
 * that makes the spare active is the caller's. 0 or -errno, logged. */
int pool_rebuild_spare_smaller(struct pool *p, uint64_t nr_blocks) TP_MUST_CHECK;

#endif
