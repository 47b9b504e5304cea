/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_sm.c - the checker's own reading of both space maps (format doc
 * section 4), streamed one bitmap at a time so that memory does not grow
 * with the data device: the index (metadata: the index block; data: the
 * index btree), the reference-count overflow tree (validated when loaded,
 * then read again in key order alongside the bitmaps), then every bitmap
 * (checksum, own block number) decoded and compared with the expected
 * counts as it is read. The trees are read with the pdata cursor
 * (btree_cursor.h), which judges every node with btree_node_check().
 *
 * Findings: an unreadable index, overflow tree or bitmap is fatal; a count
 * that differs is fatal unless the block is merely leaked (counted, not
 * referenced: non-fatal); nr_allocated, nr_free and none_free_before that
 * disagree with the bitmaps are non-fatal (they only steer allocation).
 * Accepted conventions: nr_free over all 16320 entries (kernel) or up to
 * the end of the device (thin_restore 0.9.0), and thin_restore's one
 * freed scratch metadata block still counted (format doc 10.6). */
#include "metadata/thin/check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/pdata/btree_cursor.h"
#include "lib/base/le.h"

#include <stdint.h>

static const char *sm_name(int data)
{
	return data ? "data" : "metadata";
}

/* What a copy of a block must be to be taken from a mirror's leg: a btree
 * node (SALT 0), else a block with that header's salt. */
static int meta_ok(const void *n, uint64_t b, void *salt)
{
	uint32_t s = (uint32_t)(uintptr_t)salt;

	return s ? bm_header_valid(n, b, s) : !btree_node_check(n, b, 0, 0, NULL);
}

/* Block B as a btree node (SALT 0) or a block of header salt SALT: a leg
 * of mirrored metadata that holds it bad is passed over (io_read_valid). */
static int read_meta(struct chk *c, uint64_t b, unsigned char *n, uint32_t salt)
{
	return b < c->nr_meta ? io_read_valid(c->io, b * BM_BLOCK_SIZE, n, 1, BM_BLOCK_SIZE,
					      meta_ok, (void *)(uintptr_t)salt, IO_HEAL)
			      : -ENXIO;
}

/* Own blocks of the space maps count 1 each. 0 or -ENOMEM. */
static int own(struct chk *c, uint64_t b)
{
	return b < c->nr_meta && thin_chk_meta_ref(c, b) < 0 ? -ENOMEM : 0;
}

static void set_entry(struct sm_view *v, uint64_t k, const unsigned char *val)
{
	v->e[k] = (struct sm_entry){ le64_get(val), le32_get(val + 8), le32_get(val + 12), 1 };
}

/* The space-map trees through the pdata cursor, straight from the area. */
struct sm_tree {
	struct chk *c;
	struct sm_view *v;
	uint32_t vsize;
};

static int tree_read(void *ctx, uint64_t b, void *buf)
{
	struct sm_tree *t = ctx;
	return read_meta(t->c, b, buf, 0);
}

static int tree_node(void *ctx, uint64_t b, const void *n, int depth)
{
	struct sm_tree *t = ctx;

	(void)n, (void)depth;
	return own(t->c, b);
}

static int tree_bad(void *ctx, uint64_t b, const void *n, int err, enum btree_node_fault f)
{
	struct sm_tree *t = ctx;

	(void)n, (void)err, (void)f;
	thin_chk_problem(t->c, 1, b, "%s space map: %s tree node %" PRIu64 " unreadable",
			 sm_name(t->v->data), t->vsize == 4 ? "reference-count" : "index", b);
	t->v->broken = 1;
	return 0;	/* skip it, report the rest */
}

/* A btree of the space map (data index: value size 16; overflow: 4): its
 * nodes counted, a bad node reported, the index entries kept. ROOT_ONLY:
 * the root node only (--fast: the overflow tree grows with the blocks
 * shared three times or more, --fast must not). */
static int load_tree(struct chk *c, struct sm_view *v, uint64_t root, uint32_t vsize,
		     int root_only)
{
	struct sm_tree t = { c, v, vsize };
	const struct btree_cursor_ops ops = { &t, tree_read, tree_node, tree_bad };
	struct btree_cursor cur;
	int r = btree_cursor_init(&cur, &ops, root, vsize, 0);

	while (!r && !root_only && btree_cursor_next(&cur))
		if (vsize != 4 && cur.key < v->nb)
			set_entry(v, cur.key, cur.value);
	if (!r)
		r = cur.err;	/* only tree_node stops it: -ENOMEM */
	btree_cursor_exit(&cur);
	return r;
}

