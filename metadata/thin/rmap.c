/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rmap.c - the reverse map of thin metadata. See rmap.h. */
#include "metadata/thin/rmap.h"

#include "lib/base/le.h"
#include "lib/base/log.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_ro.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RMAP_CACHE_BLOCKS 64u
#define NODE_RULES (BTREE_RULE_HEADER_DONE | BTREE_RULE_NONEMPTY | BTREE_RULE_KEY_ORDER)

struct walk {
	struct block_manager *bm;
	unsigned flags;
	const struct thin_rmap_region *regions;
	size_t nr_regions;
	struct u64map seen;		/* SHARED_ONCE: mapping-tree nodes read */
	struct thin_rmap *out;
	struct thin_rmap_run cur;	/* data_end == data_begin: none yet */
	uint64_t dev_id;
	unsigned leaf_depth;		/* of this device's tree; 0 = no leaf yet */
	uint64_t *devs;			/* top level: dev_id, root pairs */
	size_t nr_devs;
};

static int push_run(struct walk *w)
{
	struct thin_rmap *m = w->out;

	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct thin_rmap_run *n = realloc(m->runs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->runs = n;
		m->cap = cap;
	}
	m->runs[m->nr++] = w->cur;
	return 0;
}

static int in_regions(const struct walk *w, uint64_t b)
{
	for (size_t i = 0; i < w->nr_regions; i++)
		if (b >= w->regions[i].begin && b < w->regions[i].end)
			return 1;
	return 0;
}

/* One mapping VBLOCK -> DBLOCK of the current device. */
static int mapping(struct walk *w, uint64_t vblock, uint64_t dblock)
{
	struct thin_rmap_run *c = &w->cur;
	uint64_t len = c->data_end - c->data_begin;
	int r;

	if (!in_regions(w, dblock))
		return 0;
	if (len && c->dev_id == w->dev_id && c->data_end == dblock &&
	    c->thin_begin + len == vblock) {
		c->data_end++;
		return 0;
	}
	if (len && (r = push_run(w)))
		return r;
	*c = (struct thin_rmap_run){ dblock, dblock + 1, w->dev_id, vblock };
	return 0;
}

static int bad(const struct walk *w, uint64_t b, const char *why)
{
	log_error("%s: thin device %llu: mapping tree node %llu: %s",
		  bm_io(w->bm)->name, (unsigned long long)w->dev_id, (unsigned long long)b, why);
	return -EUCLEAN;
}

/* Node B at DEPTH (root 1), its keys within [LO, HI) (HI 0: open). */
static int walk_node(struct walk *w, uint64_t b, unsigned depth, uint64_t lo, uint64_t hi)
{
	struct bm_block *blk;
	const void *n;
	uint32_t nr;
	int r;

	if (depth > BTREE_MAX_DEPTH)
		return bad(w, b, "the tree is deeper than any real one (a loop)");
	if (w->flags & THIN_RMAP_SHARED_ONCE) {
		if (u64map_get(&w->seen, b, NULL))
			return 0;
		if ((r = u64map_put(&w->seen, b, 1)))
			return r;
	}
	if ((r = bm_read_lock(w->bm, b, &btree_node_validator, &blk)))	/* logs why */
		return r == -ENOMEM ? r : bad(w, b, "unreadable (check it with tpcheck)");
	n = bm_block_data(blk);
	if (btree_node_check_log(n, b, 8, NODE_RULES)) {
		bm_unlock(blk);
		return bad(w, b, "not a valid mapping-tree node (check it with tpcheck)");
	}
	nr = bn_nr(n);
	if (nr && (bn_key(n, 0) < lo || (hi && bn_key(n, nr - 1) >= hi))) {
		bm_unlock(blk);
		return bad(w, b, "keys outside the range its parent gives it");
	}
	if (bn_is_leaf(n)) {
		if (w->leaf_depth && w->leaf_depth != depth)
			r = bad(w, b, "leaves at different depths");
		w->leaf_depth = depth;
		for (uint32_t i = 0; !r && i < nr; i++)
			r = mapping(w, bn_key(n, i), thin_bt_block(bn_value64(n, i)));
		bm_unlock(blk);
		return r;
	}
	/* copy the children out: the walk below needs the cache */
	uint64_t *kv = malloc((size_t)nr * 2 * sizeof(*kv));
	if (!kv) {
		bm_unlock(blk);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nr; i++) {
		kv[2 * i] = bn_key(n, i);
		kv[2 * i + 1] = bn_value64(n, i);
	}
	bm_unlock(blk);
	for (uint32_t i = 0; !r && i < nr; i++)
		r = walk_node(w, kv[2 * i + 1], depth + 1, kv[2 * i], i + 1 < nr ? kv[2 * i + 2] : hi);
	free(kv);
	return r;
}

