/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin API: basics, kernel fixtures, and the model test (thousands of
 * random operations against an in-memory reference model; after every
 * commit the reopened metadata must equal the model and every reference
 * count must equal what a full walk computes). */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/thin/delta.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_builder.h"
#include "metadata/thin/thin_internal.h"
#include "metadata/thin/thin_walk.h"
#include "test/lib/io_test.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEV 24
#define VBLOCKS 300
#define NR_DATA 6000

struct mdev {
	int exists;
	struct thin_ir_device d;
	uint64_t map[VBLOCKS];	/* 0 unmapped, else time << 40 | (dblock + 1) */
};

struct model {
	struct mdev dev[MAXDEV];
	uint32_t time;
	uint64_t trans;
};

static uint64_t rs = 0x1234567887654321ull;

static uint64_t rnd(void)
{
	return tp_test_xorshift64(&rs);
}

/* ---- compare a walk with a model ---- */

struct cmp {
	const struct model *m;
	int cur;		/* device being visited */
	int next_min;		/* devices below this were visited */
	uint64_t seen;
	int errors;
};

static int c_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	struct cmp *c = ctx;
	if (sb->time != c->m->time || sb->transaction != c->m->trans)
		c->errors++;
	return 0;
}

static int c_dev(void *ctx, const struct thin_ir_device *d)
{
	struct cmp *c = ctx;
	const struct mdev *md;

	if (d->dev_id >= MAXDEV || (int)d->dev_id < c->next_min) {
		c->errors++;
		return -EINVAL;
	}
	for (int i = c->next_min; i < (int)d->dev_id; i++)
		c->errors += c->m->dev[i].exists;	/* skipped a device */
	md = &c->m->dev[d->dev_id];
	if (!md->exists || memcmp(&md->d, d, sizeof(*d)))
		c->errors++;
	c->cur = (int)d->dev_id;
	c->next_min = c->cur + 1;
	c->seen = 0;
	return 0;
}

static int c_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct cmp *c = ctx;
	const struct mdev *md = &c->m->dev[c->cur];

	for (size_t i = 0; i < n; i++) {
		for (uint64_t k = 0; k < runs[i].length; k++) {
			uint64_t v = runs[i].origin_begin + k;
			uint64_t want = (uint64_t)runs[i].time << 40 | (runs[i].data_begin + k + 1);
			if (v >= VBLOCKS || md->map[v] != want)
				c->errors++;
			c->seen++;
		}
	}
	return 0;
}

static int c_dev_end(void *ctx)
{
	struct cmp *c = ctx;
	uint64_t want = 0;

	for (int v = 0; v < VBLOCKS; v++)
		want += c->m->dev[c->cur].map[v] != 0;
	if (want != c->seen || want != c->m->dev[c->cur].d.mapped_blocks)
		c->errors++;
	return 0;
}

static int c_sb_end(void *ctx)
{
	struct cmp *c = ctx;
	for (int i = c->next_min; i < MAXDEV; i++)
		c->errors += c->m->dev[i].exists;
	return 0;
}

static int compare(struct io_engine *io, unsigned flags, const struct model *m)
{
	struct cmp c = { m, -1, 0, 0, 0 };
	struct thin_ir_visitor v = { &c, c_sb, c_sb_end, c_dev, c_dev_end, c_map };
	int r = thin_walk_io(io, flags, &v, NULL);

	return r ? r : c.errors;
}

/* ---- tree shape: what thin_check demands of every tree ---- */

static int shape_errors(const unsigned char *mem, uint64_t b, int level, int root)
{
	const unsigned char *n = mem + b * 4096;
	int errors = 0;

	if (!root && bn_nr(n) < bn_max(n) / 3)
		errors++;
	if (bn_max(n) % 3)
		errors++;
	for (uint32_t i = 0; i < bn_nr(n); i++) {
		if (i && bn_key(n, i) <= bn_key(n, i - 1))
			errors++;
		if (!bn_is_leaf(n))
			errors += shape_errors(mem, bn_value64(n, i), level, 0);
		else if (level == 0)	/* top-level leaf: bottom roots */
			errors += shape_errors(mem, bn_value64(n, i), 1, 1);
	}
	return errors;
}

static int tree_shapes(struct io_engine *io)
{
	struct thin_sb sb;

	if (thin_sb_read(io, 0, &sb))
		return 1;
	return shape_errors(io_mem_data(io), sb.mapping_root, 0, 1) +
	       shape_errors(io_mem_data(io), sb.details_root, 2, 1);
}

/* ---- the model test ---- */

