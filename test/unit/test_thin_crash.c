/* Crash consistency: one transaction is run again and again with the
 * fault engine cutting the writes at every point (dropped silently, or
 * failing); the metadata reopened afterwards must be exactly the old or
 * the new committed state, with every reference count right. The block
 * manager is told to write one block at a time so there is a cut point
 * between any two blocks. */
#include "lib/base/crc32c.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_internal.h"
#include "metadata/thin/thin_walk.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE (4u << 20)

/* ---- a digest of everything a walk reports ---- */

struct digest {
	uint32_t crc;
};

static void mix(struct digest *d, uint64_t v)
{
	d->crc = tp_crc32c(d->crc, &v, sizeof(v));
}

static int d_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	mix(ctx, sb->time);
	mix(ctx, sb->transaction);
	mix(ctx, sb->flags);
	mix(ctx, sb->nr_data_blocks);
	mix(ctx, sb->metadata_snap);
	return 0;
}

static int d_dev(void *ctx, const struct thin_ir_device *d)
{
	mix(ctx, d->dev_id);
	mix(ctx, d->mapped_blocks);
	mix(ctx, d->transaction);
	mix(ctx, d->creation_time);
	mix(ctx, d->snap_time);
	return 0;
}

static int d_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < runs[i].length; k++) {
			mix(ctx, runs[i].origin_begin + k);
			mix(ctx, runs[i].data_begin + k);
			mix(ctx, runs[i].time);
		}
	return 0;
}

static int digest_of(struct io_engine *io, uint32_t *out)
{
	struct digest d = { 0 };
	struct thin_ir_visitor v = { &d, d_sb, NULL, d_dev, NULL, d_map };
	int r = thin_walk_io(io, 0, &v, NULL);

	*out = d.crc;
	return r;
}

/* ---- the workloads ---- */

static int map_some(struct thin_md *md, uint64_t dev, uint64_t from, uint64_t n, uint64_t step)
{
	uint64_t db;
	int r;

	for (uint64_t i = 0; i < n; i++)
		if ((r = thin_alloc_data_block(md, &db)) ||
		    (r = thin_insert_mapping_alloced(md, dev, from + i * step, db)))
			return r;
	return 0;
}

static int base_state(struct thin_md *md)
{
	int r;

	if ((r = thin_create_thin(md, 0)) || (r = map_some(md, 0, 0, 4000, 1)) ||
	    (r = thin_create_thin(md, 1)) || (r = map_some(md, 1, 5, 300, 3)) ||
	    (r = thin_create_snap(md, 2, 0)) || (r = map_some(md, 0, 100, 50, 2)))
		return r;
	return thin_commit(md);
}

static int transaction(struct thin_md *md)
{
	int r;

	if ((r = thin_create_thin(md, 3)) || (r = map_some(md, 3, 0, 400, 1)) ||
	    (r = thin_create_snap(md, 4, 1)) || (r = map_some(md, 1, 5, 60, 3)) ||
	    (r = thin_delete(md, 0)) || (r = map_some(md, 2, 1000, 300, 5)) ||
	    (r = map_some(md, 2, 7, 80, 50)))	/* touches every leaf of the shared tree */
		return r;
	for (uint64_t v = 0; v < 40; v++)
		if ((r = thin_remove_mapping(md, 2, v)))
			return r;
	if ((r = thin_set_transaction_id(md, 0, 42)) || (r = thin_resize_data(md, 9000)))
		return r;
	return thin_commit(md);
}

/* Counts >= 3 on both sides of the cut: four devices map the same data
 * blocks (count 4); the transaction moves counts within the ref-count tree
 * (4 -> 3), out of it (3 -> 2) and into it (2 -> 3), over more leaves than
 * one. */
static int map_shared(struct thin_md *md, uint64_t dev, uint64_t from, uint64_t n)
{
	int r;

	for (uint64_t i = 0; i < n; i++)
		if ((r = thin_insert_mapping(md, dev, i, from + i)))
			return r;
	return 0;
}

static int base_shared(struct thin_md *md)
{
	int r;

	if ((r = thin_create_thin(md, 0)) || (r = map_some(md, 0, 0, 1500, 1)))
		return r;
	for (uint64_t dev = 1; dev < 4; dev++)
		if ((r = thin_create_thin(md, dev)) || (r = map_shared(md, dev, 0, 1500)))
			return r;
	return thin_commit(md);
}

static int transaction_shared(struct thin_md *md)
{
	int r;

	if ((r = thin_delete(md, 1)))	/* 4 -> 3 */
		return r;
	for (uint64_t v = 0; v < 1500; v += 2)	/* 3 -> 2 */
		if ((r = thin_remove_mapping(md, 2, v)))
			return r;
	if ((r = thin_create_thin(md, 5)) || (r = map_shared(md, 5, 0, 700)) ||	/* 2 -> 3 */
	    (r = map_some(md, 3, 2000, 100, 1)))
		return r;
	return thin_commit(md);
}

