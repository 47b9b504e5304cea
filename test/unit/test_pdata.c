/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdata: hash map, space maps (alloc, overflow, commit/reopen, growth),
 * btree insert/remove against a model with the fill invariant checked,
 * shadowing of shared trees, bottom-up builder. */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/btree.h"
#include "metadata/pdata/btree_build.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_ro.h"
#include "lib/base/le.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/transaction_manager.h"
#include "metadata/pdata/u64map.h"
#include "test/lib/io_test.h"
#include "test/unit/test_env.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 88172645463325252ull;

static uint64_t rnd(void)
{
	return tp_test_xorshift64(&rs);
}

static void test_u64map(void)
{
	struct u64map m;
	uint64_t v, k;
	size_t pos = 0, n = 0;

	u64map_init(&m);
	for (uint64_t i = 0; i < 10000; i++)
		CU_ASSERT_EQUAL_FATAL(u64map_put(&m, i * 7919, i), 0);
	CU_ASSERT_EQUAL(u64map_put(&m, UINT64_MAX, 5), 0);
	for (uint64_t i = 0; i < 10000; i += 2)
		CU_ASSERT_EQUAL(u64map_del(&m, i * 7919), 1);
	CU_ASSERT_EQUAL(u64map_del(&m, 2), 0);
	CU_ASSERT_EQUAL(m.nr, 5001);
	CU_ASSERT(u64map_get(&m, 7919, &v) && v == 1);
	CU_ASSERT(!u64map_get(&m, 0, NULL));
	CU_ASSERT(u64map_get(&m, UINT64_MAX, &v) && v == 5);
	while (u64map_next(&m, &pos, &k, &v))
		n++;
	CU_ASSERT_EQUAL(n, 5001);
	u64map_destroy(&m);
}

static void test_space_map(void)
{
	struct tm_env e;
	struct sm_root root;
	struct space_map *d, *d2, *m2;
	uint64_t b, first;
	uint32_t c;

	tm_env_open(&e, "pdata", 40000, 64);	/* three metadata bitmaps */
	CU_ASSERT_FATAL(sm_create(e.bm, SM_DATA, 50000, &d) == 0);
	CU_ASSERT_EQUAL(sm_new_block(d, &first), 0);
	for (int i = 0; i < 20000; i++)
		CU_ASSERT_EQUAL_FATAL(sm_new_block(d, &b), 0);
	CU_ASSERT_EQUAL(b, first + 20000);
	CU_ASSERT_EQUAL(sm_nr_allocated(d), 20001);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sm_inc(d, 17000), 0);	/* count 6: overflow tree */
	CU_ASSERT_EQUAL(sm_inc(d, 3), 0);		/* count 2 */
	CU_ASSERT_EQUAL(sm_dec(d, 5), 0);		/* freed: not reused before commit */
	{
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(sm_dec(d, 5), -EUCLEAN);	/* below zero */
		CU_ASSERT_EQUAL(sm_get(d, 50000, &c), -EUCLEAN);	/* beyond the end */
		tp_log_capture(NULL);
		CU_ASSERT(strstr(cap.buf, "block 5:") && strstr(cap.buf, "block 50000"));
	}
	CU_ASSERT_EQUAL(sm_new_block(d, &b), 0);
	CU_ASSERT_NOT_EQUAL(b, 5);
	CU_ASSERT_EQUAL(sm_extend(d, 70000), 0);
	CU_ASSERT_EQUAL(sm_extend(d, 60000), -EINVAL);
	CU_ASSERT_EQUAL(sm_commit(d, e.sm, &root), 0);
	{
		struct sm_root mroot;
		CU_ASSERT_EQUAL(sm_commit(e.sm, NULL, &mroot), 0);
		CU_ASSERT_EQUAL(bm_flush(e.bm), 0);
		bm_forget(e.bm);
		CU_ASSERT_FATAL(sm_open(e.bm, SM_METADATA, &mroot, &m2) == 0);
		CU_ASSERT_EQUAL(sm_nr_allocated(m2), sm_nr_allocated(e.sm));
		for (uint64_t x = 0; x < 40000; x += 97) {
			uint32_t c1, c2;
			CU_ASSERT_EQUAL(sm_get(m2, x, &c1), 0);
			CU_ASSERT_EQUAL(sm_get(e.sm, x, &c2), 0);
			CU_ASSERT_EQUAL(c1, c2);
		}
		sm_destroy(m2);
	}
	CU_ASSERT_FATAL(sm_open(e.bm, SM_DATA, &root, &d2) == 0);
	CU_ASSERT_EQUAL(sm_nr_blocks(d2), 70000);
	CU_ASSERT_EQUAL(sm_nr_allocated(d2), sm_nr_allocated(d));
	CU_ASSERT(sm_get(d2, 17000, &c) == 0 && c == 6);
	CU_ASSERT(sm_get(d2, 3, &c) == 0 && c == 2);
	CU_ASSERT(sm_get(d2, 5, &c) == 0 && c == 0);
	CU_ASSERT(sm_get(d2, 69999, &c) == 0 && c == 0);
	/* after the commit block 5 can be handed out again */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sm_dec(d2, 17000), 0);
	CU_ASSERT(sm_get(d2, 17000, &c) == 0 && c == 3);
	CU_ASSERT_EQUAL(sm_dec(d2, 17000), 0);
	CU_ASSERT(sm_get(d2, 17000, &c) == 0 && c == 2);
	sm_destroy(d2);
	sm_destroy(d);
	tm_env_close(&e);
}

