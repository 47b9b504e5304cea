/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_model: the name rule (a table of bytes, one pass) held to the rule
 * as it reads, byte by byte, with its reasons in their order; and the
 * model check's one pass over each volume's name and origin (issue 40)
 * refusing what the rule refuses, with the same words, wherever the name
 * or origin stands among many volumes. */
#include "lib/base/log.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"
#include "test/unit/test_rand.h"
#include "test/unit/test_vg_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rule of vg.h, spelled out slowly: the reason for the first problem
 * met in this order, or NULL. */
static const char *rule(const char *name)
{
	size_t len;

	if (!*name)
		return "the name is empty";
	len = strlen(name);
	if (len > VG_NAME_MAX)
		return "the name is longer than 64 bytes";
	if (name[0] == '-')
		return "the name starts with '-'";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "'.' and '..' are reserved";
	for (const char *p = name; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-",
			    *p))
			return "only letters, digits and '+_.-' are allowed";
	return NULL;
}

static void same_as_rule(const char *name)
{
	const char *why = "unset", *want = rule(name);
	int ok = vg_name_valid(name, &why);

	CU_ASSERT_EQUAL(ok, want == NULL);
	if (want) {
		CU_ASSERT_STRING_EQUAL(why, want);
	} else {
		CU_ASSERT_PTR_NULL(why);
	}
	if (ok != (want == NULL) || (want && strcmp(why, want)))
		fprintf(stderr, "\nname '%s': %s, want %s", name, why ? why : "valid",
			want ? want : "valid");
}

static void test_name_rule(void)
{
	static const char *const fixed[] = {
		"", ".", "..", "...", ".a", "..a", "a.", "-", "-a", "a-", "+a", "_", "a b",
		"a/b", "\xc3\xa9", "-\x01", "..\x7f",
	};
	char name[80];
	uint64_t st = 42;

	for (size_t i = 0; i < TP_ARRAY_SIZE(fixed); i++)
		same_as_rule(fixed[i]);
	CU_ASSERT_EQUAL(vg_name_valid(NULL, NULL), 0);
	/* every byte alone, first, in the middle and last */
	for (unsigned c = 1; c < 256; c++) {
		snprintf(name, sizeof(name), "%c", c);
		same_as_rule(name);
		snprintf(name, sizeof(name), "%cab", c);
		same_as_rule(name);
		snprintf(name, sizeof(name), "a%cb", c);
		same_as_rule(name);
		snprintf(name, sizeof(name), "ab%c", c);
		same_as_rule(name);
	}
	/* 63, 64 and 65 bytes, a bad byte or a leading '-' among them:
	 * the length is said first, then the '-', then the byte */
	for (size_t len = 63; len <= 66; len++) {
		memset(name, 'x', len);
		name[len] = '\0';
		same_as_rule(name);
		name[len / 2] = '/';
		same_as_rule(name);
		name[0] = '-';
		same_as_rule(name);
	}
	/* random names of the allowed bytes and a few others */
	for (unsigned n = 0; n < 20000; n++) {
		static const char pick[] = "aZ09+_.-/ \x80\xff";
		size_t len = tp_test_xorshift64(&st) % 70;

		for (size_t i = 0; i < len; i++) {
			uint64_t r = tp_test_xorshift64(&st);
			name[i] = r % 8 ? (char)("abcXYZ019+_.-"[(r >> 8) % 13])
					: pick[(r >> 8) % (sizeof(pick) - 1)];
		}
		name[len] = '\0';
		same_as_rule(name);
	}
}

/* A pool of many volumes, a quarter of them snapshots. */
static struct vg *many(unsigned n)
{
	struct vg *vg = fx_vg();
	char name[32], origin[32];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "v%05u", i);
		snprintf(origin, sizeof(origin), "v%05u", i - i % 4);
		fx_vol(vg, name, vg->next_dev_id, i % 4 ? origin : NULL);
	}
	return vg;
}

/* A bad name or origin anywhere among many volumes: refused with the
 * rule's reason, for the first volume in order that has one. */
