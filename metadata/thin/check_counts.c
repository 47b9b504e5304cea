/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_counts.c - the checker's reference counting (format doc 4.5), a
 * node visitor of the one walker (thin_walk.h): every reference to a node
 * of the details and mapping trees (live and metadata snapshot) adds one
 * to its expected count; a node seen before is answered THIN_WALK_SEEN so
 * that the nodes below a shared node are counted once. Data counts are
 * the number of distinct bottom-level leaf entries naming the block, kept
 * in four bits per data block (15 = look in the overflow map) so memory
 * stays half a byte per data block. Space-map blocks (check_sm.c) and the
 * superblock copies count 1. The walker reports structural damage; this
 * visitor adds node fill and max_entries rules. */
#include "metadata/thin/check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"

#define NIBBLE_MAX 15u	/* this count and more: in c->dover */

static unsigned get4(const uint8_t *a, uint64_t b)
{
	return (a[b >> 1] >> ((b & 1) * 4)) & 15;
}

/* One more reference to data block B (below nr_data) whose count is
 * NIBBLE_MAX - 1 or more: the count moves to (or on in) the overflow map. */
static int data_ref_over(struct chk *c, uint64_t b)
{
	uint64_t big = NIBBLE_MAX;

	if (get4(c->dexp, b) < NIBBLE_MAX) {
		c->dexp[b >> 1] = (uint8_t)(c->dexp[b >> 1] + (1u << ((b & 1) * 4)));
		return u64map_put(&c->dover, b, NIBBLE_MAX);
	}
	u64map_get(&c->dover, b, &big);
	return u64map_put(&c->dover, b, big + 1);
}

/* Count the data blocks of the NR leaf values VALS (blocks beyond the
 * data device are reported by the walk). */
static int data_refs(struct chk *c, const unsigned char *vals, uint32_t nr)
{
	/* stores to dexp may alias anything: the fields read once */
	uint8_t *dexp = c->dexp;
	uint64_t nr_data = c->nr_data;
	int r;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t b = thin_bt_block(le64_get(vals + 8 * i));
		unsigned sh = (unsigned)(b & 1) * 4;

		if (b >= nr_data)
			continue;
		if (((dexp[b >> 1] >> sh) & 15) < NIBBLE_MAX - 1) {
			dexp[b >> 1] = (uint8_t)(dexp[b >> 1] + (1u << sh));
			continue;
		}
		if ((r = data_ref_over(c, b)))
			return r;
	}
	return 0;
}

int thin_chk_meta_ref(struct chk *c, uint64_t b)
{
	uint8_t v = c->mexp[b];
	uint64_t big = UINT8_MAX;

	if (v < UINT8_MAX) {
		c->mexp[b] = (uint8_t)(v + 1);
		if (v + 1 == UINT8_MAX && u64map_put(&c->mover, b, UINT8_MAX))
			return -ENOMEM;
		return v != 0;
	}
	u64map_get(&c->mover, b, &big);
	return u64map_put(&c->mover, b, big + 1) ? -ENOMEM : 1;
}

uint64_t thin_chk_expected(struct chk *c, int data, uint64_t b)
{
	uint64_t v;

	if (!data) {
		if (b >= c->nr_meta)
			return 0;
		v = c->mexp[b];
		if (v == UINT8_MAX)
			u64map_get(&c->mover, b, &v);
		return v;
	}
	if (b >= c->nr_data || !c->dexp)
		return 0;
	v = get4(c->dexp, b);
	if (v == NIBBLE_MAX)
		u64map_get(&c->dover, b, &v);
	return v;
}

/* Two bits per count (0, 1, 2, 3 for 3 and more), the high bit first. */
static uint64_t two_bits(uint64_t v)
{
	static const uint64_t enc[4] = { 0, 2, 1, 3 };
	return enc[v < 3 ? v : 3];
}

