/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata/vg/vg_delta.c: the VG text delta. Round trips on empty, equal,
 * disjoint and binary inputs; the edits of VG commits on a text of 20,000
 * volumes (tp-volgen's form) each a delta under 1 KiB, blocks of 1, 5 and
 * 100 entries removed or inserted in the middle a delta of the inserted
 * bytes and under 1 KiB more, and 100 commits from one checkpoint a delta
 * that grows with the edits only; thousands
 * of random edit sequences on random and on highly repetitive texts (a
 * fixed seed); a long block moved or removed (the far index); -E2BIG at
 * a small MAX; and every malformed form of delta -EUCLEAN with one error
 * logged: each truncation, each op past the base or the delta, bad
 * varints, zero lengths, lengths that do not add up, trailing bytes, an
 * unknown op, the LIMIT exceeded, every byte of a delta mutated;
 * vg_delta_verify agrees with apply and memcmp on every round trip and
 * every mutated delta. */
#include "lib/base/compiler.h"
#include "lib/base/log.h"
#include "metadata/vg/vg_delta.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_MAX SIZE_MAX

/* Encode BASE -> NEW, apply, and expect NEW exactly; the delta's length,
 * or SIZE_MAX when a step failed. */
static size_t round_trip(const char *base, size_t blen, const char *new, size_t nlen)
{
	void *d = NULL;
	char *t = NULL;
	size_t dlen = 0, len = 0;
	int r;

	r = vg_delta_encode(base, blen, new, nlen, NO_MAX, &d, &dlen);
	CU_ASSERT_EQUAL(r, 0);
	if (r)
		return SIZE_MAX;
	/* a COPY is taken only when it is shorter than the bytes it gives */
	CU_ASSERT(dlen <= nlen + 64);
	r = vg_delta_apply(base, blen, d, dlen, nlen, &t, &len);
	CU_ASSERT_EQUAL(r, 0);
	if (!r) {
		CU_ASSERT_EQUAL(len, nlen);
		CU_ASSERT(len == nlen && (!nlen || !memcmp(t, new, nlen)));
		CU_ASSERT(len == nlen && t[len] == '\0');
	}
	/* vg_delta_verify: NEW, and not NEW with its first, middle or last
	 * byte changed, nor NEW one byte short */
	CU_ASSERT_EQUAL(vg_delta_verify(base, blen, d, dlen, new, nlen), 0);
	if (!r && nlen) {
		size_t at[3] = { 0, nlen / 2, nlen - 1 };

		for (int i = 0; i < 3; i++) {
			t[at[i]] ^= 0x20;
			CU_ASSERT_EQUAL(vg_delta_verify(base, blen, d, dlen, t, nlen), -EILSEQ);
			t[at[i]] ^= 0x20;
		}
		CU_ASSERT_EQUAL(vg_delta_verify(base, blen, d, dlen, new, nlen - 1), -EILSEQ);
	}
	free(t);
	free(d);
	return r ? SIZE_MAX : dlen;
}

static size_t rt_str(const char *base, const char *new)
{
	return round_trip(base, strlen(base), new, strlen(new));
}

static void test_basic(void)
{
	static const char bin_a[] = "a\0b\0\n\0\xff\xfe\n\n\0zz", bin_b[] = "\0\0a\0b\0\n\xff\n";
	char big[4096], other[4096];
	size_t i;

	CU_ASSERT_EQUAL(round_trip(NULL, 0, NULL, 0), 2);	/* length 0, end */
	CU_ASSERT(rt_str("", "some text\n") != SIZE_MAX);
	CU_ASSERT(rt_str("some text\n", "") == 2);
	CU_ASSERT(rt_str("x", "x") != SIZE_MAX);
	CU_ASSERT(round_trip(bin_a, sizeof(bin_a), bin_b, sizeof(bin_b)) != SIZE_MAX);
	CU_ASSERT(round_trip(bin_b, sizeof(bin_b), bin_a, sizeof(bin_a)) != SIZE_MAX);
	for (i = 0; i < sizeof(big); i++) {
		big[i] = (char)(i % 61 == 60 ? '\n' : 'a' + i % 23);
		other[i] = (char)(i % 37 == 36 ? '\n' : 'A' + i % 19);
	}
	/* equal: one COPY, whatever the size */
	CU_ASSERT(round_trip(big, sizeof(big), big, sizeof(big)) <= 12);
	/* disjoint: one INSERT */
	CU_ASSERT(round_trip(big, sizeof(big), other, sizeof(other)) <= sizeof(other) + 12);
	/* one byte changed, added, removed in the middle */
	memcpy(other, big, sizeof(big));
	other[2000] ^= 1;
	CU_ASSERT(round_trip(big, sizeof(big), other, sizeof(other)) <= 80);
	CU_ASSERT(round_trip(big, sizeof(big), big, 2000) <= 12);
	CU_ASSERT(round_trip(big, 2000, big, sizeof(big)) <= sizeof(big) - 2000 + 24);
	/* a line's worth at most: the texts meet again at a line's start */
	CU_ASSERT(round_trip(big + 1, sizeof(big) - 1, big, sizeof(big)) <= 61 + 24);
	CU_ASSERT(round_trip(big, sizeof(big), big + 1, sizeof(big) - 1) <= 61 + 24);
}

/* ---- VG texts as tp-volgen and the commands write them ---- */

struct vgt {
	unsigned long long seqno, tid, next_dev;
	char **ent;		/* each volume's entry, in the order of the text */
	size_t n, cap;
	char *removing, *trash;	/* a section's entries, or NULL */
};

static char *fmt(const char *f, ...) TP_PRINTF(1, 2);
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	CU_ASSERT_FATAL(n >= 0);
	return s;
}