static void check_reopened(struct io_engine *io, struct thin_md **md, const struct model *m)
{
	uint64_t *ids;
	size_t n, want = 0;

	thin_close(*md);
	CU_ASSERT_FATAL(thin_open(io, 0, md) == 0);
	CU_ASSERT_EQUAL(compare(io, 0, m), 0);
	CU_ASSERT_EQUAL(thin_verify_counts(*md), 0);
	CU_ASSERT_EQUAL(tree_shapes(io), 0);
	CU_ASSERT_FATAL(thin_list_devices(*md, &ids, &n) == 0);
	for (int i = 0; i < MAXDEV; i++)
		want += m->dev[i].exists;
	CU_ASSERT_EQUAL(n, want);
	for (size_t i = 0; i < n; i++) {
		struct thin_ir_device d;
		CU_ASSERT(ids[i] < MAXDEV && m->dev[ids[i]].exists);
		CU_ASSERT(thin_device_info(*md, ids[i], &d) == 0 &&
			  !memcmp(&d, &m->dev[ids[i]].d, sizeof(d)));
	}
	free(ids);
}

static void test_model(void)
{
	struct io_engine *io;
	struct thin_md *md;
	struct model *cur = calloc(1, sizeof(*cur)), *com = calloc(1, sizeof(*com));
	struct model *snap = calloc(1, sizeof(*snap));
	int have_snap = 0, commits = 0, aborts = 0, ops = 0;
	struct tp_log_capture cap;

	if (getenv("TP_TEST_SEED"))	/* soak runs: other seeds */
		rs = strtoull(getenv("TP_TEST_SEED"), NULL, 0) * 0x9e3779b97f4a7c15ull | 1;
	CU_ASSERT_FATAL(io_mem_create(8 << 20, "model", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, NR_DATA, &md) == 0);
	tp_log_capture(&cap);	/* expected errors (EEXIST, ...) stay quiet */
	for (int step = 0; step < 4000; step++) {
		unsigned op = (unsigned)(rnd() % 100);
		uint64_t id = rnd() % MAXDEV, o = rnd() % MAXDEV, v = rnd() % VBLOCKS;
		struct mdev *d = &cur->dev[id];
		int r;

		ops++;
		if (op < 4) {
			r = thin_create_thin(md, id);
			CU_ASSERT_EQUAL_FATAL(r, d->exists ? -EEXIST : 0);
			if (!r) {
				memset(d, 0, sizeof(*d));
				d->exists = 1;
				d->d = (struct thin_ir_device){ id, 0, cur->trans, cur->time, cur->time };
			}
		} else if (op < 7) {
			r = thin_create_snap(md, id, o);
			CU_ASSERT_EQUAL_FATAL(r, d->exists ? -EEXIST : !cur->dev[o].exists ? -ENODATA : 0);
			if (!r) {
				cur->time++;
				cur->dev[o].d.snap_time = cur->time;
				*d = cur->dev[o];
				d->d = (struct thin_ir_device){ id, cur->dev[o].d.mapped_blocks, cur->trans,
								cur->time, cur->time };
			}
		} else if (op < 9) {
			r = thin_delete(md, id);
			CU_ASSERT_EQUAL_FATAL(r, d->exists ? 0 : -ENODATA);
			d->exists = 0;
		} else if (op < 70) {
			uint64_t db;
			if (!d->exists)
				continue;
			r = thin_alloc_data_block(md, &db);
			if (r == -ENOSPC)
				continue;
			CU_ASSERT_EQUAL_FATAL(r, 0);
			CU_ASSERT_EQUAL_FATAL(thin_insert_mapping_alloced(md, id, v, db), 0);
			d->d.mapped_blocks += !d->map[v];
			d->map[v] = (uint64_t)cur->time << 40 | (db + 1);
		} else if (op < 88) {
			if (!d->exists)
				continue;
			r = thin_remove_mapping(md, id, v);
			CU_ASSERT_EQUAL_FATAL(r, d->map[v] ? 0 : -ENODATA);
			d->d.mapped_blocks -= !!d->map[v];
			d->map[v] = 0;
		} else if (op < 90) {
			uint64_t t = rnd() % 3 ? cur->trans : cur->trans + 1;
			r = thin_set_transaction_id(md, t, t + 1);
			CU_ASSERT_EQUAL_FATAL(r, t == cur->trans ? 0 : -EINVAL);
			if (!r)
				cur->trans = t + 1;
		} else if (op < 96) {
			CU_ASSERT_EQUAL_FATAL(thin_commit(md), 0);
			*com = *cur;
			commits++;
			check_reopened(io, &md, com);
			if (have_snap)
				CU_ASSERT_EQUAL(compare(io, THIN_WALK_METADATA_SNAP, snap), 0);
		} else if (op < 98) {
			CU_ASSERT_EQUAL_FATAL(thin_abort(md), 0);
			*cur = *com;
			aborts++;
		} else {
			if (!have_snap) {
				CU_ASSERT_EQUAL_FATAL(thin_reserve_metadata_snap(md), 0);
				*snap = *cur;
			} else {
				CU_ASSERT_EQUAL_FATAL(thin_release_metadata_snap(md), 0);
			}
			have_snap = !have_snap;
			*com = *cur;
			check_reopened(io, &md, com);
		}
	}
	tp_log_capture(NULL);
	CU_ASSERT(commits > 100 && aborts > 30);
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	*com = *cur;
	check_reopened(io, &md, com);
	thin_close(md);
	io_destroy(io);
	free(cur);
	free(com);
	free(snap);
}

