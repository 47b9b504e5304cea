/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree.h - copy-on-write btrees of u64 keys and fixed-size values, over
 * the transaction manager.
 *
 * The btree knows nothing of what values mean: the caller's value type
 * says how to take (inc) and drop (dec) the references a value holds, so
 * that shadowing a shared node takes one reference on everything the copy
 * points to (internal nodes: their children, in the metadata space map;
 * leaves: vt.inc on each value). This makes snapshots O(1).
 *
 * Shape: every non-root node keeps at least max_entries/3 entries (the
 * kernel's and thin_check's rule): insert splits full nodes top-down (one
 * into two, halves); remove merges or redistributes an underfull child with
 * a sibling before descending, and a root left with one child is replaced
 * by that child.
 *
 * Roots: every modifying call takes the current root and returns the new
 * one (the root moves when shadowed). The caller owns the reference to
 * the root. Returns 0 or -errno; absent keys -ENODATA; corrupt nodes
 * -EUCLEAN (logged with the block). */
#ifndef TP_PDATA_BTREE_H
#define TP_PDATA_BTREE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/transaction_manager.h"

struct btree_value_type {
	uint32_t size;
	void *ctx;
	int (*inc)(void *ctx, const void *value);	/* may be NULL */
	int (*dec)(void *ctx, const void *value);	/* may be NULL */
};

struct btree_info {
	struct tm *tm;
	struct btree_value_type vt;
};

enum btree_insert_flags {
	BTREE_KEEP_OLD_REF = 1 << 0,	/* overwrite without vt.dec of the old value */
};

int btree_empty(const struct btree_info *info, uint64_t *root) TP_MUST_CHECK;
int btree_lookup(const struct btree_info *info, uint64_t root, uint64_t key, void *value);
/* The smallest key >= KEY (-ENODATA if none). */
int btree_lookup_ge(const struct btree_info *info, uint64_t root, uint64_t key,
		    uint64_t *found, void *value);
/* Insert or overwrite. The new value's references become the tree's (no
 * vt.inc); an overwritten value gets vt.dec unless BTREE_KEEP_OLD_REF.
 * INSERTED (may be NULL): 1 new key, 0 overwrite. */
int btree_insert(const struct btree_info *info, uint64_t root, uint64_t key, const void *value,
		 uint64_t *new_root, int *inserted, unsigned flags) TP_MUST_CHECK;
/* Remove KEY (vt.dec on its value). */
int btree_remove(const struct btree_info *info, uint64_t root, uint64_t key,
		 uint64_t *new_root) TP_MUST_CHECK;
/* Remove KEYS[0] and as many of the following (ascending) keys as lie in
 * the same leaf and can go without a rebalance: *DONE of them, at least 1
 * on success (a caller removing many sorted keys shadows each path once).
 * -ENODATA when KEYS[0] is absent (*DONE 0, nothing changes). */
int btree_remove_run(const struct btree_info *info, uint64_t root, const uint64_t *keys,
		     size_t nr_keys, uint64_t *new_root, size_t *done) TP_MUST_CHECK;
/* Drop one reference to the tree at ROOT; the last one frees its nodes and
 * calls vt.dec on every value (shared subtrees are only decremented). */
int btree_del(const struct btree_info *info, uint64_t root) TP_MUST_CHECK;
/* Every entry in key order; FN's non-zero return stops the walk. */
int btree_walk(const struct btree_info *info, uint64_t root,
	       int (*fn)(void *ctx, uint64_t key, const void *value), void *ctx);
/* Every leaf in key order, whole: FN reads its entries with btree_node.h's
 * accessors (a caller that takes a leaf's entries in one loop, as an open
 * takes 20,000 devices); FN's non-zero return stops the walk. */
int btree_walk_leaves(const struct btree_info *info, uint64_t root,
		      int (*fn)(void *ctx, const void *leaf), void *ctx);
/* The number of entries (the leaves' entries): every node is read and
 * validated as btree_walk would, so that a caller sizes what the walk
 * fills once. */
int btree_count(const struct btree_info *info, uint64_t root, uint64_t *n) TP_MUST_CHECK;

#endif
