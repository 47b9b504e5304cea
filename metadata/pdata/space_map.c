/* SPDX-License-Identifier: GPL-2.0-or-later */
/* space_map.c - metadata and data space maps. See space_map.h.
 *
 * On disk (format doc section 4): a bitmap block is a 16-byte header
 * (csum salt 240779, unused u32, own blocknr) and 510 u64 words of 32
 * two-bit entries; entry k of a word uses bit 2k as the HIGH bit and bit
 * 2k+1 as the LOW bit. An index entry is {u64 bitmap block, u32 nr_free
 * (counted over all 16320 entries, the kernel's convention), u32
 * none_free_before}. The metadata index block is a 16-byte header (salt
 * 160478) and 255 index entries. Counts >= 3 are stored as 3 in the bitmap
 * and the real count in the ref-count btree (u32 values).
 *
 * In core, a loaded bitmap is its 510 words with each 2-bit count in the
 * natural order (low bit first); loading and writing swap the bit pairs.
 * At most SM_MAX_LOADED bitmaps stay loaded: beyond that, unchanged ones
 * are dropped (they are re-read when needed), so memory stays bounded
 * however large the data device is.
 *
 * Counts >= 3 (the kernel's sm_ll_lookup/sm_ll_insert with the overflow
 * btree): only the counts changed since the ref-count tree was last
 * updated are in core (the dirty map; a count below 3 there means "leaves
 * the tree"); any other is looked up in the tree on demand, through the
 * block manager's bounded cache. The dirty entries go into the tree with
 * the pdata btree (btree.c: copy-on-write of the changed paths only)
 * through a transaction manager of the map's own (ref_tm) over the
 * metadata space map (itself, for SM_METADATA): at commit, and for a data
 * map with sm_set_meta() also whenever SM_MAX_DIRTY are pending, so a
 * transaction that changes millions of counts still runs in bounded
 * memory. ref_tm lives until the commit, so nodes it already copied in
 * this transaction are changed in place. */
#include "metadata/pdata/space_map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree.h"
#include "metadata/pdata/btree_build.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_ro.h"
#include "lib/base/le.h"
#include "metadata/pdata/transaction_manager.h"
#include "metadata/pdata/u64map.h"

#define BITMAP_HEADER 16u
#define BITMAP_WORDS 510u
#define PAIRS_LO 0x5555555555555555ull
#define SM_MAX_LOADED 1024u	/* 4 MiB of bitmaps (the block manager caches more) */
#define FREED_WORDS (SM_ENTRIES_PER_BITMAP / 64)	/* 255 words: 2 KiB */
#define SM_MAX_DIRTY 65536u	/* changed counts >= 3 in core (about 2 MiB) */
#define SM_REF_VSIZE 4u		/* ref-count tree values: le32 counts */

struct sm_bitmap {
	uint64_t *words;	/* counts, natural bit order; NULL until loaded */
	uint64_t *freed;	/* a bit per entry freed in this transaction; NULL: none */
	uint64_t block;		/* location on disk, 0 = never written (all free) */
	uint32_t nr_free;
	uint32_t nfb;		/* none_free_before */
	unsigned dirty : 1;	/* changed since the last commit */
	unsigned relocated : 1;	/* already has a new location in this commit */
};

struct blist {
	uint64_t *b;
	size_t n, cap;
};

struct space_map {
	struct block_manager *bm;
	enum sm_kind kind;
	uint64_t nr_blocks, nr_allocated;
	struct sm_bitmap *bm_;
	uint64_t nr_bitmaps;
	struct u64map dirty;	/* block -> count, not yet in the ref-count tree */
	int index_dirty, flushing;
	uint64_t dirty_puts;	/* changes to the dirty map, ever */
	uint64_t index_root, ref_root;	/* 0: not written yet */
	struct blist index_nodes;	/* own blocks as of the last commit */
	struct space_map *meta;	/* SM_DATA: where ref-count tree nodes come from */
	struct tm *ref_tm;	/* the ref-count tree's, until the commit */
	unsigned char *ref_leaf;	/* the last ref-count leaf read; NULL: none */
	uint64_t cursor;
	uint64_t nr_loaded, evict_hand;
};

static int blist_add(struct blist *l, uint64_t b)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;
		uint64_t *nb = realloc(l->b, nc * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		l->b = nb;
		l->cap = nc;
	}
	l->b[l->n++] = b;
	return 0;
}

/* ---- validators ---- */

static void bitmap_prepare(void *d, uint64_t b)
{
	bm_header_prepare(d, b, SM_BITMAP_CSUM_XOR);
}

static int bitmap_check(const void *d, uint64_t b)
{
	return bm_header_check(d, b, SM_BITMAP_CSUM_XOR, "space map bitmap");
}

static int bitmap_valid(const void *d, uint64_t b)
{
	return bm_header_valid(d, b, SM_BITMAP_CSUM_XOR);
}