static char *volume(const char *name, unsigned long long dev, const char *origin,
		    unsigned long long size, int ro)
{
	return fmt("\t\t%s {\n\t\t\tdev_id=%llu\n\t\t\tsize=%llu\n\t\t\torigin=\"%s\"\n"
		   "\t\t\tcreation_time=1796632737\n\t\t\tread_only=%d\n\t\t}\n",
		   name, dev, size, origin, ro);
}

static void vgt_insert(struct vgt *v, size_t at, char *e)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1024;
		v->ent = realloc(v->ent, v->cap * sizeof(*v->ent));
		CU_ASSERT_FATAL(v->ent != NULL);
	}
	memmove(v->ent + at + 1, v->ent + at, (v->n - at) * sizeof(*v->ent));
	v->ent[at] = e;
	v->n++;
}

static void vgt_remove(struct vgt *v, size_t at)
{
	free(v->ent[at]);
	memmove(v->ent + at, v->ent + at + 1, (v->n - at - 1) * sizeof(*v->ent));
	v->n--;
}

static void vgt_init(struct vgt *v, unsigned volumes)
{
	char name[32], origin[32];

	memset(v, 0, sizeof(*v));
	v->seqno = 2;
	v->tid = 1;
	for (unsigned k = 0; k < volumes; k++) {
		snprintf(name, sizeof(name), "vol%u", k);
		/* the last quarter snapshots of the first */
		snprintf(origin, sizeof(origin), k >= volumes / 4 * 3 ? "vol%u" : "",
			 k - volumes / 4 * 3);
		vgt_insert(v, v->n, volume(name, k, origin, 1073741824ull, 0));
	}
	v->next_dev = volumes;
}

static void vgt_free(struct vgt *v)
{
	for (size_t k = 0; k < v->n; k++)
		free(v->ent[k]);
	free(v->ent);
	free(v->removing);
	free(v->trash);
}

/* One commit's bookkeeping in the pool's header. */
static void vgt_commit(struct vgt *v)
{
	v->seqno++;
	v->tid++;
}

static char *vgt_text(const struct vgt *v, size_t *len)
{
	char *head = fmt("# tptools VG metadata: written by tptools, read back with checks.\n"
			 "# Edit a backup copy only, never the device.\n"
			 "contents=\"tptools VG metadata\"\nversion=1\npool {\n"
			 "\tname=\"bv20000\"\n\tuuid=\"ce32f2a6-44a2-4a82-932a-43efd446145c\"\n"
			 "\tseqno=%llu\n\tformat_version=1\n\tcreation_time=1796632737\n"
			 "\tcreation_host=\"vm\"\n\tchunk_size=128\n\tzero=0\n"
			 "\tdiscards=\"nopassdown\"\n\twhen_full=\"queue\"\n"
			 "\ttransaction_id=%llu\n\tnext_dev_id=%llu\n\tmetadata_area=0\n"
			 "\tprofile=\"balanced\"\n\tdevices {\n\t\tdata {\n"
			 "\t\t\tuuid=\"1a40f56d-565f-4afc-b5dc-ccbb161330f3\"\n"
			 "\t\t\tpath=\"/dev/vg/data\"\n\t\t\tsize=68719476736\n"
			 "\t\t\tmda_offset=4096\n\t\t\tmda_size=9433088\n\t\t}\n\t}\n"
			 "\tvolumes {\n",
			 v->seqno, v->tid, v->next_dev);
	const char *mid = "\t}\n";
	size_t n = strlen(head) + strlen(mid) + 2, at;
	char *t;

	for (size_t k = 0; k < v->n; k++)
		n += strlen(v->ent[k]);
	n += v->removing ? strlen(v->removing) + 16 : 0;
	n += v->trash ? strlen(v->trash) + 16 : 0;
	t = malloc(n + 1);
	CU_ASSERT_FATAL(t != NULL);
	at = (size_t)sprintf(t, "%s", head);
	for (size_t k = 0; k < v->n; k++) {
		size_t l = strlen(v->ent[k]);
		memcpy(t + at, v->ent[k], l);
		at += l;
	}
	at += (size_t)sprintf(t + at, "%s", mid);
	if (v->removing)
		at += (size_t)sprintf(t + at, "\tremoving {\n%s\t}\n", v->removing);
	if (v->trash)
		at += (size_t)sprintf(t + at, "\ttrash {\n%s\t}\n", v->trash);
	at += (size_t)sprintf(t + at, "}\n");
	free(head);
	*len = at;
	return t;
}

