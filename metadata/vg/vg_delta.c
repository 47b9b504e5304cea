/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_delta.c - a VG text as the change from another. See vg_delta.h.
 *
 * A delta, as vg_delta_encode writes it and vg_delta_apply reads it:
 *
 *   size    field
 *   varint  result_len   bytes of the text the delta makes
 *   ...     ops          in order, each writing the next bytes of that text
 *   1       end          'E' (0x45); no byte may follow it
 *
 * An op is a kind byte and its fields:
 *
 *   1       'C' (0x43)   COPY: the bytes base[offset, offset + length)
 *   varint  offset       <= the base's length
 *   varint  length       >= 1, offset + length <= the base's length
 *
 *   1       'I' (0x49)   INSERT: bytes the base does not give
 *   varint  length       >= 1
 *   length  bytes        the bytes themselves
 *
 * A varint is unsigned LEB128: 7 bits a byte, the least significant
 * first, the top bit of a byte set when another byte follows. At most 10
 * bytes and below 2^64 (a 10th byte above 1 overflows); no zero byte ends
 * one of several bytes, so that a value has one form. The ops' lengths
 * add up to result_len. Anything else (another kind byte, a field cut
 * short by the end of the delta, an op past the base or past result_len,
 * a length of 0, bytes after the end) is a malformed delta: -EUCLEAN.
 *
 * The encoder walks NEW from the front, extending each COPY as far as
 * the texts agree (match_len: memcmp in blocks growing to 4 KiB). Where
 * they part, it looks for a place where they meet again at the start of
 * a line of each (a segment: a line, or SEG_MAX bytes of a longer one;
 * segments are found again by a hash of their length and first and last
 * 16 bytes). Every candidate is weighed by memcmp (weigh_pair): a COPY
 * needs MIN_COPY equal bytes, or END_COPY to NEW's end, so that a hash
 * collision costs size, never a wrong byte; one of GOOD_COPY bytes, or to
 * NEW's end, is good. What lies between is an INSERT.
 *
 * First near (search_near): the segments that follow in both texts, one
 * more of each a step, each kept in a small table of its side and looked
 * up in the other's, so that pairs come nearest first. It takes the next
 * segment of both (a line replaced) or a good pair, and goes on twice as
 * far for one when the first it finds is not good: after an entry
 * removed, the next entry's repeated lines ("size=...") pair with the
 * removed one's, a whole entry off, and taking that would leave every
 * entry after it off. A pair of segment d of both sides (d lines replaced
 * by d others) is kept aside, the search then going on to its end for a
 * good pair: when the COPY of the diagonal pair ends before the good one
 * starts, on both sides, the diagonal pair is taken first (a few lines
 * replaced, and another change within GOOD_COPY bytes, as a record's
 * checkpoint some commits old differs from the text in its header and
 * in an entry near it), and when nothing is found after it either. That
 * settles the edits of VG commits: a few lines of the pool's header, an
 * entry added at the end, one removed, renamed or changed. When nothing
 * good is near (NEAR_LINES segments or
 * NEAR_BYTES bytes of each side; a block of several entries removed or
 * inserted, text moved back), the far index of every segment of BASE
 * (far_build, once; then search_far for the rest): for each segment of
 * NEW in turn, the first place of an equal one in BASE at or after the
 * current place, else the last before it: a unique line (dev_id=...)
 * finds its place wherever it is, so that what repeated lines put a whole
 * entry off is put right at the next one. The far index is not
 * built for less than FAR_AFTER bytes left, nor when the near search saw
 * all the rest of both texts and no pair in it (lines appended: it could
 * only find pieces of old entries).
 *
 * Cost, in bytes compared or hashed: a COPY its length (memcmp speed); a
 * near search, at most 2 * SEG_MAX bytes a step (a segment of each side)
 * and GOOD_COPY bytes for each of at most NEAR_TRIES pairs weighed; the
 * base side moves only forward in that mode, and a step passes a segment
 * that the search's result inserts or skips, or ends it in the far mode;
 * the far index, one pass over BASE and O(its segments) of memory; then
 * each segment of NEW that differs is looked up once (a binary search
 * among the places of equal segments: 20,000 "read_only=0" lines cost 15
 * steps), and a candidate refused compares fewer than MIN_COPY bytes. */
