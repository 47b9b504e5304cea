/* check_int.h - the checker's state, shared by check.c (superblock, walk,
 * verdict) and check_counts.c (counting pass, space-map comparison).
 * Not for use outside metadata/thin/check*.c. */
#ifndef TP_THIN_CHECK_INT_H
#define TP_THIN_CHECK_INT_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/check.h"
#include "metadata/thin/thin_ir.h"
#include "metadata/thin/thin_sb.h"

struct chk {
	struct io_engine *io;
	const struct thin_check_opts *o;
	struct thin_check_report *rep;
	struct thin_sb sb;
	uint64_t io_blocks;	/* size of the area in blocks */
	uint64_t nr_meta, nr_data;	/* space map sizes from the superblock */
	struct block_manager *bm;
	struct space_map *msm, *dsm;	/* NULL when unreadable */

	/* counting pass */
	uint32_t *mexp;		/* expected metadata counts, nr_meta entries */
	uint8_t *dexp;		/* expected data counts, saturating at 255 */
	struct u64map dover;	/* data counts >= 255 */
	int count_unsure;	/* a node could not be read: counts incomplete */

	/* walk */
	int snap_pass, tree_damage;
	struct thin_ir_device cur;
	uint64_t cur_count;
	int cur_damaged, cur_beyond, cur_future;
	uint64_t done, total, last_progress;
};

void check_problem(struct chk *c, int fatal, uint64_t block, const char *fmt, ...)
	TP_PRINTF(4, 5);
/* Walk every distinct node of the live and snapshot trees once: node
 * shape and fill, expected counts, c->total (sum of mapped_blocks). */
int check_count_trees(struct chk *c) TP_MUST_CHECK;
/* Compare both space maps with the expected counts (skipped, with a
 * note, when the trees were damaged). */
int check_compare_counts(struct chk *c) TP_MUST_CHECK;
void check_counts_free(struct chk *c);
/* check_sm.c: compare the index entries of the (DATA or metadata) space
 * map with FREE_IN_DEV (free entries below the map's end), FIRST_FREE and
 * SECOND_FREE (first and second free entry, or the end) of each of its NB
 * bitmaps. */
int check_index_entries(struct chk *c, int data, const uint32_t *free_in_dev,
			const uint32_t *first_free, const uint32_t *second_free, uint64_t nb)
	TP_MUST_CHECK;

#endif
