/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/pool: volume specs and the exclusive/shared counting walk. */
#include "lib/pool/pool.h"
#include "lib/pool/pool_names_dm.h"
#include "lib/pool/core/pool_usage.h"
#include "lib/base/log.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

	CU_ASSERT_FATAL(pool_usage_walk(fake_walk, &calls, 100, 0, &u, &n) == 0);
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
	/* the room asked for, short, exact or ample: the same devices */
	for (size_t expect = 1; expect <= 1000; expect *= 3) {
		calls = 0;
		CU_ASSERT_FATAL(pool_usage_walk(fake_walk, &calls, 100, expect, &u, &n) == 0);
		CU_ASSERT_EQUAL(n, 3);
		d = pool_usage_find(u, n, 2);
		CU_ASSERT(d && d->mapped == 2 && d->exclusive == 2);
		free(u);
	}
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

	CU_ASSERT_EQUAL(pool_usage_walk(failing_walk, NULL, 10, 2, &u, &n), -EUCLEAN);
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

/* A sparse file of SIZE bytes at DIR/NAME; its path in PATH. */
static void sparse(const char *dir, const char *name, uint64_t size, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)size) == 0);
	close(fd);
}

/* pool_plan's VG area (tpcreate --vg-area): auto keeps 1 MiB on devices
 * up to 1 GiB, takes 1/64 of the smallest above, up to 71 MiB, and never
 * takes the room the thin-metadata areas need; an explicit size is laid
 * out as given, or refused naming the largest that fits. */
static void test_plan_vg_area(void)
{
	const uint64_t MiB = 1024 * 1024;
	char dir[600], data[700], meta[700];
	struct pool_create_params cp = { .name = "va" };
	struct pool_create_plan plan;
	struct tp_log_capture cap;
	char *old = getenv("TPTOOLS_DIR") ? strdup(getenv("TPTOOLS_DIR")) : NULL;

	snprintf(dir, sizeof(dir), "%s/plan-vg-area", tp_test_tmpdir());
	mkdir(dir, 0700);
	setenv("TPTOOLS_DIR", dir, 1);
	cp.data_path = data;
	cp.meta_path = meta;
	sparse(dir, "d", 4096 * MiB, data, sizeof(data));
	sparse(dir, "m", 1024 * MiB, meta, sizeof(meta));
	CU_ASSERT_EQUAL_FATAL(pool_plan(&cp, &plan), 0);
	CU_ASSERT_EQUAL(plan.vg_area, MiB);
	CU_ASSERT_EQUAL(plan.mda_offset, 4096);
	CU_ASSERT_EQUAL(plan.mda_size, MiB - 4096);
	CU_ASSERT_EQUAL(plan.policy.data_offset.offset, MiB);
	CU_ASSERT_EQUAL(plan.policy.meta.active_offset, MiB);
	CU_ASSERT_PTR_NOT_NULL(strstr(plan.vg_area_reason, "as every pool before --vg-area"));
	/* a 2 GiB metadata device: 32 MiB, the areas behind it */
	sparse(dir, "m", 2048 * MiB, meta, sizeof(meta));
	CU_ASSERT_EQUAL_FATAL(pool_plan(&cp, &plan), 0);
	CU_ASSERT_EQUAL(plan.vg_area, 32 * MiB);
	CU_ASSERT_EQUAL(plan.mda_size, 32 * MiB - 4096);
	CU_ASSERT_EQUAL(plan.vg_area_text, (32 * MiB - 4096) / 2 / 512 * 512 - 512);
	CU_ASSERT(plan.policy.data_offset.offset >= 32 * MiB);
	CU_ASSERT(plan.policy.meta.active_offset >= 32 * MiB);
	/* ... but thin-metadata areas of 1020 MiB each leave it 8 MiB */
	cp.metadata_size = 1020 * MiB;
	CU_ASSERT_EQUAL_FATAL(pool_plan(&cp, &plan), 0);
	CU_ASSERT_EQUAL(plan.vg_area, 8 * MiB);
	CU_ASSERT_PTR_NOT_NULL(strstr(plan.vg_area_reason, "the most that leaves"));
	/* ... and an explicit 9 MiB is refused naming those 8 */
	cp.vg_area = 9 * MiB;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_plan(&cp, &plan), -EINVAL);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "--vg-area 9 MiB leaves its devices too little room"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "at most 8"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "(8388608 bytes)"));
	cp.metadata_size = 0;
	/* large devices: the cap, 71 MiB */
	cp.vg_area = 0;
	sparse(dir, "d", 65536 * MiB, data, sizeof(data));
	sparse(dir, "m", 8192 * MiB, meta, sizeof(meta));
	CU_ASSERT_EQUAL_FATAL(pool_plan(&cp, &plan), 0);
	CU_ASSERT_EQUAL(plan.vg_area, 71 * MiB);
	CU_ASSERT(pool_vg_area_volumes(plan.vg_area_text, 1) >= 100000);
	/* explicit: as given, on small devices too */
	cp.vg_area = 64 * 1024;
	sparse(dir, "d", 64 * MiB, data, sizeof(data));
	sparse(dir, "m", 16 * MiB, meta, sizeof(meta));
	CU_ASSERT_EQUAL_FATAL(pool_plan(&cp, &plan), 0);
	CU_ASSERT_EQUAL(plan.mda_size, 61440);
	CU_ASSERT_EQUAL(plan.vg_area_text, 30208);
	cp.vg_area = 100 * 1024;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_plan(&cp, &plan), -EINVAL);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "multiple of 64 KiB"));
	unlink(data);
	unlink(meta);
	if (old)
		setenv("TPTOOLS_DIR", old, 1);
	else
		unsetenv("TPTOOLS_DIR");
	free(old);
}

TP_TEST_SUITE(pool, NULL, NULL,
	      { "POOL/VOLUME specs", test_split },
	      { "device-mapper names of volumes fit 127 bytes", test_dm_names },
	      { "exclusive and shared by walking", test_usage },
	      { "walk errors pass up", test_usage_error },
	      { "pool_plan's VG area: auto, explicit, room", test_plan_vg_area })
