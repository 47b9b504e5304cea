/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_node.h - the on-disk btree node (dm-btree-internal.h layout):
 *
 *   0  u32 csum (salt 121107, over bytes 4..4095)
 *   4  u32 flags (1 internal, 2 leaf)
 *   8  u64 blocknr (own location)
 *  16  u32 nr_entries
 *  20  u32 max_entries ((4096-32)/(8+value_size) rounded down to a multiple of 3)
 *  24  u32 value_size (8 in internal nodes)
 *  28  u32 padding
 *  32  u64 keys[max_entries], then values[max_entries] of value_size bytes.
 *
 * Owns the node accessors and the one node validator, btree_node_check():
 * every reader of nodes (the block manager's validator, the read-only
 * walk, the thin walker, the checker, the salvage) judges a node block
 * through it and reports its reason. Header only apart from the validator. */
#ifndef TP_PDATA_BTREE_NODE_H
#define TP_PDATA_BTREE_NODE_H

#include <stdint.h>
#include <string.h>

#include "metadata/pdata/block_manager.h"
#include "lib/base/le.h"

#define BTREE_CSUM_XOR 121107u
#define BTREE_NODE_INTERNAL 1u
#define BTREE_NODE_LEAF 2u
#define BTREE_HEADER_SIZE 32u
#define BTREE_MAX_DEPTH 16	/* deeper than any real tree: a loop */

/* The block manager's validator: btree_node_check() with no extra rules
 * and any leaf value size, logging the fault (btree_node_check_log). */
extern const struct bm_validator btree_node_validator;

static inline uint32_t btree_max_entries(uint32_t value_size)
{
	return (BM_BLOCK_SIZE - BTREE_HEADER_SIZE) / (8 + value_size) / 3 * 3;
}

static inline uint32_t bn_flags(const void *n) { return le32_get((const char *)n + 4); }
static inline uint32_t bn_nr(const void *n) { return le32_get((const char *)n + 16); }
static inline uint32_t bn_max(const void *n) { return le32_get((const char *)n + 20); }
static inline uint32_t bn_vsize(const void *n) { return le32_get((const char *)n + 24); }
static inline int bn_is_leaf(const void *n) { return bn_flags(n) == BTREE_NODE_LEAF; }
static inline void bn_set_nr(void *n, uint32_t v) { le32_put((char *)n + 16, v); }
static inline void bn_set_flags(void *n, uint32_t v) { le32_put((char *)n + 4, v); }

static inline uint64_t bn_key(const void *n, uint32_t i)
{
	return le64_get((const char *)n + BTREE_HEADER_SIZE + 8 * (size_t)i);
}

static inline void bn_set_key(void *n, uint32_t i, uint64_t k)
{
	le64_put((char *)n + BTREE_HEADER_SIZE + 8 * (size_t)i, k);
}

static inline char *bn_value(const void *n, uint32_t i)
{
	return (char *)n + BTREE_HEADER_SIZE + 8 * (size_t)bn_max(n) + (size_t)i * bn_vsize(n);
}

static inline uint64_t bn_value64(const void *n, uint32_t i)
{
	return le64_get(bn_value(n, i));
}

static inline void bn_set_value64(void *n, uint32_t i, uint64_t v)
{
	le64_put(bn_value(n, i), v);
}

/* Zero the block and write an empty node header. */
static inline void bn_init(void *n, uint32_t flags, uint32_t value_size)
{
	memset(n, 0, BM_BLOCK_SIZE);
	le32_put((char *)n + 4, flags);
	le32_put((char *)n + 20, btree_max_entries(value_size));
	le32_put((char *)n + 24, value_size);
}

/* Index of the last key <= KEY, or -1 (binary search). */
static inline int bn_lower_bound(const void *n, uint64_t key)
{
	int lo = -1, hi = (int)bn_nr(n);	/* key[lo] <= key < key[hi] */

	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (bn_key(n, (uint32_t)mid) <= key)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Set blocknr and checksum (the validator's prepare). */
void btree_node_prepare(void *n, uint64_t b);

/* What is wrong with a node block, in the order btree_node_check() looks. */
enum btree_node_fault {
	BTREE_NODE_OK = 0,
	BTREE_NODE_WRONG_BLOCKNR,	/* own location is not B */
	BTREE_NODE_BAD_CSUM,		/* crc32c (salt BTREE_CSUM_XOR) */
	BTREE_NODE_BAD_FLAGS,		/* neither internal nor leaf */
	BTREE_NODE_WRONG_VSIZE,		/* internal: 8; leaf: the expected size */
	BTREE_NODE_BAD_MAX,		/* max_entries 0 or beyond the block */
	BTREE_NODE_NR_ABOVE_MAX,	/* nr_entries > max_entries */
	BTREE_NODE_EMPTY_INTERNAL,	/* BTREE_RULE_NONEMPTY */
	BTREE_NODE_KEY_ORDER,		/* BTREE_RULE_KEY_ORDER */
	BTREE_NODE_NONSTANDARD_MAX,	/* BTREE_RULE_STD_MAX */
};

/* Rules beyond what the kernel checks on every read. */
enum btree_node_rules {
	BTREE_RULE_NONEMPTY = 1 << 0,	/* an internal node has entries */
	BTREE_RULE_KEY_ORDER = 1 << 1,	/* keys strictly increasing */
	BTREE_RULE_STD_MAX = 1 << 2,	/* max_entries == btree_max_entries(value size) */
	/* location and checksum were verified when the block was read (the
	 * block manager's validator): skip them, the rest is cheap */
	BTREE_RULE_HEADER_DONE = 1 << 3,
};

/* The one node validator: own block number, checksum, flags exactly
 * internal or leaf, value size (8 in internal nodes; LEAF_VSIZE in leaves,
 * any non-zero size when LEAF_VSIZE is 0), max_entries non-zero and within
 * the block, nr_entries <= max_entries, then the RULES asked for. Returns
 * 0, or -EUCLEAN with *FAULT (may be NULL) set; logs nothing, so callers
 * report the reason their own way (btree_node_fault_str). */
int btree_node_check(const void *n, uint64_t b, uint32_t leaf_vsize, unsigned rules,
		     enum btree_node_fault *fault);
/* A short static description ("bad checksum", "keys out of order", ...). */
const char *btree_node_fault_str(enum btree_node_fault f);
/* btree_node_check() that logs "btree node B: ..." on a fault. */
int btree_node_check_log(const void *n, uint64_t b, uint32_t leaf_vsize, unsigned rules);

#endif
