/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair.h - thin metadata salvage behind tprepair: read damaged metadata,
 * write brand-new metadata elsewhere (never the input).
 *
 * Roots: the superblock's, when it is readable and both of its tree roots
 * are valid nodes. Otherwise every metadata block is scanned for valid
 * btree nodes (checksum, own block number), classified (device details
 * leaves by value size, top-level leaves by values that all name valid
 * nodes, the rest bottom-level), and the unreferenced roots are paired: a
 * details tree and a top-level tree with the same device ids; the pair
 * whose details carry the newest times wins (repair_scan.c).
 *
 * The chosen trees are walked with the shared walker (thin_walk.h) through
 * a read-only overlay that supplies a superblock naming those roots; every
 * damaged subtree is skipped and reported as a lost key range, mappings
 * to data blocks beyond the data device are dropped and reported, and the
 * rest goes to the builder (thin_builder.h), which computes fresh space
 * maps. The metadata snapshot is not salvaged. On any failure the
 * output's superblock is left zeroed.
 *
 * With no details tree at all, the details are made up from the mapping
 * tree's device ids (transaction id - 1, created and snapshotted after
 * every mapping so all data is treated as shared; format doc 6.2 step 4).
 *
 * Superblock values: OPTS first, else the damaged superblock's, else
 * inferred (transaction id = highest device transaction + 1, data blocks =
 * highest mapped + 1, time = newest time seen); data_block_size cannot be
 * inferred (-EINVAL with a message naming the option). */
#ifndef TP_THIN_REPAIR_H
#define TP_THIN_REPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

struct thin_repair_opts {
	int set_transaction_id;
	uint64_t transaction_id;
	uint32_t data_block_size;	/* sectors; 0 = from the metadata */
	uint64_t nr_data_blocks;	/* 0 = from the metadata or inferred */
	/* Called as mappings are written, with the mapped blocks so far
	 * (total 0: not known); may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct thin_repair_lost {
	int whole_device;	/* the device itself is lost (details/top damage) */
	uint64_t dev_id;	/* whole_device: first id of the lost id range */
	uint64_t begin, end;	/* lost virtual blocks [begin, end), or ids */
	uint64_t block;		/* the bad node, UINT64_MAX = none */
	const char *what;
};

struct thin_repair_report {
	int scanned;		/* roots found by scanning, not from the superblock */
	int sb_ok;		/* the input superblock was readable */
	uint64_t mapping_root, details_root;	/* in the input */
	uint64_t transaction_id;	/* written */
	uint64_t nr_devices, nr_mappings;	/* written */
	uint64_t *dev_ids;	/* written, ascending */
	size_t nr_dev_ids;
	struct thin_repair_lost *lost;
	size_t nr_lost;
	int snapshot_dropped;	/* the input held a metadata snapshot */
	/* scanned, and the trees found are the held metadata snapshot's (the
	 * live ones lost): what was salvaged is the state of its transaction */
	int snapshot_trees;
	uint64_t snapshot_transaction_id;
	/* scanned: data blocks the damaged superblock's data space map counts
	 * in use beyond those the salvage maps (mappings newer than the trees
	 * found, or in a lost subtree) */
	uint64_t unmapped_in_use;
	uint64_t in_data_in_use;	/* the damaged superblock's data blocks in use */
	int details_rebuilt;	/* no details tree: made up from the mapping tree */
	int output_written;	/* OUT was written (on failure: its superblock zeroed) */
};

/* 0 when OUT holds the salvaged metadata (REP lists what was lost);
 * -EUCLEAN when nothing usable was found, -EINVAL when a value must be
 * given, other -errno from I/O; OUT's superblock is zeroed on failure. */
int thin_repair_io(struct io_engine *in, struct io_engine *out,
		   const struct thin_repair_opts *opts, struct thin_repair_report *rep)
	TP_MUST_CHECK;
void thin_repair_report_free(struct thin_repair_report *rep);

/* repair_scan.c: find the best (details, top-level) root pair by scanning
 * every block of IN. *MAPPING_ROOT on entry: the top-level root to use if
 * the scan finds it unreferenced (0: the newest found). When no details
 * tree names the same devices, *DETAILS_ROOT is 0. -EUCLEAN (logged) when
 * there is no top-level tree at all. */
int thin_repair_scan(struct io_engine *in, uint64_t *details_root, uint64_t *mapping_root)
	TP_MUST_CHECK;
/* The keys (device ids) of the tree at ROOT of IN, ascending, in a
 * malloc'd array; unusable nodes are skipped. */
int thin_repair_tree_keys(struct io_engine *in, uint64_t root, uint64_t **ids, size_t *n)
	TP_MUST_CHECK;

#endif
