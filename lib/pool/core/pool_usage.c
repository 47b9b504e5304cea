/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_usage.c - per-volume mapped / exclusive / shared figures, counted
 * by walking the mapping trees (metadata/thin/thin_walk.h): a data block
 * is exclusive to a volume when no other thin device maps it. (The data
 * space map cannot say this: a leaf shared by a snapshot and its origin
 * holds one reference for both.) Two walks: the first counts, per data
 * block, how many device mappings name it (saturating at 2); the second
 * sums each device's mapped and exclusive blocks and finds the end of its
 * highest mapping (thin_ls's HIGHEST_BLOCK + 1). Without exclusive,
 * mapped is the device details' mapped_blocks (pool_usage_details: the
 * kernel keeps it, and tpcheck checks it against the walk's count).
 *
 * Works on an open pool's committed metadata, or, for an active pool, on
 * the kernel's metadata snapshot read from the device (pool_live.c). */
#include "lib/pool/core/pool_usage.h"
#include "lib/pool/core/refcount2.h"

#include "lib/base/log.h"
#include "metadata/vg/vg.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct usage_walk {
	uint8_t *count;		/* 2 bits per data block: 0, 1, 2 = many */
	uint64_t nr_blocks;
	int pass;		/* 0 count, 1 sum, 2 details only */
	struct pool_dev_usage *devs;
	size_t nr, cap;
	struct pool_dev_usage *cur;
};

static int dev_begin(void *ctx, const struct thin_ir_device *d)
{
	struct usage_walk *w = ctx;

	if (w->pass == 0)
		return 0;
	if (w->nr == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct pool_dev_usage *n = realloc(w->devs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->devs = n;
		w->cap = cap;
	}
	w->cur = &w->devs[w->nr++];
	memset(w->cur, 0, sizeof(*w->cur));
	w->cur->dev_id = d->dev_id;
	if (w->pass == 2)
		w->cur->mapped = d->mapped_blocks;
	return 0;
}

static int mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct usage_walk *w = ctx;

	for (size_t i = 0; i < n; i++) {
		if (w->pass == 1 && runs[i].length &&
		    runs[i].origin_begin + runs[i].length > w->cur->highest_end)
			w->cur->highest_end = runs[i].origin_begin + runs[i].length;
		for (uint64_t k = 0; k < runs[i].length; k++) {
			uint64_t b = runs[i].data_begin + k;
			if (b >= w->nr_blocks)
				continue;	/* beyond the pool: tpcheck reports it */
			if (w->pass == 0) {
				refcount2_inc(w->count, b);
			} else {
				w->cur->mapped++;
				w->cur->exclusive += refcount2_get(w->count, b) == 1;
			}
		}
	}
	return 0;
}

size_t pool_usage_expect(const struct vg *vg)
{
	return vg ? (size_t)vg->nr_volumes + vg->nr_receives + vg->nr_removals + vg->nr_trash : 0;
}

/* W empty, with room for EXPECT devices (none when it cannot have it:
 * dev_begin grows it). */
static void usage_init(struct usage_walk *w, size_t expect)
{
	memset(w, 0, sizeof(*w));
	if (expect && (w->devs = malloc(expect * sizeof(*w->devs))))
		w->cap = expect;
}

int pool_usage_walk(walk_fn walk, void *arg, uint64_t nr_data_blocks, size_t expect,
		    struct pool_dev_usage **out, size_t *nr)
{
	struct usage_walk w;
	struct thin_ir_visitor v = { &w, NULL, NULL, dev_begin, NULL, mappings };
	int r;

	*out = NULL;
	*nr = 0;
	usage_init(&w, expect);
	w.nr_blocks = nr_data_blocks;
	w.count = calloc(nr_data_blocks / 4 + 1, 1);
	if (!w.count) {
		free(w.devs);
		return -ENOMEM;
	}
	r = walk(arg, &v);
	w.pass = 1;
	if (!r)
		r = walk(arg, &v);
	free(w.count);
	if (r) {
		free(w.devs);
		return r;
	}
	*out = w.devs;
	*nr = w.nr;
	return 0;
}

int pool_usage_details(walk_fn walk, void *arg, size_t expect, struct pool_dev_usage **out,
		       size_t *nr)
{
	struct usage_walk w;
	struct thin_ir_visitor v = { &w, NULL, NULL, dev_begin, NULL, NULL };
	int r;

	usage_init(&w, expect);
	w.pass = 2;	/* devices only: mapped from their details */
	r = walk(arg, &v);
	if (r) {
		free(w.devs);
		*out = NULL;
		*nr = 0;
		return r;
	}
	*out = w.devs;
	*nr = w.nr;
	return 0;
}

const struct pool_dev_usage *pool_usage_find(const struct pool_dev_usage *u, size_t n,
					     uint64_t dev_id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the walk visits devices in ascending order */
		size_t mid = (lo + hi) / 2;
		if (u[mid].dev_id == dev_id)
			return &u[mid];
		if (u[mid].dev_id < dev_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
