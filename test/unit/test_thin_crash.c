/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Crash consistency: one transaction is run again and again, with a write
 * error at every point (the fault engine; one block per write, so there is
 * a point between any two blocks) and with a power cut at every point (the
 * crash simulator, test/lib/io_crash.h: writes since the last flush are
 * volatile and any subset of them survives). The metadata reopened
 * afterwards must be exactly the old or the new committed state, with
 * every reference count right, and take one more transaction. A last test
 * loses the pre-commit flush on purpose and requires the simulator to
 * find a bad state. */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_internal.h"
#include "test/lib/io_test.h"
#include "test/unit/crash_digest.h"
#include "test/unit/crash_sim.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE (4u << 20)

/* ---- a digest of everything a walk reports (crash_digest.h) ---- */

static int digest_of(struct io_engine *io, uint32_t *out)
{
	*out = 0;
	return crash_digest_thin(io, out);
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

/* What a cut left on IO: NULL when it is the old or the new state (OLDS or
 * NEWS counted), its counts are right and one more transaction commits on
 * top; else what is wrong. */
static const char *judge(struct io_engine *io, uint32_t old_digest, uint32_t new_digest,
			 int *olds, int *news)
{
	struct thin_md *md;
	uint32_t d;

	if (digest_of(io, &d))
		return "the metadata does not open or walk";
	if (d != old_digest && d != new_digest)
		return "neither the old nor the new state";
	*olds += d == old_digest;
	*news += d == new_digest;
	if (thin_open(io, 0, &md))
		return "the metadata does not open";
	if (thin_verify_counts(md) || thin_create_thin(md, 77) || map_some(md, 77, 0, 10, 1) ||
	    thin_commit(md) || thin_verify_counts(md)) {
		thin_close(md);
		return "wrong reference counts, or no transaction commits on top";
	}
	thin_close(md);
	return NULL;
}

/* Run TXN over BEFORE in a crash domain that loses flush LOSE_FLUSH (or
 * UINT64_MAX: none), cutting the power before every write and flush and
 * after the last, each time keeping all, none or random subsets of the
 * cached writes (ROUNDS rounds, crash_sim.h). Returns the number of bad
 * outcomes; with REPORT each is reported (seed included) and fails the
 * test. */
static unsigned crash_cuts(const char *what, const unsigned char *before, struct io_engine *io,
			   int (*txn)(struct thin_md *), uint64_t events, unsigned rounds,
			   uint64_t lose_flush, int report, uint32_t old_digest,
			   uint32_t new_digest, int *olds, int *news)
{
	unsigned bad = 0;

	for (uint64_t at = 0; at <= events; at++)
		for (unsigned round = 0; round < rounds; round++) {
			struct io_crash *c;
			struct io_engine *e;
			struct thin_md *md;
			const char *why;

			memcpy(io_mem_data(io), before, SIZE);
			CU_ASSERT_FATAL(io_crash_create(crash_seed(at, round), &c) == 0);
			CU_ASSERT_FATAL(io_crash_wrap(c, io, 0, &e) == 0);
			io_crash_lose_flush(c, lose_flush);
			io_crash_arm(c, at, crash_mode(round));
			CU_ASSERT_FATAL(thin_open(e, 0, &md) == 0);
			(void)txn(md);	/* fails at the cut, but for the last point */
			thin_close(md);
			CU_ASSERT_EQUAL(io_crash_cut(c), 0);
			io_destroy(e);
			io_crash_destroy(c);
			if ((why = judge(io, old_digest, new_digest, olds, news))) {
				bad++;
				if (report)
					crash_report(what, at, round, why);
				CU_ASSERT(!report);
			}
		}
	return bad;
}

struct workload {
	const char *name;
	int (*base)(struct thin_md *);
	int (*txn)(struct thin_md *);
};

/* The old state in BEFORE (and on IO), its digest and the new one; the
 * events (writes and flushes) and the flushes of the transaction in a
 * crash domain. */
static void prepare(const struct workload *w, struct io_engine **io, unsigned char **before,
		    uint32_t *old_digest, uint32_t *new_digest, uint64_t *events,
		    uint64_t *flushes)
{
	struct thin_md *md;
	struct io_crash *c;
	struct io_engine *e;

	*before = malloc(SIZE);
	CU_ASSERT_FATAL(*before != NULL);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "crash", io) == 0);
	CU_ASSERT_FATAL(thin_format(*io, 128, 8000, &md) == 0);
	CU_ASSERT_FATAL(w->base(md) == 0);
	thin_close(md);
	memcpy(*before, io_mem_data(*io), SIZE);
	CU_ASSERT_FATAL(digest_of(*io, old_digest) == 0);
	CU_ASSERT_FATAL(io_crash_create(1, &c) == 0);
	CU_ASSERT_FATAL(io_crash_wrap(c, *io, 0, &e) == 0);
	CU_ASSERT_FATAL(thin_open(e, 0, &md) == 0);
	CU_ASSERT_FATAL(w->txn(md) == 0);
	thin_close(md);
	*events = io_crash_events(c);
	*flushes = io_crash_flushes(c);
	io_destroy(e);
	io_crash_destroy(c);
	CU_ASSERT_FATAL(digest_of(*io, new_digest) == 0);
	CU_ASSERT_NOT_EQUAL(*old_digest, *new_digest);
	memcpy(io_mem_data(*io), *before, SIZE);
}

