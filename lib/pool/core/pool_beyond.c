/* pool_beyond.c - the chunks mapped at or beyond the end of their volume
 * (core.h): found by a walk of the committed thin metadata, unmapped
 * in the open thin transaction. tvresize --force unmaps them after a
 * shrink; the replay of an interrupted transaction (pool_txn.c) unmaps
 * whatever such a shrink left, before a grow could show it again. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int beyond_device(void *ctx, const struct thin_ir_device *d)
{
	struct pool_beyond *b = ctx;
	const struct vg_volume *v = vg_find_dev_id(b->vg, (uint32_t)d->dev_id);

	b->cur = d->dev_id;
	b->first = UINT64_MAX;
	if (v && (b->all || d->dev_id == b->dev_id))
		b->first = (v->size + b->chunk - 1) / b->chunk;
	return 0;
}

static int beyond_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct pool_beyond *b = ctx;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = runs[i].origin_begin > b->first ? runs[i].origin_begin : b->first;

		for (; v < runs[i].origin_begin + runs[i].length; v++) {
			if (b->n == b->alloc) {
				size_t na = b->alloc ? b->alloc * 2 : 256;
				void *nv = realloc(b->found, na * sizeof(*b->found));
				if (!nv)
					return -ENOMEM;
				b->found = nv;
				b->alloc = na;
			}
			b->found[b->n].dev_id = b->cur;
			b->found[b->n++].vblock = v;
		}
	}
	return 0;
}

int pool_find_beyond(struct pool *p, const struct vg *vg, int all, uint32_t dev_id,
		     struct pool_beyond *b)
{
	const struct thin_ir_visitor vis = { .ctx = b, .device_begin = beyond_device,
					     .mappings = beyond_mappings };
	int r;

	memset(b, 0, sizeof(*b));
	b->vg = vg;
	b->chunk = (uint64_t)vg->chunk_size * 512;
	b->all = all;
	b->dev_id = dev_id;
	r = thin_walk(p->md, 0, &vis);
	if (r)
		log_error("pool %s: cannot read its mappings: %s", p->name, strerror(-r));
	return r;
}

void pool_beyond_free(struct pool_beyond *b)
{
	free(b->found);
	b->found = NULL;
	b->n = b->alloc = 0;
}

int pool_unmap_beyond(struct pool *p, const void *arg)
{
	const struct pool_beyond *b = arg;

	for (size_t i = 0; i < b->n; i++) {
		int r = thin_remove_mapping(p->md, b->found[i].dev_id, b->found[i].vblock);
		if (r) {
			log_error("pool %s: cannot unmap block %llu of thin device %llu: %s",
				  p->name, (unsigned long long)b->found[i].vblock,
				  (unsigned long long)b->found[i].dev_id, strerror(-r));
			return r;
		}
	}
	return 0;
}

int pool_unmap_beyond_ends(struct pool *p)
{
	struct pool_beyond b;
	int r = pool_find_beyond(p, p->vg, 1, 0, &b);

	if (!r && b.n) {
		r = pool_unmap_beyond(p, &b);
		if (!r)
			log_warn("pool %s: completed the interrupted shrink: %zu chunks beyond the "
				 "end of their volumes unmapped", p->name, b.n);
	}
	pool_beyond_free(&b);
	return r;
}
