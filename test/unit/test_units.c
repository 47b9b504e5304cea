/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Size parsing and printing (lib/base/units). */
#include "lib/base/units.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <string.h>

static void expect_ok(const char *s, char def, uint64_t want)
{
	uint64_t got = 0;
	int r = tp_size_parse(s, def, &got, NULL, 0);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(got, want);
}

static void expect_err(const char *s, int err)
{
	uint64_t got = 12345;
	char why[160] = "";
	int r = tp_size_parse(s, 'm', &got, why, sizeof(why));
	CU_ASSERT_EQUAL(r, err);
	CU_ASSERT_EQUAL(got, 12345);	/* untouched on error */
	CU_ASSERT(strlen(why) > 10);	/* a real explanation */
}

static void test_parse_units(void)
{
	expect_ok("0", 'm', 0);
	expect_ok("1", 'b', 1);
	expect_ok("512", 'b', 512);
	expect_ok("1s", 'm', 512);
	expect_ok("8S", 'm', 4096);
	expect_ok("1k", 'm', 1024);
	expect_ok("1K", 'm', 1024);
	expect_ok("100G", 'm', 100ull << 30);
	expect_ok("100g", 'm', 100ull << 30);
	expect_ok("100GiB", 'm', 100ull << 30);
	expect_ok("100GB", 'm', 100ull << 30);
	expect_ok("2T", 'm', 2ull << 40);
	expect_ok("3P", 'm', 3ull << 50);
	expect_ok("64", 'k', 64ull << 10);
	expect_ok("16", 'm', 16ull << 20);
	expect_ok("1.5G", 'm', 3ull << 29);
	expect_ok("0.5k", 'm', 512);
	expect_ok("1.001k", 'm', 1026); /* 1025.024 rounds up to a whole byte */
	expect_ok("16383P", 'm', 16383ull << 50);
	expect_ok("18446744073709551615b", 'm', UINT64_MAX);
}

static void test_parse_rejects(void)
{
	expect_err("", -EINVAL);
	expect_err("12Q", -EINVAL);
	expect_err("-5G", -EINVAL);
	expect_err("+5G", -EINVAL);
	expect_err("G", -EINVAL);
	expect_err("abc", -EINVAL);
	expect_err("5G5", -EINVAL);
	expect_err("5 G", -EINVAL);
	expect_err("1.", -EINVAL);
	expect_err("1.5.5G", -EINVAL);
	expect_err("99999999999P", -ERANGE);
	expect_err("16384P", -ERANGE);
	expect_err("18446744073709551616b", -ERANGE);
	expect_err("99999999999999999999999", -ERANGE);
	expect_err("1sB", -EINVAL);
}

static void test_parse_null(void)
{
	uint64_t v;
	CU_ASSERT_EQUAL(tp_size_parse(NULL, 'm', &v, NULL, 0), -EINVAL);
}

static void test_format(void)
{
	char b[64];
	CU_ASSERT_STRING_EQUAL(tp_size_format(100ull << 30, 'h', b, sizeof(b)), "100 GiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format(3ull << 29, 'h', b, sizeof(b)), "1.50 GiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format(0, 'h', b, sizeof(b)), "0 B");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1023, 'h', b, sizeof(b)), "1023 B");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1ull << 20, 's', b, sizeof(b)), "2048s");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1ull << 20, 'k', b, sizeof(b)), "1024k");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1536ull << 10, 'm', b, sizeof(b)), "1.50m");
	/* upper case: SI powers of 1000, as lvs --units */
	CU_ASSERT_STRING_EQUAL(tp_size_format(1536ull << 10, 'M', b, sizeof(b)), "1.57M");
	CU_ASSERT_STRING_EQUAL(tp_size_format(2000000, 'M', b, sizeof(b)), "2M");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1ull << 20, 'K', b, sizeof(b)), "1048.58K");
	CU_ASSERT_STRING_EQUAL(tp_size_format(4000, 'K', b, sizeof(b)), "4K");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1ull << 30, 'G', b, sizeof(b)), "1.07G");
	CU_ASSERT_STRING_EQUAL(tp_size_format(3000000000000ull, 'T', b, sizeof(b)), "3T");
	CU_ASSERT_STRING_EQUAL(tp_size_format(5ull * 1000000000000000ull, 'P', b, sizeof(b)), "5P");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1ull << 30, 'H', b, sizeof(b)), "1.07 GB");
	CU_ASSERT_STRING_EQUAL(tp_size_format(64000, 'H', b, sizeof(b)), "64 kB");
	CU_ASSERT_STRING_EQUAL(tp_size_format(999, 'H', b, sizeof(b)), "999 B");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1000, 'H', b, sizeof(b)), "1 kB");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1024, 'h', b, sizeof(b)), "1 KiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format(5, 'B', b, sizeof(b)), "5b");
	CU_ASSERT_STRING_EQUAL(tp_size_format(1024, 'S', b, sizeof(b)), "2s");
	CU_ASSERT_STRING_EQUAL(tp_size_format(5, 'b', b, sizeof(b)), "5b");
	CU_ASSERT_STRING_EQUAL(tp_size_format(2ull << 50, 'h', b, sizeof(b)), "2 PiB");
}

/* Sizes in messages: a device's size exact, a bound rounded up, never a
 * pair that disagrees ("100 KiB (1 MiB)") or a bound that reads as the
 * device's own size ("at least 1.00 GiB" for 1 GiB). */
