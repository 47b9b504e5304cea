/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pool_monitor.c - tpmonitor's decisions from status samples
 * (lib/pool/monitor/pool_monitor.c) and its state file, without a kernel. */
#include "lib/pool/monitor.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64 * 1024ull)
#define MIB (1024 * 1024ull)
#define GIB (1024 * MIB)

/* A pool of 1000 chunks and 16 MiB metadata areas (4096 blocks), no room
 * to grow, DATA and META percent used. */
static struct pool_monitor_sample sample(unsigned data, unsigned meta)
{
	struct pool_monitor_sample s;

	memset(&s, 0, sizeof(s));
	s.data_total = 1000;
	s.data_used = data * 10;
	s.meta_total = 4096;
	s.meta_used = 4096ull * meta / 100;
	s.chunk = CHUNK;
	s.data_size = s.data_max = 1000 * CHUNK;
	s.meta_size = s.meta_max = 16 * MIB;
	return s;
}

static struct pool_monitor_policy policy(unsigned warn, unsigned threshold, unsigned pct,
					 uint64_t size)
{
	struct pool_monitor_policy p = { warn, threshold, pct, size, 0 };
	return p;
}

static unsigned decide(const struct pool_monitor_policy *pol, const struct pool_monitor_sample *s,
		       struct pool_monitor_state *st, struct pool_monitor_decision *d)
{
	pool_monitor_decide(pol, s, st, d);
	return d->actions;
}

static void test_warning_levels(void)
{
	struct pool_monitor_policy pol = policy(80, 100, 20, 0);
	struct pool_monitor_state st;
	struct pool_monitor_decision d;
	struct pool_monitor_sample s;

	memset(&st, 0, sizeof(st));
	s = sample(50, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	CU_ASSERT_EQUAL(d.data_pct, 50);
	s = sample(80, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_WARN_DATA);
	CU_ASSERT_EQUAL(d.data_level, 80);
	/* the same level again: said once */
	s = sample(84, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	s = sample(85, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_WARN_DATA);
	CU_ASSERT_EQUAL(d.data_level, 85);
	CU_ASSERT_EQUAL(st.data_warned, 85);
	/* metadata has its own levels */
	s = sample(85, 91);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_WARN_META);
	CU_ASSERT_EQUAL(d.meta_level, 90);
	/* a restarted monitor (the state read back) does not repeat them */
	{
		struct pool_monitor_state again = { "p", 85, 90, 0, 0, 0, "" };
		CU_ASSERT_EQUAL(decide(&pol, &s, &again, &d), 0);
	}
	/* back below: said once, then quiet; rising again warns again */
	s = sample(40, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CALM_DATA | POOL_MON_CALM_META);
	CU_ASSERT_EQUAL(st.data_warned, 0);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	s = sample(81, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_WARN_DATA);
	/* warn 0: never */
	pol.warn = 0;
	memset(&st, 0, sizeof(st));
	s = sample(90, 90);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	/* warn 100 caps at 100 */
	pol.warn = 97;
	s.data_used = s.data_total;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d) & POOL_MON_WARN_DATA, POOL_MON_WARN_DATA);
	CU_ASSERT_EQUAL(d.data_level, 97);
}

static void test_autoextend(void)
{
	struct pool_monitor_policy pol = policy(0, 70, 20, 0);
	struct pool_monitor_state st;
	struct pool_monitor_decision d;
	struct pool_monitor_sample s;

	memset(&st, 0, sizeof(st));
	/* below the threshold: nothing, whatever the room */
	s = sample(69, 10);
	s.data_max = 2000 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	/* at it: by 20% */
	s = sample(70, 10);
	s.data_max = 2000 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA);
	CU_ASSERT_EQUAL(d.data_to, 1200 * CHUNK);
	/* as far as the device has room, in whole chunks */
	s.data_max = 1100 * CHUNK + 4096;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA);
	CU_ASSERT_EQUAL(d.data_to, 1100 * CHUNK);
	/* less than a chunk of room: none */
	s.data_max = 1000 * CHUNK + CHUNK - 512;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	/* a step below one chunk still grows by one */
	pol.autoextend_percent = 0;
	pol.autoextend_size = 4096;
	s.data_max = 2000 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA);
	CU_ASSERT_EQUAL(d.data_to, 1001 * CHUNK);
	/* by a size: data by the size, metadata by 20% */
	pol.autoextend_size = GIB;
	s = sample(75, 75);
	s.data_max = 100 * GIB;
	s.meta_max = 1 * GIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA | POOL_MON_EXTEND_META);
	CU_ASSERT_EQUAL(d.data_to, 1000 * CHUNK + GIB);
	CU_ASSERT_EQUAL(d.meta_to, (uint64_t)(16 * MIB * 120 / 100) / 4096 * 4096);
	/* metadata: at least 1 MiB, at most the device's room */
	pol = policy(0, 50, 1, 0);
	s = sample(10, 60);
	s.meta_max = 64 * MIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_META);
	CU_ASSERT_EQUAL(d.meta_to, 17 * MIB);
	s.meta_max = 16 * MIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_META);
	/* off: never */
	pol = policy(0, 100, 20, 0);
	s = sample(90, 90);
	s.data_max = 100 * GIB;
	s.meta_max = 1 * GIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
}

