/* btree_remove.c - removal keeping every non-root node >= max_entries/3.
 *
 * Top-down: before descending from a (shadowed) internal node into child
 * i, a child holding <= max/3 entries is first merged with a sibling (when
 * both fit in one node) or balanced with it (half each), so that removing
 * one entry below cannot leave it underfull. A merge removes one entry
 * from the parent, which was itself made > max/3 on the way down. A root
 * left with a single child is replaced by that child. See btree.h. */
#include "metadata/pdata/btree.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"

static void delete_at(unsigned char *n, uint32_t i)
{
	uint32_t nr = bn_nr(n), vs = bn_vsize(n);

	memmove(n + BTREE_HEADER_SIZE + 8 * (size_t)i, n + BTREE_HEADER_SIZE + 8 * (size_t)(i + 1),
		8 * (size_t)(nr - i - 1));
	memmove(bn_value(n, i), bn_value(n, i + 1), (size_t)vs * (nr - i - 1));
	bn_set_nr(n, nr - 1);
}

/* Append all of R to L (they fit). */
static void merge(unsigned char *l, const unsigned char *r)
{
	uint32_t nl = bn_nr(l), nr = bn_nr(r), vs = bn_vsize(l);

	memcpy(l + BTREE_HEADER_SIZE + 8 * (size_t)nl, r + BTREE_HEADER_SIZE, 8 * (size_t)nr);
	memcpy(bn_value(l, nl), bn_value(r, 0), (size_t)vs * nr);
	bn_set_nr(l, nl + nr);
}

/* Share the entries of L and R evenly (L keeps the lower keys). */
static void redistribute(unsigned char *l, unsigned char *r)
{
	uint32_t nl = bn_nr(l), nr = bn_nr(r), vs = bn_vsize(l);
	uint32_t total = nl + nr, want_l = total / 2;

	if (nl > want_l) {	/* move the tail of L to the front of R */
		uint32_t m = nl - want_l;
		memmove(r + BTREE_HEADER_SIZE + 8 * (size_t)m, r + BTREE_HEADER_SIZE, 8 * (size_t)nr);
		memmove(bn_value(r, m), bn_value(r, 0), (size_t)vs * nr);
		memcpy(r + BTREE_HEADER_SIZE, l + BTREE_HEADER_SIZE + 8 * (size_t)want_l, 8 * (size_t)m);
		memcpy(bn_value(r, 0), bn_value(l, want_l), (size_t)vs * m);
	} else if (nl < want_l) {	/* move the head of R to the end of L */
		uint32_t m = want_l - nl;
		memcpy(l + BTREE_HEADER_SIZE + 8 * (size_t)nl, r + BTREE_HEADER_SIZE, 8 * (size_t)m);
		memcpy(bn_value(l, nl), bn_value(r, 0), (size_t)vs * m);
		memmove(r + BTREE_HEADER_SIZE, r + BTREE_HEADER_SIZE + 8 * (size_t)m, 8 * (size_t)(nr - m));
		memmove(bn_value(r, 0), bn_value(r, m), (size_t)vs * (nr - m));
	}
	bn_set_nr(l, want_l);
	bn_set_nr(r, total - want_l);
}

/* Make child *I of N (shadowed, internal) safe to remove from; returns it
 * shadowed and write locked in *OUT (and *I updated after a merge). */
static int fix_child(const struct btree_info *info, unsigned char *n, uint64_t key, uint32_t *i,
		     struct bm_block **out)
{
	struct bm_block *cb, *sb;
	unsigned char *c, *s, *l, *rt;
	uint32_t j, li, ri;
	int r;

