/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair.c - thin_repair_io(): choose roots, walk them through a
 * superblock overlay with the shared walker, feed the builder. See
 * repair.h. */
#include "metadata/thin/repair.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/compiler.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_builder.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"

/* ---- a read-only view of IN whose block 0 is a made-up superblock and
 * which may end in made-up device details nodes (when the details tree
 * is lost, format doc 6.2 step 4) ---- */

#define DETAILS_PER_LEAF 120u	/* of 126: room as the builder leaves it */

struct overlay {
	struct io_engine e;
	struct io_engine *in;
	uint64_t first_extra;	/* block number of extra[0] */
	unsigned char *extra;	/* made-up nodes */
	uint64_t nr_extra;
	unsigned char sb[BM_BLOCK_SIZE];
};

static int ov_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	struct overlay *o = TP_CONTAINER_OF(e, struct overlay, e);
	uint64_t limit = o->first_extra * BM_BLOCK_SIZE;
	unsigned char *p = buf;
	int r;

	while (len) {
		size_t n;
		if (off < BM_BLOCK_SIZE) {
			n = TP_MIN(len, (size_t)(BM_BLOCK_SIZE - off));
			memcpy(p, o->sb + off, n);
		} else if (off >= limit) {
			n = len;
			memcpy(p, o->extra + (off - limit), n);
		} else {
			n = (size_t)TP_MIN((uint64_t)len, limit - off);
			if ((r = io_read(o->in, off, p, n)))
				return r;
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int ov_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	(void)e, (void)off, (void)buf, (void)len;
	return -EROFS;
}

static void ov_destroy(struct io_engine *e)
{
	(void)e;
}

static const struct io_ops overlay_ops = { ov_read, ov_write, NULL, ov_destroy };

static void overlay_init(struct overlay *o, struct io_engine *in, const struct thin_sb *sb)
{
	o->in = in;
	o->first_extra = in->size / BM_BLOCK_SIZE;
	o->e = (struct io_engine){ &overlay_ops, (o->first_extra + o->nr_extra) * BM_BLOCK_SIZE,
				   in->name, 1 };
	thin_sb_pack(o->sb, sb);
	thin_sb_validator.prepare(o->sb, 0);
}

/* Made-up details for IDS (ascending): transaction TRANS, created and
 * snapshotted at TIME (after every mapping: all treated as shared). The
 * nodes go after the end of IN; returns the root's block number. */
static uint64_t make_details(struct overlay *o, const uint64_t *ids, size_t n, uint64_t trans,
			     uint32_t time)
{
	uint64_t leaves = n ? (n + DETAILS_PER_LEAF - 1) / DETAILS_PER_LEAF : 1;
	uint64_t first = o->first_extra;

	for (uint64_t l = 0; l < leaves; l++) {
		unsigned char *node = o->extra + l * BM_BLOCK_SIZE;
		size_t k = 0;
		bn_init(node, BTREE_NODE_LEAF, THIN_DETAILS_SIZE);
		for (size_t i = l * DETAILS_PER_LEAF; i < n && k < DETAILS_PER_LEAF; i++, k++) {
			struct thin_ir_device d = { ids[i], 0, trans, time, time };
			bn_set_key(node, (uint32_t)k, ids[i]);
			thin_details_pack(bn_value(node, (uint32_t)k), &d);
		}
		bn_set_nr(node, (uint32_t)k);
		btree_node_prepare(node, first + l);
	}
	if (leaves == 1)
		return first;
	unsigned char *root = o->extra + leaves * BM_BLOCK_SIZE;
	bn_init(root, BTREE_NODE_INTERNAL, 8);
	for (uint64_t l = 0; l < leaves; l++) {
		bn_set_key(root, (uint32_t)l, ids[l * DETAILS_PER_LEAF]);
		bn_set_value64(root, (uint32_t)l, first + l);
	}
	bn_set_nr(root, (uint32_t)leaves);
	btree_node_prepare(root, first + leaves);
	return first + leaves;
}

/* ---- collecting what the walk finds ---- */

struct rep_walk {
	struct thin_repair_report *rep;
	const struct thin_ir_visitor *out;	/* the builder, or NULL (survey) */
	struct thin_ir_superblock sb;		/* what to write */
	struct thin_ir_mapping *buf;
	size_t buf_cap;
	uint64_t cur_dev;
	int cur_beyond;
	/* survey results */
	uint64_t max_data, max_trans;
	uint32_t max_time;
	int any_mapping;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);	/* the write pass */
	void *progress_ctx;
};