enum edit {
	ED_CREATE,
	ED_SNAP,
	ED_REMOVE,
	ED_RENAME,
	ED_READ_ONLY,
	ED_RESIZE,
	ED_REMOVING_ON,
	ED_REMOVING_OFF,
	ED_TRASH_ON,
	ED_TRASH_OFF,
	ED_KINDS,
};

/* Edit KIND of a commit at entry AT (a volume in the middle). */
static void vgt_edit(struct vgt *v, enum edit kind, size_t at, unsigned serial)
{
	char name[48];

	vgt_commit(v);
	switch (kind) {
	case ED_CREATE:
	case ED_SNAP:
		snprintf(name, sizeof(name), "new%u", serial);
		vgt_insert(v, v->n, volume(name, v->next_dev++, kind == ED_SNAP ? "vol7" : "",
					   2147483648ull, 0));
		break;
	case ED_REMOVE:
		vgt_remove(v, at);
		break;
	case ED_RENAME:
	case ED_READ_ONLY:
	case ED_RESIZE: {
		char *e = v->ent[at], *dev = strstr(e, "dev_id="), *open = strchr(e, '{');
		unsigned long long id = strtoull(dev + 7, NULL, 10);
		snprintf(name, sizeof(name), "%.*s", (int)(open - e - 3), e + 2);
		if (kind == ED_RENAME)
			snprintf(name, sizeof(name), "renamed%u", serial);
		v->ent[at] = volume(name, id, "", kind == ED_RESIZE ? 3221225472ull : 1073741824ull,
				    kind == ED_READ_ONLY);
		free(e);
		break;
	}
	case ED_REMOVING_ON:
		free(v->removing);
		v->removing = fmt("\t\tgone%u {\n\t\t\tdev_id=%llu\n\t\t\tsize=1073741824\n\t\t}\n",
				  serial, v->next_dev++);
		break;
	case ED_REMOVING_OFF:
		free(v->removing);
		v->removing = NULL;
		break;
	case ED_TRASH_ON:
		free(v->trash);
		v->trash = fmt("\t\tt%llu {\n\t\t\tname=\"old%u\"\n\t\t\tdev_id=%llu\n"
			       "\t\t\tsize=1073741824\n\t\t\tcreation_time=1796632737\n"
			       "\t\t\tread_only=0\n\t\t\ttrashed_at=1796632800\n\t\t}\n",
			       v->next_dev, serial, v->next_dev);
		v->next_dev++;
		break;
	case ED_TRASH_OFF:
		free(v->trash);
		v->trash = NULL;
		break;
	default:
		break;
	}
}

/* Each kind of edit, as one commit of a pool of 20,000 volumes: a delta
 * under 1 KiB (the text is 2.2 MB), and the text back exactly. */
static void test_vg_edits(void)
{
	struct vgt v;
	char *before, *after;
	size_t blen, nlen, dlen;

	vgt_init(&v, 20000);
	before = vgt_text(&v, &blen);
	CU_ASSERT(blen > 2000000);
	for (int kind = 0; kind < ED_KINDS; kind++) {
		vgt_edit(&v, (enum edit)kind, 10000 + (size_t)kind, (unsigned)kind);
		after = vgt_text(&v, &nlen);
		dlen = round_trip(before, blen, after, nlen);
		CU_ASSERT(dlen < 1024);
		if (dlen >= 1024)
			fprintf(stderr, "edit %d: a delta of %zu bytes\n", kind, dlen);
		free(before);
		before = after;
		blen = nlen;
	}
	free(before);
	vgt_free(&v);
}

