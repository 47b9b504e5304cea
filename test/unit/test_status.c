/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_status.c - tpstatus's attribute strings (pool_attr, vol_attr) and
 * its Prometheus metrics (tools/status_prom.c) from pool_info rows made by
 * hand, so that the kernel's states (an active pool, open volumes, the
 * read-only, out-of-data and failed modes), which this host cannot make,
 * are checked too. The shell tests check the offline states end to end. */
#include "tools/status_fields.h"
#include "tools/status_prom.h"
#include "test/unit/tp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64 * 1024ull)

static struct pool_volume_info vols[2];

/* An offline pool of 100 chunks, 10 used, with a volume and a snapshot. */
static struct pool_info pool(void)
{
	struct pool_info in;

	memset(&in, 0, sizeof(in));
	memset(vols, 0, sizeof(vols));
	snprintf(in.name, sizeof(in.name), "vault");
	snprintf(in.uuid, sizeof(in.uuid), "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
	in.profile = "balanced";
	in.discards = POOL_DISCARDS_PASSDOWN;
	in.chunk = CHUNK;
	in.data_size = 100 * CHUNK;
	in.data_used = 10 * CHUNK;
	in.meta_size = 4096 * 1024;
	in.meta_used = 4096 * 10;
	in.transaction_id = 2;
	snprintf(vols[0].name, sizeof(vols[0].name), "www");
	vols[0].size = 1 << 30;
	vols[0].mapped = 10 * CHUNK;
	snprintf(vols[1].name, sizeof(vols[1].name), "www-snap");
	snprintf(vols[1].origin, sizeof(vols[1].origin), "www");
	vols[1].size = 1 << 30;
	vols[1].mapped = 10 * CHUNK;
	in.nr_volumes = 2;
	in.virtual_total = 2u << 30;
	in.volumes = vols;
	return in;
}

static const char *pattr(const struct pool_info *in)
{
	static char a[STATUS_POOL_ATTR_LEN + 1];

	status_pool_attr(in, a);
	return a;
}

static const char *vattr(const struct pool_info *in, unsigned i)
{
	static char a[STATUS_VOL_ATTR_LEN + 1];

	status_vol_attr(in, &in->volumes[i], a);
	return a;
}

static void test_pool_attr(void)
{
	struct pool_info in = pool();

	CU_ASSERT_STRING_EQUAL(pattr(&in), "w-q--p---");
	/* offline, every chunk in use: out of data space */
	in.data_used = in.data_size;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "D-q--p---");
	in.data_used = 10 * CHUNK;
	in.when_full = POOL_WHEN_FULL_ERROR;
	in.zero = 1;
	in.needs_check = 1;
	in.discards = POOL_DISCARDS_NOPASSDOWN;
	in.activation_skip = 1;
	in.nr_receives = 1;
	in.foreign = 1;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "w-ezcnkuf");
	in = pool();
	in.discards = POOL_DISCARDS_IGNORE;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "w-q--i---");
	/* live: the kernel's mode; its out-of-data mode, not the figures */
	in = pool();
	in.live = 1;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "waq--p---");
	in.data_used = in.data_size;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "waq--p---");
	in.out_of_data = 1;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "Daq--p---");
	in.read_only = 1;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "raq--p---");
	in.failed = 1;
	CU_ASSERT_STRING_EQUAL(pattr(&in), "Faq--p---");
}

static void test_vol_attr(void)
{
	struct pool_info in = pool();

	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "Vw-----");
	CU_ASSERT_STRING_EQUAL(vattr(&in, 1), "sw-----");
	vols[1].read_only = 1;
	vols[1].activation_skip = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 1), "sr---k-");
	/* health: the pool's, the worst first */
	in.needs_check = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "Vw--C--");
	in.data_used = in.data_size;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "Vw--D--");
	in = pool();
	in.live = 1;
	vols[0].active = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "Vwa----");
	vols[0].open = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "Vwao---");
	in.out_of_data = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "VwaoD--");
	in.read_only = 1;
	in.needs_check = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "VwaoM--");
	in.failed = 1;
	CU_ASSERT_STRING_EQUAL(vattr(&in, 0), "VwaoF--");
}

static void test_escape(void)
{
	char buf[64];

	CU_ASSERT_EQUAL(prom_escape_label("vault", buf, sizeof(buf)), 5);
	CU_ASSERT_STRING_EQUAL(buf, "vault");
	CU_ASSERT_EQUAL(prom_escape_label("a\\b\"c\nd", buf, sizeof(buf)), 10);
	CU_ASSERT_STRING_EQUAL(buf, "a\\\\b\\\"c\\nd");
	/* too small: cut before an escape, never inside one */
	CU_ASSERT_EQUAL(prom_escape_label("ab\"", buf, 4), 4);
	CU_ASSERT_STRING_EQUAL(buf, "ab");
	CU_ASSERT_EQUAL(prom_escape_label("", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
}

/* The metrics of REP as text (malloc'd). */
static char *metrics(const struct prom_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(prom_write(rep, f), 0);
	fclose(f);
	return buf;
}

static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *s = text; (s = strstr(s, line)); s += n)
		if ((s == text || s[-1] == '\n') && s[n] == '\n')
			return 1;
	return 0;
}