/* More bitmaps than stay loaded: unchanged ones are dropped and re-read,
 * changed ones kept (or, with sm_set_meta, written out early); counts stay
 * right either way. */
static void test_space_map_many_bitmaps(void)
{
	const uint64_t nb = 4200, nr = nb * SM_ENTRIES_PER_BITMAP;
	struct tm_env e;
	struct sm_root root, mroot;
	struct space_map *d;
	uint32_t c;

	tm_env_open(&e, "pdata", 16384, 64);
	CU_ASSERT_FATAL(sm_create(e.bm, SM_DATA, nr, &d) == 0);
	for (uint64_t i = 0; i < nb; i += 7)
		CU_ASSERT_EQUAL_FATAL(sm_set(d, i * SM_ENTRIES_PER_BITMAP + i % 100, 1 + i % 5), 0);
	CU_ASSERT_FATAL(sm_commit(d, e.sm, &root) == 0);
	CU_ASSERT_FATAL(sm_commit(e.sm, NULL, &mroot) == 0);
	CU_ASSERT_FATAL(bm_flush(e.bm) == 0);
	sm_destroy(d);
	CU_ASSERT_FATAL(sm_open(e.bm, SM_DATA, &root, &d) == 0);
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t i = 0; i < nb; i++) {
			uint64_t b = i * SM_ENTRIES_PER_BITMAP + i % 100;
			CU_ASSERT_EQUAL_FATAL(sm_get(d, b, &c), 0);
			CU_ASSERT_EQUAL_FATAL(c, (i % 7 ? 0 : 1 + i % 5) + (pass && i < 50));
			if (!pass && i < 50)	/* changed: must survive the evictions */
				CU_ASSERT_EQUAL_FATAL(sm_inc(d, b), 0);
		}
	}
	/* every bitmap changed: with its metadata map known, the data map
	 * writes changed ones out early (spills) to stay within the bound */
	sm_set_meta(d, e.sm);
	for (uint64_t i = 0; i < nb; i++)
		CU_ASSERT_EQUAL_FATAL(sm_inc(d, i * SM_ENTRIES_PER_BITMAP + 200), 0);
	for (uint64_t i = 0; i < nb; i += 13) {
		CU_ASSERT_EQUAL_FATAL(sm_inc(d, i * SM_ENTRIES_PER_BITMAP + 200), 0);
		CU_ASSERT(sm_get(d, i * SM_ENTRIES_PER_BITMAP + 200, &c) == 0 && c == 2);
	}
	CU_ASSERT_FATAL(sm_commit(d, e.sm, &root) == 0);
	CU_ASSERT_FATAL(sm_commit(e.sm, NULL, &mroot) == 0);
	CU_ASSERT_FATAL(bm_flush(e.bm) == 0);
	sm_destroy(d);
	bm_forget(e.bm);
	CU_ASSERT_FATAL(sm_open(e.bm, SM_DATA, &root, &d) == 0);
	for (uint64_t i = 0; i < nb; i++) {
		uint64_t b = i * SM_ENTRIES_PER_BITMAP;
		CU_ASSERT_EQUAL_FATAL(sm_get(d, b + 200, &c), 0);
		CU_ASSERT_EQUAL_FATAL(c, i % 13 ? 1 : 2);
		CU_ASSERT_EQUAL_FATAL(sm_get(d, b + i % 100, &c), 0);
		CU_ASSERT_EQUAL_FATAL(c, (i % 7 ? 0 : 1 + i % 5) + (i < 50));
	}
	sm_destroy(d);
	tm_env_close(&e);
}

