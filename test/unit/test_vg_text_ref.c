/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata/vg VG text against its reference (vg_text_ref.h): the writer's
 * bytes are libdevmapper's and the old vg_export's for generated VGs of
 * every optional key and list; the reader builds libdevmapper's tree,
 * refuses what it refuses with its words, and imports every text (valid,
 * hand-made odd syntax, damaged) to the same struct vg or the same
 * message as the old libdevmapper-based importer. */
#include "test/unit/test_vg_fixture.h"
#include "test/unit/vg_text_ref.h"
#include "metadata/vg/vg_int.h"

#include <errno.h>
#include <stdlib.h>

static uint32_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void rnd_uuid(char out[VG_UUID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < VG_UUID_LEN; i++)
		out[i] = (i == 8 || i == 13 || i == 18 || i == 23) ? '-' : hex[rnd() % 16];
	out[14] = '4';
	out[19] = '8';
	out[VG_UUID_LEN] = '\0';
}

/* a valid volume name of 1..64 bytes, unique by its suffix I */
static void rnd_name(char *out, unsigned i)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-";
	char tail[16];
	unsigned n = rnd() % 4 == 0 ? 40 + rnd() % 20 : 1 + rnd() % 12, j;

	snprintf(tail, sizeof(tail), "%u", i);
	out[0] = ok[rnd() % 62]; /* not '-', never "." or ".." */
	for (j = 1; j < n; j++)
		out[j] = ok[rnd() % (sizeof(ok) - 1)];
	out[j] = '\0';
	if (strlen(out) + strlen(tail) > VG_NAME_MAX)
		out[VG_NAME_MAX - strlen(tail)] = '\0';
	strcat(out, tail);
}

/* printable bytes the writer must quote or escape, and UTF-8 */
static void rnd_text(char *out, size_t max)
{
	static const char *const parts[] = { "\"", "\\", "#", "!", " ", "{", "}", "=", "[", "]",
					     ",", "'", "/", "é", "x", "dev", "\\\"", "0x1" };
	size_t n = 0, want = 1 + rnd() % (max < 40 ? max : 40);

	out[0] = '\0';
	while (n < want) {
		const char *p = parts[rnd() % TP_ARRAY_SIZE(parts)];
		if (n + strlen(p) >= max)
			break;
		strcat(out, p);
		n += strlen(p);
	}
}

static unsigned features[16];

/* Set a field, keep it only when the VG still validates. */
#define TRY(feature, assign, undo)                                                        \
	do {                                                                              \
		assign;                                                                   \
		if (vg_validate(vg)) {                                                    \
			undo;                                                             \
		} else {                                                                  \
			features[feature]++;                                              \
		}                                                                         \
	} while (0)

