/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_walk.c - committed metadata -> thin_ir_visitor. See thin_walk.h.
 *
 * Trees are read level by level: the nodes of one level are known (with
 * the key range their parent allows) before any is read, so they are
 * fetched in batches sorted by block number, with runs of consecutive
 * blocks merged into one large read, read and validated on a second
 * thread while the previous batch is processed (thin_walk_read.c), and
 * processed in key order. A level is held in memory up to WALK_LEVEL_MAX
 * nodes; below a larger one (a tree of more than 8M to 16M mappings) the
 * next level is walked in pieces of that size, still in key order, so
 * memory does not grow with the tree. Leaves of a bottom-level tree
 * become one batch of runs each. */
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_internal.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk_int.h"

struct ref_vec {
	struct node_ref *v;
	size_t n, cap;
};

struct walker {
	struct io_engine *io;
	const struct thin_ir_visitor *v;
	const struct thin_damage_visitor *dv;
	const struct thin_node_visitor *nv;
	struct walk_reader rd;
	struct thin_ir_mapping *runs;
	struct ref_vec lost[2];	/* damaged details / top-level key ranges */
};

#define WALK_LEVEL_MAX 65536	/* nodes of a level collected before walking them (2-4 MiB) */

typedef int (*leaf_fn)(struct walker *w, const unsigned char *node, int seen, void *ctx);
/* Room for about ENTRIES more leaf entries in CTX (an estimate: the leaf
 * function still grows what it fills as it must); its failure is not the
 * walk's. */
typedef void (*reserve_fn)(void *ctx, uint64_t entries);