/* Counts >= 3 at scale: more changes in one transaction than the dirty map
 * keeps (they go into the ref-count tree before the commit), counts right
 * after reopening; then a commit of one changed count writes the path to
 * it in the ref-count tree and the metadata map's own changes, whatever
 * the size of the tree (the O(change) property; the old commit rebuilt all
 * of the tree's hundreds of nodes). Every write is one block (max_io 1), counted
 * by the fault engine. */
static uint32_t big_count(uint64_t b)
{
	return 3 + (uint32_t)(b % 5);
}

static void test_space_map_overflow_scale(void)
{
	const uint64_t nr = 2000000, step = 8, nover = 240000;	/* 240k counts >= 3 */
	struct io_engine *mem, *io;
	struct block_manager *bm;
	struct space_map *m, *d;
	struct sm_root root, mroot;
	uint64_t w0, depth = 0, b;
	unsigned char lf[BM_BLOCK_SIZE], val[4];
	uint32_t c;

	CU_ASSERT_FATAL(io_mem_create(16384ull * 4096, "scale", &mem) == 0);
	CU_ASSERT_FATAL(io_fault_create(mem, 1, &io) == 0);
	CU_ASSERT_FATAL(bm_create(io, 256, &bm) == 0);
	bm_set_max_io(bm, 1);
	CU_ASSERT_FATAL(sm_create(bm, SM_METADATA, 16384, &m) == 0);
	CU_ASSERT_FATAL(sm_set(m, 0, 1) == 0);
	CU_ASSERT_FATAL(sm_create(bm, SM_DATA, nr, &d) == 0);
	sm_set_meta(d, m);
	for (uint64_t i = 0; i < nover; i++)
		CU_ASSERT_EQUAL_FATAL(sm_set(d, i * step, big_count(i * step)), 0);
	for (uint64_t i = 0; i < nover; i += 3)	/* back below 3: leave the tree */
		CU_ASSERT_EQUAL_FATAL(sm_set(d, i * step, 2), 0);
	CU_ASSERT(sm_get(d, 9 * step, &c) == 0 && c == 2);
	CU_ASSERT(sm_get(d, 10 * step, &c) == 0 && c == big_count(10 * step));
	CU_ASSERT_FATAL(sm_commit(d, m, &root) == 0);
	CU_ASSERT_FATAL(sm_commit(m, NULL, &mroot) == 0);
	CU_ASSERT_FATAL(bm_flush(bm) == 0);
	sm_destroy(d);
	sm_destroy(m);
	bm_forget(bm);

	CU_ASSERT_FATAL(sm_open(bm, SM_METADATA, &mroot, &m) == 0);
	CU_ASSERT_FATAL(sm_open(bm, SM_DATA, &root, &d) == 0);
	sm_set_meta(d, m);
	for (uint64_t i = 0; i < nover; i++) {
		CU_ASSERT_EQUAL_FATAL(sm_get(d, i * step, &c), 0);
		CU_ASSERT_EQUAL_FATAL(c, i % 3 ? big_count(i * step) : 2);
		CU_ASSERT_EQUAL_FATAL(sm_get(d, i * step + 1, &c), 0);
		CU_ASSERT_EQUAL_FATAL(c, 0);
	}
	/* the depth of the ref-count tree: the path a change copies */
	for (b = root.ref_count_root;; depth++) {
		struct bm_block *blk;
		const void *n;
		int leaf;
		CU_ASSERT_FATAL(bm_read_lock(bm, b, &btree_node_validator, &blk) == 0);
		n = bm_block_data(blk);
		leaf = bn_is_leaf(n);
		b = leaf ? 0 : bn_value64(n, 0);
		bm_unlock(blk);
		if (leaf)
			break;
	}
	CU_ASSERT_EQUAL(depth, 2);	/* root, internal level, leaves: 3 nodes on a path */

	/* one count changes (4 -> 5: the bitmap still says 3+) */
	w0 = io_fault_writes(io);
	CU_ASSERT_EQUAL(sm_inc(d, 100 * step + 0), 0);
	CU_ASSERT_FATAL(sm_commit(d, m, &root) == 0);
	CU_ASSERT_FATAL(sm_commit(m, NULL, &mroot) == 0);
	CU_ASSERT_FATAL(bm_flush(bm) == 0);
	/* 3 ref-count nodes + 1 metadata bitmap (3 allocated, 3 freed, in the
	 * first one) + the metadata index block */
	CU_ASSERT_EQUAL(io_fault_writes(io) - w0, 5);

	/* one count leaves the tree (3+ -> 2): its data bitmap changes too, so
	 * the data index (one leaf for 123 bitmaps) is written again */
	/* its leaf is a third full (a third of the counts left the tree): the
	 * remove rebalances it with a neighbour */
	CU_ASSERT_EQUAL(btree_ro_lookup(bm, root.ref_count_root, 4, 200 * step, val, lf), 0);
	CU_ASSERT_EQUAL(bn_nr(lf), bn_max(lf) / 3);
	w0 = io_fault_writes(io);
	CU_ASSERT_EQUAL(sm_set(d, 200 * step, 2), 0);
	CU_ASSERT_FATAL(sm_commit(d, m, &root) == 0);
	CU_ASSERT_FATAL(sm_commit(m, NULL, &mroot) == 0);
	CU_ASSERT_FATAL(bm_flush(bm) == 0);
	/* 3 ref-count nodes on the path + the neighbour, the data bitmap, the
	 * data index (one leaf for 123 bitmaps), 1 metadata bitmap, the
	 * metadata index block */
	CU_ASSERT_EQUAL(io_fault_writes(io) - w0, 4 + 1 + 1 + 1 + 1);
	sm_destroy(d);
	sm_destroy(m);
	bm_forget(bm);

	CU_ASSERT_FATAL(sm_open(bm, SM_METADATA, &mroot, &m) == 0);
	CU_ASSERT_FATAL(sm_open(bm, SM_DATA, &root, &d) == 0);
	CU_ASSERT(sm_get(d, 100 * step, &c) == 0 && c == big_count(100 * step) + 1);
	CU_ASSERT(sm_get(d, 200 * step, &c) == 0 && c == 2);
	CU_ASSERT(sm_get(d, 202 * step, &c) == 0 && c == big_count(202 * step));
	sm_destroy(d);
	sm_destroy(m);
	bm_destroy(bm);
	io_destroy(io);
}