static struct vg *gen_vg(unsigned nvol)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg();
	unsigned i;

	tp_log_capture(&cap);
	vg->seqno = 1 + rnd();
	vg->creation_time = (int64_t)rnd() * (rnd() % 2 ? -1 : 1) * 1000;
	vg->transaction_id = rnd();
	if (rnd() % 2)
		rnd_text(vg->creation_host, sizeof(vg->creation_host));
	if (rnd() % 2) {
		char path[VG_PATH_MAX + 1];
		strcpy(path, vg->dev[VG_ROLE_DATA].path);
		rnd_text(vg->dev[VG_ROLE_DATA].path, sizeof(vg->dev[0].path));
		if (vg_validate(vg))
			strcpy(vg->dev[VG_ROLE_DATA].path, path);
		else
			features[0]++;
	}
	if (rnd() % 3 == 0)
		vg->dev[VG_ROLE_META].path[0] = '\0';
	TRY(1, vg->activation_skip = 1, vg->activation_skip = 0);
	TRY(2, vg->profile = (enum vg_profile)(1 + rnd() % 4), vg->profile = VG_PROFILE_NONE);
	if (rnd() % 2) {
		struct vg_monitor keep = vg->monitor;
		vg->monitor.warn = rnd() % 101;
		vg->monitor.autoextend_threshold = 50 + rnd() % 51;
		if (rnd() % 2) {
			vg->monitor.autoextend_percent = 0;
			vg->monitor.autoextend_size = (1 + rnd() % 1000) * 512ull;
		}
		if (rnd() % 2)
			vg->monitor.autoextend_max = (1ull << 40);
		if (rnd() % 2)
			strcpy(vg->monitor.autoextend_device, "/dev/disk/by-id/x\"y");
		if (vg_validate(vg))
			vg->monitor = keep;
		else
			features[3]++;
	}
	TRY(4, vg->max_overprovision = 1 + rnd() % 1000, vg->max_overprovision = 0);
	TRY(5, strcpy(vg->system_id, "host-1"), vg->system_id[0] = '\0');
	if (rnd() % 3 == 0) {
		vg->lock.type = VG_LOCK_SANLOCK;
		vg->lock.offset = 9ull << 20;
		vg->lock.io_timeout = 1 + rnd() % 300;
		vg_lock_name(vg->uuid, vg->lock.name);
		if (vg_validate(vg))
			memset(&vg->lock, 0, sizeof(vg->lock));
		else
			features[6]++;
	}
	if (rnd() % 3 == 0) {
		uint64_t chunk = (uint64_t)vg->chunk_size * 512;
		unsigned nx = 1 + rnd() % (VG_DATA_DEVICES_MAX - 1);
		vg->dev[VG_ROLE_DATA].area[0].size = 3 * chunk;
		vg->nr_xdata = nx;
		for (i = 0; i < nx; i++) {
			vg->xdata[i] = vg->dev[VG_ROLE_DATA];
			rnd_uuid(vg->xdata[i].pv_uuid);
			snprintf(vg->xdata[i].path, sizeof(vg->xdata[i].path), "/dev/x%u", i);
			vg->xdata[i].area[0].size = (1 + i) * chunk;
		}
		CU_ASSERT_EQUAL(vg_validate(vg), 0);
		features[7]++;
	}
	if (rnd() % 3 == 0) {
		vg->meta_mirror = 1;
		vg->dev[VG_ROLE_META].mda.size -= VG_RAID_META_BYTES;
		vg->meta1 = vg->dev[VG_ROLE_META];
		rnd_uuid(vg->meta1.pv_uuid);
		if (rnd() % 2 && !vg->lock.type) {
			vg->integrity_offset = 9ull << 20;
			vg->integrity_size = vg_imeta_need(4ull << 20);
		}
		CU_ASSERT_EQUAL(vg_validate(vg), 0);
		features[8]++;
	}
	for (i = 0; i < nvol; i++) {
		struct vg_volume v;
		memset(&v, 0, sizeof(v));
		rnd_name(v.name, i);
		v.dev_id = vg->next_dev_id++;
		v.size = (1 + (uint64_t)rnd()) * 512;
		v.creation_time = (int64_t)rnd() - (1 << 23);
		if (vg->nr_volumes && rnd() % 4 == 0)
			strcpy(v.origin, vg->volumes[rnd() % vg->nr_volumes].name);
		v.read_only = rnd() % 2;
		v.activation_skip = rnd() % 5 == 0;
		if (v.read_only && rnd() % 2)
			rnd_uuid(v.content_uuid);
		if (rnd() % 5 == 0)
			rnd_uuid(v.luks_uuid);
		switch (rnd() % 8) {
		case 0:
			v.read_only = 1;
			rnd_uuid(v.content_uuid);
			v.received = v.size / 2 / 512 * 512;
			if (!vg_add_receive(vg, &v))
				features[9]++;
			break;
		case 1:
			v.origin[0] = '\0';
			rnd_uuid(v.content_uuid);
			v.read_only = 1;
			v.raw = 1;
			if (!vg_add_receive(vg, &v))
				features[10]++;
			break;
		default:
			CU_ASSERT_EQUAL(vg_add_volume(vg, &v), 0);
		}
	}
	for (i = 0; vg->nr_volumes > 2 && i < nvol / 8; i++) {
		const char *name = vg->volumes[rnd() % vg->nr_volumes].name;
		char keep[VG_NAME_MAX + 1];
		strcpy(keep, name);
		if (rnd() % 2) {
			if (!vg_begin_removal(vg, keep)) {
				features[11]++;
				if (rnd() % 2)
					vg->removals[vg->nr_removals - 1].wiped = 1;
			}
		} else {
			vg->trash_retention = 1 + rnd() % 1000000;
			if (!vg_trash_volume(vg, keep, (int64_t)rnd())) {
				features[12]++;
				if (rnd() % 2)
					vg->trash[vg->nr_trash - 1].purging = 1;
			}
		}
	}
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	return vg;
}