/* ---- basics ---- */

static void test_basics(void)
{
	struct io_engine *io;
	struct thin_md *md;
	struct thin_ir_superblock sb;
	uint64_t db, mu, mt, du, dt, mapped, excl, shared, s;
	uint32_t t;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(4 << 20, "basics", &io) == 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(thin_format(io, 100, 10, &md), -EINVAL);
	tp_log_capture(NULL);
	CU_ASSERT_FATAL(thin_format(io, 256, 1000, &md) == 0);
	CU_ASSERT_EQUAL(thin_superblock_info(md, &sb), 0);
	CU_ASSERT(sb.data_block_size == 256 && sb.nr_data_blocks == 1000 && sb.version == 2);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(thin_create_thin(md, THIN_MAX_DEV_ID + 1), -EINVAL);
	CU_ASSERT_EQUAL(thin_create_thin(md, 5), 0);
	CU_ASSERT_EQUAL(thin_create_thin(md, 5), -EEXIST);
	CU_ASSERT_EQUAL(thin_create_snap(md, 6, 7), -ENODATA);
	CU_ASSERT_EQUAL(thin_insert_mapping(md, 5, 0, 1000), -EINVAL);
	CU_ASSERT_EQUAL(thin_release_metadata_snap(md), -EINVAL);
	tp_log_capture(NULL);
	for (uint64_t v = 0; v < 10; v++) {
		CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), 0);
		CU_ASSERT_EQUAL(thin_insert_mapping_alloced(md, 5, v, db), 0);
	}
	CU_ASSERT_EQUAL(thin_create_snap(md, 6, 5), 0);
	CU_ASSERT_EQUAL(thin_get_time(md), 1);
	CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), 0);
	CU_ASSERT_EQUAL(thin_insert_mapping_alloced(md, 5, 3, db), 0);	/* break sharing */
	CU_ASSERT(thin_lookup(md, 5, 3, &db, &t) == 0 && t == 1);
	CU_ASSERT(thin_lookup(md, 6, 3, &db, &t) == 0 && t == 0);
	CU_ASSERT_EQUAL(thin_lookup(md, 6, 10, &db, &t), -ENODATA);
	CU_ASSERT_EQUAL(thin_device_usage(md, 5, &mapped, &excl, &shared), 0);
	CU_ASSERT(mapped == 10 && excl == 1 && shared == 9);
	CU_ASSERT_EQUAL(thin_usage(md, &mu, &mt, &du, &dt), 0);
	CU_ASSERT(du == 11 && dt == 1000 && mt == 1024 && mu > 4);
	CU_ASSERT_EQUAL(thin_reserve_metadata_snap(md), 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(thin_reserve_metadata_snap(md), -EBUSY);
	CU_ASSERT(thin_get_metadata_snap(md, &s) == 0 && s != 0);
	CU_ASSERT_EQUAL(thin_delete(md, 5), 0);
	CU_ASSERT_EQUAL(thin_resize_data(md, 20000), 0);
	CU_ASSERT_EQUAL(thin_resize_data(md, 100), -EINVAL);
	CU_ASSERT_EQUAL(thin_resize_metadata(md, 2048), -ENOSPC);	/* the area is 1024 blocks */
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(thin_set_needs_check(md, 1), 0);
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	thin_close(md);
	CU_ASSERT_EQUAL(io_mem_resize(io, 16 << 20), 0);
	CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
	CU_ASSERT_EQUAL(thin_needs_check(md), 1);
	CU_ASSERT_EQUAL(thin_resize_metadata(md, 4096), 0);
	CU_ASSERT_EQUAL(thin_release_metadata_snap(md), 0);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	CU_ASSERT_EQUAL(thin_usage(md, &mu, &mt, &du, &dt), 0);
	CU_ASSERT(mt == 4096 && dt == 20000);
	thin_close(md);
	/* read-only handles refuse changes */
	CU_ASSERT_FATAL(thin_open(io, THIN_RDONLY, &md) == 0);
	CU_ASSERT_EQUAL(thin_create_thin(md, 9), -EROFS);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	thin_close(NULL);
	io_destroy(io);
}

/* ---- kernel fixtures ---- */

/* Decompress an xz fixture with the xz tool (liblzma is not linked). */
static int load_xz(const char *path, struct io_engine **out)
{
	char cmd[512];
	size_t cap = 64 << 20, len = 0, n;
	unsigned char *buf = malloc(cap);
	FILE *p;
	int r = -EIO;

	snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
	if (!buf || !(p = popen(cmd, "r"))) {
		free(buf);
		return -EIO;
	}
	while (len < cap && (n = fread(buf + len, 1, cap - len, p)) > 0)
		len += n;
	if (pclose(p) == 0 && len && (r = io_mem_create(len, path, out)) == 0)
		memcpy(io_mem_data(*out), buf, len);
	free(buf);
	return r;
}