#include "metadata/vg/vg_delta.h"

#include "lib/base/compiler.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
	OP_COPY = 'C',
	OP_INSERT = 'I',
	OP_END = 'E',
};

#define VARINT_MAX 10		/* bytes of the longest varint (64 bits) */
#define SEG_MAX 256		/* a segment: a line, or this much of a longer one */
#define MIN_COPY 32		/* the shortest COPY taken (except to NEW's end) */
#define END_COPY 8		/* the shortest COPY to NEW's end */
#define NEAR_LINES 2048		/* segments the near search passes on each side */
#define NEAR_BYTES (64u << 10)	/* bytes the same */
#define NEAR_SLOTS (2 * NEAR_LINES)
#define NEAR_TRIES 64		/* pairs the near search weighs */
#define GOOD_COPY 1024		/* a COPY this long is taken at once */
/* Left after a failed near search, fewer bytes of NEW than this are
 * inserted rather than worth an index of the whole base. */
#define FAR_AFTER 1024

/* ---- the encoding's output ---- */

struct out {
	unsigned char *buf;
	size_t len, cap, max;
	int err;		/* -E2BIG or -ENOMEM, and nothing more is written */
};

static int out_room(struct out *o, size_t n)
{
	size_t need, cap;
	unsigned char *nb;

	if (o->err)
		return -1;
	if (n > o->max - o->len) {
		o->err = -E2BIG;
		return -1;
	}
	need = o->len + n;
	if (need <= o->cap)
		return 0;
	cap = o->cap > SIZE_MAX / 2 ? SIZE_MAX : o->cap * 2;
	if (cap < 256)
		cap = 256;
	if (cap > o->max)
		cap = o->max;
	if (cap < need)
		cap = need;
	nb = realloc(o->buf, cap);
	if (!nb) {
		o->err = -ENOMEM;
		return -1;
	}
	o->buf = nb;
	o->cap = cap;
	return 0;
}

static void out_bytes(struct out *o, const void *p, size_t n)
{
	if (n && !out_room(o, n)) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
	}
}

static void out_varint(struct out *o, uint64_t v)
{
	unsigned char b[VARINT_MAX];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		b[n] |= v ? 0x80 : 0;
		n++;
	} while (v);
	out_bytes(o, b, n);
}

static void out_kind(struct out *o, unsigned char kind)
{
	out_bytes(o, &kind, 1);
}

static void out_insert(struct out *o, const unsigned char *p, size_t n)
{
	if (!n)
		return;
	out_kind(o, OP_INSERT);
	out_varint(o, n);
	out_bytes(o, p, n);
}

static void out_copy(struct out *o, size_t off, size_t n)
{
	out_kind(o, OP_COPY);
	out_varint(o, off);
	out_varint(o, n);
}

/* ---- what the encoder compares ---- */

/* How many bytes A and B (N each at most) agree from their start. */
static size_t match_len(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t k = 0, step = 32;
	uint64_t x, y;

	/* most candidates part within a few words: no call for those */
	for (; k + 8 <= n && k < 32; k += 8) {
		memcpy(&x, a + k, 8);
		memcpy(&y, b + k, 8);
		if (x != y)
			goto bytes;
	}
	while (n - k >= step && !memcmp(a + k, b + k, step)) {
		k += step;
		if (step < 4096)
			step *= 2;
	}
	for (; k + 8 <= n; k += 8) {
		memcpy(&x, a + k, 8);
		memcpy(&y, b + k, 8);
		if (x != y)
			break;
	}
bytes:
	while (k < n && a[k] == b[k])
		k++;
	return k;
}

