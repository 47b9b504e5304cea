/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_ro.c - validated read-only walk through the block manager, on the
 * pdata cursor (btree_cursor.h). See btree_ro.h. */
#include "metadata/pdata/btree_ro.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_cursor.h"

struct walk {
	struct block_manager *bm;
	uint32_t vsize;
	const struct btree_ro_visit *v;
	int leaf_depth;
};

/* Through the block manager: its validator checks (and logs) location and
 * checksum once per cached block. */
static int walk_read(void *ctx, uint64_t b, void *buf)
{
	struct walk *w = ctx;
	struct bm_block *blk;
	int r = bm_read_lock(w->bm, b, &btree_node_validator, &blk);

	if (r)
		return r;
	memcpy(buf, bm_block_data(blk), BM_BLOCK_SIZE);
	bm_unlock(blk);
	return 0;
}

static int walk_node(void *ctx, uint64_t b, const void *n, int depth)
{
	struct walk *w = ctx;

	if (bn_is_leaf(n)) {
		if (w->leaf_depth < 0)
			w->leaf_depth = depth;
		if (w->leaf_depth != depth) {
			log_error("btree node %" PRIu64 ": leaf at depth %d, others at %d", b, depth,
				  w->leaf_depth);
			return -EUCLEAN;
		}
	}
	return w->v->node ? w->v->node(w->v->ctx, b) : 0;
}

/* The first bad node stops the walk, logged. */
static int walk_bad(void *ctx, uint64_t b, const void *n, int err, enum btree_node_fault f)
{
	struct walk *w = ctx;

	(void)f;
	if (err == -ELOOP) {
		log_error("btree node %" PRIu64 ": tree deeper than %d levels (a loop?)", b,
			  BTREE_MAX_DEPTH);
		return -EUCLEAN;
	}
	if (n)
		btree_node_check_log(n, b, w->vsize, BTREE_RULE_KEY_ORDER | BTREE_RULE_HEADER_DONE);
	return err;	/* a read error was logged by the block manager */
}

int btree_ro_walk(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize,
		  const struct btree_ro_visit *v)
{
	struct walk w = { bm, leaf_vsize, v, -1 };
	const struct btree_cursor_ops ops = { &w, walk_read, walk_node, walk_bad };
	struct btree_cursor c;
	int r = btree_cursor_init(&c, &ops, root, leaf_vsize,
				  BTREE_RULE_KEY_ORDER | BTREE_RULE_HEADER_DONE);

	while (!r && !c.err && btree_cursor_next(&c))
		if (v->leaf_entry)
			r = v->leaf_entry(v->ctx, c.key, c.value);
	if (!r)
		r = c.err;
	btree_cursor_exit(&c);
	return r;
}

int btree_ro_lookup(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize, uint64_t key,
		    void *value, void *leaf)
{
	return btree_ro_lookup_path(bm, root, leaf_vsize, key, value, leaf, NULL, NULL);
}

int btree_ro_lookup_path(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize,
			 uint64_t key, void *value, void *leaf, uint64_t *path, unsigned *depth_out)
{
	uint64_t b = root;

	for (int depth = 0; depth < BTREE_MAX_DEPTH; depth++) {
		struct bm_block *blk;
		const unsigned char *n;
		int i, r = bm_read_lock(bm, b, &btree_node_validator, &blk);

		if (r)
			return r;
		if (path) {
			path[depth] = b;
			*depth_out = (unsigned)depth + 1;
		}
		n = bm_block_data(blk);
		if ((r = btree_node_check_log(n, b, leaf_vsize,
					      BTREE_RULE_NONEMPTY | BTREE_RULE_HEADER_DONE))) {
			bm_unlock(blk);
			return r;
		}
		i = bn_lower_bound(n, key);
		if (bn_is_leaf(n)) {
			r = i >= 0 && bn_key(n, (uint32_t)i) == key ? 0 : -ENODATA;
			if (!r)
				memcpy(value, bn_value(n, (uint32_t)i), leaf_vsize);
			if (leaf)
				memcpy(leaf, n, BM_BLOCK_SIZE);
			bm_unlock(blk);
			return r;
		}
		if (i < 0) {
			bm_unlock(blk);
			return -ENODATA;
		}
		b = bn_value64(n, (uint32_t)i);
		bm_unlock(blk);
	}
	log_error("btree node %" PRIu64 ": tree deeper than %d levels (a loop?)", b, BTREE_MAX_DEPTH);
	return -EUCLEAN;
}
