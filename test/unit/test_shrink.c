/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpreduce --size's decision on the new data size (lib/pool/policy:
 * tp_policy_shrink): a table of the edges, and random inputs checked
 * against the rule as policy.h states it, computed another way (the
 * smallest number of chunks whose bytes reach the size, by 128-bit
 * arithmetic). */
#include "lib/base/log.h"
#include "lib/pool/core/core_int.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/policy.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect(uint64_t old, uint64_t first, uint64_t chunk, uint64_t want, int rc,
		   uint64_t n)
{
	uint64_t got = 12345;

	CU_ASSERT_EQUAL(tp_policy_shrink(old, first, chunk, want, &got), rc);
	if (rc != -EINVAL)
		CU_ASSERT_EQUAL(got, n);
}

static void test_shrink_table(void)
{
	const uint64_t K64 = 65536;

	/* half of 496 chunks: exact, and rounded up to whole chunks */
	expect(496, 0, K64, 248 * K64, 0, 248);
	expect(496, 0, K64, 248 * K64 - 1, 0, 248);
	expect(496, 0, K64, 247 * K64 + 1, 0, 248);
	/* the size it has, or one that rounds up to it: nothing to do */
	expect(496, 0, K64, 496 * K64, -EEXIST, 496);
	expect(496, 0, K64, 495 * K64 + 1, -EEXIST, 496);
	/* larger: refused */
	expect(496, 0, K64, 496 * K64 + 1, -EFBIG, 497);
	expect(496, 0, K64, UINT64_MAX, -EFBIG, UINT64_MAX / K64 + 1);
	/* one chunk is the least; 0 leaves none */
	expect(496, 0, K64, 1, 0, 1);
	expect(496, 0, K64, 0, -ERANGE, 0);
	/* two devices, the last from chunk 240: it keeps one at least */
	expect(288 + 192, 240, K64, 241 * K64, 0, 241);
	expect(288 + 192, 240, K64, 240 * K64 + 1, 0, 241);
	expect(288 + 192, 240, K64, 240 * K64, -ERANGE, 240);
	expect(288 + 192, 240, K64, 8u << 20, -ERANGE, 128);
	/* no chunk size: refused, not a division by 0 */
	expect(496, 0, 0, 1, -EINVAL, 0);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_shrink_random(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned seen[4] = { 0, 0, 0, 0 };

	for (int i = 0; i < 200000; i++) {
		uint64_t chunk = (uint64_t)128 << (rnd(&s) % 14);	/* 64 KiB .. 1 GiB */
		uint64_t old = 1 + rnd(&s) % 100000, first = rnd(&s) % old;
		uint64_t want, n, got;
		unsigned __int128 bytes;
		int rc, r;

		chunk *= 512;
		want = rnd(&s) % ((old + 3) * chunk);
		/* the smallest N with N chunks >= WANT bytes */
		n = want / chunk;
		bytes = (unsigned __int128)n * chunk;
		if (bytes < want)
			n++;
		rc = n == old ? -EEXIST : n > old ? -EFBIG : n <= first ? -ERANGE : 0;
		r = tp_policy_shrink(old, first, chunk, want, &got);
		CU_ASSERT_EQUAL(r, rc);
		CU_ASSERT_EQUAL(got, n);
		if (!r) {
			/* a shrink: the area smaller, the last device keeps a chunk,
			 * and the area holds WANT bytes, but not with one chunk less */
			CU_ASSERT(got < old && got > first);
			CU_ASSERT((unsigned __int128)got * chunk >= want);
			CU_ASSERT((unsigned __int128)(got - 1) * chunk < want);
		}
		seen[r == 0 ? 0 : r == -EEXIST ? 1 : r == -EFBIG ? 2 : 3]++;
	}
	/* every outcome was drawn */
	for (int k = 0; k < 4; k++)
		CU_ASSERT(seen[k] > 0);
}

/* A pool the kernel runs: refused before anything of it is looked at
 * (the pool here has no VG and no device: a read would crash), naming
 * the command that deactivates it, also with --test. */
static void test_shrink_live(void)
{
	struct pool *p = calloc(1, sizeof(*p));
	struct pool_shrink_params x;
	struct pool_shrink_result res;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(p != NULL);
	snprintf(p->name, sizeof(p->name), "vault");
	p->be = &pool_backend_live;
	memset(&x, 0, sizeof(x));
	x.size = 1u << 20;
	for (x.test = 0; x.test < 2; x.test++) {
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(pool_shrink_data(p, &x, &res), -EBUSY);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "pool vault is active in the kernel: "
						       "shrinking its data area (tpreduce --size) "
						       "needs it offline"));
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "'tpdeactivate vault'"));
		CU_ASSERT_FALSE(res.written);
	}
	free(p);
}

TP_TEST_SUITE(shrink, NULL, NULL,
	      { "a live pool refused, naming tpdeactivate", test_shrink_live },
	      { "the new data size: rounding and refusals", test_shrink_table },
	      { "random sizes against the rule", test_shrink_random });