static void check_text(const char *text, size_t len, const char *what)
{
	char why[600];

	if (ref_parse_diff(text, len, why, sizeof(why))) {
		CU_FAIL("the reader's tree or refusal differs from libdevmapper's");
		fprintf(stderr, "\n%s: parse: %s\n--- text ---\n%.*s\n---\n", what, why,
			(int)(len > 2000 ? 2000 : len), text);
	}
	if (ref_import_diff(text, len, why, sizeof(why))) {
		CU_FAIL("vg_import differs from the old importer");
		fprintf(stderr, "\n%s: import: %s\n--- text ---\n%.*s\n---\n", what, why,
			(int)(len > 2000 ? 2000 : len), text);
	}
}

/* Generated VGs of every optional key and list: the bytes written are
 * the old writer's and libdevmapper's, and read back to the same VG. */
static void test_export_matches(void)
{
	struct tp_log_capture cap;
	char why[600];

	rnd_state = 4242;
	memset(features, 0, sizeof(features));
	for (unsigned k = 0; k < 120; k++) {
		struct vg *vg = gen_vg(k == 119 ? 3000 : k * 3 % 97), *back;
		char *t;
		size_t n;

		tp_log_capture(&cap);
		if (ref_export_diff(vg, why, sizeof(why))) {
			CU_FAIL("vg_export's bytes are not the old writer's");
			fprintf(stderr, "\nexport %u: %s\n", k, why);
		}
		tp_log_capture(NULL);
		CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
		check_text(t, n, "generated");
		CU_ASSERT_EQUAL_FATAL(vg_import(t, n, &back), 0);
		CU_ASSERT_EQUAL(back->nr_volumes, vg->nr_volumes);
		CU_ASSERT_EQUAL(back->nr_receives, vg->nr_receives);
		CU_ASSERT_EQUAL(back->nr_removals, vg->nr_removals);
		CU_ASSERT_EQUAL(back->nr_trash, vg->nr_trash);
		CU_ASSERT_STRING_EQUAL(back->creation_host, vg->creation_host);
		CU_ASSERT_STRING_EQUAL(back->dev[VG_ROLE_DATA].path, vg->dev[VG_ROLE_DATA].path);
		vg_free(back);
		free(t);
		vg_free(vg);
	}
	/* every optional part was generated */
	for (unsigned f = 0; f <= 12; f++)
		CU_ASSERT(features[f] > 0);
	/* a model that does not validate is refused by both alike */
	{
		struct vg *vg = fx_vg();
		vg->chunk_size = 100;
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(ref_export_diff(vg, why, sizeof(why)), 0);
		tp_log_capture(NULL);
		vg_free(vg);
	}
}

/* Integers of every count of digits, each power of ten with its
 * neighbours, in the pool's and a volume's and a trash entry's fields
 * (the writer makes digits by eights and twos): the old writer's bytes,
 * and read back alike. */
