/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The data module (lib/pool/data, data.h) through the core's hooks, on an
 * offline pool on image files: with one data device the core hands out
 * the device itself and the kernel's table has no segments; once a
 * second is added, what the core hands out (pool_pv(p, VG_ROLE_DATA), the
 * data device as the pool sees it), the engine pool_data_open makes anew,
 * the place pool_data_locate gives a chunk and the kernel's linear table
 * (pool_dm_layout) all say the same; the read-only latch reaches that
 * view; and a pool opened with the added device missing has no view and
 * tells the core it lacks one (pool_open then commits nothing).
 * What holds this together are hooks the core runs without naming the
 * module (core.h: struct pool_feature), so a hook lost shows here. */
#include "kernel/dm.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "metadata/vg/vg.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL "datap"
#define DATA_SIZE (8u << 20)
#define META_SIZE (6u << 20)
#define DATA2_SIZE (4u << 20)

static char data_path[640], meta_path[640], data2_path[640];
static unsigned nr_pools;

/* A fresh pool on new image files, its own config dir; with TWO, a
 * second data device added (tpextend --data). */
static void fresh_pool(int two)
{
	struct tp_log_capture cap;
	char dir[600], etc[620];

	snprintf(dir, sizeof(dir), "%s/data-%u", tp_test_tmpdir(), nr_pools++);
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0 && mkdir(etc, 0700) == 0);
	setenv("TPTOOLS_DIR", etc, 1);
	snprintf(data_path, sizeof(data_path), "%s/data.img", dir);
	snprintf(meta_path, sizeof(meta_path), "%s/meta.img", dir);
	snprintf(data2_path, sizeof(data2_path), "%s/data2.img", dir);
	tp_log_capture(&cap);
	pool_on_images(POOL, data_path, DATA_SIZE, meta_path, META_SIZE);
	if (two) {
		struct pool_extend_data_params x = { data2_path, 0, 0 };
		struct pool_extend_data_result res;
		struct pool *p;
		FILE *f = fopen(data2_path, "w");

		CU_ASSERT_FATAL(f && fclose(f) == 0 && truncate(data2_path, DATA2_SIZE) == 0);
		CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
		CU_ASSERT_FATAL(pool_extend_data(p, &x, &res) == 0);
		CU_ASSERT_EQUAL(res.index, 1);
		/* the commit that lists it built the view in this open */
		CU_ASSERT_PTR_NOT_EQUAL(pool_pv(p, VG_ROLE_DATA), pool_pv_at(p, pool_data_slot(0)));
		CU_ASSERT_EQUAL(pool_pv(p, VG_ROLE_DATA)->io->size,
				pool_pv_at(p, pool_data_slot(0))->label.area[0].offset +
					(res.first_chunk + res.chunks) * res.chunk);
		pool_close(p);
	}
	tp_log_capture(NULL);
}

static void test_one_device(void)
{
	struct tp_dm_pool_layout l;
	struct pool *p;
	const struct vg_pv *d;

	fresh_pool(0);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	d = pool_pv(p, VG_ROLE_DATA);
	/* no view: the device itself */
	CU_ASSERT_PTR_EQUAL(d, pool_pv_at(p, pool_data_slot(0)));
	CU_ASSERT_EQUAL(pool_nr_pvs(p), VG_NR_ROLES);
	CU_ASSERT_STRING_EQUAL(pool_data_dev_path(p, 0), d->io->name);
	CU_ASSERT_STRING_EQUAL(pool_data_dev_path(p, 1), "");
	CU_ASSERT_EQUAL(pool_features_incomplete(p), 0);
	pool_dm_layout(p, &l);
	CU_ASSERT_EQUAL(l.nr_data_segs, 0);
	CU_ASSERT_STRING_EQUAL(l.data_dev, d->io->name);
	CU_ASSERT_EQUAL(l.data_offset, d->label.area[0].offset);
	CU_ASSERT(l.data_length > 0 && l.data_length <= d->label.area[0].size);
	pool_close(p);
}

