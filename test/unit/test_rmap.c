/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reverse map (metadata/thin/rmap.h) against a model: devices written
 * through the thin API, snapshots sharing whole subtrees and a snapshot
 * grown taller than its origin; every (data block, device, virtual block)
 * the lookups give within the regions is in exactly one run of the full
 * walk and nothing else is; runs are sorted and each is a true run; the
 * shared-once walk (thin_rmap's) lists a subset that still names every
 * mapped data block, and fewer owners where subtrees are shared; the held
 * metadata snapshot reads as it was; blocks nothing maps give no run; bad
 * regions, a missing snapshot, a zeroed superblock and a damaged leaf are
 * errors. */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/thin/rmap.h"
#include "metadata/thin/thin.h"
#include "test/lib/io_test.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define VB 30000	/* virtual blocks looked at */
#define NDEV 4
#define NDATA 200000

static uint64_t rs = 0x243f6a8885a308d3ull;
static struct io_engine *io;
static struct thin_md *md;

static uint64_t rnd(void)
{
	return tp_test_xorshift64(&rs);
}

static void map(uint64_t dev, uint64_t v)
{
	uint64_t d;

	CU_ASSERT_FATAL(!thin_alloc_data_block(md, &d));
	CU_ASSERT_FATAL(!thin_insert_mapping_alloced(md, dev, v, d));
}

/* owners[d]: a bit per device that maps data block d (at vblock[d][dev]) */
struct model {
	unsigned char owners[NDATA];
	uint32_t vblock[NDATA][NDEV];
};

static void build_model(struct model *m)
{
	memset(m, 0, sizeof(*m));
	for (uint64_t dev = 0; dev < NDEV; dev++)
		for (uint64_t v = 0; v < VB; v++) {
			uint64_t d;
			if (thin_lookup(md, dev, v, &d, NULL))
				continue;
			CU_ASSERT_FATAL(d < NDATA);
			m->owners[d] |= (unsigned char)(1u << dev);
			m->vblock[d][dev] = (uint32_t)v;
		}
}

static int in(const struct thin_rmap_region *r, size_t n, uint64_t b)
{
	for (size_t i = 0; i < n; i++)
		if (b >= r[i].begin && b < r[i].end)
			return 1;
	return 0;
}

/* Check M's runs against the model: returns the number of owners listed;
 * FULL: exactly the model's; else a subset naming every mapped block. */
static uint64_t check(const struct model *want, const struct thin_rmap *m,
		      const struct thin_rmap_region *r, size_t nr, int full)
{
	static unsigned char got[NDATA];
	uint64_t listed = 0;
	int bad = 0;

	memset(got, 0, sizeof(got));
	for (size_t i = 0; i < m->nr; i++) {
		const struct thin_rmap_run *x = &m->runs[i];
		if (i) {
			const struct thin_rmap_run *p = &m->runs[i - 1];
			bad += p->data_begin > x->data_begin ||
			       (p->data_begin == x->data_begin && p->data_end > x->data_end);
		}
		bad += x->data_end <= x->data_begin || x->dev_id >= NDEV;
		for (uint64_t b = x->data_begin; b < x->data_end && b < NDATA && x->dev_id < NDEV; b++) {
			unsigned bit = 1u << x->dev_id;
			bad += !in(r, nr, b) || !(want->owners[b] & bit) || (got[b] & bit) ||
			       want->vblock[b][x->dev_id] != x->thin_begin + (b - x->data_begin);
			got[b] |= (unsigned char)bit;
			listed++;
		}
	}
	for (uint64_t b = 0; b < NDATA; b++) {
		if (!in(r, nr, b))
			continue;
		if (full)
			bad += got[b] != want->owners[b];
		else
			bad += !got[b] != !want->owners[b];
	}
	CU_ASSERT_EQUAL(bad, 0);
	return listed;
}

static int setup(void)
{
	if (io_mem_create(64 << 20, "rmap", &io) || thin_format(io, 128, NDATA, &md))
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
	static struct model want, held;
	const struct thin_rmap_region all = { 0, NDATA };
	const struct thin_rmap_region some[] = { { 10, 900 }, { 3000, 3001 }, { 5000, 9000 } };
	struct thin_rmap m;
	uint64_t full_n, once_n;

	/* device 0 in runs with holes; snapshot 1 of it; writes to both;
	 * device 2 a snapshot of 1 grown taller; device 3 on its own */
	CU_ASSERT_FATAL(!thin_create_thin(md, 0));
	for (uint64_t v = 0; v < 8000; v++)
		if (rnd() % 8)
			map(0, v);
	CU_ASSERT_FATAL(!thin_commit(md));
	CU_ASSERT_FATAL(!thin_create_snap(md, 1, 0));
	for (int i = 0; i < 40; i++)
		map(rnd() % 2, rnd() % 10000);
	CU_ASSERT_FATAL(!thin_create_snap(md, 2, 1));
	for (uint64_t v = 12000; v < VB; v++)
		map(2, v);
	CU_ASSERT_FATAL(!thin_create_thin(md, 3));
	for (uint64_t v = 100; v < 400; v++)
		map(3, v * 3);
	CU_ASSERT_FATAL(!thin_commit(md));
	CU_ASSERT_FATAL(!thin_reserve_metadata_snap(md));
	CU_ASSERT_FATAL(!thin_commit(md));
	build_model(&held);
	/* after the metadata snapshot: more writes, and device 3 grows */
	for (uint64_t v = 1300; v < 1500; v++)
		map(3, v);
	map(0, 20000);
	CU_ASSERT_FATAL(!thin_commit(md));
	build_model(&want);

	CU_ASSERT_FATAL(!thin_rmap_walk(io, 0, &all, 1, &m));
	CU_ASSERT_EQUAL(m.data_block_size, 128);
	full_n = check(&want, &m, &all, 1, 1);
	/* runs are merged: far fewer runs than owners */
	CU_ASSERT(m.nr * 4 < full_n);
	thin_rmap_free(&m);
	CU_ASSERT_FATAL(!thin_rmap_walk(io, THIN_RMAP_SHARED_ONCE, &all, 1, &m));
	once_n = check(&want, &m, &all, 1, 0);
	CU_ASSERT(once_n < full_n);	/* shared subtrees were read once */
	thin_rmap_free(&m);

	CU_ASSERT_FATAL(!thin_rmap_walk(io, 0, some, 3, &m));
	check(&want, &m, some, 3, 1);
	thin_rmap_free(&m);
	CU_ASSERT_FATAL(!thin_rmap_walk(io, THIN_RMAP_SHARED_ONCE, some, 3, &m));
	check(&want, &m, some, 3, 0);
	thin_rmap_free(&m);

	CU_ASSERT_FATAL(!thin_rmap_walk(io, THIN_RMAP_METADATA_SNAP, &all, 1, &m));
	check(&held, &m, &all, 1, 1);
	thin_rmap_free(&m);

	/* blocks nothing maps: no run, in either walk */
	const struct thin_rmap_region none = { NDATA - 10, NDATA };
	CU_ASSERT_FATAL(!thin_rmap_walk(io, 0, &none, 1, &m));
	CU_ASSERT_EQUAL(m.nr, 0);
	thin_rmap_free(&m);
	CU_ASSERT_FATAL(!thin_rmap_walk(io, THIN_RMAP_SHARED_ONCE, &none, 1, &m));
	CU_ASSERT_EQUAL(m.nr, 0);
	thin_rmap_free(&m);
}

static void test_errors(void)
{
	const struct thin_rmap_region all = { 0, NDATA }, empty = { 5, 5 };
	unsigned char *mem = io_mem_data(io);
	struct tp_log_capture cap;
	struct thin_rmap m;
	unsigned char sb[4096];
	uint64_t d;
	uint32_t t;

	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(thin_rmap_walk(io, 0, &empty, 1, &m), -EINVAL);
	CU_ASSERT_FATAL(!thin_release_metadata_snap(md));
	CU_ASSERT_FATAL(!thin_commit(md));
	CU_ASSERT_EQUAL(thin_rmap_walk(io, THIN_RMAP_METADATA_SNAP, &all, 1, &m), -ENODATA);
	memcpy(sb, mem, sizeof(sb));
	memset(mem, 0, 4096);
	CU_ASSERT_EQUAL(thin_rmap_walk(io, 0, &all, 1, &m), -ENODATA);
	memcpy(mem, sb, sizeof(sb));
	CU_ASSERT_FATAL(!thin_rmap_walk(io, 0, &all, 1, &m));
	thin_rmap_free(&m);
	/* damage the leaves that hold device 3's virtual block 1400 */
	CU_ASSERT_FATAL(!thin_lookup(md, 3, 1400, &d, &t));
	for (uint64_t b = 1; b < (64u << 20) / 4096; b++) {
		unsigned char *n = mem + b * 4096;
		if (!btree_node_check(n, b, 8, 0, NULL) && bn_is_leaf(n) && bn_nr(n) &&
		    bn_key(n, 0) <= 1400 && bn_key(n, bn_nr(n) - 1) >= 1400)
			n[100] ^= 0xff;
	}
	CU_ASSERT_EQUAL(thin_rmap_walk(io, 0, &all, 1, &m), -EUCLEAN);
	CU_ASSERT_EQUAL(m.nr, 0);
	CU_ASSERT_PTR_NULL(m.runs);
	CU_ASSERT_EQUAL(thin_rmap_walk(io, THIN_RMAP_SHARED_ONCE, &all, 1, &m), -EUCLEAN);
	tp_log_capture(NULL);
}

TP_TEST_SUITE(rmap, setup, cleanup, { "model", test_model }, { "errors", test_errors })