static void test_check_names(void)
{
	static const char *const bad[] = { "-x", ".", "..", "a b", "a/b", "\xc3\xa9" };
	struct vg *vg = many(3000);
	char msg[512], want[512], keep[VG_NAME_MAX + 1];

	CU_ASSERT_EQUAL_FATAL(vg_check_model(vg, msg, sizeof(msg)), 0);
	for (size_t b = 0; b < TP_ARRAY_SIZE(bad); b++) {
		unsigned at = 5 + 997 * (unsigned)b % 2900, later = at + 50;

		/* a bad name, and a later volume with another bad name */
		strcpy(keep, vg->volumes[at].name);
		strcpy(vg->volumes[at].name, bad[b]);
		strcpy(vg->volumes[later].name, "later/");
		CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
		snprintf(want, sizeof(want), "pool/volumes/%s: bad volume name: %s", bad[b],
			 rule(bad[b]));
		CU_ASSERT_STRING_EQUAL(msg, want);
		if (strcmp(msg, want))
			fprintf(stderr, "\n%s", msg);
		strcpy(vg->volumes[at].name, keep);
		snprintf(vg->volumes[later].name, sizeof(vg->volumes[later].name), "v%05u",
			 later - 3);	/* (after fx_vg's three) */
		CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), 0);
		/* a bad origin */
		strcpy(keep, vg->volumes[at].origin);
		strcpy(vg->volumes[at].origin, bad[b]);
		CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
		snprintf(want, sizeof(want), "pool/volumes/%s/origin: bad name: %s",
			 vg->volumes[at].name, rule(bad[b]));
		CU_ASSERT_STRING_EQUAL(msg, want);
		strcpy(vg->volumes[at].origin, keep);
	}
	/* a volume its own origin; an origin no volume has */
	strcpy(vg->volumes[2001].origin, vg->volumes[2001].name);
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "pool/volumes/v01998/origin: a volume cannot be its own "
				    "origin");
	strcpy(vg->volumes[2001].origin, "v99999");
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "pool/volumes/v01998/origin: no volume named 'v99999'");
	/* a valid name no volume has yet: fine as a name, not as an origin */
	strcpy(vg->volumes[2001].origin, "v01996");
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), 0);
	vg_free(vg);
}

/* Random names, of every length a volume's name can have, with random
 * bytes after their NUL: the check refuses a name exactly when the rule
 * does, with its reason, and finds a valid one as an origin whatever
 * bytes follow its NUL there. */
static void test_check_random_names(void)
{
	struct vg *vg = many(64);
	struct vg_volume *v = &vg->volumes[3 + 8], *snap = &vg->volumes[3 + 9];
	char msg[512], want[512];
	uint64_t st = 7;

	CU_ASSERT_EQUAL_FATAL(snap->origin[0] != '\0', 1);
	vg->volumes[3 + 10].origin[0] = vg->volumes[3 + 11].origin[0] = '\0';	/* v's other two */
	for (unsigned n = 0; n < 30000; n++) {
		size_t len = 1 + tp_test_xorshift64(&st) % VG_NAME_MAX;
		const char *why;

		for (size_t i = 0; i < sizeof(v->name); i++)
			v->name[i] = (char)tp_test_xorshift64(&st);
		for (size_t i = 0; i < sizeof(snap->origin); i++)
			snap->origin[i] = (char)tp_test_xorshift64(&st);
		for (size_t i = 0; i < len; i++) {
			uint64_t r = tp_test_xorshift64(&st);
			v->name[i] = r % 64 ? (char)("abcXYZ019+_.-"[(r >> 8) % 13])
					    : (char)(1 + (r >> 8) % 255);
		}
		if (n % 7 == 0)
			v->name[0] = n % 2 ? '-' : '.';
		if (n % 11 == 0 && len > 2)
			len = 1 + n % 2;
		v->name[len] = '\0';
		memcpy(snap->origin, v->name, len + 1);
		why = rule(v->name);
		if (vg_find_volume(vg, v->name) != v)
			continue;
		if (why) {
			CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
			snprintf(want, sizeof(want), "pool/volumes/%s: bad volume name: %s", v->name,
				 why);
			CU_ASSERT_STRING_EQUAL(msg, want);
		} else {
			CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), 0);
			if (vg_check_model(vg, msg, sizeof(msg)))
				fprintf(stderr, "\nname '%s': %s", v->name, msg);
		}
	}
	vg_free(vg);
}

/* Thin ids and names shared across the four lists: the first entry in
 * order that repeats one is named, with the entry it repeats. */
