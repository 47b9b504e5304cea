/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scrub.h - both legs of mirrored thin metadata compared block by block.
 *
 * The mirror engine (lib/base/io.h) reads one leg and falls back to the
 * other only when a block fails its reader's validation, so damage on
 * the leg that is not read stays unseen until the other is lost. A scrub
 * reads every block the caller names as used (the checker: every block
 * its walk reached, the space maps' own blocks and the superblock) from
 * each leg alone and sorts it:
 *   - the same on both and valid: in step;
 *   - valid on one leg only (its location, its type's checksum; an I/O
 *     error counts as invalid): BAD on the other leg;
 *   - valid on both and different: MISMATCHED (the leg reads go to first
 *     is taken as the good one);
 *   - valid on neither: damage of the metadata itself (the checker's).
 * With THIN_SCRUB_HEAL the bad and mismatched copies are rewritten from
 * the good one (io_write_copy: the leg is flushed after each). Without it
 * nothing is written. A block is valid as its type alone knows: block 0
 * must be a superblock, any other a btree node, a space-map bitmap or an
 * index block with its own location and checksum. */
#ifndef TP_THIN_SCRUB_H
#define TP_THIN_SCRUB_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

enum thin_scrub_flags {
	THIN_SCRUB_HEAL = 1 << 0,
	/* a block valid on both legs but different is healed from leg 0
	 * (or leg 1), not from the engine's first: the leg whose thin
	 * metadata is consistent alone (the caller checked) */
	THIN_SCRUB_FROM_LEG0 = 1 << 1,
	THIN_SCRUB_FROM_LEG1 = 1 << 2,
};

struct thin_scrub_report {
	int ran;		/* both legs were in use and compared */
	uint64_t blocks;	/* used blocks compared */
	uint64_t bad[2];	/* invalid (or unreadable) on leg I, valid on the other */
	uint64_t unreadable[2];	/* of those: an I/O error on leg I */
	uint64_t mismatched;	/* valid on both legs, different */
	uint64_t both_bad;	/* valid on neither */
	uint64_t healed[2];	/* rewritten on leg I */
	uint64_t first_bad[2];	/* the first bad block on leg I (valid when bad[I]) */
};

/* Compare the used blocks of AREA (a window over a mirror, io.h) below
 * NR_BLOCKS: USED(CTX, b) says which. 0 (REP->ran 0 when AREA has no two
 * legs in use), or -ENOMEM. */
int thin_scrub(struct io_engine *area, int (*used)(void *ctx, uint64_t b), void *ctx,
	       uint64_t nr_blocks, unsigned flags, struct thin_scrub_report *rep) TP_MUST_CHECK;

#endif
