/* SPDX-License-Identifier: GPL-2.0-or-later */
/* delta.h - the delta walker: where two thin devices' mappings differ,
 * read from committed metadata (or its held metadata snapshot) on an
 * io_engine, without a thin_md.
 *
 * Both mapping trees are walked together in key order. Whenever both
 * sides stand at a subtree with the same block number (a subtree shared
 * since a snapshot), its content is equal on both sides: with
 * THIN_DELTA_SKIP_SHARED it is reported as one THIN_DELTA_SHARED range and
 * never read; without, it is read once (not twice) and reported as SAME
 * ranges (the data blocks are needed, e.g. for thin_delta's output).
 * Subtrees are aligned by their height above the leaves, so trees of
 * different heights still meet at shared nodes.
 *
 * Ranges reach the visitor in ascending virtual block order, never
 * overlapping; consecutive blocks of one kind whose data blocks run on
 * (on each mapped side) are merged into one range. Only the data block
 * numbers are compared (as thin_delta does): the time stamps are not.
 *
 * Every node is validated (btree_node_check: checksum, own location,
 * bounds, key order, value size) plus the key range its parent allows and
 * a depth limit; a bad node is -EUCLEAN with the device and block logged.
 * An unknown device is -ENODATA (logged). Visitor errors pass up. */
#ifndef TP_THIN_DELTA_H
#define TP_THIN_DELTA_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/thin/thin_ir.h"

enum thin_delta_flags {
	THIN_DELTA_METADATA_SNAP = 1 << 0,	/* the held snapshot; -ENODATA if none */
	THIN_DELTA_SKIP_SHARED = 1 << 1,	/* report shared subtrees, do not read them */
};

enum thin_delta_kind {
	THIN_DELTA_LEFT_ONLY,	/* mapped in the left device only (left_data) */
	THIN_DELTA_RIGHT_ONLY,	/* mapped in the right device only (right_data) */
	THIN_DELTA_DIFFERENT,	/* mapped in both, to other data blocks */
	THIN_DELTA_SAME,	/* mapped in both to the same data blocks */
	THIN_DELTA_SHARED,	/* SKIP_SHARED: a shared subtree's key range; unread,
				 * so it may hold unmapped blocks too (no data) */
};

struct thin_delta_range {
	enum thin_delta_kind kind;
	uint64_t begin, length;		/* virtual blocks */
	uint64_t left_data, right_data;	/* first data block on each mapped side */
};

struct thin_delta_visitor {
	void *ctx;
	/* The superblock the trees come from (may be NULL); called first. */
	int (*superblock)(void *ctx, const struct thin_ir_superblock *sb);
	int (*range)(void *ctx, const struct thin_delta_range *r);
};

/* What the walk cost (for tests and --verbose). */
struct thin_delta_stats {
	uint64_t nodes_read;
	uint64_t subtrees_shared;	/* shared subtrees met (skipped or read once) */
};

/* Walk the mapping trees of devices LEFT and RIGHT (the same id twice is
 * fine: all SAME, or one SHARED range). METADATA_SNAP_BLOCK: with
 * THIN_DELTA_METADATA_SNAP, the snapshot's superblock block, 0 = the one
 * the superblock holds. STATS may be NULL. The superblock given to the
 * visitor is the one the trees are read from (the snapshot's copy with
 * METADATA_SNAP), its nr_data_blocks that copy's data space map size. */
int thin_delta_io(struct io_engine *meta, unsigned flags, uint64_t metadata_snap_block,
		  uint64_t left, uint64_t right, const struct thin_delta_visitor *v,
		  struct thin_delta_stats *stats) TP_MUST_CHECK;

/* One device's mappings: thin_delta_io of DEV against itself, each run of
 * consecutive virtual and data blocks a SAME range (left_data the first
 * data block), in ascending order. */
int thin_mappings_io(struct io_engine *meta, unsigned flags, uint64_t dev,
		     const struct thin_delta_visitor *v) TP_MUST_CHECK;

/* The data block device DEV maps at VBLOCK in the committed metadata on
 * META (with THIN_DELTA_METADATA_SNAP the held snapshot's): 0 and
 * *DBLOCK; -ENODATA when DEV has no such mapping or there is no such
 * device (nothing logged); -EUCLEAN (logged) for a damaged node on the
 * way. Two lookups, each a path down its tree: no walk. */
int thin_lookup_io(struct io_engine *meta, unsigned flags, uint64_t dev, uint64_t vblock,
		   uint64_t *dblock) TP_MUST_CHECK;

#endif
