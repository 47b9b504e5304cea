/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_cursor.h - the read-only iteration of a whole btree, leaf entries
 * in key order, pulled one at a time. btree_ro_walk (btree_ro.h) drives it
 * through the block manager; the checker drives it straight from its
 * io_engine and walks a space map's overflow tree alongside its bitmaps.
 *
 * Nodes come from the caller's read function. Every node is judged by
 * btree_node_check() (the caller's leaf value size and rules); a node
 * that cannot be read, fails the check or lies deeper than
 * BTREE_MAX_DEPTH (a loop) is handed to the bad callback, which either
 * skips its subtree (the cursor goes on with the next sibling) or stops
 * the cursor. Nothing is logged here.
 *
 * Owns: one buffer of BTREE_MAX_DEPTH + 1 nodes (the path), freed by
 * btree_cursor_exit (NULL-safe, also after a failed init). */
#ifndef TP_PDATA_BTREE_CURSOR_H
#define TP_PDATA_BTREE_CURSOR_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/btree_node.h"

struct btree_cursor_ops {
	void *ctx;
	/* Read block B (4 KiB) into BUF: 0 or -errno. */
	int (*read)(void *ctx, uint64_t b, void *buf);
	/* Each valid node N at DEPTH (root 0), when entered. Non-zero stops
	 * the cursor with that value. May be NULL. */
	int (*node)(void *ctx, uint64_t b, const void *n, int depth);
	/* A node that cannot be used: ERR is the read error, -EUCLEAN with
	 * FAULT the validator's reason and N the node as read, or -ELOOP past
	 * the depth limit (N is NULL but for a fault). 0 skips
	 * its subtree, non-zero stops the cursor with that value. May be NULL
	 * (skip). */
	int (*bad)(void *ctx, uint64_t b, const void *n, int err, enum btree_node_fault fault);
};

struct btree_cursor {
	const struct btree_cursor_ops *ops;
	uint32_t leaf_vsize;
	unsigned rules;
	unsigned char *path;	/* one node per level */
	uint32_t idx[BTREE_MAX_DEPTH + 1];
	int depth;		/* -1: at the end */
	int err;		/* the value a callback stopped the cursor with */
	/* the current entry, after btree_cursor_next() returned 1 */
	uint64_t key;
	const void *value;	/* valid until the next call */
};

/* Start at ROOT; the first entry comes with the first btree_cursor_next().
 * 0 or -ENOMEM (the root's callbacks have run: see c->err). */
int btree_cursor_init(struct btree_cursor *c, const struct btree_cursor_ops *ops, uint64_t root,
		      uint32_t leaf_vsize, unsigned rules) TP_MUST_CHECK;
/* 1: c->key and c->value are the next entry (c->depth its leaf's depth);
 * 0: no more, or stopped by a callback (c->err non-zero). */
int btree_cursor_next(struct btree_cursor *c);
void btree_cursor_exit(struct btree_cursor *c);

#endif
