/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_remove.c - removal keeping every non-root node >= max_entries/3.
 *
 * Top-down along a shadow spine: before descending from an internal node
 * into child i, a child holding <= max/3 entries is first merged with a
 * sibling (when both fit in one node) or balanced with it (half each), so
 * removing one entry below cannot leave it underfull. A merge removes one
 * entry from the parent, which was itself made > max/3 on the way down.
 * A root left with a single child is replaced by that child. See btree.h. */
#include "metadata/pdata/btree.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_spine.h"

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

/* Step the spine from the current internal node N into child *I, first
 * making that child safe to remove from (merging or balancing it with a
 * sibling). *I is the child's index afterwards. */
static int step_fixed(const struct btree_info *info, struct shadow_spine *s, uint64_t key,
		      uint32_t i)
{
	struct rw_node sib, *c;
	unsigned char *n = btree_shadow_current(s)->n, *l, *rt;
	uint32_t j, li, ri;
	int r;

	if ((r = btree_shadow_step(s, bn_value64(n, i))))
		return r;
	c = btree_shadow_current(s);
	bn_set_value64(n, i, c->loc);
	if (bn_nr(c->n) > bn_max(c->n) / 3 || bn_nr(n) < 2)
		return 0;
	j = i + 1 < bn_nr(n) ? i + 1 : i - 1;
	if ((r = btree_rw_shadow(info, bn_value64(n, j), &sib)))
		return r;
	bn_set_value64(n, j, sib.loc);
	if (bn_flags(sib.n) != bn_flags(c->n) || bn_vsize(sib.n) != bn_vsize(c->n) ||
	    bn_max(sib.n) != bn_max(c->n)) {
		log_error("btree nodes %" PRIu64 " and %" PRIu64 ": siblings of different kinds",
			  c->loc, sib.loc);
		btree_rw_unlock(info, &sib);
		return -EUCLEAN;
	}
	li = TP_MIN(i, j);
	ri = TP_MAX(i, j);
	l = li == i ? c->n : sib.n;
	rt = li == i ? sib.n : c->n;
	if (bn_nr(l) + bn_nr(rt) <= bn_max(l)) {
		/* merge into the left node; the right one's children move with
		 * its entries, so only its own block is released */
		uint64_t rloc = bn_value64(n, ri);
		merge(l, rt);
		delete_at(n, ri);
		if (l != c->n)
			btree_shadow_replace_current(s, &sib);
		else
			btree_rw_unlock(info, &sib);
		return tm_dec(info->tm, rloc);
	}
	redistribute(l, rt);
	bn_set_key(n, ri, bn_key(rt, 0));
	/* continue in whichever node now holds KEY */
	if ((key >= bn_key(n, ri)) == (ri == i))
		btree_rw_unlock(info, &sib);
	else
		btree_shadow_replace_current(s, &sib);
	return 0;
}

int btree_remove(const struct btree_info *info, uint64_t root, uint64_t key,
		 uint64_t *new_root)
{
	size_t done;

	return btree_remove_run(info, root, &key, 1, new_root, &done);
}

/* After KEYS[0] left leaf N: the following keys that are in N too, while
 * N keeps more than max/3 entries (any number in a root leaf). */
static int remove_more(const struct btree_info *info, unsigned char *n, int is_root,
		       const uint64_t *keys, size_t nr_keys, size_t *done)
{
	int r;

	for (*done = 1; *done < nr_keys && (is_root || bn_nr(n) > bn_max(n) / 3); (*done)++) {
		int i = bn_lower_bound(n, keys[*done]);
		if (i < 0 || bn_key(n, (uint32_t)i) != keys[*done])
			break;
		if (info->vt.dec && (r = info->vt.dec(info->vt.ctx, bn_value(n, (uint32_t)i))))
			return r;
		delete_at(n, (uint32_t)i);
	}
	return 0;
}

int btree_remove_run(const struct btree_info *info, uint64_t root, const uint64_t *keys,
		     size_t nr_keys, uint64_t *new_root, size_t *done)
{
	struct shadow_spine s;
	uint64_t key = keys[0];
	int r;

	*done = 0;
	if ((r = btree_lookup(info, root, key, NULL)))
		return r;	/* -ENODATA: nothing changes */
	btree_shadow_spine_init(&s, info);
	if ((r = btree_shadow_step(&s, root)))
		goto out;
	*new_root = s.root;
	for (;;) {
		unsigned char *n = btree_shadow_current(&s)->n;
		int i = bn_lower_bound(n, key);

		if (i < 0 || !bn_nr(n)) {
			log_error("btree node %" PRIu64 ": key %" PRIu64 " vanished (a loop?)",
				  btree_shadow_current(&s)->loc, key);
			r = -EUCLEAN;
			goto out;
		}
		if (bn_is_leaf(n)) {
			if (bn_key(n, (uint32_t)i) != key) {
				r = -EUCLEAN;
				goto out;
			}
			if (info->vt.dec && (r = info->vt.dec(info->vt.ctx, bn_value(n, (uint32_t)i))))
				goto out;
			delete_at(n, (uint32_t)i);
			if ((r = remove_more(info, n, !btree_shadow_parent(&s), keys, nr_keys,
					     done)))
				goto out;
			break;
		}
		if ((r = step_fixed(info, &s, key, (uint32_t)i)))
			goto out;
	}
	btree_shadow_spine_exit(&s);
	/* a root with one child: the child becomes the root */
	for (;;) {
		struct ro_node rn;
		uint64_t child;

		if ((r = btree_ro_lock(info, *new_root, &rn)))
			return r;
		if (bn_is_leaf(rn.n) || bn_nr(rn.n) != 1) {
			btree_ro_unlock(info, &rn);
			return 0;
		}
		child = bn_value64(rn.n, 0);
		btree_ro_unlock(info, &rn);
		if ((r = tm_dec(info->tm, *new_root)))
			return r;
		*new_root = child;
	}
out:
	btree_shadow_spine_exit(&s);
	return r;
}
