/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checker and the salvage on metadata built in memory through the thin
 * API: clean metadata (with a held metadata snapshot and shared trees) is
 * clean; each kind of damage gets its verdict (data reference counts and
 * mapped_blocks included, which thin_check 0.9.0 misses); --fast sees
 * roots but not leaves; repair restores everything but the lost range,
 * never writes its input, and finds the trees by scanning when the
 * superblock is gone (and says when they are the metadata snapshot's). */
#include "lib/base/crc32c.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/thin/check.h"
#include "metadata/thin/repair.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE (2u << 20)
#define NR_MAP 3000u

static struct io_engine *io;	/* the pristine image, rebuilt per test */

static unsigned char *blk(struct io_engine *e, uint64_t b)
{
	return io_mem_data(e) + b * 4096;
}

static void fix(struct io_engine *e, uint64_t b, uint32_t salt)
{
	le32_put(blk(e, b), tp_block_csum(blk(e, b), 4096, salt));
}

/* A fresh thin metadata in IO (the old one dropped) with thin device 0. */
static struct thin_md *format_fresh(void)
{
	struct thin_md *md;

	io_destroy(io);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "check", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 20000, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 0) == 0);
	return md;
}

/* dev 0: NR_MAP mappings; dev 1: a snapshot of 0 with 5 blocks rewritten;
 * dev 2: 10 mappings. ALLOC_ONLY leaks one data block; DOUBLE maps one
 * block with an extra reference. */
static void build(int metadata_snap, int leak, int double_ref)
{
	struct thin_md *md;
	uint64_t db;

	md = format_fresh();
	CU_ASSERT_FATAL(thin_create_thin(md, 2) == 0);
	for (uint64_t v = 0; v < NR_MAP; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 0, v * 2, db) == 0);
	}
	for (uint64_t v = 0; v < 10; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 2, v, db) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT_FATAL(thin_create_snap(md, 1, 0) == 0);
	if (metadata_snap)
		CU_ASSERT_FATAL(thin_reserve_metadata_snap(md) == 0);
	for (uint64_t v = 0; v < 5; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, v * 400, db) == 0);
	}
	if (leak)
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
	if (double_ref) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping(md, 2, 100, db) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
}

static enum thin_check_verdict check(struct io_engine *e, unsigned flags,
				     struct thin_check_report *rep)
{
	struct thin_check_opts o = { flags, NULL, NULL };

	CU_ASSERT_FATAL(thin_check_io(e, &o, rep) == 0);
	return rep->f.verdict;
}

static int has_problem(const struct thin_check_report *rep, const char *text)
{
	for (size_t i = 0; i < rep->f.nr_problems; i++)
		if (strstr(rep->f.problems[i].msg, text))
			return 1;
	return 0;
}

/* Block of the bottom-level leaf of DEV holding VBLOCK, and the key range
 * its parent allows. */
static uint64_t find_leaf(struct io_engine *e, uint64_t dev, uint64_t vblock, uint64_t *lo,
			  uint64_t *hi)
{
	struct thin_sb sb;
	uint64_t b;
	int i;

	CU_ASSERT_FATAL(thin_sb_read(e, 0, &sb) == 0);
	b = sb.mapping_root;
	while (!bn_is_leaf(blk(e, b)))
		b = bn_value64(blk(e, b), (uint32_t)bn_lower_bound(blk(e, b), dev));
	i = bn_lower_bound(blk(e, b), dev);
	CU_ASSERT_FATAL(i >= 0 && bn_key(blk(e, b), (uint32_t)i) == dev);
	b = bn_value64(blk(e, b), (uint32_t)i);
	*lo = 0;
	*hi = UINT64_MAX;
	while (!bn_is_leaf(blk(e, b))) {
		const unsigned char *n = blk(e, b);
		i = bn_lower_bound(n, vblock);
		CU_ASSERT_FATAL(i >= 0);
		if (i)
			*lo = bn_key(n, (uint32_t)i);
		if ((uint32_t)i + 1 < bn_nr(n))
			*hi = bn_key(n, (uint32_t)i + 1);
		b = bn_value64(n, (uint32_t)i);
	}
	return b;
}

