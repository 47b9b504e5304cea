/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-cut simulator (test/lib/io_crash.h): cached writes are read
 * back, made durable only by a flush, and at a cut each 4 KiB unit keeps
 * one of its versions (never a torn unit); opens of one file share a
 * cache; a lost flush makes nothing durable. */
#include "lib/base/io.h"
#include "test/lib/io_crash.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define U IO_CRASH_UNIT

static unsigned char *unit_of(struct io_engine *mem, unsigned u)
{
	return io_mem_data(mem) + (size_t)u * U;
}

/* Is unit U of MEM filled with C (whole)? */
static int unit_is(struct io_engine *mem, unsigned u, int c)
{
	const unsigned char *p = unit_of(mem, u);

	for (unsigned i = 0; i < U; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

static void test_cache_and_flush(void)
{
	struct io_engine *mem, *e;
	struct io_crash *c;
	unsigned char buf[2 * U], big[3 * U];

	CU_ASSERT_FATAL(io_mem_create(16 * U, "medium", &mem) == 0);
	CU_ASSERT_FATAL(io_crash_create(1, &c) == 0);
	CU_ASSERT_FATAL(io_crash_wrap(c, mem, 0, &e) == 0);
	CU_ASSERT_EQUAL(io_crash_wrap(c, mem, 1, &e), -EINVAL);	/* a mem medium is the caller's */
	CU_ASSERT_STRING_EQUAL(e->name, "medium");
	memset(big, 0xab, sizeof(big));
	CU_ASSERT_EQUAL(io_write(e, U / 2, big, sizeof(big)), 0);	/* four units touched */
	memset(buf, 0, sizeof(buf));
	CU_ASSERT_EQUAL(io_read(e, 0, buf, sizeof(buf)), 0);
	CU_ASSERT(buf[U / 2 - 1] == 0 && buf[U / 2] == 0xab && buf[2 * U - 1] == 0xab);
	CU_ASSERT(unit_is(mem, 1, 0));	/* not durable yet */
	CU_ASSERT_EQUAL(io_crash_writes(c), 1);
	CU_ASSERT_EQUAL(io_flush(e), 0);
	CU_ASSERT(unit_is(mem, 1, 0xab) && unit_is(mem, 2, 0xab));
	CU_ASSERT(unit_of(mem, 0)[U / 2 - 1] == 0 && unit_of(mem, 3)[U / 2 - 1] == 0xab);
	CU_ASSERT(unit_of(mem, 3)[U / 2] == 0);
	CU_ASSERT_EQUAL(io_crash_flushes(c), 1);

	/* a lost flush: success, nothing durable; the next one makes it so */
	io_crash_lose_flush(c, 1);
	memset(big, 0xcd, U);
	CU_ASSERT_EQUAL(io_write(e, 8 * U, big, U), 0);
	CU_ASSERT_EQUAL(io_flush(e), 0);
	CU_ASSERT(unit_is(mem, 8, 0));
	CU_ASSERT_EQUAL(io_flush(e), 0);
	CU_ASSERT(unit_is(mem, 8, 0xcd));

	/* after a cut the device is gone */
	CU_ASSERT_EQUAL(io_crash_cut(c), 0);
	CU_ASSERT(io_crash_is_cut(c));
	CU_ASSERT_EQUAL(io_write(e, 0, big, U), -EIO);
	CU_ASSERT_EQUAL(io_flush(e), -EIO);
	CU_ASSERT(unit_is(mem, 0, 0) || unit_of(mem, 0)[U / 2] == 0xab);
	io_destroy(e);
	io_crash_destroy(c);
	io_destroy(mem);
}

/* Units 0..3 each written twice (versions 1 and 2) and unit 4 once, after
 * a flushed version 9 everywhere. A random cut leaves each unit whole at 9,
 * 1 or 2 (5: 9 or 1), and over many seeds every combination shows up. */
static void test_random_cut(void)
{
	unsigned seen[5][3] = { { 0 } };
	uint64_t kept = 0, lost = 0;

	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct io_engine *mem, *e;
		struct io_crash *c;
		unsigned char blk[U];
		uint64_t k, l;

		CU_ASSERT_FATAL(io_mem_create(8 * U, "medium", &mem) == 0);
		CU_ASSERT_FATAL(io_crash_create(seed, &c) == 0);
		CU_ASSERT_FATAL(io_crash_wrap(c, mem, 0, &e) == 0);
		memset(blk, 9, U);
		for (unsigned u = 0; u < 5; u++)
			CU_ASSERT_EQUAL(io_write(e, u * U, blk, U), 0);
		CU_ASSERT_EQUAL(io_flush(e), 0);
		for (int v = 1; v <= 2; v++) {
			memset(blk, v, U);
			for (unsigned u = 0; u < (v == 1 ? 5u : 4u); u++)
				CU_ASSERT_EQUAL(io_write(e, u * U, blk, U), 0);
		}
		io_crash_arm(c, io_crash_events(c) + 1, IO_CRASH_RANDOM);
		CU_ASSERT_EQUAL(io_write(e, 6 * U, blk, U), 0);	/* cached */
		CU_ASSERT_EQUAL(io_write(e, 7 * U, blk, U), -EIO);	/* the cut */
		CU_ASSERT(io_crash_is_cut(c));
		CU_ASSERT(unit_is(mem, 7, 0));
		for (unsigned u = 0; u < 5; u++) {
			int ok = unit_is(mem, u, 9) || unit_is(mem, u, 1) || unit_is(mem, u, 2);
			CU_ASSERT(ok);
			seen[u][unit_is(mem, u, 9) ? 0 : unit_is(mem, u, 1) ? 1 : 2]++;
		}
		io_crash_counts(c, &k, &l);
		CU_ASSERT_EQUAL(k + l, 6);	/* units 0..4 and 6 */
		kept += k;
		lost += l;
		io_destroy(e);
		io_crash_destroy(c);
		io_destroy(mem);
	}
	for (unsigned u = 0; u < 4; u++)
		CU_ASSERT(seen[u][0] > 0 && seen[u][1] > 0 && seen[u][2] > 0);
	CU_ASSERT(seen[4][0] > 0 && seen[4][1] > 0 && seen[4][2] == 0);
	CU_ASSERT(kept > 0 && lost > 0);
}

static void test_none_and_all(void)
{
	for (int mode = IO_CRASH_NONE; mode <= IO_CRASH_ALL; mode++) {
		struct io_engine *mem, *e;
		struct io_crash *c;
		unsigned char blk[U];

		CU_ASSERT_FATAL(io_mem_create(4 * U, "medium", &mem) == 0);
		CU_ASSERT_FATAL(io_crash_create(7, &c) == 0);
		CU_ASSERT_FATAL(io_crash_wrap(c, mem, 0, &e) == 0);
		memset(blk, 5, U);
		CU_ASSERT_EQUAL(io_write(e, 0, blk, U), 0);
		CU_ASSERT_EQUAL(io_write(e, 2 * U, blk, 512), 0);	/* part of a unit */
		io_crash_arm(c, 0, (enum io_crash_mode)mode);
		CU_ASSERT_EQUAL(io_crash_cut(c), 0);
		if (mode == IO_CRASH_NONE) {
			CU_ASSERT(unit_is(mem, 0, 0) && unit_is(mem, 2, 0));
		} else {
			CU_ASSERT(unit_is(mem, 0, 5));
			CU_ASSERT(unit_of(mem, 2)[511] == 5 && unit_of(mem, 2)[512] == 0);
		}
		io_destroy(e);
		io_crash_destroy(c);
		io_destroy(mem);
	}
}

/* Two opens of one file (through io_fd_open with the hook) share one
 * cache; what a cut loses is lost for both. */
static void test_hook_shares_a_file(void)
{
	char path[512];
	struct io_engine *a, *b, *plain;
	struct io_crash *c;
	unsigned char blk[U], back[U];
	int fd;

	snprintf(path, sizeof(path), "%s/crash.img", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, 8 * U) == 0);
	close(fd);
	CU_ASSERT_FATAL(io_crash_create(3, &c) == 0);
	io_crash_hook(c);
	CU_ASSERT_FATAL(io_fd_open(path, 0, &a) == 0);
	CU_ASSERT_FATAL(io_fd_open(path, IO_RDONLY, &b) == 0);
	io_crash_hook(NULL);
	CU_ASSERT_EQUAL(io_fd_get(a), -1);	/* wrapped */
	CU_ASSERT_STRING_EQUAL(a->name, path);
	memset(blk, 0x3c, U);
	CU_ASSERT_EQUAL(io_write(a, U, blk, U), 0);
	CU_ASSERT_EQUAL(io_read(b, U, back, U), 0);
	CU_ASSERT_EQUAL(back[0], 0x3c);
	CU_ASSERT_FATAL(io_fd_open(path, IO_RDONLY, &plain) == 0);	/* the medium */
	CU_ASSERT_EQUAL(io_read(plain, U, back, U), 0);
	CU_ASSERT_EQUAL(back[0], 0);
	io_crash_arm(c, 0, IO_CRASH_NONE);
	CU_ASSERT_EQUAL(io_crash_cut(c), 0);
	CU_ASSERT_EQUAL(io_read(b, U, back, U), 0);
	CU_ASSERT_EQUAL(back[0], 0);
	io_destroy(a);
	io_destroy(b);
	io_destroy(plain);
	io_crash_destroy(c);
}

TP_TEST_SUITE(io_crash, NULL, NULL,
	      { "cache, flush, lost flush, cut", test_cache_and_flush },
	      { "a random cut keeps whole units", test_random_cut },
	      { "cuts keeping none or all", test_none_and_all },
	      { "opens of one file share a cache", test_hook_shares_a_file })