static void test_fixtures(void)
{
	static const char *names[] = { "A", "B", "D", "E" };

	for (size_t i = 0; i < TP_ARRAY_SIZE(names); i++) {
		char path[256];
		struct io_engine *io, *out;
		struct thin_md *md;
		struct thin_builder *b;
		uint64_t *ids, db;
		size_t n;

		snprintf(path, sizeof(path), "test/data/kernel-6.1/%s_meta.img.xz", names[i]);
		CU_ASSERT_FATAL(load_xz(path, &io) == 0);
		CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
		CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		/* change it the kernel's way and check the counts again */
		CU_ASSERT_FATAL(thin_list_devices(md, &ids, &n) == 0);
		if (n) {
			CU_ASSERT_EQUAL(thin_create_snap(md, 1000, ids[0]), 0);
			for (uint64_t v = 0; v < 50; v++) {
				CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), 0);
				CU_ASSERT_EQUAL(thin_insert_mapping_alloced(md, ids[0], v * 7, db), 0);
			}
			CU_ASSERT_EQUAL(thin_delete(md, ids[n - 1]), 0);
		}
		CU_ASSERT_EQUAL(thin_create_thin(md, 2000), 0);
		CU_ASSERT_EQUAL(thin_commit(md), 0);
		CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		{	/* the kernel's metadata snapshot (fixture B) can be released */
			uint64_t held;
			CU_ASSERT_EQUAL(thin_get_metadata_snap(md, &held), 0);
			struct thin_ir_visitor none = { 0 };
			if (held) {
				CU_ASSERT_EQUAL(thin_walk(md, THIN_WALK_METADATA_SNAP, &none), 0);
				CU_ASSERT_EQUAL(thin_release_metadata_snap(md), 0);
				CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
			}
		}
		free(ids);
		thin_close(md);
		/* walk into the builder; the rebuilt metadata opens and counts right */
		CU_ASSERT_FATAL(io_mem_create(io->size, "rebuilt", &out) == 0);
		CU_ASSERT_FATAL(thin_builder_create(out, &b) == 0);
		CU_ASSERT_EQUAL(thin_walk_io(io, 0, thin_builder_visitor(b), NULL), 0);
		CU_ASSERT(thin_builder_finished(b));
		thin_builder_destroy(b);
		CU_ASSERT_FATAL(thin_open(out, 0, &md) == 0);
		CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		thin_close(md);
		io_destroy(out);
		io_destroy(io);
	}
}

/* Two-level trees shared by snapshots (and a metadata snapshot): random
 * inserts and removals on both sides split, merge and rebalance shared
 * internal nodes; contents and every reference count must stay right. */
static void test_big_shared(void)
{
	enum { V = 24000, DEVS = 3 };
	struct io_engine *io;
	struct thin_md *md;
	uint64_t *m = calloc((size_t)DEVS * V, sizeof(uint64_t)), db, got;
	int r;

	CU_ASSERT_FATAL(io_mem_create(16 << 20, "big", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 200000, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 0) == 0);
	for (uint64_t v = 0; v < 20000; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 0, v, db) == 0);
		m[v] = db + 1;
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT_FATAL(thin_create_snap(md, 1, 0) == 0);
	memcpy(m + V, m, V * sizeof(uint64_t));
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	for (int step = 0; step < 9000; step++) {
		uint64_t dev = rnd() % DEVS, v = rnd() % V;
		uint64_t *slot = &m[dev * V + v];

		if (dev == 2 && step < 3000)
			continue;
		if (step == 3000) {	/* a snapshot of the snapshot, and a metadata snapshot */
			CU_ASSERT_FATAL(thin_create_snap(md, 2, 1) == 0);
			memcpy(m + 2 * V, m + V, V * sizeof(uint64_t));
			CU_ASSERT_FATAL(thin_reserve_metadata_snap(md) == 0);
		}
		if (rnd() % 3) {
			r = thin_remove_mapping(md, dev, v);
			CU_ASSERT_EQUAL_FATAL(r, *slot ? 0 : -ENODATA);
			*slot = 0;
		} else {
			CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
			CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, dev, v, db) == 0);
			*slot = db + 1;
		}
		if (step % 1500 == 1499) {
			CU_ASSERT_FATAL(thin_commit(md) == 0);
			CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		}
		if (step == 6000)
			CU_ASSERT_FATAL(thin_release_metadata_snap(md) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT_EQUAL(tree_shapes(io), 0);
	thin_close(md);
	CU_ASSERT_FATAL(thin_open(io, THIN_RDONLY, &md) == 0);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	for (uint64_t dev = 0; dev < DEVS; dev++) {
		uint64_t mapped = 0;
		struct thin_ir_device d;
		for (uint64_t v = 0; v < V; v++) {
			r = thin_lookup(md, dev, v, &got, NULL);
			CU_ASSERT_EQUAL_FATAL(r, m[dev * V + v] ? 0 : -ENODATA);
			if (!r)
				CU_ASSERT_EQUAL_FATAL(got + 1, m[dev * V + v]);
			mapped += !r;
		}
		CU_ASSERT(thin_device_info(md, dev, &d) == 0 && d.mapped_blocks == mapped);
	}
	thin_close(md);
	io_destroy(io);
	free(m);
}