/* 8 bytes of P as a number, P[0] its lowest byte on any host. */
static uint64_t load_le(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9fb21c651e98df25ull;
	return h ^ (h >> 29);
}

/* The segment of T (N bytes) that starts at P < N: its end, and its hash
 * in *H: of its length and of its first and last 16 bytes as numbers of
 * 8 (load_le), so that a segment costs about the same whatever its
 * length. Segments that differ only past their 16th byte and before
 * their last 16 share a hash: a candidate then fails its memcmp (a
 * little size, never a wrong byte). */
static size_t seg_next(const unsigned char *t, size_t p, size_t n, uint64_t *h)
{
	const unsigned char *s = t + p, *nl;
	size_t len = n - p < SEG_MAX ? n - p : SEG_MAX;
	uint64_t x, w = 0;

	nl = memchr(s, '\n', len);
	if (nl)
		len = (size_t)(nl - s) + 1;
	x = 0x6a09e667f3bcc909ull ^ len;
	if (len >= 8) {
		x = mix(x, load_le(s));
		if (len > 8)
			x = mix(x, load_le(s + len - 8));
		if (len > 16)
			x = mix(x, load_le(s + 8));
		if (len > 24)
			x = mix(x, load_le(s + len - 16));
	} else {
		for (size_t k = len; k-- > 0;)
			w = w << 8 | s[k];
		x = mix(x, w);
	}
	x *= 0xc2b2ae3d27d4eb4full;
	*h = x ^ (x >> 32);
	return p + len;
}

/* The first start of a line of T (N bytes) at or after P. */
static size_t line_start(const unsigned char *t, size_t p, size_t n)
{
	const unsigned char *q;

	if (p >= n)
		return n;
	if (!p || t[p - 1] == '\n')
		return p;
	q = memchr(t + p, '\n', n - p);
	return q ? (size_t)(q - t) + 1 : n;
}

/* ---- the encoder ---- */

struct seg {
	size_t at, len;
	uint64_t h;
};

/* a small hash table of the near search: a segment's hash -> the first
 * of its side's segments with it; a slot is in use when its gen is the
 * table's */
struct near_slot {
	uint64_t h;
	uint32_t idx, gen;
};

struct enc {
	const unsigned char *base, *new;
	size_t blen, nlen;
	struct out o;
	/* the near search's segments and tables of each side */
	struct seg *nseg, *bseg;
	struct near_slot *nslot, *bslot;
	uint32_t gen;
	/* the far index (far_built): each distinct segment of the base a
	 * key k, found by its hash in fslot_h[] with k + 1 in fslot_key[];
	 * the places of key k, ascending, at fpos[fstart[k + 1] ..
	 * fstart[k + 2]) */
	int far_built;
	uint64_t *fslot_h;
	uint32_t *fslot_key;	/* 0: a free slot */
	size_t fmask;
	uint32_t *fstart;
	size_t *fpos;
};

/* A resync: NEW from J and BASE from L agree for LEN bytes. */
struct hit {
	size_t j, l, len;
};

/* How NEW from J and BASE from L agree, as a COPY: 0 too short for one,
 * 1 a COPY, 2 a good one (GOOD_COPY bytes, or to NEW's end); *HIT its
 * place and whole length. Past GOOD_COPY bytes only a good one is
 * compared, so that weighing a candidate costs little. */
static int weigh_pair(const struct enc *e, size_t j, size_t l, struct hit *hit)
{
	size_t room = e->nlen - j < e->blen - l ? e->nlen - j : e->blen - l;
	size_t n = match_len(e->new + j, e->base + l, room < GOOD_COPY ? room : GOOD_COPY);

	if (n == GOOD_COPY)
		n += match_len(e->new + j + n, e->base + l + n, room - n);
	hit->j = j;
	hit->l = l;
	hit->len = n;
	if (j + n == e->nlen)
		return n >= END_COPY ? 2 : 0;
	return n >= GOOD_COPY ? 2 : n >= MIN_COPY;
}

