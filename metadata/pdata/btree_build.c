/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_build.c - bottom-up btree writer. See btree_build.h. */
#include "metadata/pdata/btree_build.h"

#include <errno.h>
#include <stdlib.h>

void btree_build_init(struct btree_build *bb, uint32_t vsize,
		      int (*alloc)(void *ctx, uint64_t *b),
		      int (*write)(void *ctx, uint64_t b, const void *data), void *ctx)
{
	memset(bb, 0, sizeof(*bb));
	bb->vsize = vsize;
	bb->alloc = alloc;
	bb->write = write;
	bb->ctx = ctx;
}

void btree_build_destroy(struct btree_build *bb)
{
	for (int i = 0; i < BTREE_MAX_DEPTH; i++) {
		free(bb->lv[i].prev);
		free(bb->lv[i].cur);
		bb->lv[i].prev = bb->lv[i].cur = NULL;
	}
}

static int add_at(struct btree_build *bb, int level, uint64_t key, const void *value);

static int emit(struct btree_build *bb, int level, unsigned char *node, uint64_t *out)
{
	uint64_t b;
	int r;

	if ((r = bb->alloc(bb->ctx, &b)))
		return r;
	btree_node_prepare(node, b);
	if ((r = bb->write(bb->ctx, b, node)))
		return r;
	bb->lv[level].written++;
	if (out) {
		*out = b;
		return 0;
	}
	unsigned char v[8];
	le64_put(v, b);
	return add_at(bb, level + 1, bn_key(node, 0), v);
}

static int add_at(struct btree_build *bb, int level, uint64_t key, const void *value)
{
	struct btree_build_level *l;
	uint32_t vs = level ? 8 : bb->vsize;
	int r;

	if (level >= BTREE_MAX_DEPTH)
		return -E2BIG;
	l = &bb->lv[level];
	if (!l->cur) {
		l->cur = malloc(BM_BLOCK_SIZE);
		if (!l->cur)
			return -ENOMEM;
		bn_init(l->cur, level ? BTREE_NODE_INTERNAL : BTREE_NODE_LEAF, vs);
	}
	if (bn_nr(l->cur) == bn_max(l->cur)) {
		if (l->prev) {
			if ((r = emit(bb, level, l->prev, NULL)))
				return r;
		} else {
			l->prev = malloc(BM_BLOCK_SIZE);
			if (!l->prev)
				return -ENOMEM;
		}
		unsigned char *t = l->prev;
		l->prev = l->cur;
		l->cur = t;
		bn_init(l->cur, level ? BTREE_NODE_INTERNAL : BTREE_NODE_LEAF, vs);
	}
	uint32_t n = bn_nr(l->cur);
	bn_set_key(l->cur, n, key);
	memcpy(bn_value(l->cur, n), value, vs);
	bn_set_nr(l->cur, n + 1);
	return 0;
}

int btree_build_add(struct btree_build *bb, uint64_t key, const void *value)
{
	if (bb->entries && key <= bb->last_key)
		return -EINVAL;
	bb->entries++;
	bb->last_key = key;
	return add_at(bb, 0, key, value);
}

int btree_build_add_seq64(struct btree_build *bb, uint64_t key, uint64_t n, uint64_t value,
			  uint64_t step)
{
	unsigned char v[8];
	int r;

	if (!n)
		return 0;
	if (bb->vsize != 8 || key + (n - 1) < key)
		return -EINVAL;
	while (n) {
		unsigned char *cur = bb->lv[0].cur;
		uint32_t nr, room;

		if (!cur || (nr = bn_nr(cur)) == bn_max(cur)) {
			/* a new leaf: the general path rotates the nodes */
			le64_put(v, value);
			if ((r = btree_build_add(bb, key, v)))
				return r;
			key++;
			value += step;
			n--;
			continue;
		}
		if (bb->entries && key <= bb->last_key)
			return -EINVAL;
		room = bn_max(cur) - nr;
		if (room > n)
			room = (uint32_t)n;
		unsigned char *kp = cur + BTREE_HEADER_SIZE + 8 * (size_t)nr;
		unsigned char *vp = (unsigned char *)bn_value(cur, nr);
		for (uint32_t i = 0; i < room; i++) {
			le64_put(kp + 8 * (size_t)i, key + i);
			le64_put(vp + 8 * (size_t)i, value + i * step);
		}
		bn_set_nr(cur, nr + room);
		bb->entries += room;
		bb->last_key = key + room - 1;
		key += room;
		value += room * step;
		n -= room;
	}
	return 0;
}

/* Move entries from the end of LEFT (full) to the front of RIGHT so both
 * hold about half of the total. */
static void balance(unsigned char *left, unsigned char *right)
{
	uint32_t nl = bn_nr(left), nr = bn_nr(right), vs = bn_vsize(left);
	uint32_t total = nl + nr, want_l = total / 2, move = nl - want_l;

	if (nr >= want_l)
		return;
	memmove(right + BTREE_HEADER_SIZE + 8 * (size_t)move, right + BTREE_HEADER_SIZE, 8 * (size_t)nr);
	memmove(bn_value(right, move), bn_value(right, 0), (size_t)vs * nr);
	memcpy(right + BTREE_HEADER_SIZE, left + BTREE_HEADER_SIZE + 8 * (size_t)want_l, 8 * (size_t)move);
	memcpy(bn_value(right, 0), bn_value(left, want_l), (size_t)vs * move);
	bn_set_nr(left, want_l);
	bn_set_nr(right, nr + move);
}

int btree_build_finish(struct btree_build *bb, uint64_t *root)
{
	int r;

	for (int level = 0; level < BTREE_MAX_DEPTH; level++) {
		struct btree_build_level *l = &bb->lv[level];

		if (!l->cur) {	/* only possible for an empty tree */
			l->cur = malloc(BM_BLOCK_SIZE);
			if (!l->cur)
				return -ENOMEM;
			bn_init(l->cur, BTREE_NODE_LEAF, bb->vsize);
		}
		if (!l->written && !l->prev)
			return emit(bb, level, l->cur, root);
		if (l->prev) {
			balance(l->prev, l->cur);
			if ((r = emit(bb, level, l->prev, NULL)))
				return r;
		}
		if ((r = emit(bb, level, l->cur, NULL)))
			return r;
	}
	return -E2BIG;
}

uint64_t btree_build_nr_nodes(uint64_t nr, uint32_t vsize)
{
	uint64_t total = 0, max = btree_max_entries(vsize);

	if (!nr)
		return 1;
	for (;;) {
		uint64_t nodes = (nr + max - 1) / max;
		total += nodes;
		if (nodes == 1)
			return total;
		nr = nodes;
		max = btree_max_entries(8);
	}
}
