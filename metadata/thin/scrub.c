/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scrub.c - both legs of mirrored thin metadata compared. See scrub.h. */
#include "metadata/thin/scrub.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/le.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/thin_sb.h"

#define RUN 256u	/* blocks read from each leg at once */

/* Is BLOCK, read at location B, a valid metadata block of any type? */
static int thin_block_valid(const void *block, uint64_t b)
{
	if (b == THIN_SB_BLOCK)
		return le64_get((const char *)block + 0x20) == THIN_SB_MAGIC &&
		       bm_header_valid(block, b, THIN_SB_CSUM_XOR);
	return !btree_node_check(block, b, 0, 0, NULL) ||
	       bm_header_valid(block, b, SM_BITMAP_CSUM_XOR) ||
	       bm_header_valid(block, b, SM_INDEX_CSUM_XOR);
}

/* Leg K's copy of blocks B..B+N into BUF; ERR[i] set for each block that
 * cannot be read (a failed run is read again block by block). */
static void read_leg(struct io_engine *area, unsigned k, uint64_t b, unsigned n,
		     unsigned char *buf, int *err)
{
	memset(err, 0, n * sizeof(*err));
	if (!io_read_copy(area, k, b * BM_BLOCK_SIZE, buf, (size_t)n * BM_BLOCK_SIZE))
		return;
	for (unsigned i = 0; i < n; i++)
		err[i] = io_read_copy(area, k, (b + i) * BM_BLOCK_SIZE, buf + i * BM_BLOCK_SIZE,
				      BM_BLOCK_SIZE) ? 1 : 0;
}

static void heal(struct io_engine *area, unsigned k, uint64_t b, const void *good,
		 struct thin_scrub_report *rep)
{
	if (!io_write_copy(area, k, b * BM_BLOCK_SIZE, good, BM_BLOCK_SIZE))
		rep->healed[k]++;
}

static void bad_on(struct thin_scrub_report *rep, unsigned k, uint64_t b, int unreadable)
{
	if (!rep->bad[k])
		rep->first_bad[k] = b;
	rep->bad[k]++;
	rep->unreadable[k] += unreadable != 0;
}

/* Blocks B..B+N (each used or not). */
static void scrub_run(struct io_engine *area, int (*used)(void *, uint64_t), void *ctx,
		      uint64_t b, unsigned n, unsigned flags, unsigned first,
		      unsigned char *buf[2], int *err[2], struct thin_scrub_report *rep)
{
	read_leg(area, 0, b, n, buf[0], err[0]);
	read_leg(area, 1, b, n, buf[1], err[1]);
	for (unsigned i = 0; i < n; i++) {
		const unsigned char *c[2] = { buf[0] + i * BM_BLOCK_SIZE,
					      buf[1] + i * BM_BLOCK_SIZE };
		int v[2];

		if (!used(ctx, b + i))
			continue;
		rep->blocks++;
		if (!err[0][i] && !err[1][i] && !memcmp(c[0], c[1], BM_BLOCK_SIZE)) {
			rep->both_bad += !thin_block_valid(c[0], b + i);
			continue;
		}
		for (unsigned k = 0; k < 2; k++)
			v[k] = !err[k][i] && thin_block_valid(c[k], b + i);
		if (v[0] && v[1]) {
			rep->mismatched++;
			if (flags & THIN_SCRUB_HEAL)
				heal(area, 1 - first, b + i, c[first], rep);
		} else if (v[0] || v[1]) {
			unsigned good = v[0] ? 0 : 1;

			bad_on(rep, 1 - good, b + i, err[1 - good][i]);
			if (flags & THIN_SCRUB_HEAL)
				heal(area, 1 - good, b + i, c[good], rep);
		} else {
			rep->both_bad++;
		}
	}
}

int thin_scrub(struct io_engine *area, int (*used)(void *ctx, uint64_t b), void *ctx,
	       uint64_t nr_blocks, unsigned flags, struct thin_scrub_report *rep)
{
	unsigned char *buf[2] = { NULL, NULL };
	int *err[2] = { NULL, NULL }, r = 0;
	unsigned first = (flags & THIN_SCRUB_FROM_LEG0)	  ? 0
			 : (flags & THIN_SCRUB_FROM_LEG1) ? 1
							  : io_copy_first(area);

	memset(rep, 0, sizeof(*rep));
	if (io_copies(area) < 2 || !io_copy_in_use(area, 0) || !io_copy_in_use(area, 1))
		return 0;
	if (nr_blocks > area->size / BM_BLOCK_SIZE)
		nr_blocks = area->size / BM_BLOCK_SIZE;
	for (unsigned k = 0; k < 2; k++)
		if (posix_memalign((void **)&buf[k], 4096, (size_t)RUN * BM_BLOCK_SIZE) ||
		    !(err[k] = calloc(RUN, sizeof(*err[k])))) {
			r = -ENOMEM;
			goto out;
		}
	rep->ran = 1;
	for (uint64_t b = 0; b < nr_blocks;) {
		unsigned n;

		while (b < nr_blocks && !used(ctx, b))
			b++;	/* a run starts at a used block */
		if (b >= nr_blocks)
			break;
		n = (unsigned)(nr_blocks - b < RUN ? nr_blocks - b : RUN);
		scrub_run(area, used, ctx, b, n, flags, first, buf, err, rep);
		b += n;
	}
out:
	for (unsigned k = 0; k < 2; k++) {
		free(buf[k]);
		free(err[k]);
	}
	return r;
}
