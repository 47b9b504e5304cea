/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_int.h - the checker's state, shared by check.c (superblock, walk,
 * verdict), check_counts.c (reference counting), check_sm.c (space maps)
 * and check_report.c (findings). Calls go down only: check.c -> check_sm.c
 * -> check_counts.c -> check_report.c.
 * Not for use outside metadata/thin/check*.c. */
#ifndef TP_THIN_CHECK_INT_H
#define TP_THIN_CHECK_INT_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/check.h"
#include "metadata/thin/thin_ir.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"

struct sm_entry {
	uint64_t block;		/* the bitmap */
	uint32_t nr_free, nfb;
	int present;
};

/* One space map as read by check_sm.c. */
struct sm_view {
	int data;
	uint64_t nr_blocks, nr_allocated, nb;	/* nb: bitmaps */
	struct sm_entry *e;	/* index entries, nb of them */
	uint64_t ref_root;	/* the overflow tree (counts >= 3), read in order */
	int broken;		/* index or overflow tree unreadable (reported) */
};

struct chk {
	struct io_engine *io;
	const struct thin_check_opts *o;
	struct thin_check_report *rep;
	struct thin_sb sb;
	uint64_t io_blocks;	/* size of the area in blocks */
	uint64_t nr_meta, nr_data;	/* space map sizes from the superblock */
	struct sm_view sm[2];	/* metadata, data */

	/* reference counting (check_counts.c) */
	uint8_t *mexp;		/* expected metadata counts, 255 = see mover */
	struct u64map mover;	/* expected metadata counts >= 255 */
	uint8_t *dexp;		/* expected data counts, 4 bits each, 15 = see dover */
	struct u64map dover;	/* expected data counts >= 15 */
	uint8_t dexp_enc[256];	/* a byte of dexp as 2 bitmap entries (4 bits) */
	int count_unsure;	/* a node could not be read: counts incomplete */

	/* walk */
	int snap_pass, tree_damage;
	struct thin_ir_device cur;
	uint64_t cur_count;
	int cur_damaged, cur_beyond, cur_future;
	size_t root_next;	/* fast check: the next of opts->roots to meet */
	size_t dev_ids_cap;	/* room in rep->dev_ids */
	uint64_t done, total, last_progress;
};

/* check_report.c: record a problem in c->rep (counted, text kept while
 * there is room, the verdict the worst seen). */
void thin_chk_problem(struct chk *c, int fatal, uint64_t block, const char *fmt, ...)
	TP_PRINTF(4, 5);
/* check_counts.c. alloc: the expected-count arrays, the superblock copies
 * counted (before the walk). count_node: the node visitor of the walk
 * (thin_walk.h) that counts references, node fill and max_entries, and
 * c->total (sum of mapped_blocks). expected: the expected count of
 * metadata or DATA block B. */
int thin_chk_counts_alloc(struct chk *c) TP_MUST_CHECK;
int thin_chk_count_node(void *ctx, const struct thin_walk_node *wn);
uint64_t thin_chk_expected(struct chk *c, int data, uint64_t b);
/* Count one reference to metadata block B (below nr_meta): 0 the first,
 * 1 when it was counted before, or -ENOMEM. */
int thin_chk_meta_ref(struct chk *c, uint64_t b) TP_MUST_CHECK;
/* The expected counts of blocks B..B+31 (all below the space map's size)
 * encoded as a bitmap word: two bits each, the high bit first, counts
 * above 3 as 3. */
uint64_t thin_chk_expected_word(struct chk *c, int data, uint64_t b);
void thin_chk_counts_free(struct chk *c);
/* check_sm.c. load: index and overflow tree of the metadata (0) or data
 * (1) space map, own blocks counted; compare: stream its bitmaps,
 * validating each, and with COUNTS compare every count. */
int thin_chk_sm_load(struct chk *c, int data) TP_MUST_CHECK;
int thin_chk_sm_compare(struct chk *c, int data, int counts) TP_MUST_CHECK;
void thin_chk_sm_free(struct chk *c);
#endif