static int vec_push(struct ref_vec *rv, uint64_t block, uint64_t lo, uint64_t hi, int seen)
{
	if (rv->n == rv->cap) {
		size_t nc = rv->cap ? rv->cap * 2 : 64;
		struct node_ref *nv = realloc(rv->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		rv->v = nv;
		rv->cap = nc;
	}
	rv->v[rv->n++] = (struct node_ref){ block, lo, hi, seen };
	return 0;
}

static int damage(struct walker *w, enum thin_damage_kind kind, uint64_t dev,
		  const struct node_ref *ref, int err, const char *what)
{
	struct thin_damage d = { kind, dev, ref->lo, ref->hi, ref->block, err, what, ref->seen };
	int r;

	if (!w->dv || !w->dv->damage) {
		if (kind == THIN_DAMAGE_MAPPINGS)
			log_error("%s: mapping tree of thin device %" PRIu64 ", node %" PRIu64 ": %s",
				  w->io->name, dev, ref->block, what);
		else if (kind == THIN_DAMAGE_MISMATCH)
			log_error("%s: thin device %" PRIu64 ": %s", w->io->name, dev, what);
		else
			log_error("%s: %s tree node %" PRIu64 ": %s", w->io->name,
				  kind == THIN_DAMAGE_DETAILS ? "device details" : "top-level mapping",
				  ref->block, what);
		return err ? err : -EUCLEAN;
	}
	/* remember lost device ranges: their devices are not reported again
	 * as a details/top-level mismatch */
	if ((kind == THIN_DAMAGE_DETAILS || kind == THIN_DAMAGE_TOP) &&
	    (r = vec_push(&w->lost[kind == THIN_DAMAGE_TOP], ref->block, ref->lo, ref->hi, 0)))
		return r;
	return w->dv->damage(w->dv->ctx, &d);
}

static int in_lost(const struct ref_vec *lost, uint64_t id)
{
	for (size_t i = 0; i < lost->n; i++)
		if (id >= lost->v[i].lo && (lost->v[i].hi == UINT64_MAX || id < lost->v[i].hi))
			return 1;
	return 0;
}

/* Show node REF to the node visitor: 0, THIN_WALK_SEEN or its error. */
static int visit_node(struct walker *w, enum thin_damage_kind kind, uint64_t dev,
		      const struct node_ref *ref, const unsigned char *node, int depth)
{
	static const enum thin_tree tree[] = {
		[THIN_DAMAGE_DETAILS] = THIN_TREE_DETAILS,
		[THIN_DAMAGE_TOP] = THIN_TREE_TOP,
		[THIN_DAMAGE_MAPPINGS] = THIN_TREE_MAPPINGS,
	};
	struct thin_walk_node wn = { tree[kind], dev, ref->block, node, depth == 0 };

	if (ref->seen || !w->nv || !w->nv->node)
		return ref->seen ? THIN_WALK_SEEN : 0;
	return w->nv->node(w->nv->ctx, &wn);
}

/* One tree being walked. */
struct tree_walk {
	uint32_t leaf_vsize;
	enum thin_damage_kind kind;
	uint64_t dev;
	leaf_fn fn;
	void *ctx;
	int root_only;
	int level_kind[BTREE_MAX_DEPTH];	/* the node kind of each depth, 0 unknown */
	reserve_fn reserve;	/* may be NULL */
};

/* Before the first batch of a level of leaves is processed: the entries
 * its valid leaves hold, scaled to the level's N leaves, to T->reserve
 * (what a walk of 20,000 devices fills is sized once, not copied as it
 * doubles). */
static void reserve_level(struct tree_walk *t, const struct walk_batch *b, size_t batch,
			  size_t n)
{
	uint64_t entries = 0, leaves = 0;

	for (size_t i = 0; i < batch; i++) {
		if (b->err[i] || b->what[i] || !bn_is_leaf(b->node[i]))
			continue;
		entries += bn_nr(b->node[i]);
		leaves++;
	}
	if (leaves)
		t->reserve(t->ctx, entries * n / leaves + entries * n / leaves / 16);
}

/* The nodes CUR at DEPTH, in key order, in batches read ahead on the
 * reader's thread; their children are collected and walked as the next
 * level once all of CUR is processed, or once WALK_LEVEL_MAX are
 * collected (then a level below a huge level is walked in pieces, so
 * memory stays bounded; key order is kept). */
static int walk_level(struct walker *w, struct tree_walk *t, const struct ref_vec *cur, int depth)
{
	struct ref_vec next = { 0 };
	int r = 0, outstanding = 0;

	if (depth >= BTREE_MAX_DEPTH)
		return damage(w, t->kind, t->dev, &cur->v[0], -EUCLEAN, "tree too deep (a loop?)");
	for (size_t base = 0; !r && base < cur->n; base += WALK_BATCH) {
		size_t n = TP_MIN((size_t)WALK_BATCH, cur->n - base);
		if (!outstanding)
			walk_reader_submit(&w->rd, cur->v + base, n, t->leaf_vsize);
		const struct walk_batch *b = walk_reader_wait(&w->rd);
		if (!base && t->reserve && !t->root_only)
			reserve_level(t, b, n, cur->n);
		outstanding = base + n < cur->n;
		if (outstanding)
			walk_reader_submit(&w->rd, cur->v + base + n,
					   TP_MIN((size_t)WALK_BATCH, cur->n - base - n), t->leaf_vsize);
		for (size_t i = 0; !r && i < n; i++) {
			const struct node_ref *ref = &cur->v[base + i];
			const unsigned char *node = b->node[i];
			int err = b->err[i];

			if (err) {
				r = damage(w, t->kind, t->dev, ref, err == -ENXIO ? -EUCLEAN : err,
					   err == -ENXIO ? "block beyond the end of the metadata"
							 : "read error");
				continue;
			}
			if (b->what[i]) {
				r = damage(w, t->kind, t->dev, ref, -EUCLEAN, b->what[i]);
				continue;
			}
			if (!t->level_kind[depth])
				t->level_kind[depth] = (int)bn_flags(node);
			if ((int)bn_flags(node) != t->level_kind[depth]) {
				r = damage(w, t->kind, t->dev, ref, -EUCLEAN, "leaves at unequal depth");
				continue;
			}
			int below_seen = visit_node(w, t->kind, t->dev, ref, node, depth);
			if (below_seen != 0 && below_seen != THIN_WALK_SEEN) {
				r = below_seen;
				continue;
			}
			if (t->root_only)
				continue;
			if (bn_is_leaf(node)) {
				r = t->fn(w, node, below_seen, t->ctx);
				continue;
			}
			for (uint32_t c = 0; !r && c < bn_nr(node); c++) {
				uint64_t lo = c ? bn_key(node, c) : ref->lo;
				uint64_t hi = c + 1 < bn_nr(node) ? bn_key(node, c + 1) : ref->hi;
				r = vec_push(&next, bn_value64(node, c), lo, hi, below_seen);
			}
		}
		if (!r && next.n >= WALK_LEVEL_MAX) {
			if (outstanding) {	/* the reader is ours below: read it again after */
				(void)walk_reader_wait(&w->rd);
				outstanding = 0;
			}
			r = walk_level(w, t, &next, depth + 1);
			next.n = 0;
		}
	}
	if (outstanding)	/* stopped early: the reader lets go of cur */
		(void)walk_reader_wait(&w->rd);
	if (!r && next.n)
		r = walk_level(w, t, &next, depth + 1);
	free(next.v);
	return r;
}

/* Walk the tree at ROOT level by level; ROOT_ONLY: validate and show the
 * root node only. SEEN: the root is below a node the node visitor saw. */
static int walk_tree(struct walker *w, uint64_t root, uint32_t leaf_vsize,
		     enum thin_damage_kind kind, uint64_t dev, leaf_fn fn, reserve_fn reserve,
		     void *ctx, int seen, int root_only)
{
	struct tree_walk t = { leaf_vsize, kind, dev, fn, ctx, root_only, { 0 }, reserve };
	struct ref_vec top = { 0 };
	int r = vec_push(&top, root, 0, UINT64_MAX, seen);

	if (!r)
		r = walk_level(w, &t, &top, 0);
	free(top.v);
	return r;
}

/* ---- leaves ---- */

struct dev_rec {
	uint64_t id;
	uint64_t root;
	struct thin_ir_device d;
	int have_details, have_root;
	int root_seen;		/* its top-level leaf was seen by the node visitor */
};

struct dev_vec {
	struct dev_rec *v;
	size_t n, cap;
	size_t next;	/* where the next id of the second tree is expected */
};

/* The record of device ID, made if new. The first tree's ids come in
 * ascending order (each goes at the end) and the second tree's mostly
 * match them in the same order (each found at NEXT): a search only for
 * the devices the trees disagree on, so that a device costs a few dozen
 * instructions, not a search and a move. */
static struct dev_rec *dev_slot(struct dev_vec *dv, uint64_t id)
{
	size_t lo = dv->n, hi = dv->n;

	if (dv->next < dv->n && dv->v[dv->next].id == id)
		return &dv->v[dv->next++];
	if (dv->n && dv->v[dv->n - 1].id >= id) {
		lo = 0;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (dv->v[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < dv->n && dv->v[lo].id == id) {
			dv->next = lo + 1;
			return &dv->v[lo];
		}
	}
	if (dv->n == dv->cap) {
		size_t nc = dv->cap ? dv->cap * 2 : 16;
		struct dev_rec *nv = realloc(dv->v, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		dv->v = nv;
		dv->cap = nc;
	}
	if (lo < dv->n)
		memmove(&dv->v[lo + 1], &dv->v[lo], (dv->n - lo) * sizeof(*dv->v));
	dv->v[lo] = (struct dev_rec){ .id = id };
	dv->n++;
	dv->next = lo + 1;
	return &dv->v[lo];
}

static void devs_reserve(void *ctx, uint64_t entries)
{
	struct dev_vec *dv = ctx;
	struct dev_rec *nv;

	if (entries > THIN_MAX_DEV_ID + 1 || dv->n + entries <= dv->cap)
		return;
	if ((nv = realloc(dv->v, (size_t)(dv->n + entries) * sizeof(*nv)))) {
		dv->v = nv;
		dv->cap = (size_t)(dv->n + entries);
	}
}

static int details_leaf(struct walker *w, const unsigned char *n, int seen, void *ctx)
{
	const unsigned char *keys = n + BTREE_HEADER_SIZE, *vals = (const unsigned char *)bn_value(n, 0);
	uint32_t count = bn_nr(n);

	(void)w, (void)seen;
	struct dev_vec *dv = ctx;

	for (uint32_t i = 0; i < count; i++) {
		uint64_t id = le64_get(keys + 8 * (size_t)i);
		struct dev_rec *d;

		if (dv->n < dv->cap && (!dv->n || dv->v[dv->n - 1].id < id)) {
			d = &dv->v[dv->n++];	/* the common case: the next id, room for it */
			*d = (struct dev_rec){ .id = id };
			dv->next = dv->n;
		} else if (!(d = dev_slot(dv, id))) {
			return -ENOMEM;
		}
		thin_details_unpack(vals + (size_t)i * THIN_DETAILS_SIZE, &d->d);
		d->d.dev_id = id;
		d->have_details = 1;
	}
	return 0;
}

static int top_leaf(struct walker *w, const unsigned char *n, int seen, void *ctx)
{
	const unsigned char *keys = n + BTREE_HEADER_SIZE, *vals = (const unsigned char *)bn_value(n, 0);
	uint32_t count = bn_nr(n);

	(void)w;
	struct dev_vec *dv = ctx;

	for (uint32_t i = 0; i < count; i++) {
		uint64_t id = le64_get(keys + 8 * (size_t)i);
		struct dev_rec *d;

		if (dv->next < dv->n && dv->v[dv->next].id == id)
			d = &dv->v[dv->next++];	/* the common case: the details' next */
		else if (!(d = dev_slot(dv, id)))
			return -ENOMEM;
		d->root = le64_get(vals + 8 * (size_t)i);
		d->have_root = 1;
		d->root_seen = seen;
	}
	return 0;
}

static int bottom_leaf(struct walker *w, const unsigned char *n, int seen, void *ctx)
{
	struct thin_ir_mapping *runs = w->runs;
	size_t nr = 0;
	/* stores to runs may alias the node: header fields read once, the
	 * run being built kept in locals and stored when it ends */
	const unsigned char *keys = n + BTREE_HEADER_SIZE, *vals = (const unsigned char *)bn_value(n, 0);
	uint32_t count = bn_nr(n);
	uint64_t ov = 0, db = 0, len = 0;
	uint32_t tm = 0;
	(void)ctx, (void)seen;

	for (uint32_t i = 0; i < count; i++) {
		uint64_t v = le64_get(keys + 8 * i), bt = le64_get(vals + 8 * i);
		uint64_t d = thin_bt_block(bt);
		uint32_t t = thin_bt_time(bt);

		if (len && tm == t && ov + len == v && db + len == d) {
			len++;
			continue;
		}
		if (len)
			runs[nr++] = (struct thin_ir_mapping){ ov, db, len, tm };
		ov = v, db = d, len = 1, tm = t;
	}
	if (len)
		runs[nr++] = (struct thin_ir_mapping){ ov, db, len, tm };
	if (!nr || !w->v->mappings)
		return 0;
	return w->v->mappings(w->v->ctx, runs, nr);
}

/* ---- the walk ---- */

static int walk(struct walker *w, unsigned flags)
{
	struct thin_sb live, sb;
	struct thin_ir_superblock isb;
	struct dev_vec devs = { 0 };
	const struct thin_ir_visitor *v = w->v;
	int r;

	if ((r = thin_sb_read(w->io, 0, &live))) {
		if (r == -ENODATA)
			log_error("%s: no thin metadata (the superblock is zeroed)", w->io->name);
		goto sb_damage;
	}
	sb = live;
	if (flags & THIN_WALK_METADATA_SNAP) {
		if (!live.held_root) {
			log_error("%s: no metadata snapshot is held", w->io->name);
			return -ENODATA;
		}
		if ((r = thin_sb_read(w->io, live.held_root, &sb)))
			goto sb_damage;
	}
	if ((r = walk_tree(w, sb.details_root, THIN_DETAILS_SIZE, THIN_DAMAGE_DETAILS, 0,
			   details_leaf, devs_reserve, &devs, 0, 0)))
		goto out;
	devs.next = 0;	/* the top-level tree's ids from the first */
	if ((r = walk_tree(w, sb.mapping_root, 8, THIN_DAMAGE_TOP, 0, top_leaf, NULL, &devs, 0, 0)))
		goto out;
	isb = (struct thin_ir_superblock){ sb.time, sb.trans_id, sb.flags, sb.version,
					   live.data_block_size, sb.data_sm.nr_blocks,
					   live.held_root };
	if (v->superblock_begin && (r = v->superblock_begin(v->ctx, &isb)))
		goto out;
	/* the visitor's calls read once: a walk of the devices alone visits
	 * 20,000 of them in a large pool */
	int (*device_begin)(void *, const struct thin_ir_device *) = v->device_begin;
	int (*device_end)(void *) = v->device_end;
	void *vctx = v->ctx;
	int walk_roots = !(flags & THIN_WALK_SKIP_MAPPINGS) || (flags & THIN_WALK_MAPPING_ROOTS);

	for (size_t i = 0; i < devs.n; i++) {
		struct dev_rec *d = &devs.v[i];
		if (!d->have_details || !d->have_root) {
			if (in_lost(&w->lost[!d->have_root], d->id))
				continue;	/* reported with the damaged node */
			struct node_ref ref = { d->have_root ? d->root : sb.details_root, d->id,
						d->id + 1 };
			if ((r = damage(w, THIN_DAMAGE_MISMATCH, d->id, &ref, -EUCLEAN,
					d->have_root ? "device has no details"
						     : "device details without a mapping tree")))
				goto out;
			continue;
		}
		int skip_tree = 0;

		if (device_begin && (r = device_begin(vctx, &d->d))) {
			if (r != THIN_WALK_SKIP_DEVICE)
				goto out;
			skip_tree = 1;
			r = 0;
		}
		if (!skip_tree && walk_roots &&
		    (r = walk_tree(w, d->root, 8, THIN_DAMAGE_MAPPINGS, d->id, bottom_leaf, NULL,
				   NULL, d->root_seen, (flags & THIN_WALK_SKIP_MAPPINGS) != 0)))
			goto out;
		if (device_end && (r = device_end(vctx)))
			goto out;
	}
	if (v->superblock_end)
		r = v->superblock_end(v->ctx);
out:
	free(devs.v);
	return r;
sb_damage:
	if (w->dv && w->dv->damage && r != -ENOMEM) {
		struct thin_damage d = { THIN_DAMAGE_SUPERBLOCK, 0, 0, UINT64_MAX, 0, r,
					 "superblock unreadable" };
		int r2 = w->dv->damage(w->dv->ctx, &d);
		return r2 ? r2 : r;
	}
	return r;
}

int thin_walk_io(struct io_engine *meta, unsigned flags, const struct thin_ir_visitor *v,
		 const struct thin_damage_visitor *dv)
{
	return thin_walk_nodes(meta, flags, v, dv, NULL);
}

int thin_walk_nodes(struct io_engine *meta, unsigned flags, const struct thin_ir_visitor *v,
		    const struct thin_damage_visitor *dv, const struct thin_node_visitor *nv)
{
	struct walker w = { .io = meta, .v = v, .dv = dv, .nv = nv };
	int r;

	if ((r = walk_reader_init(&w.rd, meta, meta->size / BM_BLOCK_SIZE)))
		return r;
	w.runs = malloc(256 * sizeof(*w.runs));
	r = w.runs ? walk(&w, flags) : -ENOMEM;
	walk_reader_exit(&w.rd);
	free(w.runs);
	free(w.lost[0].v);
	free(w.lost[1].v);
	return r;
}

int thin_walk(struct thin_md *md, unsigned flags, const struct thin_ir_visitor *v)
{
	if (md->changed) {
		log_error("%s: walking metadata with uncommitted changes: commit or abort first",
			  md->io->name);
		return -EBUSY;
	}
	return thin_walk_io(md->io, flags, v, NULL);
}