/* --autoextend-max: a step cut down to the cap, none past it, said once */
static void test_autoextend_max(void)
{
	struct pool_monitor_policy pol = policy(0, 70, 20, 0);
	struct pool_monitor_state st;
	struct pool_monitor_decision d;
	struct pool_monitor_sample s;

	memset(&st, 0, sizeof(st));
	pol.autoextend_max = 1100 * CHUNK + 4096;
	s = sample(80, 10);
	s.data_max = 100 * GIB;
	/* 20% would be 1200 chunks: cut to the cap, whole chunks */
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA);
	CU_ASSERT_EQUAL(d.data_to, 1100 * CHUNK);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	/* grown to the cap: no growth, the cap reached instead of "no room" */
	s.data_size = 1100 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA);
	CU_ASSERT_EQUAL(d.data_to, 0);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 4);
	CU_ASSERT_EQUAL(st.no_room, 4);
	/* the next passes: the same condition, not said again */
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	/* a pool grown past the cap by hand is not grown by the monitor */
	s.data_size = 1500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA);
	/* at the cap and critically full: error-when-full, as with no room */
	s = sample(96, 10);
	s.data_size = 1100 * CHUNK;
	s.data_max = 100 * GIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA | POOL_MON_ERROR_WHEN_FULL);
	/* below the threshold the condition ends; coming back it is said again */
	s = sample(50, 10);
	s.data_size = 1100 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	CU_ASSERT_EQUAL(st.no_room, 0);
	s = sample(80, 10);
	s.data_size = 1100 * CHUNK;
	s.data_max = 100 * GIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 4);
	/* the device's room is the lower limit: "no room", not the cap */
	s.data_max = 1100 * CHUNK;
	pol.autoextend_max = 2000 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 1);
	/* the metadata is not capped */
	pol = policy(0, 50, 20, 0);
	pol.autoextend_max = 1000 * CHUNK;
	s = sample(10, 60);
	s.meta_max = 64 * MIB;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_META);
}

/* --autoextend-device: the devices full, the named one added whole; not
 * past autoextend_max; a failed addition not tried again while data stays
 * above the threshold, "no room" said once then; below it, forgotten. */
static void test_autoextend_device(void)
{
	struct pool_monitor_policy pol = policy(0, 70, 20, 0);
	struct pool_monitor_state st;
	struct pool_monitor_decision d;
	struct pool_monitor_sample s;

	memset(&st, 0, sizeof(st));
	snprintf(pol.autoextend_device, sizeof(pol.autoextend_device), "/dev/sdz");
	s = sample(80, 10);
	/* the device has room: it grows first, the named device waits */
	s.data_max = 2000 * CHUNK;
	s.add_room = 500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA);
	/* no room: the named device is added */
	s.data_max = s.data_size;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ADD_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	/* critically full, but the addition is a growth: no switch */
	s = sample(97, 10);
	s.add_room = 500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ADD_DATA);
	/* less than a chunk to add (or none named, or a member): no room */
	s = sample(80, 10);
	s.add_room = CHUNK - 1;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	st.no_room = 0;
	/* adding it would pass autoextend_max: the cap */
	s.add_room = 500 * CHUNK;
	pol.autoextend_max = 1400 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_CAP_DATA);
	pol.autoextend_max = 1500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ADD_DATA);
	pol.autoextend_max = 0;
	/* the addition failed (the monitor records the device): no room,
	 * said once; another device named is tried */
	st.no_room = 0;
	snprintf(st.add_failed, sizeof(st.add_failed), "/dev/sdz");
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 1);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	snprintf(pol.autoextend_device, sizeof(pol.autoextend_device), "/dev/sdy");
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ADD_DATA);
	snprintf(pol.autoextend_device, sizeof(pol.autoextend_device), "/dev/sdz");
	/* critically full with the addition failed: error-when-full */
	s = sample(96, 10);
	s.add_room = 500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA | POOL_MON_ERROR_WHEN_FULL);
	/* below the threshold it is forgotten; above again, tried again */
	s = sample(50, 10);
	s.add_room = 500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	CU_ASSERT_EQUAL(pool_monitor_room_news(&st, d.actions), 0);
	CU_ASSERT_EQUAL(st.no_room, 0);
	CU_ASSERT_STRING_EQUAL(st.add_failed, "");
	s = sample(80, 10);
	s.add_room = 500 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ADD_DATA);
}

