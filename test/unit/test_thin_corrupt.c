/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Corrupt input: wrong checksums, wrong block numbers, impossible
 * nr_entries/max_entries, a loop in a tree, truncation, a damaged
 * superblock or bitmap, and random damage. Every case must give an error
 * (naming the block in the log), never a crash (run under ASan too); the
 * walker with a damage visitor reports the lost range and goes on. */
#include "lib/base/crc32c.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/check.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_internal.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE (4u << 20)

static unsigned char *base;
static uint64_t dev0_root, dev0_leaf, details_root, meta_bitmap;

static unsigned char *blockp(struct io_engine *io, uint64_t b)
{
	return io_mem_data(io) + b * 4096;
}

static void fix_csum(struct io_engine *io, uint64_t b, uint32_t salt)
{
	le32_put(blockp(io, b), tp_block_csum(blockp(io, b), 4096, salt));
}

static int setup(void)
{
	struct io_engine *io;
	struct thin_md *md;
	struct thin_sb sb;
	uint64_t db;
	const unsigned char *top;

	if (io_mem_create(SIZE, "corrupt", &io) || thin_format(io, 128, 10000, &md))
		return 1;
	if (thin_create_thin(md, 0) || thin_create_thin(md, 1))
		return 1;
	for (uint64_t v = 0; v < 3000; v++)
		if (thin_alloc_data_block(md, &db) || thin_insert_mapping_alloced(md, 0, v, db))
			return 1;
	for (uint64_t v = 0; v < 10; v++)
		if (thin_alloc_data_block(md, &db) || thin_insert_mapping_alloced(md, 1, v, db))
			return 1;
	if (thin_commit(md))
		return 1;
	thin_close(md);
	if (thin_sb_read(io, 0, &sb))
		return 1;
	details_root = sb.details_root;
	top = blockp(io, sb.mapping_root);
	dev0_root = bn_value64(top, 0);
	if (bn_is_leaf(blockp(io, dev0_root)))
		return 1;
	dev0_leaf = bn_value64(blockp(io, dev0_root), 1);
	meta_bitmap = le64_get(blockp(io, sb.meta_sm.bitmap_root) + 16);
	base = malloc(SIZE);
	memcpy(base, io_mem_data(io), SIZE);
	io_destroy(io);
	return 0;
}

static int cleanup(void)
{
	free(base);
	return 0;
}

static struct io_engine *fresh(void)
{
	struct io_engine *io;

	if (io_mem_create(SIZE, "corrupt", &io))
		return NULL;
	memcpy(io_mem_data(io), base, SIZE);
	return io;
}

/* BLOCK appears in the log as a whole number (" 12" does not match " 123"). */
static int logged(const struct tp_log_capture *cap, uint64_t block)
{
	char num[32];
	size_t len = (size_t)snprintf(num, sizeof(num), "%llu", (unsigned long long)block);

	for (const char *p = cap->buf; (p = strstr(p, num)); p++) {
		int digit_before = p > cap->buf && p[-1] >= '0' && p[-1] <= '9';
		int digit_after = p[len] >= '0' && p[len] <= '9';
		if (!digit_before && !digit_after)
			return 1;
	}
	return 0;
}

/* The results a damaged image may give: success or a clean error. */
static int allowed(int r)
{
	return r == 0 || r == -EUCLEAN || r == -ENODATA || r == -EBUSY || r == -ENOSPC ||
	       r == -EEXIST || r == -ENOENT;
}

/* Everything a tool might do with damaged metadata; count the errors.
 * *ODD (may be NULL) counts results outside allowed(). */
