/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_verify.c - thin_verify_counts(): recompute every reference count
 * from the trees and compare with both space maps (format doc 4.5).
 * Metadata: superblock 1, metadata snapshot copy 1, every space-map block
 * 1, every mapping/details tree node = number of distinct references
 * (a shared parent counts once). Data: number of distinct bottom-level
 * leaf entries naming the block. The trees are counted by a node visitor
 * of the one walker (thin_walk.h) over the committed metadata. */
#include "metadata/thin/thin_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/thin_walk.h"

struct verify {
	struct thin_md *md;
	struct u64map meta, data;
	int errors;
	int (*fn)(void *ctx, const struct thin_count_diff *d);	/* NULL: log */
	void *ctx;
	int fix;
};

static int report(struct verify *v, const struct thin_count_diff *d)
{
	const char *what = d->data ? "data" : "metadata";

	v->errors++;
	if (v->fix) {
		if (d->beyond_end) {
			log_error("%s block %" PRIu64 " is referenced but beyond the end", what,
				  d->block);
			return -EUCLEAN;
		}
		return sm_set(d->data ? v->md->dsm : v->md->msm, d->block, (uint32_t)d->expected);
	}
	if (v->fn)
		return v->fn(v->ctx, d);
	if (v->errors > 32)
		return 0;
	if (d->beyond_end)
		log_error("%s block %" PRIu64 " is referenced but beyond the end", what, d->block);
	else
		log_error("%s block %" PRIu64 ": reference count %" PRIu32 ", expected %" PRIu64,
			  what, d->block, d->got, d->expected);
	return 0;
}

static int bump(struct u64map *m, uint64_t b, uint64_t *old)
{
	uint64_t v = 0;

	u64map_get(m, b, &v);
	if (old)
		*old = v;
	return u64map_put(m, b, v + 1);
}

/* The walker's node visitor: a node seen before is THIN_WALK_SEEN, so
 * the nodes below a shared node are counted once. */
static int count_node(void *ctx, const struct thin_walk_node *wn)
{
	struct verify *v = ctx;
	uint64_t seen;
	int r;

	if ((r = bump(&v->meta, wn->block, &seen)) || seen)
		return r ? r : THIN_WALK_SEEN;
	if (wn->tree != THIN_TREE_MAPPINGS || !bn_is_leaf(wn->node))
		return 0;
	for (uint32_t i = 0; i < bn_nr(wn->node) && !r; i++)
		r = bump(&v->data, thin_bt_block(bn_value64(wn->node, i)), NULL);
	return r;
}

static int count_trees(struct verify *v, unsigned flags)
{
	const struct thin_ir_visitor nothing = { 0 };
	const struct thin_node_visitor nv = { v, count_node };

	return thin_walk_nodes(v->md->io, flags, &nothing, NULL, &nv);
}

static int count_own(void *ctx, uint64_t b)
{
	return bump(&((struct verify *)ctx)->meta, b, NULL);
}

static int compare(struct verify *v, struct space_map *sm, struct u64map *want, int data)
{
	uint64_t nr = sm_nr_blocks(sm), exp, k, val;
	size_t pos = 0;
	uint32_t got;
	int r;

	for (uint64_t b = 0; b < nr; b++) {
		exp = 0;
		u64map_get(want, b, &exp);
		if ((r = sm_get(sm, b, &got)))
			return r;
		if (got != exp) {
			struct thin_count_diff d = { data, b, got, exp, 0 };
			if ((r = report(v, &d)))
				return r;
		}
	}
	while (u64map_next(want, &pos, &k, &val)) {
		if (k >= nr) {
			struct thin_count_diff d = { data, k, 0, val, 1 };
			if ((r = report(v, &d)))
				return r;
		}
	}
	return 0;
}

static int verify(struct verify *v0)
{
	struct verify v = *v0;
	struct thin_md *md = v.md;
	int r;

	if (md->changed) {
		log_error("checking reference counts: uncommitted changes");
		return -EBUSY;
	}
	u64map_init(&v.meta);
	u64map_init(&v.data);
	if ((r = bump(&v.meta, 0, NULL)) || (r = count_trees(&v, 0)) ||
	    (r = sm_for_each_own_block(md->msm, count_own, &v)) ||
	    (r = sm_for_each_own_block(md->dsm, count_own, &v)))
		goto out;
	if (md->sb.held_root &&
	    ((r = bump(&v.meta, md->sb.held_root, NULL)) ||
	     (r = count_trees(&v, THIN_WALK_METADATA_SNAP))))
		goto out;
	if ((r = compare(&v, md->msm, &v.meta, 0)) || (r = compare(&v, md->dsm, &v.data, 1)))
		goto out;
	if (v.errors && !v.fix)
		r = -EUCLEAN;
out:
	u64map_destroy(&v.meta);
	u64map_destroy(&v.data);
	return r;
}

int thin_verify_counts(struct thin_md *md)
{
	struct verify v = { md };
	return verify(&v);
}

int thin_verify_counts_cb(struct thin_md *md,
			  int (*fn)(void *ctx, const struct thin_count_diff *d), void *ctx)
{
	struct verify v = { md };

	v.fn = fn;
	v.ctx = ctx;
	return verify(&v);
}

int thin_fix_counts(struct thin_md *md)
{
	struct verify v = { md };
	int r;

	if (md->flags & THIN_RDONLY)
		return -EROFS;
	v.fix = 1;
	r = verify(&v);
	if (!r && v.errors)
		md->changed = 1;
	return r;
}
