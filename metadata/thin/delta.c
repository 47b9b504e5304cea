/* SPDX-License-Identifier: GPL-2.0-or-later */
/* delta.c - two mapping trees walked together. See delta.h.
 *
 * Each side is a cursor: a stack of nodes from the root down, each with
 * the index of its current entry. The current item of a side is either a
 * subtree (an internal node's entry: child block, lowest key, height) or
 * a mapping (a leaf entry). A step looks at both current items:
 *   - both subtrees, same block: equal content on both sides; everything
 *     before it is consumed on both sides and everything after lies above
 *     its keys, so it is reported (SHARED, or read once as SAME) and both
 *     cursors step over it;
 *   - both subtrees, other blocks: the taller one is descended (both when
 *     equally tall), so that shared nodes are met at the same height;
 *   - a subtree whose lowest key is not above the other side's mapping is
 *     descended; otherwise the lower mapping is reported and consumed.
 * Keys in internal nodes are lower bounds of their subtrees (validated as
 * such), so a mapping is reported only when nothing lower is pending. */
#include "metadata/thin/delta.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/le.h"
#include "lib/base/log.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_ro.h"
#include "metadata/thin/thin_sb.h"

struct frame {
	uint64_t block;
	uint64_t hi;		/* keys allowed below: < hi (UINT64_MAX: open) */
	uint32_t idx, nr;
	int leaf;
	unsigned char *node;
};

struct side {
	uint64_t dev;
	unsigned height;	/* levels of the tree, leaves included */
	unsigned depth;		/* frames on the stack */
	struct frame f[BTREE_MAX_DEPTH];
};

/* The current item of a side. */
struct item {
	int leaf;
	uint64_t key;		/* mapping: vblock; subtree: its lowest key */
	uint64_t hi;		/* subtree: keys below it are < hi */
	uint64_t value;		/* mapping: block_time; subtree: child block */
	unsigned height;	/* subtree: levels below and including the child */
};

struct delta {
	struct io_engine *io;
	uint64_t nr_blocks;
	unsigned flags;
	const struct thin_delta_visitor *v;
	struct thin_delta_stats *stats;
	struct side side[2];
	unsigned char *same_bufs;	/* BTREE_MAX_DEPTH nodes for walk_same */
	struct thin_delta_range pend;
	int have_pend;
};

static int bad_node(struct delta *d, uint64_t dev, uint64_t block, const char *what)
{
	log_error("%s: mapping tree of thin device %" PRIu64 ", node %" PRIu64 ": %s; "
		  "run tpcheck", d->io->name, dev, block, what);
	return -EUCLEAN;
}

/* A mapping-tree node as a copy on a mirror's leg must be to be taken. */
static int map_node_ok(const void *n, uint64_t b, void *arg)
{
	(void)arg;
	return !btree_node_check(n, b, 8, BTREE_RULE_NONEMPTY | BTREE_RULE_KEY_ORDER, NULL);
}

/* Read and validate node BLOCK, allowed keys [LO, HI), into BUF; LEAF:
 * 1 it must be a leaf, 0 internal, -1 either. */
static int read_node(struct delta *d, uint64_t dev, uint64_t block, uint64_t lo, uint64_t hi,
		     int leaf, unsigned char *buf)
{
	enum btree_node_fault f;
	int r;

	if (block >= d->nr_blocks)
		return bad_node(d, dev, block, "beyond the end of the metadata");
	if ((r = io_read_valid(d->io, block * BM_BLOCK_SIZE, buf, 1, BM_BLOCK_SIZE, map_node_ok,
			       NULL, IO_HEAL))) {
		log_error("%s: reading node %" PRIu64 ": %s", d->io->name, block, strerror(-r));
		return r;
	}
	if (d->stats)
		d->stats->nodes_read++;
	if (btree_node_check(buf, block, 8, BTREE_RULE_NONEMPTY | BTREE_RULE_KEY_ORDER, &f))
		return bad_node(d, dev, block, btree_node_fault_str(f));
	if (bn_nr(buf) && (bn_key(buf, 0) < lo ||
			   (hi != UINT64_MAX && bn_key(buf, bn_nr(buf) - 1) >= hi)))
		return bad_node(d, dev, block, "key outside the range its parent allows");
	if (leaf >= 0 && bn_is_leaf(buf) != leaf)
		return bad_node(d, dev, block, "leaves at different depths");
	return 0;
}

