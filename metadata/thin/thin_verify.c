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
};

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

static int compare(struct verify *v, struct space_map *sm, struct u64map *want, const char *what)
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
			if (v->errors++ < 32)
				log_error("%s block %" PRIu64 ": reference count %" PRIu32
					  ", expected %" PRIu64, what, b, got, exp);
		}
	}
	while (u64map_next(want, &pos, &k, &val)) {
		if (k >= nr) {
			if (v->errors++ < 32)
				log_error("%s block %" PRIu64 " is referenced but beyond the end (%"
					  PRIu64 " blocks)", what, k, nr);
		}
	}
	return 0;
}

int thin_verify_counts(struct thin_md *md)
{
	struct verify v = { md };
	int r;

	if (md->changed) {
		log_error("thin_verify_counts: uncommitted changes");
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
	if ((r = compare(&v, md->msm, &v.meta, "metadata")) ||
	    (r = compare(&v, md->dsm, &v.data, "data")))
		goto out;
	if (v.errors)
		r = -EUCLEAN;
out:
	u64map_destroy(&v.meta);
	u64map_destroy(&v.data);
	return r;
}
