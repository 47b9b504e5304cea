/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A volume's head, offline (lib/pool/volume/volume_head.c, pool_volume.h):
 * read with unmapped chunks as zeros; rewritten into new data blocks in
 * one change (only the chunks that changed, the bytes past the head in a
 * partial chunk kept, a snapshot keeping the old bytes, nothing at all
 * for the same bytes, a read-only volume refused); erased in place with
 * random bytes where only the volume maps a chunk, a snapshot's shared
 * chunks left and named. The pool is on image files; the data image is
 * searched for the bytes an erase must leave nowhere. */
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL "head"
#define DATA_SIZE (8u << 20)
#define META_SIZE (6u << 20)
#define HEAD (256u << 10)	/* four chunks of 64 KiB */

static char data_path[640], meta_path[640];
static unsigned nr_pools;
static unsigned char pat1[HEAD], pat2[HEAD], got[HEAD];
static uint64_t chunk;

static void fill(unsigned char *b, size_t len, uint32_t seed)
{
	uint32_t x = seed;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (unsigned char)x;
	}
}

static struct pool *fresh_pool(void)
{
	char dir[600], etc[620];
	struct pool *p = NULL;
	struct pool_info info;
	uint64_t over;

	snprintf(dir, sizeof(dir), "%s/head-%u", tp_test_tmpdir(), nr_pools++);
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0 && mkdir(etc, 0700) == 0);
	setenv("TPTOOLS_DIR", etc, 1);
	snprintf(data_path, sizeof(data_path), "%s/data.img", dir);
	snprintf(meta_path, sizeof(meta_path), "%s/meta.img", dir);
	pool_on_images(POOL, data_path, DATA_SIZE, meta_path, META_SIZE);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "a", 16u << 20, 0, &over) == 0);
	CU_ASSERT_FATAL(pool_get_info(p, 0, &info) == 0);
	chunk = info.chunk;
	pool_info_free(&info);
	CU_ASSERT_FATAL(chunk == 65536);
	fill(pat1, HEAD, 0x1234567u);
	fill(pat2, HEAD, 0x7654321u);
	return p;
}

static uint64_t tid_of(struct pool *p)
{
	struct pool_info info;
	uint64_t t;

	CU_ASSERT_FATAL(pool_get_info(p, 0, &info) == 0);
	t = info.transaction_id;
	pool_info_free(&info);
	return t;
}

static int rewrite(struct pool *p, const char *vol, const void *old, const void *new,
		   uint64_t len, unsigned *chunks)
{
	struct pool_head_write w = { vol, old, new, len, 0 };
	int r = pool_volume_heads_rewrite(p, &w, 1);

	*chunks = w.chunks;
	return r;
}

/* How often the LEN bytes at NEEDLE occur in file PATH, at any 512-byte
 * boundary. */
static unsigned occurs(const char *path, const void *needle, size_t len)
{
	struct file_copy f;
	unsigned n = 0;

	file_copy_read(path, &f);
	for (size_t at = 0; at + len <= f.size; at += 512)
		n += !memcmp(f.data + at, needle, len);
	file_copy_free(&f);
	return n;
}

static void test_read_unmapped(void)
{
	struct pool *p = fresh_pool();
	struct tp_log_capture cap;

	memset(got, 0xaa, sizeof(got));
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	for (size_t i = 0; i < HEAD; i++)
		if (got[i]) {
			CU_FAIL("an unmapped chunk does not read as zeros");
			break;
		}
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", 0, got), -EINVAL);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "nope", HEAD, got), -ENOENT);
	tp_log_capture(NULL);
	pool_close(p);
}

static void test_rewrite_changed_only(void)
{
	static unsigned char zero[HEAD], half[HEAD];
	struct pool *p = fresh_pool();
	unsigned chunks = 99;
	uint64_t t0 = tid_of(p);

	/* chunks 0 and 2 hold data, 1 and 3 stay zeros (unmapped) */
	memcpy(half, pat1, HEAD);
	memset(half + chunk, 0, chunk);
	memset(half + 3 * chunk, 0, chunk);
	CU_ASSERT_EQUAL(rewrite(p, "a", zero, half, HEAD, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 2);
	CU_ASSERT_EQUAL(tid_of(p), t0 + 1);	/* one change */
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, half, HEAD));
	/* the same bytes again: nothing written, no change */
	CU_ASSERT_EQUAL(rewrite(p, "a", half, half, HEAD, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 0);
	CU_ASSERT_EQUAL(tid_of(p), t0 + 1);
	pool_close(p);
	/* what another open reads: durable */
	CU_ASSERT_FATAL(pool_open(POOL, NULL, POOL_RDONLY, &p) == 0);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, half, HEAD));
	pool_close(p);
}

/* A head that ends inside a chunk: the chunk's bytes past it are kept. */
static void test_rewrite_partial_chunk(void)
{
	static unsigned char zero[HEAD];
	struct pool *p = fresh_pool();
	uint64_t len = chunk + 1000;
	unsigned chunks;

	CU_ASSERT_EQUAL(rewrite(p, "a", zero, pat1, HEAD, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 4);
	memcpy(got, pat1, HEAD);
	CU_ASSERT_EQUAL(rewrite(p, "a", pat1, pat2, len, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 2);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, pat2, len));
	CU_ASSERT(!memcmp(got + len, pat1 + len, HEAD - len));
	pool_close(p);
}

/* A snapshot taken before keeps the old bytes: the old blocks are never
 * written, only no longer the volume's. */