static void test_space_map_full(void)
{
	struct tm_env e;
	uint64_t b;
	int n = 0;

	tm_env_open(&e, "pdata", 100, 16);
	while (sm_new_block(e.sm, &b) == 0)
		n++;
	CU_ASSERT_EQUAL(n, 99);
	CU_ASSERT_EQUAL(sm_new_block(e.sm, &b), -ENOSPC);
	tm_env_close(&e);
}

/* ---- btree against a model ---- */

struct shape {
	struct tm *tm;
	int leaf_depth, errors;
	uint64_t entries;
};

static void check_shape(struct shape *s, uint64_t b, int depth, int root)
{
	struct bm_block *blk;
	const unsigned char *n;

	CU_ASSERT_FATAL(tm_read_lock(s->tm, b, &btree_node_validator, &blk) == 0);
	n = bm_block_data(blk);
	if (!root && bn_nr(n) < bn_max(n) / 3)
		s->errors++;
	if (btree_node_check(n, b, 8, BTREE_RULE_KEY_ORDER | BTREE_RULE_HEADER_DONE, NULL))
		s->errors++;
	if (bn_is_leaf(n)) {
		if (s->leaf_depth < 0)
			s->leaf_depth = depth;
		if (s->leaf_depth != depth)
			s->errors++;
		s->entries += bn_nr(n);
	} else {
		for (uint32_t i = 0; i < bn_nr(n); i++)
			check_shape(s, bn_value64(n, i), depth + 1, 0);
	}
	tm_unlock(s->tm, blk);
}

static int count_dec(void *ctx, const void *v)
{
	(void)v;
	(*(int *)ctx)++;
	return 0;
}

/* btree_walk's visitor: keys strictly ascending, each value the model's. */
struct walked {
	const uint64_t *model;
	uint64_t seen, last, errors;
};

static int walk_entry(void *ctx, uint64_t key, const void *value)
{
	struct walked *w = ctx;

	w->errors += (w->seen && key <= w->last) || le64_get(value) != w->model[key];
	w->last = key;
	w->seen++;
	return 0;
}

