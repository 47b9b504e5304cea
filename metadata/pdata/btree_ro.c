/* btree_ro.c - validated read-only walk. See btree_ro.h. */
#include "metadata/pdata/btree_ro.h"

#include <errno.h>
#include <inttypes.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"

struct walk {
	struct block_manager *bm;
	uint32_t vsize;
	const struct btree_ro_visit *v;
	int leaf_depth;
};

static int walk(struct walk *w, uint64_t b, int depth)
{
	struct bm_block *blk;
	const unsigned char *n;
	int r;

	if (depth >= BTREE_MAX_DEPTH) {
		log_error("btree node %" PRIu64 ": tree deeper than %d levels (a loop?)", b,
			  BTREE_MAX_DEPTH);
		return -EUCLEAN;
	}
	if ((r = bm_read_lock(w->bm, b, &btree_node_validator, &blk)))
		return r;
	n = bm_block_data(blk);
	if ((r = btree_node_check_log(n, b, w->vsize,
					 BTREE_RULE_KEY_ORDER | BTREE_RULE_HEADER_DONE)))
		goto out;
	if (w->v->node && (r = w->v->node(w->v->ctx, b)))
		goto out;
	if (bn_is_leaf(n)) {
		if (w->leaf_depth < 0)
			w->leaf_depth = depth;
		if (w->leaf_depth != depth) {
			log_error("btree node %" PRIu64 ": leaf at depth %d, others at %d", b, depth,
				  w->leaf_depth);
			r = -EUCLEAN;
			goto out;
		}
		for (uint32_t i = 0; i < bn_nr(n) && !r; i++)
			if (w->v->leaf_entry)
				r = w->v->leaf_entry(w->v->ctx, bn_key(n, i), bn_value(n, i));
	} else {
		for (uint32_t i = 0; i < bn_nr(n) && !r; i++)
			r = walk(w, bn_value64(n, i), depth + 1);
	}
out:
	bm_unlock(blk);
	return r;
}

int btree_ro_walk(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize,
		  const struct btree_ro_visit *v)
{
	struct walk w = { bm, leaf_vsize, v, -1 };
	return walk(&w, root, 0);
}
