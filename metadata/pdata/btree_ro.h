/* btree_ro.h - read-only walk of a whole btree straight through the block
 * manager (no transaction manager needed: the space maps use it to load
 * their index and overflow trees). Every node is validated: checksum, own
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

#endif