static int add_lost(struct thin_repair_report *rep, const struct thin_repair_lost *l)
{
	if (!(rep->nr_lost & (rep->nr_lost - 1)) || !rep->nr_lost) {
		size_t nc = rep->nr_lost ? rep->nr_lost * 2 : 8;
		struct thin_repair_lost *n = realloc(rep->lost, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		rep->lost = n;
	}
	rep->lost[rep->nr_lost++] = *l;
	return 0;
}

static int on_damage(void *ctx, const struct thin_damage *d)
{
	struct rep_walk *w = ctx;
	struct thin_repair_lost l = { 0, d->dev_id, d->begin, d->end, d->block, d->what };

	if (!w->out)
		return 0;	/* the survey only measures */
	switch (d->kind) {
	case THIN_DAMAGE_SUPERBLOCK:
		return d->err ? d->err : -EUCLEAN;
	case THIN_DAMAGE_DETAILS:
	case THIN_DAMAGE_TOP:
		l.whole_device = 1;
		l.dev_id = d->begin;
		break;
	case THIN_DAMAGE_MISMATCH:
		l.whole_device = 1;
		l.begin = d->dev_id;
		l.end = d->dev_id + 1;
		break;
	case THIN_DAMAGE_MAPPINGS:
		break;
	}
	return add_lost(w->rep, &l);
}

static int on_sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct rep_walk *w = ctx;
	(void)sb;

	if (!w->out)
		return 0;
	return w->out->superblock_begin ? w->out->superblock_begin(w->out->ctx, &w->sb) : 0;
}

static int on_sb_end(void *ctx)
{
	struct rep_walk *w = ctx;

	if (!w->out)
		return 0;
	return w->out->superblock_end ? w->out->superblock_end(w->out->ctx) : 0;
}

static int on_dev_begin(void *ctx, const struct thin_ir_device *d)
{
	struct rep_walk *w = ctx;
	struct thin_repair_report *rep = w->rep;

	w->cur_dev = d->dev_id;
	w->cur_beyond = 0;
	if (d->transaction > w->max_trans)
		w->max_trans = d->transaction;
	w->max_time = TP_MAX(w->max_time, TP_MAX(d->creation_time, d->snap_time));
	if (!w->out)
		return 0;
	if (u64_push(&rep->dev_ids, &rep->nr_dev_ids, d->dev_id))
		return -ENOMEM;
	rep->nr_devices++;
	return w->out->device_begin ? w->out->device_begin(w->out->ctx, d) : 0;
}

static int on_dev_end(void *ctx)
{
	struct rep_walk *w = ctx;

	if (!w->out)
		return 0;
	return w->out->device_end ? w->out->device_end(w->out->ctx) : 0;
}

/* Drop (and report) the parts of runs beyond the data device. */
static int on_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct rep_walk *w = ctx;
	uint64_t limit = w->sb.nr_data_blocks;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		w->any_mapping = 1;
		w->max_data = TP_MAX(w->max_data, runs[i].data_begin + runs[i].length - 1);
		w->max_time = TP_MAX(w->max_time, runs[i].time);
	}
	if (!w->out)
		return 0;
	if (n > w->buf_cap) {
		struct thin_ir_mapping *nb = realloc(w->buf, n * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		w->buf = nb;
		w->buf_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct thin_ir_mapping m = runs[i];
		if (m.data_begin + m.length > limit) {
			uint64_t keep = m.data_begin >= limit ? 0 : limit - m.data_begin;
			struct thin_repair_lost l = { 0, w->cur_dev, m.origin_begin + keep,
						      m.origin_begin + m.length, UINT64_MAX,
						      "mapped beyond the end of the data device" };
			int r = add_lost(w->rep, &l);
			if (r)
				return r;
			m.length = keep;
		}
		if (m.length)
			w->buf[k++] = m;
		w->rep->nr_mappings += m.length;
	}
	if (w->progress)
		w->progress(w->progress_ctx, w->rep->nr_mappings, 0);
	if (!k || !w->out->mappings)
		return 0;
	return w->out->mappings(w->out->ctx, w->buf, k);
}

/* ---- roots ---- */