static int exercise_codes(struct io_engine *io, int *odd)
{
	struct thin_md *md;
	struct thin_ir_visitor nothing = { 0 };
	int errors = 0, unexpected = 0, r;
	uint64_t db;

#define NOTE(expr) (r = (expr), unexpected += !allowed(r), errors += r < 0)
	NOTE(thin_walk_io(io, 0, &nothing, NULL));
	NOTE(thin_open(io, 0, &md));
	if (r) {
		if (odd)
			*odd += unexpected;
		return errors;
	}
	NOTE(thin_verify_counts(md));
	for (uint64_t v = 0; v < 3000; v += 50)
		NOTE(thin_lookup(md, 0, v, &db, NULL));
	r = thin_alloc_data_block(md, &db);
	if (!r)
		r = thin_insert_mapping_alloced(md, 0, 1500, db);
	if (!r)
		r = thin_create_snap(md, 5, 0);
	if (!r)
		r = thin_delete(md, 0);
	if (!r)
		r = thin_commit(md);
	NOTE(r);
#undef NOTE
	thin_close(md);
	if (odd)
		*odd += unexpected;
	return errors;
}

static int exercise(struct io_engine *io)
{
	return exercise_codes(io, NULL);
}

static void expect_damage(struct io_engine *io, uint64_t block)
{
	struct tp_log_capture cap;

	tp_log_capture(&cap);
	CU_ASSERT(exercise(io) > 0);
	tp_log_capture(NULL);
	CU_ASSERT(logged(&cap, block));
	io_destroy(io);
}

static void test_clean(void)
{
	struct io_engine *io = fresh();
	CU_ASSERT_EQUAL(exercise(io), 0);
	io_destroy(io);
}

static void test_bad_checksum(void)
{
	struct io_engine *io = fresh();
	blockp(io, dev0_leaf)[100] ^= 0x40;
	expect_damage(io, dev0_leaf);
}

static void test_wrong_blocknr(void)
{
	struct io_engine *io = fresh();
	le64_put(blockp(io, dev0_leaf) + 8, dev0_leaf + 1);
	fix_csum(io, dev0_leaf, BTREE_CSUM_XOR);
	expect_damage(io, dev0_leaf);
}

static void test_bad_nr_entries(void)
{
	struct io_engine *io = fresh();
	bn_set_nr(blockp(io, dev0_leaf), 300);
	fix_csum(io, dev0_leaf, BTREE_CSUM_XOR);
	expect_damage(io, dev0_leaf);
}

static void test_bad_max_entries(void)
{
	struct io_engine *io = fresh();
	le32_put(blockp(io, dev0_root) + 20, 100000);
	fix_csum(io, dev0_root, BTREE_CSUM_XOR);
	expect_damage(io, dev0_root);
}

static void test_loop(void)
{
	struct io_engine *io = fresh();
	bn_set_value64(blockp(io, dev0_root), 1, dev0_root);
	fix_csum(io, dev0_root, BTREE_CSUM_XOR);
	expect_damage(io, dev0_root);
}

static void test_details(void)
{
	struct io_engine *io = fresh();
	blockp(io, details_root)[200] ^= 1;
	expect_damage(io, details_root);
}

static void test_bitmap(void)
{
	struct io_engine *io = fresh();
	blockp(io, meta_bitmap)[30] ^= 1;
	expect_damage(io, meta_bitmap);
}

static void test_superblock(void)
{
	struct io_engine *io = fresh();
	struct thin_md *md;
	struct tp_log_capture cap;

	tp_log_capture(&cap);
	blockp(io, 0)[300] ^= 1;
	CU_ASSERT_EQUAL(thin_open(io, 0, &md), -EUCLEAN);
	CU_ASSERT(strstr(cap.buf, "superblock") != NULL);
	memset(blockp(io, 0), 0, 4096);
	CU_ASSERT_EQUAL(thin_open(io, 0, &md), -ENODATA);
	/* truncated: the space map covers blocks the area no longer has */
	memcpy(io_mem_data(io), base, SIZE);
	CU_ASSERT_EQUAL(io_mem_resize(io, SIZE / 8), 0);
	CU_ASSERT_EQUAL(thin_open(io, 0, &md), -EUCLEAN);
	CU_ASSERT(exercise(io) > 0);
	CU_ASSERT_EQUAL(io_mem_resize(io, 1000), 0);
	CU_ASSERT(thin_open(io, 0, &md) < 0);
	tp_log_capture(NULL);
	io_destroy(io);
}

