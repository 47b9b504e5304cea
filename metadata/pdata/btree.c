/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree.c - lookup (ro_spine), insert (shadow_spine, top-down splitting),
 * walk and delete. Removal is in btree_remove.c. See btree.h. */
#include "metadata/pdata/btree.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_spine.h"

int btree_empty(const struct btree_info *info, uint64_t *root)
{
	struct rw_node nd;
	int r = btree_rw_new(info, BTREE_NODE_LEAF, &nd);

	if (r)
		return r;
	*root = nd.loc;
	btree_rw_unlock(info, &nd);
	return 0;
}

int btree_lookup(const struct btree_info *info, uint64_t root, uint64_t key, void *value)
{
	struct ro_spine s;
	uint64_t b = root;
	int r;

	btree_ro_spine_init(&s, info);
	for (;;) {
		const unsigned char *n;
		int i;

		if ((r = btree_ro_step(&s, b)))
			break;
		n = btree_ro_current(&s);
		i = bn_lower_bound(n, key);
		if (i < 0) {
			r = -ENODATA;
			break;
		}
		if (bn_is_leaf(n)) {
			if (bn_key(n, (uint32_t)i) != key) {
				r = -ENODATA;
			} else if (value) {
				memcpy(value, bn_value(n, (uint32_t)i), info->vt.size);
			}
			break;
		}
		b = bn_value64(n, (uint32_t)i);
	}
	btree_ro_spine_exit(&s);
	return r;
}

static int lookup_ge(const struct btree_info *info, uint64_t b, uint64_t key, int depth,
		     uint64_t *found, void *value)
{
	struct ro_node nd;
	int i, r;

	if (depth >= BTREE_MAX_DEPTH) {
		log_error("btree node %" PRIu64 ": tree too deep (a loop?)", b);
		return -EUCLEAN;
	}
	if ((r = btree_ro_lock(info, b, &nd)))
		return r;
	i = bn_lower_bound(nd.n, key);
	if (bn_is_leaf(nd.n)) {
		if (i < 0 || bn_key(nd.n, (uint32_t)i) != key)
			i++;	/* the first key above */
		if ((uint32_t)i >= bn_nr(nd.n)) {
			r = -ENODATA;
		} else {
			if (found)
				*found = bn_key(nd.n, (uint32_t)i);
			if (value)
				memcpy(value, bn_value(nd.n, (uint32_t)i), info->vt.size);
		}
	} else {
		r = -ENODATA;
		/* the answer is in child i or, if that has nothing >= KEY, a later one */
		for (uint32_t c = (uint32_t)(i < 0 ? 0 : i); c < bn_nr(nd.n) && r == -ENODATA; c++)
			r = lookup_ge(info, bn_value64(nd.n, c), key, depth + 1, found, value);
	}
	btree_ro_unlock(info, &nd);
	return r;
}

int btree_lookup_ge(const struct btree_info *info, uint64_t root, uint64_t key,
		    uint64_t *found, void *value)
{
	return lookup_ge(info, root, key, 0, found, value);
}

/* Insert slot I of N (which has room): shift the tail right. */
static void insert_at(unsigned char *n, uint32_t i, uint64_t key, const void *value)
{
	uint32_t nr = bn_nr(n), vs = bn_vsize(n);

	memmove(n + BTREE_HEADER_SIZE + 8 * (size_t)(i + 1), n + BTREE_HEADER_SIZE + 8 * (size_t)i,
		8 * (size_t)(nr - i));
	memmove(bn_value(n, i + 1), bn_value(n, i), (size_t)vs * (nr - i));
	bn_set_key(n, i, key);
	memcpy(bn_value(n, i), value, vs);
	bn_set_nr(n, nr + 1);
}

static void insert_child(unsigned char *n, uint32_t i, uint64_t key, uint64_t child)
{
	unsigned char v[8];

	le64_put(v, child);
	insert_at(n, i, key, v);
}