/* The first segment of a near table with hash H, or -1. */
static int64_t near_find(const struct near_slot *t, uint32_t gen, uint64_t h)
{
	size_t s = (size_t)h & (NEAR_SLOTS - 1);

	for (; t[s].gen == gen; s = (s + 1) & (NEAR_SLOTS - 1))
		if (t[s].h == h)
			return t[s].idx;
	return -1;
}

/* Segment IDX with hash H, unless an earlier one has H. */
static void near_add(struct near_slot *t, uint32_t gen, uint64_t h, uint32_t idx)
{
	size_t s = (size_t)h & (NEAR_SLOTS - 1);

	for (; t[s].gen == gen; s = (s + 1) & (NEAR_SLOTS - 1))
		if (t[s].h == h)
			return;
	t[s].gen = gen;
	t[s].h = h;
	t[s].idx = idx;
}

static int near_alloc(struct enc *e)
{
	e->nseg = malloc(NEAR_LINES * sizeof(*e->nseg));
	e->bseg = malloc(NEAR_LINES * sizeof(*e->bseg));
	e->nslot = calloc(NEAR_SLOTS, sizeof(*e->nslot));
	e->bslot = calloc(NEAR_SLOTS, sizeof(*e->bslot));
	return e->nseg && e->bseg && e->nslot && e->bslot ? 0 : -ENOMEM;
}

/* The next segment of a side of the near search, at *P of T (N bytes):
 * kept as segment IDX of SEGS and in the side's table. */
static const struct seg *near_next(struct enc *e, const unsigned char *t, size_t n, size_t *p,
				   struct seg *segs, struct near_slot *slots, uint32_t idx)
{
	struct seg *s = &segs[idx];

	s->at = *p;
	*p = seg_next(t, *p, n, &s->h);
	s->len = *p - s->at;
	near_add(slots, e->gen, s->h, idx);
	return s;
}

/* Whether the COPY of DIAG ends before GOOD starts, on both sides: both
 * can be taken, DIAG first. */
static int chain(const struct hit *diag, const struct hit *good)
{
	return diag->len && diag->j + diag->len <= good->j && diag->l + diag->len <= good->l;
}

/* Where the texts meet again after I in NEW and B in BASE, near: 2 and
 * *HIT for a good pair (weigh_pair) or the next segment of both sides (a
 * line replaced); 1 and the longest pair found when none is good; 0 when
 * none is a COPY. Step d takes segment d of each side and looks it up
 * among the other side's 0..d, so that pairs come in the order of the
 * farther of the two. The first pair is seldom the right one when it is
 * not good (after an entry removed, its repeated lines - "size=..." -
 * pair with the next entry's, a whole entry off, and so on for every
 * entry after): the search goes on up to twice as far and 32 steps more
 * for a good one (to its end once it has a diagonal pair: see the top of
 * this file), weighing NEAR_TRIES pairs at most. *ALL: whether it saw
 * all the rest of both texts. */
