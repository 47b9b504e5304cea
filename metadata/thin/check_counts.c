/* check_counts.c - the checker's counting pass (format doc 4.5): every distinct node of the details and
 * mapping trees (live and metadata snapshot) is read once; its count is
 * the number of references to it (child slots, top-level values, roots),
 * a shared node's children are counted once; data counts are the number
 * of distinct bottom-level leaf entries naming the block, kept in four
 * bits per data block (15 = look in the overflow map) so memory stays
 * half a byte per data block. Space-map blocks (check_sm.c) and the
 * superblock copies count 1. The walker (thin_walk.c)
 * reports structural damage; this pass adds node fill and max_entries
 * rules, and stays silent about nodes it cannot read. */
#include "metadata/thin/check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/le.h"

enum tree { TREE_TOP, TREE_BOTTOM, TREE_DETAILS };

static const char *tree_name[] = { "top-level mapping", "mapping", "device details" };

#define NIBBLE_MAX 15u	/* this count and more: in c->dover */

static unsigned get4(const uint8_t *a, uint64_t b)
{
	return (a[b >> 1] >> ((b & 1) * 4)) & 15;
}

static int data_ref(struct chk *c, uint64_t b)
{
	unsigned v;
	uint64_t big = NIBBLE_MAX;

	if (b >= c->nr_data)
		return 0;	/* reported by the walk */
	v = get4(c->dexp, b);
	if (v < NIBBLE_MAX) {
		c->dexp[b >> 1] = (uint8_t)(c->dexp[b >> 1] + (1u << ((b & 1) * 4)));
		return v + 1 == NIBBLE_MAX ? u64map_put(&c->dover, b, NIBBLE_MAX) : 0;
	}
	u64map_get(&c->dover, b, &big);
	return u64map_put(&c->dover, b, big + 1);
}

uint64_t check_expected(struct chk *c, int data, uint64_t b)
{
	uint64_t v;

	if (!data)
		return b < c->nr_meta ? c->mexp[b] : 0;
	if (b >= c->nr_data || !c->dexp)
		return 0;
	v = get4(c->dexp, b);
	if (v == NIBBLE_MAX)
		u64map_get(&c->dover, b, &v);
	return v;
}

static int count_node(struct chk *c, uint64_t b, enum tree t, int depth, int is_root)
{
	static const uint32_t vsize[] = { 8, 8, THIN_DETAILS_SIZE };
	unsigned char n[BM_BLOCK_SIZE];
	uint32_t nr;
	int r = 0;

	if (b >= c->nr_meta || depth >= BTREE_MAX_DEPTH) {
		c->count_unsure = 1;	/* reported by the walk */
		return 0;
	}
	if (c->mexp[b]++)
		return 0;	/* children counted through the first reference */
	if (io_read(c->io, b * BM_BLOCK_SIZE, n, BM_BLOCK_SIZE) || btree_node_check(n, b, vsize[t], 0, NULL)) {
		c->count_unsure = 1;
		return 0;
	}
	nr = bn_nr(n);
	if (bn_max(n) % 3)
		thin_chk_problem(c, 1, b, "%s tree node %" PRIu64 ": max_entries %" PRIu32
			      " is not a multiple of 3", tree_name[t], b, bn_max(n));
	if (!is_root && nr < bn_max(n) / 3)
		thin_chk_problem(c, 0, b, "%s tree node %" PRIu64 ": only %" PRIu32
			      " entries, at least %" PRIu32 " expected", tree_name[t], b, nr,
			      bn_max(n) / 3);
	for (uint32_t i = 0; i < nr && !r; i++) {
		if (!bn_is_leaf(n)) {
			r = count_node(c, bn_value64(n, i), t, depth + 1, 0);
		} else if (t == TREE_TOP) {
			if (c->o && (c->o->flags & THIN_CHECK_FAST)) {
				uint64_t root = bn_value64(n, i);
				unsigned char rn[BM_BLOCK_SIZE];
				if (root >= c->nr_meta || io_read(c->io, root * BM_BLOCK_SIZE, rn,
								  BM_BLOCK_SIZE) ||
				    btree_node_check(rn, root, 8, 0, NULL))
					thin_chk_problem(c, 1, root, "thin device %" PRIu64
						      ": mapping tree root %" PRIu64 " unreadable",
						      bn_key(n, i), root);
				continue;
			}
			r = count_node(c, bn_value64(n, i), TREE_BOTTOM, 0, 1);
		} else if (t == TREE_BOTTOM) {
			r = data_ref(c, thin_bt_block(bn_value64(n, i)));
		} else {
			c->total += le64_get(bn_value(n, i));
		}
	}
	return r;
}

static int count_sb_trees(struct chk *c, const struct thin_sb *sb)
{
	int r = count_node(c, sb->details_root, TREE_DETAILS, 0, 1);
	return r ? r : count_node(c, sb->mapping_root, TREE_TOP, 0, 1);
}

int check_counts_alloc(struct chk *c)
{
	int fast = c->o && (c->o->flags & THIN_CHECK_FAST);

	u64map_init(&c->dover);
	c->mexp = calloc(c->nr_meta ? c->nr_meta : 1, sizeof(*c->mexp));
	c->dexp = fast ? NULL : calloc(c->nr_data / 2 + 1, 1);
	return !c->mexp || (!fast && !c->dexp) ? -ENOMEM : 0;
}

int check_count_trees(struct chk *c)
{
	int r;

	c->mexp[0]++;
	if ((r = count_sb_trees(c, &c->sb)))
		return r;
	if (c->sb.held_root) {
		struct thin_sb snap;
		c->mexp[c->sb.held_root]++;
		if (thin_sb_read(c->io, c->sb.held_root, &snap) == 0) {
			if ((r = count_sb_trees(c, &snap)))
				return r;
		} else {
			c->count_unsure = 1;	/* the walk reports it */
		}
	}
	return 0;
}

int check_compare_counts(struct chk *c)
{
	int fast = c->o && (c->o->flags & THIN_CHECK_FAST);
	/* after damage to the trees the counts would only echo it: bitmaps
	 * are still read and validated */
	int counts = !fast && !c->tree_damage && !c->count_unsure;
	int r = check_sm_compare(c, 0, counts);

	return r ? r : check_sm_compare(c, 1, counts);
}

void check_counts_free(struct chk *c)
{
	free(c->mexp);
	free(c->dexp);
	u64map_destroy(&c->dover);
}
