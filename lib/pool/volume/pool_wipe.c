/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_wipe.c - tvremove --wipe: zero the chunks that only one volume
 * maps, before its removal frees them (pool.h). Owns the entry point and
 * the offline path; the live path is pool_wipe_live.c, the search for the
 * chunks and the stoppable zeroing pool_wipe_set.c.
 *
 * Why: with zeroing off a newly provisioned chunk is not cleared, so a
 * new volume can read what a removed one left in the parts of a chunk it
 * has not written yet. Wiping first leaves zeros there instead.
 *
 * Which chunks: those no other thin device maps (pool_wipe_set.c).
 * Shared chunks are left alone: the other volumes keep them.
 *
 * Offline: the blocks are sorted and merged into extents and written with
 * zeros through the data device's io engine, then flushed. Nothing in the
 * metadata changes here; the caller removes the volume afterwards, and a
 * crash or a signal in between leaves the volume in place with some or
 * all chunks zeroed (wiping again is harmless). A signal (SIGINT, SIGTERM,
 * SIGHUP) stops the writes at the next 4 MiB and returns -EINTR. */
#include "lib/pool/volume/pool_wipe.h"
#include "lib/pool/pool_volume.h"

#include "lib/base/critical.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- offline: the data device ---- */

static int cmp_dbegin(const void *a, const void *b)
{
	const struct wipe_run *x = a, *y = b;

	return x->dbegin < y->dbegin ? -1 : x->dbegin > y->dbegin;
}

/* Sort the runs by data block and merge neighbours on the data device
 * (their virtual chunks no longer count). */
static void merge_by_data(struct wipe_set *s)
{
	size_t out = 0;

	if (s->nr < 2)
		return;
	qsort(s->run, s->nr, sizeof(*s->run), cmp_dbegin);
	for (size_t i = 0; i < s->nr; i++) {
		if (out && s->run[out - 1].dbegin + s->run[out - 1].len == s->run[i].dbegin)
			s->run[out - 1].len += s->run[i].len;
		else
			s->run[out++] = s->run[i];
	}
	s->nr = out;
}

static int zero_data(struct pool *p, const struct wipe_set *s, uint64_t chunk,
		     const struct pool_wipe_params *wp, struct pool_wipe_result *res)
{
	struct io_engine *data, *own;
	uint64_t base = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	void *zeros = NULL;
	int r = 0;

	if (tp_copybuf_alloc(WIPE_BUF, &zeros))
		return -ENOMEM;
	/* block devices with O_DIRECT (the zeros need not pass through the
	 * page cache) */
	if ((r = pool_data_bulk(p, 0, &data, &own))) {
		free(zeros);
		return r;
	}
	memset(zeros, 0, WIPE_BUF);
	for (size_t i = 0; i < s->nr && !r; i++)
		r = wipe_zero_range(data, base + s->run[i].dbegin * chunk, s->run[i].len * chunk,
				    zeros, wp, res);
	if (!r)
		r = io_flush(data);
	free(zeros);
	if (r && r != -EINTR)
		log_error("pool %s: writing zeros to %s failed: %s; the volume was not removed",
			  pool_name(p), data->name, strerror(-r));
	io_destroy(own);
	return r;
}

static int wipe_offline(struct pool *p, const struct vg_volume *v,
			const struct pool_wipe_params *wp, struct pool_wipe_result *res)
{
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, mu, mt, du, dt;
	struct wipe_set s;
	int r = thin_usage(pool_thin(p), &mu, &mt, &du, &dt);

	if (r)
		return r;
	r = wipe_find(pool_md_walk, pool_thin(p), dt, v->dev_id, &s);
	if (r) {
		log_error("pool %s: cannot read its mappings: %s; run 'tpcheck %s'", pool_name(p),
			  strerror(-r), pool_name(p));
		wipe_set_free(&s);
		return r;
	}
	merge_by_data(&s);
	for (size_t i = 0; i < s.nr; i++)
		res->planned += s.run[i].len * chunk;
	res->extents = s.nr;
	res->shared = s.shared * chunk;
	r = zero_data(p, &s, chunk, wp, res);
	wipe_set_free(&s);
	return r;
}

int pool_volume_wipe_watched(struct pool *p, const char *name, const struct pool_wipe_params *wp,
			     struct pool_wipe_result *res)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), name);
	struct timespec t0, t1;
	int r;

	memset(res, 0, sizeof(*res));
	if (!v)
		return pool_volume_missing(p, name);
	/* a live tpsend reading V's chunks would send the zeros */
	if ((r = pool_volume_held(p, v)))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* signals wait; the zeroing looks for them before every write */
	tp_critical_begin();
	if (pool_is_live(p))
		r = pool_volume_wipe_live(p, v, wp, res);
	else if (!pool_thin(p))	/* an offline pool always has its thin metadata open */
		r = TP_BUG("pool %s: offline with no thin metadata open", pool_name(p));
	else
		r = wipe_offline(p, v, wp, res);
	if (!r && tp_critical_pending())
		r = -EINTR;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (r == -EINTR) {
		char a[32], b[32];
		log_error("pool %s: --wipe of volume %s interrupted after zeroing %s of %s; the "
			  "volume was not removed (what was zeroed reads zero); run 'tvremove "
			  "--wipe %s/%s' again", pool_name(p), name,
			  tp_size_format(res->wiped, 'h', a, sizeof(a)),
			  tp_size_format(res->planned, 'h', b, sizeof(b)), pool_name(p), name);
	}
	tp_critical_end();	/* a signal that stopped it takes effect here */
	return r;
}