/* O(change): three volumes share 60000 data blocks (count 3: a ref-count
 * tree of 60000 entries, 3 levels); one mapping more on one of them writes
 * the paths to it and nothing in proportion to the pool (the old commit
 * rebuilt the whole ref-count tree: 180 nodes or more). Counted at the
 * engine with one block per write. */
static void test_commit_writes_change(void)
{
	enum { N = 60000 };
	struct io_engine *mem, *io;
	struct thin_md *md;
	uint64_t w0;
	uint32_t c;

	CU_ASSERT_FATAL(io_mem_create(32 << 20, "change", &mem) == 0);
	CU_ASSERT_FATAL(thin_format(mem, 128, 200000, &md) == 0);
	for (uint64_t dev = 0; dev < 3; dev++) {
		CU_ASSERT_FATAL(thin_create_thin(md, dev) == 0);
		for (uint64_t v = 0; v < N; v++)
			CU_ASSERT_EQUAL_FATAL(thin_insert_mapping(md, dev, v, v), 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);

	CU_ASSERT_FATAL(io_fault_create(mem, 1, &io) == 0);
	CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
	bm_set_max_io(md->bm, 1);
	CU_ASSERT(thin_data_count(md, 777, &c) == 0 && c == 3);
	w0 = io_fault_writes(io);
	CU_ASSERT_EQUAL(thin_insert_mapping(md, 1, N + 5, 777), 0);	/* count 3 -> 4 */
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	/* the top-level mapping leaf, volume 1's mapping path (3), the details
	 * leaf, the ref-count path (3), one metadata bitmap, the metadata
	 * index block, the superblock; the data bitmap keeps its 3+ entry */
	CU_ASSERT_EQUAL(io_fault_writes(io) - w0, 1 + 3 + 1 + 3 + 1 + 1 + 1);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	CU_ASSERT_FATAL(thin_open(io, THIN_RDONLY, &md) == 0);
	CU_ASSERT(thin_data_count(md, 777, &c) == 0 && c == 4);
	CU_ASSERT(thin_data_count(md, 778, &c) == 0 && c == 3);
	thin_close(md);
	io_destroy(io);
}

/* Runs are merged within a leaf; SKIP_MAPPINGS visits devices only. */
struct runs_seen {
	int devices, batches;
	uint64_t blocks, runs;
};

static int rs_dev(void *ctx, const struct thin_ir_device *d)
{
	(void)d;
	((struct runs_seen *)ctx)->devices++;
	return 0;
}

static int rs_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct runs_seen *c = ctx;
	c->batches++;
	c->runs += n;
	for (size_t i = 0; i < n; i++)
		c->blocks += runs[i].length;
	return 0;
}