static void test_rewrite_snapshot_keeps_old(void)
{
	static unsigned char zero[HEAD], mixed[HEAD];
	struct pool *p = fresh_pool();
	unsigned chunks;

	CU_ASSERT_EQUAL(rewrite(p, "a", zero, pat1, HEAD, &chunks), 0);
	CU_ASSERT_FATAL(pool_volume_snapshot(p, "a", "s", 0) == 0);
	memcpy(mixed, pat1, HEAD);
	memcpy(mixed + 2 * chunk, pat2 + 2 * chunk, chunk);
	CU_ASSERT_EQUAL(rewrite(p, "a", pat1, mixed, HEAD, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 1);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, mixed, HEAD));
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "s", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, pat1, HEAD));
	pool_close(p);
	/* the old chunk 2 is on the data image once (s's), the new once */
	CU_ASSERT_EQUAL(occurs(data_path, pat1 + 2 * chunk, chunk), 1);
	CU_ASSERT_EQUAL(occurs(data_path, pat2 + 2 * chunk, chunk), 1);
}

static void test_rewrite_readonly_refused(void)
{
	static unsigned char zero[HEAD];
	struct pool *p = fresh_pool();
	struct tp_log_capture cap;
	unsigned chunks;
	uint64_t t0;

	CU_ASSERT_FATAL(pool_volume_set_readonly(p, "a", 1) == 0);
	t0 = tid_of(p);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(rewrite(p, "a", zero, pat1, HEAD, &chunks), -EROFS);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(tid_of(p), t0);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, zero, HEAD));
	pool_close(p);
	CU_ASSERT_EQUAL(occurs(data_path, pat1, 4096), 0);
}

/* Erase of a volume no other maps: every chunk of its head random, the
 * old bytes nowhere on the data image, no metadata changed. */
static void test_erase_own(void)
{
	static unsigned char zero[HEAD];
	struct pool_head_erase res;
	struct pool *p = fresh_pool();
	unsigned chunks;
	uint64_t t0;

	CU_ASSERT_EQUAL(rewrite(p, "a", zero, pat1, HEAD, &chunks), 0);
	t0 = tid_of(p);
	CU_ASSERT_EQUAL(occurs(data_path, pat1, 4096), 1);
	CU_ASSERT_EQUAL(pool_volume_head_erase(p, "a", HEAD, &res), 0);
	CU_ASSERT_EQUAL(res.erased, 4);
	CU_ASSERT_EQUAL(res.shared, 0);
	CU_ASSERT(res.first_own);
	CU_ASSERT_EQUAL(res.nr_holders, 0);
	CU_ASSERT_EQUAL(tid_of(p), t0);
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	for (unsigned i = 0; i < 4; i++) {
		CU_ASSERT(memcmp(got + i * chunk, pat1 + i * chunk, 4096) != 0);
		CU_ASSERT(memcmp(got + i * chunk, zero, 4096) != 0);
	}
	pool_close(p);
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(occurs(data_path, pat1 + i * chunk, 4096), 0);
}

/* Erase of a volume whose snapshot shares three chunks of its head: only
 * its own chunk is overwritten, the snapshot still reads the old bytes
 * and is named; unmapped chunks counted. */
static void test_erase_shared(void)
{
	static unsigned char zero[HEAD], mixed[HEAD], part[HEAD];
	struct pool_head_erase res;
	struct pool *p = fresh_pool();
	unsigned chunks;

	memcpy(part, pat1, HEAD);
	memset(part + 3 * chunk, 0, chunk);	/* chunk 3 unmapped */
	CU_ASSERT_EQUAL(rewrite(p, "a", zero, part, HEAD, &chunks), 0);
	CU_ASSERT_FATAL(pool_volume_snapshot(p, "a", "s", 0) == 0);
	memcpy(mixed, part, HEAD);
	memcpy(mixed + chunk, pat2 + chunk, chunk);	/* chunk 1 a's own */
	CU_ASSERT_EQUAL(rewrite(p, "a", part, mixed, HEAD, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 1);
	CU_ASSERT_EQUAL(pool_volume_head_erase(p, "a", HEAD, &res), 0);
	CU_ASSERT_EQUAL(res.erased, 1);
	CU_ASSERT_EQUAL(res.shared, 2);
	CU_ASSERT_EQUAL(res.unmapped, 1);
	CU_ASSERT(!res.first_own);
	CU_ASSERT_EQUAL(res.nr_holders, 1);
	CU_ASSERT_STRING_EQUAL(res.holders, "s");
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "s", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, part, HEAD));
	CU_ASSERT_EQUAL(pool_volume_head_read(p, "a", HEAD, got), 0);
	CU_ASSERT(!memcmp(got, part, chunk));	/* shared: kept */
	CU_ASSERT(memcmp(got + chunk, pat2 + chunk, 4096) != 0);
	pool_close(p);
	CU_ASSERT_EQUAL(occurs(data_path, pat2 + chunk, 4096), 0);
}

static int cleanup(void)
{
	unsetenv("TPTOOLS_DIR");
	return 0;
}

TP_TEST_SUITE(volume_head, NULL, cleanup,
	      { "read: unmapped chunks as zeros, bad lengths and names refused",
		test_read_unmapped },
	      { "rewrite: only the chunks that changed, in one change", test_rewrite_changed_only },
	      { "rewrite: a partial last chunk keeps its bytes past the head",
		test_rewrite_partial_chunk },
	      { "rewrite: a snapshot keeps the old bytes", test_rewrite_snapshot_keeps_old },
	      { "rewrite: a read-only volume refused, nothing written",
		test_rewrite_readonly_refused },
	      { "erase: a volume's own head random, its bytes nowhere", test_erase_own },
	      { "erase: chunks a snapshot shares left to it and named", test_erase_shared })