static int top_entry(void *ctx, uint64_t key, const void *value)
{
	struct walk *w = ctx;
	uint64_t root = le64_get(value);
	int r;

	if ((r = u64_push(&w->devs, &w->nr_devs, key)) || (r = u64_push(&w->devs, &w->nr_devs, root)))
		return r;
	return 0;
}

static int run_cmp(const void *a, const void *b)
{
	const struct thin_rmap_run *x = a, *y = b;

	if (x->data_begin != y->data_begin)
		return x->data_begin < y->data_begin ? -1 : 1;
	if (x->data_end != y->data_end)
		return x->data_end < y->data_end ? -1 : 1;
	if (x->dev_id != y->dev_id)
		return x->dev_id < y->dev_id ? -1 : 1;
	if (x->thin_begin != y->thin_begin)
		return x->thin_begin < y->thin_begin ? -1 : 1;
	return 0;
}

static int read_sb(struct io_engine *meta, unsigned flags, struct thin_sb *sb)
{
	uint64_t held;
	int r;

	if ((r = thin_sb_read(meta, THIN_SB_BLOCK, sb))) {
		if (r == -ENODATA)
			log_error("%s: no thin metadata (the superblock is zeroed)", meta->name);
		return r;
	}
	if (!(flags & THIN_RMAP_METADATA_SNAP))
		return 0;
	if (!(held = sb->held_root)) {
		log_error("%s: no metadata snapshot is held", meta->name);
		return -ENODATA;
	}
	uint32_t dbs = sb->data_block_size;
	if ((r = thin_sb_read(meta, held, sb)))
		return r == -ENODATA ? -EUCLEAN : r;
	sb->data_block_size = dbs;	/* the snapshot copy's is the live one's */
	return 0;
}

int thin_rmap_walk(struct io_engine *meta, unsigned flags, const struct thin_rmap_region *regions,
		   size_t nr_regions, struct thin_rmap *out)
{
	struct walk w = { .flags = flags, .regions = regions, .nr_regions = nr_regions, .out = out };
	const struct btree_ro_visit top = { &w, top_entry, NULL };
	struct thin_sb sb;
	int r;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nr_regions; i++)
		if (regions[i].begin >= regions[i].end)
			return -EINVAL;
	if ((r = read_sb(meta, flags, &sb)))
		return r;
	out->data_block_size = sb.data_block_size;
	if ((r = bm_create(meta, RMAP_CACHE_BLOCKS, &w.bm)))
		return r;
	u64map_init(&w.seen);
	r = btree_ro_walk(w.bm, sb.mapping_root, 8, &top);
	for (size_t i = 0; !r && i + 1 < w.nr_devs; i += 2) {
		w.dev_id = w.devs[i];
		w.leaf_depth = 0;
		r = walk_node(&w, w.devs[i + 1], 1, 0, 0);
	}
	if (!r && w.cur.data_end > w.cur.data_begin)
		r = push_run(&w);
	if (!r && out->nr)
		qsort(out->runs, out->nr, sizeof(*out->runs), run_cmp);
	u64map_destroy(&w.seen);
	free(w.devs);
	bm_destroy(w.bm);
	if (r)
		thin_rmap_free(out);
	return r;
}

void thin_rmap_free(struct thin_rmap *m)
{
	free(m->runs);
	m->runs = NULL;
	m->nr = m->cap = 0;
}