static int walk_leaf(void *ctx, const void *leaf)
{
	CU_ASSERT(bn_is_leaf(leaf));
	for (uint32_t i = 0; i < bn_nr(leaf); i++)
		walk_entry(ctx, bn_key(leaf, i), bn_value(leaf, i));
	return 0;
}

static void test_btree_model(void)
{
	enum { N = 6000, KEYS = 20000 };
	struct tm_env e;
	int decs = 0;
	struct btree_info info;
	uint64_t root, *model = calloc(KEYS, sizeof(uint64_t));
	unsigned char v[8];
	uint64_t live = 0;

	tm_env_open(&e, "pdata", 4096, 16);	/* a tiny cache: dirty blocks get evicted */
	info = (struct btree_info){ e.tm, { 8, &decs, NULL, count_dec } };
	CU_ASSERT_FATAL(btree_empty(&info, &root) == 0);
	for (int i = 0; i < N; i++) {
		uint64_t k = rnd() % KEYS;
		int ins;
		le64_put(v, k * 3 + 1);
		CU_ASSERT_EQUAL_FATAL(btree_insert(&info, root, k, v, &root, &ins, 0), 0);
		CU_ASSERT_EQUAL(ins, !model[k]);
		live += !model[k];
		model[k] = k * 3 + 1;
	}
	for (int i = 0; i < 2 * N; i++) {
		uint64_t k = rnd() % KEYS;
		int r = btree_remove(&info, root, k, &root);
		CU_ASSERT_EQUAL_FATAL(r, model[k] ? 0 : -ENODATA);
		live -= !!model[k];
		model[k] = 0;
		if (i % 1000 == 0) {
			struct shape s = { e.tm, -1, 0, 0 };
			check_shape(&s, root, 0, 1);
			CU_ASSERT_EQUAL(s.errors, 0);
			CU_ASSERT_EQUAL(s.entries, live);
		}
	}
	for (uint64_t k = 0; k < KEYS; k++) {
		int r = btree_lookup(&info, root, k, v);
		CU_ASSERT_EQUAL_FATAL(r, model[k] ? 0 : -ENODATA);
		if (!r)
			CU_ASSERT_EQUAL(le64_get(v), model[k]);
	}
	{
		uint64_t found;
		CU_ASSERT_EQUAL(btree_lookup_ge(&info, root, 0, &found, v), live ? 0 : -ENODATA);
	}
	/* the walk gives every entry in key order with its value; the count
	 * is their number */
	{
		struct walked w = { model, 0, 0, 0 };
		uint64_t n = 0;

		CU_ASSERT_EQUAL(btree_walk(&info, root, walk_entry, &w), 0);
		CU_ASSERT_EQUAL(w.seen, live);
		CU_ASSERT_EQUAL(w.errors, 0);
		CU_ASSERT_EQUAL(btree_count(&info, root, &n), 0);
		CU_ASSERT_EQUAL(n, live);
		/* the same entries a leaf at a time */
		w = (struct walked){ model, 0, 0, 0 };
		CU_ASSERT_EQUAL(btree_walk_leaves(&info, root, walk_leaf, &w), 0);
		CU_ASSERT_EQUAL(w.seen, live);
		CU_ASSERT_EQUAL(w.errors, 0);
	}
	/* remove everything, a leaf's worth at a time (btree_remove_run, as the
	 * space maps do), in two halves with the shape checked between: the
	 * tree shrinks back to one leaf */
	for (uint64_t half = 0; half < 2; half++) {
		uint64_t keys[KEYS / 2], gone = 0, calls = 0, absent = 0;
		size_t n = 0, done;
		for (uint64_t k = half * KEYS / 2; k < (half + 1) * KEYS / 2; k++)
			if (model[k] || k % 97 == 0)	/* absent ones too */
				keys[n++] = k;
		for (size_t j = 0; j < n; j += done, calls++) {
			int r = btree_remove_run(&info, root, keys + j, n - j, &root, &done);
			CU_ASSERT_EQUAL_FATAL(r, model[keys[j]] ? 0 : -ENODATA);
			if (r) {
				done = 1;
				absent++;
				continue;
			}
			for (size_t x = j; x < j + done; x++) {
				CU_ASSERT_FATAL(model[keys[x]] != 0);
				model[keys[x]] = 0;
				gone++;
			}
		}
		live -= gone;
		CU_ASSERT((calls - absent) * 4 < gone);	/* a leaf's keys per call */
		struct shape s = { e.tm, -1, 0, 0 };
		check_shape(&s, root, 0, 1);
		CU_ASSERT_EQUAL(s.errors, 0);
		CU_ASSERT_EQUAL(s.entries, live);
	}
	{
		struct shape s = { e.tm, -1, 0, 0 };
		check_shape(&s, root, 0, 1);
		CU_ASSERT_EQUAL(s.leaf_depth, 0);
		CU_ASSERT_EQUAL(s.entries, 0);
	}
	/* every allocated metadata block is the root or block 0 */
	CU_ASSERT_EQUAL(sm_nr_allocated(e.sm), 2);
	CU_ASSERT(decs > 0);
	free(model);
	tm_env_close(&e);
}

