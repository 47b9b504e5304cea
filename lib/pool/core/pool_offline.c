/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_offline.c - the offline backend (core.h): the thin metadata
 * on the devices through metadata/thin, changes uncommitted until the
 * caller commits (a failed change: the thin transaction dropped, the VG
 * put back), figures from the space maps, the device details and, for
 * exclusive and shared, a walk of the trees. */
#include "lib/pool/core/core_int.h"

#include <errno.h>
#include "lib/pool/core/pool_usage.h"
#include "lib/pool/core/pool_vg.h"

#include "lib/base/log.h"
#include "metadata/thin/thin_walk.h"

#include <stdlib.h>
#include <string.h>

static int off_create(struct pool *p, uint32_t dev_id)
{
	return thin_create_thin(p->md, dev_id);
}

static int off_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *o)
{
	return thin_create_snap(p->md, dev_id, o->dev_id);
}

static int off_delete(struct pool *p, uint32_t dev_id, const char *vol)
{
	(void)vol;
	return thin_delete(p->md, dev_id);
}

static int off_unmap_step(struct pool *p, const struct vg_volume *rm, int do_step,
			  uint64_t *pos, uint64_t *left)
{
	struct thin_ir_device d;
	uint64_t removed = 0;
	int r = thin_unmap_first(p->md, rm->dev_id, do_step ? pool_removal_step(65536) : 0,
				 &removed);

	if (!r && removed)
		r = thin_commit(p->md);
	if (r) {
		if (thin_abort(p->md))
			pool_latch_read_only(p, "dropping the uncommitted removal step failed");
		return r;
	}
	*pos += removed;
	if ((r = thin_device_info(p->md, rm->dev_id, &d)))
		return r;
	*left = d.mapped_blocks;
	return 0;
}

static int off_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id)
{
	return thin_set_transaction_id(p->md, old_id, new_id);
}

static int off_commit(struct pool *p)
{
	return thin_commit(p->md);
}

static int off_abort(struct pool *p)
{
	return thin_abort(p->md);
}

static int off_settle(struct pool *p, uint64_t tid, struct vg *undo, int err)
{
	int u = thin_abort(p->md);

	(void)tid;
	if (!u)
		u = pool_commit_vg(p, undo);
	else
		vg_free(undo);
	if (u)
		pool_latch_read_only(p, "could not undo the VG metadata of the failed change");
	return err;
}

static int off_figures(struct pool *p, struct pool_status *st, uint64_t *mu, uint64_t *mt,
		       uint64_t *du, uint64_t *dt)
{
	st->needs_check = thin_needs_check(p->md);
	return thin_usage(p->md, mu, mt, du, dt);
}

static int off_fill(struct pool *p, uint64_t *mu, uint64_t *mt, uint64_t *du, uint64_t *dt)
{
	return thin_usage(p->md, mu, mt, du, dt);
}

int pool_md_walk(void *arg, const struct thin_ir_visitor *v)
{
	return thin_walk(arg, 0, v);
}

static int off_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		     size_t *n)
{
	return pool_usage_walk(pool_md_walk, p->md, nr_data_blocks,
			       pool_usage_expect(p->vg), u, n);
}

struct details {
	struct pool_dev_usage *u;
	size_t n, cap;
};

static int detail(void *ctx, uint64_t dev_id, const struct thin_ir_device *d)
{
	struct details *x = ctx;

	if (x->n == x->cap)
		return TP_BUG("thin metadata: more devices than it listed");
	x->u[x->n].dev_id = dev_id;
	x->u[x->n++].mapped = d->mapped_blocks;
	return 0;
}

/* The details the open loaded (thin_open reads every device's): no walk
 * of the trees again, and no copy of the details for one (at 100,000
 * volumes a walk held 7 MB more, tpstatus's largest part after the VG). */
static int off_details(struct pool *p, struct pool_dev_usage **u, size_t *n)
{
	struct details x = { NULL, 0, thin_nr_devices(p->md) };
	int r;

	*u = NULL;
	*n = 0;
	if (x.cap && !(x.u = calloc(x.cap, sizeof(*x.u))))
		return -ENOMEM;
	if ((r = thin_each_device(p->md, detail, &x))) {
		free(x.u);
		return r;
	}
	*u = x.u;
	*n = x.n;
	return 0;
}

static int off_view_begin(struct pool *p, struct pool_meta_view *v)
{
	v->io = p->thin_io;
	return v->io ? 0 : TP_BUG("pool %s: offline with no thin-metadata area open", p->name);
}

int pool_data_in_use(struct pool *p, uint64_t first, uint64_t n, uint64_t *used)
{
	int r = p->md ? 0 : pool_open_thin(p);

	*used = 0;
	for (uint64_t b = first; !r && b < first + n; b++) {
		uint32_t c = 0;

		if (!(r = thin_data_count(p->md, b, &c)))
			*used += c > 0;
	}
	return r;
}