const struct bm_validator sm_bitmap_validator = { "space map bitmap", bitmap_prepare,
						  bitmap_check, bitmap_valid };

static void index_prepare(void *d, uint64_t b)
{
	bm_header_prepare(d, b, SM_INDEX_CSUM_XOR);
}

static int index_check(const void *d, uint64_t b)
{
	return bm_header_check(d, b, SM_INDEX_CSUM_XOR, "space map index block");
}

static int index_valid(const void *d, uint64_t b)
{
	return bm_header_valid(d, b, SM_INDEX_CSUM_XOR);
}

const struct bm_validator sm_index_validator = { "space map index", index_prepare, index_check,
						 index_valid };

void sm_root_unpack(const void *disk, struct sm_root *r)
{
	const char *p = disk;
	r->nr_blocks = le64_get(p);
	r->nr_allocated = le64_get(p + 8);
	r->bitmap_root = le64_get(p + 16);
	r->ref_count_root = le64_get(p + 24);
}

void sm_root_pack(void *disk, const struct sm_root *r)
{
	char *p = disk;
	le64_put(p, r->nr_blocks);
	le64_put(p + 8, r->nr_allocated);
	le64_put(p + 16, r->bitmap_root);
	le64_put(p + 24, r->ref_count_root);
}

/* ---- create / open / destroy ---- */

static uint64_t bitmaps_for(uint64_t nr_blocks)
{
	return (nr_blocks + SM_ENTRIES_PER_BITMAP - 1) / SM_ENTRIES_PER_BITMAP;
}

/* Nodes of a btree holding N entries at half fill: leaves of 16-byte
 * values (169 a node at most), internal nodes of 8-byte ones (254). */
static uint64_t index_nodes(uint64_t n)
{
	uint64_t nodes = 0, per = 169 / 2;

	while (n > 1) {
		n = (n + per - 1) / per;
		nodes += n;
		per = 254 / 2;
	}
	return nodes ? nodes : 1;
}

uint64_t sm_disk_grow_blocks(uint64_t old_nr, uint64_t new_nr, uint64_t *least)
{
	uint64_t a = bitmaps_for(old_nr), b = bitmaps_for(new_nr);
	uint64_t bitmaps = b > a ? b - a : 0, na = index_nodes(a), nb = index_nodes(b);

	if (least)
		*least = bitmaps;
	return bitmaps + (nb > na ? nb - na : 0);
}