static void test_two_devices(void)
{
	static unsigned char buf[4096], back[4096];
	struct tp_log_capture cap;
	struct tp_dm_pool_layout l;
	struct io_engine *io, *fresh;
	const struct vg_pv *view, *first, *second;
	const struct vg *vg;
	uint64_t chunk, c, off, run, total = 0;
	struct pool *p;

	fresh_pool(1);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	vg = pool_vg(p);
	CU_ASSERT_FATAL(vg_nr_data(vg) == 2);
	chunk = (uint64_t)vg->chunk_size * 512;
	first = pool_pv_at(p, pool_data_slot(0));
	second = pool_pv_at(p, pool_data_slot(1));
	CU_ASSERT_EQUAL(pool_nr_pvs(p), VG_NR_ROLES + 1);
	CU_ASSERT_FATAL(first->io && second->io);
	CU_ASSERT_STRING_EQUAL(pool_data_dev_path(p, 1), second->io->name);
	CU_ASSERT_EQUAL(pool_data_dev_size(p, 1), DATA2_SIZE);

	/* the view: one engine over both areas, behind the first's label */
	view = pool_pv(p, VG_ROLE_DATA);
	CU_ASSERT_PTR_NOT_EQUAL_FATAL(view, first);
	CU_ASSERT_EQUAL(memcmp(&view->label, &first->label, sizeof(view->label)), 0);
	CU_ASSERT_EQUAL(view->io->size, first->label.area[0].offset +
					    (vg_data_dev_chunks(vg, 0) + vg_data_dev_chunks(vg, 1)) * chunk);

	/* the kernel's table: linear over each device's area, in order */
	pool_dm_layout(p, &l);
	CU_ASSERT_FATAL(l.nr_data_segs == 2);
	for (unsigned i = 0; i < 2; i++) {
		CU_ASSERT_STRING_EQUAL(l.data_seg[i].dev, pool_data_dev_path(p, i));
		CU_ASSERT_EQUAL(l.data_seg[i].offset, vg_data_dev(vg, i)->area[0].offset);
		CU_ASSERT_EQUAL(l.data_seg[i].length, vg_data_dev_chunks(vg, i) * chunk);
		total += l.data_seg[i].length;
	}
	CU_ASSERT_EQUAL(l.data_length, total);

	/* the first chunk of the second device: where locate says, what the
	 * view and a reader opened anew read */
	c = vg_data_first_chunk(vg, 1);
	CU_ASSERT_FATAL(pool_data_locate(p, c, &io, &off, &run) == 0);
	CU_ASSERT_PTR_EQUAL(io, second->io);
	CU_ASSERT_EQUAL(off, vg_data_dev(vg, 1)->area[0].offset);
	CU_ASSERT_EQUAL(run, vg_data_dev_chunks(vg, 1));
	CU_ASSERT_EQUAL(pool_data_locate(p, c + run, &io, &off, &run), -ERANGE);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	CU_ASSERT_FATAL(io_write(view->io, first->label.area[0].offset + c * chunk, buf,
				 sizeof(buf)) == 0);
	CU_ASSERT_FATAL(io_read(second->io, vg_data_dev(vg, 1)->area[0].offset, back,
				sizeof(back)) == 0);
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	CU_ASSERT_FATAL(pool_data_open(p, IO_RDONLY, &fresh) == 0);
	CU_ASSERT_EQUAL(fresh->size, view->io->size);
	memset(back, 0, sizeof(back));
	CU_ASSERT_FATAL(io_read(fresh, first->label.area[0].offset + c * chunk, back,
				sizeof(back)) == 0);
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	io_destroy(fresh);

	/* the latch reaches the view */
	tp_log_capture(&cap);
	pool_latch_read_only(p, "a test");
	tp_log_capture(NULL);
	CU_ASSERT_NOT_EQUAL(io_write(view->io, first->label.area[0].offset, buf, sizeof(buf)), 0);
	pool_close(p);
}

static void test_missing(void)
{
	struct tp_log_capture cap;
	char away[700];
	struct pool *p;

	fresh_pool(1);
	snprintf(away, sizeof(away), "%s.away", data2_path);
	CU_ASSERT_FATAL(rename(data2_path, away) == 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_open(POOL, NULL, 0, &p), -ENOENT);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, POOL_DATA_MISSING_OK, &p) == 0);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(pool_features_incomplete(p), 1);
	CU_ASSERT_STRING_EQUAL(pool_data_dev_path(p, 1), "");
	/* no view without every device; the core hears that the pool lacks
	 * one (pool_open then commits nothing) */
	CU_ASSERT_PTR_EQUAL(pool_pv(p, VG_ROLE_DATA), pool_pv_at(p, pool_data_slot(0)));
	CU_ASSERT_EQUAL(pool_features_incomplete(p), 1);
	pool_close(p);
	CU_ASSERT_FATAL(rename(away, data2_path) == 0);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	CU_ASSERT_EQUAL(pool_features_incomplete(p), 0);
	CU_ASSERT_EQUAL(pool_features_incomplete(p), 0);
	CU_ASSERT_PTR_NOT_EQUAL(pool_pv(p, VG_ROLE_DATA), pool_pv_at(p, pool_data_slot(0)));
	pool_close(p);
}

static int cleanup(void)
{
	unsetenv("TPTOOLS_DIR");
	return 0;
}

TP_TEST_SUITE(data_module, NULL, cleanup,
	      { "one data device: the device itself, no segments", test_one_device },
	      { "two data devices: the view, a fresh reader, locate and the table agree",
		test_two_devices },
	      { "a data device missing: no view, the core told it lacks one", test_missing })