static void test_btree_shared(void)
{
	struct tm_env e;
	struct btree_info info;
	uint64_t a, b, found;
	unsigned char v[8];
	uint32_t c;

	tm_env_open(&e, "pdata", 4096, 256);
	info = (struct btree_info){ e.tm, { 8, NULL, NULL, NULL } };
	CU_ASSERT_FATAL(btree_empty(&info, &a) == 0);
	for (uint64_t k = 0; k < 2000; k++) {
		le64_put(v, k);
		CU_ASSERT_EQUAL_FATAL(btree_insert(&info, a, k * 2, v, &a, NULL, 0), 0);
	}
	/* commit, so that shadowing copies, then share the root (a snapshot) */
	{
		struct sm_root r;
		CU_ASSERT_EQUAL(sm_commit(e.sm, NULL, &r), 0);
		CU_ASSERT_EQUAL(tm_pre_commit(e.tm, 0), 0);
		CU_ASSERT_EQUAL(tm_commit(e.tm, 0), 0);
	}
	CU_ASSERT_EQUAL(tm_inc(e.tm, a), 0);
	b = a;
	le64_put(v, 777);
	CU_ASSERT_EQUAL(btree_insert(&info, b, 1001, v, &b, NULL, 0), 0);
	CU_ASSERT_NOT_EQUAL(a, b);
	CU_ASSERT_EQUAL(btree_lookup(&info, a, 1001, v), -ENODATA);
	CU_ASSERT_EQUAL(btree_lookup(&info, b, 1001, v), 0);
	CU_ASSERT(tm_ref(e.tm, a, &c) == 0 && c == 1);
	CU_ASSERT_EQUAL(btree_remove(&info, a, 0, &a), 0);
	CU_ASSERT_EQUAL(btree_lookup(&info, b, 0, v), 0);
	CU_ASSERT(btree_lookup_ge(&info, a, 0, &found, v) == 0 && found == 2);
	/* dropping both trees frees everything but block 0 */
	CU_ASSERT_EQUAL(btree_del(&info, a), 0);
	CU_ASSERT_EQUAL(btree_del(&info, b), 0);
	CU_ASSERT_EQUAL(sm_nr_allocated(e.sm), 1 + 3 /* space map blocks of the commit */);
	tm_env_close(&e);
}

/* ---- bottom-up builder ---- */

struct mem_sink {
	struct io_engine *io;
	uint64_t next;
};

static int sink_alloc(void *ctx, uint64_t *b)
{
	*b = ((struct mem_sink *)ctx)->next++;
	return 0;
}

static int sink_write(void *ctx, uint64_t b, const void *data)
{
	return io_write(((struct mem_sink *)ctx)->io, b * 4096, data, 4096);
}