static int search_near(struct enc *e, size_t i, size_t b, struct hit *hit, int *all)
{
	size_t np = line_start(e->new, i, e->nlen), bp = line_start(e->base, b, e->blen);
	size_t nbytes = 0, bbytes = 0;
	uint32_t nn = 0, nb = 0, d, limit = NEAR_LINES, tries = 0;
	const struct seg *s;
	struct hit h, best = { 0, 0, 0 }, diag = { 0, 0, 0 };
	int64_t k;
	int w;

	if (++e->gen == 0) {	/* after 2^32 searches: every slot stale */
		memset(e->nslot, 0, NEAR_SLOTS * sizeof(*e->nslot));
		memset(e->bslot, 0, NEAR_SLOTS * sizeof(*e->bslot));
		e->gen = 1;
	}
	*all = 0;
	for (d = 0; d < (diag.len ? NEAR_LINES : limit) && tries < NEAR_TRIES; d++) {
		int more = 0;

		for (int side = 0; side < 2; side++) {
			if (!side && np < e->nlen && nbytes < NEAR_BYTES) {
				s = near_next(e, e->new, e->nlen, &np, e->nseg, e->nslot, nn++);
				nbytes += s->len;
				k = near_find(e->bslot, e->gen, s->h);
				w = k >= 0 ? weigh_pair(e, s->at, e->bseg[k].at, &h) : -1;
			} else if (side && bp < e->blen && bbytes < NEAR_BYTES) {
				s = near_next(e, e->base, e->blen, &bp, e->bseg, e->bslot, nb++);
				bbytes += s->len;
				k = near_find(e->nslot, e->gen, s->h);
				w = k >= 0 ? weigh_pair(e, e->nseg[k].at, s->at, &h) : -1;
			} else {
				continue;
			}
			more = 1;
			/* segment d of both sides pair: d lines replaced by d
			 * others, as a commit changes a few lines of the
			 * pool's header or of one entry (near_find finds
			 * only the first of equal segments: looked at here) */
			if (side && !diag.len && nn > d && nb - 1 == d && e->nseg[d].h == s->h) {
				struct hit dh;
				int dw = weigh_pair(e, e->nseg[d].at, s->at, &dh);

				if (dw == 2) {
					*hit = dh;
					return 2;
				}
				if (dw)
					diag = dh;
			}
			if (w < 0)
				continue;
			tries++;
			/* at step 0 only the base's side finds a pair: both
			 * next segments, a line replaced */
			if (w == 2 || (w && !d)) {
				*hit = chain(&diag, &h) ? diag : h;
				return 2;
			}
			if (w && h.len > best.len) {
				if (!best.len && 2 * d + 32 < limit)
					limit = 2 * d + 32;
				best = h;
			}
		}
		if (!more) {
			*all = np >= e->nlen && bp >= e->blen;
			break;
		}
	}
	/* no good pair near: a diagonal pair when nothing follows */
	if (diag.len && *all) {
		*hit = diag;
		return 2;
	}
	*hit = best;
	return best.len ? 1 : 0;
}

/* The far index's table, twice as big. */
static int far_grow(struct enc *e)
{
	size_t n = 2 * (e->fmask + 1), s, k;
	uint64_t *h = malloc(n * sizeof(*h));
	uint32_t *key = calloc(n, sizeof(*key));

	if (!h || !key) {
		free(h);
		free(key);
		return -ENOMEM;
	}
	for (k = 0; k <= e->fmask; k++) {
		if (!e->fslot_key[k])
			continue;
		for (s = e->fslot_h[k] & (n - 1); key[s]; s = (s + 1) & (n - 1))
			;
		h[s] = e->fslot_h[k];
		key[s] = e->fslot_key[k];
	}
	free(e->fslot_h);
	free(e->fslot_key);
	e->fslot_h = h;
	e->fslot_key = key;
	e->fmask = n - 1;
	return 0;
}

/* The key of a segment of the base with hash H (a new one when no
 * segment had H), or -1 when the table could not grow. */
static int64_t far_key(struct enc *e, uint64_t h, uint32_t *nkeys)
{
	size_t s;

	if (2 * ((size_t)*nkeys + 1) > e->fmask + 1 && far_grow(e))
		return -1;
	for (s = h & e->fmask; e->fslot_key[s] && e->fslot_h[s] != h; s = (s + 1) & e->fmask)
		;
	if (!e->fslot_key[s]) {
		e->fslot_h[s] = h;
		e->fslot_key[s] = ++*nkeys;
	}
	return e->fslot_key[s] - 1;
}

