/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pdata read-only cursor (btree_cursor.h) over a real mapping tree:
 * every key once in ascending order, every node entered once; a damaged
 * leaf is handed to the bad callback with the validator's reason and only
 * its keys are missing; a missing root gives an empty walk; a loop is cut
 * at the depth limit (-ELOOP); a bad callback's non-zero answer stops. */
#include "lib/base/io.h"
#include "metadata/pdata/btree_cursor.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <string.h>

#define NR_KEYS 3000u

static struct io_engine *io;
static uint64_t root, leaf;	/* device 0's tree and its second leaf */

struct seen {
	uint64_t nodes, bad, bad_block;
	enum btree_node_fault fault;
	int err, stop;	/* last error handed to bad; what bad answers */
	uint64_t disorder;	/* keys not above the one before */
};

static int rd(void *ctx, uint64_t b, void *buf)
{
	(void)ctx;
	return io_read(io, b * BM_BLOCK_SIZE, buf, BM_BLOCK_SIZE);
}

static int on_node(void *ctx, uint64_t b, const void *n, int depth)
{
	(void)b, (void)n, (void)depth;
	((struct seen *)ctx)->nodes++;
	return 0;
}

static int on_bad(void *ctx, uint64_t b, const void *n, int err, enum btree_node_fault f)
{
	struct seen *s = ctx;

	(void)n;
	s->bad++;
	s->bad_block = b;
	s->fault = f;
	s->err = err;
	return s->stop;
}

static int setup(void)
{
	struct thin_md *md;
	struct thin_sb sb;
	uint64_t db;
	unsigned char n[BM_BLOCK_SIZE];

	if (io_mem_create(4u << 20, "cursor", &io) || thin_format(io, 128, 10000, &md) ||
	    thin_create_thin(md, 0))
		return 1;
	for (uint64_t v = 0; v < NR_KEYS; v++)
		if (thin_alloc_data_block(md, &db) || thin_insert_mapping_alloced(md, 0, v, db))
			return 1;
	if (thin_commit(md))
		return 1;
	thin_close(md);
	if (thin_sb_read(io, 0, &sb) || rd(NULL, sb.mapping_root, n))
		return 1;
	root = bn_value64(n, 0);
	if (rd(NULL, root, n) || bn_is_leaf(n))
		return 1;
	leaf = bn_value64(n, 1);
	return 0;
}

static int cleanup(void)
{
	io_destroy(io);
	return 0;
}

/* Walk from FROM; returns the number of keys, counting keys out of order. */
static uint64_t walk(uint64_t from, struct seen *s)
{
	const struct btree_cursor_ops ops = { s, rd, on_node, on_bad };
	struct btree_cursor c;
	uint64_t n = 0, last = 0;

	CU_ASSERT_FATAL(btree_cursor_init(&c, &ops, from, 8, BTREE_RULE_KEY_ORDER) == 0);
	while (btree_cursor_next(&c)) {
		s->disorder += n && c.key <= last;
		last = c.key;
		n++;
	}
	CU_ASSERT_EQUAL(btree_cursor_next(&c), 0);	/* stays at the end */
	CU_ASSERT_EQUAL(c.err, s->stop && s->bad ? s->stop : 0);
	btree_cursor_exit(&c);
	btree_cursor_exit(&c);	/* twice is fine */
	return n;
}

static void test_all_keys(void)
{
	struct seen s = { 0 };

	CU_ASSERT_EQUAL(walk(root, &s), NR_KEYS);
	CU_ASSERT_EQUAL(s.disorder, 0);
	CU_ASSERT(s.nodes > 2);
	CU_ASSERT_EQUAL(s.bad, 0);
}

static void test_bad_leaf(void)
{
	unsigned char saved[BM_BLOCK_SIZE], n[BM_BLOCK_SIZE];
	struct seen s = { 0 }, clean = { 0 };
	uint32_t lost;

	CU_ASSERT_FATAL(rd(NULL, leaf, saved) == 0);
	lost = bn_nr(saved);
	memcpy(n, saved, sizeof(n));
	n[200] ^= 1;	/* a key changed, checksum stale */
	CU_ASSERT_FATAL(io_write(io, leaf * BM_BLOCK_SIZE, n, sizeof(n)) == 0);
	CU_ASSERT_EQUAL(walk(root, &s), NR_KEYS - lost);
	CU_ASSERT_EQUAL(s.disorder, 0);
	CU_ASSERT_EQUAL(s.bad, 1);
	CU_ASSERT_EQUAL(s.bad_block, leaf);
	CU_ASSERT_EQUAL(s.fault, BTREE_NODE_BAD_CSUM);
	CU_ASSERT_FATAL(io_write(io, leaf * BM_BLOCK_SIZE, saved, sizeof(saved)) == 0);
	CU_ASSERT_EQUAL(walk(root, &clean), NR_KEYS);
	CU_ASSERT_EQUAL(s.nodes + 1, clean.nodes);
}

static void test_bad_root(void)
{
	struct seen s = { 0 };

	CU_ASSERT_EQUAL(walk(1000000, &s), 0);	/* beyond the area: a read error */
	CU_ASSERT_EQUAL(s.bad, 1);
	CU_ASSERT_EQUAL(s.bad_block, 1000000);
	CU_ASSERT_EQUAL(s.fault, BTREE_NODE_OK);
	CU_ASSERT_EQUAL(s.nodes, 0);
}

/* The root's first child is the root: a loop, cut at the depth limit. */
static void test_loop_and_stop(void)
{
	unsigned char saved[BM_BLOCK_SIZE], n[BM_BLOCK_SIZE];
	struct seen s = { 0 }, stop = { .stop = -EUCLEAN };

	CU_ASSERT_FATAL(rd(NULL, root, saved) == 0);
	memcpy(n, saved, sizeof(n));
	bn_set_value64(n, 0, root);
	btree_node_prepare(n, root);
	CU_ASSERT_FATAL(io_write(io, root * BM_BLOCK_SIZE, n, sizeof(n)) == 0);
	(void)walk(root, &s);	/* the keys repeat: the loop is walked 17 deep */
	CU_ASSERT(s.disorder > 0);
	CU_ASSERT(s.bad >= 1);
	CU_ASSERT_EQUAL(s.err, -ELOOP);
	(void)walk(root, &stop);	/* the first bad node stops the cursor */
	CU_ASSERT_EQUAL(stop.bad, 1);
	CU_ASSERT_FATAL(io_write(io, root * BM_BLOCK_SIZE, saved, sizeof(saved)) == 0);
}

TP_TEST_SUITE(btree_cursor, setup, cleanup,
	      { "all_keys", test_all_keys },
	      { "bad_leaf", test_bad_leaf },
	      { "bad_root", test_bad_root },
	      { "loop_and_stop", test_loop_and_stop })