static void test_check_lists(void)
{
	struct vg *vg = many(400);
	struct vg_volume r, *v;
	char msg[512], want[512];

	memset(&r, 0, sizeof(r));
	strcpy(r.name, "incoming");
	r.dev_id = vg->next_dev_id++;
	r.size = 1ull << 30;
	r.read_only = 1;
	strcpy(r.content_uuid, FX_POOL_UUID);
	CU_ASSERT_EQUAL_FATAL(vg_add_receive(vg, &r), 0);
	CU_ASSERT_EQUAL_FATAL(vg_begin_removal(vg, "v00100"), 0);
	CU_ASSERT_EQUAL_FATAL(vg_trash_volume(vg, "v00200", 1700000000), 0);
	CU_ASSERT_EQUAL_FATAL(vg_check_model(vg, msg, sizeof(msg)), 0);

	/* a receive with a volume's thin id, then with a volume's name */
	vg->receives[0].dev_id = vg->volumes[7].dev_id;
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want), "pool/receiving/incoming/dev_id: %u is also used by %s",
		 vg->volumes[7].dev_id, vg->volumes[7].name);
	CU_ASSERT_STRING_EQUAL(msg, want);
	vg->receives[0].dev_id = r.dev_id;
	strcpy(vg->receives[0].name, "v00300");
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "pool/receiving/v00300: also a volume's name");
	strcpy(vg->receives[0].name, "incoming");
	/* a removal with the receive's thin id */
	vg->removals[0].dev_id = r.dev_id;
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want), "pool/removing/v00100/dev_id: %u is also used by "
		 "incoming", vg->removals[0].dev_id);
	CU_ASSERT_STRING_EQUAL(msg, want);
	vg_free(vg);
	/* the trash entry with the last volume's thin id */
	vg = many(400);
	CU_ASSERT_EQUAL_FATAL(vg_trash_volume(vg, "v00200", 1700000000), 0);
	v = &vg->volumes[vg->nr_volumes - 1];
	vg->trash[0].dev_id = v->dev_id;
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	snprintf(want, sizeof(want), "pool/trash/t%u/dev_id: %u is also used by %s",
		 v->dev_id, v->dev_id, v->name);
	CU_ASSERT_STRING_EQUAL(msg, want);
	vg_free(vg);
}

/* A random pick among a few names: the base's volumes', its receive's
 * and removal's, new ones, bad ones, "". */
static const char *some_name(const struct vg *vg, uint64_t *st)
{
	static const char *const other[] = { "new1", "new2", "incoming", "gone", "-bad", "",
					     "v00007", "v00030" };
	uint64_t r = tp_test_xorshift64(st);

	if (r % 3 == 0)
		return other[(r >> 8) % TP_ARRAY_SIZE(other)];
	return vg->volumes[(r >> 8) % vg->nr_volumes].name;
}

/* One random change of NEXT, valid or not: a volume added, dropped, moved
 * to the removals or the trash, renamed, given another origin, thin id or
 * a bad field; the receive, removal or trash entry altered; next_dev_id
 * lowered; volumes swapped. */