static void test_walk_batches(void)
{
	struct io_engine *io;
	struct thin_md *md;
	struct runs_seen a = { 0 }, b = { 0 };
	struct thin_ir_visitor v = { &a, NULL, NULL, rs_dev, NULL, rs_map };
	uint64_t db;

	CU_ASSERT_FATAL(io_mem_create(4 << 20, "walk", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 10000, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0 && thin_create_thin(md, 2) == 0);
	for (uint64_t k = 0; k < 1000; k++) {	/* one long run of data blocks */
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, k, db) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT_EQUAL(thin_walk(md, 0, &v), 0);
	CU_ASSERT_EQUAL(a.devices, 2);
	CU_ASSERT_EQUAL(a.blocks, 1000);
	CU_ASSERT(a.batches >= 4);		/* one per leaf */
	CU_ASSERT_EQUAL(a.runs, (uint64_t)a.batches);	/* merged within each leaf */
	v.ctx = &b;
	CU_ASSERT_EQUAL(thin_walk(md, THIN_WALK_SKIP_MAPPINGS, &v), 0);
	CU_ASSERT(b.devices == 2 && b.batches == 0);
	{
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(thin_walk(md, THIN_WALK_METADATA_SNAP, &v), -ENODATA);
		tp_log_capture(NULL);
		CU_ASSERT(strstr(cap.buf, "no metadata snapshot") != NULL);
	}
	thin_close(md);
	io_destroy(io);
}

/* A failed build leaves the output superblock zeroed, whatever was there. */
static int all_zero(struct io_engine *io)
{
	const unsigned char *d = io_mem_data(io);
	for (int i = 0; i < 4096; i++)
		if (d[i])
			return 0;
	return 1;
}

static void test_builder_failures(void)
{
	struct thin_ir_superblock sb = { 0, 7, 0, 2, 128, 100000, 0 };
	struct thin_ir_device d0 = { 5, 0, 1, 0, 0 }, d1 = { 3, 0, 1, 0, 0 };
	struct thin_ir_mapping runs[2] = { { 10, 0, 20, 0 }, { 15, 100, 1, 0 } };
	struct thin_ir_mapping far = { 0, 99999, 2, 0 }, many = { 0, 0, 90000, 0 };
	struct io_engine *io, *f;
	struct thin_builder *b;
	const struct thin_ir_visitor *v;
	struct thin_md *md;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(1 << 20, "out", &io) == 0);
	tp_log_capture(&cap);
	for (int c = 0; c < 5; c++) {
		CU_ASSERT_FATAL(thin_format(io, 128, 1000, &md) == 0);	/* valid metadata to lose */
		thin_close(md);
		CU_ASSERT_FATAL(thin_builder_create(io, &b) == 0);
		v = thin_builder_visitor(b);
		CU_ASSERT_EQUAL(v->superblock_begin(v->ctx, &sb), 0);
		CU_ASSERT_EQUAL(v->device_begin(v->ctx, &d0), 0);
		switch (c) {
		case 0:	/* overlapping runs */
			CU_ASSERT_EQUAL(v->mappings(v->ctx, runs, 2), -EINVAL);
			break;
		case 1:	/* data beyond nr_data_blocks */
			CU_ASSERT_EQUAL(v->mappings(v->ctx, &far, 1), -EINVAL);
			break;
		case 2:	/* devices out of order */
			CU_ASSERT_EQUAL(v->device_end(v->ctx), 0);
			CU_ASSERT_EQUAL(v->device_begin(v->ctx, &d1), -EINVAL);
			break;
		case 3:	/* out of metadata space (256 blocks) */
			{
				int r = v->mappings(v->ctx, &many, 1);
				CU_ASSERT_EQUAL(r ? r : v->device_end(v->ctx), -ENOSPC);
			}
			break;
		case 4:	/* never finished */
			break;
		}
		CU_ASSERT(!thin_builder_finished(b));
		thin_builder_destroy(b);
		CU_ASSERT(all_zero(io));
		CU_ASSERT_EQUAL(thin_open(io, 0, &md), -ENODATA);
	}
	/* write errors while finishing */
	CU_ASSERT_FATAL(io_fault_create(io, 0, &f) == 0);
	CU_ASSERT_FATAL(thin_builder_create(f, &b) == 0);
	v = thin_builder_visitor(b);
	CU_ASSERT_EQUAL(v->superblock_begin(v->ctx, &sb), 0);
	CU_ASSERT_EQUAL(v->device_begin(v->ctx, &d0), 0);
	CU_ASSERT_EQUAL(v->mappings(v->ctx, runs, 1), 0);
	CU_ASSERT_EQUAL(v->device_end(v->ctx), 0);
	io_fault_set(f, IO_FAULT_FAIL, io_fault_writes(f) + 1);
	CU_ASSERT_EQUAL(v->superblock_end(v->ctx), -EIO);
	io_fault_set(f, IO_FAULT_NONE, 0);
	thin_builder_destroy(b);
	CU_ASSERT(all_zero(io));
	io_destroy(f);
	tp_log_capture(NULL);
	io_destroy(io);
}

/* Running out of metadata or data space fails cleanly; abort returns to
 * the last commit, which is intact. */
static void test_enospc(void)
{
	struct io_engine *io;
	struct thin_md *md;
	struct tp_log_capture cap;
	uint64_t db, v = 0, committed = 0, got;
	int r = 0;

	CU_ASSERT_FATAL(io_mem_create(64 * 4096, "small", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 100000, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0);
	tp_log_capture(&cap);
	while (!r) {
		r = thin_alloc_data_block(md, &db);
		if (!r)
			r = thin_insert_mapping_alloced(md, 1, v * 2, db);
		if (!r && ++v % 500 == 0) {
			r = thin_commit(md);
			if (!r)
				committed = v;
		}
	}
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(r, -ENOSPC);
	CU_ASSERT(committed >= 1000);
	CU_ASSERT_EQUAL(thin_abort(md), 0);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	CU_ASSERT_EQUAL(thin_lookup(md, 1, (committed - 1) * 2, &got, NULL), 0);
	CU_ASSERT_EQUAL(thin_lookup(md, 1, committed * 2, &got, NULL), -ENODATA);
	/* the pool still works: delete frees space */
	CU_ASSERT_EQUAL(thin_delete(md, 1), 0);
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	/* data space */
	CU_ASSERT_FATAL(thin_format(io, 128, 50, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0);
	for (v = 0; v < 50; v++)
		CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), 0);
	CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), -ENOSPC);
	CU_ASSERT_EQUAL(thin_data_dec(md, 7), 0);
	CU_ASSERT_EQUAL(thin_alloc_data_block(md, &db), -ENOSPC);	/* not before the commit */
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	CU_ASSERT(thin_alloc_data_block(md, &db) == 0 && db == 7);
	thin_close(md);
	io_destroy(io);
}

