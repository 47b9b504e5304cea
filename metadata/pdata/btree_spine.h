/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_spine.h - the two ways a btree operation holds nodes, as distinct
 * types so the compiler catches a write through a read lock:
 *
 *   struct ro_node / struct ro_spine: read locks, node data is const.
 *     A lookup walks down an ro_spine holding at most parent + child.
 *   struct rw_node / struct shadow_spine: nodes shadowed (copy-on-write)
 *     or new in this transaction, writable. A modifying walk goes down a
 *     shadow_spine: each step shadows the child (taking references on its
 *     children if it was shared) and releases the grandparent; the first
 *     step's location is the tree's new root.
 *
 * Internal to metadata/pdata/btree*.c. Functions return 0 or -errno. */
#ifndef TP_PDATA_BTREE_SPINE_H
#define TP_PDATA_BTREE_SPINE_H

#include <stdint.h>

#include "metadata/pdata/btree.h"

struct ro_node {
	struct bm_block *blk;
	const unsigned char *n;
};

struct rw_node {
	struct bm_block *blk;
	unsigned char *n;
	uint64_t loc;
};

int btree_ro_lock(const struct btree_info *info, uint64_t b, struct ro_node *out) TP_MUST_CHECK;
void btree_ro_unlock(const struct btree_info *info, struct ro_node *nd);
/* Shadow B (I5 of the transaction manager: a shared node's children gain a
 * reference). */
int btree_rw_shadow(const struct btree_info *info, uint64_t b, struct rw_node *out) TP_MUST_CHECK;
/* A new empty node of the given kind (value size 8 for internal nodes). */
int btree_rw_new(const struct btree_info *info, uint32_t flags, struct rw_node *out) TP_MUST_CHECK;
void btree_rw_unlock(const struct btree_info *info, struct rw_node *nd);

struct ro_spine {
	const struct btree_info *info;
	struct ro_node nodes[2];
	int count;
	int depth;
};

void btree_ro_spine_init(struct ro_spine *s, const struct btree_info *info);
/* Lock B as the new current node (checks the depth limit: a loop). */
int btree_ro_step(struct ro_spine *s, uint64_t b) TP_MUST_CHECK;
const unsigned char *btree_ro_current(struct ro_spine *s);
void btree_ro_spine_exit(struct ro_spine *s);

struct shadow_spine {
	const struct btree_info *info;
	struct rw_node nodes[2];
	int count;
	int depth;
	uint64_t root;		/* location of the first node shadowed */
};

void btree_shadow_spine_init(struct shadow_spine *s, const struct btree_info *info);
int btree_shadow_step(struct shadow_spine *s, uint64_t b) TP_MUST_CHECK;
struct rw_node *btree_shadow_current(struct shadow_spine *s);
struct rw_node *btree_shadow_parent(struct shadow_spine *s);	/* NULL at the root */
/* Make NODE (already locked) the current node, unlocking the old one. */
void btree_shadow_replace_current(struct shadow_spine *s, struct rw_node *node);
void btree_shadow_spine_exit(struct shadow_spine *s);

#endif