static int alloc_bitmaps(struct space_map *sm, uint64_t n)
{
	struct sm_bitmap *nb = realloc(sm->bm_, (n ? n : 1) * sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	for (uint64_t i = sm->nr_bitmaps; i < n; i++) {
		memset(&nb[i], 0, sizeof(nb[i]));
		nb[i].nr_free = SM_ENTRIES_PER_BITMAP;
		nb[i].dirty = 1;
	}
	sm->bm_ = nb;
	sm->nr_bitmaps = n;
	return 0;
}

static struct space_map *sm_alloc(struct block_manager *bm, enum sm_kind kind)
{
	struct space_map *sm = calloc(1, sizeof(*sm));

	if (!sm)
		return NULL;
	sm->bm = bm;
	sm->kind = kind;
	u64map_init(&sm->dirty);
	if (kind == SM_METADATA)
		sm->meta = sm;
	return sm;
}

void sm_destroy(struct space_map *sm)
{
	if (!sm)
		return;
	for (uint64_t i = 0; i < sm->nr_bitmaps; i++) {
		free(sm->bm_[i].words);
		free(sm->bm_[i].freed);
	}
	free(sm->bm_);
	u64map_destroy(&sm->dirty);
	free(sm->index_nodes.b);
	tm_destroy(sm->ref_tm);
	free(sm->ref_leaf);
	free(sm);
}

int sm_create(struct block_manager *bm, enum sm_kind kind, uint64_t nr_blocks,
	      struct space_map **out)
{
	struct space_map *sm = sm_alloc(bm, kind);
	int r;

	if (!sm)
		return -ENOMEM;
	if (kind == SM_METADATA && bitmaps_for(nr_blocks) > SM_MAX_METADATA_BITMAPS) {
		sm_destroy(sm);
		return -ENOSPC;
	}
	if ((r = alloc_bitmaps(sm, bitmaps_for(nr_blocks)))) {
		sm_destroy(sm);
		return r;
	}
	sm->nr_blocks = nr_blocks;
	sm->index_dirty = 1;
	*out = sm;
	return 0;
}

struct load_ctx {
	struct space_map *sm;
	struct blist *nodes;
	uint64_t next_key;
};

static int load_node(void *ctx, uint64_t b)
{
	struct load_ctx *c = ctx;
	return blist_add(c->nodes, b);
}

static int set_index_entry(struct space_map *sm, uint64_t i, const void *e)
{
	struct sm_bitmap *bmp = &sm->bm_[i];

	bmp->block = le64_get(e);
	bmp->nr_free = le32_get((const char *)e + 8);
	bmp->nfb = le32_get((const char *)e + 12);
	bmp->dirty = 0;
	if (bmp->block == 0 || bmp->block >= bm_nr_blocks(sm->bm) ||
	    bmp->nr_free > SM_ENTRIES_PER_BITMAP || bmp->nfb > SM_ENTRIES_PER_BITMAP) {
		log_error("space map index entry %" PRIu64 ": impossible bitmap %" PRIu64
			  " (nr_free %" PRIu32 ", none_free_before %" PRIu32 ")", i, bmp->block,
			  bmp->nr_free, bmp->nfb);
		return -EUCLEAN;
	}
	return 0;
}

static int load_index_entry(void *ctx, uint64_t key, const void *value)
{
	struct load_ctx *c = ctx;

	if (key != c->next_key || key >= c->sm->nr_bitmaps) {
		log_error("data space map index: unexpected bitmap number %" PRIu64, key);
		return -EUCLEAN;
	}
	c->next_key++;
	return set_index_entry(c->sm, key, value);
}

int sm_open(struct block_manager *bm, enum sm_kind kind, const struct sm_root *root,
	    struct space_map **out)
{
	struct space_map *sm = sm_alloc(bm, kind);
	uint64_t nb = bitmaps_for(root->nr_blocks);
	int r;

	if (!sm)
		return -ENOMEM;
	/* every bitmap occupies a metadata block: more bitmaps than blocks
	 * is a corrupt root (and would only waste memory here) */
	if ((kind == SM_METADATA && nb > SM_MAX_METADATA_BITMAPS) || nb > bm_nr_blocks(bm) ||
	    root->nr_allocated > root->nr_blocks || root->bitmap_root == 0 ||
	    root->ref_count_root == 0 || (kind == SM_DATA && root->nr_blocks > (1ull << 40))) {
		log_error("%s space map root: impossible values (nr_blocks %" PRIu64
			  ", nr_allocated %" PRIu64 ", bitmap root %" PRIu64 ", ref-count root %"
			  PRIu64 ")", kind == SM_DATA ? "data" : "metadata", root->nr_blocks,
			  root->nr_allocated, root->bitmap_root, root->ref_count_root);
		r = -EUCLEAN;
		goto fail;
	}
	if ((r = alloc_bitmaps(sm, nb)))
		goto fail;
	sm->nr_blocks = root->nr_blocks;
	sm->nr_allocated = root->nr_allocated;
	sm->index_root = root->bitmap_root;
	sm->ref_root = root->ref_count_root;
	if (kind == SM_METADATA) {
		struct bm_block *blk;
		if ((r = bm_read_lock(bm, root->bitmap_root, &sm_index_validator, &blk)))
			goto fail;
		for (uint64_t i = 0; i < nb && !r; i++)
			r = set_index_entry(sm, i, (char *)bm_block_data(blk) + 16 + 16 * i);
		bm_unlock(blk);
		if (r || (r = blist_add(&sm->index_nodes, root->bitmap_root)))
			goto fail;
	} else {
		struct load_ctx c = { sm, &sm->index_nodes, 0 };
		struct btree_ro_visit v = { &c, load_index_entry, load_node };
		if ((r = btree_ro_walk(bm, root->bitmap_root, SM_INDEX_ENTRY_SIZE, &v)))
			goto fail;
		if (c.next_key != nb) {
			log_error("data space map index %" PRIu64 ": %" PRIu64 " bitmaps, expected %"
				  PRIu64, root->bitmap_root, c.next_key, nb);
			r = -EUCLEAN;
			goto fail;
		}
	}
	*out = sm;
	return 0;
fail:
	sm_destroy(sm);
	return r;
}

/* ---- counts ---- */

/* Swap each bit pair: the on-disk order <-> the natural order. */
static inline uint64_t swap_pairs(uint64_t x)
{
	return ((x & PAIRS_LO) << 1) | ((x >> 1) & PAIRS_LO);
}

static inline unsigned entry_get(const uint64_t *words, uint32_t e)
{
	return (unsigned)(words[e / 32] >> (2 * (e % 32))) & 3;
}

static inline void entry_set(uint64_t *words, uint32_t e, unsigned v)
{
	unsigned shift = 2 * (e % 32);
	words[e / 32] = (words[e / 32] & ~(3ull << shift)) | ((uint64_t)v << shift);
}

/* nr_free over all 16320 entries and the first free entry. */
static void scan_free(const uint64_t *words, uint32_t *nr_free, uint32_t *nfb)
{
	*nr_free = SM_ENTRIES_PER_BITMAP;
	*nfb = SM_ENTRIES_PER_BITMAP;
	for (uint32_t w = 0; w < BITMAP_WORDS; w++) {
		uint64_t used = (words[w] | (words[w] >> 1)) & PAIRS_LO;
		*nr_free -= (uint32_t)__builtin_popcountll(used);
		if (*nfb == SM_ENTRIES_PER_BITMAP && used != PAIRS_LO)
			*nfb = w * 32 + (uint32_t)__builtin_ctzll(~used & PAIRS_LO) / 2;
	}
}

static int write_bitmap(struct space_map *sm, struct sm_bitmap *bmp);

/* A changed data bitmap leaves core before the commit: it gets its new
 * home now (as the commit would give it) and is written there through
 * the block manager; a later change reads it back from there, and the
 * commit writes it in place (it is relocated already) and rebuilds the
 * index. The committed bitmap is not touched. */
static int spill(struct space_map *sm, struct sm_bitmap *bmp)
{
	uint64_t nb, old = bmp->block;
	int r;

	if (!bmp->relocated) {
		if ((r = sm_new_block(sm->meta, &nb)))
			return r;
		bmp->block = nb;
		bmp->relocated = 1;
		if (old && (r = sm_dec(sm->meta, old)))
			return r;
	}
	sm->index_dirty = 1;
	return write_bitmap(sm, bmp);
}

/* Drop loaded bitmaps (other than KEEP) down to the bound: unchanged ones
 * first; if that is not enough, a data map that knows its metadata map
 * spills changed ones, so a transaction that touches every bitmap of a
 * large pool stays within the bound too. */
static int evict(struct space_map *sm, uint64_t keep)
{
	int spill_ok = sm->kind == SM_DATA && sm->meta && !sm->flushing, r;

	for (int pass = 0; pass < 1 + spill_ok; pass++) {
		for (uint64_t tries = 0; sm->nr_loaded > SM_MAX_LOADED && tries < sm->nr_bitmaps;
		     tries++) {
			uint64_t i = sm->evict_hand++ % sm->nr_bitmaps;
			struct sm_bitmap *bmp = &sm->bm_[i];
			if (i == keep || !bmp->words || (bmp->dirty && !pass))
				continue;
			if (bmp->dirty && (r = spill(sm, bmp)))
				return r;
			free(bmp->words);
			bmp->words = NULL;
			sm->nr_loaded--;
		}
	}
	return 0;
}

static int load_bitmap(struct space_map *sm, uint64_t i)
{
	struct sm_bitmap *bmp = &sm->bm_[i];
	struct bm_block *blk;
	const unsigned char *d;
	int r;

	bmp->words = calloc(BITMAP_WORDS, sizeof(uint64_t));
	if (!bmp->words)
		return -ENOMEM;
	sm->nr_loaded++;
	if (bmp->block) {
		if ((r = bm_read_lock(sm->bm, bmp->block, &sm_bitmap_validator, &blk))) {
			free(bmp->words);
			bmp->words = NULL;
			sm->nr_loaded--;
			return r;
		}
		d = bm_block_data(blk);
		for (uint32_t w = 0; w < BITMAP_WORDS; w++)
			bmp->words[w] = swap_pairs(le64_get(d + BITMAP_HEADER + 8 * w));
		bm_unlock(blk);
		/* the index's hints may be stale or junk: recompute them exactly */
		scan_free(bmp->words, &bmp->nr_free, &bmp->nfb);
	}
	return evict(sm, i);
}

static int locate(struct space_map *sm, uint64_t b, struct sm_bitmap **bmp, uint32_t *off)
{
	uint64_t i = b / SM_ENTRIES_PER_BITMAP;
	int r;

	if (b >= sm->nr_blocks) {
		log_error("%s block %" PRIu64 " is beyond the space map's %" PRIu64 " blocks",
			  sm->kind == SM_DATA ? "data" : "metadata", b, sm->nr_blocks);
		return -EUCLEAN;
	}
	if (!sm->bm_[i].words && (r = load_bitmap(sm, i)))
		return r;
	*bmp = &sm->bm_[i];
	*off = (uint32_t)(b % SM_ENTRIES_PER_BITMAP);
	return 0;
}

uint64_t sm_nr_blocks(const struct space_map *sm)
{
	return sm->nr_blocks;
}

uint64_t sm_nr_allocated(const struct space_map *sm)
{
	return sm->nr_allocated;
}

/* B in the cached leaf: 1 and *VAL set (or -ENODATA in *R when absent
 * there), else 0. Counts are read in runs (a device's blocks), so one
 * leaf answers most lookups. */
static int leaf_cached(const struct space_map *sm, uint64_t b, unsigned char *val, int *r)
{
	const unsigned char *n = sm->ref_leaf;
	uint32_t nr;
	int i;

	if (!n || !(nr = bn_nr(n)) || b < bn_key(n, 0) || b > bn_key(n, nr - 1))
		return 0;
	i = bn_lower_bound(n, b);
	*r = i >= 0 && bn_key(n, (uint32_t)i) == b ? 0 : -ENODATA;
	if (!*r)
		memcpy(val, bn_value(n, (uint32_t)i), SM_REF_VSIZE);
	return 1;
}

/* A count >= 3: the dirty map, else the ref-count tree. */
static int overflow_get(struct space_map *sm, uint64_t b, uint32_t *count)
{
	unsigned char val[SM_REF_VSIZE];
	uint64_t v;
	int r = -ENODATA;

	if (u64map_get(&sm->dirty, b, &v)) {
		*count = (uint32_t)v;
		return 0;
	}
	if (!sm->ref_leaf && !(sm->ref_leaf = calloc(1, BM_BLOCK_SIZE)))
		return -ENOMEM;
	if (sm->ref_root && !leaf_cached(sm, b, val, &r)) {
		bn_set_nr(sm->ref_leaf, 0);
		r = btree_ro_lookup(sm->bm, sm->ref_root, SM_REF_VSIZE, b, val, sm->ref_leaf);
	}
	if (r == -ENODATA) {
		log_error("%s block %" PRIu64 ": count 3+ in the bitmap but not in the ref-count tree",
			  sm->kind == SM_DATA ? "data" : "metadata", b);
		return -EUCLEAN;
	}
	if (r)
		return r;
	*count = le32_get(val);
	if (*count < 3) {
		log_error("%s space map ref-count tree %" PRIu64 ": bad entry %" PRIu64 " -> %" PRIu32,
			  sm->kind == SM_DATA ? "data" : "metadata", sm->ref_root, b, *count);
		return -EUCLEAN;
	}
	return 0;
}

int sm_get(struct space_map *sm, uint64_t b, uint32_t *count)
{
	struct sm_bitmap *bmp;
	uint32_t off;
	int r = locate(sm, b, &bmp, &off);

	if (r)
		return r;
	if (entry_get(bmp->words, off) < 3) {
		*count = entry_get(bmp->words, off);
		return 0;
	}
	return overflow_get(sm, b, count);
}

struct ref_change {
	uint64_t b, count;
};

/* Sort C by block: LSD radix, 11 bits a pass, as many passes as the
 * largest block needs (a flush sorts up to SM_MAX_DIRTY of them). */
static int sort_changes(struct ref_change *c, size_t n)
{
	struct ref_change *tmp = malloc(n * sizeof(*tmp)), *src = c, *dst = tmp, *t;
	uint64_t max = 0;
	size_t pos[2048];

	if (!tmp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		max |= c[i].b;
	for (unsigned shift = 0; shift < 64 && max >> shift; shift += 11) {
		size_t sum = 0;
		memset(pos, 0, sizeof(pos));
		for (size_t i = 0; i < n; i++)
			pos[src[i].b >> shift & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t k = pos[d];
			pos[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[pos[src[i].b >> shift & 2047]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != c)
		memcpy(c, src, n * sizeof(*c));
	free(tmp);
	return 0;
}

/* Put the dirty counts into the ref-count tree, in key order (neighbours
 * share leaves), through ref_tm over sm->meta; a tree is created when
 * there is none yet. An entry leaves the dirty map once in the tree,
 * unless it changed meanwhile (a metadata map counting its own blocks). */
static int flush_refs(struct space_map *sm)
{
	struct btree_info info = { NULL, { SM_REF_VSIZE, NULL, NULL, NULL } };
	struct ref_change *c;
	uint64_t v, puts = sm->dirty_puts, *gone;
	size_t n = 0, pos = 0, ngone = 0, done;
	unsigned char val[SM_REF_VSIZE];
	int r = 0;

	if (!sm->meta)
		return -EINVAL;
	if (!sm->ref_tm && (r = tm_create(sm->bm, sm->meta, &sm->ref_tm)))
		return r;
	info.tm = sm->ref_tm;
	if (!sm->ref_root && (r = btree_empty(&info, &sm->ref_root)))
		return r;
	if (!sm->dirty.nr)
		return 0;
	if (sm->ref_leaf)
		bn_set_nr(sm->ref_leaf, 0);	/* the tree changes */
	c = malloc(sm->dirty.nr * sizeof(*c));
	gone = malloc(sm->dirty.nr * sizeof(*gone));
	if (!c || !gone) {
		free(c);
		free(gone);
		return -ENOMEM;
	}
	while (u64map_next(&sm->dirty, &pos, &c[n].b, &c[n].count))
		n++;
	if ((r = sort_changes(c, n))) {
		free(c);
		free(gone);
		return r;
	}
	sm->flushing = 1;
	for (size_t i = 0; i < n && !r; i++) {
		if (c[i].count >= 3) {
			le32_put(val, (uint32_t)c[i].count);
			r = btree_insert(&info, sm->ref_root, c[i].b, val, &sm->ref_root, NULL, 0);
			continue;
		}
		/* a run of keys leaving the tree: removed a leaf at a time */
		for (ngone = 0; i + ngone < n && c[i + ngone].count < 3; ngone++)
			gone[ngone] = c[i + ngone].b;
		for (size_t j = 0; j < ngone && !r; j += done) {
			r = btree_remove_run(&info, sm->ref_root, gone + j, ngone - j, &sm->ref_root,
					     &done);
			if (r == -ENODATA) {	/* went above 2 and back in one go */
				r = 0;
				done = 1;
			}
		}
		i += ngone - 1;
	}
	sm->flushing = 0;
	free(gone);
	if (sm->ref_leaf)
		bn_set_nr(sm->ref_leaf, 0);
	if (!r && sm->dirty_puts == puts)
		u64map_clear(&sm->dirty);
	for (size_t i = 0; i < n && !r && sm->dirty.nr; i++)
		if (u64map_get(&sm->dirty, c[i].b, &v) && v == c[i].count)
			u64map_del(&sm->dirty, c[i].b);
	free(c);
	return r;
}

void sm_set_meta(struct space_map *data, struct space_map *meta)
{
	if (data->kind == SM_DATA)
		data->meta = meta;
}

/* Change B's count from OLD (what sm_get said) to COUNT. */
static int set_count(struct space_map *sm, uint64_t b, uint32_t old, uint32_t count)
{
	struct sm_bitmap *bmp = NULL;
	uint32_t off = 0;
	int r;

	if ((r = locate(sm, b, &bmp, &off)))
		return r;
	if (count >= 3 || old >= 3) {
		if ((r = u64map_put(&sm->dirty, b, count)))
			return r;
		sm->dirty_puts++;
	}
	if (entry_get(bmp->words, off) != (count >= 3 ? 3 : count)) {	/* else only the tree's */
		entry_set(bmp->words, off, count >= 3 ? 3 : count);
		bmp->dirty = 1;
	}
	if (!old && count) {
		bmp->nr_free--;
		sm->nr_allocated++;
		if (bmp->nfb == off)
			bmp->nfb = off + 1;
	} else if (old && !count) {
		bmp->nr_free++;
		sm->nr_allocated--;
		if (off < bmp->nfb)
			bmp->nfb = off;
		if (!bmp->freed && !(bmp->freed = calloc(FREED_WORDS, sizeof(uint64_t))))
			return -ENOMEM;
		bmp->freed[off / 64] |= 1ull << (off % 64);
	}
	/* bounded memory: the data map's changed counts go into the tree now
	 * and then (the metadata map's wait for the commit: few change) */
	if (sm->kind == SM_DATA && sm->meta && !sm->flushing && sm->dirty.nr >= SM_MAX_DIRTY)
		return flush_refs(sm);
	return 0;
}

int sm_set(struct space_map *sm, uint64_t b, uint32_t count)
{
	uint32_t old;
	int r = sm_get(sm, b, &old);

	return r ? r : set_count(sm, b, old, count);
}

int sm_inc(struct space_map *sm, uint64_t b)
{
	uint32_t c;
	int r = sm_get(sm, b, &c);

	return r ? r : set_count(sm, b, c, c + 1);
}

int sm_dec(struct space_map *sm, uint64_t b)
{
	uint32_t c;
	int r = sm_get(sm, b, &c);

	if (r)
		return r;
	if (!c) {
		log_error("%s block %" PRIu64 ": reference count would drop below zero",
			  sm->kind == SM_DATA ? "data" : "metadata", b);
		return -EUCLEAN;
	}
	return set_count(sm, b, c, c - 1);
}

/* The transaction manager's view of a space map (transaction_manager.h). */
static int tms_new_block(void *ctx, uint64_t *b)
{
	return sm_new_block(ctx, b);
}

static int tms_get(void *ctx, uint64_t b, uint32_t *count)
{
	return sm_get(ctx, b, count);
}

static int tms_inc(void *ctx, uint64_t b)
{
	return sm_inc(ctx, b);
}

static int tms_dec(void *ctx, uint64_t b)
{
	return sm_dec(ctx, b);
}

const struct tm_space sm_tm_space = { tms_new_block, tms_get, tms_inc, tms_dec };

/* First block in [FROM, TO) free now and in the committed state. */
static int search(struct space_map *sm, uint64_t from, uint64_t to, uint64_t *out)
{
	uint64_t b = from;
	int r;

	while (b < to) {
		uint64_t i = b / SM_ENTRIES_PER_BITMAP, base = i * SM_ENTRIES_PER_BITMAP;
		uint64_t end = TP_MIN(to, base + SM_ENTRIES_PER_BITMAP);
		struct sm_bitmap *bmp = &sm->bm_[i];

		if (bmp->nr_free) {
			if (!bmp->words && (r = load_bitmap(sm, i)))
				return r;
			for (uint64_t e = TP_MAX(b, base + bmp->nfb); e < end; e++) {
				uint64_t word = bmp->words[(e - base) / 32];
				if ((e - base) % 32 == 0 && ((word | (word >> 1)) & PAIRS_LO) == PAIRS_LO) {
					e += 31;	/* 32 blocks in use */
					continue;
				}
				if (entry_get(bmp->words, (uint32_t)(e - base)))
					continue;
				if (bmp->freed && (bmp->freed[(e - base) / 64] >> ((e - base) % 64) & 1))
					continue;
				if ((r = set_count(sm, e, 0, 1)))
					return r;
				*out = e;
				sm->cursor = e + 1;
				return 0;
			}
		}
		b = end;
	}
	return -ENOSPC;
}

int sm_new_block(struct space_map *sm, uint64_t *out)
{
	uint64_t start = sm->cursor < sm->nr_blocks ? sm->cursor : 0;
	int r = search(sm, start, sm->nr_blocks, out);

	if (r == -ENOSPC && start)
		r = search(sm, 0, start, out);
	return r;
}

int sm_extend(struct space_map *sm, uint64_t nr_blocks)
{
	uint64_t nb = bitmaps_for(nr_blocks);
	int r;

	if (nr_blocks < sm->nr_blocks)
		return -EINVAL;
	if (sm->kind == SM_METADATA && nb > SM_MAX_METADATA_BITMAPS)
		return -ENOSPC;
	if (nb > sm->nr_bitmaps && (r = alloc_bitmaps(sm, nb)))
		return r;
	sm->nr_blocks = nr_blocks;
	sm->index_dirty = 1;
	return 0;
}

/* ---- commit ---- */

void sm_bitmap_encode(void *block, const uint64_t *words, uint32_t *nr_free, uint32_t *nfb)
{
	unsigned char *d = block;

	memset(d + BITMAP_HEADER, 0, BITMAP_WORDS * 8);
	if (!words) {
		*nr_free = SM_ENTRIES_PER_BITMAP;
		*nfb = 0;
		return;
	}
	scan_free(words, nr_free, nfb);
	for (uint32_t w = 0; w < BITMAP_WORDS; w++)
		le64_put(d + BITMAP_HEADER + 8 * w, swap_pairs(words[w]));
}

void sm_index_entry_pack(void *entry, uint64_t bitmap_block, uint32_t nr_free, uint32_t nfb)
{
	unsigned char *e = entry;
	le64_put(e, bitmap_block);
	le32_put(e + 8, nr_free);
	le32_put(e + 12, nfb);
}

static int write_bitmap(struct space_map *sm, struct sm_bitmap *bmp)
{
	struct bm_block *blk;
	uint32_t nr_free, nfb;
	int r;

	if ((r = bm_write_lock_zero(sm->bm, bmp->block, &sm_bitmap_validator, &blk)))
		return r;
	sm_bitmap_encode(bm_block_data(blk), bmp->words, &nr_free, &nfb);
	bm_unlock(blk);
	bmp->dirty = 0;
	return 0;
}

struct commit_ctx {
	struct space_map *sm, *meta;
	struct blist *nodes;
};

static int commit_alloc(void *ctx, uint64_t *b)
{
	struct commit_ctx *c = ctx;
	int r = sm_new_block(c->meta, b);

	return r ? r : blist_add(c->nodes, *b);
}

static int commit_write(void *ctx, uint64_t b, const void *data)
{
	struct commit_ctx *c = ctx;
	struct bm_block *blk;
	int r = bm_write_lock_zero(c->sm->bm, b, &btree_node_validator, &blk);

	if (r)
		return r;
	memcpy(bm_block_data(blk), data, BM_BLOCK_SIZE);
	bm_unlock(blk);
	return 0;
}

static void pack_entry(unsigned char *e, const struct sm_bitmap *bmp)
{
	sm_index_entry_pack(e, bmp->block, bmp->nr_free, bmp->nfb);
}

static int build_index_tree(struct space_map *sm, struct commit_ctx *c)
{
	struct btree_build bb;
	unsigned char e[16];
	int r = 0;

	btree_build_init(&bb, 16, commit_alloc, commit_write, c);
	for (uint64_t i = 0; i < sm->nr_bitmaps && !r; i++) {
		pack_entry(e, &sm->bm_[i]);
		r = btree_build_add(&bb, i, e);
	}
	if (!r)
		r = btree_build_finish(&bb, &sm->index_root);
	btree_build_destroy(&bb);
	return r;
}

static int free_list(struct space_map *owner, struct blist *l)
{
	int r;

	for (size_t i = 0; i < l->n; i++)
		if ((r = sm_dec(owner, l->b[i])))
			return r;
	l->n = 0;
	return 0;
}

static int relocate_bitmaps(struct space_map *sm, struct space_map *alloc_from, int *changed)
{
	int r;

	for (uint64_t i = 0; i < sm->nr_bitmaps; i++) {
		struct sm_bitmap *bmp = &sm->bm_[i];
		uint64_t nb, old = bmp->block;

		if (!bmp->dirty || bmp->relocated)
			continue;
		if ((r = sm_new_block(alloc_from, &nb)))
			return r;
		bmp->block = nb;
		bmp->relocated = 1;
		*changed = 1;
		if (old && (r = sm_dec(alloc_from, old)))
			return r;
	}
	return 0;
}

static int commit_data(struct space_map *sm, struct space_map *meta)
{
	struct commit_ctx c = { sm, meta, NULL };
	int changed = 0, r;

	if (sm->meta && sm->meta != meta)
		return -EINVAL;
	sm->meta = meta;
	if ((r = relocate_bitmaps(sm, meta, &changed)))
		return r;
	for (uint64_t i = 0; i < sm->nr_bitmaps; i++)
		if (sm->bm_[i].dirty && (r = write_bitmap(sm, &sm->bm_[i])))
			return r;
	if ((sm->dirty.nr || !sm->ref_root) && (r = flush_refs(sm)))
		return r;
	if (changed || sm->index_dirty || !sm->index_root) {
		if ((r = free_list(meta, &sm->index_nodes)))
			return r;
		c.nodes = &sm->index_nodes;
		if ((r = build_index_tree(sm, &c)))
			return r;
	}
	return 0;
}

/* Allocating from itself changes the map being written: first everything
 * that allocates or frees (the ref-count tree's copied paths, the index
 * block, new homes for the changed bitmaps, until none moves), then the
 * writes, which change nothing. Its own blocks have count 1, so allocating
 * them adds no dirty count; one that does is a shared own block (corrupt). */
static int commit_metadata(struct space_map *sm)
{
	int changed = 0, r;
	uint64_t index_block;
	struct bm_block *blk;

	for (uint64_t i = 0; i < sm->nr_bitmaps; i++)
		changed |= sm->bm_[i].dirty;
	if (!changed && !sm->dirty.nr && sm->ref_root && !sm->index_dirty && sm->index_root)
		return 0;
	if ((r = flush_refs(sm)))
		return r;
	if ((r = sm_new_block(sm, &index_block)))
		return r;
	if ((r = free_list(sm, &sm->index_nodes)) || (r = blist_add(&sm->index_nodes, index_block)))
		return r;
	do {
		changed = 0;
		if ((r = relocate_bitmaps(sm, sm, &changed)))
			return r;
	} while (changed);
	if (sm->dirty.nr) {
		log_error("metadata space map: its own blocks are shared (count above 2)");
		return -EUCLEAN;
	}
	for (uint64_t i = 0; i < sm->nr_bitmaps; i++)
		if (sm->bm_[i].dirty && (r = write_bitmap(sm, &sm->bm_[i])))
			return r;
	if ((r = bm_write_lock_zero(sm->bm, index_block, &sm_index_validator, &blk)))
		return r;
	for (uint64_t i = 0; i < sm->nr_bitmaps; i++)
		pack_entry((unsigned char *)bm_block_data(blk) + 16 + 16 * i, &sm->bm_[i]);
	bm_unlock(blk);
	sm->index_root = index_block;
	return 0;
}

int sm_commit(struct space_map *sm, struct space_map *meta, struct sm_root *root)
{
	int r = sm->kind == SM_DATA ? commit_data(sm, meta) : commit_metadata(sm);

	if (r)
		return r;
	for (uint64_t i = 0; i < sm->nr_bitmaps; i++)
		sm->bm_[i].relocated = 0;
	for (uint64_t i = 0; i < sm->nr_bitmaps; i++) {
		free(sm->bm_[i].freed);
		sm->bm_[i].freed = NULL;
	}
	tm_destroy(sm->ref_tm);
	sm->ref_tm = NULL;
	sm->index_dirty = 0;
	root->nr_blocks = sm->nr_blocks;
	root->nr_allocated = sm->nr_allocated;
	root->bitmap_root = sm->index_root;
	root->ref_count_root = sm->ref_root;
	return 0;
}

int sm_for_each_own_block(struct space_map *sm, int (*fn)(void *ctx, uint64_t b), void *ctx)
{
	int r;

	for (uint64_t i = 0; i < sm->nr_bitmaps; i++)
		if (sm->bm_[i].block && (r = fn(ctx, sm->bm_[i].block)))
			return r;
	for (size_t i = 0; i < sm->index_nodes.n; i++)
		if ((r = fn(ctx, sm->index_nodes.b[i])))
			return r;
	if (!sm->ref_root)
		return 0;
	struct btree_ro_visit v = { ctx, NULL, fn };
	return btree_ro_walk(sm->bm, sm->ref_root, SM_REF_VSIZE, &v);
}