/* Write errors (the fault engine) at every point: the transaction fails
 * with -EIO, abort reloads the old state, and what is on disk is the old
 * or the new state. Then power cuts (the crash simulator) at every point. */
static void cut_everywhere(const struct workload *w, uint64_t min_writes)
{
	struct io_engine *io, *f;
	struct thin_md *md;
	unsigned char *before;
	uint32_t old_digest, new_digest;
	uint64_t writes, events, flushes;
	int olds = 0, news = 0;
	struct tp_log_capture cap;

	prepare(w, &io, &before, &old_digest, &new_digest, &events, &flushes);
	/* the write count, one block per write so there is a point between any two */
	CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
	CU_ASSERT_FATAL(thin_open(f, 0, &md) == 0);
	bm_set_max_io(md->bm, 1);
	CU_ASSERT_FATAL(w->txn(md) == 0);
	thin_close(md);
	writes = io_fault_writes(f);
	io_destroy(f);
	CU_ASSERT(writes >= min_writes);

	tp_log_capture(&cap);
	for (uint64_t n = 0; n <= writes; n++) {
		const char *why;
		int r;
		memcpy(io_mem_data(io), before, SIZE);
		CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
		CU_ASSERT_FATAL(thin_open(f, 0, &md) == 0);
		bm_set_max_io(md->bm, 1);
		io_fault_set(f, IO_FAULT_FAIL, n);
		r = w->txn(md);
		if (n < writes) {
			CU_ASSERT_EQUAL(r, -EIO);
			/* abort reloads the old state from disk */
			CU_ASSERT_EQUAL(thin_abort(md), 0);
			CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		}
		thin_close(md);
		io_destroy(f);
		why = judge(io, old_digest, new_digest, &olds, &news);
		CU_ASSERT_PTR_NULL(why);
	}
	CU_ASSERT_EQUAL(crash_cuts(w->name, before, io, w->txn, events, crash_rounds(),
				   UINT64_MAX, 1, old_digest, new_digest, &olds, &news), 0);
	tp_log_capture(NULL);
	if (getenv("TP_TEST_VERBOSE"))
		fprintf(stderr, "crash test %s: %llu write errors, %llu power cuts x %u, %d old, "
			"%d new outcomes\n", w->name, (unsigned long long)writes + 1,
			(unsigned long long)events + 1, crash_rounds(), olds, news);
	CU_ASSERT(olds > 0 && news > 0);
	io_destroy(io);
	free(before);
}

static const struct workload mixed = { "thin commit (mixed)", base_state, transaction };
static const struct workload shared = { "thin commit (shared counts)", base_shared,
					transaction_shared };

static void test_cut_everywhere(void)
{
	cut_everywhere(&mixed, 40);
}

static void test_cut_everywhere_shared(void)
{
	cut_everywhere(&shared, 30);
}

/* The proof that the simulator finds a missing flush: the commit's first
 * flush (the pre-commit one, between the blocks and the superblock that
 * points at them) is lost, as if the code path did not call it. Some cut
 * must then leave a superblock over blocks that never reached the disk. */
