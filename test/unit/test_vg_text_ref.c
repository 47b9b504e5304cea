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
#include <libdevmapper.h>
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

/* ---- the canonical volumes' reader (vg_text_parse_fast) ---- */

/* vg_text_parse_fast on TEXT: 1 when it took the text, 0 when it left it
 * to the general path. Taken, the general parse reads the text too and
 * its pool/volumes holds the entries the fast one put in the model, in
 * their order; left, nothing is kept. */
static int fast_takes(const char *text, size_t len)
{
	struct vg_text_tree tree = { 0 }, gen = { 0 };
	struct vg *vg = vg_alloc();
	char err[256];
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vg);
	r = vg_text_parse_fast(text, len, &tree, vg);
	CU_ASSERT(r == 0 || r == 1);
	if (r != 1) {
		CU_ASSERT_EQUAL(vg->nr_volumes, 0);
		CU_ASSERT_PTR_NULL(tree.root);
	} else if (vg->nr_volumes) {
		CU_ASSERT_EQUAL_FATAL(vg_text_parse(text, len, &gen, err, sizeof(err)), 0);
		CU_ASSERT(ref_general_has(gen.root, vg));
		vg_text_tree_free(&gen);
	}
	vg_text_tree_free(&tree);
	vg_free(vg);
	return r == 1;
}

/* Generated VGs' texts, as vg_export writes them: the fast reader takes
 * each whole, and imports it as the old importer does. */
static void test_fast_canonical(void)
{
	struct tp_log_capture cap;

	rnd_state = 99;
	for (unsigned k = 0; k < 60; k++) {
		struct vg *vg = gen_vg(k * 7 % 50);
		char *t;
		size_t n;

		CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
		CU_ASSERT(fast_takes(t, n));
		tp_log_capture(&cap);
		check_text(t, n, "canonical");
		tp_log_capture(NULL);
		free(t);
		vg_free(vg);
	}
}

/* The field of the volumes' text a byte at AT is in: the key of its line,
 * or the entry's name line, its close, the section's open or end. */
static const char *field_at(const char *text, size_t at)
{
	static char key[32];
	const char *l = text + at, *e;

	while (l > text && l[-1] != '\n')
		l--;
	if (!strncmp(l, "\t\t\t", 3) && (e = strchr(l, '=')) && e - l - 3 < 30) {
		snprintf(key, sizeof(key), "%.*s", (int)(e - l - 3), l + 3);
		return key;
	}
	if (!strncmp(l, "\t\t}", 3))
		return "close";
	if (!strncmp(l, "\t\t", 2))
		return "name";
	if (!strncmp(l, "\tvolumes", 8))
		return "open";
	return "end";
}

/* One byte off the canonical form, in every byte of the volumes' text
 * (each field: the name, every key and value, the braces, the tabs and
 * newlines): a byte changed to one of a set, cut, or one put in before
 * it. Every field is read by both sides of the fast reader (a change
 * that keeps the form, such as a digit for a digit, and one that breaks
 * it), and every text to the old importer's VG or message; at the edges
 * of each value (a name of 64 bytes and "."/".." a byte away, a dev_id of
 * VG_DEV_ID_MAX, 18 digits, strings at their fields' sizes), one byte
 * crosses them. */
