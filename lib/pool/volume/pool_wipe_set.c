/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_wipe_set.c - tvremove --wipe's shared half (pool_wipe.h): which
 * chunks only one volume maps, from any walk of the mapping trees, and
 * writing zeros that a signal can stop.
 *
 * Which chunks: two walks (metadata/thin/thin_walk.h; offline the
 * committed metadata, live the kernel's metadata snapshot): the first
 * counts, per data block, how many device mappings name it (saturating at
 * 2); the second collects the volume's blocks counted once, as runs of
 * virtual and data chunks with their time stamps. The data space map
 * cannot answer this: a leaf a snapshot shares with its origin holds one
 * reference for both, so its blocks have count 1 yet belong to two
 * volumes.
 *
 * Stopping: the wipe runs in a critical section (lib/base/critical.h), so
 * SIGINT, SIGTERM and SIGHUP wait; the zeroing looks for one before each
 * 4 MiB write and returns -EINTR. */
#include "lib/pool/volume/pool_wipe.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/core/refcount2.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- which chunks ---- */

struct wipe_walk {
	uint8_t *count;		/* 2 bits per data block: 0, 1, 2 = several */
	uint64_t nr_blocks;
	uint64_t dev_id;
	int pass, in_dev;
	struct wipe_set *set;
};

/* One exclusive chunk, joined to the last run when it continues it. */
static int add_chunk(struct wipe_set *s, uint64_t v, uint64_t d, uint32_t time)
{
	struct wipe_run *last = s->nr ? &s->run[s->nr - 1] : NULL;

	if (last && last->vbegin + last->len == v && last->dbegin + last->len == d &&
	    last->time == time) {
		last->len++;
		return 0;
	}
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct wipe_run *n = realloc(s->run, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->run = n;
		s->cap = cap;
	}
	s->run[s->nr++] = (struct wipe_run){ v, d, 1, time };
	return 0;
}

static int dev_begin(void *ctx, const struct thin_ir_device *d)
{
	struct wipe_walk *w = ctx;

	w->in_dev = d->dev_id == w->dev_id;
	if (w->in_dev)
		w->set->snap_time = d->snap_time;
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
				refcount2_inc(w->count, b);
				continue;
			}
			if (!w->in_dev)
				continue;
			if (refcount2_get(w->count, b) != 1) {
				w->set->shared++;
				continue;
			}
			if ((r = add_chunk(w->set, runs[i].origin_begin + k, b, runs[i].time)))
				return r;
		}
	return 0;
}

int wipe_find(walk_fn walk, void *arg, uint64_t nr_blocks, uint64_t dev_id, struct wipe_set *s)
{
	struct thin_ir_visitor v = { 0 };
	struct wipe_walk w = { 0 };
	int r = 0;

	memset(s, 0, sizeof(*s));
	w.nr_blocks = nr_blocks;
	w.dev_id = dev_id;
	w.set = s;
	w.count = calloc(nr_blocks / 4 + 1, 1);
	if (!w.count)
		return -ENOMEM;
	v.ctx = &w;
	v.device_begin = dev_begin;
	v.mappings = mappings;
	for (w.pass = 0; w.pass < 2 && !r; w.pass++)
		r = walk(arg, &v);
	free(w.count);
	return r;
}

void wipe_set_free(struct wipe_set *s)
{
	free(s->run);
	memset(s, 0, sizeof(*s));
}

/* ---- writing zeros, stoppable ---- */

int wipe_zero_range(struct io_engine *io, uint64_t off, uint64_t len, const void *zeros,
		    const struct pool_wipe_params *wp, struct pool_wipe_result *res)
{
	while (len) {
		size_t n = len < WIPE_BUF ? (size_t)len : WIPE_BUF;
		int r;

		tp_test_pause("wipe-zeroing");
		if (tp_critical_pending())
			return -EINTR;
		if ((r = io_write(io, off, zeros, n)))
			return r;
		res->wiped += n;
		if (wp && wp->progress)
			wp->progress(wp->progress_ctx, res->wiped, res->planned);
		off += n;
		len -= n;
	}
	return 0;
}