/* Move the upper half of LEFT into the empty node RIGHT (same kind). */
static void split_half(unsigned char *left, unsigned char *right)
{
	uint32_t nr = bn_nr(left), vs = bn_vsize(left), keep = nr / 2, move = nr - keep;

	memcpy(right + BTREE_HEADER_SIZE, left + BTREE_HEADER_SIZE + 8 * (size_t)keep, 8 * (size_t)move);
	memcpy(bn_value(right, 0), bn_value(left, keep), (size_t)vs * move);
	bn_set_nr(right, move);
	bn_set_nr(left, keep);
}

/* The root is full: move its entries into two new children and make it
 * an internal node over them (the only way the tree grows a level). */
static int split_beneath(const struct btree_info *info, unsigned char *root)
{
	struct rw_node l, rt;
	uint32_t flags = bn_flags(root);
	int r;

	if ((r = btree_rw_new(info, flags, &l)))
		return r;
	if ((r = btree_rw_new(info, flags, &rt))) {
		btree_rw_unlock(info, &l);
		return r;
	}
	memcpy(l.n, root, BM_BLOCK_SIZE);
	split_half(l.n, rt.n);
	bn_init(root, BTREE_NODE_INTERNAL, 8);
	insert_child(root, 0, bn_key(l.n, 0), l.loc);
	insert_child(root, 1, bn_key(rt.n, 0), rt.loc);
	btree_rw_unlock(info, &l);
	btree_rw_unlock(info, &rt);
	return 0;
}

int btree_insert(const struct btree_info *info, uint64_t root, uint64_t key, const void *value,
		 uint64_t *new_root, int *inserted, unsigned flags)
{
	struct shadow_spine s;
	struct rw_node *cur;
	int r;

	btree_shadow_spine_init(&s, info);
	if ((r = btree_shadow_step(&s, root)))
		goto out;
	*new_root = s.root;
	cur = btree_shadow_current(&s);
	if (bn_nr(cur->n) == bn_max(cur->n) && (r = split_beneath(info, cur->n)))
		goto out;
	for (;;) {
		unsigned char *n = btree_shadow_current(&s)->n, *p;
		int i = bn_lower_bound(n, key);

		if (bn_is_leaf(n)) {
			if (i >= 0 && bn_key(n, (uint32_t)i) == key) {
				if (!(flags & BTREE_KEEP_OLD_REF) && info->vt.dec &&
				    (r = info->vt.dec(info->vt.ctx, bn_value(n, (uint32_t)i))))
					goto out;
				memcpy(bn_value(n, (uint32_t)i), value, info->vt.size);
				if (inserted)
					*inserted = 0;
			} else {
				insert_at(n, (uint32_t)(i + 1), key, value);
				if (inserted)
					*inserted = 1;
			}
			break;
		}
		if (!bn_nr(n)) {
			log_error("btree node %" PRIu64 ": empty internal node",
				  btree_shadow_current(&s)->loc);
			r = -EUCLEAN;
			goto out;
		}
		if (i < 0) {	/* below every key: lower the first separator */
			i = 0;
			bn_set_key(n, 0, key);
		}
		if ((r = btree_shadow_step(&s, bn_value64(n, (uint32_t)i))))
			goto out;
		cur = btree_shadow_current(&s);
		p = btree_shadow_parent(&s)->n;
		bn_set_value64(p, (uint32_t)i, cur->loc);
		if (bn_nr(cur->n) == bn_max(cur->n)) {	/* split before descending */
			struct rw_node right;
			if ((r = btree_rw_new(info, bn_flags(cur->n), &right)))
				goto out;
			split_half(cur->n, right.n);
			insert_child(p, (uint32_t)i + 1, bn_key(right.n, 0), right.loc);
			if (key >= bn_key(right.n, 0))
				btree_shadow_replace_current(&s, &right);
			else
				btree_rw_unlock(info, &right);
		}
	}
out:
	btree_shadow_spine_exit(&s);
	return r;
}