static void test_metrics(void)
{
	struct prom_pool pools[3];
	struct prom_report rep = { pools, 3 };
	char *m;

	memset(pools, 0, sizeof(pools));
	/* a live pool the kernel made read-only: no per-volume figures */
	snprintf(pools[0].name, sizeof(pools[0].name), "a\"b");
	pools[0].vg = pools[0].up = 1;
	pools[0].in = pool();
	pools[0].in.live = 1;
	pools[0].in.read_only = 1;
	pools[0].in.no_volume_usage = 1;
	pools[0].in.monitor_counts.autoextends = 3;
	pools[0].in.monitor_time = 1700000000;
	snprintf(pools[0].profile, sizeof(pools[0].profile), "balanced");
	/* a pool whose allocation could not be read, and one not read at all */
	snprintf(pools[1].name, sizeof(pools[1].name), "half");
	pools[1].vg = 1;
	pools[1].in = pool();
	pools[1].in.nr_volumes = 0;
	snprintf(pools[2].name, sizeof(pools[2].name), "gone");
	vols[0].active = vols[0].open = 1;	/* pool() cleared them */
	m = metrics(&rep);
	CU_ASSERT(has_line(m, "# TYPE tptools_pool_up gauge"));
	CU_ASSERT(has_line(m, "tptools_pool_up{pool=\"a\\\"b\"} 1"));
	CU_ASSERT(has_line(m, "tptools_pool_up{pool=\"half\"} 0"));
	CU_ASSERT(has_line(m, "tptools_pool_up{pool=\"gone\"} 0"));
	CU_ASSERT(has_line(m, "tptools_pool_info{pool=\"a\\\"b\",uuid=\"0b1c2d3e-4f50-4617-8293-"
			      "a4b5c6d7e8f9\",profile=\"balanced\",system_id=\"\"} 1"));
	CU_ASSERT(has_line(m, "tptools_pool_active{pool=\"a\\\"b\"} 1"));
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"read_only\"} 1"));
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"read_write\"} 0"));
	CU_ASSERT(has_line(m, "tptools_pool_data_used_bytes{pool=\"a\\\"b\"} 655360"));
	CU_ASSERT(has_line(m, "# TYPE tptools_pool_monitor_actions_total counter"));
	CU_ASSERT(has_line(m, "tptools_pool_monitor_actions_total{pool=\"a\\\"b\","
			      "action=\"autoextend\"} 3"));
	CU_ASSERT(has_line(m, "tptools_pool_monitor_last_action_timestamp_seconds"
			      "{pool=\"a\\\"b\"} 1700000000"));
	CU_ASSERT(has_line(m, "tptools_volume_active{pool=\"a\\\"b\",volume=\"www\"} 1"));
	CU_ASSERT(has_line(m, "tptools_volume_open{pool=\"a\\\"b\",volume=\"www\"} 1"));
	CU_ASSERT(has_line(m, "tptools_volume_size_bytes{pool=\"a\\\"b\",volume=\"www\"} "
			      "1073741824"));
	/* the kernel refused the per-volume walk: those series are left out */
	CU_ASSERT_PTR_NULL(strstr(m, "tptools_volume_mapped_bytes{"));
	/* the VG's series of a pool whose allocation was not read, not its figures */
	CU_ASSERT(has_line(m, "tptools_pool_transaction_id{pool=\"half\"} 2"));
	CU_ASSERT_PTR_NULL(strstr(m, "tptools_pool_data_used_bytes{pool=\"half\"}"));
	CU_ASSERT_PTR_NULL(strstr(m, "tptools_pool_mode{pool=\"half\""));
	CU_ASSERT_PTR_NULL(strstr(m, "pool=\"gone\"} 1"));
	CU_ASSERT_PTR_NULL(strstr(m, "{pool=\"gone\",")); /* only its up */
	free(m);

	/* failed: no figures at all, the mode says it */
	pools[0].in.read_only = 0;
	pools[0].in.failed = 1;
	rep.n = 1;
	m = metrics(&rep);
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"failed\"} 1"));
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"read_only\"} 0"));
	CU_ASSERT_PTR_NULL(strstr(m, "tptools_pool_data_used_bytes"));
	CU_ASSERT_PTR_NULL(strstr(m, "tptools_pool_needs_check{"));
	free(m);

	/* out of data space, and a healthy live pool */
	pools[0].in.failed = 0;
	pools[0].in.out_of_data = 1;
	pools[0].in.no_volume_usage = 0;
	m = metrics(&rep);
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"out_of_data_space\"} 1"));
	CU_ASSERT(has_line(m, "tptools_volume_mapped_bytes{pool=\"a\\\"b\",volume=\"www\"} "
			      "655360"));
	free(m);
	pools[0].in.out_of_data = 0;
	m = metrics(&rep);
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"read_write\"} 1"));
	CU_ASSERT(has_line(m, "tptools_pool_mode{pool=\"a\\\"b\",mode=\"out_of_data_space\"} 0"));
	free(m);

	/* no pool: nothing at all, not even a HELP line */
	rep.n = 0;
	m = metrics(&rep);
	CU_ASSERT_STRING_EQUAL(m, "");
	free(m);
}

TP_TEST_SUITE(status, NULL, NULL,
	      { "pool_attr: every letter, offline and live", test_pool_attr },
	      { "vol_attr: every letter, offline and live", test_vol_attr },
	      { "metrics: label escaping", test_escape },
	      { "metrics: live modes, pools not read, series left out", test_metrics })