static int root_ok(struct io_engine *in, uint64_t b, uint32_t leaf_vsize)
{
	unsigned char n[BM_BLOCK_SIZE];

	return b && b < in->size / BM_BLOCK_SIZE && !io_read(in, b * BM_BLOCK_SIZE, n, sizeof(n)) &&
	       !btree_node_check(n, b, leaf_vsize, 0, NULL);
}

/* Are the trees the scan found those of the held metadata snapshot (OLD,
 * the damaged superblock, names it)? Then the salvage is of the moment the
 * snapshot was taken, not of the superblock's transaction: said in REP. */
static void snapshot_trees(struct io_engine *in, const struct thin_sb *old,
			   const struct thin_sb *sb, struct thin_repair_report *rep)
{
	struct thin_sb held;

	if (!rep->sb_ok || !old->held_root || thin_sb_read(in, old->held_root, &held) ||
	    held.mapping_root != sb->mapping_root ||
	    (sb->details_root && held.details_root != sb->details_root))
		return;
	rep->snapshot_trees = 1;
	rep->snapshot_transaction_id = held.trans_id;
	log_warn("%s: the device trees found are the metadata snapshot's (transaction %llu), "
		 "not the live metadata's (transaction %llu, lost)", in->name,
		 (unsigned long long)held.trans_id, (unsigned long long)old->trans_id);
}

static int choose(struct io_engine *in, const struct thin_repair_opts *o,
		  struct thin_repair_report *rep, struct thin_sb *sb)
{
	struct thin_sb old;
	int r = thin_sb_read(in, 0, &old);

	if (r == -ENOMEM)
		return r;
	memset(sb, 0, sizeof(*sb));
	sb->version = THIN_SB_VERSION;
	sb->metadata_block_size = 8;
	if (!r) {
		rep->sb_ok = 1;
		rep->snapshot_dropped = old.held_root != 0;
		rep->in_data_in_use = old.data_sm.nr_allocated;
		*sb = old;
		sb->held_root = 0;
		sb->flags = 0;
		/* an impossible data size is inferred from the mappings instead */
		if (!thin_sb_data_size_ok(old.data_sm.nr_blocks, in->size / BM_BLOCK_SIZE))
			sb->data_sm.nr_blocks = 0;
	}
	if (!r && root_ok(in, old.details_root, THIN_DETAILS_SIZE) && root_ok(in, old.mapping_root, 8)) {
		sb->details_root = old.details_root;
		sb->mapping_root = old.mapping_root;
	} else {
		log_warn("%s: %s; scanning every block for the device trees", in->name,
			 r ? "the superblock is unreadable" : "a tree root is damaged");
		rep->scanned = 1;
		sb->mapping_root = !r && root_ok(in, old.mapping_root, 8) ? old.mapping_root : 0;
		if ((r = thin_repair_scan(in, &sb->details_root, &sb->mapping_root)))
			return r;
		snapshot_trees(in, &old, sb, rep);
	}
	rep->details_root = sb->details_root;
	rep->mapping_root = sb->mapping_root;
	if (o->data_block_size)
		sb->data_block_size = o->data_block_size;
	if (!sb->data_block_size) {
		log_error("%s: the data block size is unknown (superblock lost): give it "
			  "(--data-block-size SECTORS)", in->name);
		return -EINVAL;
	}
	if (o->nr_data_blocks)
		sb->data_sm.nr_blocks = o->nr_data_blocks;
	/* the overlay's superblock must pass thin_sb_check */
	sb->data_sm.nr_allocated = 0;
	return 0;
}

/* Scanned trees may be older than the damage: the data blocks the damaged
 * superblock counted in use that the salvage maps no more are said. */
static int count_unmapped(struct io_engine *in, struct io_engine *out,
			  struct thin_repair_report *rep)
{
	struct thin_sb osb;
	int r = thin_sb_read(out, 0, &osb);

	if (r)
		return r;
	if (rep->in_data_in_use <= osb.data_sm.nr_allocated)
		return 0;
	rep->unmapped_in_use = rep->in_data_in_use - osb.data_sm.nr_allocated;
	log_warn("%s: its data space map counted %llu data blocks in use, the salvage maps %llu: "
		 "the mappings of %llu are lost (newer than the trees found, or in a lost subtree)",
		 in->name, (unsigned long long)rep->in_data_in_use,
		 (unsigned long long)osb.data_sm.nr_allocated,
		 (unsigned long long)rep->unmapped_in_use);
	return 0;
}

