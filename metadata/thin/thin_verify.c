/* thin_verify.c - thin_verify_counts(): recompute every reference count
 * from the trees and compare with both space maps (format doc 4.5).
 * Metadata: superblock 1, metadata snapshot copy 1, every space-map block
 * 1, every mapping/details tree node = number of distinct references
 * (a shared parent counts once). Data: number of distinct bottom-level
 * leaf entries naming the block. */
#include "metadata/thin/thin_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/le.h"
#include "metadata/pdata/u64map.h"

enum tree_kind { T_TOP, T_BOTTOM, T_DETAILS };

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

static int count_tree(struct verify *v, uint64_t b, enum tree_kind kind, int depth)
{
	struct bm_block *blk;
	const unsigned char *n;
	uint64_t seen;
	int r;

	if (depth >= BTREE_MAX_DEPTH)
		return -EUCLEAN;
	if ((r = bump(&v->meta, b, &seen)) || seen)
		return r;	/* children already counted through the first reference */
	if ((r = tm_read_lock(v->md->tm, b, &btree_node_validator, &blk)))
		return r;
	n = bm_block_data(blk);
	for (uint32_t i = 0; i < bn_nr(n) && !r; i++) {
		if (!bn_is_leaf(n))
			r = count_tree(v, bn_value64(n, i), kind, depth + 1);
		else if (kind == T_TOP)
			r = count_tree(v, bn_value64(n, i), T_BOTTOM, 0);
		else if (kind == T_BOTTOM)
			r = bump(&v->data, thin_bt_block(bn_value64(n, i)), NULL);
	}
	tm_unlock(v->md->tm, blk);
	return r;
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
	if ((r = bump(&v.meta, 0, NULL)) ||
	    (r = count_tree(&v, md->sb.mapping_root, T_TOP, 0)) ||
	    (r = count_tree(&v, md->sb.details_root, T_DETAILS, 0)) ||
	    (r = sm_for_each_own_block(md->msm, count_own, &v)) ||
	    (r = sm_for_each_own_block(md->dsm, count_own, &v)))
		goto out;
	if (md->sb.held_root) {
		struct bm_block *blk;
		struct thin_sb snap;
		if ((r = bump(&v.meta, md->sb.held_root, NULL)) ||
		    (r = bm_read_lock(md->bm, md->sb.held_root, &thin_sb_validator, &blk)))
			goto out;
		thin_sb_unpack(bm_block_data(blk), &snap);
		bm_unlock(blk);
		if ((r = count_tree(&v, snap.mapping_root, T_TOP, 0)) ||
		    (r = count_tree(&v, snap.details_root, T_DETAILS, 0)))
			goto out;
	}
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
