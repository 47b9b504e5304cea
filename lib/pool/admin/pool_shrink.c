/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_shrink.c - tpreduce --size (pool_admin.h: pool_shrink_data): the
 * data area of an inactive pool shrunk by shrinking its last data
 * device's range, the inverse of tpextend growing it.
 *
 * The steps:
 *   1. the chunks mapped at or beyond the new end moved below it by the
 *      chunk mover (pool_move.c, its tail mode): in steps, each a copy
 *      made durable and then one thin commit re-pointing the mappings;
 *      a cut anywhere leaves every volume reading what it read, the area
 *      as large as it was, and the next run goes on where it stopped;
 *   2. the thin metadata rebuilt from the active area into the spare one
 *      with a data space map of the new size (no mapping, no count beyond
 *      it), as tpreduce --data of the last device does; a cut leaves the
 *      pool as step 1 left it (the spare is nobody's);
 *   3. one VG commit: the spare area active and the last device's range
 *      shorter, together. Before it the pool has its old size, after it
 *      the new one; a run after it finds the size reached (nothing to do).
 *      The last device's label (which records its range) is rewritten
 *      after it; one a cut left behind lags and is rewritten by the next
 *      change (tpcheck says so meanwhile), as after tpextend.
 * The device itself keeps its size: the tail behind the new range is free
 * for the administrator (a partition or LV shrunk, an image truncated).
 * The VG and the label record the device as ending where the range ends,
 * so a device cut to that size is whole; one that keeps its tail is one
 * that grew, as tpextend sees it ('tpextend POOL' takes the tail back). */
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/admin/admin_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/policy.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/thin/check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The refusal of a size the decision did not take (R), logged. */
static int refuse_size(struct pool *p, int r, const struct pool_shrink_params *x,
		       const struct pool_shrink_result *res, uint64_t last_first)
{
	char a[32], b[32], c[32];
	const char *dev = res->path;

	tp_size_format_exact(x->size, a, sizeof(a));
	tp_size_format_exact(res->old_chunks * res->chunk, b, sizeof(b));
	if (r == -EFBIG) {
		log_error("pool %s: its data area is %s; --size %s would grow it, and tpreduce only "
			  "shrinks it (grow the last data device and run 'tpextend %s', or add one "
			  "with 'tpextend --data DEV %s'); nothing was changed", pool_name(p), b, a,
			  pool_name(p), pool_name(p));
		return r;
	}
	if (r == -ERANGE) {
		tp_size_format_exact((last_first + 1) * res->chunk, c, sizeof(c));
		log_error("pool %s: a data area of %s would leave its last data device (%s, from "
			  "chunk %llu on) no chunk; the smallest size --size can give is %s "
			  "('--size %lluK'). To take that device away, move its chunks off "
			  "('tpmove --from %s %s') and run 'tpreduce --data %s %s'; nothing was "
			  "changed", pool_name(p), a, dev, (unsigned long long)last_first, c,
			  (unsigned long long)((last_first + 1) * res->chunk / 1024), dev,
			  pool_name(p), dev, pool_name(p));
		return r;
	}
	log_error("pool %s: cannot shrink its data area to %s: %s; nothing was changed",
		  pool_name(p), a, strerror(-r));
	return r;
}

/* The full check of the thin metadata before anything moves: the mover
 * takes the chunks the data space map counts 0 as free, so a count below
 * the mappings (a fatal check, which the fast check of pool_guard cannot
 * see) would let it overwrite a chunk a volume maps. Such a pool is
 * refused (as --test says) and sent to tprepair; leaks are harmless. */
static int full_check(struct pool *p)
{
	struct thin_check_opts o = { 0, NULL, NULL };
	struct thin_check_report rep;
	int r = thin_check_io(pool_thin_io(p), &o, &rep);

	if (r) {
		log_error("pool %s: the check of its thin metadata before shrinking the data area "
			  "could not run: %s; nothing was changed", pool_name(p), strerror(-r));
		return r;
	}
	if (rep.f.verdict == THIN_CHECK_FATAL) {
		log_error("pool %s: its thin metadata is damaged%s%s; shrinking the data area "
			  "moves chunks by these counts and rewrites the metadata, so it is "
			  "refused: nothing was changed. Run 'tpcheck %s' for details and "
			  "'tprepair %s' to repair it, then this command again", pool_name(p),
			  rep.f.nr_problems ? ": " : "",
			  rep.f.nr_problems ? rep.f.problems[0].msg : "", pool_name(p),
			  pool_name(p));
		r = -EUCLEAN;
	}
	thin_check_report_free(&rep);
	return r;
}

/* The tail of the last device behind the new range, into RES. */
static void freed_tail(struct pool *p, struct pool_shrink_result *res, uint64_t last_first)
{
	const struct vg_device *d = vg_data_dev(pool_vg(p), res->index);
	uint64_t end = (res->new_chunks - last_first) * res->chunk;

	res->freed_offset = d->area[0].offset + end;
	res->dev_size = pool_data_dev_size(p, res->index);
	if (!res->dev_size)
		res->dev_size = d->size;
	res->freed_bytes = res->dev_size > res->freed_offset ? res->dev_size - res->freed_offset
							     : 0;
}

/* The last device's label brought in step with the committed range. One
 * that cannot be written keeps the old range: RES->label_lags, and the
 * warning says to run the command again (it finds the size reached and
 * rewrites the label) before the device is cut. */
static void label_in_step(struct pool *p, struct pool_shrink_result *res)
{
	if (!tp_test_fail("shrink-label") && !pool_sync_labels(p, NULL))
		return;
	res->label_lags = 1;
	log_warn("pool %s: its data area is %llu chunks now (committed), but the label of %s "
		 "still records the old data range: do not shrink that device yet; run "
		 "'tpreduce --size %lluK %s' again, which finds the size reached and rewrites "
		 "the label", pool_name(p), (unsigned long long)res->new_chunks, res->path,
		 (unsigned long long)(res->new_chunks * res->chunk / 1024), pool_name(p));
}

/* Step 3: the spare area (rebuilt) active and the last range shorter, in
 * one VG commit. */
static int commit_smaller(struct pool *p, struct pool_shrink_result *res, uint64_t last_first)
{
	const struct vg *vg = pool_vg(p);
	struct vg *next;
	struct vg_device *d;
	int r;

	if ((r = vg_clone(vg, &next)))
		return r;
	d = vg_data_dev(next, res->index);
	d->area[0].size = (res->new_chunks - last_first) * res->chunk;
	/* the size the pool needs of the device: it may be cut to it (a
	 * device larger than recorded is one that grew: 'tpextend' takes
	 * the tail back while it is there) */
	d->size = res->freed_offset;
	next->metadata_area = !vg->metadata_area;
	if ((r = vg_validate(next))) {
		vg_free(next);
		return TP_BUG("pool %s: the VG with a data area of %llu chunks does not validate: "
			      "%s", pool_name(p), (unsigned long long)res->new_chunks, strerror(-r));
	}
	return pool_commit_vg(p, next);	/* consumes NEXT */
}

int pool_shrink_data(struct pool *p, const struct pool_shrink_params *x,
		     struct pool_shrink_result *res)
{
	const struct vg *vg = pool_vg(p);
	struct pool_move_params mp;
	struct pool_move_result mr;
	struct thin_ir_superblock sb;
	uint64_t last_first, counted;
	char a[32], b[32], c[32], what[64];
	int r;

	memset(res, 0, sizeof(*res));
	/* first: a live pool is refused before anything of it is looked at */
	if ((r = pool_refuse_live(p, "shrinking its data area (tpreduce --size)")))
		return r;
	res->index = vg_nr_data(vg) - 1;
	res->path = pool_data_dev_path(p, res->index);
	res->chunk = (uint64_t)vg->chunk_size * 512;
	res->old_chunks = vg_data_chunks(vg);
	res->warn = vg->monitor.warn;
	last_first = vg_data_first_chunk(vg, res->index);
	r = tp_policy_shrink(res->old_chunks, last_first, res->chunk, x->size, &res->new_chunks);
	if (r == -EEXIST) {
		/* done (a run cut after its commit: the label brought in step) */
		res->already = 1;
		freed_tail(p, res, last_first);
		if (!x->test)
			label_in_step(p, res);
		return 0;
	}
	if (r)
		return refuse_size(p, r, x, res, last_first);
	freed_tail(p, res, last_first);
	if ((r = pool_guard(p, "shrinking the data area", "nothing was changed", 0)) ||
	    (r = pool_open_thin(p)) || (r = full_check(p)) ||
	    (r = pool_admin_unsnapped(p, "would still name the old chunks",
					   "nothing was changed", "tpreduce --size", &sb)) ||
	    (r = pool_data_in_use(p, 0, res->old_chunks, &res->used)) ||
	    (r = pool_data_in_use(p, res->new_chunks, res->old_chunks - res->new_chunks,
				  &counted)))
		return r;
	tp_size_format(res->new_chunks * res->chunk, 'h', a, sizeof(a));
	if (res->used > res->new_chunks) {
		uint64_t least = TP_MAX(res->used, last_first + 1);

		log_error("pool %s: %llu chunk%s (%s) %s in use, more than the %llu of a data area "
			  "of %s; nothing was changed. The smallest data size that holds them is "
			  "%llu chunks, %s ('--size %lluK'); free space first (remove volumes or "
			  "snapshots no longer needed, 'tptrim %s')", pool_name(p),
			  (unsigned long long)res->used, tp_plural(res->used),
			  tp_size_format(res->used * res->chunk, 'h', b, sizeof(b)),
			  res->used == 1 ? "is" : "are", (unsigned long long)res->new_chunks, a,
			  (unsigned long long)least,
			  tp_size_format_exact(least * res->chunk, c, sizeof(c)),
			  (unsigned long long)(least * res->chunk / 1024), pool_name(p));
		return -ENOSPC;
	}
	/* the over-provisioning limit follows the data size (also --test) */
	snprintf(what, sizeof(what), "tpreduce --size");
	if ((r = pool_provision_check_shrink(p, res->new_chunks * res->chunk, what)))
		return r;
	/* what the mappings use beyond the new end (the move's walk; --test
	 * writes nothing): the space map's count there above it is a leak */
	memset(&mp, 0, sizeof(mp));
	mp.keep = res->new_chunks;
	mp.test = 1;
	if ((r = pool_move_data(p, &mp, &mr)))
		return r;
	res->leaked = counted > mr.used ? counted - mr.used : 0;
	res->used -= TP_MIN(res->used, res->leaked);
	res->used_pct = (unsigned)((res->used * 100 + res->new_chunks - 1) / res->new_chunks);
	if (res->leaked)
		log_notice("pool %s: %llu chunk%s beyond the new end %s counted in use but mapped "
			 "by no volume (a leak, which 'tpcheck %s' reports); the rebuild of the "
			 "thin metadata drops %s", pool_name(p), (unsigned long long)res->leaked,
			 tp_plural(res->leaked), res->leaked == 1 ? "is" : "are", pool_name(p),
			 res->leaked == 1 ? "it" : "them");
	if (res->warn && res->used_pct >= res->warn)
		log_warn("pool %s: a data area of %s %s %u%% in use (%llu of %llu chunks), at "
			 "or above its warn threshold of %u%%", pool_name(p), a,
			 x->test ? "would be" : "will be", res->used_pct,
			 (unsigned long long)res->used, (unsigned long long)res->new_chunks,
			 res->warn);
	/* 1. the tail emptied (--test: counted) by the chunk mover */
	mp.test = x->test;
	mp.step = x->step;
	mp.progress = x->progress;
	mp.progress_ctx = x->progress_ctx;
	if (!x->test)
		r = pool_move_data(p, &mp, &mr);
	res->to_move = mr.used;
	res->mappings = mr.mappings;
	res->free_below = mr.free_elsewhere;
	res->moved = mr.moved;
	res->steps = mr.steps;
	if (r || x->test)
		return r;
	/* nothing maps beyond the new end now (the mappings decide: a count
	 * the space map keeps there is a leak the rebuild drops) */
	mp.test = 1;
	if ((r = pool_move_data(p, &mp, &mr)))
		return r;
	if (mr.used)
		return TP_BUG("pool %s: %llu chunk%s from %llu on %s still mapped after the move",
			      pool_name(p), (unsigned long long)mr.used, tp_plural(mr.used),
			      (unsigned long long)res->new_chunks, mr.used == 1 ? "is" : "are");
	/* 2. the thin metadata with the smaller space map, into the spare area */
	if ((r = pool_rebuild_spare_smaller(p, res->new_chunks)))
		return r;
	tp_test_pause("xdata-rebuilt");
	/* 3. one VG commit: that area active, the range shorter */
	if ((r = commit_smaller(p, res, last_first)))
		return r;
	res->written = 1;
	/* the last device's label records its range: brought in step (a cut
	 * before leaves a label that lags, which the next change rewrites) */
	label_in_step(p, res);
	return 0;
}