struct dmg {
	int reports, devices;
	uint64_t mappings, block, begin, end;
};

static int on_damage(void *ctx, const struct thin_damage *d)
{
	struct dmg *g = ctx;
	g->reports++;
	g->block = d->block;
	g->begin = d->begin;
	g->end = d->end;
	return 0;
}

static int on_dev(void *ctx, const struct thin_ir_device *d)
{
	(void)d;
	((struct dmg *)ctx)->devices++;
	return 0;
}

static int on_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((struct dmg *)ctx)->mappings += runs[i].length;
	return 0;
}

static void test_damage_visitor(void)
{
	struct io_engine *io = fresh();
	struct dmg g = { 0 };
	struct thin_ir_visitor v = { &g, NULL, NULL, on_dev, NULL, on_map };
	struct thin_damage_visitor dv = { &g, on_damage };
	uint64_t lo = bn_key(blockp(io, dev0_root), 1), hi = bn_key(blockp(io, dev0_root), 2);
	uint32_t lost = bn_nr(blockp(io, dev0_leaf));

	blockp(io, dev0_leaf)[100] ^= 0x40;
	CU_ASSERT_EQUAL(thin_walk_io(io, 0, &v, &dv), 0);
	CU_ASSERT_EQUAL(g.reports, 1);
	CU_ASSERT_EQUAL(g.block, dev0_leaf);
	CU_ASSERT(g.begin == lo && g.end == hi);
	CU_ASSERT_EQUAL(g.devices, 2);
	CU_ASSERT_EQUAL(g.mappings, 3010 - lost);
	io_destroy(io);
}

static int count_kinds(void *ctx, const struct thin_damage *d)
{
	((int *)ctx)[d->kind]++;
	return 0;
}

/* A lost details or top-level node is reported once, not again as a
 * mismatch for every device in its range. */
static void test_damage_device_trees(void)
{
	for (int which = 0; which < 2; which++) {
		struct io_engine *io = fresh();
		struct thin_sb sb;
		int kinds[8] = { 0 };
		struct dmg g = { 0 };
		struct thin_ir_visitor v = { &g, NULL, NULL, on_dev, NULL, on_map };
		struct thin_damage_visitor dv = { kinds, count_kinds };

		CU_ASSERT_FATAL(thin_sb_read(io, 0, &sb) == 0);
		blockp(io, which ? sb.mapping_root : sb.details_root)[64] ^= 1;
		CU_ASSERT_EQUAL(thin_walk_io(io, 0, &v, &dv), 0);
		CU_ASSERT_EQUAL(kinds[which ? THIN_DAMAGE_TOP : THIN_DAMAGE_DETAILS], 1);
		CU_ASSERT_EQUAL(kinds[THIN_DAMAGE_MISMATCH], 0);
		CU_ASSERT_EQUAL(g.devices, 0);
		io_destroy(io);
	}
}

/* Wrong counts are reported one by one (leaks told apart) and fixed. */
struct diffs {
	int leaks, other;
};

static int on_diff(void *ctx, const struct thin_count_diff *d)
{
	struct diffs *x = ctx;
	if (d->got == 1 && d->expected == 0)
		x->leaks++;
	else
		x->other++;
	return 0;
}

static void test_count_fix(void)
{
	struct io_engine *io = fresh();
	struct thin_md *md;
	struct diffs x = { 0, 0 };
	uint64_t db;

	CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
	for (int i = 0; i < 3; i++)	/* data blocks nothing maps: leaks */
		CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), 0);
	CU_ASSERT_EQUAL(sm_inc(md->msm, dev0_root), 0);	/* a count too high */
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	CU_ASSERT_EQUAL(thin_verify_counts_cb(md, on_diff, &x), -EUCLEAN);
	CU_ASSERT(x.leaks == 3 && x.other == 1);
	CU_ASSERT_EQUAL(thin_fix_counts(md), 0);
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	thin_close(md);
	CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	CU_ASSERT_EQUAL(exercise(io), 0);
	io_destroy(io);
}

