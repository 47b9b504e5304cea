/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_spine.c - read-only and shadowing node holders. See btree_spine.h. */
#include "metadata/pdata/btree_spine.h"

#include <errno.h>
#include <inttypes.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"

int btree_ro_lock(const struct btree_info *info, uint64_t b, struct ro_node *out)
{
	int r = tm_read_lock(info->tm, b, &btree_node_validator, &out->blk);

	if (r)
		return r;
	out->n = bm_block_data(out->blk);
	if ((r = btree_node_check_log(out->n, b, info->vt.size,
					 BTREE_RULE_HEADER_DONE)))
		btree_ro_unlock(info, out);
	return r;
}

void btree_ro_unlock(const struct btree_info *info, struct ro_node *nd)
{
	if (nd->blk)
		tm_unlock(info->tm, nd->blk);
	nd->blk = NULL;
	nd->n = NULL;
}

int btree_rw_shadow(const struct btree_info *info, uint64_t b, struct rw_node *out)
{
	int inc, r;

	if ((r = tm_shadow_block(info->tm, b, &btree_node_validator, &out->blk, &inc)))
		return r;
	out->n = bm_block_data(out->blk);
	out->loc = bm_block_location(out->blk);
	if ((r = btree_node_check_log(out->n, b, info->vt.size,
					 BTREE_RULE_HEADER_DONE)))
		goto fail;
	if (inc) {	/* the copy is one more owner of everything it points to */
		for (uint32_t i = 0; i < bn_nr(out->n) && !r; i++) {
			if (!bn_is_leaf(out->n))
				r = tm_inc(info->tm, bn_value64(out->n, i));
			else if (info->vt.inc)
				r = info->vt.inc(info->vt.ctx, bn_value(out->n, i));
		}
		if (r)
			goto fail;
	}
	return 0;
fail:
	btree_rw_unlock(info, out);
	return r;
}

int btree_rw_new(const struct btree_info *info, uint32_t flags, struct rw_node *out)
{
	int r = tm_new_block(info->tm, &btree_node_validator, &out->blk);

	if (r)
		return r;
	out->n = bm_block_data(out->blk);
	out->loc = bm_block_location(out->blk);
	bn_init(out->n, flags, flags == BTREE_NODE_LEAF ? info->vt.size : 8);
	return 0;
}

void btree_rw_unlock(const struct btree_info *info, struct rw_node *nd)
{
	if (nd->blk)
		tm_unlock(info->tm, nd->blk);
	nd->blk = NULL;
	nd->n = NULL;
}

static int too_deep(int depth, uint64_t b)
{
	if (depth < BTREE_MAX_DEPTH)
		return 0;
	log_error("btree node %" PRIu64 ": tree deeper than %d levels (a loop?)", b,
		  BTREE_MAX_DEPTH);
	return -EUCLEAN;
}

void btree_ro_spine_init(struct ro_spine *s, const struct btree_info *info)
{
	*s = (struct ro_spine){ info, { { NULL, NULL }, { NULL, NULL } }, 0, 0 };
}

int btree_ro_step(struct ro_spine *s, uint64_t b)
{
	int r;

	if ((r = too_deep(s->depth++, b)))
		return r;
	if (s->count == 2) {
		btree_ro_unlock(s->info, &s->nodes[0]);
		s->nodes[0] = s->nodes[1];
		s->count = 1;
	}
	if ((r = btree_ro_lock(s->info, b, &s->nodes[s->count])))
		return r;
	s->count++;
	return 0;
}

const unsigned char *btree_ro_current(struct ro_spine *s)
{
	return s->nodes[s->count - 1].n;
}

void btree_ro_spine_exit(struct ro_spine *s)
{
	for (int i = 0; i < s->count; i++)
		btree_ro_unlock(s->info, &s->nodes[i]);
	s->count = 0;
}

void btree_shadow_spine_init(struct shadow_spine *s, const struct btree_info *info)
{
	*s = (struct shadow_spine){ info, { { NULL, NULL, 0 }, { NULL, NULL, 0 } }, 0, 0, 0 };
}

int btree_shadow_step(struct shadow_spine *s, uint64_t b)
{
	int r;

	if ((r = too_deep(s->depth++, b)))
		return r;
	if (s->count == 2) {
		btree_rw_unlock(s->info, &s->nodes[0]);
		s->nodes[0] = s->nodes[1];
		s->count = 1;
	}
	if ((r = btree_rw_shadow(s->info, b, &s->nodes[s->count])))
		return r;
	if (s->depth == 1)
		s->root = s->nodes[s->count].loc;
	s->count++;
	return 0;
}

struct rw_node *btree_shadow_current(struct shadow_spine *s)
{
	return &s->nodes[s->count - 1];
}

struct rw_node *btree_shadow_parent(struct shadow_spine *s)
{
	return s->count == 2 ? &s->nodes[0] : NULL;
}

void btree_shadow_replace_current(struct shadow_spine *s, struct rw_node *node)
{
	btree_rw_unlock(s->info, &s->nodes[s->count - 1]);
	s->nodes[s->count - 1] = *node;
}

void btree_shadow_spine_exit(struct shadow_spine *s)
{
	for (int i = 0; i < s->count; i++)
		btree_rw_unlock(s->info, &s->nodes[i]);
	s->count = 0;
}