/* The far index of every segment of the base (struct enc). */
static int far_build(struct enc *e)
{
	size_t cap = e->blen / 16 + 16, nseg = 0, p, i, slots = 64;
	size_t *at = malloc(cap * sizeof(*at)), *nat;
	uint32_t *key = malloc(cap * sizeof(*key)), *nkey, nkeys = 0;
	uint64_t h;
	int64_t k;
	int r = -ENOMEM;

	while (slots < e->blen / 32)
		slots *= 2;
	e->fmask = slots - 1;
	e->fslot_h = malloc(slots * sizeof(*e->fslot_h));
	e->fslot_key = calloc(slots, sizeof(*e->fslot_key));
	if (!at || !key || !e->fslot_h || !e->fslot_key)
		goto out;
	for (p = 0; p < e->blen && nseg < UINT32_MAX - 2; nseg++) {
		if (nseg == cap) {
			cap *= 2;
			nat = realloc(at, cap * sizeof(*at));
			if (nat)
				at = nat;
			nkey = realloc(key, cap * sizeof(*key));
			if (nkey)
				key = nkey;
			if (!nat || !nkey)
				goto out;
		}
		at[nseg] = p;
		p = seg_next(e->base, p, e->blen, &h);
		k = far_key(e, h, &nkeys);
		if (k < 0)
			goto out;
		key[nseg] = (uint32_t)k;
	}
	e->fstart = calloc((size_t)nkeys + 2, sizeof(*e->fstart));
	e->fpos = malloc((nseg ? nseg : 1) * sizeof(*e->fpos));
	if (!e->fstart || !e->fpos)
		goto out;
	/* counts of key k in fstart[k + 1], then the end of its places
	 * there; filled from the last segment back, that ends as their
	 * start, and fstart[k + 2] (key k + 1's start, or nseg) as their end */
	for (i = 0; i < nseg; i++)
		e->fstart[key[i] + 1]++;
	for (i = 1; i <= nkeys; i++)
		e->fstart[i] += e->fstart[i - 1];
	e->fstart[nkeys + 1] = (uint32_t)nseg;
	for (i = nseg; i-- > 0;)
		e->fpos[--e->fstart[key[i] + 1]] = at[i];
	e->far_built = 1;
	log_debug(TP_DBG_VG, "VG delta: the far index of %zu segments of the base (%zu bytes)",
		  nseg, e->blen);
	r = 0;
out:
	free(at);
	free(key);
	return r;
}

/* The first segment at or after I in NEW that the base holds too, where
 * the texts agree from: the base's first place with it at or after B,
 * else its last before B. 1 and *HIT, or 0. */
static int search_far(const struct enc *e, size_t i, size_t b, struct hit *hit)
{
	size_t p, end, s, lo, hi, m;
	uint64_t h;

	for (p = line_start(e->new, i, e->nlen); p < e->nlen; p = end) {
		end = seg_next(e->new, p, e->nlen, &h);
		for (s = h & e->fmask; e->fslot_key[s] && e->fslot_h[s] != h; s = (s + 1) & e->fmask)
			;
		if (!e->fslot_key[s])
			continue;
		lo = e->fstart[e->fslot_key[s]];
		hi = e->fstart[e->fslot_key[s] + 1];
		while (lo < hi) {
			m = lo + (hi - lo) / 2;
			if (e->fpos[m] < b)
				lo = m + 1;
			else
				hi = m;
		}
		if (lo < e->fstart[e->fslot_key[s] + 1] && weigh_pair(e, p, e->fpos[lo], hit))
			return 1;
		if (lo > e->fstart[e->fslot_key[s]] && weigh_pair(e, p, e->fpos[lo - 1], hit))
			return 1;
	}
	return 0;
}