static void test_fast_one_byte_off(void)
{
	static const char bytes[] = "019-x.+_ \t\n\"\\#{}=/'[";
	static const char *const fields[] = { "name", "dev_id", "size", "origin",
					      "creation_time", "read_only", "activation_skip",
					      "content_uuid", "luks_uuid", "close", "open", "end" };
	unsigned fast[TP_ARRAY_SIZE(fields)] = { 0 }, general[TP_ARRAY_SIZE(fields)] = { 0 };
	unsigned import_refused = 0;
	struct tp_log_capture cap;
	struct vg *vg = fx_vg();
	struct vg_volume v;
	char *t, *d, *vb, *ve, name[VG_NAME_MAX + 1];
	size_t n;

	memset(name, 'n', VG_NAME_MAX);
	name[VG_NAME_MAX] = '\0';
	vg->next_dev_id = VG_DEV_ID_MAX + 1;
	memset(&v, 0, sizeof(v));
	strcpy(v.name, "a");
	v.dev_id = 4;
	v.size = 512;
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
	strcpy(v.name, "a.");
	v.dev_id = 5;
	v.creation_time = -1;
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
	strcpy(v.name, name);
	v.dev_id = VG_DEV_ID_MAX;
	v.size = 500000000000000000ull; /* 18 digits, a multiple of 512 */
	v.creation_time = -999999999999999999ll;
	v.read_only = 1;
	v.activation_skip = 1;
	rnd_uuid(v.content_uuid);
	rnd_uuid(v.luks_uuid);
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
	strcpy(v.name, "s");
	strcpy(v.origin, name);
	v.dev_id = 6;
	v.activation_skip = 0;
	v.luks_uuid[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_FATAL(fast_takes(t, n));
	vb = strstr(t, "\tvolumes {\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(vb);
	ve = strstr(vb, "\n\t}\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ve);
	ve += 4;
	d = malloc(n + 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (size_t at = (size_t)(vb - t); at < (size_t)(ve - t); at++) {
		const char *f = field_at(t, at);
		unsigned fi = 0;

		while (fi < TP_ARRAY_SIZE(fields) - 1 && strcmp(fields[fi], f))
			fi++;
		CU_ASSERT_STRING_EQUAL(fields[fi], f);
		for (unsigned m = 0; m < sizeof(bytes) - 1 + 1 + 3; m++) {
			size_t len = n;
			struct vg *back;

			memcpy(d, t, n);
			if (m < sizeof(bytes) - 1) { /* changed */
				if (d[at] == bytes[m])
					continue;
				d[at] = bytes[m];
			} else if (m == sizeof(bytes) - 1) { /* cut */
				memmove(d + at, d + at + 1, n - at - 1);
				len--;
			} else { /* one put in */
				memmove(d + at + 1, d + at, n - at);
				d[at] = "0 \t"[m - sizeof(bytes)];
				len++;
			}
			if (fast_takes(d, len)) {
				fast[fi]++;
				tp_log_capture(&cap);
				if (vg_import(d, len, &back))
					import_refused++; /* the fast read's model refused: read again */
				else
					vg_free(back);
				tp_log_capture(NULL);
			} else {
				general[fi]++;
			}
			tp_log_capture(&cap);
			check_text(d, len, "one byte off");
			tp_log_capture(NULL);
		}
	}
	for (unsigned i = 0; i < TP_ARRAY_SIZE(fields); i++) {
		/* an entry's close has no other canonical byte (its fast side
		 * is the text as written), and the section's end is the
		 * general parse's, after the fast reader */
		int fixed = !strcmp(fields[i], "close") || !strcmp(fields[i], "end");

		if (!fixed)
			CU_ASSERT(fast[i] > 0);
		CU_ASSERT(general[i] > 0);
		if ((!fixed && !fast[i]) || !general[i])
			fprintf(stderr, "\n%s: %u fast, %u general\n", fields[i], fast[i],
				general[i]);
	}
	CU_ASSERT(import_refused > 0);
	free(d);
	free(t);
	vg_free(vg);
}

/* TEXT with its first OLD replaced by NEW (malloc'd) */
static char *replaced(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	size_t n = strlen(text) - strlen(old) + strlen(new);
	char *r = malloc(n + 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(r, n + 1, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
	return r;
}

/* Names in canonical entries: a byte of every value in a name, and the
 * edges of the name rule (".", "..", a leading '-', 64 and 65 bytes): the
 * fast reader takes exactly the names vg_name_valid takes, and every text
 * reads as the old importer reads it. */
static void test_fast_names(void)
{
	static const char *const edges[] = { ".", "..", "...", ".a", "a..", "-", "-a", "a-",
					     "+", "_", "0", "" };
	struct tp_log_capture cap;
	struct vg *vg = fx_vg();
	char *t, *d, name[VG_NAME_MAX + 8], line[VG_NAME_MAX + 16];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	for (unsigned i = 0; i < 256 + TP_ARRAY_SIZE(edges) + 2; i++) {
		if (i == 0) {
			continue;
		} else if (i < 256) {
			snprintf(name, sizeof(name), "d%cb", (char)i);
		} else if (i < 256 + TP_ARRAY_SIZE(edges)) {
			snprintf(name, sizeof(name), "%s", edges[i - 256]);
		} else {
			memset(name, 'd', VG_NAME_MAX + 1);
			name[VG_NAME_MAX + i - 256 - TP_ARRAY_SIZE(edges)] = '\0'; /* 64, 65 */
		}
		snprintf(line, sizeof(line), "\t\t%s {", name);
		d = replaced(t, "\t\tdb {", line);
		CU_ASSERT_EQUAL(fast_takes(d, strlen(d)), vg_name_valid(name, NULL));
		tp_log_capture(&cap);
		check_text(d, strlen(d), "name");
		tp_log_capture(NULL);
		free(d);
	}
	free(t);
	vg_free(vg);
}

/* A volume's name twice, each entry canonical: the fast reader takes the
 * text, vg_check_model refuses its model, and the general path reads it
 * again to say which key repeats, as the old importer does; the same for
 * pool or pool/volumes twice around canonical entries. */
static void test_fast_duplicate(void)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg(), *back = NULL;
	char *t, *d, why[512];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	d = replaced(t, "\t\tdb {", "\t\twww {");
	CU_ASSERT(fast_takes(d, strlen(d)));
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_import_why(d, strlen(d), &back, why, sizeof(why)), -EUCLEAN);
	check_text(d, strlen(d), "duplicate");
	tp_log_capture(NULL);
	CU_ASSERT_STRING_EQUAL(why, "pool/volumes/www: duplicate key");
	CU_ASSERT_PTR_NULL(back);
	free(d);
	/* a pool (a value, a path's section) or its volumes twice, the
	 * canonical entries in one of them (fuzz_vg found the first) */
	static const char *const twice[][2] = {
		{ "pool {\n", "pool=0\npool {\n" },
		{ "pool {\n", "pool/volumes {\n}\npool {\n" },
		{ "pool {\n", "pool {\n}\npool {\n" },
		{ "\tvolumes {\n", "\tvolumes=1\n\tvolumes {\n" },
		{ "\tvolumes {\n", "\tvolumes {\n\t}\n\tvolumes {\n" },
	};
	for (unsigned i = 0; i < TP_ARRAY_SIZE(twice); i++) {
		d = replaced(t, twice[i][0], twice[i][1]);
		CU_ASSERT_EQUAL(fast_takes(d, strlen(d)), i < 4);
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(vg_import(d, strlen(d), &back), -EUCLEAN);
		check_text(d, strlen(d), "twice");
		tp_log_capture(NULL);
		free(d);
	}
	free(t);
	vg_free(vg);
}

/* More volumes than VG_MAX_VOLUMES, each entry canonical: the fast reader
 * leaves the text to the general path, which names the limit; as many as
 * the limit import. */
static void test_fast_too_many(void)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg(), *back = NULL;
	char *t, *head, *text, *o, why[512];
	size_t n, cap_bytes = 128ull * (VG_MAX_VOLUMES + 1) + 4096;
	int r;

	vg->next_dev_id = VG_MAX_VOLUMES + 8;
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	head = strstr(t, "\tvolumes {\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(head);
	head += strlen("\tvolumes {\n");
	text = malloc(cap_bytes);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (unsigned extra = 0; extra <= 1; extra++) {
		o = text + snprintf(text, cap_bytes, "%.*s", (int)(head - t), t);
		for (unsigned i = 0; i < VG_MAX_VOLUMES + extra; i++)
			o += sprintf(o, "\t\tv%u {\n\t\t\tdev_id=%u\n\t\t\tsize=512\n"
				     "\t\t\torigin=\"\"\n\t\t\tcreation_time=1\n"
				     "\t\t\tread_only=0\n\t\t}\n", i, i + 1);
		o += sprintf(o, "\t}\n}\n");
		CU_ASSERT_EQUAL(fast_takes(text, (size_t)(o - text)), !extra);
		tp_log_capture(&cap);
		r = vg_import_why(text, (size_t)(o - text), &back, why, sizeof(why));
		tp_log_capture(NULL);
		if (!extra) {
			CU_ASSERT_EQUAL(r, 0);
			CU_ASSERT_EQUAL(back ? back->nr_volumes : 0, VG_MAX_VOLUMES);
		} else {
			CU_ASSERT_EQUAL(r, -EUCLEAN);
			CU_ASSERT_STRING_EQUAL(why, "pool/volumes: more than 100000 volumes");
		}
		vg_free(back);
		back = NULL;
	}
	free(text);
	free(t);
	vg_free(vg);
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
	      { "canonical texts: the fast reader takes them whole, read alike",
		test_fast_canonical },
	      { "one byte off the canonical form in every field: both sides, read alike",
		test_fast_one_byte_off },
	      { "names in canonical entries: the fast reader takes what vg_name_valid takes",
		test_fast_names },
	      { "a name twice in canonical entries: the general path's message",
		test_fast_duplicate },
	      { "more volumes than the limit in canonical entries: the general path's message",
		test_fast_too_many },
	      { "odd syntax: libdevmapper's tree or message, the old import's VG or message",
		test_syntax_matches },
	      { "damaged texts: the same VG or message as the old import", test_damage_matches })