static int del(const struct btree_info *info, uint64_t b, int depth)
{
	struct ro_node nd;
	uint32_t count;
	int r;

	if (depth >= BTREE_MAX_DEPTH) {
		log_error("btree node %" PRIu64 ": tree too deep (a loop?)", b);
		return -EUCLEAN;
	}
	if ((r = tm_ref(info->tm, b, &count)))
		return r;
	if (count > 1)	/* shared: the other owners keep the subtree */
		return tm_dec(info->tm, b);
	if ((r = btree_ro_lock(info, b, &nd)))
		return r;
	for (uint32_t i = 0; i < bn_nr(nd.n) && !r; i++) {
		if (!bn_is_leaf(nd.n))
			r = del(info, bn_value64(nd.n, i), depth + 1);
		else if (info->vt.dec)
			r = info->vt.dec(info->vt.ctx, bn_value(nd.n, i));
	}
	btree_ro_unlock(info, &nd);
	return r ? r : tm_dec(info->tm, b);
}

int btree_del(const struct btree_info *info, uint64_t root)
{
	return del(info, root, 0);
}

/* the children of an internal node read ahead at most (a node holds up
 * to 255 of 8 bytes) */
#define BTREE_PREFETCH 256

/* Every entry to FN, or every leaf whole to LEAF_FN when it is set. */
static int walk(const struct btree_info *info, uint64_t b, int depth,
		int (*fn)(void *ctx, uint64_t key, const void *value),
		int (*leaf_fn)(void *ctx, const void *leaf), void *ctx)
{
	struct ro_node nd;
	int r;

	if (depth >= BTREE_MAX_DEPTH) {
		log_error("btree node %" PRIu64 ": tree too deep (a loop?)", b);
		return -EUCLEAN;
	}
	if ((r = btree_ro_lock(info, b, &nd)))
		return r;
	/* the header read once per node, not per entry (a walk of a tree of
	 * 20,000 devices at every open) */
	uint32_t nr = bn_nr(nd.n), vsize = bn_vsize(nd.n);
	const unsigned char *keys = (const unsigned char *)nd.n + BTREE_HEADER_SIZE;
	const unsigned char *vals = (const unsigned char *)bn_value(nd.n, 0);

	if (bn_is_leaf(nd.n) && leaf_fn) {
		r = leaf_fn(ctx, nd.n);
	} else if (bn_is_leaf(nd.n)) {
		for (uint32_t i = 0; i < nr && !r; i++)
			r = fn(ctx, le64_get(keys + 8 * (size_t)i), vals + (size_t)i * vsize);
	} else {
		uint64_t kids[BTREE_PREFETCH];
		unsigned n = 0;

		/* the children read ahead, neighbours in one read */
		for (uint32_t i = 0; i < nr && n < BTREE_PREFETCH; i++)
			kids[n++] = le64_get(vals + 8 * (size_t)i);
		tm_prefetch(info->tm, kids, n);
		for (uint32_t i = 0; i < nr && !r; i++)
			r = walk(info, le64_get(vals + 8 * (size_t)i), depth + 1, fn, leaf_fn, ctx);
	}
	btree_ro_unlock(info, &nd);
	return r;
}

int btree_walk(const struct btree_info *info, uint64_t root,
	       int (*fn)(void *ctx, uint64_t key, const void *value), void *ctx)
{
	return walk(info, root, 0, fn, NULL, ctx);
}

int btree_walk_leaves(const struct btree_info *info, uint64_t root,
		      int (*fn)(void *ctx, const void *leaf), void *ctx)
{
	return walk(info, root, 0, NULL, fn, ctx);
}

static int count_leaf(void *ctx, const void *leaf)
{
	*(uint64_t *)ctx += bn_nr(leaf);
	return 0;
}

int btree_count(const struct btree_info *info, uint64_t root, uint64_t *n)
{
	*n = 0;
	return walk(info, root, 0, NULL, count_leaf, n);
}