static void test_format_messages(void)
{
	char b[64];

	CU_ASSERT_STRING_EQUAL(tp_size_format_exact(1ull << 30, b, sizeof(b)), "1 GiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_exact(100ull << 10, b, sizeof(b)), "100 KiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_exact(1025ull << 20, b, sizeof(b)),
			       "1.00 GiB (1025 MiB)");
	CU_ASSERT_STRING_EQUAL(tp_size_format_exact(3ull << 29, b, sizeof(b)),
			       "1.50 GiB (1536 MiB)");
	CU_ASSERT_STRING_EQUAL(tp_size_format_exact((1ull << 30) + 512, b, sizeof(b)),
			       "1.00 GiB (1073742336 B)");
	CU_ASSERT_STRING_EQUAL(tp_size_format_exact(0, b, sizeof(b)), "0 B");
	CU_ASSERT_STRING_EQUAL(tp_size_format_min(1ull << 30, b, sizeof(b)), "1 GiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_min(1025ull << 20, b, sizeof(b)), "1025 MiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_min((1ull << 30) + 1, b, sizeof(b)), "1025 MiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_min((4ull << 30) + (3ull << 20), b, sizeof(b)),
			       "4099 MiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_min(1500, b, sizeof(b)), "2 KiB");
	CU_ASSERT_STRING_EQUAL(tp_size_format_min(999, b, sizeof(b)), "999 B");
	/* a bound never below the value */
	for (uint64_t v = 1; v < (1ull << 34); v = v * 3 + 7) {
		uint64_t got;
		char *sp;
		tp_size_format_min(v, b, sizeof(b));
		if ((sp = strchr(b, ' ')))	/* "1025 MiB" -> "1025MiB" */
			memmove(sp, sp + 1, strlen(sp));
		CU_ASSERT_EQUAL_FATAL(tp_size_parse(b, 'b', &got, NULL, 0), 0);
		CU_ASSERT(got >= v);
	}
}

static void test_roundtrip(void)
{
	static const char units[] = "bskmgtp";
	char b[64];
	for (const char *u = units; *u; u++) {
		/* 3 PiB prints exactly in every unit */
		uint64_t v, want = 3ull << 50;
		tp_size_format(want, *u, b, sizeof(b));
		CU_ASSERT_EQUAL(tp_size_parse(b, 'b', &v, NULL, 0), 0);
		CU_ASSERT_EQUAL(v, want);
	}
	CU_ASSERT(tp_units_valid('h'));
	CU_ASSERT(tp_units_valid('G'));
	CU_ASSERT(!tp_units_valid('x'));
	CU_ASSERT(!tp_units_valid('\0'));
}

static void test_duration(void)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t s;
		const char *out;
	} cases[] = {
		{ "off", 0, 0, "off" },	    { "0", -EINVAL, 0, NULL },	{ "12h", 0, 43200, "12h" },
		{ "90m", 0, 5400, "90m" },  { "45", 0, 45, "45s" },	{ "7d", 0, 604800, "1w" },
		{ "2w", 0, 1209600, "2w" }, { "36h", 0, 129600, "36h" }, { "", -EINVAL, 0, NULL },
		{ "h", -EINVAL, 0, NULL },  { "-1h", -EINVAL, 0, NULL }, { "1.5h", -EINVAL, 0, NULL },
		{ "3x", -EINVAL, 0, NULL }, { "3hh", -EINVAL, 0, NULL }, { "11y", -EINVAL, 0, NULL },
		{ "4000d", -ERANGE, 0, NULL }, { "0s", -EINVAL, 0, NULL },
		{ "3650d", 0, 3650ull * 86400, "3650d" }, { "3651d", -ERANGE, 0, NULL },
		{ "3660d", -ERANGE, 0, NULL }, { "99999999999999999999999", -ERANGE, 0, NULL },
	};
	char err[128], buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t s = 77;
		int rc = tp_duration_parse(cases[i].in, &s, err, sizeof(err));

		CU_ASSERT_EQUAL(rc, cases[i].rc);
		if (rc) {
			CU_ASSERT(err[0] != '\0');
			CU_ASSERT_EQUAL(s, 77);	/* untouched */
			continue;
		}
		CU_ASSERT_EQUAL(s, cases[i].s);
		CU_ASSERT_STRING_EQUAL(tp_duration_format(s, buf, sizeof(buf)), cases[i].out);
	}
	CU_ASSERT_EQUAL(tp_duration_parse(NULL, &(uint64_t){ 0 }, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(tp_duration_format_approx(0, buf, sizeof(buf)), "0s");
	CU_ASSERT_STRING_EQUAL(tp_duration_format_approx(59, buf, sizeof(buf)), "59s");
	CU_ASSERT_STRING_EQUAL(tp_duration_format_approx(3 * 3600 + 5, buf, sizeof(buf)), "3h");
	CU_ASSERT_STRING_EQUAL(tp_duration_format_approx(15 * 86400, buf, sizeof(buf)), "15d");
}

TP_TEST_SUITE(units, NULL, NULL,
	      { "durations: parse, format, refuse garbage", test_duration },
	      { "parse units", test_parse_units },
	      { "parse rejects garbage, signs, overflow", test_parse_rejects },
	      { "parse NULL", test_parse_null },
	      { "format", test_format },
	      { "format for messages: exact sizes, bounds rounded up", test_format_messages },
	      { "format/parse round trip", test_roundtrip })
