/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The delta walker (metadata/thin/delta.h) against a model: devices
 * written through the thin API, snapshots sharing subtrees, writes after
 * them; every range the walker reports (with and without skipping shared
 * subtrees) agrees block by block with thin_lookup, shared subtrees are
 * met (also when the two trees have grown to different heights) and
 * skipping them reads fewer nodes; a damaged node is -EUCLEAN and an
 * unknown device -ENODATA. */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/thin/delta.h"
#include "metadata/thin/thin.h"
#include "test/lib/io_test.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define VB 90000	/* virtual blocks looked at */

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return tp_test_xorshift64(&rs);
}

/* What the walker said, per virtual block: 0 nothing, else kind + 1;
 * SHARED blocks are marked and checked equal by lookup. */
struct seen {
	unsigned char kind[VB];
	uint64_t l[VB], r[VB];
	uint64_t last_end;
	int order_errors;
};

static int on_range(void *ctx, const struct thin_delta_range *x)
{
	struct seen *s = ctx;

	if (x->begin < s->last_end)
		s->order_errors++;
	s->last_end = x->begin + x->length;
	for (uint64_t i = 0; i < x->length && x->begin + i < VB; i++) {
		s->kind[x->begin + i] = (unsigned char)(x->kind + 1);
		s->l[x->begin + i] = x->left_data + i;
		s->r[x->begin + i] = x->right_data + i;
	}
	return 0;
}

static struct io_engine *io;
static struct thin_md *md;

static void map(uint64_t dev, uint64_t v)
{
	uint64_t d;

	CU_ASSERT_FATAL(!thin_alloc_data_block(md, &d));
	CU_ASSERT_FATAL(!thin_insert_mapping_alloced(md, dev, v, d));
}

/* Compare the walk of (A, B) with lookups; returns the stats. */
static void check_pair(uint64_t a, uint64_t b, unsigned flags, struct thin_delta_stats *st)
{
	struct seen *s = calloc(1, sizeof(*s));
	struct thin_delta_visitor v = { s, NULL, on_range };
	int bad = 0;

	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_FATAL(!thin_delta_io(io, flags, 0, a, b, &v, st));
	CU_ASSERT_EQUAL(s->order_errors, 0);
	for (uint64_t i = 0; i < VB; i++) {
		uint64_t x = 0, y = 0;
		int hx = !thin_lookup(md, a, i, &x, NULL), hy = !thin_lookup(md, b, i, &y, NULL);
		int want = !hx && !hy ? 0
			   : hx && !hy ? THIN_DELTA_LEFT_ONLY + 1
			   : !hx ? THIN_DELTA_RIGHT_ONLY + 1
			   : x != y ? THIN_DELTA_DIFFERENT + 1 : THIN_DELTA_SAME + 1;
		int got = s->kind[i];

		if (got == THIN_DELTA_SHARED + 1) {
			bad += !(flags & THIN_DELTA_SKIP_SHARED) ||
			       (want != 0 && want != THIN_DELTA_SAME + 1);
			continue;
		}
		bad += got != want;
		if (got == want && want && want != THIN_DELTA_RIGHT_ONLY + 1)
			bad += s->l[i] != x;
		if (got == want && (want == THIN_DELTA_RIGHT_ONLY + 1 ||
				    want == THIN_DELTA_DIFFERENT + 1))
			bad += s->r[i] != y;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(s);
}

static int setup(void)
{
	if (io_mem_create(64 << 20, "delta", &io) ||
	    thin_format(io, 128, 200000, &md))
		return -1;
	return 0;
}

static int cleanup(void)
{
	thin_close(md);
	io_destroy(io);
	return 0;
}

static void test_model(void)
{
	struct thin_delta_stats full, skip;

	/* device 0: 8000 blocks in runs; snapshot 1; writes to both */
	CU_ASSERT_FATAL(!thin_create_thin(md, 0));
	for (uint64_t v = 0; v < 8000; v++)
		if (rnd() % 8)
			map(0, v);
	CU_ASSERT_FATAL(!thin_commit(md));
	CU_ASSERT_FATAL(!thin_create_snap(md, 1, 0));
	for (int i = 0; i < 60; i++)
		map(rnd() % 2, rnd() % 12000);
	for (uint64_t v = 4000, n = 0, d; n < 20; v++)	/* discards in the snapshot */
		if (!thin_lookup(md, 1, v, &d, NULL) && ++n)
			CU_ASSERT_FATAL(!thin_remove_mapping(md, 1, v));
	CU_ASSERT_FATAL(!thin_commit(md));
	check_pair(1, 0, 0, &full);
	check_pair(1, 0, THIN_DELTA_SKIP_SHARED, &skip);
	check_pair(0, 1, THIN_DELTA_SKIP_SHARED, NULL);
	check_pair(0, 0, 0, NULL);
	check_pair(0, 0, THIN_DELTA_SKIP_SHARED, NULL);
	CU_ASSERT(skip.subtrees_shared > 0);
	CU_ASSERT(skip.nodes_read < full.nodes_read);

	/* device 2: a snapshot of 1 that grows taller (many new mappings far
	 * away) while its low part stays shared with 1 */
	CU_ASSERT_FATAL(!thin_create_snap(md, 2, 1));
	for (uint64_t v = 12000; v < VB; v++)
		map(2, v);
	map(2, 10);
	CU_ASSERT_FATAL(!thin_commit(md));
	check_pair(1, 2, THIN_DELTA_SKIP_SHARED, &skip);
	CU_ASSERT(skip.subtrees_shared > 0);
	check_pair(2, 1, 0, NULL);
	check_pair(0, 2, THIN_DELTA_SKIP_SHARED, NULL);
}

static void test_errors(void)
{
	struct seen *s = calloc(1, sizeof(*s));
	struct thin_delta_visitor v = { s, NULL, on_range };
	struct tp_log_capture cap;
	uint64_t d;
	uint32_t t;
	unsigned char *mem = io_mem_data(io);

	CU_ASSERT_FATAL(s != NULL);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(thin_delta_io(io, 0, 0, 0, 77, &v, NULL), -ENODATA);
	CU_ASSERT_EQUAL(thin_delta_io(io, THIN_DELTA_METADATA_SNAP, 0, 0, 1, &v, NULL), -ENODATA);
	/* damage every leaf of device 1 in one place: find one by its
	 * mapping (block numbers of leaves are not known otherwise) */
	CU_ASSERT_FATAL(!thin_lookup(md, 1, 7000, &d, &t));
	for (uint64_t b = 1; b < (64u << 20) / 4096; b++) {
		unsigned char *n = mem + b * 4096;
		if (!btree_node_check(n, b, 8, 0, NULL) && bn_is_leaf(n) && bn_nr(n) &&
		    bn_key(n, 0) <= 7000 && bn_key(n, bn_nr(n) - 1) >= 7000)
			n[100] ^= 0xff;
	}
	CU_ASSERT_EQUAL(thin_delta_io(io, 0, 0, 2, 1, &v, NULL), -EUCLEAN);
	tp_log_capture(NULL);
	free(s);
}

TP_TEST_SUITE(delta, setup, cleanup, { "model", test_model }, { "errors", test_errors })