/* ---- ranges to the visitor, merged ---- */

static int flush(struct delta *d)
{
	if (!d->have_pend)
		return 0;
	d->have_pend = 0;
	return d->v->range ? d->v->range(d->v->ctx, &d->pend) : 0;
}

static int continues(const struct thin_delta_range *p, enum thin_delta_kind kind, uint64_t vb,
		     uint64_t l, uint64_t r)
{
	if (p->kind != kind || p->begin + p->length != vb)
		return 0;
	if (kind != THIN_DELTA_RIGHT_ONLY && kind != THIN_DELTA_SHARED &&
	    p->left_data + p->length != l)
		return 0;
	if ((kind == THIN_DELTA_RIGHT_ONLY || kind == THIN_DELTA_DIFFERENT) &&
	    p->right_data + p->length != r)
		return 0;
	return 1;
}

static int emit(struct delta *d, enum thin_delta_kind kind, uint64_t vb, uint64_t len,
		uint64_t l, uint64_t r)
{
	int e;

	if (d->have_pend && continues(&d->pend, kind, vb, l, r)) {
		d->pend.length += len;
		return 0;
	}
	if ((e = flush(d)))
		return e;
	if (kind == THIN_DELTA_SAME)
		r = l;
	d->pend = (struct thin_delta_range){ kind, vb, len, l, r };
	d->have_pend = 1;
	return 0;
}

/* ---- a shared subtree read once ---- */

static int walk_same(struct delta *d, uint64_t dev, uint64_t block, uint64_t lo, uint64_t hi,
		     unsigned height, unsigned level)
{
	unsigned char *n = d->same_bufs + (size_t)level * BM_BLOCK_SIZE;
	int r;

	if (level >= BTREE_MAX_DEPTH)
		return bad_node(d, dev, block, "tree too deep (a loop?)");
	if ((r = read_node(d, dev, block, lo, hi, height == 1, n)))
		return r;
	for (uint32_t i = 0; i < bn_nr(n); i++) {
		uint64_t k = bn_key(n, i), v = bn_value64(n, i);
		if (height == 1)
			r = emit(d, THIN_DELTA_SAME, k, 1, thin_bt_block(v), 0);
		else
			r = walk_same(d, dev, v, k, i + 1 < bn_nr(n) ? bn_key(n, i + 1) : hi,
				      height - 1, level + 1);
		if (r)
			return r;
	}
	return 0;
}

/* ---- cursors ---- */

static int push(struct delta *d, struct side *s, uint64_t block, uint64_t lo, uint64_t hi,
		int leaf)
{
	struct frame *f;
	int r;

	if (s->depth >= BTREE_MAX_DEPTH)
		return bad_node(d, s->dev, block, "tree too deep (a loop?)");
	f = &s->f[s->depth];
	if ((r = read_node(d, s->dev, block, lo, hi, leaf, f->node)))
		return r;
	f->block = block;
	f->hi = hi;
	f->idx = 0;
	f->nr = bn_nr(f->node);
	f->leaf = bn_is_leaf(f->node);
	s->depth++;
	return 0;
}

/* The current item of S: 1, or 0 when S is exhausted. */
static int current(struct side *s, struct item *it)
{
	struct frame *f;

	while (s->depth && s->f[s->depth - 1].idx >= s->f[s->depth - 1].nr)
		if (--s->depth)
			s->f[s->depth - 1].idx++;
	if (!s->depth)
		return 0;
	f = &s->f[s->depth - 1];
	it->leaf = f->leaf;
	it->key = bn_key(f->node, f->idx);
	it->value = bn_value64(f->node, f->idx);
	it->hi = f->idx + 1 < f->nr ? bn_key(f->node, f->idx + 1) : f->hi;
	it->height = s->height - s->depth;
	return 1;
}

static void step(struct side *s)
{
	s->f[s->depth - 1].idx++;
}

static int descend(struct delta *d, struct side *s, const struct item *it)
{
	return push(d, s, it->value, it->key, it->hi, it->height == 1);
}

static int mapping(struct delta *d, int which, const struct item *it)
{
	uint64_t b = thin_bt_block(it->value);

	return which ? emit(d, THIN_DELTA_RIGHT_ONLY, it->key, 1, 0, b)
		     : emit(d, THIN_DELTA_LEFT_ONLY, it->key, 1, b, 0);
}