static void test_btree_build(void)
{
	static const uint64_t sizes[] = { 0, 1, 252, 253, 378, 504, 505, 63504, 63505, 100000 };
	struct tm_env e;

	tm_env_open(&e, "pdata", 8192, 256);
	for (size_t t = 0; t < TP_ARRAY_SIZE(sizes); t++) {
		struct mem_sink sink = { e.io, 1 };
		struct btree_build bb;
		struct btree_info info = { e.tm, { 8, NULL, NULL, NULL } };
		uint64_t root;
		unsigned char v[8];

		btree_build_init(&bb, 8, sink_alloc, sink_write, &sink);
		for (uint64_t k = 0; k < sizes[t]; k++) {
			le64_put(v, k + 5);
			CU_ASSERT_EQUAL_FATAL(btree_build_add(&bb, k * 3, v), 0);
		}
		if (sizes[t])
			CU_ASSERT_EQUAL(btree_build_add(&bb, 0, v), -EINVAL);
		CU_ASSERT_EQUAL_FATAL(btree_build_finish(&bb, &root), 0);
		btree_build_destroy(&bb);
		CU_ASSERT_EQUAL(sink.next - 1, btree_build_nr_nodes(sizes[t], 8));
		bm_forget(e.bm);
		struct shape s = { e.tm, -1, 0, 0 };
		check_shape(&s, root, 0, 1);
		CU_ASSERT_EQUAL(s.errors, 0);
		CU_ASSERT_EQUAL(s.entries, sizes[t]);
		if (sizes[t] > 1) {
			CU_ASSERT_EQUAL(btree_lookup(&info, root, (sizes[t] - 1) * 3, v), 0);
			CU_ASSERT_EQUAL(le64_get(v), sizes[t] - 1 + 5);
		}
		bm_forget(e.bm);
	}
	tm_env_close(&e);
}

/* bm_prefetch reads runs of neighbours ahead of their locks: every block
 * a lock then gives is the device's, a block the cache holds changed
 * (dirty) keeps its change, blocks past the end, repeated or alone are
 * left to their locks, and a cache of 16 is never filled past half by
 * it; a walk of a tree through a cold cache of 16 gives what it gives
 * through a warm one. Fewer reads: 64 neighbours in far fewer bytes'
 * worth of calls is not visible here, so the bytes read are checked
 * not to grow. */
static void test_prefetch(void)
{
	enum { NB = 256 };
	struct io_engine *io;
	struct block_manager *bm;
	struct bm_block *blk;
	uint64_t want[80], before;
	unsigned char *disk;
	unsigned n = 0;

	CU_ASSERT_EQUAL_FATAL(io_mem_create((uint64_t)NB * BM_BLOCK_SIZE, "pf", &io), 0);
	disk = io_mem_data(io);
	for (unsigned b = 0; b < NB; b++)
		memset(disk + (size_t)b * BM_BLOCK_SIZE, (int)(b * 7 + 1), BM_BLOCK_SIZE);
	CU_ASSERT_EQUAL_FATAL(bm_create(io, 64, &bm), 0);
	/* block 12 changed in the cache, not on the device */
	CU_ASSERT_EQUAL_FATAL(bm_write_lock(bm, 12, NULL, &blk), 0);
	memset(bm_block_data(blk), 0xee, BM_BLOCK_SIZE);
	bm_unlock(blk);
	for (uint64_t b = 40; b > 0; b--)	/* 1..40 descending, 12 among them */
		want[n++] = b;
	want[n++] = 7;		/* twice */
	want[n++] = 100;	/* alone */
	want[n++] = NB + 5;	/* past the end */
	for (uint64_t b = 200; b < 230; b++)
		want[n++] = b;
	before = io_mem_read_bytes(io);
	bm_prefetch(bm, want, n);
	/* at most half the cache of 64 read ahead, nothing past the end */
	CU_ASSERT(io_mem_read_bytes(io) - before <= 32u * BM_BLOCK_SIZE);
	for (uint64_t b = 0; b < NB; b++) {
		const unsigned char *d;

		CU_ASSERT_EQUAL_FATAL(bm_read_lock(bm, b, NULL, &blk), 0);
		d = bm_block_data(blk);
		CU_ASSERT_EQUAL(d[0], b == 12 ? 0xee : (unsigned char)(b * 7 + 1));
		CU_ASSERT_EQUAL(d[BM_BLOCK_SIZE - 1], b == 12 ? 0xee : (unsigned char)(b * 7 + 1));
		bm_unlock(blk);
	}
	bm_destroy(bm);
	io_destroy(io);
}

TP_TEST_SUITE(pdata, NULL, NULL,
	      { "u64map", test_u64map },
	      { "space_map", test_space_map },
	      { "space_map_full", test_space_map_full },
	      { "space_map_many_bitmaps", test_space_map_many_bitmaps },
	      { "space_map_overflow_scale", test_space_map_overflow_scale },
	      { "btree_model", test_btree_model },
	      { "btree_shared", test_btree_shared },
	      { "btree_build", test_btree_build },
	      { "prefetch: the device's blocks, a changed one kept", test_prefetch })
