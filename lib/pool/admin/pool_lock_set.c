/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_lock_set.c - tpchange --lock-type (pool.h: pool_set_lock_type): a
 * pool of one host becomes a shared pool (a lease area found on its
 * metadata device, formatted through this host's sanlock daemon, then one
 * VG commit that records it) or back (one VG commit; the area is left as
 * free space). With other settings (pool_settings_begin) the area is
 * formatted only once every setting was checked, just before their one
 * commit (pool_stage_prep). Offline only: an active pool's holder would
 * be left behind or missing. */
#include "lib/pool/core/core.h"
#include "lib/pool/lease/lease_feature.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/sysid.h"
#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint64_t align_up(uint64_t v)
{
	return (v + POOL_LEASE_OFFSET - 1) / POOL_LEASE_OFFSET * POOL_LEASE_OFFSET;
}

/* A 2 MiB lease area on the meta device: in the gap between the VG area
 * and the first thin-metadata area, else behind the last one. */
static int find_room(const struct pool *p, uint64_t dev_size, uint64_t *offset)
{
	const struct vg_device *m = &pool_vg(p)->dev[VG_ROLE_META];
	uint64_t first = m->area[0].offset < m->area[1].offset ? m->area[0].offset
								: m->area[1].offset;
	uint64_t last = m->area[0].offset + m->area[0].size;
	uint64_t start = align_up(m->mda.offset + m->mda.size);
	char a[32], b[32];

	if (m->area[1].offset + m->area[1].size > last)
		last = m->area[1].offset + m->area[1].size;
	if (start + POOL_LEASE_AREA_BYTES <= first) {
		*offset = start;
		return 0;
	}
	start = align_up(last);
	if (start <= dev_size && dev_size - start >= POOL_LEASE_AREA_BYTES) {
		*offset = start;
		return 0;
	}
	log_error("pool %s: the metadata device %s (%s) has no 2 MiB free outside its VG area "
		  "and its thin-metadata areas (they end at %s): grow the device by 2 MiB (a "
		  "larger LUN or partition), then run 'tpchange --lock-type sanlock %s' again; "
		  "nothing was changed", pool_name(p), pool_pv(p, VG_ROLE_META)->io->name,
		  tp_size_format_exact(dev_size, a, sizeof(a)),
		  tp_size_format_exact(last, b, sizeof(b)), pool_name(p));
	return -ENOSPC;
}

/* The preparatory write: the lease area NEXT records, formatted on the
 * metadata device (free space until NEXT is committed). */
static int format_area(struct pool *p, const struct vg *next)
{
	if (next->lock.type != VG_LOCK_SANLOCK)
		return 0;
	if (tp_test_fail("lease-format")) {
		log_error("pool %s: cannot write its lease area on %s: %s", pool_name(p),
			  pool_pv(p, VG_ROLE_META)->io->name, strerror(EIO));
		return -EIO;
	}
	return pool_lease_format(pool_name(p), next->lock.name,
				 pool_pv(p, VG_ROLE_META)->io->name, next->lock.offset,
				 next->lock.io_timeout);
}

int pool_set_lock_type(struct pool *p, int shared, unsigned io_timeout)
{
	uint64_t dev_size = pool_pv(p, VG_ROLE_META)->io->size, offset = 0;
	struct vg *next;
	int r;

	if (!!shared == pool_is_shared(p))
		return 0;
	if ((r = pool_refuse_live(p, shared ? "making it a shared pool (deactivate it first)"
					    : "making it a pool of one host (deactivate it first)")))
		return r;
	if (shared) {
		if (!io_timeout || io_timeout > VG_LOCK_IO_TIMEOUT_MAX) {
			log_error("pool %s: sanlock's io_timeout must be 1..%u seconds",
				  pool_name(p), VG_LOCK_IO_TIMEOUT_MAX);
			return -EINVAL;
		}
		if ((r = find_room(p, dev_size, &offset)) || (r = pool_lease_check_daemon(pool_name(p))))
			return r;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	memset(&next->lock, 0, sizeof(next->lock));
	/* a shared pool has no owner; a pool of one host is this host's */
	next->system_id[0] = '\0';
	if (!shared && (r = tp_system_id(next->system_id, sizeof(next->system_id), NULL))) {
		vg_free(next);
		return r;
	}
	if (shared) {
		next->lock.type = VG_LOCK_SANLOCK;
		next->lock.offset = offset;
		next->lock.io_timeout = io_timeout;
		vg_lock_name(next->uuid, next->lock.name);
		if (next->dev[VG_ROLE_META].size < dev_size)
			next->dev[VG_ROLE_META].size = dev_size;
		if ((r = pool_stage_prep(p, format_area, next))) {
			vg_free(next);
			return r;
		}
	}
	return pool_commit_vg(p, next);
}