static void test_error_when_full(void)
{
	struct pool_monitor_policy pol = policy(0, 80, 20, 0);
	struct pool_monitor_state st;
	struct pool_monitor_decision d;
	struct pool_monitor_sample s;

	memset(&st, 0, sizeof(st));
	/* room: it grows instead, even at 99% */
	s = sample(99, 10);
	s.data_max = 2000 * CHUNK;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_EXTEND_DATA);
	/* no room: at the critical level it switches */
	s = sample(94, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	s = sample(95, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d),
			POOL_MON_NO_ROOM_DATA | POOL_MON_ERROR_WHEN_FULL);
	/* ... unless the table fails writes already */
	s.error_if_no_space = 1;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_NO_ROOM_DATA);
	/* autoextension off: the same at the critical level */
	pol.autoextend_threshold = 100;
	s = sample(96, 10);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ERROR_WHEN_FULL);
	/* the kernel out of data space: at once, whatever the figures */
	s = sample(50, 10);
	s.out_of_data = 1;
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), POOL_MON_ERROR_WHEN_FULL);
	/* metadata full never switches (no such kernel feature) */
	s = sample(10, 99);
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
	/* an empty sample (no figures) decides nothing */
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(decide(&pol, &s, &st, &d), 0);
}

static void test_state_file(void)
{
	struct pool_monitor_state a = { "vault", 85, 90, 1, 2, 1700000000, "data grown to 5 GiB",
					{ 7, 2, 3, 1, 1ull << 40 }, "/dev/disk/by-id/wwn-0x5000 x" };
	struct pool_monitor_state b;
	const char *uuid = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
	char path[512];
	FILE *f;

	setenv("TPTOOLS_DIR", tp_test_tmpdir(), 1);
	CU_ASSERT_EQUAL(pool_monitor_state_read(uuid, &b), -ENOENT);
	CU_ASSERT_EQUAL(pool_monitor_state_write(uuid, &a), 0);
	CU_ASSERT_EQUAL(pool_monitor_state_read(uuid, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.pool, "vault");
	CU_ASSERT_EQUAL(b.data_warned, 85);
	CU_ASSERT_EQUAL(b.meta_warned, 90);
	CU_ASSERT_EQUAL(b.error_set, 1);
	CU_ASSERT_EQUAL(b.no_room, 2);
	CU_ASSERT_EQUAL(b.time, 1700000000);
	CU_ASSERT_STRING_EQUAL(b.action, "data grown to 5 GiB");
	/* the counts of what the monitor did */
	CU_ASSERT_EQUAL(b.counts.warnings, 7);
	CU_ASSERT_EQUAL(b.counts.no_room, 2);
	CU_ASSERT_EQUAL(b.counts.autoextends, 3);
	CU_ASSERT_EQUAL(b.counts.autoextend_failures, 1);
	CU_ASSERT_EQUAL(b.counts.error_switches, 1ull << 40);
	CU_ASSERT_STRING_EQUAL(b.add_failed, "/dev/disk/by-id/wwn-0x5000 x");
	/* bad names and text that would break the format are refused */
	CU_ASSERT_EQUAL(pool_monitor_state_write("../x", &a), -EINVAL);
	CU_ASSERT_EQUAL(pool_monitor_state_read("", &b), -EINVAL);
	strcpy(a.action, "two\nlines");
	CU_ASSERT_EQUAL(pool_monitor_state_write(uuid, &a), -EINVAL);
	/* damage: refused, nothing half read; unknown keys are skipped */
	snprintf(path, sizeof(path), "%s/run/monitor/%s", tp_test_tmpdir(), uuid);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("pool vault\ncolour blue\ndata_warned 101\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(pool_monitor_state_read(uuid, &b), -EUCLEAN);
	CU_ASSERT_STRING_EQUAL(b.pool, "");
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("pool vault\ncolour blue\ndata_warned 90\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(pool_monitor_state_read(uuid, &b), 0);
	CU_ASSERT_EQUAL(b.data_warned, 90);
	/* a file of an older monitor has no counts: 0; a bad count is damage */
	CU_ASSERT_EQUAL(b.counts.warnings, 0);
	CU_ASSERT_EQUAL(b.counts.autoextends, 0);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("pool vault\ncount_autoextends -1\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(pool_monitor_state_read(uuid, &b), -EUCLEAN);
	CU_ASSERT_EQUAL(b.counts.autoextends, 0);
	unsetenv("TPTOOLS_DIR");
}

TP_TEST_SUITE(pool_monitor, NULL, NULL,
	      { "warnings: levels every 5%, once each, calm below", test_warning_levels },
	      { "autoextension: step, room, whole chunks, off", test_autoextend },
	      { "autoextend-max: cut to the cap, none past it, said once", test_autoextend_max },
	      { "error-when-full: critical, no room, once", test_error_when_full },
	      { "autoextend-device: added when full, capped, a failure once", test_autoextend_device },
	      { "state file: round trip, counts, refusals, damage", test_state_file })