/* Whether encoding BASE to NEW builds the far index (its debug line). */
static int builds_far(const char *base, size_t blen, const char *new, size_t nlen, size_t *dlen)
{
	static struct tp_log_capture cap;
	const char *was = getenv("TPTOOLS_DEBUG");
	char *keep = was ? strdup(was) : NULL;
	int far;

	setenv("TPTOOLS_DEBUG", "vg", 1);
	tp_log_init(NULL);
	cap.len = 0;
	cap.buf[0] = '\0';
	tp_log_capture(&cap);
	*dlen = round_trip(base, blen, new, nlen);
	tp_log_capture(NULL);
	far = strstr(cap.buf, "the far index") != NULL;
	if (keep)
		setenv("TPTOOLS_DEBUG", keep, 1);
	else
		unsetenv("TPTOOLS_DEBUG");
	free(keep);
	tp_log_init(NULL);
	return far;
}

/* A record is encoded from its slot's checkpoint, some commits back:
 * the header's lines and an entry near them changed since (a volume
 * renamed and back, the pool's seqno and thin ids), a volume added now.
 * Each difference is a line replaced with another within GOOD_COPY
 * bytes: the near search takes them in turn and never needs the far
 * index, whose pass over the whole base was the largest cost of a
 * commit at 20,000 volumes (the pass is what the debug line counts). */
static void test_vg_near_changes(void)
{
	struct vgt v;
	char *base, *now;
	size_t blen, nlen, dlen;

	vgt_init(&v, 20000);
	base = vgt_text(&v, &blen);
	vgt_edit(&v, ED_RENAME, 1, 1);
	vgt_edit(&v, ED_READ_ONLY, 3, 2);
	vgt_edit(&v, ED_CREATE, 0, 3);
	now = vgt_text(&v, &nlen);
	CU_ASSERT(!builds_far(base, blen, now, nlen, &dlen));
	CU_ASSERT(dlen < 1024);
	free(now);
	/* and the far index where it pays: a block of entries removed */
	for (int k = 0; k < 100; k++)
		vgt_remove(&v, 5000);
	now = vgt_text(&v, &nlen);
	CU_ASSERT(builds_far(base, blen, now, nlen, &dlen));
	CU_ASSERT(dlen < 2048);
	free(now);
	free(base);
	vgt_free(&v);
}

/* Blocks of adjacent entries removed or inserted in the middle (the far
 * index's case beyond a few entries): a delta of the inserted bytes and
 * under 1 KiB more. */
static void test_vg_blocks(void)
{
	static const unsigned counts[] = { 1, 5, 100 };
	struct vgt v;
	char *base, *now;
	size_t blen, nlen, dlen, added;

	vgt_init(&v, 20000);
	base = vgt_text(&v, &blen);
	for (size_t c = 0; c < TP_ARRAY_SIZE(counts); c++) {
		for (unsigned k = 0; k < counts[c]; k++)
			vgt_remove(&v, 10000);
		now = vgt_text(&v, &nlen);
		dlen = round_trip(base, blen, now, nlen);
		CU_ASSERT(dlen < 1024);
		if (dlen >= 1024)
			fprintf(stderr, "%u removed: a delta of %zu bytes\n", counts[c], dlen);
		free(now);
		vgt_free(&v);
		vgt_init(&v, 20000);
		added = 0;
		for (unsigned k = 0; k < counts[c]; k++) {
			char name[32];
			snprintf(name, sizeof(name), "mid%u", k);
			vgt_insert(&v, 10000, volume(name, 30000 + k, "", 2147483648ull, 0));
			added += strlen(v.ent[10000]);
		}
		now = vgt_text(&v, &nlen);
		dlen = round_trip(base, blen, now, nlen);
		CU_ASSERT(dlen < added + 1024);
		if (dlen >= added + 1024)
			fprintf(stderr, "%u inserted: a delta of %zu bytes\n", counts[c], dlen);
		free(now);
		vgt_free(&v);
		vgt_init(&v, 20000);
	}
	free(base);
	vgt_free(&v);
}

/* The journal's use: 100 commits each encoded from one checkpoint; the
 * delta grows with the edits, not with the text. */