int thin_chk_sm_load(struct chk *c, int data)
{
	struct sm_view *v = &c->sm[data];
	const struct sm_root *root = data ? &c->sb.data_sm : &c->sb.meta_sm;
	unsigned char n[BM_BLOCK_SIZE];
	int r;

	v->data = data;
	v->nr_blocks = root->nr_blocks;
	v->nr_allocated = root->nr_allocated;
	v->nb = (root->nr_blocks + SM_ENTRIES_PER_BITMAP - 1) / SM_ENTRIES_PER_BITMAP;
	v->ref_root = root->ref_count_root;
	/* every bitmap occupies a metadata block */
	if (v->nb > c->nr_meta || (!data && v->nb > SM_MAX_METADATA_BITMAPS) ||
	    root->nr_allocated > root->nr_blocks) {
		thin_chk_problem(c, 1, UINT64_MAX, "%s space map root: impossible sizes (%" PRIu64
			      " blocks, %" PRIu64 " allocated)", sm_name(data), root->nr_blocks,
			      root->nr_allocated);
		v->broken = 1;
		return 0;
	}
	if (!(v->e = calloc(v->nb ? v->nb : 1, sizeof(*v->e))))
		return -ENOMEM;
	if (data) {
		if ((r = load_tree(c, v, root->bitmap_root, SM_INDEX_ENTRY_SIZE, 0)))
			return r;
	} else if (read_meta(c, root->bitmap_root, n, SM_INDEX_CSUM_XOR) ||
		   !bm_header_valid(n, root->bitmap_root, SM_INDEX_CSUM_XOR)) {
		thin_chk_problem(c, 1, root->bitmap_root, "metadata space map: index block %" PRIu64
			      " unreadable", root->bitmap_root);
		v->broken = 1;
	} else {
		if ((r = own(c, root->bitmap_root)))
			return r;
		for (uint64_t i = 0; i < v->nb; i++)
			set_entry(v, i, n + 16 + i * SM_INDEX_ENTRY_SIZE);
	}
	for (uint64_t i = 0; i < v->nb && !v->broken; i++) {
		if (!v->e[i].present) {
			thin_chk_problem(c, 1, UINT64_MAX, "%s space map: no index entry for bitmap %"
				      PRIu64, sm_name(data), i);
			v->broken = 1;
		}
		if ((r = own(c, v->e[i].block)))
			return r;
	}
	return load_tree(c, v, root->ref_count_root, 4, c->o && (c->o->flags & THIN_CHECK_FAST));
}

void thin_chk_sm_free(struct chk *c)
{
	for (int i = 0; i < 2; i++)
		free(c->sm[i].e);
}

/* ---- the overflow tree in key order ---- */

/* Unusable nodes were reported by load_tree: the cursor skips them. */
struct ocur {
	struct btree_cursor cur;
	int valid;
};

static int ocur_read(void *ctx, uint64_t b, void *buf)
{
	return read_meta(ctx, b, buf, 0);
}

/* The overflow count of B (blocks ascending between calls), or 3 when
 * the tree has none (then the comparison reports the count). */
static uint64_t ocur_count(struct ocur *o, uint64_t b)
{
	while (o->valid && o->cur.key < b)
		o->valid = btree_cursor_next(&o->cur);
	return o->valid && o->cur.key == b ? le32_get(o->cur.value) : 3;
}

/* ---- the comparison ---- */

struct leaks {
	uint64_t begin, end;
};

static void leak_flush(struct chk *c, int data, struct leaks *l)
{
	if (l->end == l->begin)
		return;
	if (l->end - l->begin == 1)
		thin_chk_problem(c, 0, UINT64_MAX, "%s block %" PRIu64 " is leaked (counted, but "
			      "nothing refers to it)", sm_name(data), l->begin);
	else
		thin_chk_problem(c, 0, UINT64_MAX, "%s blocks %" PRIu64 "..%" PRIu64 " are leaked "
			      "(counted, but nothing refers to them)", sm_name(data), l->begin,
			      l->end - 1);
	l->begin = l->end = 0;
}

static void leak_add(struct chk *c, int data, struct leaks *l, uint64_t b)
{
	if (l->end != l->begin && l->end == b) {
		l->end++;
		return;
	}
	leak_flush(c, data, l);
	l->begin = b;
	l->end = b + 1;
}

static int read_bitmap(struct chk *c, const struct sm_view *v, uint64_t i, unsigned char *n)
{
	uint64_t b = v->e[i].block;

	if (read_meta(c, b, n, SM_BITMAP_CSUM_XOR) || !bm_header_valid(n, b, SM_BITMAP_CSUM_XOR)) {
		thin_chk_problem(c, 1, b, "%s space map: bitmap %" PRIu64 " (block %" PRIu64
			      ") unreadable", sm_name(v->data), i, b);
		return -EUCLEAN;
	}
	return 0;
}

