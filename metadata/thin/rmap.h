/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rmap.h - the reverse map of thin metadata (tprmap, thin_rmap's output):
 * for data blocks in given regions, which thin device and which of its
 * virtual blocks map each one.
 *
 * The walk reads the superblock (or the held metadata snapshot's copy),
 * the top-level mapping tree and every device's mapping tree through a
 * block manager, each node validated (btree_node_validator, then value
 * size, key order, non-empty internal nodes, equal leaf depth, a depth
 * limit that stops loops). Devices are visited in ascending dev_id, each
 * one's mappings in ascending virtual block; a mapping whose data block
 * lies in a region extends the current run when it continues it (same
 * device, next data block, next virtual block), else starts a new one.
 * The runs come back sorted by data begin, data end, dev_id, virtual
 * begin: thin_rmap's order and merging.
 *
 * Every reference to a shared node is followed, so a data block shared by
 * snapshots is listed for each device that maps it. THIN_RMAP_SHARED_ONCE
 * follows each node of the mapping trees once, as thin_rmap (0.9.0 and
 * 1.1.0) does: a block reached only through a node read before, for
 * another device, is then listed for the first device only. That mode
 * exists to reproduce thin_rmap's output exactly.
 *
 * Returns 0 or -errno: -ENODATA (logged) no thin metadata or no held
 * snapshot, -EUCLEAN (logged, naming the block and device) a damaged
 * node, -ENOMEM. Nothing is written. */
#ifndef TP_THIN_RMAP_H
#define TP_THIN_RMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

enum thin_rmap_flags {
	THIN_RMAP_METADATA_SNAP = 1 << 0,	/* walk the held metadata snapshot */
	THIN_RMAP_SHARED_ONCE = 1 << 1,		/* each mapping-tree node once (thin_rmap) */
};

struct thin_rmap_region {
	uint64_t begin, end;	/* data blocks, end exclusive, begin < end */
};

struct thin_rmap_run {
	uint64_t data_begin, data_end;	/* end exclusive */
	uint64_t dev_id;
	uint64_t thin_begin;		/* virtual block of data_begin */
};

struct thin_rmap {
	struct thin_rmap_run *runs;	/* sorted (see above) */
	size_t nr, cap;
	uint32_t data_block_size;	/* sectors, from the superblock */
};

int thin_rmap_walk(struct io_engine *meta, unsigned flags, const struct thin_rmap_region *regions,
		   size_t nr_regions, struct thin_rmap *out) TP_MUST_CHECK;
void thin_rmap_free(struct thin_rmap *m);

#endif