static void cut_everywhere(int (*base)(struct thin_md *), int (*txn)(struct thin_md *),
			   uint64_t min_writes)
{
	struct io_engine *io, *f;
	struct thin_md *md;
	unsigned char *before = malloc(SIZE);
	uint32_t old_digest, new_digest, d;
	uint64_t writes;
	int olds = 0, news = 0;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(SIZE, "crash", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 8000, &md) == 0);
	CU_ASSERT_FATAL(base(md) == 0);
	thin_close(md);
	memcpy(before, io_mem_data(io), SIZE);
	CU_ASSERT_FATAL(digest_of(io, &old_digest) == 0);
	/* the transaction without faults: the new state and its write count */
	CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
	CU_ASSERT_FATAL(thin_open(f, 0, &md) == 0);
	bm_set_max_io(md->bm, 1);
	CU_ASSERT_FATAL(txn(md) == 0);
	thin_close(md);
	writes = io_fault_writes(f);
	io_destroy(f);
	CU_ASSERT_FATAL(digest_of(io, &new_digest) == 0);
	CU_ASSERT_NOT_EQUAL(old_digest, new_digest);
	CU_ASSERT(writes >= min_writes);
	if (getenv("TP_TEST_VERBOSE"))
		fprintf(stderr, "crash test: %llu write points\n", (unsigned long long)writes);

	tp_log_capture(&cap);
	for (int mode = IO_FAULT_FAIL; mode <= IO_FAULT_DROP; mode++) {
		for (uint64_t n = 0; n <= writes; n++) {
			int r;
			memcpy(io_mem_data(io), before, SIZE);
			CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
			CU_ASSERT_FATAL(thin_open(f, 0, &md) == 0);
			bm_set_max_io(md->bm, 1);
			io_fault_set(f, (enum io_fault_mode)mode, n);
			r = txn(md);
			if (mode == IO_FAULT_FAIL && n < writes) {
				CU_ASSERT_EQUAL(r, -EIO);
				/* abort reloads the old state from disk */
				CU_ASSERT_EQUAL(thin_abort(md), 0);
				CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
			}
			thin_close(md);
			io_destroy(f);
			/* reopen what is on "disk" */
			CU_ASSERT_FATAL(digest_of(io, &d) == 0);
			CU_ASSERT(d == old_digest || d == new_digest);
			olds += d == old_digest;
			news += d == new_digest;
			CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
			CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
			/* and it still works: one more transaction on top */
			CU_ASSERT_EQUAL(thin_create_thin(md, 77), 0);
			CU_ASSERT_EQUAL(map_some(md, 77, 0, 10, 1), 0);
			CU_ASSERT_EQUAL(thin_commit(md), 0);
			CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
			thin_close(md);
		}
	}
	tp_log_capture(NULL);
	CU_ASSERT(olds > 0 && news > 0);
	io_destroy(io);
	free(before);
}

static void test_cut_everywhere(void)
{
	cut_everywhere(base_state, transaction, 40);
}

static void test_cut_everywhere_shared(void)
{
	cut_everywhere(base_shared, transaction_shared, 30);
}

/* Formatting over old metadata and crashing: unformatted or the new empty
 * metadata, never the old superblock over half-overwritten blocks. */
static void test_format_cut(void)
{
	struct io_engine *io, *f;
	struct thin_md *md;
	unsigned char *old = malloc(SIZE);
	uint64_t writes, n;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(SIZE, "fmt", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 8000, &md) == 0);
	CU_ASSERT_FATAL(base_state(md) == 0);
	thin_close(md);
	memcpy(old, io_mem_data(io), SIZE);
	CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
	CU_ASSERT_FATAL(thin_format(f, 256, 500, &md) == 0);
	thin_close(md);
	writes = io_fault_writes(f);
	io_destroy(f);
	tp_log_capture(&cap);
	for (n = 0; n <= writes; n++) {
		struct thin_ir_superblock sb;
		int r;
		memcpy(io_mem_data(io), old, SIZE);
		CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
		io_fault_set(f, IO_FAULT_DROP, n);
		if (thin_format(f, 256, 500, &md) == 0)
			thin_close(md);
		io_destroy(f);
		r = thin_open(io, 0, &md);
		if (n == 0) {	/* nothing written: the old metadata stands */
			CU_ASSERT_EQUAL(r, 0);
		} else if (n < writes) {
			CU_ASSERT_EQUAL(r, -ENODATA);
		} else {
			CU_ASSERT_EQUAL_FATAL(r, 0);
			CU_ASSERT(thin_superblock_info(md, &sb) == 0 && sb.data_block_size == 256);
			CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		}
		if (!r)
			thin_close(md);
	}
	tp_log_capture(NULL);
	io_destroy(io);
	free(old);
}

TP_TEST_SUITE(thin_crash, NULL, NULL, { "cut_everywhere", test_cut_everywhere },
	      { "cut_everywhere_shared", test_cut_everywhere_shared },
	      { "format_cut", test_format_cut })
