/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/pool: volume specs and the exclusive/shared counting walk. */
#include "lib/pool/pool.h"
#include "lib/pool/pool_names_dm.h"
#include "lib/pool/core/pool_usage.h"
#include "lib/base/log.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void test_split(void)
{
	char p[POOL_NAME_MAX + 1], v[POOL_NAME_MAX + 1];
	struct tp_log_capture cap;
	static const char *const bad[] = { "vault", "vault/", "/www", "a/b/c", "-a/b", "a/..",
					   "a b/c", "" };

	CU_ASSERT_EQUAL(pool_split_volume_spec("vault/www", p, v), 0);
	CU_ASSERT_STRING_EQUAL(p, "vault");
	CU_ASSERT_STRING_EQUAL(v, "www");
	CU_ASSERT_EQUAL(pool_split_volume_spec("a.b_c+d/e-f", p, v), 0);
	tp_log_capture(&cap);
	for (size_t i = 0; i < TP_ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(pool_split_volume_spec(bad[i], p, v), -EINVAL);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "not POOL/VOLUME") != NULL);
}

/* Three devices: 0 maps data 0..9; 1 (a snapshot of 0 that rewrote two
 * blocks) maps 0..7 and 20..21; 2 maps 30..31 and one block beyond the
 * pool (ignored). */
static int fake_walk(void *arg, const struct thin_ir_visitor *v)
{
	static const struct thin_ir_mapping d0[] = { { 0, 0, 10, 0 } };
	static const struct thin_ir_mapping d1[] = { { 0, 0, 8, 0 }, { 8, 20, 2, 1 } };
	static const struct thin_ir_mapping d2[] = { { 0, 30, 2, 1 }, { 5, 1000, 1, 1 } };
	static const struct thin_ir_mapping *maps[] = { d0, d1, d2 };
	static const size_t nmaps[] = { 1, 2, 2 };
	int *calls = arg, r;

	(*calls)++;
	for (uint64_t d = 0; d < 3; d++) {
		struct thin_ir_device dev = { d, 0, 0, 0, 0 };
		if ((r = v->device_begin(v->ctx, &dev)))
			return r;
		/* split the runs over two batches, as a walker may */
		if ((r = v->mappings(v->ctx, maps[d], 1)) ||
		    (nmaps[d] > 1 && (r = v->mappings(v->ctx, maps[d] + 1, nmaps[d] - 1))))
			return r;
	}
	return 0;
}

static void test_usage(void)
{
	struct pool_dev_usage *u;
	const struct pool_dev_usage *d;
	size_t n;
	int calls = 0;

	CU_ASSERT_FATAL(pool_usage_walk(fake_walk, &calls, 100, &u, &n) == 0);
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(n, 3);
	d = pool_usage_find(u, n, 0);
	CU_ASSERT_FATAL(d != NULL);
	CU_ASSERT_EQUAL(d->mapped, 10);
	CU_ASSERT_EQUAL(d->exclusive, 2);	/* 8 and 9 */
	d = pool_usage_find(u, n, 1);
	CU_ASSERT_EQUAL(d->mapped, 10);
	CU_ASSERT_EQUAL(d->exclusive, 2);	/* 20, 21 */
	d = pool_usage_find(u, n, 2);
	CU_ASSERT_EQUAL(d->mapped, 2);		/* block 1000 is beyond the pool */
	CU_ASSERT_EQUAL(d->exclusive, 2);
	CU_ASSERT_PTR_NULL(pool_usage_find(u, n, 7));
	free(u);
}

static int failing_walk(void *arg, const struct thin_ir_visitor *v)
{
	(void)arg;
	(void)v;
	return -EUCLEAN;
}

static void test_usage_error(void)
{
	struct pool_dev_usage *u = (void *)1;
	size_t n = 5;

	CU_ASSERT_EQUAL(pool_usage_walk(failing_walk, NULL, 10, &u, &n), -EUCLEAN);
	CU_ASSERT_PTR_NULL(u);
	CU_ASSERT_EQUAL(n, 0);
}

/* dm names: "POOL-VOLUME" with '-' doubled, at most 127 bytes */
static void test_dm_names(void)
{
	char pool[65], vol[65];

	memset(pool, 'p', 64);
	pool[64] = '\0';
	memset(vol, 'v', 62);
	vol[62] = '\0';
	CU_ASSERT_EQUAL(pool_dm_vol_name_len("a-b", "c--d"), 4 + 1 + 6);
	CU_ASSERT_EQUAL(pool_dm_vol_name_len(pool, vol), 127);
	CU_ASSERT_EQUAL(pool_dm_vol_name_check(pool, vol), 0);
	vol[61] = '-';	/* counts twice: 128 */
	CU_ASSERT_EQUAL(pool_dm_vol_name_len(pool, vol), 128);
	tp_log_set_verbosity(-2);
	CU_ASSERT_EQUAL(pool_dm_vol_name_check(pool, vol), -EINVAL);
	strcpy(vol, "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv");
	CU_ASSERT_EQUAL(pool_dm_vol_name_check(pool, vol), -EINVAL);
	CU_ASSERT_EQUAL(pool_dm_vol_name_check("vault", vol), 0);
	/* names invalid in other ways are left to the other checks */
	CU_ASSERT_EQUAL(pool_dm_vol_name_check(pool, "-x"), 0);
	tp_log_set_verbosity(0);
}

TP_TEST_SUITE(pool, NULL, NULL,
	      { "POOL/VOLUME specs", test_split },
	      { "device-mapper names of volumes fit 127 bytes", test_dm_names },
	      { "exclusive and shared by walking", test_usage },
	      { "walk errors pass up", test_usage_error })
