/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commit invariants enforced by the block and transaction managers
 * (transaction_manager.h I6): a flush refuses a dirty block that is still
 * write locked, the pre-commit a dirty or locked superblock, the commit a
 * block changed after the pre-commit; every refusal names the block. And a
 * lock leaked inside the thin layer fails thin_commit, leaving the old
 * superblock (and so the old state) on disk. */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/transaction_manager.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_internal.h"
#include "test/lib/io_test.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 64u

static void fill(struct bm_block *blk, int c)
{
	memset(bm_block_data(blk), c, BM_BLOCK_SIZE);
}

static void test_flush_refuses_write_locked(void)
{
	struct io_engine *io;
	struct block_manager *bm;
	struct bm_block *a, *b;
	struct tp_log_capture cap;
	unsigned char *disk;

	CU_ASSERT_FATAL(io_mem_create(BLOCKS * BM_BLOCK_SIZE, "guard", &io) == 0);
	CU_ASSERT_FATAL(bm_create(io, 16, &bm) == 0);
	disk = io_mem_data(io);
	CU_ASSERT_FATAL(bm_write_lock_zero(bm, 3, NULL, &a) == 0);
	fill(a, 0x33);
	bm_unlock(a);
	CU_ASSERT_FATAL(bm_write_lock_zero(bm, 7, NULL, &b) == 0);
	fill(b, 0x77);	/* still locked: perhaps half updated */
	CU_ASSERT_EQUAL(bm_state(bm, 7), BM_STATE_DIRTY | BM_STATE_WRITE_LOCKED);
	CU_ASSERT_EQUAL(bm_state(bm, 3), BM_STATE_DIRTY);
	CU_ASSERT_EQUAL(bm_state(bm, 9), 0);

	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(bm_flush(bm), -EBUSY);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "metadata block 7 is dirty and still write-locked") != NULL);
	/* nothing written, not even the unlocked block */
	CU_ASSERT_EQUAL(disk[3 * BM_BLOCK_SIZE], 0);
	CU_ASSERT_EQUAL(disk[7 * BM_BLOCK_SIZE], 0);
	CU_ASSERT(bm_has_dirty(bm));

	bm_unlock(b);
	CU_ASSERT_EQUAL(bm_flush(bm), 0);
	CU_ASSERT_EQUAL(disk[3 * BM_BLOCK_SIZE], 0x33);
	CU_ASSERT_EQUAL(disk[7 * BM_BLOCK_SIZE], 0x77);
	CU_ASSERT(!bm_has_dirty(bm));
	/* a read lock on a clean block does not stop a flush */
	CU_ASSERT_FATAL(bm_read_lock(bm, 3, NULL, &a) == 0);
	CU_ASSERT_EQUAL(bm_flush(bm), 0);
	bm_unlock(a);
	bm_destroy(bm);
	io_destroy(io);
}

/* A new block, then the superblock (block 0) written before the
 * pre-commit, locked during it, or another block dirtied after it. */