/* thin_remap_mapping (the chunk mover's step): a chunk an origin and its
 * snapshot share, in one leaf, re-pointed for both keeps each mapping's
 * time (a later write to the origin still breaks sharing), moves both
 * references and passes the count check; a wrong FROM or an unmapped
 * block changes nothing. */
static void test_remap(void)
{
	struct io_engine *io;
	struct thin_md *md;
	uint64_t db, got;
	uint32_t c, t;

	CU_ASSERT_FATAL(io_mem_create(4 << 20, "remap", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 100, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0);
	for (uint64_t v = 0; v < 5; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, v, db) == 0);
	}
	CU_ASSERT_FATAL(thin_create_snap(md, 2, 1) == 0);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT(thin_data_count(md, 2, &c) == 0 && c == 1);	/* one shared leaf */
	CU_ASSERT_EQUAL(thin_remap_mapping(md, 1, 2, 3, 50), -ESTALE);
	CU_ASSERT_EQUAL(thin_remap_mapping(md, 1, 9, 2, 50), -ENODATA);
	CU_ASSERT_EQUAL(thin_remap_mapping(md, 1, 2, 2, 50), 0);
	CU_ASSERT_EQUAL(thin_remap_mapping(md, 2, 2, 2, 50), 0);
	CU_ASSERT_EQUAL(thin_commit(md), 0);
	CU_ASSERT(thin_data_count(md, 2, &c) == 0 && c == 0);
	CU_ASSERT(thin_data_count(md, 50, &c) == 0 && c == 2);
	CU_ASSERT(thin_lookup(md, 1, 2, &got, &t) == 0 && got == 50 && t == 0);
	CU_ASSERT(thin_lookup(md, 2, 2, &got, &t) == 0 && got == 50 && t == 0);
	CU_ASSERT(thin_get_time(md) == 1);
	CU_ASSERT(thin_lookup(md, 1, 3, &got, NULL) == 0 && got == 3);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	io_destroy(io);
}

/* thin_mapping_shared: a snapshot sharing the leaf (counts 1), then
 * written apart; thin_lookup_io finds the committed mapping, and the held
 * snapshot's. */
static void test_shared_lookup(void)
{
	struct io_engine *io;
	struct thin_md *md;
	uint64_t db, got;
	int shared;

	CU_ASSERT_FATAL(io_mem_create(4 << 20, "shared", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 100, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0);
	for (uint64_t v = 0; v < 5; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, v, db) == 0);
	}
	CU_ASSERT(thin_mapping_shared(md, 1, 2, &shared) == 0 && !shared);
	CU_ASSERT_EQUAL(thin_mapping_shared(md, 1, 9, &shared), -ENODATA);
	CU_ASSERT_EQUAL(thin_mapping_shared(md, 7, 0, &shared), -ENODATA);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT(thin_lookup_io(io, 0, 1, 2, &got) == 0 && got == 2);
	CU_ASSERT_EQUAL(thin_lookup_io(io, 0, 1, 9, &got), -ENODATA);
	CU_ASSERT_EQUAL(thin_lookup_io(io, 0, 7, 0, &got), -ENODATA);
	CU_ASSERT_FATAL(thin_create_snap(md, 2, 1) == 0);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	/* one leaf for both trees, each data block counted once */
	CU_ASSERT(thin_mapping_shared(md, 1, 2, &shared) == 0 && shared);
	CU_ASSERT(thin_mapping_shared(md, 2, 2, &shared) == 0 && shared);
	/* the origin written apart at block 2: its own leaf, every block of
	 * the old leaf now counted twice but block 2 */
	CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
	CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, 2, db) == 0);
	CU_ASSERT(thin_mapping_shared(md, 1, 2, &shared) == 0 && !shared);
	CU_ASSERT(thin_mapping_shared(md, 2, 2, &shared) == 0 && !shared);
	CU_ASSERT(thin_mapping_shared(md, 1, 3, &shared) == 0 && shared);
	CU_ASSERT_FATAL(thin_reserve_metadata_snap(md) == 0);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	CU_ASSERT(thin_lookup_io(io, 0, 1, 2, &got) == 0 && got == db);
	CU_ASSERT(thin_lookup_io(io, THIN_DELTA_METADATA_SNAP, 1, 2, &got) == 0 && got == db);
	CU_ASSERT(thin_lookup_io(io, 0, 2, 2, &got) == 0 && got == 2);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	io_destroy(io);
}

/* Devices over many leaves of both device trees: reopened, every one is
 * there with its details; devices added after an open (at the end, past
 * the room the open left, and between others) and deleted keep the table
 * in order across a commit and another open. */
