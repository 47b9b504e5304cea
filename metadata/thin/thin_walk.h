/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_walk.h - the metadata walker: committed on-disk metadata ->
 * struct thin_ir_visitor (thin_ir.h). Shared by tpdump (-> XML), tpcheck
 * (-> checks, with a damage visitor) and tprepair (-> thin_builder).
 *
 * It reads the superblock (or, with THIN_WALK_METADATA_SNAP, the held
 * metadata-snapshot copy), the device details tree and the two-level
 * mapping tree, and drives the visitor in the order thin_ir.h specifies:
 * devices in ascending dev_id, each device's mappings in per-leaf batches
 * of runs (consecutive virtual and data blocks with equal time are merged
 * within a leaf only; emitters merge across batches themselves). The
 * batch buffer is reused; visitors must copy what they keep.
 *
 * Reads go straight to the io_engine in large sequential chunks (leaves
 * are fetched in batches sorted by block number, read and validated on a
 * second thread while the walk processes the previous batch: the engine's
 * read must allow calls from another thread, as every io engine does);
 * nothing is allocated per mapping, and memory stays bounded however large
 * a tree is. Visitors are called from the calling thread only. Every node is validated by the one node validator
 * (btree_node_check: checksum, own block number, bounds, key order, value
 * size, non-empty internal nodes) plus the key range its parent allows,
 * equal leaf depth and a depth limit (loops). A node visitor
 * (thin_walk_nodes) sees every valid node, for counting references.
 *
 * Errors: without a damage visitor the first bad node stops the walk with
 * -EUCLEAN (block number logged); with one, the bad node's lost key range
 * is reported and the walk goes on (the affected device is still visited,
 * minus the lost range). Visitor errors are passed up unchanged. */
#ifndef TP_THIN_WALK_H
#define TP_THIN_WALK_H

#include <stdint.h>

#include "lib/base/io.h"
#include "metadata/thin/thin_ir.h"

struct thin_md;

enum thin_walk_flags {
	THIN_WALK_METADATA_SNAP = 1 << 0,	/* walk the held snapshot; -ENODATA if none */
	THIN_WALK_SKIP_MAPPINGS = 1 << 1,	/* devices only, no mappings callback */
	/* with SKIP_MAPPINGS: still read and validate the root node of every
	 * device's mapping tree (damage and node visitors see it) */
	THIN_WALK_MAPPING_ROOTS = 1 << 2,
};

enum thin_damage_kind {
	THIN_DAMAGE_SUPERBLOCK,	/* fatal: nothing could be walked */
	THIN_DAMAGE_DETAILS,	/* details tree: dev ids [begin, end) lost */
	THIN_DAMAGE_TOP,	/* top-level mapping tree: dev ids [begin, end) lost */
	THIN_DAMAGE_MAPPINGS,	/* dev_id's bottom tree: vblocks [begin, end) lost */
	THIN_DAMAGE_MISMATCH,	/* dev_id in one of details/top-level tree only */
};

struct thin_damage {
	enum thin_damage_kind kind;
	uint64_t dev_id;
	uint64_t begin, end;	/* lost key range, end exclusive (UINT64_MAX = open) */
	uint64_t block;		/* the bad node */
	int err;		/* -EUCLEAN, -EIO, ... */
	const char *what;	/* short description ("bad checksum", ...) */
	int seen;		/* below a node the node visitor answered THIN_WALK_SEEN */
};

struct thin_damage_visitor {
	void *ctx;
	/* Return 0 to go on, non-zero to stop the walk with that value. */
	int (*damage)(void *ctx, const struct thin_damage *d);
};

enum thin_tree { THIN_TREE_DETAILS, THIN_TREE_TOP, THIN_TREE_MAPPINGS };

/* A node the walker read and validated. */
struct thin_walk_node {
	enum thin_tree tree;
	uint64_t dev_id;	/* THIN_TREE_MAPPINGS: the device */
	uint64_t block;
	const unsigned char *node;	/* the 4 KiB node (btree_node.h accessors) */
	int is_root;
};

/* device_begin: walk not this device's mapping tree (not even its root);
 * device_end is still called */
#define THIN_WALK_SKIP_DEVICE 2
#define THIN_WALK_SEEN 1	/* node visitor: the node's subtree was seen before */

/* Sees every valid node on each reference to it (a child slot, a
 * top-level value naming a mapping root, a superblock root), the order
 * being the walk's. Returning THIN_WALK_SEEN keeps the nodes below it
 * from the visitor on this path (the walk still goes there for the
 * other visitors): a visitor that counts references sees each node
 * exactly once per reference from a node it did not skip. Non-zero
 * otherwise stops the walk. */
struct thin_node_visitor {
	void *ctx;
	int (*node)(void *ctx, const struct thin_walk_node *n);
};

/* Walk committed metadata on META directly (no thin_md needed). DV may be
 * NULL. */
int thin_walk_io(struct io_engine *meta, unsigned flags, const struct thin_ir_visitor *v,
		 const struct thin_damage_visitor *dv);
/* The same with a node visitor (NV may be NULL). */
int thin_walk_nodes(struct io_engine *meta, unsigned flags, const struct thin_ir_visitor *v,
		    const struct thin_damage_visitor *dv, const struct thin_node_visitor *nv);
/* Walk MD's committed state; -EBUSY while MD has uncommitted changes. */
int thin_walk(struct thin_md *md, unsigned flags, const struct thin_ir_visitor *v);

#endif