static void test_pre_commit_and_commit(void)
{
	struct tm_env e;
	struct bm_block *blk, *sb;
	struct tp_log_capture cap;
	unsigned char *disk;
	uint64_t loc;

	tm_env_open(&e, "guard", BLOCKS, 16);
	disk = io_mem_data(e.io);
	CU_ASSERT_FATAL(tm_new_block(e.tm, NULL, &blk) == 0);
	fill(blk, 0x11);
	tm_unlock(e.tm, blk);

	/* a dirty superblock at pre-commit */
	CU_ASSERT_FATAL(bm_write_lock_zero(e.bm, 0, NULL, &sb) == 0);
	fill(sb, 0x5b);
	bm_unlock(sb);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tm_pre_commit(e.tm, 0), -EBUSY);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "superblock 0 is dirty at pre-commit") != NULL);
	CU_ASSERT_EQUAL(disk[0], 0);

	/* a superblock still locked at pre-commit and at commit */
	bm_forget(e.bm);
	CU_ASSERT_FATAL(tm_new_block(e.tm, NULL, &blk) == 0);
	fill(blk, 0x22);
	tm_unlock(e.tm, blk);
	CU_ASSERT_FATAL(bm_read_lock(e.bm, 0, NULL, &sb) == 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tm_pre_commit(e.tm, 0), -EBUSY);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "superblock 0 is still read-locked at pre-commit") != NULL);
	bm_unlock(sb);
	CU_ASSERT_EQUAL_FATAL(tm_pre_commit(e.tm, 0), 0);
	CU_ASSERT_FATAL(bm_write_lock_zero(e.bm, 0, NULL, &sb) == 0);
	fill(sb, 0x5b);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tm_commit(e.tm, 0), -EBUSY);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "superblock 0 is still write-locked at commit") != NULL);
	CU_ASSERT_EQUAL(disk[0], 0);

	/* a block changed between the pre-commit and the commit */
	bm_unlock(sb);
	CU_ASSERT_FATAL(tm_new_block(e.tm, NULL, &blk) == 0);
	fill(blk, 0x44);
	tm_unlock(e.tm, blk);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tm_commit(e.tm, 0), -EBUSY);
	tp_log_capture(NULL);
	{
		char want[128];
		snprintf(want, sizeof(want), "metadata block %llu changed after the pre-commit",
			 (unsigned long long)bm_block_location(blk));
		CU_ASSERT(strstr(cap.buf, want) != NULL);
	}
	CU_ASSERT_EQUAL(disk[0], 0);

	/* in order, it commits: the blocks, then the superblock */
	bm_forget(e.bm);
	CU_ASSERT_FATAL(tm_new_block(e.tm, NULL, &blk) == 0);
	fill(blk, 0x66);
	loc = bm_block_location(blk);
	tm_unlock(e.tm, blk);
	CU_ASSERT_EQUAL_FATAL(tm_pre_commit(e.tm, 0), 0);
	CU_ASSERT_EQUAL(disk[loc * BM_BLOCK_SIZE], 0x66);
	CU_ASSERT_EQUAL(disk[0], 0);
	CU_ASSERT_FATAL(bm_write_lock_zero(e.bm, 0, NULL, &sb) == 0);
	fill(sb, 0x5b);
	bm_unlock(sb);
	CU_ASSERT_EQUAL(tm_commit(e.tm, 0), 0);
	CU_ASSERT_EQUAL(disk[0], 0x5b);
	tm_env_close(&e);
}

/* A write lock leaked inside the thin layer (on a device's mapping root,
 * shadowed in this transaction): thin_commit fails naming the block, and
 * what is on disk still opens as the old state. */
static void test_thin_leaked_lock(void)
{
	struct io_engine *io;
	struct thin_md *md;
	struct bm_block *leak;
	struct thin_dev *dev;
	struct tp_log_capture cap;
	unsigned char sb_before[BM_BLOCK_SIZE];
	uint64_t dblock, trans, root;
	char want[96];

	CU_ASSERT_FATAL(io_mem_create(2u << 20, "leak", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 1000, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0);
	CU_ASSERT_FATAL(thin_set_transaction_id(md, 0, 1) == 0);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	memcpy(sb_before, io_mem_data(io), BM_BLOCK_SIZE);

	for (uint64_t v = 0; v < 50; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &dblock) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, v, dblock) == 0);
	}
	CU_ASSERT_FATAL(thin_set_transaction_id(md, 1, 2) == 0);
	dev = thin_find_dev(md, 1);
	CU_ASSERT_FATAL(dev != NULL);
	root = dev->root;
	CU_ASSERT_FATAL(bm_state(md->bm, root) & BM_STATE_DIRTY);
	CU_ASSERT_FATAL(bm_write_lock(md->bm, root, NULL, &leak) == 0);

	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(thin_commit(md), -EBUSY);
	tp_log_capture(NULL);
	snprintf(want, sizeof(want), "metadata block %llu is dirty and still write-locked",
		 (unsigned long long)root);
	CU_ASSERT(strstr(cap.buf, want) != NULL);
	CU_ASSERT(strstr(cap.buf, "commit failed") != NULL);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(io), sb_before, BM_BLOCK_SIZE), 0);
	bm_unlock(leak);
	thin_close(md);

	CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
	CU_ASSERT(thin_get_transaction_id(md, &trans) == 0 && trans == 1);
	CU_ASSERT_EQUAL(thin_lookup(md, 1, 0, &dblock, NULL), -ENODATA);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	io_destroy(io);
}

TP_TEST_SUITE(commit_guard, NULL, NULL,
	      { "flush refuses a write-locked dirty block", test_flush_refuses_write_locked },
	      { "pre-commit and commit order the superblock", test_pre_commit_and_commit },
	      { "a leaked lock fails the thin commit", test_thin_leaked_lock })