static void check_devices(struct thin_md *md, const unsigned char *want, uint64_t nr)
{
	uint64_t *ids;
	size_t n, k = 0;

	CU_ASSERT_FATAL(thin_list_devices(md, &ids, &n) == 0);
	for (uint64_t id = 0; id < nr; id++) {
		struct thin_ir_device d;

		if (!want[id]) {
			CU_ASSERT_EQUAL(thin_device_info(md, id, &d), -ENODATA);
			continue;
		}
		CU_ASSERT_FATAL(k < n);
		CU_ASSERT_EQUAL(ids[k], id);
		k++;
		CU_ASSERT_EQUAL_FATAL(thin_device_info(md, id, &d), 0);
		CU_ASSERT_EQUAL(d.dev_id, id);
		/* the snapshots of device 1 took its one mapping */
		CU_ASSERT_EQUAL(d.mapped_blocks, want[id] == 2 ? 1 : 0);
	}
	CU_ASSERT_EQUAL(k, n);
	free(ids);
}

static void test_many_devices(void)
{
	enum { NR = 3000 };
	unsigned char *want = calloc(NR, 1);
	struct io_engine *io;
	struct thin_md *md;
	uint64_t db;

	CU_ASSERT_FATAL(want != NULL);
	CU_ASSERT_FATAL(io_mem_create(16 << 20, "many", &io) == 0);
	CU_ASSERT_FATAL(thin_format(io, 128, 1000, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 1) == 0);
	CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
	CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 1, 0, db) == 0);
	want[1] = 2;
	for (uint64_t id = 4; id < 2000; id += 3) {
		int r = id % 5 == 0 ? thin_create_snap(md, id, 1) : thin_create_thin(md, id);

		CU_ASSERT_FATAL(r == 0);
		want[id] = id % 5 == 0 ? 2 : 1;
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
	check_devices(md, want, NR);
	/* past the end, beyond the room the open left, and between others */
	for (uint64_t id = 2000; id < 2300; id++) {
		CU_ASSERT_FATAL(thin_create_thin(md, id) == 0);
		want[id] = 1;
	}
	for (uint64_t id = 5; id < 1000; id += 9) {
		CU_ASSERT_FATAL(thin_create_snap(md, id, 1) == 0);
		want[id] = 2;
	}
	for (uint64_t id = 7; id < 2000; id += 30) {
		CU_ASSERT_FATAL(thin_delete(md, id) == 0);
		want[id] = 0;
	}
	check_devices(md, want, NR);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(thin_open(io, THIN_RDONLY, &md) == 0);
	check_devices(md, want, NR);
	CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
	thin_close(md);
	/* a transaction that changes a few devices of the many (the commit
	 * visits those only): mappings into three, given in descending id
	 * order, a snapshot (its origin's snap time), a delete */
	{
		static const uint64_t ids[] = { 2290, 1003, 4 };
		struct thin_ir_device d;
		uint32_t time;

		CU_ASSERT_FATAL(thin_open(io, 0, &md) == 0);
		for (size_t i = 0; i < TP_ARRAY_SIZE(ids); i++) {
			CU_ASSERT_FATAL(thin_alloc_data_block(md, &db) == 0);
			CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, ids[i], 3, db) == 0);
		}
		CU_ASSERT_FATAL(thin_create_snap(md, 2500, 1003) == 0);
		CU_ASSERT_FATAL(thin_delete(md, 13) == 0);
		time = thin_get_time(md);
		CU_ASSERT_FATAL(thin_commit(md) == 0);
		thin_close(md);
		CU_ASSERT_FATAL(thin_open(io, THIN_RDONLY, &md) == 0);
		for (size_t i = 0; i < TP_ARRAY_SIZE(ids); i++) {
			CU_ASSERT_EQUAL_FATAL(thin_device_info(md, ids[i], &d), 0);
			CU_ASSERT_EQUAL(d.mapped_blocks, 1);
		}
		CU_ASSERT_EQUAL_FATAL(thin_device_info(md, 1003, &d), 0);
		CU_ASSERT_EQUAL(d.snap_time, time);
		CU_ASSERT_EQUAL_FATAL(thin_device_info(md, 2500, &d), 0);
		CU_ASSERT(d.mapped_blocks == 1 && d.creation_time == time);
		CU_ASSERT_EQUAL(thin_device_info(md, 13, &d), -ENODATA);
		CU_ASSERT_EQUAL_FATAL(thin_device_info(md, 16, &d), 0);
		CU_ASSERT_EQUAL(d.mapped_blocks, 0);
		CU_ASSERT_EQUAL(thin_verify_counts(md), 0);
		thin_close(md);
	}
	io_destroy(io);
	free(want);
}

TP_TEST_SUITE(thin, NULL, NULL,
	      { "shared_lookup", test_shared_lookup },
	      { "remap", test_remap },
	      { "walk_batches", test_walk_batches },
	      { "enospc", test_enospc },
	      { "builder_failures", test_builder_failures },
	      { "big_shared", test_big_shared },
	      { "commit_writes_change", test_commit_writes_change },
	      { "basics", test_basics },
	      { "kernel_fixtures", test_fixtures },
	      { "model", test_model },
	      { "many_devices", test_many_devices })