uint64_t thin_chk_expected_word(struct chk *c, int data, uint64_t b)
{
	uint64_t w = 0;

	if (!data) {
		for (unsigned i = 0; i < 32; i++)
			w |= two_bits(c->mexp[b + i]) << (2 * i);
		return w;
	}
	if (b & 1) {	/* not byte aligned: entry by entry */
		for (unsigned i = 0; i < 32; i++)
			w |= two_bits(get4(c->dexp, b + i)) << (2 * i);
		return w;
	}
	for (unsigned i = 0; i < 16; i++)
		w |= (uint64_t)c->dexp_enc[c->dexp[(b >> 1) + i]] << (4 * i);
	return w;
}

int thin_chk_count_node(void *ctx, const struct thin_walk_node *wn)
{
	static const char *const tree_name[] = {
		[THIN_TREE_DETAILS] = "device details",
		[THIN_TREE_TOP] = "top-level mapping",
		[THIN_TREE_MAPPINGS] = "mapping",
	};
	struct chk *c = ctx;
	const unsigned char *n = wn->node;
	uint64_t b = wn->block;
	uint32_t nr = bn_nr(n);
	int r = 0;

	if (wn->tree == THIN_TREE_MAPPINGS && !c->dexp)
		return 0;	/* --fast: mapping roots are only validated */
	if (b >= c->nr_meta) {
		c->count_unsure = 1;	/* beyond the space map: reported by the walk */
		return THIN_WALK_SEEN;
	}
	if ((r = thin_chk_meta_ref(c, b)))
		return r < 0 ? r : THIN_WALK_SEEN;	/* children counted through the first reference */
	if (bn_max(n) % 3)
		thin_chk_problem(c, 1, b, "%s tree node %" PRIu64 ": max_entries %" PRIu32
				 " is not a multiple of 3", tree_name[wn->tree], b, bn_max(n));
	if (!wn->is_root && nr < bn_max(n) / 3)
		thin_chk_problem(c, 0, b, "%s tree node %" PRIu64 ": only %" PRIu32
				 " entries, at least %" PRIu32 " expected", tree_name[wn->tree], b,
				 nr, bn_max(n) / 3);
	if (!bn_is_leaf(n))
		return 0;
	if (wn->tree == THIN_TREE_MAPPINGS)
		return data_refs(c, (const unsigned char *)bn_value(n, 0), nr);
	if (wn->tree == THIN_TREE_DETAILS) {
		/* mapped_blocks, the first field of a details value */
		const unsigned char *vals = (const unsigned char *)bn_value(n, 0);
		uint32_t vsize = bn_vsize(n);
		uint64_t total = 0;

		for (uint32_t i = 0; i < nr; i++)
			total += le64_get(vals + (size_t)i * vsize);
		c->total += total;
	}
	return r;
}

int thin_chk_counts_alloc(struct chk *c)
{
	int fast = c->o && (c->o->flags & THIN_CHECK_FAST);

	u64map_init(&c->dover);
	u64map_init(&c->mover);
	c->mexp = calloc(c->nr_meta ? c->nr_meta : 1, sizeof(*c->mexp));
	c->dexp = fast ? NULL : calloc(c->nr_data / 2 + 1, 1);
	if (!c->mexp || (!fast && !c->dexp))
		return -ENOMEM;
	for (unsigned x = 0; x < 256; x++)
		c->dexp_enc[x] = (uint8_t)(two_bits(x & 15) | two_bits(x >> 4) << 2);
	/* the superblock and the metadata snapshot's copy of it (distinct
	 * blocks, counted first: no overflow) */
	c->mexp[0]++;
	if (c->sb.held_root)
		c->mexp[c->sb.held_root]++;
	return 0;
}

void thin_chk_counts_free(struct chk *c)
{
	free(c->mexp);
	free(c->dexp);
	u64map_destroy(&c->dover);
	u64map_destroy(&c->mover);
}