int vg_delta_encode(const char *base, size_t blen, const char *new, size_t nlen, size_t max,
		    void **out, size_t *out_len)
{
	struct enc e = {
		.base = (const unsigned char *)base,
		.new = (const unsigned char *)new,
		.blen = blen,
		.nlen = nlen,
		.o = { .max = max },
	};
	size_t i = 0, b = 0, ins = 0;
	struct hit hit;
	int found, all, r;

	*out = NULL;
	*out_len = 0;
	out_varint(&e.o, nlen);
	/* the common start, however short: the search goes on from the
	 * line after it, where a line replaced meets again */
	i = nlen && blen ? match_len(e.new, e.base, nlen < blen ? nlen : blen) : 0;
	if (i >= END_COPY) {
		out_copy(&e.o, 0, i);
		b = ins = i;
	} else {
		i = 0;
	}
	while (i < nlen && !e.o.err) {
		if (e.far_built) {
			found = search_far(&e, i, b, &hit);
		} else {
			if (!e.nseg && near_alloc(&e)) {
				e.o.err = -ENOMEM;
				break;
			}
			found = search_near(&e, i, b, &hit, &all);
			/* nothing good near: the far index, unless little is
			 * left, or the near search saw all the rest of both
			 * texts and no pair in it (lines appended at the end) */
			if (found < 2 && !(all && !found) && nlen - i >= FAR_AFTER &&
			    blen >= MIN_COPY) {
				struct hit near = hit;
				if (far_build(&e)) {
					e.o.err = -ENOMEM;
					break;
				}
				if (search_far(&e, i, b, &hit))
					found = 1;
				else
					hit = near;
			}
		}
		if (!found)
			break;
		if (hit.j > ins)
			out_insert(&e.o, e.new + ins, hit.j - ins);
		out_copy(&e.o, hit.l, hit.len);
		i = ins = hit.j + hit.len;
		b = hit.l + hit.len;
	}
	if (nlen > ins)
		out_insert(&e.o, e.new + ins, nlen - ins);
	out_kind(&e.o, OP_END);
	r = e.o.err;
	free(e.nseg);
	free(e.bseg);
	free(e.nslot);
	free(e.bslot);
	free(e.fslot_h);
	free(e.fslot_key);
	free(e.fstart);
	free(e.fpos);
	if (r) {
		free(e.o.buf);
		return r;
	}
	*out = e.o.buf;
	*out_len = e.o.len;
	return 0;
}

/* ---- the reader ---- */

struct rd {
	const unsigned char *d;
	size_t len, at;		/* the delta, its length, the next byte read */
};

/* The varint at R's byte (the field WHAT) in *V. */
static int get_varint(struct rd *r, const char *what, uint64_t *v)
{
	size_t start = r->at, n;
	uint64_t x = 0;
	unsigned char c;

	for (n = 0;; n++) {
		if (r->at >= r->len) {
			log_error("VG delta of %zu bytes: the %s at byte %zu is cut short by its end",
				  r->len, what, start);
			return -EUCLEAN;
		}
		c = r->d[r->at++];
		if (n == VARINT_MAX - 1 && c > 1) {
			log_error("VG delta: the %s at byte %zu is over 64 bits or longer than %d bytes",
				  what, start, VARINT_MAX);
			return -EUCLEAN;
		}
		x |= (uint64_t)(c & 0x7f) << (7 * n);
		if (!(c & 0x80))
			break;
	}
	if (n && !c) {
		log_error("VG delta: the %s at byte %zu ends in a redundant zero byte", what, start);
		return -EUCLEAN;
	}
	*v = x;
	return 0;
}

/* The varint at R's byte, once check_ops has found it whole. */
static uint64_t read_varint(struct rd *r)
{
	uint64_t x = 0;
	unsigned sh = 0;
	unsigned char c;

	do {
		c = r->d[r->at++];
		x |= (uint64_t)(c & 0x7f) << sh;
		sh += 7;
	} while (c & 0x80);
	return x;
}

/* Check every op of the delta R (after its result length, RESULT): 0 or
 * -EUCLEAN, logged. */