static void test_missing_flush_found(void)
{
	struct io_engine *io;
	unsigned char *before;
	uint32_t old_digest, new_digest;
	uint64_t events, flushes;
	int olds = 0, news = 0;
	unsigned bad;
	struct tp_log_capture cap;

	prepare(&mixed, &io, &before, &old_digest, &new_digest, &events, &flushes);
	CU_ASSERT_EQUAL(flushes, 2);	/* pre-commit, then the superblock */
	tp_log_capture(&cap);
	/* 16 random rounds: a seed that misses the bad state is about 2^-16 */
	bad = crash_cuts("thin commit without its pre-commit flush", before, io, transaction,
			 events, 2 + 16, 0, 0, old_digest, new_digest, &olds, &news);
	tp_log_capture(NULL);
	if (getenv("TP_TEST_VERBOSE"))
		fprintf(stderr, "missing flush: %u bad outcomes found\n", bad);
	CU_ASSERT(bad > 0);
	io_destroy(io);
	free(before);
}

/* Formatting over old metadata and crashing (power cuts at every point):
 * the old metadata, unformatted, or the new empty metadata; never the old
 * superblock over half-overwritten blocks. */
static const char *judge_format(struct io_engine *io, uint32_t old_digest, int *olds,
				int *blanks, int *news)
{
	struct thin_ir_superblock sb;
	struct thin_md *md;
	uint32_t d;
	int r = thin_open(io, 0, &md);

	if (r == -ENODATA) {
		(*blanks)++;
		return NULL;
	}
	if (r)
		return "the metadata does not open";
	r = thin_superblock_info(md, &sb) || thin_verify_counts(md);
	thin_close(md);
	if (r)
		return "wrong reference counts";
	if (sb.data_block_size == 256) {
		(*news)++;
		return NULL;
	}
	if (digest_of(io, &d) || d != old_digest)
		return "the old superblock over changed blocks";
	(*olds)++;
	return NULL;
}

static void test_format_cut(void)
{
	struct io_engine *io, *e;
	struct io_crash *c;
	struct thin_md *md;
	unsigned char *old = malloc(SIZE);
	uint64_t events;
	uint32_t old_digest;
	int olds = 0, blanks = 0, news = 0;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(SIZE, "fmt", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 8000, &md) == 0);
	CU_ASSERT_FATAL(base_state(md) == 0);
	thin_close(md);
	memcpy(old, io_mem_data(io), SIZE);
	CU_ASSERT_FATAL(digest_of(io, &old_digest) == 0);
	CU_ASSERT_FATAL(io_crash_create(1, &c) == 0);
	CU_ASSERT_FATAL(io_crash_wrap(c, io, 0, &e) == 0);
	CU_ASSERT_FATAL(thin_format(e, 256, 500, &md) == 0);
	thin_close(md);
	events = io_crash_events(c);
	io_destroy(e);
	io_crash_destroy(c);
	tp_log_capture(&cap);
	for (uint64_t at = 0; at <= events; at++)
		for (unsigned round = 0; round < crash_rounds(); round++) {
			const char *why;
			memcpy(io_mem_data(io), old, SIZE);
			CU_ASSERT_FATAL(io_crash_create(crash_seed(at, round), &c) == 0);
			CU_ASSERT_FATAL(io_crash_wrap(c, io, 0, &e) == 0);
			io_crash_arm(c, at, crash_mode(round));
			if (thin_format(e, 256, 500, &md) == 0)
				thin_close(md);
			CU_ASSERT_EQUAL(io_crash_cut(c), 0);
			io_destroy(e);
			io_crash_destroy(c);
			if ((why = judge_format(io, old_digest, &olds, &blanks, &news))) {
				crash_report("thin_format", at, round, why);
				CU_FAIL("a power cut left a bad state");
			}
		}
	tp_log_capture(NULL);
	CU_ASSERT(olds > 0 && blanks > 0 && news > 0);
	io_destroy(io);
	free(old);
}

TP_TEST_SUITE(thin_crash, NULL, NULL, { "cut_everywhere", test_cut_everywhere },
	      { "cut_everywhere_shared", test_cut_everywhere_shared },
	      { "the simulator finds a missing flush", test_missing_flush_found },
	      { "format_cut", test_format_cut })