	if ((r = btree_shadow(info, bn_value64(n, *i), &cb)))
		return r;
	bn_set_value64(n, *i, bm_block_location(cb));
	c = bm_block_data(cb);
	if (bn_nr(c) > bn_max(c) / 3 || bn_nr(n) < 2) {
		*out = cb;
		return 0;
	}
	j = *i + 1 < bn_nr(n) ? *i + 1 : *i - 1;
	if ((r = btree_shadow(info, bn_value64(n, j), &sb))) {
		tm_unlock(info->tm, cb);
		return r;
	}
	bn_set_value64(n, j, bm_block_location(sb));
	s = bm_block_data(sb);
	if (bn_flags(s) != bn_flags(c) || bn_vsize(s) != bn_vsize(c) || bn_max(s) != bn_max(c)) {
		log_error("btree nodes %" PRIu64 " and %" PRIu64 ": siblings of different kinds",
			  bm_block_location(cb), bm_block_location(sb));
		tm_unlock(info->tm, cb);
		tm_unlock(info->tm, sb);
		return -EUCLEAN;
	}
	li = TP_MIN(*i, j);
	ri = TP_MAX(*i, j);
	l = li == *i ? c : s;
	rt = li == *i ? s : c;
	if (bn_nr(l) + bn_nr(rt) <= bn_max(l)) {
		uint64_t rloc = bn_value64(n, ri);
		merge(l, rt);
		delete_at(n, ri);
		/* the right node's children now belong to the left one: free only
		 * the block itself (it is a fresh shadow with count 1) */
		struct bm_block *keep = l == c ? cb : sb, *drop = l == c ? sb : cb;
		tm_unlock(info->tm, drop);
		if ((r = tm_dec(info->tm, rloc))) {
			tm_unlock(info->tm, keep);
			return r;
		}
		*i = li;
		*out = keep;
		return 0;
	}
	redistribute(l, rt);
	bn_set_key(n, ri, bn_key(rt, 0));
	if (bn_key(n, li) > bn_key(l, 0))
		bn_set_key(n, li, bn_key(l, 0));
	/* the key now lives left or right of the new separator */
	struct bm_block *lb = l == c ? cb : sb, *rb = l == c ? sb : cb;
	if (key >= bn_key(n, ri)) {
		tm_unlock(info->tm, lb);
		*out = rb;
		*i = ri;
	} else {
		tm_unlock(info->tm, rb);
		*out = lb;
		*i = li;
	}
	return 0;
}

int btree_remove(const struct btree_info *info, uint64_t root, uint64_t key,
		 uint64_t *new_root)
{
	struct bm_block *blk, *cblk;
	unsigned char *n;
	uint64_t root_loc;
	int r;

	if ((r = btree_lookup(info, root, key, NULL)))
		return r;	/* -ENODATA: nothing changes */
	if ((r = btree_shadow(info, root, &blk)))
		return r;
	root_loc = bm_block_location(blk);
	*new_root = root_loc;
	n = bm_block_data(blk);
	for (int depth = 0;; depth++) {
		int i = bn_lower_bound(n, key);

		if (depth >= BTREE_MAX_DEPTH || i < 0) {
			log_error("btree node %" PRIu64 ": key %" PRIu64 " vanished (a loop?)",
				  bm_block_location(blk), key);
			tm_unlock(info->tm, blk);
			return -EUCLEAN;
		}
		if (bn_is_leaf(n)) {
			if (bn_key(n, (uint32_t)i) != key) {
				tm_unlock(info->tm, blk);
				return -EUCLEAN;
			}
			if (info->vt.dec && (r = info->vt.dec(info->vt.ctx, bn_value(n, (uint32_t)i)))) {
				tm_unlock(info->tm, blk);
				return r;
			}
			delete_at(n, (uint32_t)i);
			tm_unlock(info->tm, blk);
			break;
		}
		uint32_t ci = (uint32_t)i;
		if ((r = fix_child(info, n, key, &ci, &cblk))) {
			tm_unlock(info->tm, blk);
			return r;
		}
		/* fix_child may have moved the boundary: pick the child again */
		tm_unlock(info->tm, blk);
		blk = cblk;
		n = bm_block_data(blk);
		if (!bn_nr(n)) {
			log_error("btree node %" PRIu64 ": inconsistent separator keys",
				  bm_block_location(blk));
			tm_unlock(info->tm, blk);
			return -EUCLEAN;
		}
	}
	/* a root with one child: the child becomes the root */
	for (;;) {
		struct bm_block *rb;
		const unsigned char *rn;
		uint64_t child;

		if ((r = tm_read_lock(info->tm, *new_root, &btree_node_validator, &rb)))
			return r;
		rn = bm_block_data(rb);
		if (bn_is_leaf(rn) || bn_nr(rn) != 1) {
			tm_unlock(info->tm, rb);
			return 0;
		}
		child = bn_value64(rn, 0);
		tm_unlock(info->tm, rb);
		if ((r = tm_dec(info->tm, *new_root)))
			return r;
		*new_root = child;
	}
}