static void test_vg_cumulative(void)
{
	struct vgt v;
	char *base, *now;
	size_t blen, nlen, dlen, edited = 0;
	uint64_t rs = 0x5eed0001;

	vgt_init(&v, 20000);
	base = vgt_text(&v, &blen);
	for (unsigned c = 1; c <= 100; c++) {
		enum edit kind = (enum edit)(tp_test_xorshift64(&rs) % ED_KINDS);
		size_t at = 100 + tp_test_xorshift64(&rs) % (v.n - 200);
		vgt_edit(&v, kind, at, c);
		now = vgt_text(&v, &nlen);
		/* an entry's worth of bytes and some ops each */
		edited += 160 + 64;
		dlen = round_trip(base, blen, now, nlen);
		CU_ASSERT(dlen <= edited);
		if (dlen > edited)
			fprintf(stderr, "commit %u: a delta of %zu bytes\n", c, dlen);
		free(now);
	}
	free(base);
	vgt_free(&v);
}

/* ---- random edits ---- */

static const char *const rep_lines[] = {
	"\t\t\tread_only=0\n", "\t\t}\n", "\t\t\torigin=\"\"\n", "\t\t\tsize=1073741824\n",
	"\t\t\tcreation_time=1796632737\n", "\n", "x", "\t\t\tread_only=1\n",
};

/* N bytes of text into T: random bytes (MODE 0), random lines of a
 * small alphabet (1), or a few lines repeated (2). */
static void rand_text(uint64_t *rs, char *t, size_t n, int mode)
{
	size_t at = 0;

	while (at < n) {
		uint64_t x = tp_test_xorshift64(rs);
		if (mode == 0) {
			t[at++] = (char)x;
		} else if (mode == 1) {
			t[at++] = x % 16 == 0 ? '\n' : (char)('a' + x % 5);
		} else {
			const char *l = rep_lines[x % TP_ARRAY_SIZE(rep_lines)];
			size_t k = strlen(l);
			if (x % 97 == 0) {
				t[at++] = (char)('0' + (x >> 8) % 10);
				continue;
			}
			k = k < n - at ? k : n - at;
			memcpy(t + at, l, k);
			at += k;
		}
	}
}

/* One random edit of T (*LEN bytes of CAP): insert, remove, replace,
 * copy or move a block. */
static void rand_edit(uint64_t *rs, char *t, size_t *len, size_t cap, int mode)
{
	uint64_t x = tp_test_xorshift64(rs);
	size_t n = *len, at = n ? tp_test_xorshift64(rs) % (n + 1) : 0;
	size_t k = 1 + tp_test_xorshift64(rs) % (x % 4 == 0 ? 2048 : 64), from;
	char *tmp;

	switch (x % 5) {
	case 0:	/* insert */
		if (k > cap - n)
			k = cap - n;
		memmove(t + at + k, t + at, n - at);
		rand_text(rs, t + at, k, mode);
		*len = n + k;
		break;
	case 1:	/* remove */
		k = k < n - at ? k : n - at;
		memmove(t + at, t + at + k, n - at - k);
		*len = n - k;
		break;
	case 2:	/* replace */
		k = k < n - at ? k : n - at;
		rand_text(rs, t + at, k, mode);
		break;
	case 3:	/* copy a block of the text to AT */
	case 4:	/* move it */
		if (!n)
			break;
		from = tp_test_xorshift64(rs) % n;
		k = k < n - from ? k : n - from;
		if (k > cap - n)
			k = cap - n;
		tmp = malloc(k + 1);
		CU_ASSERT_FATAL(tmp != NULL);
		memcpy(tmp, t + from, k);
		if (x % 5 == 4) {
			memmove(t + from, t + from + k, n - from - k);
			n -= k;
			at = at < n ? at : n;
		}
		memmove(t + at + k, t + at, n - at);
		memcpy(t + at, tmp, k);
		*len = n + k;
		free(tmp);
		break;
	}
}