int pool_open_thin(struct pool *p)
{
	const struct vg_area *a = &p->pv[VG_ROLE_META].label.area[p->vg->metadata_area];
	int r;

	thin_close(p->md);
	io_destroy(p->thin_io);
	p->md = NULL;
	p->thin_io = NULL;
	r = pool_meta_area_io(p, 0, &p->thin_io);
	if (r) {
		log_error("pool %s: the thin-metadata area lies beyond the end of %s", p->name,
			  pool_meta_dev_name(p));
		return r;
	}
	r = thin_open(p->thin_io, (p->flags & POOL_RDONLY) ? THIN_RDONLY : 0, &p->md);
	if (r) {
		log_error("pool %s: cannot open its thin metadata (%s at byte %llu): %s; run "
			  "'tpcheck %s'", p->name, pool_meta_dev_name(p),
			  (unsigned long long)a->offset, strerror(-r), p->name);
		p->md = NULL;
		return r;
	}
	/* thin metadata of another block size, or of more data blocks than
	 * the data area holds, is not this pool's (another pool's copy at
	 * the same place, or the VG is): its mappings would be read as this
	 * pool's chunks */
	struct thin_ir_superblock sb;

	if (!thin_superblock_info(p->md, &sb) &&
	    (sb.data_block_size != p->vg->chunk_size || sb.nr_data_blocks > vg_data_chunks(p->vg))) {
		log_error("pool %s: the thin metadata on %s (data block size %u sectors, %llu data "
			  "blocks) is not its own (chunk %u sectors, %llu chunks): another pool's "
			  "copy or its VG is; nothing is read from it. 'tpcheck %s' says what to do",
			  p->name, pool_meta_dev_name(p), sb.data_block_size,
			  (unsigned long long)sb.nr_data_blocks, p->vg->chunk_size,
			  (unsigned long long)vg_data_chunks(p->vg), p->name);
		thin_close(p->md);
		p->md = NULL;
		return -EUCLEAN;
	}
	/* the thin metadata is the VG's state, or one transaction behind it
	 * (an interrupted change, which the next writer completes); any
	 * other is a state of another moment (an older copy put back, or
	 * VG copies that lag): its volumes would read what they held then */
	if (!thin_superblock_info(p->md, &sb) && sb.transaction > p->vg->transaction_id) {
		log_error("pool %s: transaction id mismatch: the thin metadata on %s is at "
			  "transaction %llu, ahead of every valid VG metadata copy (at %llu): the "
			  "newest VG copies are damaged or lost; nothing is written. Restore the VG "
			  "with tprepair: 'tprepair %s --restorefile FILE' (a VG backup that agrees "
			  "with the thin metadata; 'tpcheck %s' names this host's)",
			  p->name, pool_meta_dev_name(p), (unsigned long long)sb.transaction,
			  (unsigned long long)p->vg->transaction_id, p->name, p->name);
		thin_close(p->md);
		p->md = NULL;
		return -EUCLEAN;
	}
	if (!thin_superblock_info(p->md, &sb) && sb.transaction != p->vg->transaction_id &&
	    sb.transaction + 1 != p->vg->transaction_id) {
		log_error("pool %s: transaction id mismatch: the thin metadata on %s is at "
			  "transaction %llu, the VG metadata at %llu: a state of another moment, "
			  "whose volumes would read what they held then; nothing is read from it. "
			  "'tpcheck %s' says what to do",
			  p->name, pool_meta_dev_name(p), (unsigned long long)sb.transaction,
			  (unsigned long long)p->vg->transaction_id, p->name);
		thin_close(p->md);
		p->md = NULL;
		return -EUCLEAN;
	}
	return 0;
}

static int off_grow(struct pool *p, const struct pool_growth *g)
{
	int r = 0;

	if (g->meta_blocks) {
		if ((r = pool_sync_labels(p, NULL)) || (r = pool_open_thin(p)))
			return r;
		r = thin_resize_metadata(p->md, g->meta_blocks);
		if (r)
			log_error("pool %s: cannot grow the thin metadata's space map to %llu "
				  "blocks: %s", p->name, (unsigned long long)g->meta_blocks,
				  strerror(-r));
	}
	if (!r && g->data_blocks) {
		r = thin_resize_data(p->md, g->data_blocks);
		if (r)
			log_error("pool %s: cannot grow the thin metadata's data space map to %llu "
				  "chunks: %s", p->name, (unsigned long long)g->data_blocks,
				  strerror(-r));
	}
	return r;
}

static void off_grow_undone(struct pool *p, const struct pool_growth *g)
{
	if (g->meta_blocks && !pool_sync_labels(p, NULL) && pool_open_thin(p))
		log_error("pool %s: reopen it to go on", p->name);
}

static int off_grow_catch_up(struct pool *p, struct pool_extend_result *res)
{
	(void)p;
	(void)res;
	return 0;	/* the open's replay did it (pool_txn.c) */
}

const struct pool_backend pool_backend_offline = {
	.live = 0,
	.create = off_create,
	.snap = off_snap,
	.delete_thin = off_delete,
	.unmap_step = off_unmap_step,
	.set_tid = off_set_tid,
	.commit = off_commit,
	.abort = off_abort,
	.settle = off_settle,
	.reconcile = pool_reconcile,
	.figures = off_figures,
	.usage = off_usage,
	.details = off_details,
	.fill = off_fill,
	.view_begin = off_view_begin,
	.grow = off_grow,
	.grow_undone = off_grow_undone,
	.grow_catch_up = off_grow_catch_up,
};
