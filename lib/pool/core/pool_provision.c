/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_provision.c - the over-provisioning limit (core.h): a pool's VG
 * may cap the sum of its volumes' virtual sizes at a percentage of its
 * data area (tpcreate/tpchange --max-overprovision). Every forward VG
 * commit (pool_commit.c) asks here first, so each command that adds
 * virtual size (a new volume, a snapshot, a grown volume, a receive or
 * import, a rollback to a larger snapshot) is refused before anything is
 * written, whichever module makes it.
 *
 * What counts: every volume's virtual size, snapshots included (a
 * snapshot can come to map its whole size once its origin is
 * overwritten, as LVM's thin-pool over-provisioning warnings count it),
 * and every unfinished receive's (it becomes a volume of that size), each
 * rounded up to whole chunks (a volume's partial last chunk takes a whole
 * one when written). So with a limit of 1.0 every volume can be written
 * whole without the data area running out, snapshots included. A
 * commit that does not raise the sum is never refused, so lowering the
 * limit under what a pool already holds (tpchange warns), removing volumes
 * and undoing a change all go through; but a commit that shrinks the data
 * area (tpreduce) is, when the sum would then be above the limit: the
 * limit is a promise about the room the volumes have, which taking a
 * device away would break behind the admin's back. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/policy.h"
#include "metadata/pdata/space_map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* SIZE in whole chunks: a volume's last, partial chunk is a whole one
 * when written. */
static uint64_t in_chunks(uint64_t size, uint64_t chunk)
{
	return chunk && size % chunk ? add_sat(size - size % chunk, chunk) : size;
}

/* The sum exact: volumes of up to 2^63 bytes each, 2^24 of them, add up
 * past 2^64 (three of almost 8 EiB do), and a sum kept saturated there
 * would not grow with one more: a change that adds to it would look like
 * one that does not. */
unsigned __int128 pool_vg_virtual_sum(const struct vg *vg)
{
	unsigned __int128 sum = 0;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	for (unsigned i = 0; i < vg->nr_volumes; i++)
		sum += in_chunks(vg->volumes[i].size, chunk);
	for (unsigned i = 0; i < vg->nr_receives; i++)
		sum += in_chunks(vg->receives[i].size, chunk);
	return sum;
}

static uint64_t virtual_total(const struct vg *vg)
{
	unsigned __int128 sum = pool_vg_virtual_sum(vg);

	return sum > UINT64_MAX ? UINT64_MAX : (uint64_t)sum;
}

void pool_sum_format(unsigned __int128 v, char *buf, size_t len)
{
	if (v <= UINT64_MAX)
		tp_size_format((uint64_t)v, 'h', buf, len);
	else
		snprintf(buf, len, "%.2f EiB", (double)v / (double)(1ull << 60));
}

/* The data area in whole chunks, bytes (one place to follow a data area
 * made of several devices). */
static uint64_t pool_vg_data_bytes(const struct vg *vg)
{
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	return vg_data_chunks(vg) * chunk;
}

uint64_t pool_vg_overprovision_limit(const struct vg *vg)
{
	unsigned __int128 l;

	if (!vg->max_overprovision)
		return UINT64_MAX;
	l = (unsigned __int128)pool_vg_data_bytes(vg) * vg->max_overprovision / 100;
	return l > UINT64_MAX ? UINT64_MAX : (uint64_t)l;
}

void pool_ratio_format(uint32_t percent, char *buf, size_t len)
{
	if (percent % 100)
		snprintf(buf, len, "%" PRIu32 ".%02" PRIu32, percent / 100, percent % 100);
	else
		snprintf(buf, len, "%" PRIu32 ".0", percent / 100);
}

int pool_provision_check_shrink(const struct pool *p, uint64_t data_bytes, const char *what)
{
	uint64_t sum = virtual_total(p->vg), limit;
	char a[32], b[32], c[32], ratio[24];
	unsigned __int128 l;

	if (!p->vg->max_overprovision)
		return 0;
	l = (unsigned __int128)data_bytes * p->vg->max_overprovision / 100;
	limit = l > UINT64_MAX ? UINT64_MAX : (uint64_t)l;
	if (sum <= limit)
		return 0;
	pool_ratio_format(p->vg->max_overprovision, ratio, sizeof(ratio));
	log_error("pool %s: refused: %s shrinks its data size to %s, and the volumes' virtual "
		  "sizes of %s would be above its over-provisioning limit of %s (%s x that data "
		  "size); nothing was changed. Remove or shrink volumes to %s in all, raise the "
		  "limit ('tpchange --max-overprovision RATIO %s', or none), or add a data "
		  "device first ('tpextend --data DEV %s')",
		  p->name, what, tp_size_format(data_bytes, 'h', a, sizeof(a)),
		  tp_size_format(sum, 'h', b, sizeof(b)), tp_size_format(limit, 'h', c, sizeof(c)),
		  ratio, c, p->name, p->name);
	return -EDQUOT;
}