static void test_random(void)
{
	enum { CAP = 1 << 16 };
	char *base = malloc(CAP), *new = malloc(CAP);
	uint64_t rs = 0x7470746f6f6c73;
	unsigned bad = 0;

	CU_ASSERT_FATAL(base && new);
	for (unsigned trial = 0; trial < 3000 && bad < 5; trial++) {
		int mode = (int)(trial % 3);
		size_t blen = tp_test_xorshift64(&rs) % (trial % 10 == 0 ? CAP / 2 : 4096);
		size_t nlen, edits = 1 + tp_test_xorshift64(&rs) % 12;

		rand_text(&rs, base, blen, mode);
		memcpy(new, base, blen);
		nlen = blen;
		for (size_t e = 0; e < edits; e++)
			rand_edit(&rs, new, &nlen, CAP, mode);
		if (round_trip(base, blen, new, nlen) == SIZE_MAX ||
		    round_trip(new, nlen, base, blen) == SIZE_MAX)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(base);
	free(new);
}

/* Thousands of identical lines: small deltas and no quadratic search (a
 * few changes in 20,000 lines of "\t\t\tread_only=0\n"). */
static void test_repetitive(void)
{
	static const char line[] = "\t\t\tread_only=0\n";
	size_t l = sizeof(line) - 1, lines = 20000, blen = l * lines, nlen;
	char *base = malloc(blen), *new = malloc(blen + 4096);

	CU_ASSERT_FATAL(base && new);
	for (size_t k = 0; k < lines; k++)
		memcpy(base + k * l, line, l);
	/* one line changed in the middle */
	memcpy(new, base, blen);
	new[10000 * l + 13] = '1';
	CU_ASSERT(round_trip(base, blen, new, blen) < 64);
	/* lines inserted in the middle, others near the end */
	memcpy(new, base, 5000 * l);
	nlen = 5000 * l;
	nlen += (size_t)sprintf(new + nlen, "\t\tvol {\n\t\t\tdev_id=7\n");
	memcpy(new + nlen, base + 5000 * l, 10000 * l);
	nlen += 10000 * l;
	nlen += (size_t)sprintf(new + nlen, "\t\t}\n");
	memcpy(new + nlen, base + 15000 * l, 5000 * l);
	nlen += 5000 * l;
	CU_ASSERT(round_trip(base, blen, new, nlen) < 128);
	/* half the lines removed */
	CU_ASSERT(round_trip(base, blen, base, blen / 2) < 16);
	/* and the base of another line entirely: one INSERT */
	CU_ASSERT(round_trip("\t\t}\n", 4, base, blen) <= blen + 16);
	free(base);
	free(new);
}

/* Blocks beyond the near search's reach: the far index finds them. */
static void test_far(void)
{
	size_t lines = 10000, blen = 0, nlen, half;
	char *base = malloc(lines * 24), *new = malloc(lines * 24);

	CU_ASSERT_FATAL(base && new);
	for (size_t k = 0; k < lines; k++)
		blen += (size_t)sprintf(base + blen, "line %zu of the base\n", k);
	/* the halves swapped */
	half = (size_t)(strstr(base, "line 5000 ") - base);
	memcpy(new, base + half, blen - half);
	memcpy(new + blen - half, base, half);
	CU_ASSERT(round_trip(base, blen, new, blen) < 64);
	/* 6000 lines removed from the middle */
	nlen = (size_t)(strstr(base, "line 2000 ") - base);
	memcpy(new, base, nlen);
	half = (size_t)(strstr(base, "line 8000 ") - base);
	memcpy(new + nlen, base + half, blen - half);
	nlen += blen - half;
	CU_ASSERT(round_trip(base, blen, new, nlen) < 64);
	free(base);
	free(new);
}

/* -E2BIG: nothing returned; the exact size fits. */
static void test_max(void)
{
	const char *a = "one\ntwo\nthree\n", *b = "zero\none\ntwo\nthree and more\n";
	void *d = (void *)1;
	size_t dlen = 7, need;

	CU_ASSERT_EQUAL(vg_delta_encode(a, strlen(a), b, strlen(b), NO_MAX, &d, &need), 0);
	free(d);
	for (size_t max = 0; max < need; max++) {
		d = (void *)1;
		dlen = 7;
		CU_ASSERT_EQUAL(vg_delta_encode(a, strlen(a), b, strlen(b), max, &d, &dlen), -E2BIG);
		CU_ASSERT(d == NULL && dlen == 0);
	}
	CU_ASSERT_EQUAL(vg_delta_encode(a, strlen(a), b, strlen(b), need, &d, &dlen), 0);
	CU_ASSERT_EQUAL(dlen, need);
	free(d);
}

/* ---- malformed deltas ---- */

struct db {
	unsigned char b[256];
	size_t n;
};

static void db_byte(struct db *d, unsigned c)
{
	d->b[d->n++] = (unsigned char)c;
}

static void db_varint(struct db *d, uint64_t v)
{
	do {
		db_byte(d, (unsigned)(v & 0x7f) | (v >> 7 ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void db_copy(struct db *d, uint64_t off, uint64_t n)
{
	db_byte(d, 'C');
	db_varint(d, off);
	db_varint(d, n);
}

static void db_insert(struct db *d, const char *s)
{
	db_byte(d, 'I');
	db_varint(d, strlen(s));
	memcpy(d->b + d->n, s, strlen(s));
	d->n += strlen(s);
}

static const char base16[] = "0123456789abcdef";

/* -EUCLEAN, nothing returned, one error logged that names WHAT. */
static void expect_bad(const void *d, size_t dlen, size_t limit, const char *what)
{
	struct tp_log_capture cap;
	unsigned errors = tp_log_error_count();
	char *t = (char *)1;
	size_t len = 7;

	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_delta_apply(base16, 16, d, dlen, limit, &t, &len), -EUCLEAN);
	tp_log_capture(NULL);
	CU_ASSERT(t == NULL && len == 0);
	CU_ASSERT_EQUAL(tp_log_error_count(), errors + 1);
	CU_ASSERT(what == NULL || strstr(cap.buf, what) != NULL);
	if (what && !strstr(cap.buf, what))
		fprintf(stderr, "wanted \"%s\" in: %s", what, cap.buf);
}

static void expect_good(const struct db *d, const char *want)
{
	char *t = NULL;
	size_t len = 0;

	CU_ASSERT_EQUAL_FATAL(vg_delta_apply(base16, 16, d->b, d->n, 64, &t, &len), 0);
	CU_ASSERT_EQUAL(len, strlen(want));
	CU_ASSERT_STRING_EQUAL(t, want);
	free(t);
}

static void test_malformed(void)
{
	struct db good = { .n = 0 }, d;

	/* 3456789ab + "xyz" + 0 + f: every kind, multi-byte fields */
	db_varint(&good, 14);
	db_copy(&good, 3, 9);
	db_insert(&good, "xyz");
	db_copy(&good, 0, 1);
	db_copy(&good, 15, 1);
	db_byte(&good, 'E');
	expect_good(&good, "3456789abxyz0f");
	/* each truncation */
	for (size_t k = 0; k < good.n; k++)
		expect_bad(good.b, k, 64, "VG delta");
	expect_bad(NULL, 0, 64, "result length");
	/* trailing bytes, a second end */
	d = good;
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "after its end");
	/* the limit: the text exactly fits, one byte less does not */
	{
		char *t = NULL;
		size_t len;
		CU_ASSERT_EQUAL(vg_delta_apply(base16, 16, good.b, good.n, 14, &t, &len), 0);
		free(t);
	}
	expect_bad(good.b, good.n, 13, "limit");
	/* COPY past the base: at its end, across it, offsets near 2^64 */
	static const uint64_t past[][2] = {
		{ 16, 1 }, { 15, 2 }, { 0, 17 }, { 17, 0 }, { UINT64_MAX, 1 }, { 1, UINT64_MAX },
		{ UINT64_MAX, UINT64_MAX },
	};
	for (size_t k = 0; k < TP_ARRAY_SIZE(past); k++) {
		d.n = 0;
		db_varint(&d, 14);
		db_copy(&d, past[k][0], past[k][1]);
		db_byte(&d, 'E');
		expect_bad(d.b, d.n, 64, "past the base");
	}
	/* zero lengths */
	d.n = 0;
	db_varint(&d, 1);
	db_copy(&d, 4, 0);
	db_copy(&d, 4, 1);
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "length 0");
	d.n = 0;
	db_varint(&d, 1);
	db_insert(&d, "");
	db_copy(&d, 4, 1);
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "length 0");
	/* an INSERT longer than the delta */
	d.n = 0;
	db_varint(&d, 100);
	db_byte(&d, 'I');
	db_varint(&d, 90);
	memset(d.b + d.n, 'q', 20);
	d.n += 20;
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 200, "past the delta");
	/* lengths that do not add up, both ways */
	d = good;
	d.b[0] = 15;
	expect_bad(d.b, d.n, 64, "not the 15");
	d.b[0] = 13;
	expect_bad(d.b, d.n, 64, "more than the 13");
	/* an unknown op, and no end */
	d = good;
	d.b[1] = 'X';
	expect_bad(d.b, d.n, 64, "unknown op 0x58");
	d = good;
	d.n--;
	expect_bad(d.b, d.n, 64, "no end");
	/* varints: 11 bytes; a 10th byte over 1; a redundant zero byte; 2^63
	 * in 10 bytes is well formed (a limit, not a varint, refuses it) */
	d.n = 0;
	for (int k = 0; k < 10; k++)
		db_byte(&d, 0x80);
	db_byte(&d, 0);
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "over 64 bits");
	d.n = 0;
	for (int k = 0; k < 9; k++)
		db_byte(&d, 0xff);
	db_byte(&d, 2);
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "over 64 bits");
	d.n = 0;
	db_varint(&d, 1ull << 63);
	db_byte(&d, 'E');
	CU_ASSERT_EQUAL(d.n, 11);
	expect_bad(d.b, d.n, 64, "limit");
	d.n = 0;
	db_byte(&d, 0x81);
	db_byte(&d, 0x00);
	db_copy(&d, 0, 1);
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "redundant zero");
	d.n = 0;
	db_varint(&d, 1);
	db_byte(&d, 'C');
	db_byte(&d, 0x80);
	db_byte(&d, 0x80);
	db_byte(&d, 0x00);
	db_varint(&d, 1);
	db_byte(&d, 'E');
	expect_bad(d.b, d.n, 64, "COPY offset");
	/* the empty text */
	d.n = 0;
	db_varint(&d, 0);
	db_byte(&d, 'E');
	expect_good(&d, "");
}