static int shared(struct delta *d, const struct item *a, const struct item *b)
{
	uint64_t lo = a->key > b->key ? a->key : b->key;
	uint64_t hi = a->hi < b->hi ? a->hi : b->hi;

	if (d->stats)
		d->stats->subtrees_shared++;
	if (d->flags & THIN_DELTA_SKIP_SHARED)
		return emit(d, THIN_DELTA_SHARED, lo, hi - lo, 0, 0);
	return walk_same(d, d->side[0].dev, a->value, a->key, a->hi, a->height, 0);
}

/* One step of the merge (see the top of the file). 1: done. */
static int merge_step(struct delta *d)
{
	struct side *l = &d->side[0], *r = &d->side[1];
	struct item a, b;
	int ha = current(l, &a), hb = current(r, &b);

	if (!ha && !hb)
		return 1;
	if (!ha || !hb) {
		struct side *s = ha ? l : r;
		struct item *it = ha ? &a : &b;
		if (!it->leaf)
			return descend(d, s, it);
		step(s);
		return mapping(d, !ha, it);
	}
	if (!a.leaf && !b.leaf) {
		if (a.value == b.value && a.height == b.height) {
			step(l);
			step(r);
			return shared(d, &a, &b);
		}
		if (a.height != b.height)
			return a.height > b.height ? descend(d, l, &a) : descend(d, r, &b);
		int e = descend(d, l, &a);
		return e ? e : descend(d, r, &b);
	}
	if (!a.leaf && a.key <= b.key)
		return descend(d, l, &a);
	if (!b.leaf && b.key <= a.key)
		return descend(d, r, &b);
	if (!a.leaf || (b.leaf && b.key < a.key)) {
		step(r);
		return mapping(d, 1, &b);
	}
	if (!b.leaf || a.key < b.key) {
		step(l);
		return mapping(d, 0, &a);
	}
	step(l);
	step(r);
	uint64_t x = thin_bt_block(a.value), y = thin_bt_block(b.value);
	return emit(d, x == y ? THIN_DELTA_SAME : THIN_DELTA_DIFFERENT, a.key, 1, x, y);
}

/* ---- roots ---- */

/* The mapping tree root of DEV in the top-level tree at ROOT. */
static int find_root(struct delta *d, uint64_t root, uint64_t dev, uint64_t *out)
{
	unsigned char *n = d->same_bufs;
	uint64_t block = root;

	for (unsigned level = 0; level < BTREE_MAX_DEPTH; level++) {
		enum btree_node_fault f;
		int r, i;

		if (block >= d->nr_blocks ||
		    (r = io_read_valid(d->io, block * BM_BLOCK_SIZE, n, 1, BM_BLOCK_SIZE, map_node_ok,
				       NULL, IO_HEAL)) ||
		    btree_node_check(n, block, 8, BTREE_RULE_NONEMPTY | BTREE_RULE_KEY_ORDER, &f)) {
			log_error("%s: top-level mapping tree node %" PRIu64 " is damaged; run tpcheck",
				  d->io->name, block);
			return -EUCLEAN;
		}
		i = bn_lower_bound(n, dev);
		if (i < 0 || (bn_is_leaf(n) && bn_key(n, (uint32_t)i) != dev)) {
			log_error("%s: no thin device %" PRIu64, d->io->name, dev);
			return -ENODATA;
		}
		if (bn_is_leaf(n)) {
			*out = bn_value64(n, (uint32_t)i);
			return 0;
		}
		block = bn_value64(n, (uint32_t)i);
	}
	log_error("%s: top-level mapping tree too deep (a loop?); run tpcheck", d->io->name);
	return -EUCLEAN;
}

/* Open side S at ROOT: the height from the leftmost path, then the root
 * frame. */
static int open_side(struct delta *d, struct side *s, uint64_t dev, uint64_t root)
{
	unsigned char *n = d->same_bufs;
	uint64_t block = root, lo = 0;
	int r;

	s->dev = dev;
	s->height = 0;
	for (;;) {
		if (s->height >= BTREE_MAX_DEPTH)
			return bad_node(d, dev, block, "tree too deep (a loop?)");
		if ((r = read_node(d, dev, block, lo, UINT64_MAX, -1, n)))
			return r;
		s->height++;
		if (bn_is_leaf(n) || !bn_nr(n))
			break;
		lo = bn_key(n, 0);
		block = bn_value64(n, 0);
	}
	return push(d, s, root, 0, UINT64_MAX, s->height == 1);
}

