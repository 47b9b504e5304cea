/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_ro.h - read-only walk of a whole btree, and lookup of one key,
 * straight through the block manager (no transaction manager needed: the
 * space maps use them for their index and ref-count trees). Every node is validated: checksum, own
 * block number, bounds, key order, leaf value size, equal leaf depth and
 * a depth limit (which also stops loops). Errors: -EUCLEAN, logged. */
#ifndef TP_PDATA_BTREE_RO_H
#define TP_PDATA_BTREE_RO_H

#include <stdint.h>

#include "metadata/pdata/block_manager.h"

struct btree_ro_visit {
	void *ctx;
	/* every entry of every leaf, in key order; non-zero stops */
	int (*leaf_entry)(void *ctx, uint64_t key, const void *value);
	/* every node (block), before its entries; may be NULL */
	int (*node)(void *ctx, uint64_t block);
};

int btree_ro_walk(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize,
		  const struct btree_ro_visit *v);

/* The value of KEY (LEAF_VSIZE bytes into VALUE): 0, -ENODATA when absent,
 * -EUCLEAN (logged) on a bad node on the way. LEAF (may be NULL) receives
 * a copy of the leaf the search ended in, when it reached one: every key
 * from its first to its last is answered by it (a caller's cache). */
int btree_ro_lookup(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize, uint64_t key,
		    void *value, void *leaf);
/* The same, with the blocks of the nodes on the way, root first, into
 * PATH (BTREE_MAX_DEPTH of them) and their number into *DEPTH (both NULL:
 * btree_ro_lookup). */
int btree_ro_lookup_path(struct block_manager *bm, uint64_t root, uint32_t leaf_vsize,
			 uint64_t key, void *value, void *leaf, uint64_t *path, unsigned *depth);

#endif