static void random_change(struct vg *next, uint64_t *st)
{
	uint64_t r = tp_test_xorshift64(st);
	unsigned n = next->nr_volumes, at = (unsigned)((r >> 16) % n);
	struct vg_volume *v = &next->volumes[at], nv;

	switch (r % 22) {
	case 16:	/* another receive: maybe a name or id taken, a bad uuid, raw */
		memset(&nv, 0, sizeof(nv));
		snprintf(nv.name, sizeof(nv.name), "%s", r & 0x100 ? "rx" : some_name(next, st));
		nv.dev_id = r & 0x200 ? next->next_dev_id++ : (uint32_t)((r >> 24) % 70);
		nv.size = 1ull << 30;
		nv.read_only = 1;
		strcpy(nv.content_uuid, r & 0x400 ? FX_POOL_UUID : "not-a-uuid");
		if (r & 0x800)
			snprintf(nv.origin, sizeof(nv.origin), "%s", some_name(next, st));
		nv.raw = (r & 0x1000) != 0;
		if (vg_append_receive(next, &nv))
			abort();
		break;
	case 17:	/* another removal: maybe a name or id taken, a bad field */
		memset(&nv, 0, sizeof(nv));
		snprintf(nv.name, sizeof(nv.name), "%s", r & 0x100 ? "rm2" : some_name(next, st));
		nv.dev_id = r & 0x200 ? next->next_dev_id++ : (uint32_t)((r >> 24) % 70);
		nv.size = 1ull << 30;
		if (r & 0x400)
			nv.read_only = 1;
		if (vg_append_removal(next, &nv))
			abort();
		break;
	case 18:	/* another trash entry: maybe an id taken, an origin, purging */
		memset(&nv, 0, sizeof(nv));
		snprintf(nv.name, sizeof(nv.name), "%s", some_name(next, st));
		nv.dev_id = r & 0x200 ? next->next_dev_id++ : (uint32_t)((r >> 24) % 70);
		nv.size = 1ull << 30;
		nv.trashed_at = 1700000000;
		nv.purging = (int)((r >> 10) % 3);
		if (r & 0x2000)
			snprintf(nv.origin, sizeof(nv.origin), "%s", some_name(next, st));
		if (vg_append_trash(next, &nv))
			abort();
		break;
	case 19:	/* the receive finished, or dropped; a trash entry back */
		if (next->nr_receives && (r & 0x100))
			r = (uint64_t)vg_finish_receive(next, next->receives[0].name);
		else if (next->nr_receives)
			r = (uint64_t)vg_remove_receive(next, next->receives[0].name);
		else if (next->nr_trash)	/* (a bad or taken name: said, no change) */
			r = (uint64_t)vg_untrash(next, next->trash[0].dev_id,
					 r & 0x200 ? some_name(next, st) : NULL);
		break;
	case 20:	/* the trash's retention, up to beyond ten years */
		next->trash_retention = (r >> 8) % 3 == 0 ? VG_TRASH_RETENTION_MAX + 1
							  : (r >> 8) % 3 == 1 ? 86400 : 0;
		break;
	case 21:	/* a removal ended, a trash entry dropped */
		if (next->nr_trash && (r & 0x100) && vg_drop_trash(next, next->trash[0].dev_id))
			abort();
		if (next->nr_removals)
			r = (uint64_t)vg_end_removal(next, next->removals[0].name);
		break;
	case 0:	/* a new volume, maybe a snapshot, maybe a name or id taken */
		memset(&nv, 0, sizeof(nv));
		snprintf(nv.name, sizeof(nv.name), "%s", r & 0x100 ? "fresh" : some_name(next, st));
		nv.dev_id = r & 0x200 ? next->next_dev_id++ : (uint32_t)((r >> 24) % 70);
		nv.size = 1ull << 30;
		if (r & 0x400)
			snprintf(nv.origin, sizeof(nv.origin), "%s", some_name(next, st));
		if (vg_append_volume(next, &nv))
			abort();
		break;
	case 1:
		r = (uint64_t)vg_remove_volume(next, v->name);	/* (-ENOENT: no change) */
		break;
	case 2:
		r = (uint64_t)vg_begin_removal(next, v->name);	/* (-ENOENT: no change) */
		break;
	case 3:
		r = (uint64_t)vg_trash_volume(next, v->name, 1700000000);	/* (-ENOENT: no change) */
		break;
	case 4:
	case 5:
		snprintf(v->name, sizeof(v->name), "%s", some_name(next, st));
		break;
	case 6:
	case 7:
		snprintf(v->origin, sizeof(v->origin), "%s", some_name(next, st));
		break;
	case 8:
		v->dev_id = (uint32_t)((r >> 24) % (next->next_dev_id + 2));
		break;
	case 9:
		switch ((r >> 8) % 5) {
		case 0: v->size = 0; break;
		case 1: v->read_only = 2; break;
		case 2: v->raw = 1; break;
		case 3: v->received = 512; break;
		default: v->size += 512; break;	/* (valid) */
		}
		break;
	case 10:
		if (next->nr_receives) {
			struct vg_volume *x = &next->receives[0];
			if (r & 0x100)
				snprintf(x->name, sizeof(x->name), "%s", some_name(next, st));
			else if (r & 0x200)
				snprintf(x->origin, sizeof(x->origin), "%s", some_name(next, st));
			else
				x->read_only = !x->read_only;
		}
		break;
	case 11:
		if (next->nr_removals) {
			struct vg_volume *x = &next->removals[0];
			if (r & 0x100)
				snprintf(x->name, sizeof(x->name), "%s", some_name(next, st));
			else
				x->dev_id = next->volumes[at].dev_id;
		}
		break;
	case 12:
		if (next->nr_trash) {
			struct vg_volume *x = &next->trash[0];
			if (r & 0x100)
				x->purging = 2;
			else
				x->dev_id = (uint32_t)((r >> 24) % next->next_dev_id);
		}
		break;
	case 13:
		next->next_dev_id -= (uint32_t)((r >> 8) % 3);
		break;
	case 14:
		if (at + 1 < n) {
			nv = *v;
			*v = v[1];
			v[1] = nv;
		}
		break;
	default:	/* a valid snapshot of a volume (tvsnap) */
		memset(&nv, 0, sizeof(nv));
		snprintf(nv.name, sizeof(nv.name), "snap%u", (unsigned)(r >> 40) % 1000);
		snprintf(nv.origin, sizeof(nv.origin), "%s", v->name);
		nv.dev_id = next->next_dev_id++;
		nv.size = v->size;
		nv.read_only = 1;
		if (vg_append_volume(next, &nv))
			abort();
		break;
	}
}