static void test_clean(void)
{
	struct thin_check_report rep;

	for (int snap = 0; snap < 2; snap++) {
		build(snap, 0, 0);
		CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_CLEAN);
		CU_ASSERT_EQUAL(rep.nr_devices, 3);
		CU_ASSERT_EQUAL(rep.nr_mappings, 2 * NR_MAP + 10);
		CU_ASSERT_EQUAL(rep.nr_dev_ids, 3);
		CU_ASSERT_EQUAL(rep.dev_ids[2], 2);
		CU_ASSERT_EQUAL(rep.data_used, NR_MAP + 10 + 5);
		CU_ASSERT_EQUAL(rep.metadata_snap != 0, snap);
		thin_check_report_free(&rep);
		CU_ASSERT_EQUAL(check(io, THIN_CHECK_FAST, &rep), THIN_CHECK_CLEAN);
		thin_check_report_free(&rep);
	}
}

static void test_data_counts(void)
{
	struct thin_check_report rep;

	build(1, 1, 0);	/* a leaked data block: non-fatal */
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_NONFATAL);
	CU_ASSERT(has_problem(&rep, "data block"));
	CU_ASSERT(has_problem(&rep, "leaked"));
	thin_check_report_free(&rep);
	build(0, 0, 1);	/* one reference too many: fatal */
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	CU_ASSERT(has_problem(&rep, "reference count 2, expected 1"));
	thin_check_report_free(&rep);
}

/* 300 snapshots of one volume: the root of its mapping tree is counted
 * 301 times, past the checker's 8-bit metadata counters; 20 snapshots of
 * another, each written once (its leaf unshared), give that volume's data
 * blocks counts of 21, past the 4-bit data counters. Both beyond the space
 * maps' 2-bit entries. */
static void test_high_counts(void)
{
	struct thin_check_report rep;
	struct thin_md *md;
	uint64_t db;

	md = format_fresh();
	for (uint64_t v = 0; v < 40; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 0, v, db) == 0);
	}
	CU_ASSERT_FATAL(thin_create_thin(md, 1000) == 0);
	for (uint64_t v = 0; v < 40; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1000, v, db) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	for (uint64_t s = 1; s <= 300; s++)
		CU_ASSERT_FATAL(thin_create_snap(md, s, 0) == 0);
	for (uint64_t s = 1001; s <= 1020; s++) {
		CU_ASSERT_FATAL(thin_create_snap(md, s, 1000) == 0);
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, s, 100, db) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_CLEAN);
	CU_ASSERT_EQUAL(rep.nr_devices, 322);
	CU_ASSERT_EQUAL(rep.nr_mappings, 301 * 40 + 40 + 20 * 41);
	CU_ASSERT_EQUAL(rep.data_used, 40 + 40 + 20);
	thin_check_report_free(&rep);
}

/* --fast reads the root of the data space map's reference-count tree,
 * not the tree: a lost leaf of it is seen by the full check only. */
static void test_fast_refcount_root_only(void)
{
	struct thin_check_report rep;
	struct thin_md *md;
	struct thin_sb sb;
	uint64_t db, leaf;

	md = format_fresh();
	for (uint64_t v = 0; v < 1000; v++) {	/* 1000 counts of 3: three leaves */
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 0, v, db) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT_FATAL(thin_create_snap(md, 1, 0) == 0);
	CU_ASSERT_FATAL(thin_create_snap(md, 2, 0) == 0);
	/* a write into every leaf of each snapshot unshares the leaves: the
	 * blocks they name get counts of 3 */
	for (uint64_t s = 1; s <= 2; s++)
		for (uint64_t v = 0; v < 1000; v += 50) {
			CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
			CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, s, v, db) == 0);
		}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(thin_sb_read(io, 0, &sb) == 0);
	CU_ASSERT_FATAL(!bn_is_leaf(blk(io, sb.data_sm.ref_count_root)));
	leaf = bn_value64(blk(io, sb.data_sm.ref_count_root), 1);
	memset(blk(io, leaf), 0, 4096);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	CU_ASSERT(has_problem(&rep, "reference-count tree node"));
	thin_check_report_free(&rep);
	CU_ASSERT_EQUAL(check(io, THIN_CHECK_FAST, &rep), THIN_CHECK_CLEAN);
	thin_check_report_free(&rep);
}

