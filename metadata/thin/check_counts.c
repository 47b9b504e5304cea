/* check_counts.c - the checker's counting pass and the space-map
 * comparison (format doc 4.5): every distinct node of the details and
 * mapping trees (live and metadata snapshot) is read once; its count is
 * the number of references to it (child slots, top-level values, roots),
 * a shared node's children are counted once; data counts are the number
 * of distinct bottom-level leaf entries naming the block. Space-map
 * blocks and the superblock copies count 1. The walker (thin_walk.c)
 * reports structural damage; this pass adds node fill and max_entries
 * rules, and stays silent about nodes it cannot read. */
#include "metadata/thin/check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/le.h"
#include "metadata/thin/check_util.h"

enum tree { TREE_TOP, TREE_BOTTOM, TREE_DETAILS };

static const char *tree_name[] = { "top-level mapping", "mapping", "device details" };

static int data_ref(struct chk *c, uint64_t b)
{
	uint64_t v;

	if (b >= c->nr_data)
		return 0;	/* reported by the walk */
	if (c->dexp[b] < 255) {
		c->dexp[b]++;
		return 0;
	}
	v = 255;
	u64map_get(&c->dover, b, &v);
	return u64map_put(&c->dover, b, v + 1);
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
	if (io_read(c->io, b * BM_BLOCK_SIZE, n, BM_BLOCK_SIZE) || !check_node_usable(n, b, vsize[t])) {
		c->count_unsure = 1;
		return 0;
	}
	nr = bn_nr(n);
	if (bn_max(n) % 3)
		check_problem(c, 1, b, "%s tree node %" PRIu64 ": max_entries %" PRIu32
			      " is not a multiple of 3", tree_name[t], b, bn_max(n));
	if (!is_root && nr < bn_max(n) / 3)
		check_problem(c, 0, b, "%s tree node %" PRIu64 ": only %" PRIu32
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
				    !check_node_usable(rn, root, 8))
					check_problem(c, 1, root, "thin device %" PRIu64
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

static int count_own(void *ctx, uint64_t b)
{
	struct chk *c = ctx;

	if (b < c->nr_meta)
		c->mexp[b]++;
	return 0;
}

static int count_sb_trees(struct chk *c, const struct thin_sb *sb)
{
	int r = count_node(c, sb->details_root, TREE_DETAILS, 0, 1);
	return r ? r : count_node(c, sb->mapping_root, TREE_TOP, 0, 1);
}

int check_count_trees(struct chk *c)
{
	int fast = c->o && (c->o->flags & THIN_CHECK_FAST);
	int r;

	u64map_init(&c->dover);
	c->mexp = calloc(c->nr_meta ? c->nr_meta : 1, sizeof(*c->mexp));
	c->dexp = fast ? NULL : calloc(c->nr_data ? c->nr_data : 1, 1);
	if (!c->mexp || (!fast && !c->dexp))
		return -ENOMEM;
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
	if ((c->msm && (r = sm_for_each_own_block(c->msm, count_own, c))) ||
	    (c->dsm && (r = sm_for_each_own_block(c->dsm, count_own, c))))
		return r;
	return 0;
}

/* Runs of leaked blocks are reported as ranges. */
struct leaks {
	const char *what;
	uint64_t begin, end;
};

static void leak_flush(struct chk *c, struct leaks *l)
{
	if (l->end == l->begin)
		return;
	if (l->end - l->begin == 1)
		check_problem(c, 0, UINT64_MAX, "%s block %" PRIu64 " is leaked (counted, but "
			      "nothing refers to it)", l->what, l->begin);
	else
		check_problem(c, 0, UINT64_MAX, "%s blocks %" PRIu64 "..%" PRIu64 " are leaked "
			      "(counted, but nothing refers to them)", l->what, l->begin, l->end - 1);
	l->begin = l->end = 0;
}

static void leak_add(struct chk *c, struct leaks *l, uint64_t b)
{
	if (l->end != l->begin && l->end == b) {
		l->end++;
		return;
	}
	leak_flush(c, l);
	l->begin = b;
	l->end = b + 1;
}

static int compare_map(struct chk *c, struct space_map *sm, const char *what, int data)
{
	struct leaks l = { what, 0, 0 };
	uint64_t nr = sm_nr_blocks(sm), allocated = 0, exp, v;
	uint64_t nb = (nr + SM_ENTRIES_PER_BITMAP - 1) / SM_ENTRIES_PER_BITMAP;
	uint32_t got, *nfree = calloc(nb ? nb : 1, sizeof(*nfree));
	uint32_t *first = malloc((nb ? nb : 1) * sizeof(*first));
	uint32_t *second = malloc((nb ? nb : 1) * sizeof(*second));
	int r, bad_bitmap = 0;

	if (!nfree || !first || !second) {
		r = -ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < nb; i++)
		first[i] = second[i] = (uint32_t)TP_MIN((uint64_t)SM_ENTRIES_PER_BITMAP,
							nr - i * SM_ENTRIES_PER_BITMAP);

	for (uint64_t b = 0; b < nr; b++) {
		if ((r = sm_get(sm, b, &got))) {
			if (r == -ENOMEM)
				goto out;
			bad_bitmap = 1;
			check_problem(c, 1, UINT64_MAX, "%s space map: bitmap for block %" PRIu64
				      " unreadable", what, b);
			b = (b / SM_ENTRIES_PER_BITMAP + 1) * SM_ENTRIES_PER_BITMAP - 1;
			continue;
		}
		if (data) {
			exp = c->dexp[b];
			if (exp == 255 && u64map_get(&c->dover, b, &v))
				exp = v;
		} else {
			exp = c->mexp[b];
		}
		allocated += got != 0;
		if (!got) {
			uint64_t bi = b / SM_ENTRIES_PER_BITMAP;
			uint32_t e = (uint32_t)(b % SM_ENTRIES_PER_BITMAP);
			nfree[bi]++;
			if (e < first[bi]) {
				second[bi] = first[bi];
				first[bi] = e;
			} else if (e < second[bi]) {
				second[bi] = e;
			}
		}
		if (got == exp)
			continue;
		if (!exp) {
			leak_add(c, &l, b);
			continue;
		}
		check_problem(c, 1, UINT64_MAX, "%s block %" PRIu64 ": reference count %" PRIu32
			      ", expected %" PRIu64, what, b, got, exp);
	}
	leak_flush(c, &l);
	/* thin_restore 0.9.0 counts one freed scratch block (format doc 10.6) */
	if (allocated != sm_nr_allocated(sm) && (data || sm_nr_allocated(sm) != allocated + 1))
		check_problem(c, 0, UINT64_MAX, "%s space map: nr_allocated says %" PRIu64
			      ", the bitmaps hold %" PRIu64, what, sm_nr_allocated(sm), allocated);
	if (data)
		c->rep->data_used = allocated;
	else
		c->rep->meta_used = allocated;
	r = bad_bitmap ? 0 : check_index_entries(c, data, nfree, first, second, nb);
out:
	free(nfree);
	free(first);
	free(second);
	return r;
}

int check_compare_counts(struct chk *c)
{
	int fast = c->o && (c->o->flags & THIN_CHECK_FAST);
	int r;

	if (fast) {
		/* load every bitmap: checksums and own block numbers */
		struct space_map *maps[2] = { c->msm, c->dsm };
		for (int m = 0; m < 2; m++) {
			uint32_t got;
			if (!maps[m])
				continue;
			for (uint64_t b = 0; b < sm_nr_blocks(maps[m]); b += SM_ENTRIES_PER_BITMAP)
				if ((r = sm_get(maps[m], b, &got))) {
					if (r == -ENOMEM)
						return r;
					check_problem(c, 1, UINT64_MAX, "%s space map: bitmap for "
						      "block %" PRIu64 " unreadable",
						      m ? "data" : "metadata", b);
				}
		}
		return 0;
	}
	if (c->tree_damage || c->count_unsure || !c->msm || !c->dsm)
		return 0;	/* counts would only echo the damage already reported */
	if ((r = compare_map(c, c->msm, "metadata", 0)))
		return r;
	return compare_map(c, c->dsm, "data", 1);
}

void check_counts_free(struct chk *c)
{
	free(c->mexp);
	free(c->dexp);
	u64map_destroy(&c->dover);
}