int thin_repair_io(struct io_engine *in, struct io_engine *out, const struct thin_repair_opts *o,
		   struct thin_repair_report *rep)
{
	const struct thin_damage_visitor dv_fn = { NULL, on_damage };
	struct thin_damage_visitor dv = dv_fn;
	struct thin_builder *b = NULL;
	struct rep_walk w = { 0 };
	struct overlay *ov;
	struct thin_sb sb;
	uint64_t *ids = NULL;
	size_t nr_ids = 0;
	int r;

	memset(rep, 0, sizeof(*rep));
	ov = calloc(1, sizeof(*ov));
	if (!ov)
		return -ENOMEM;
	w.rep = rep;
	w.progress = o->progress;
	w.progress_ctx = o->progress_ctx;
	dv.ctx = &w;
	/* the output never looks valid until the builder is done */
	if ((r = thin_builder_create(out, &b)))
		goto out;
	if ((r = choose(in, o, rep, &sb)))
		goto out;
	if (!sb.details_root) {
		/* the details are lost: made up from the mapping tree's device ids */
		if ((r = thin_repair_tree_keys(in, sb.mapping_root, &ids, &nr_ids)))
			goto out;
		if (nr_ids > (uint64_t)DETAILS_PER_LEAF * btree_max_entries(8)) {
			r = -E2BIG;
			goto out;
		}
		ov->nr_extra = (nr_ids + DETAILS_PER_LEAF - 1) / DETAILS_PER_LEAF + 2;
		if (!(ov->extra = calloc(ov->nr_extra, BM_BLOCK_SIZE))) {
			r = -ENOMEM;
			goto out;
		}
		ov->first_extra = in->size / BM_BLOCK_SIZE;
		sb.details_root = make_details(ov, ids, nr_ids, 0, 0);
		rep->details_rebuilt = 1;
		log_warn("%s: no device details tree fits the mapping tree: made up for %zu device%s "
			 "(times after every mapping, so all data counts as shared)", in->name, nr_ids,
			 tp_plural(nr_ids));
	}
	overlay_init(ov, in, &sb);
	const struct thin_ir_visitor v = { &w, on_sb_begin, on_sb_end, on_dev_begin, on_dev_end,
					   on_mappings };
	/* survey: highest data block, transaction and time, when not known */
	if (!sb.data_sm.nr_blocks || !rep->sb_ok) {
		r = thin_walk_io(&ov->e, 0, &v, &dv);
		if (r && r != -EUCLEAN)
			goto out;
		if (!sb.data_sm.nr_blocks)
			sb.data_sm.nr_blocks = w.any_mapping ? w.max_data + 1 : 1;
		if (!rep->sb_ok)
			sb.time = w.max_time;
	}
	if (o->set_transaction_id)
		sb.trans_id = o->transaction_id;
	else if (!rep->sb_ok)
		sb.trans_id = w.max_trans + 1;
	if (rep->details_rebuilt) {
		/* created after every mapping: the kernel then copies before writing */
		sb.time = TP_MAX(sb.time, w.max_time + 1);
		make_details(ov, ids, nr_ids, sb.trans_id ? sb.trans_id - 1 : 0, sb.time);
	}
	w.sb = (struct thin_ir_superblock){ sb.time, sb.trans_id, 0, THIN_SB_VERSION,
					    sb.data_block_size, sb.data_sm.nr_blocks, 0 };
	rep->transaction_id = sb.trans_id;
	w.out = thin_builder_visitor(b);
	rep->output_written = 1;	/* the build walk writes OUT from its first step */
	r = thin_walk_io(&ov->e, 0, &v, &dv);
	if (!r && !thin_builder_finished(b))
		r = -EIO;
	if (!r && rep->scanned && rep->sb_ok)
		r = count_unmapped(in, out, rep);
	if (r)
		log_error("%s: repair failed: %s; the output's superblock is zeroed", out->name,
			  strerror(-r));
out:
	thin_builder_destroy(b);
	free(w.buf);
	free(ids);
	if (ov)
		free(ov->extra);
	free(ov);
	return r;
}

void thin_repair_report_free(struct thin_repair_report *rep)
{
	if (!rep)
		return;
	free(rep->dev_ids);
	free(rep->lost);
	memset(rep, 0, sizeof(*rep));
}