/* Random bit flips (some behind a fixed checksum). What it asserts:
 * the read-only operations (the walk, with and without a damage visitor,
 * and the checker) leave the image byte for byte as it was; the walk gives
 * 0 or a clean error; a walk that fails makes the checker say fatal; and
 * every operation of exercise() gives success or a clean error (allowed()).
 * Not a crash is the least of it (ASan runs it too). */
static int count_damage(void *ctx, const struct thin_damage *d)
{
	(void)d;
	(*(int *)ctx)++;
	return 0;
}

static void test_random_damage(void)
{
	uint64_t rs = 12345;
	struct tp_log_capture cap;
	int odd = 0, changed = 0, walk_odd = 0, missed = 0, failing = 0;

	tp_log_capture(&cap);
	for (int i = 0; i < 150; i++) {
		struct io_engine *io = fresh();
		struct thin_ir_visitor nothing = { 0 };
		struct thin_check_report rep;
		int blocks = 1 + (int)(rs % 3), nd = 0, r, rd;
		struct thin_damage_visitor dv = { &nd, count_damage };
		uint32_t before;

		for (int k = 0; k < blocks; k++) {
			rs = rs * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t b = (rs >> 20) % 64;	/* everything lives low */
			unsigned off = (unsigned)((rs >> 40) % 4096);
			blockp(io, b)[off] ^= (unsigned char)(1u << (rs % 8));
			if (rs & 1) {	/* sometimes a damage the checksum does not see */
				uint32_t salt = bn_flags(blockp(io, b)) ? BTREE_CSUM_XOR : SM_BITMAP_CSUM_XOR;
				fix_csum(io, b, b == 0 ? THIN_SB_CSUM_XOR : salt);
			}
		}
		before = tp_crc32c(0, io_mem_data(io), SIZE);
		r = thin_walk_io(io, 0, &nothing, NULL);
		rd = thin_walk_io(io, 0, &nothing, &dv);
		walk_odd += (r && r != -EUCLEAN && r != -ENODATA) ||
			    (rd && rd != -EUCLEAN && rd != -ENODATA) || (!r != !nd && r != -ENODATA);
		CU_ASSERT_EQUAL(thin_check_io(io, NULL, &rep), 0);
		if (r) {
			failing++;
			missed += rep.f.verdict != THIN_CHECK_FATAL;
		}
		thin_check_report_free(&rep);
		changed += tp_crc32c(0, io_mem_data(io), SIZE) != before;
		(void)exercise_codes(io, &odd);
		io_destroy(io);
	}
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(changed, 0);
	CU_ASSERT_EQUAL(walk_odd, 0);
	CU_ASSERT_EQUAL(missed, 0);
	CU_ASSERT_EQUAL(odd, 0);
	CU_ASSERT(failing > 0);	/* the damage is seen at all */
}

TP_TEST_SUITE(thin_corrupt, setup, cleanup,
	      { "clean", test_clean },
	      { "bad_checksum", test_bad_checksum },
	      { "wrong_blocknr", test_wrong_blocknr },
	      { "bad_nr_entries", test_bad_nr_entries },
	      { "bad_max_entries", test_bad_max_entries },
	      { "loop", test_loop },
	      { "details", test_details },
	      { "bitmap", test_bitmap },
	      { "superblock_truncated", test_superblock },
	      { "damage_visitor", test_damage_visitor },
	      { "damage_device_trees", test_damage_device_trees },
	      { "count_fix", test_count_fix },
	      { "random_damage", test_random_damage })