static int run(struct delta *d, uint64_t snap_block, uint64_t left, uint64_t right)
{
	struct thin_sb live, sb;
	struct thin_ir_superblock isb;
	uint64_t lroot, rroot;
	int r;

	if ((r = thin_sb_read(d->io, 0, &live))) {
		if (r == -ENODATA)
			log_error("%s: no thin metadata (the superblock is zeroed)", d->io->name);
		return r;
	}
	sb = live;
	if (d->flags & THIN_DELTA_METADATA_SNAP) {
		uint64_t b = snap_block ? snap_block : live.held_root;
		if (!b) {
			log_error("%s: no metadata snapshot is held", d->io->name);
			return -ENODATA;
		}
		if ((r = thin_sb_read(d->io, b, &sb)))
			return r;
	}
	isb = (struct thin_ir_superblock){ sb.time, sb.trans_id, sb.flags, sb.version,
					   sb.data_block_size, sb.data_sm.nr_blocks, sb.held_root };
	if (d->v->superblock && (r = d->v->superblock(d->v->ctx, &isb)))
		return r;
	if ((r = find_root(d, sb.mapping_root, left, &lroot)) ||
	    (r = find_root(d, sb.mapping_root, right, &rroot)))
		return r;
	if ((r = open_side(d, &d->side[0], left, lroot)) ||
	    (r = open_side(d, &d->side[1], right, rroot)))
		return r;
	if (lroot == rroot) {
		struct item a = { 0, 0, UINT64_MAX, lroot, d->side[0].height };
		if ((r = shared(d, &a, &a)))
			return r;
	} else {
		while (!(r = merge_step(d)))
			;
		if (r < 0)
			return r;
	}
	return flush(d);
}

int thin_delta_io(struct io_engine *meta, unsigned flags, uint64_t metadata_snap_block,
		  uint64_t left, uint64_t right, const struct thin_delta_visitor *v,
		  struct thin_delta_stats *stats)
{
	struct delta d = { meta, meta->size / BM_BLOCK_SIZE, flags, v, stats };
	unsigned char *bufs = NULL;
	int r;

	/* page aligned: O_DIRECT engines read straight into them */
	if (posix_memalign((void **)&bufs, 4096, (size_t)3 * BTREE_MAX_DEPTH * BM_BLOCK_SIZE))
		return -ENOMEM;
	for (unsigned s = 0; s < 2; s++)
		for (unsigned i = 0; i < BTREE_MAX_DEPTH; i++)
			d.side[s].f[i].node = bufs + ((size_t)s * BTREE_MAX_DEPTH + i) * BM_BLOCK_SIZE;
	d.same_bufs = bufs + (size_t)2 * BTREE_MAX_DEPTH * BM_BLOCK_SIZE;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	r = run(&d, metadata_snap_block, left, right);
	free(bufs);
	return r;
}

int thin_mappings_io(struct io_engine *meta, unsigned flags, uint64_t dev,
		     const struct thin_delta_visitor *v)
{
	return thin_delta_io(meta, flags & ~(unsigned)THIN_DELTA_SKIP_SHARED, 0, dev, dev, v, NULL);
}

int thin_lookup_io(struct io_engine *meta, unsigned flags, uint64_t dev, uint64_t vblock,
		   uint64_t *dblock)
{
	struct block_manager *bm;
	struct thin_sb sb;
	unsigned char v[8];
	uint64_t root;
	int r;

	if ((r = thin_sb_read(meta, 0, &sb)))
		return r == -ENODATA ? -EUCLEAN : r;
	if (flags & THIN_DELTA_METADATA_SNAP) {
		if (!sb.held_root) {
			log_error("%s: no metadata snapshot is held", meta->name);
			return -EINVAL;
		}
		if ((r = thin_sb_read(meta, sb.held_root, &sb)))
			return r == -ENODATA ? -EUCLEAN : r;
	}
	if ((r = bm_create(meta, 8, &bm)))
		return r;
	r = btree_ro_lookup(bm, sb.mapping_root, 8, dev, v, NULL);
	root = le64_get(v);
	if (!r)
		r = btree_ro_lookup(bm, root, 8, vblock, v, NULL);
	bm_destroy(bm);
	if (!r)
		*dblock = thin_bt_block(le64_get(v));
	return r;
}