static void test_mapped_blocks(void)
{
	struct thin_check_report rep;
	struct thin_sb sb;

	build(0, 0, 0);
	CU_ASSERT_FATAL(thin_sb_read(io, 0, &sb) == 0);
	CU_ASSERT_FATAL(bn_is_leaf(blk(io, sb.details_root)));
	le64_put(bn_value(blk(io, sb.details_root), 2), 11);	/* dev 2 holds 10 */
	fix(io, sb.details_root, BTREE_CSUM_XOR);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	CU_ASSERT(has_problem(&rep, "thin device 2: details say 11 mapped blocks, the mapping "
				    "tree holds 10"));
	thin_check_report_free(&rep);
}

static void test_superblock(void)
{
	struct thin_check_report rep;

	build(0, 0, 0);
	le32_put(blk(io, 0) + 0x154, 16);	/* metadata block size */
	fix(io, 0, THIN_SB_CSUM_XOR);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	CU_ASSERT(has_problem(&rep, "metadata block size"));
	thin_check_report_free(&rep);
	le32_put(blk(io, 0) + 0x154, 8);
	le64_put(blk(io, 0) + 0x40, 1ull << 50);	/* data space map nr_blocks */
	fix(io, 0, THIN_SB_CSUM_XOR);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	CU_ASSERT(has_problem(&rep, "impossible data device size"));
	thin_check_report_free(&rep);
	struct io_engine *out;
	struct thin_repair_opts o = { 0 };
	struct thin_repair_report rr;
	CU_ASSERT_FATAL(io_mem_create(SIZE, "out", &out) == 0);
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), 0);	/* size inferred */
	CU_ASSERT_EQUAL(check(out, 0, &rep), THIN_CHECK_CLEAN);
	CU_ASSERT(rep.nr_data_blocks > 0 && rep.nr_data_blocks <= 20000);
	thin_check_report_free(&rep);
	thin_repair_report_free(&rr);
	io_destroy(out);
	memset(blk(io, 0), 0, 4096);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	CU_ASSERT(!rep.sb_ok);
	thin_check_report_free(&rep);
}

static void test_lost_leaf_and_fast(void)
{
	struct thin_check_report rep;
	uint64_t lo, hi, leaf;

	build(0, 0, 0);
	leaf = find_leaf(io, 2, 3, &lo, &hi);	/* dev 2: a root leaf */
	CU_ASSERT_EQUAL(lo, 0);
	memset(blk(io, leaf), 0, 4096);
	CU_ASSERT_EQUAL(check(io, THIN_CHECK_FAST, &rep), THIN_CHECK_FATAL);
	thin_check_report_free(&rep);

	build(0, 0, 0);
	leaf = find_leaf(io, 0, 2000, &lo, &hi);	/* dev 0: below an internal node */
	CU_ASSERT(hi != UINT64_MAX);
	memset(blk(io, leaf), 0, 4096);
	CU_ASSERT_EQUAL(check(io, THIN_CHECK_FAST, &rep), THIN_CHECK_CLEAN);	/* weaker */
	thin_check_report_free(&rep);
	CU_ASSERT_EQUAL(check(io, 0, &rep), THIN_CHECK_FATAL);
	/* dev 1 (the snapshot) shares the leaf unless it was rewritten */
	char want[128];
	snprintf(want, sizeof(want), "thin device 0: mapping tree node %llu: ",
		 (unsigned long long)leaf);
	CU_ASSERT(has_problem(&rep, want));
	snprintf(want, sizeof(want), "(blocks %llu..%llu lost)", (unsigned long long)lo,
		 (unsigned long long)hi - 1);
	CU_ASSERT(has_problem(&rep, want));
	thin_check_report_free(&rep);
}

struct count_ctx {
	uint64_t dev, n, in_range;
	uint64_t want_dev, lo, hi;
};

static int cnt_dev(void *ctx, const struct thin_ir_device *d)
{
	((struct count_ctx *)ctx)->dev = d->dev_id;
	return 0;
}

static int cnt_map(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	struct count_ctx *c = ctx;
	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < m[i].length; k++) {
			uint64_t v = m[i].origin_begin + k;
			c->n++;
			c->in_range += c->dev == c->want_dev && v >= c->lo && v < c->hi;
		}
	return 0;
}