/* Every byte of real deltas replaced by a few values: 0 with a text in
 * the limit, or -EUCLEAN with one error; never anything else. */
static void test_mutated(void)
{
	static const unsigned char vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 'C', 'I', 'E' };
	const char *pairs[][2] = {
		{ "0123456789abcdef", "0123xyz456789abcdef\n0123" },
		{ "0123456789abcdef", "" },
		{ "0123456789abcdef", "fedcba9876543210fedcba9876543210" },
	};
	struct tp_log_capture cap;

	for (size_t p = 0; p < TP_ARRAY_SIZE(pairs); p++) {
		const char *nw = pairs[p][1];
		unsigned char *d;
		size_t dlen;

		CU_ASSERT_FATAL(vg_delta_encode(base16, 16, nw, strlen(nw), NO_MAX, (void **)&d,
						&dlen) == 0);
		for (size_t k = 0; k < dlen; k++) {
			unsigned char keep = d[k];
			for (size_t v = 0; v < sizeof(vals); v++) {
				unsigned errors = tp_log_error_count();
				char *t = NULL;
				size_t len = 0;
				int r;

				d[k] = vals[v];
				tp_log_capture(&cap);
				int rv;

				r = vg_delta_apply(base16, 16, d, dlen, 64, &t, &len);
				/* verify agrees: the text apply made; where apply
				 * refused, malformed (logged) or, past apply's
				 * limit, another text */
				rv = vg_delta_verify(base16, 16, d, dlen, r ? nw : t,
						     r ? strlen(nw) : len);
				CU_ASSERT(r ? rv == -EUCLEAN || rv == -EILSEQ : rv == 0);
				tp_log_capture(NULL);
				CU_ASSERT(r == 0 || r == -EUCLEAN);
				CU_ASSERT_EQUAL(tp_log_error_count(),
						errors + (r ? 1 : 0) + (rv == -EUCLEAN));
				CU_ASSERT(r || (len <= 64 && t && t[len] == '\0'));
				free(t);
			}
			d[k] = keep;
		}
		free(d);
	}
}

