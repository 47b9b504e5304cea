/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_cursor.c - read-only cursor in key order. See btree_cursor.h. */
#include "metadata/pdata/btree_cursor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *level(struct btree_cursor *c, int d)
{
	return c->path + (size_t)d * BM_BLOCK_SIZE;
}

/* Put node B at level D of the path: 1, or 0 when it is skipped or the
 * cursor stopped (c->err). */
static int enter(struct btree_cursor *c, int d, uint64_t b)
{
	const struct btree_cursor_ops *o = c->ops;
	enum btree_node_fault f = BTREE_NODE_OK;
	const unsigned char *n = NULL;
	int r = d > BTREE_MAX_DEPTH ? -ELOOP : o->read(o->ctx, b, level(c, d));

	if (!r) {
		n = level(c, d);
		r = btree_node_check(n, b, c->leaf_vsize, c->rules, &f);
	}
	if (r) {
		if (o->bad && (c->err = o->bad(o->ctx, b, n, r, f)))
			c->depth = -1;
		return 0;
	}
	if (o->node && (c->err = o->node(o->ctx, b, n, d))) {
		c->depth = -1;
		return 0;
	}
	c->idx[d] = 0;
	return 1;
}

int btree_cursor_init(struct btree_cursor *c, const struct btree_cursor_ops *ops, uint64_t root,
		      uint32_t leaf_vsize, unsigned rules)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->leaf_vsize = leaf_vsize;
	c->rules = rules;
	c->depth = -1;
	if (!(c->path = malloc((size_t)(BTREE_MAX_DEPTH + 1) * BM_BLOCK_SIZE)))
		return -ENOMEM;
	if (enter(c, 0, root))
		c->depth = 0;
	return 0;
}

int btree_cursor_next(struct btree_cursor *c)
{
	while (c->depth >= 0) {
		const unsigned char *n = level(c, c->depth);
		uint32_t i = c->idx[c->depth];

		if (i >= bn_nr(n)) {
			if (--c->depth >= 0)
				c->idx[c->depth]++;
		} else if (!bn_is_leaf(n)) {
			if (enter(c, c->depth + 1, bn_value64(n, i)))
				c->depth++;
			else if (!c->err)
				c->idx[c->depth]++;
		} else {
			c->key = bn_key(n, i);
			c->value = bn_value(n, i);
			c->idx[c->depth]++;
			return 1;
		}
	}
	return 0;
}

void btree_cursor_exit(struct btree_cursor *c)
{
	if (!c)
		return;
	free(c->path);
	c->path = NULL;
	c->depth = -1;
}