/* nr_free and none_free_before of bitmap I against what it holds. */
static void check_entry(struct chk *c, const struct sm_view *v, uint64_t i, uint32_t nfree,
			uint32_t covered, uint32_t first, uint32_t second)
{
	const struct sm_entry *e = &v->e[i];
	uint32_t kernel = nfree + (SM_ENTRIES_PER_BITMAP - covered);

	/* A metadata bitmap's count below NFREE is stale, not damage: the
	 * kernel growing the metadata space map (a live tpextend) adds entries
	 * to the last bitmap without raising its nr_free when the count was
	 * written for the covered entries only (thin_restore's way); the
	 * allocator then merely skips that bitmap sooner. thin_check accepts
	 * it too. */
	if (e->nr_free != kernel && e->nr_free != nfree && (v->data || e->nr_free > nfree) &&
	    (v->data || (e->nr_free + 1 != kernel && e->nr_free + 1 != nfree)))
		thin_chk_problem(c, 0, UINT64_MAX, "%s space map: bitmap %" PRIu64 " says %" PRIu32
			      " free entries, it has %" PRIu32, sm_name(v->data), i, e->nr_free, nfree);
	/* thin_restore 0.9.0 hides its one freed scratch block */
	if (e->nfb > (v->data ? first : second))
		thin_chk_problem(c, 0, UINT64_MAX, "%s space map: bitmap %" PRIu64
			      " none_free_before %" PRIu32 " hides free entry %" PRIu32,
			      sm_name(v->data), i, e->nfb, first);
}

#define LOW_BITS 0x5555555555555555ull	/* the first bit of every entry */

/* Of a bitmap word (32 two-bit entries, the first bit the high one), one
 * bit (the first) per entry that is 0. */
static uint64_t free_mask(uint64_t w)
{
	return ~(w | (w >> 1)) & LOW_BITS;
}

/* The fast path of the comparison: when the 32 entries of bitmap word W
 * (blocks B..B+31, K the index of B in the bitmap) equal the expected
 * counts and none is 3 (look in the overflow tree), account their free
 * entries and answer 1; else 0 and nothing is changed. */
static int word_matches(struct chk *c, int data, uint64_t b, uint64_t w, uint32_t *nfree,
			uint32_t *first, uint32_t *second, uint32_t k)
{
	uint64_t z;

	if ((w & (w >> 1) & LOW_BITS) || thin_chk_expected_word(c, data, b) != w)
		return 0;
	z = free_mask(w);
	*nfree += (uint32_t)__builtin_popcountll(z);
	for (int i = 0; i < 2 && z; i++, z &= z - 1) {
		uint32_t f = k + (uint32_t)__builtin_ctzll(z) / 2;
		if (f < *first) {
			*second = *first;
			*first = f;
		} else if (f < *second) {
			*second = f;
		}
	}
	return 1;
}

int thin_chk_sm_compare(struct chk *c, int data, int counts)
{
	const struct sm_view *v = &c->sm[data];
	unsigned char n[BM_BLOCK_SIZE];
	struct leaks l = { 0, 0 };
	uint64_t allocated = 0;
	const struct btree_cursor_ops ops = { c, ocur_read, NULL, NULL };
	struct ocur oc;
	int unreadable = 0, r;

	if (v->broken)
		return 0;
	if ((r = btree_cursor_init(&oc.cur, &ops, v->ref_root, 4, 0)))
		return r;
	oc.valid = btree_cursor_next(&oc.cur);
	for (uint64_t i = 0; i < v->nb; i++) {
		uint64_t base = i * SM_ENTRIES_PER_BITMAP;
		uint32_t covered = (uint32_t)TP_MIN((uint64_t)SM_ENTRIES_PER_BITMAP, v->nr_blocks - base);
		uint32_t nfree = 0, first = covered, second = covered;

		if (read_bitmap(c, v, i, n)) {
			unreadable = 1;
			continue;
		}
		if (!counts)
			continue;
		for (uint32_t k = 0; k < covered; k++) {
			uint64_t w = le64_get(n + 16 + 8 * (k / 32)), b = base + k, got, exp;
			unsigned p = 2 * (k % 32);
			if (!p && covered - k >= 32 && word_matches(c, data, b, w, &nfree, &first,
								    &second, k)) {
				allocated += 32 - (uint64_t)__builtin_popcountll(free_mask(w));
				k += 31;
				continue;
			}
			got = ((w >> p) & 1) * 2 + ((w >> (p + 1)) & 1);
			if (got == 3)
				got = ocur_count(&oc, b);
			exp = thin_chk_expected(c, data, b);
			if (!got) {
				nfree++;
				if (k < first) {
					second = first;
					first = k;
				} else if (k < second) {
					second = k;
				}
			}
			allocated += got != 0;
			if (got == exp)
				continue;
			if (!exp)
				leak_add(c, data, &l, b);
			else
				thin_chk_problem(c, 1, UINT64_MAX, "%s block %" PRIu64 ": reference count %"
					      PRIu64 ", expected %" PRIu64, sm_name(data), b, got, exp);
		}
		check_entry(c, v, i, nfree, covered, first, second);
	}
	btree_cursor_exit(&oc.cur);
	if (!counts)
		return 0;
	leak_flush(c, data, &l);
	if (data)
		c->rep->data_used = allocated;
	else
		c->rep->meta_used = allocated;
	/* thin_restore 0.9.0 counts one freed scratch block (format doc 10.6) */
	if (!unreadable && allocated != v->nr_allocated && (data || v->nr_allocated != allocated + 1))
		thin_chk_problem(c, 0, UINT64_MAX, "%s space map: nr_allocated says %" PRIu64
			      ", the bitmaps hold %" PRIu64, sm_name(data), v->nr_allocated, allocated);
	return 0;
}
