/* pool_wipe.c - tvremove --wipe: zero on the data device the chunks that
 * only one volume maps, before its removal frees them (pool.h).
 *
 * Why: with zeroing off a newly provisioned chunk is not cleared, so a
 * new volume can read what a removed one left in the parts of a chunk it
 * has not written yet. Wiping first leaves zeros there instead.
 *
 * Which chunks: those no other thin device maps, found by two walks of
 * the committed mapping trees (metadata/thin/thin_walk.h): the first
 * counts, per data block, how many device mappings name it (saturating at
 * 2); the second collects the volume's blocks counted once. The data
 * space map cannot answer this: a leaf a snapshot shares with its origin
 * holds one reference for both, so its blocks have count 1 yet belong to
 * two volumes. Shared chunks are left alone: the other volumes keep them.
 *
 * How: the blocks are sorted and merged into extents and written with
 * zeros through the data device's io engine, then flushed. Offline only:
 * while the kernel runs the pool its view of the mappings is newer than
 * the committed metadata and writes to the data device would race it, so
 * an active pool is refused (-EBUSY). Nothing in the metadata changes
 * here; the caller removes the volume afterwards, and a crash in between
 * leaves the volume in place with zeroed chunks (wiping again is
 * harmless). */
#include "lib/pool/pool_int.h"

#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZERO_BUF (1u << 20)

struct extent {
	uint64_t begin, len;	/* data blocks */
};

struct wipe_walk {
	uint8_t *count;		/* 2 bits per data block: 0, 1, 2 = several */
	uint64_t nr_blocks;
	uint64_t dev_id;
	int pass, in_dev;
	struct extent *ext;
	size_t nr, cap;
	uint64_t shared;	/* the volume's blocks another device maps too */
};

static unsigned get2(const uint8_t *c, uint64_t b)
{
	return (c[b >> 2] >> ((b & 3) * 2)) & 3u;
}

static void inc2(uint8_t *c, uint64_t b)
{
	unsigned v = get2(c, b);

	if (v < 2)
		c[b >> 2] = (uint8_t)((c[b >> 2] & ~(3u << ((b & 3) * 2))) |
				      ((v + 1) << ((b & 3) * 2)));
}

static int add_block(struct wipe_walk *w, uint64_t b)
{
	struct extent *last = w->nr ? &w->ext[w->nr - 1] : NULL;

	if (last && last->begin + last->len == b) {
		last->len++;
		return 0;
	}
	if (w->nr == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct extent *n = realloc(w->ext, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->ext = n;
		w->cap = cap;
	}
	w->ext[w->nr++] = (struct extent){ b, 1 };
	return 0;
}

static int dev_begin(void *ctx, const struct thin_ir_device *d)
{
	struct wipe_walk *w = ctx;

	w->in_dev = d->dev_id == w->dev_id;
	return 0;
}

static int mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct wipe_walk *w = ctx;

	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < runs[i].length; k++) {
			uint64_t b = runs[i].data_begin + k;
			int r;

			if (b >= w->nr_blocks) {
				log_error("data block %llu is beyond the pool's %llu blocks",
					  (unsigned long long)b, (unsigned long long)w->nr_blocks);
				return -EUCLEAN;
			}
			if (w->pass == 0) {
				inc2(w->count, b);
				continue;
			}
			if (!w->in_dev)
				continue;
			if (get2(w->count, b) != 1) {
				w->shared++;
				continue;
			}
			if ((r = add_block(w, b)))
				return r;
		}
	return 0;
}

static int cmp_extent(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Sort the extents by data block and merge neighbours. */
static void merge_extents(struct wipe_walk *w)
{
	size_t out = 0;

	if (w->nr < 2)
		return;
	qsort(w->ext, w->nr, sizeof(*w->ext), cmp_extent);
	for (size_t i = 0; i < w->nr; i++) {
		if (out && w->ext[out - 1].begin + w->ext[out - 1].len == w->ext[i].begin)
			w->ext[out - 1].len += w->ext[i].len;
		else
			w->ext[out++] = w->ext[i];
	}
	w->nr = out;
}

static int zero_extents(struct pool *p, const struct wipe_walk *w, uint64_t chunk)
{
	struct io_engine *data = p->pv[VG_ROLE_DATA].io;
	uint64_t base = p->pv[VG_ROLE_DATA].label.area[0].offset;
	void *zeros = NULL;
	int r = 0;

	if (posix_memalign(&zeros, 4096, ZERO_BUF))
		return -ENOMEM;
	memset(zeros, 0, ZERO_BUF);
	for (size_t i = 0; i < w->nr && !r; i++) {
		uint64_t off = base + w->ext[i].begin * chunk, left = w->ext[i].len * chunk;

		while (left && !r) {
			size_t n = left < ZERO_BUF ? (size_t)left : ZERO_BUF;
			r = io_write(data, off, zeros, n);
			off += n;
			left -= n;
		}
	}
	if (!r)
		r = io_flush(data);
	free(zeros);
	if (r)
		log_error("pool %s: writing zeros to %s failed: %s; the volume was not removed",
			  p->name, data->name, strerror(-r));
	return r;
}

static int walk_md(struct pool *p, struct wipe_walk *w)
{
	struct thin_ir_visitor v = { .ctx = w, .device_begin = dev_begin, .mappings = mappings };
	int r = 0;

	for (w->pass = 0; w->pass < 2 && !r; w->pass++)
		r = thin_walk(p->md, 0, &v);
	if (r)
		log_error("pool %s: cannot read its mappings: %s; run 'tpcheck %s'", p->name,
			  strerror(-r), p->name);
	return r;
}

int pool_volume_wipe(struct pool *p, const char *name, struct pool_wipe_result *res)
{
	const struct vg_volume *v = vg_find_volume(p->vg, name);
	uint64_t chunk = (uint64_t)p->vg->chunk_size * 512, mu, mt, du, dt;
	struct wipe_walk w = { 0 };
	struct timespec t0, t1;
	int r;

	memset(res, 0, sizeof(*res));
	if (!v) {
		log_error("pool %s has no volume %s; 'tpstatus %s' lists them", p->name, name,
			  p->name);
		return -ENOENT;
	}
	if (pool_is_live(p) || !p->md) {
		log_error("pool %s is active: --wipe writes zeros to the data device and works on "
			  "an inactive pool only; run 'tpdeactivate %s' first (volume %s not "
			  "removed)", p->name, p->name, name);
		return -EBUSY;
	}
	r = thin_usage(p->md, &mu, &mt, &du, &dt);
	if (r)
		return r;
	w.nr_blocks = dt;
	w.dev_id = v->dev_id;
	w.count = calloc(dt / 4 + 1, 1);
	if (!w.count)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = walk_md(p, &w);
	free(w.count);
	if (!r) {
		merge_extents(&w);
		r = zero_extents(p, &w, chunk);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!r) {
		for (size_t i = 0; i < w.nr; i++)
			res->wiped += w.ext[i].len * chunk;
		res->extents = w.nr;
		res->shared = w.shared * chunk;
		res->seconds = (double)(t1.tv_sec - t0.tv_sec) +
			       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
	free(w.ext);
	return r;
}
