/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check.h - the thin metadata checker behind tpcheck: everything
 * thin_check verifies, plus what thin_check 0.9.0 misses (format doc
 * section 10.4): superblock magic/version/sizes, mapped_blocks per device,
 * data blocks beyond the data device, mapping and device times, and the
 * DATA reference counts (bitmaps and overflow tree).
 *
 * A full check = superblock; both space maps (index, every bitmap,
 * overflow tree); the details and mapping trees of the live metadata and
 * of the held metadata snapshot through the shared walker (thin_walk.h:
 * checksums, own block numbers, bounds, key order and ranges, equal leaf
 * depth), whose node visitor counts the references to every node once
 * per reference (node fill, expected metadata and data reference counts);
 * then both space maps compared with the expected counts.
 *
 * --fast (THIN_CHECK_FAST) is bounded by the number of bitmaps and
 * devices, not mappings: superblock, space-map index and bitmaps, details
 * and top-level trees, the root node of every device's mapping tree and
 * of each space map's reference-count tree. It cannot see damage below
 * those roots or wrong reference counts.
 *
 * Classification: a leaked block (count on disk, nothing refers to it), an
 * underfull node, nr_allocated/metadata_nr_blocks disagreeing, a mapping
 * newer than the pool time, version 1: non-fatal. Everything else: fatal.
 *
 * Owns: the report (problems, device ids) until thin_check_report_free.
 * Returns 0 when the check ran (the verdict is in the report), -ENOMEM or
 * -EIO-like errors when it could not run. Never writes, but for
 * THIN_CHECK_HEAL's rewrites of a mirror leg's bad copies. */
#ifndef TP_THIN_CHECK_H
#define TP_THIN_CHECK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/thin/scrub.h"

enum thin_check_verdict {
	THIN_CHECK_CLEAN = 0,
	THIN_CHECK_NONFATAL = 1,
	THIN_CHECK_FATAL = 2,
};

enum thin_check_flags {
	THIN_CHECK_FAST = 1 << 0,
	/* a full check of mirrored metadata also compares the legs, every
	 * block the walk reached (scrub.h) into REP->scrub ... */
	THIN_CHECK_SCRUB = 1 << 1,
	/* ... and rewrites a leg's bad copies from the good leg: the only
	 * writes a check ever makes (tprepair's) */
	THIN_CHECK_HEAL = 1 << 2,
	/* ... a block valid on both legs but different from leg 0's (leg
	 * 1's) copy: THIN_SCRUB_FROM_LEG0/1 */
	THIN_CHECK_FROM_LEG0 = 1 << 3,
	THIN_CHECK_FROM_LEG1 = 1 << 4,
};

struct thin_check_opts {
	unsigned flags;
	/* Called now and then during the mapping walk (may be NULL). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* With THIN_CHECK_FAST: read the mapping-tree roots of these devices
	 * only (sorted ascending; the others' trees are not read at all);
	 * NULL: every device's. The guard of one change (pool_guard_change)
	 * reads the roots the change relies on, not the pool's every one. */
	const uint64_t *roots;
	size_t nr_roots;
};

struct thin_check_problem {
	int fatal;
	uint64_t block;		/* metadata block involved, UINT64_MAX = none */
	char msg[1024];		/* room for a finding that names two long paths */
};

#define THIN_CHECK_MAX_PROBLEMS 200	/* kept in the report; the rest are counted */

/* Problems found, with the verdict they add up to. */
struct thin_check_findings {
	enum thin_check_verdict verdict;
	size_t nr_fatal, nr_nonfatal;	/* all problems */
	struct thin_check_problem *problems;	/* the first THIN_CHECK_MAX_PROBLEMS */
	size_t nr_problems;
};

struct thin_check_report {
	struct thin_check_findings f;
	int sb_ok;			/* superblock readable */
	uint64_t transaction_id;
	uint32_t time;
	uint32_t data_block_size;
	uint64_t nr_meta_blocks, meta_used;	/* from the metadata space map */
	uint64_t nr_data_blocks, data_used;
	uint64_t nr_devices, nr_mappings;	/* as walked (live metadata) */
	uint64_t metadata_snap;
	uint64_t *dev_ids;		/* live device ids found, ascending */
	size_t nr_dev_ids;
	struct thin_scrub_report scrub;	/* THIN_CHECK_SCRUB */
};

int thin_check_io(struct io_engine *meta, const struct thin_check_opts *opts,
		  struct thin_check_report *rep) TP_MUST_CHECK;
void thin_check_report_free(struct thin_check_report *rep);

/* Record a problem in F: counted always, its text kept while there is
 * room; the verdict becomes the worst seen. */
void thin_check_vadd(struct thin_check_findings *f, int fatal, uint64_t block, const char *fmt,
		     va_list ap) TP_PRINTF(4, 0);
void thin_check_findings_free(struct thin_check_findings *f);

#endif