/* vg_check_change, which looks at what changed only, agrees with the
 * whole check on every VG changed from a checked one: random changes,
 * one to four, valid and not, of a pool with snapshot chains, a receive,
 * a removal and a trash entry; a refusal words the same message. A VG
 * not marked checked, or none, gets the whole check. */
static void test_check_change(void)
{
	struct vg *base = many(64), *next;
	struct vg_volume r;
	char msg[512], want[512];
	uint64_t st = 11;
	unsigned agree_ok = 0, agree_bad = 0;
	struct tp_log_capture quiet;

	/* a chain of origins of origins, longer than the change's check
	 * follows: v00004 <- v00005 <- ... <- v00037 */
	for (unsigned i = 3 + 5; i < 3 + 38; i++)
		snprintf(base->volumes[i].origin, sizeof(base->volumes[i].origin), "%s",
			 base->volumes[i - 1].name);
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "incoming");
	r.dev_id = base->next_dev_id++;
	r.size = 1ull << 30;
	r.read_only = 1;
	strcpy(r.content_uuid, FX_POOL_UUID);
	strcpy(r.origin, "v00020");
	CU_ASSERT_EQUAL_FATAL(vg_add_receive(base, &r), 0);
	CU_ASSERT_EQUAL_FATAL(vg_begin_removal(base, "v00041"), 0);
	CU_ASSERT_EQUAL_FATAL(vg_trash_volume(base, "v00042", 1700000000), 0);
	CU_ASSERT_EQUAL_FATAL(vg_check_model(base, msg, sizeof(msg)), 0);
	base->checked = 1;
	for (unsigned n = 0; n < 20000; n++) {
		int full, part;

		CU_ASSERT_EQUAL_FATAL(vg_clone(base, &next), 0);
		CU_ASSERT_EQUAL(next->checked, 0);
		tp_log_capture(&quiet);	/* (vg_untrash says why it refuses) */
		for (unsigned k = 0, m = 1 + (unsigned)(tp_test_xorshift64(&st) % 4); k < m; k++)
			random_change(next, &st);
		tp_log_capture(NULL);
		quiet.len = 0;
		full = vg_check_model(next, want, sizeof(want));
		part = vg_check_change(base, next, msg, sizeof(msg));
		CU_ASSERT_EQUAL(part, full);
		if (part != full)
			fprintf(stderr, "\nchange %u: whole check %d (%s), change's check %d\n", n,
				full, full ? want : "", part);
		else if (full)
			CU_ASSERT_STRING_EQUAL(msg, want);
		agree_ok += !full && !part;
		agree_bad += full && part;
		vg_free(next);
	}
	/* both kinds were met, many times */
	CU_ASSERT(agree_ok > 2000);
	CU_ASSERT(agree_bad > 2000);
	/* an unchecked base or none: the whole check */
	CU_ASSERT_EQUAL_FATAL(vg_clone(base, &next), 0);
	next->volumes[3].size = 0;
	base->checked = 0;
	CU_ASSERT_EQUAL(vg_check_change(base, next, msg, sizeof(msg)), -1);
	CU_ASSERT_EQUAL(vg_check_change(NULL, next, msg, sizeof(msg)), -1);
	/* a base marked checked that is not sound is trusted: what the flag
	 * means (only vg_import and a commit's check set it) */
	base->volumes[3].size = 0;
	base->checked = 1;
	CU_ASSERT_EQUAL(vg_check_change(base, next, msg, sizeof(msg)), 0);
	vg_free(next);
	vg_free(base);
}