static void count_io(struct io_engine *e, struct count_ctx *c)
{
	const struct thin_ir_visitor v = { c, NULL, NULL, cnt_dev, NULL, cnt_map };
	c->n = c->in_range = 0;
	CU_ASSERT_FATAL(thin_walk_io(e, 0, &v, NULL) == 0);
}

static void test_repair_leaf(void)
{
	struct thin_repair_opts o = { 0 };
	struct thin_repair_report rr;
	struct thin_check_report rep;
	struct io_engine *out;
	struct count_ctx before = { 0 }, after = { 0 };
	uint64_t lo, hi, leaf;
	unsigned char *copy;

	build(0, 0, 0);
	leaf = find_leaf(io, 0, 2000, &lo, &hi);
	before.want_dev = after.want_dev = 0;
	before.lo = after.lo = lo;
	before.hi = after.hi = hi;
	count_io(io, &before);
	CU_ASSERT(before.in_range > 0);
	memset(blk(io, leaf), 0, 4096);
	copy = malloc(SIZE);
	CU_ASSERT_FATAL(copy != NULL);
	memcpy(copy, io_mem_data(io), SIZE);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "out", &out) == 0);
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), 0);
	CU_ASSERT(memcmp(copy, io_mem_data(io), SIZE) == 0);	/* input untouched */
	CU_ASSERT_FATAL(rr.nr_lost >= 1);
	CU_ASSERT_EQUAL(rr.lost[0].dev_id, 0);
	CU_ASSERT_EQUAL(rr.lost[0].begin, lo);
	CU_ASSERT_EQUAL(rr.lost[0].end, hi);
	CU_ASSERT_EQUAL(rr.lost[0].block, leaf);
	CU_ASSERT_EQUAL(rr.nr_devices, 3);
	CU_ASSERT_EQUAL(check(out, 0, &rep), THIN_CHECK_CLEAN);
	thin_check_report_free(&rep);
	count_io(out, &after);
	CU_ASSERT_EQUAL(after.in_range, 0);
	/* everything else is there: dev 0's lost range, and the snapshot's
	 * copy of it when it shared the leaf */
	uint64_t lost_total = 0;
	for (size_t i = 0; i < rr.nr_lost; i++) {
		CU_ASSERT(!rr.lost[i].whole_device);
		CU_ASSERT_EQUAL(rr.lost[i].begin, lo);
		CU_ASSERT_EQUAL(rr.lost[i].end, hi);
	}
	lost_total = before.n - after.n;
	CU_ASSERT(lost_total >= before.in_range && lost_total <= 2 * before.in_range);
	CU_ASSERT_EQUAL(rr.nr_mappings, after.n);
	thin_repair_report_free(&rr);
	io_destroy(out);
	free(copy);
}

static void test_repair_scan(void)
{
	struct thin_repair_opts o = { 1, 42, 0, 0 };
	struct thin_repair_report rr;
	struct thin_check_report rep;
	struct io_engine *out;
	struct count_ctx before = { 0 }, after = { 0 };

	build(0, 0, 0);
	count_io(io, &before);
	memset(blk(io, 0), 0, 4096);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "out", &out) == 0);
	tp_log_set_verbosity(-2);
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), -EINVAL);	/* block size unknown */
	thin_repair_report_free(&rr);
	CU_ASSERT(thin_sb_read(out, 0, &(struct thin_sb){ 0 }) == -ENODATA);	/* zeroed */
	o.data_block_size = 128;
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), 0);
	tp_log_set_verbosity(0);
	CU_ASSERT(rr.scanned);
	CU_ASSERT_EQUAL(rr.nr_lost, 0);
	CU_ASSERT_EQUAL(rr.transaction_id, 42);
	CU_ASSERT_EQUAL(check(out, 0, &rep), THIN_CHECK_CLEAN);
	CU_ASSERT_EQUAL(rep.transaction_id, 42);
	CU_ASSERT_EQUAL(rep.nr_devices, 3);
	thin_check_report_free(&rep);
	count_io(out, &after);
	CU_ASSERT_EQUAL(after.n, before.n);
	thin_repair_report_free(&rr);

	/* the details tree lost too: made up from the mapping tree */
	struct thin_sb sb;
	build(0, 0, 0);
	CU_ASSERT_FATAL(thin_sb_read(io, 0, &sb) == 0);
	memset(blk(io, sb.details_root), 0, 4096);
	memset(blk(io, 0), 0, 4096);
	tp_log_set_verbosity(-2);
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), 0);
	tp_log_set_verbosity(0);
	CU_ASSERT(rr.details_rebuilt);
	CU_ASSERT_EQUAL(rr.nr_devices, 3);
	CU_ASSERT_EQUAL(check(out, 0, &rep), THIN_CHECK_CLEAN);
	CU_ASSERT_EQUAL(rep.nr_mappings, before.n);
	thin_check_report_free(&rep);
	CU_ASSERT(!rr.snapshot_trees);
	thin_repair_report_free(&rr);
	io_destroy(out);
}