/* tp_alloc_class (lib/base/compiler.h), the size vg_delta_apply and the
 * VG readers ask malloc for: never less than the size given, whatever the
 * size (a result length from a record's header near SIZE_MAX wrapped to 0
 * would be a buffer of nothing written whole), and the same class for each
 * size of a class. */
static void test_alloc_class(void)
{
	static const size_t big[] = { SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 4096,
				      SIZE_MAX / 2 + 2, SIZE_MAX - SIZE_MAX / 16 };
	size_t prev = 0;

	for (size_t n = 0; n < ((size_t)1 << 22); n++) {
		size_t a = tp_alloc_class(n);

		if (a < n || a < prev) {
			CU_FAIL("a class below its size, or a smaller one for a larger size");
			return;
		}
		prev = a;
	}
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		CU_ASSERT(tp_alloc_class(big[i]) >= big[i]);
}

TP_TEST_SUITE(vg_delta, NULL, NULL, { "empty, equal, disjoint, binary", test_basic },
	      { "each edit of a commit at 20000 volumes", test_vg_edits },
	      { "a checkpoint's lines changed near each other", test_vg_near_changes },
	      { "blocks of entries removed or inserted", test_vg_blocks },
	      { "100 commits from one checkpoint", test_vg_cumulative },
	      { "random edits", test_random }, { "thousands of identical lines", test_repetitive },
	      { "blocks moved or removed far", test_far }, { "-E2BIG at a small max", test_max },
	      { "malformed deltas", test_malformed }, { "mutated deltas", test_mutated },
	      { "an allocation class never below its size", test_alloc_class })