int pool_provision_check(const struct pool *p, const struct vg *next)
{
	unsigned __int128 now, want;
	uint64_t limit = pool_vg_overprovision_limit(next);
	char a[32], b[32], c[32], d[32], e[32], ratio[24];

	/* an undo or settle puts an older transaction back: never refused;
	 * without a limit nothing is (each sum is a walk of every volume) */
	if (next->transaction_id < p->vg->transaction_id || limit == UINT64_MAX)
		return 0;
	want = pool_vg_virtual_sum(next);
	if (want <= limit)
		return 0;
	now = pool_vg_virtual_sum(p->vg);
	/* a smaller data area (tpreduce) under a limit the sum passes */
	if (pool_vg_data_bytes(next) < pool_vg_data_bytes(p->vg) &&
	    next->max_overprovision == p->vg->max_overprovision)
		return pool_provision_check_shrink(p, pool_vg_data_bytes(next),
						   "the smaller data area");
	if (want <= now)
		return 0;
	pool_ratio_format(next->max_overprovision, ratio, sizeof(ratio));
	log_error("pool %s: refused: the volumes' virtual sizes would add up to %s (now %s, "
		  "requested +%s), above the pool's over-provisioning limit of %s (%s x its data "
		  "size of %s); nothing was changed. Grow the pool ('tpextend %s'), raise the "
		  "limit ('tpchange --max-overprovision RATIO %s'), or ask for less",
		  p->name, (pool_sum_format(want, a, sizeof(a)), a),
		  (pool_sum_format(now, b, sizeof(b)), b),
		  (pool_sum_format(want - now, c, sizeof(c)), c),
		  tp_size_format(limit, 'h', d, sizeof(d)), ratio,
		  tp_size_format(pool_vg_data_bytes(next), 'h', e, sizeof(e)),
		  p->name, p->name);
	return -EDQUOT;
}

/* ---- the thin metadata a data growth needs ---- */

int pool_meta_check_growth(struct pool *p, uint64_t new_data_blocks, uint64_t meta_blocks,
			   const char *what)
{
	uint64_t chunk = (uint64_t)p->vg->chunk_size * 512, mu, mt, du, dt, least, cost, after;
	uint64_t want;
	unsigned pct, warn = p->vg->monitor.warn;
	char a[32], b[32], c[32], d[32], e[32];
	int r;

	if ((r = pool_fill_blocks(p, &mu, &mt, &du, &dt)))
		return r;
	if (meta_blocks)
		mt = meta_blocks;
	if (!mt || new_data_blocks <= dt)
		return 0;
	cost = sm_disk_grow_blocks(dt, new_data_blocks, &least);
	want = TP_MIN(tp_policy_meta_estimate(new_data_blocks * chunk, chunk), TP_META_MAX);
	tp_size_format(new_data_blocks * chunk, 'h', c, sizeof(c));
	tp_size_format(want, 'h', d, sizeof(d));
	tp_size_format(chunk, 'h', e, sizeof(e));
	if (mu + least > mt) {
		log_error("pool %s: %s would grow the data area to %s, whose space map in the thin "
			  "metadata needs at least %llu more blocks (%s), and its %s metadata area "
			  "has %llu free; nothing was changed. Grow the metadata area first "
			  "('tpextend --metadata-size SIZE %s': about %s for %s of data in %s "
			  "chunks)", p->name, what, c, (unsigned long long)least,
			  tp_size_format(least * THIN_METADATA_BLOCK_SIZE, 'h', a, sizeof(a)),
			  tp_size_format(mt * THIN_METADATA_BLOCK_SIZE, 'h', b, sizeof(b)),
			  (unsigned long long)(mt - TP_MIN(mu, mt)), p->name, d, c, e);
		return -ENOSPC;
	}
	after = TP_MIN(mu + cost, mt);
	pct = (unsigned)(after * 100 / mt);
	tp_size_format(after * THIN_METADATA_BLOCK_SIZE, 'h', a, sizeof(a));
	tp_size_format(mt * THIN_METADATA_BLOCK_SIZE, 'h', b, sizeof(b));
	if (warn && pct >= warn)
		log_warn("pool %s: after %s its thin metadata will be about %u%% full (%s of %s) "
			 "before any more data is written, at or above its warn threshold of %u%%: "
			 "grow it with 'tpextend --metadata-size SIZE %s' (about %s for %s of data "
			 "in %s chunks)", p->name, what, pct, a, b, warn, p->name, d, c, e);
	else if (mt * THIN_METADATA_BLOCK_SIZE < want)
		log_warn("pool %s: after %s its thin metadata area (%s, about %u%% full at once) is "
			 "smaller than what %s of data in %s chunks wants (about %s): it would fill "
			 "long before the data area; grow it with 'tpextend --metadata-size SIZE %s'",
			 p->name, what, b, pct, c, e, d, p->name);
	return 0;
}