/* The live trees lost, the held metadata snapshot's intact (the tpt corpus'
 * corrupted_tmeta_with_metadata_snap): the scan finds the snapshot's trees,
 * and the report says the salvage is of the snapshot's transaction and how
 * many data blocks in use it maps no more. */
static void test_repair_snapshot_trees(void)
{
	struct thin_repair_opts o = { 0, 0, 0, 0 };
	struct thin_repair_report rr;
	struct thin_check_report rep;
	struct io_engine *out;
	struct thin_sb sb, held;

	build(1, 0, 0);
	CU_ASSERT_FATAL(thin_sb_read(io, 0, &sb) == 0);
	CU_ASSERT_FATAL(sb.held_root != 0);
	CU_ASSERT_FATAL(thin_sb_read(io, sb.held_root, &held) == 0);
	CU_ASSERT_FATAL(held.mapping_root != sb.mapping_root);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "out", &out) == 0);
	/* intact: the live trees, and no word of the snapshot's */
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), 0);
	CU_ASSERT(!rr.scanned && !rr.snapshot_trees && rr.snapshot_dropped);
	CU_ASSERT_EQUAL(rr.unmapped_in_use, 0);
	thin_repair_report_free(&rr);
	memset(blk(io, sb.details_root), 0, 4096);
	memset(blk(io, sb.mapping_root), 0, 4096);
	tp_log_set_verbosity(-2);
	CU_ASSERT_EQUAL(thin_repair_io(io, out, &o, &rr), 0);
	tp_log_set_verbosity(0);
	CU_ASSERT(rr.scanned);
	CU_ASSERT(rr.snapshot_trees);
	CU_ASSERT_EQUAL(rr.snapshot_transaction_id, held.trans_id);
	CU_ASSERT_EQUAL(rr.mapping_root, held.mapping_root);
	/* the 5 blocks device 1 was written after the snapshot: counted in
	 * use by the live data space map, mapped by nothing salvaged */
	CU_ASSERT_EQUAL(rr.unmapped_in_use, 5);
	CU_ASSERT_EQUAL(check(out, 0, &rep), THIN_CHECK_CLEAN);
	CU_ASSERT_EQUAL(rep.nr_devices, 3);
	thin_check_report_free(&rep);
	thin_repair_report_free(&rr);
	io_destroy(out);
}

static int cleanup(void)
{
	io_destroy(io);
	io = NULL;
	return 0;
}

TP_TEST_SUITE(check, NULL, cleanup,
	      { "clean metadata, with and without a metadata snapshot", test_clean },
	      { "data reference counts: leak non-fatal, extra reference fatal", test_data_counts },
	      { "mapped_blocks disagreeing with the tree is fatal", test_mapped_blocks },
	      { "counts of 301 (metadata and data) are checked exactly", test_high_counts },
	      { "--fast reads only the root of the reference-count tree",
		test_fast_refcount_root_only },
	      { "superblock fields and a zeroed superblock", test_superblock },
	      { "a lost leaf: exact range; --fast sees roots only", test_lost_leaf_and_fast },
	      { "repair skips exactly the lost range, input untouched", test_repair_leaf },
	      { "repair finds the trees by scanning, and makes up lost details", test_repair_scan },
	      { "repair says when the trees it found are the metadata snapshot's",
		test_repair_snapshot_trees })