/* vg_find_volume and vg_name_used judge an entry by its name's first
 * eight bytes before the whole name: names that agree there, that are
 * one another's prefixes, of every length from 1 to 64, with random
 * bytes after their NUL in the array, are each found (the right entry)
 * and no name that differs is. */
static void test_find_by_name(void)
{
	static const char *stems[] = { "a", "vol", "vol1", "vol12", "vol1234", "vol12345",
				       "vol123456", "vm-100-disk-0", "vm-100-disk-00" };
	uint64_t st = 40;
	struct vg *vg = vg_alloc();
	char name[VG_NAME_MAX + 2];
	unsigned n = 0;

	CU_ASSERT_FATAL(vg != NULL);
	CU_ASSERT_FATAL(vg_reserve_volumes(vg, 200) == 0);
	for (size_t i = 0; i < sizeof(stems) / sizeof(stems[0]); i++) {
		struct vg_volume v;

		memset(&v, 0, sizeof(v));
		for (size_t b = 0; b < sizeof(v.name); b++)	/* bytes after the NUL */
			v.name[b] = (char)(tp_test_xorshift64(&st) | 1);
		snprintf(v.name, sizeof(v.name), "%s", stems[i]);
		v.dev_id = n;
		CU_ASSERT_EQUAL(vg_append_volume(vg, &v), 0);
		n++;
	}
	for (unsigned len = 1; len <= VG_NAME_MAX; len++) {	/* every length */
		struct vg_volume v;

		memset(&v, 0xa5, sizeof(v));
		memset(v.name, 'x', len);
		v.name[len] = '\0';
		v.origin[0] = '\0';
		v.dev_id = n;
		CU_ASSERT_EQUAL(vg_append_volume(vg, &v), 0);
		n++;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct vg_volume *f = vg_find_volume(vg, vg->volumes[i].name);

		CU_ASSERT(f == &vg->volumes[i]);
		CU_ASSERT(vg_name_used(vg, vg->volumes[i].name));
		/* one byte more, one byte less, the last byte changed */
		snprintf(name, sizeof(name), "%sz", vg->volumes[i].name);
		CU_ASSERT_PTR_NULL(vg_find_volume(vg, name));
		snprintf(name, sizeof(name), "%s", vg->volumes[i].name);
		name[strlen(name) - 1] ^= 0x01;
		CU_ASSERT_PTR_NULL(vg_find_volume(vg, name));
		name[strlen(name) - 1] = '\0';
		if (name[0] != 'x' && strcmp(name, "vol") && strcmp(name, "vol1") &&
		    strcmp(name, "vol1234") && strcmp(name, "vol12345") &&
		    strcmp(name, "vm-100-disk-0")) {
			CU_ASSERT_PTR_NULL(vg_find_volume(vg, name));
		} else if (name[0]) {	/* (one of the others) */
			CU_ASSERT(vg_find_volume(vg, name) != NULL);
		}
	}
	memset(name, 'x', VG_NAME_MAX + 1);	/* longer than any name */
	name[VG_NAME_MAX + 1] = '\0';
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, name));
	CU_ASSERT(!vg_name_used(vg, name));
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, "vol123"));
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, "vm-100-disk-"));
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, ""));
	vg_free(vg);
}

TP_TEST_SUITE(vg_model, NULL, NULL,
	      { "the name rule: every byte, lengths, reasons in order", test_name_rule },
	      { "bad names and origins among many volumes", test_check_names },
	      { "random names, bytes after their end: as the rule says",
		test_check_random_names },
	      { "thin ids and names shared across the lists", test_check_lists },
	      { "a volume found by its name, and no other", test_find_by_name },
	      { "a change's check agrees with the whole check", test_check_change })
