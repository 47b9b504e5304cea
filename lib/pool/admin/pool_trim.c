/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_trim.c - tptrim (pool.h: pool_trim): discard the data chunks no
 * volume maps, offline.
 *
 * Which chunks: those whose reference count in the committed data space
 * map is 0 (the pool is open for writing, so no other command changes
 * it meanwhile, and nothing is uncommitted). Snapshots share chunks by
 * counting them, so a chunk any volume reads has a count of at least 1
 * and is never touched. Bounded to the data area the VG records.
 *
 * How: runs of adjacent free chunks, each cut into pieces of at most
 * max_batch bytes and of one data device (data_extent: the one place that
 * maps a chunk to a device and an offset), discarded in order; before
 * each piece a pending signal stops it. Nothing is written but the
 * discards, so a crash or kill anywhere leaves metadata and every mapped
 * chunk as they were. */
#include "lib/pool/admin/admin_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/pool_admin.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/dev/discard.h"

#include <errno.h>
#include <string.h>

#define PROGRESS_EVERY 65536u	/* chunks between two progress calls in the scan */

/* Chunks [CHUNK, CHUNK + NR) of the data area: the data device they are
 * on, the byte offset of CHUNK there and how many of the NR lie there
 * contiguously (*CONTIG <= NR), by the pool's one map of its data area
 * (pool_data_locate: several data devices are a concatenation). */
static int data_extent(const struct pool *p, uint64_t chunk, uint64_t nr, struct io_engine **io,
		       uint64_t *off, uint64_t *contig)
{
	uint64_t run;
	int r = pool_data_locate(p, chunk, io, off, &run);

	if (r)
		return r;
	*contig = TP_MIN(nr, run);
	return 0;
}

struct trim {
	struct pool *p;
	const struct pool_trim_params *x;
	struct pool_trim_result *res;
	uint64_t batch;		/* chunks per piece */
	unsigned long pieces;
};

/* Discard the run [B, B + N) of free chunks, piece by piece. */
static int trim_run(struct trim *t, uint64_t b, uint64_t n)
{
	uint64_t chunk = t->res->chunk;
	int r;

	t->res->runs++;
	while (n) {
		struct io_engine *io;
		uint64_t off, len, take = TP_MIN(n, t->batch);
		enum tp_discard_kind kind;
		int fd;

		if ((r = data_extent(t->p, b, take, &io, &off, &take))) {
			log_error("pool %s: data chunk %llu is beyond its data area: %s",
				  pool_name(t->p), (unsigned long long)b, strerror(-r));
			return r;
		}
		len = take * chunk;
		if (t->x->range)
			t->x->range(t->x->range_ctx, b, take, io->name, off, len);
		if (!t->x->test) {
			if (tp_critical_pending()) {
				log_error("pool %s: tptrim stopped by a signal after discarding %s; "
					  "the pool is unchanged (run it again to go on)",
					  pool_name(t->p),
					  tp_size_format(t->res->bytes, 'h', (char[32]){ 0 }, 32));
				return -EINTR;
			}
			fd = io_fd_get(io);
			r = fd < 0 ? -EOPNOTSUPP : tp_discard_kind(fd, &kind);
			if (!r)
				r = tp_discard(fd, kind, off, len);
			if (r) {
				log_error("pool %s: cannot discard %s at byte %llu of %s: %s%s; the pool "
					  "is unchanged", pool_name(t->p),
					  tp_size_format(len, 'h', (char[32]){ 0 }, 32),
					  (unsigned long long)off, io->name, strerror(-r),
					  r == -EOPNOTSUPP ? " (the device or its file system cannot "
							     "discard)" : "");
				return r;
			}
			tp_test_pause_n("trim-batch", ++t->pieces);
		}
		t->res->discards++;
		t->res->bytes += len;
		b += take;
		n -= take;
	}
	return 0;
}

int pool_trim(struct pool *p, const struct pool_trim_params *x, struct pool_trim_result *res)
{
	struct thin_ir_superblock sb;
	struct thin_md *md;
	struct trim t;
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, n, run = 0, start = 0;
	enum tp_discard_kind kind;
	int r, fd;

	memset(res, 0, sizeof(*res));
	res->chunk = chunk;
	if ((r = pool_refuse_live(p, "tptrim (a live pool discards through its volumes: see "
				     "tpcreate --discards)")))
		return r;
	if ((r = pool_guard(p, "the trim", "nothing was discarded", 0)))
		return r;
	md = pool_thin(p);
	if ((r = pool_admin_unsnapped(p, "may name chunks the pool has freed",
					   "nothing was discarded", "tptrim", &sb)))
		return r;
	n = TP_MIN(sb.nr_data_blocks, vg_data_chunks(pool_vg(p)));
	res->chunks = n;
	{
		struct io_engine *io;
		uint64_t off, first_run;

		fd = n && !pool_data_locate(p, 0, &io, &off, &first_run) ? io_fd_get(io) : -1;
	}
	res->punch = fd >= 0 && !tp_discard_kind(fd, &kind) && kind == TP_DISCARD_PUNCH;
	memset(&t, 0, sizeof(t));
	t.p = p;
	t.x = x;
	t.res = res;
	t.batch = TP_MAX((x->max_batch ? x->max_batch : POOL_TRIM_BATCH) / chunk, 1);
	/* signals wait; the discards look for them before every piece */
	tp_critical_begin();
	for (uint64_t b = 0; b < n && !r; b++) {
		uint32_t count;

		if ((r = thin_data_count(md, b, &count))) {
			log_error("pool %s: cannot read the count of data chunk %llu: %s; run "
				  "'tpcheck %s'", pool_name(p), (unsigned long long)b, strerror(-r),
				  pool_name(p));
			break;
		}
		if (!count) {
			res->free++;
			if (!run++)
				start = b;
		} else if (run) {
			r = trim_run(&t, start, run);
			run = 0;
		}
		if (x->progress && !(b % PROGRESS_EVERY))
			x->progress(x->progress_ctx, b, n);
	}
	if (!r && run)
		r = trim_run(&t, start, run);
	if (!r && x->progress)
		x->progress(x->progress_ctx, n, n);
	tp_critical_end();	/* a signal that stopped it takes effect here */
	return r;
}