static void test_export_integers(void)
{
	struct tp_log_capture cap;
	unsigned exported = 0;
	int64_t p = 1;
	char why[600];

	for (unsigned k = 0; k <= 19; k++, p = k <= 18 ? p * 10 : INT64_MAX) {
		for (int d = -1; d <= 1; d++) {
			int64_t x = k == 19 ? INT64_MAX + (d > 0 ? 0 : d) : p + d;
			struct vg *vg;
			char *t;
			size_t n;

			vg = fx_vg();
			vg->seqno = x ? (uint64_t)x : 1;
			vg->transaction_id = (uint64_t)x;
			vg->creation_time = -x - (k == 19 && d > 0); /* to INT64_MIN */
			vg->volumes[0].creation_time = x;
			vg->volumes[1].creation_time = -x;
			if (x >= 512)
				vg->volumes[0].size = (uint64_t)x / 512 * 512;
			if (k >= 9 && k <= 18) /* 10^k: a multiple of 512 from 10^9 */
				vg->volumes[1].size = (uint64_t)(p + 512 * d);
			if (x >= 4 && x <= VG_DEV_ID_MAX) { /* 1 and 2 are www's and db's */
				vg->volumes[2].dev_id = (uint32_t)x;
				vg->next_dev_id = (uint32_t)x + 1 > 8 ? (uint32_t)x + 1 : 8;
			}
			vg->trash_retention = 100;
			tp_log_capture(&cap);
			CU_ASSERT_EQUAL(vg_trash_volume(vg, "www", -x), 0);
			if (ref_export_diff(vg, why, sizeof(why))) {
				CU_FAIL("vg_export's integers are not the old writer's");
				fprintf(stderr, "\nintegers 10^%u%+d: %s\n", k, d, why);
			}
			if (!vg_export(vg, &t, &n)) {
				exported++;
				check_text(t, n, "integers");
				free(t);
			}
			tp_log_capture(NULL);
			vg_free(vg);
		}
	}
	/* every one: a value a field cannot hold is left out of it */
	CU_ASSERT_EQUAL(exported, 20 * 3);
}

/* Odd but valid syntax and every way to break it, as libdevmapper reads
 * it: the same tree or the same message. */
static void test_syntax_matches(void)
{
	static const char *const texts[] = {
		"", "   \n\t", "# only a comment", "# c\n", "a=1", "a = 1 # c\nb = 2",
		"a = 0x1F = 2", "a = 0x1F", "a=010", "a=08", "a=0X1g", "a = 0x", "a = -0x10",
		"a=-", "a=+", "a = +5", "a=-0", "a=1.5", "a=.", "a=.5.5", "a=1..2", "a=1.5e999",
		"a=1.5e-999", "a=1.5e3", "a=1.5E+3x", "a=1e5", "a = 12abc = 3", "a=1.0e",
		"a = [1,2,3]", "a=[]", "a=[ ]", "a=[1 2,]", "a=[,]", "a = [1", "a = [", "a=[[1]]",
		"a = [\"x\", 'y', z]", "a = [z]", "a = [z ]", "a = [1,\"s\",2.5]",
		"a = \"x", "a = \"", "a = \"x\\", "a = '", "a = 'xy", "\"\" = 1", "'' {}",
		"\"a\" = 1", "'a' = 'b\\\"'", "\"a\\\"b\" = 1", "\"a#b\" = \"c!d\"", "\"\\\\\" = 1",
		"a/b/c = 1", "/a = 1", "a/ = 1", "a//b=1", "/ = 1", "a/b { c = 1 } a/b { c = 2 }",
		"a { b = 1 }", "a { b = 1 }}", "a{b=1}", "a {", "a { b", "a { b = }", "}", "{",
		"a = {", "a = }", "a = ]", "a = ,", "a = =", "a b", "a = b c = d", "a = b}",
		"a = b#c\n", "a = x#comment\nb = 1", "a = \"multi\nline\"\nb = 1 c", "a=1\r\nb=2",
		"\v\f a=1", "a\t=\t1", "a\n=\n1", "[a] = 1", "a[ = 1", "a,b = 1", "a\"b = 1",
		"a'b = 1", "a]b = 1", "a = 1,", "a = 1 ,", "1 = 2", "-1 = 2", "+ = 1", ". { }",
		"x = 99999999999999999999", "creation_time = 99999999999999999999",
		"a/creation_time = -99999999999999999999", "creation_time = [1, 99999999999999999999]",
		"x = -9223372036854775808", "x=9223372036854775807", "x = -9223372036854775809",
		"x = 0xFFFFFFFFFFFFFFFF", "x = 0x7FFFFFFFFFFFFFFF", "x = 0777777777777777777777",
		"x = 01777777777777777777777", "x = 000000000000000000000000000001",
		"x = 1234567890123456789", "x = 123456789012345678", "x = -123456789012345678",
		"x = 9223372036854775808", "a = \"\\x\\\"\\\\\"", "a = 'a\\'", "a = \"a\\\\\" b = 1",
		"a = 1 a = 2 a { }", "a { } a = 1", "a = \"é\" \"é\" = 'é'", "a\xff = \xfe",
		"pool { volumes/www { dev_id = 1 } }", "a = 1 # c", "a = 1\n#", "#\na = 1\n#",
	};
	static const char *const longs[] = { "x = %s1", "creation_time = 9%s", "x = 1.%s5",
					     "x = 0.%se-99999", "x = -0x%s1", "x = '%s", "\"%s\" = 1" };
	char name[32], zeros[300], text[400];

	for (unsigned i = 0; i < TP_ARRAY_SIZE(texts); i++) {
		snprintf(name, sizeof(name), "syntax %u", i);
		check_text(texts[i], strlen(texts[i]), name);
	}
	/* tokens longer than the reader's small buffers */
	memset(zeros, '0', sizeof(zeros) - 1);
	zeros[sizeof(zeros) - 1] = '\0';
	for (unsigned i = 0; i < TP_ARRAY_SIZE(longs); i++) {
		snprintf(text, sizeof(text), longs[i], zeros);
		snprintf(name, sizeof(name), "long %u", i);
		check_text(text, strlen(text), name);
	}
}