static int check_ops(struct rd *r, size_t blen, uint64_t result)
{
	uint64_t made = 0, off, n;
	size_t op;
	int kind;

	for (;;) {
		op = r->at;
		if (r->at >= r->len) {
			log_error("VG delta of %zu bytes: no end op (0x%02x) after its last op",
				  r->len, OP_END);
			return -EUCLEAN;
		}
		kind = r->d[r->at++];
		if (kind == OP_END)
			break;
		if (kind == OP_COPY) {
			if (get_varint(r, "COPY offset", &off) || get_varint(r, "COPY length", &n))
				return -EUCLEAN;
			if (off > blen || n > blen - off) {
				log_error("VG delta: the COPY at byte %zu of %llu bytes from base byte "
					  "%llu runs past the base's %zu bytes", op,
					  (unsigned long long)n, (unsigned long long)off, blen);
				return -EUCLEAN;
			}
		} else if (kind == OP_INSERT) {
			if (get_varint(r, "INSERT length", &n))
				return -EUCLEAN;
			if (n > r->len - r->at) {
				log_error("VG delta: the INSERT at byte %zu of %llu bytes runs past the "
					  "delta's %zu bytes", op, (unsigned long long)n, r->len);
				return -EUCLEAN;
			}
			r->at += n;
		} else {
			log_error("VG delta: unknown op 0x%02x at byte %zu", kind, op);
			return -EUCLEAN;
		}
		if (!n) {
			log_error("VG delta: the %s at byte %zu has length 0",
				  kind == OP_COPY ? "COPY" : "INSERT", op);
			return -EUCLEAN;
		}
		if (n > result - made) {
			log_error("VG delta: the op at byte %zu makes more than the %llu bytes the "
				  "delta says", op, (unsigned long long)result);
			return -EUCLEAN;
		}
		made += n;
	}
	if (r->at != r->len) {
		log_error("VG delta: %zu bytes after its end op at byte %zu", r->len - r->at,
			  r->at - 1);
		return -EUCLEAN;
	}
	if (made != result) {
		log_error("VG delta: its ops make %llu bytes, not the %llu it says",
			  (unsigned long long)made, (unsigned long long)result);
		return -EUCLEAN;
	}
	return 0;
}

int vg_delta_apply(const char *base, size_t blen, const void *d, size_t dlen, size_t limit,
		   char **text, size_t *len)
{
	struct rd r = { .d = d, .len = dlen };
	uint64_t result, off, n;
	size_t at = 0;
	char *t;
	int kind;

	*text = NULL;
	*len = 0;
	if (get_varint(&r, "result length", &result))
		return -EUCLEAN;
	if (result > limit || result >= SIZE_MAX) {
		log_error("VG delta: a text of %llu bytes, more than the limit of %zu",
			  (unsigned long long)result, limit);
		return -EUCLEAN;
	}
	if (check_ops(&r, blen, result))
		return -EUCLEAN;
	t = malloc(tp_alloc_class((size_t)result + 1));
	if (!t)
		return -ENOMEM;
	/* checked: every field is whole and in bounds */
	r.at = 0;
	(void)read_varint(&r);
	while ((kind = r.d[r.at++]) != OP_END) {
		if (kind == OP_COPY) {
			off = read_varint(&r);
			n = read_varint(&r);
			memcpy(t + at, base + off, n);
		} else {
			n = read_varint(&r);
			memcpy(t + at, r.d + r.at, n);
			r.at += n;
		}
		at += n;
	}
	t[at] = '\0';
	*text = t;
	*len = at;
	return 0;
}

int vg_delta_verify(const char *base, size_t blen, const void *d, size_t dlen, const char *text,
		    size_t len)
{
	struct rd r = { .d = d, .len = dlen };
	uint64_t result, off, n;
	size_t at = 0;
	int kind;

	if (get_varint(&r, "result length", &result))
		return -EUCLEAN;
	if (check_ops(&r, blen, result))
		return -EUCLEAN;
	if (result != len)
		return -EILSEQ;
	/* checked: every field is whole and in bounds, and they make LEN */
	r.at = 0;
	(void)read_varint(&r);
	while ((kind = r.d[r.at++]) != OP_END) {
		const char *from;

		if (kind == OP_COPY) {
			off = read_varint(&r);
			n = read_varint(&r);
			from = base + off;
		} else {
			n = read_varint(&r);
			from = (const char *)r.d + r.at;
			r.at += n;
		}
		if (memcmp(text + at, from, n))
			return -EILSEQ;
		at += n;
	}
	return 0;
}