/* Damaged texts (bytes changed, cut, repeated, syntax put in), each read
 * by both: the same VG or the same message. */
static void test_damage_matches(void)
{
	static const char *const bits[] = {
		"{", "}", "=", "\"", "'", "#", "\n", " ", "[", "]", ",", "/", "\\", "0", "-",
		"9", ".", "x", "a", "99999999999999999999", " = 1\n", " { }\n", "0x10", "010",
		"dev_id", "size", "=[1]", "=[]", "= \"s\"", "pool/", "creation_time = 99999999999999999999\n",
		"www { dev_id = 9 size = 512 creation_time = 1 read_only = 0 }\n",
	};
	struct tp_log_capture cap;

	rnd_state = 777;
	for (unsigned k = 0; k < 40; k++) {
		struct vg *vg = gen_vg(k % 9);
		char *t, *d, name[32];
		size_t n;

		CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
		d = malloc(n + 200);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		for (unsigned m = 0; m < 150; m++) {
			size_t len = n, at, cut;
			memcpy(d, t, n);
			for (unsigned j = 0; j <= m % 3; j++) {
				at = rnd() % len;
				switch (rnd() % 4) {
				case 0: /* a byte changed */
					d[at] = bits[rnd() % 19][0];
					break;
				case 1: /* a piece put in */ {
					const char *b = bits[rnd() % TP_ARRAY_SIZE(bits)];
					size_t bl = strlen(b);
					if (len + bl > n + 200)
						break;
					memmove(d + at + bl, d + at, len - at);
					memcpy(d + at, b, bl);
					len += bl;
					break;
				}
				case 2: /* a piece cut */
					cut = 1 + rnd() % 12;
					if (at + cut > len)
						cut = len - at;
					memmove(d + at, d + at + cut, len - at - cut);
					len -= cut;
					break;
				default: /* the text cut short */
					len = at;
					break;
				}
				if (!len)
					break;
			}
			snprintf(name, sizeof(name), "damage %u/%u", k, m);
			tp_log_capture(&cap);
			check_text(d, len, name);
			tp_log_capture(NULL);
		}
		free(d);
		free(t);
		vg_free(vg);
	}
}

TP_TEST_SUITE(vg_text_ref, NULL, NULL,
	      { "generated VGs: the old writer's and libdevmapper's bytes, read back alike",
		test_export_matches },
	      { "integers of every length: the old writer's bytes, read back alike",
		test_export_integers },
	      { "odd syntax: libdevmapper's tree or message, the old import's VG or message",
		test_syntax_matches },
	      { "damaged texts: the same VG or message as the old import", test_damage_matches })
