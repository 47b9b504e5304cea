/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_extend_data.c - tpextend --data and tpreduce --data: a data
 * device added behind the last one, or one but the first taken away when
 * no volume maps a chunk of it (pool.h; tpmove empties one).
 *
 * Adding: the new device's label (role data, its place as data_index) and
 * an empty VG area are written first; a crash there leaves the pool as it
 * was (its VG does not list the device, and a device whose label names a
 * place the VG does not have is no device of the pool: the next
 * tpextend --data takes it again). Then one change: the VG, written to
 * every device including the new one, lists it with its range and the
 * thin data space map grows to the new number of chunks; a crash after
 * the VG commit is completed by the next writer (core: the growth
 * replay). Taking away is the reverse: the thin metadata rebuilt into
 * the spare area without the device's range (a middle device: the chunks
 * behind it numbered down by its size), one VG commit that makes that
 * area active and drops the device, then its label wiped and the places
 * in the labels behind it brought in step (a label whose place lags is
 * still matched by its device uuid, metadata/vg/vg_io.c). */
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/admin/admin_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/host/host.h"
#include "lib/pool/policy.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/dev/probe.h"
#include "lib/dev/topology.h"
#include "metadata/thin/repair.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_builder.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The VG metadata area every device of VG has (tpcreate --vg-area), as
 * the first data device's label and VG record it (a data device's is the
 * whole span; a mirror's metadata devices give 512 KiB of it to the
 * kernel raid1): what a device added to the pool gets. */
static struct vg_area pool_mda(const struct vg *vg)
{
	return vg->dev[VG_ROLE_DATA].mda;
}

/* Bytes before a data area: sector 0, the label, the VG metadata area. */
static uint64_t data_header(const struct vg *vg)
{
	return pool_mda(vg).offset + pool_mda(vg).size;
}

unsigned pool_data_devices(const struct pool *p, struct pool_data_device *out, unsigned max)
{
	const struct vg *vg = pool_vg(p);
	unsigned n = vg_nr_data(vg);

	for (unsigned i = 0; i < n && i < max; i++) {
		const struct vg_device *d = vg_data_dev(vg, i);

		memset(&out[i], 0, sizeof(out[i]));
		out[i].path = pool_data_dev_path(p, i);
		snprintf(out[i].pv_uuid, sizeof(out[i].pv_uuid), "%s", d->pv_uuid);
		out[i].dev_size = d->size;
		out[i].offset = d->area[0].offset;
		out[i].first_chunk = vg_data_first_chunk(vg, i);
		out[i].chunks = vg_data_dev_chunks(vg, i);
	}
	return n;
}

/* Is PATH a device of P already? */
int pool_is_member_device(const struct pool *p, const char *path)
{
	const struct vg_pv *leg = pool_meta1_pv(p);

	for (unsigned i = 0; i < pool_nr_pvs(p); i++)
		if (pool_pv_at(p, i)->io && pool_same_device(pool_pv_at(p, i)->io->name, path))
			return 1;
	/* a mirror's second metadata device is the pool's too */
	return leg && leg->io && pool_same_device(leg->io->name, path);
}

int pool_device_unused(const char *pool, const char *own_uuid, const struct vg *own_vg,
		       const char *path, const char *who)
{
	struct tp_probe_result res;
	struct pool_label_owner o;
	struct vg_label l;
	char one[160], deed[96];
	int r = pool_read_label(path, &l);

	if (!r && own_uuid && own_vg && !strcmp(l.pool_uuid, own_uuid) &&
	    !vg_lists_device(own_vg, l.pv_uuid))
		return 0;	/* our own orphan: taken again */
	if (r == -ENOTBLK)
		return r;	/* no device (a FIFO, a directory): said, the caller's input */
	if (r != -ENOENT) {
		/* another pool's label (a member, an orphan, a pool that is
		 * gone) or a damaged one: refused with what frees it */
		if ((r = pool_label_owner(path, &o)))
			return r;
		snprintf(deed, sizeof(deed), "%s will not take it", who);
		pool_label_refusal(path, &o, deed, 0);
		return -EBUSY;
	}
	if ((r = tp_dev_probe(path, NULL, &res)) < 0) {
		log_error("pool %s: cannot probe %s: %s", pool, path, strerror(-r));
		return r;
	}
	if (res.count) {
		tp_signature_describe(&res.sig[0], one, sizeof(one));
		log_error("pool %s: %s carries %s; %s will not overwrite it. Wipe it ('wipefs -a "
			  "%s') if its contents are no longer needed", pool, path, one, who, path);
		return -EBUSY;
	}
	return 0;
}

/* PATH carries a signature: refuse, unless it is only a label of this
 * pool that no VG lists (an orphan: an earlier tpextend --data cut
 * short, or a device a cut tpreduce --data took away). */
static int check_signatures(const struct pool *p, const char *path)
{
	return pool_device_unused(pool_name(p), pool_vg(p)->uuid, pool_vg(p), path, "tpextend");
}

/* RES: every decision for the new device of DEV_SIZE bytes at PATH. */
static int decide(struct pool *p, const struct pool_extend_data_params *x, uint64_t dev_size,
		  struct pool_extend_data_result *res)
{
	const struct vg *vg = pool_vg(p);
	struct tp_add_data_decision d;
	struct tp_topology t;
	uint64_t have = vg_data_chunks(vg), max;
	char c[32], s[32];
	int r;

	res->index = vg_nr_data(vg);
	res->chunk = (uint64_t)vg->chunk_size * 512;
	res->dev_size = dev_size;
	res->first_chunk = have;
	res->old_data_size = have * res->chunk;
	res->meta_size = vg->dev[VG_ROLE_META].area[vg->metadata_area].size;
	if ((r = tp_topology_get(x->path, &t)))
		return r;
	tp_topology_describe(&t, res->topo_desc, sizeof(res->topo_desc));
	max = have < THIN_MAX_DATA_BLOCKS ? THIN_MAX_DATA_BLOCKS - have : 0;
	r = tp_policy_add_data(&t, dev_size, data_header(vg), res->chunk, max, &d);
	res->offset = d.offset.offset;
	res->grid = d.offset.grid;
	res->fits = d.fits;
	snprintf(res->offset_reason, sizeof(res->offset_reason), "%s", d.offset.reason);
	snprintf(res->stripe_reason, sizeof(res->stripe_reason), "%s", d.reason);
	if (r || !max) {
		log_error("pool %s: %s (%s) has no whole chunk (%s) behind its label, VG area "
			  "and alignment (data area from %s)", pool_name(p), x->path,
			  tp_size_format_exact(dev_size, c, sizeof(c)),
			  tp_size_format(res->chunk, 'h', s, sizeof(s)),
			  tp_size_format_exact(res->offset, s, sizeof(s)));
		return -ENOSPC;
	}
	res->chunks = d.chunks;
	res->new_data_size = (have + d.chunks) * res->chunk;
	res->meta_estimate = tp_policy_meta_estimate(res->new_data_size, res->chunk);
	return 0;
}

/* The VG with the new device NEW (uuid, path, sizes) behind the last. */
static int next_vg(const struct pool *p, const struct pool_extend_data_result *res,
		   const char *uuid, const char *path, struct vg **out)
{
	struct vg *next;
	struct vg_device *d;
	int r;

	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	/* the device before it ends on a whole chunk (as its range does) */
	d = vg_data_dev(next, vg_nr_data(next) - 1);
	d->area[0].size = d->area[0].size / res->chunk * res->chunk;
	next->nr_xdata++;
	d = vg_data_dev(next, res->index);
	memset(d, 0, sizeof(*d));
	snprintf(d->pv_uuid, sizeof(d->pv_uuid), "%s", uuid);
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->size = res->dev_size;
	d->mda = pool_mda(pool_vg(p));
	d->area[0].offset = res->offset;
	d->area[0].size = res->chunks * res->chunk;
	if ((r = vg_validate(next))) {
		vg_free(next);
		return r;
	}
	*out = next;
	return 0;
}

int pool_extend_data(struct pool *p, const struct pool_extend_data_params *x,
		     struct pool_extend_data_result *res)
{
	struct pool_growth g = { 0, 0 };
	struct tp_lock *claim = NULL;
	struct io_engine *io = NULL;
	char uuid[VG_UUID_LEN + 1], *path;
	struct vg_label l, old;
	struct vg *next = NULL;
	int r, e;

	memset(res, 0, sizeof(*res));
	if (vg_nr_data(pool_vg(p)) >= POOL_DATA_DEVICES_MAX) {
		unsigned last = vg_nr_data(pool_vg(p)) - 1;

		/* only the last one grows: the others' ranges are fixed in the
		 * chunk numbering */
		log_error("pool %s has %u data devices, the most a pool can have. Only its last "
			  "data device (%s) can grow: enlarge it (a larger LV or partition, a "
			  "longer image file) and run 'tpextend %s'; or move the chunks off a "
			  "small device ('tpmove --from DEV %s') and take it away ('tpreduce "
			  "--data DEV %s') to make room for a larger one", pool_name(p),
			  POOL_DATA_DEVICES_MAX, pool_data_dev_path(p, last), pool_name(p),
			  pool_name(p), pool_name(p));
		return -ENOSPC;
	}
	if (!(path = realpath(x->path, NULL))) {
		log_error("pool %s: %s: %s", pool_name(p), x->path, strerror(errno));
		return -ENOENT;
	}
	if (pool_is_member_device(p, path)) {
		log_error("pool %s: %s is one of its devices already", pool_name(p), x->path);
		free(path);
		return -EINVAL;
	}
	if ((r = check_signatures(p, path)))
		goto out;
	/* open it (the test read-only) for its size; a writer claims it */
	r = x->test ? io_fd_open(path, IO_RDONLY, &io)
		    : pool_claim_new_data(p, path, &claim, &io);
	if (r) {
		if (r != -EBUSY)
			log_error("pool %s: cannot open %s: %s", pool_name(p), x->path, strerror(-r));
		goto out;
	}
	if ((r = decide(p, x, io->size, res)))
		goto out;
	{	/* the data space map's growth in the metadata area (also --test) */
		char what[PATH_MAX + 16];

		snprintf(what, sizeof(what), "adding %s", x->path);
		if ((r = pool_meta_check_growth(p, (res->new_data_size / res->chunk), 0, what)))
			goto out;
	}
	if (!res->fits && !x->force) {
		log_error("pool %s: %s: %s; add --force to take it anyway ('tpextend --data %s "
			  "--explain %s' says more)", pool_name(p), x->path, res->stripe_reason,
			  x->path, pool_name(p));
		r = -EDOM;
		goto out;
	}
	if (!res->fits)
		log_warn("pool %s: %s: %s; taking it anyway (--force)", pool_name(p), x->path,
			 res->stripe_reason);
	/* a pool whose thin metadata is fatally damaged takes no device: the
	 * change would be refused after the new device was labelled */
	if ((r = pool_guard(p, "adding a data device", "nothing was changed", 0)))
		goto out;
	if (x->test)
		goto out;
	/* 1. the new device's label and empty VG area */
	if ((r = vg_uuid_generate(uuid)) || (r = next_vg(p, res, uuid, path, &next)))
		goto out;
	vg_label_from_vg_data(next, res->index, io->size, &l);
	if ((e = vg_label_read(io, &old)) == VG_LABEL_FOUND && (r = vg_label_wipe(io, 0)) < 0)
		goto out;
	tp_critical_begin();
	r = vg_mda_format(io, &l);
	if (!r)
		r = vg_label_write(io, &l);
	tp_critical_end();
	if (r) {
		log_error("pool %s: cannot label %s: %s; nothing was changed", pool_name(p),
			  x->path, strerror(-r));
		goto out;
	}
	pool_record_device(pool_name(p), VG_ROLE_DATA, uuid, path);
	tp_test_pause("xdata-labelled");
	/* 2. the change: the VG on every device, the space map grown */
	if ((r = pool_add_data_pv(p, io, &l, claim)))
		goto out;
	io = NULL;
	claim = NULL;
	g.data_blocks = res->new_data_size / res->chunk;
	r = pool_change(p, next, pool_grow_thin, &g);
	next = NULL;	/* consumed */
	if (r) {
		const struct vg_pv *pv = pool_pv_at(p, pool_nr_pvs(p) - 1);

		/* the VG was put back: the device is no part of the pool */
		if (vg_data_index(pool_vg(p), pv->label.pv_uuid) < 0) {
			if (pool_devices_remove_pv(uuid) < 0)
				log_warn("pool %s: the devices file keeps an entry of %s", pool_name(p),
					 x->path);
			if (vg_label_wipe(pv->io, 0) < 0)
				log_warn("pool %s: %s keeps an orphan label of the pool; the pool's "
					 "next change wipes it, or 'tpremove --label %s'", pool_name(p),
					 x->path, x->path);
			pool_drop_data_pv(p);
		}
		pool_grow_undone(p, &g);
		goto out;
	}
	res->written = 1;
	r = pool_sync_labels(p, NULL);
out:
	vg_free(next);
	io_destroy(io);
	tp_lock_release(claim);
	free(path);
	return r;
}

/* The walk of the active area fed to the builder of the spare one
 * (OUT; NULL: a count alone), the ranges [FIRST[k], FIRST[k] + N[k]) of
 * the data area (ascending, disjoint) taken out: a data block behind them
 * moves down by the ranges before it; a mapping into one is refused
 * (-EBUSY: checked before) or, with DROP, left out and counted for its
 * device (LOST). */
#define CUT_RANGES VG_DATA_DEVICES_MAX
struct cut {
	const struct thin_ir_visitor *out;
	unsigned nr;
	uint64_t first[CUT_RANGES], n[CUT_RANGES], nr_blocks;
	int drop;
	struct thin_ir_mapping *buf;
	size_t alloc, used;
	uint64_t dev_id;
	struct cut_lost {
		uint64_t dev_id, blocks;
	} *lost;
	size_t nr_lost, alloc_lost;
};

static int cut_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	struct cut *c = ctx;
	struct thin_ir_superblock s = *sb;

	s.nr_data_blocks = c->nr_blocks;
	s.metadata_snap = 0;
	return c->out ? c->out->superblock_begin(c->out->ctx, &s) : 0;
}

static int cut_sb_end(void *ctx)
{
	struct cut *c = ctx;
	return c->out ? c->out->superblock_end(c->out->ctx) : 0;
}

static int cut_dev(void *ctx, const struct thin_ir_device *d)
{
	struct cut *c = ctx;

	c->dev_id = d->dev_id;
	return c->out ? c->out->device_begin(c->out->ctx, d) : 0;
}

static int cut_dev_end(void *ctx)
{
	struct cut *c = ctx;
	return c->out ? c->out->device_end(c->out->ctx) : 0;
}

/* BLOCKS of the current device's mappings dropped. */
static int note_lost(struct cut *c, uint64_t blocks)
{
	if (!c->nr_lost || c->lost[c->nr_lost - 1].dev_id != c->dev_id) {
		if (c->nr_lost == c->alloc_lost) {
			size_t na = c->alloc_lost ? 2 * c->alloc_lost : 16;
			void *nl = realloc(c->lost, na * sizeof(*c->lost));

			if (!nl)
				return -ENOMEM;
			c->lost = nl;
			c->alloc_lost = na;
		}
		c->lost[c->nr_lost].dev_id = c->dev_id;
		c->lost[c->nr_lost++].blocks = 0;
	}
	c->lost[c->nr_lost - 1].blocks += blocks;
	return 0;
}

/* Append the piece [DATA, DATA + LEN) of run M (origin moved alike), its
 * data blocks numbered down by SHIFT. */
static int put_piece(struct cut *c, const struct thin_ir_mapping *m, uint64_t data, uint64_t len,
		     uint64_t shift)
{
	if (!len)
		return 0;
	if (c->used == c->alloc) {
		size_t na = c->alloc ? 2 * c->alloc : 64;
		void *nb = realloc(c->buf, na * sizeof(*c->buf));

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->alloc = na;
	}
	c->buf[c->used] = *m;
	c->buf[c->used].origin_begin = m->origin_begin + (data - m->data_begin);
	c->buf[c->used].data_begin = data - shift;
	c->buf[c->used].length = len;
	c->used++;
	return 0;
}

static int cut_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct cut *c = ctx;
	int r = 0;

	c->used = 0;
	for (size_t i = 0; i < n && !r; i++) {
		uint64_t pos = runs[i].data_begin, end = pos + runs[i].length, shift = 0;

		for (unsigned k = 0; k < c->nr && pos < end && !r; k++) {
			uint64_t a = c->first[k], b = a + c->n[k];

			if (b <= pos) {		/* wholly before what is left */
				shift += c->n[k];
				continue;
			}
			if (a >= end)
				break;
			if (!c->drop)
				return -EBUSY;	/* a mapping into the range: checked before */
			/* the piece before the range stays, the overlap goes */
			if ((r = put_piece(c, &runs[i], pos, a > pos ? a - pos : 0, shift)))
				break;
			r = note_lost(c, TP_MIN(end, b) - TP_MAX(pos, a));
			pos = TP_MIN(end, b);
			shift += c->n[k];
		}
		if (!r && pos < end)
			r = put_piece(c, &runs[i], pos, end - pos, shift);
	}
	if (r || !c->out || !c->used)
		return r;
	return c->out->mappings(c->out->ctx, c->buf, c->used);
}

/* Walk IN through C: into a builder on OUT, or (OUT NULL) to count. */
static int rebuild_cut(struct io_engine *in, struct io_engine *out, struct cut *c)
{
	struct thin_builder *b = NULL;
	const struct thin_ir_visitor vis = { c, cut_sb, cut_sb_end, cut_dev, cut_dev_end,
					     cut_mappings };
	int r;

	if (!out)
		return thin_walk_io(in, 0, &vis, NULL);
	if ((r = thin_builder_create(out, &b)))
		return r;
	c->out = thin_builder_visitor(b);
	r = thin_walk_io(in, 0, &vis, NULL);
	if (!r && !thin_builder_finished(b))
		r = -EIO;
	thin_builder_destroy(b);
	c->out = NULL;
	return r;
}

static void cut_free(struct cut *c)
{
	free(c->buf);
	free(c->lost);
	c->buf = NULL;
	c->lost = NULL;
}

/* The thin metadata of the active area rebuilt into the spare area with
 * NR_BLOCKS data chunks: without the chunks from NR_BLOCKS on (C NULL), or
 * through the cut C (its ranges out, those behind them numbered down;
 * nothing in them is in use, or C->drop). */
static int rebuild_into_spare(struct pool *p, uint64_t nr_blocks, struct cut *c)
{
	const struct vg *vg = pool_vg(p);
	struct thin_repair_opts o = { 1, vg->transaction_id, vg->chunk_size, nr_blocks };
	struct thin_repair_report rep;
	struct io_engine *in = NULL, *out = NULL;
	char *saved = NULL;
	int r;

	memset(&rep, 0, sizeof(rep));
	/* through the mirror engine: a mirrored pool's legs both get the
	 * rebuilt area, or the commit below would leave the second stale */
	if ((r = pool_meta_area_io(p, 0, &in)) || (r = pool_meta_area_io(p, 1, &out)))
		goto out;
	in->read_only = 1;
	/* what the spare holds (a damaged copy a repair set aside) is kept */
	if ((r = pool_spare_save(vg->uuid, pool_name(p), vg->seqno, out, &saved)))
		goto out;
	if (saved)
		log_notice("pool %s: what its spare thin-metadata area held (a copy tprepair set "
			   "aside, or an earlier rebuild) is kept in %s", pool_name(p), saved);
	free(saved);
	if (c) {
		c->nr_blocks = nr_blocks;
		r = rebuild_cut(in, out, c);
	} else {
		r = thin_repair_io(in, out, &o, &rep);
		if (!r && rep.nr_lost) {
			log_error("pool %s: rebuilding its thin metadata lost mappings; nothing was "
				  "changed ('tpcheck %s')", pool_name(p), pool_name(p));
			r = -EUCLEAN;
		}
	}
	if (!r)
		r = io_flush(out);
	if (r)
		log_error("pool %s: cannot rebuild its thin metadata into the spare area: %s; "
			  "nothing was changed", pool_name(p), strerror(-r));
out:
	thin_repair_report_free(&rep);
	io_destroy(in);
	io_destroy(out);
	return r;
}

int pool_rebuild_spare_smaller(struct pool *p, uint64_t nr_blocks)
{
	return rebuild_into_spare(p, nr_blocks, NULL);
}

int pool_reduce_data(struct pool *p, const char *path, int test,
		     struct pool_reduce_data_result *res)
{
	const struct vg *vg = pool_vg(p);
	unsigned n = vg_nr_data(vg), last = n - 1, i, from;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	char uuid[VG_UUID_LEN + 1], *real, what[PATH_MAX + 32];
	struct io_engine *io;
	struct vg *next;
	int r, e;

	memset(res, 0, sizeof(res[0]));
	if ((r = pool_refuse_live(p, "rebuilding its thin metadata without the device")))
		return r;
	if (n == 1) {
		log_error("pool %s has one data device; there is none to take away",
			  pool_name(p));
		return -EINVAL;
	}
	real = realpath(path, NULL);
	for (i = 0; real && i < n && !pool_same_device(real, pool_data_dev_path(p, i)); i++)
		;
	if (!real)
		i = n;
	free(real);
	if (i == n) {
		log_error("pool %s: %s is not one of its data devices ('tpstatus --devices-report "
			  "%s' lists them)", pool_name(p), path, pool_name(p));
		return -EINVAL;
	}
	res->index = i;
	res->first_chunk = vg_data_first_chunk(vg, i);
	res->chunks = vg_data_dev_chunks(vg, i);
	res->old_data_size = vg_data_chunks(vg) * chunk;
	res->new_data_size = res->old_data_size - res->chunks * chunk;
	if ((r = pool_guard(p, "taking the device away", "nothing was changed", 0)) ||
	    (r = pool_data_in_use(p, res->first_chunk, res->chunks, &res->used)))
		return r;
	if (res->used) {
		log_error("pool %s: %llu of the %llu chunk%s of %s %s in use; it can be taken "
			  "away only when it holds none: move %s to the other data devices "
			  "first ('tpmove --from %s %s')", pool_name(p),
			  (unsigned long long)res->used, (unsigned long long)res->chunks,
			  tp_plural(res->chunks), path, res->used == 1 ? "is" : "are",
			  res->used == 1 ? "it" : "them", path, pool_name(p));
		return -EBUSY;
	}
	/* the over-provisioning limit follows the data size (also --test) */
	snprintf(what, sizeof(what), "taking %s away", path);
	if ((r = pool_provision_check_shrink(p, res->new_data_size, what)))
		return r;
	if (test)
		return 0;
	/* 1. the thin metadata without the range, into the spare area */
	if (i == last) {
		r = rebuild_into_spare(p, res->first_chunk, NULL);
	} else {
		struct cut c;

		memset(&c, 0, sizeof(c));
		c.nr = 1;
		c.first[0] = res->first_chunk;
		c.n[0] = res->chunks;
		r = rebuild_into_spare(p, res->new_data_size / chunk, &c);
		cut_free(&c);
	}
	if (r)
		return r;
	tp_test_pause("xdata-rebuilt");
	/* 2. one VG commit: that area active, the device gone (the ones
	 * behind it one place up; the first one gone, the second is the
	 * first), to the devices that stay */
	if ((r = vg_clone(vg, &next)))
		return r;
	snprintf(uuid, sizeof(uuid), "%s", vg_data_dev(vg, i)->pv_uuid);
	if (!i)
		next->dev[VG_ROLE_DATA] = *vg_data_dev(next, 1);
	from = i ? i : 1;	/* the added devices from there move up one */
	memmove(vg_data_dev(next, from), vg_data_dev(next, from) + 1,
		(last - from) * sizeof(next->xdata[0]));
	memset(vg_data_dev(next, last), 0, sizeof(next->xdata[0]));
	next->nr_xdata--;
	next->metadata_area = !vg->metadata_area;
	pool_data_pv_to_end(p, i);
	if ((r = pool_commit_vg(p, next))) {	/* consumes NEXT */
		pool_data_pv_from_end(p, i);
		return r;
	}
	res->written = 1;
	tp_test_pause("xdata-dropped");
	/* 3. the places in the labels of the devices behind it (the new
	 * first one's 0), its devices-file entry, then its label and VG
	 * area, last: a cut before leaves a label the VG does not list, a
	 * place that lags, both found by their device uuids through the VG
	 * (pool_find.c), and never a listed device without its label (which
	 * the check would take for a lost label to rewrite) */
	if (pool_sync_labels(p, NULL))
		log_warn("pool %s: the labels of its data devices behind %s keep their old places; "
			 "the next command that changes the pool brings them in step", pool_name(p),
			 path);
	if (pool_devices_remove_pv(uuid))
		log_warn("pool %s: the devices file still lists %s", pool_name(p), path);
	io = pool_pv_at(p, pool_nr_pvs(p) - 1)->io;
	tp_critical_begin();
	e = vg_label_wipe(io, 0);
	if (e >= 0)
		e = vg_mda_format(io, &pool_pv_at(p, pool_nr_pvs(p) - 1)->label);
	tp_critical_end();
	if (e < 0)
		log_warn("pool %s: %s is no longer its device, but its label could not be wiped "
			 "(%s); the pool's next change wipes it, or 'tpremove --label %s'",
			 pool_name(p), path, strerror(-e), path);
	pool_drop_data_pv(p);
	return 0;
}

/* RES's volumes from the cut's losses: each thin device named by its
 * volume (or removal, or unfinished receive) in VG. */
static void name_losses(const struct vg *vg, const struct cut *c,
			struct pool_reduce_missing_result *res)
{
	for (size_t i = 0; i < c->nr_lost; i++) {
		const struct vg_volume *v = c->lost[i].dev_id <= VG_DEV_ID_MAX
						    ? vg_find_dev_id(vg, (uint32_t)c->lost[i].dev_id)
						    : NULL;

		res->lost += c->lost[i].blocks;
		if (res->nr_lost >= POOL_REDUCE_LOST_MAX)
			continue;
		snprintf(res->vol[res->nr_lost].name, sizeof(res->vol[0].name), "%s",
			 v ? v->name : "");
		res->vol[res->nr_lost].dev_id = c->lost[i].dev_id;
		res->vol[res->nr_lost++].blocks = c->lost[i].blocks;
	}
}

int pool_reduce_missing(struct pool *p, int force, int test,
			struct pool_reduce_missing_result *res)
{
	const struct vg *vg = pool_vg(p);
	uint64_t chunk = (uint64_t)vg->chunk_size * 512, gone = 0;
	unsigned n = vg_nr_data(vg), idx[VG_DATA_DEVICES_MAX], nr = 0;
	char list[1024] = "", at[VG_PATH_MAX + 1], why[512];
	struct vg *next = NULL;
	struct cut c;
	int r;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	if ((r = pool_refuse_live(p, "rebuilding its thin metadata without the devices")))
		return r;
	for (unsigned i = 1; i < n; i++) {
		const struct vg_device *d = vg_data_dev(vg, i);

		if (pool_data_dev_path(p, i)[0])
			continue;
		/* (the open refuses it first: pool_data.c) */
		if (pool_device_filtered(d->pv_uuid, d->path, at, sizeof(at), why, sizeof(why))) {
			log_error("pool %s: its data device %u (device uuid %s) may be there: %s, "
				  "where it was last seen, is excluded by the devices filter, pattern "
				  "%s; tpreduce --missing takes away only a device that is gone: "
				  "accept it in devices/filter (tptools.conf(5)) and run the command "
				  "again; nothing was changed", pool_name(p), i + 1, d->pv_uuid, at,
				  why);
			return -ENOENT;
		}
		idx[nr++] = i;
		c.first[c.nr] = vg_data_first_chunk(vg, i);
		c.n[c.nr++] = vg_data_dev_chunks(vg, i);
		gone += vg_data_dev_chunks(vg, i);
		res->dev[res->nr_devices].index = i;
		snprintf(res->dev[res->nr_devices].device_uuid, sizeof(res->dev[0].device_uuid), "%s",
			 d->pv_uuid);
		snprintf(res->dev[res->nr_devices].last_path, sizeof(res->dev[0].last_path), "%s",
			 d->path);
		res->dev[res->nr_devices++].chunks = vg_data_dev_chunks(vg, i);
	}
	if (!nr) {
		log_error("pool %s: none of its data devices is missing: nothing to take away "
			  "('tpreduce --data DEV %s' takes a device that is there)", pool_name(p),
			  pool_name(p));
		return -ENOENT;
	}
	res->old_data_size = vg_data_chunks(vg) * chunk;
	res->new_data_size = res->old_data_size - gone * chunk;
	if ((r = pool_guard(p, "taking the missing devices away", "nothing was changed", 0)))
		return r;
	/* what the volumes map there: counted on the active area first */
	{
		struct io_engine *in = NULL;

		c.drop = 1;
		if (!(r = pool_meta_area_io(p, 0, &in))) {
			in->read_only = 1;
			c.nr_blocks = vg_data_chunks(vg) - gone;
			r = rebuild_cut(in, NULL, &c);
		}
		io_destroy(in);
		if (r) {
			log_error("pool %s: cannot read its thin metadata: %s; nothing was changed",
				  pool_name(p), strerror(-r));
			goto out;
		}
		name_losses(vg, &c, res);
		c.nr_lost = 0;
	}
	for (unsigned i = 0; i < res->nr_lost; i++) {
		size_t used = strlen(list);

		snprintf(list + used, sizeof(list) - used, "%s%s%s%llu chunks", used ? ", " : "",
			 res->vol[i].name[0] ? res->vol[i].name : "a thin device of no volume",
			 res->vol[i].name[0] ? ": " : ": ", (unsigned long long)res->vol[i].blocks);
	}
	if (res->lost && !force) {
		log_error("pool %s: its missing data device%s hold%s chunks the volumes map (%s%s): "
			  "taking %s away loses them, and those blocks of the volumes read as zeros "
			  "afterwards. Attach %s and run the command again if %s can be found; only "
			  "if %s lost for good, 'tpreduce --missing --force %s' takes %s away anyway; "
			  "nothing was changed", pool_name(p), nr > 1 ? "s" : "", nr > 1 ? "" : "s",
			  list, res->nr_lost < POOL_REDUCE_LOST_MAX ? "" : ", ...",
			  nr > 1 ? "them" : "it", nr > 1 ? "them" : "it", nr > 1 ? "they" : "it",
			  nr > 1 ? "they are" : "it is", pool_name(p), nr > 1 ? "them" : "it");
		r = -EBUSY;
		goto out;
	}
	if (test)
		goto out;
	/* 1. the thin metadata without their ranges (the mappings into them
	 * dropped), into the spare area */
	if ((r = rebuild_into_spare(p, res->new_data_size / chunk, &c)))
		goto out;
	tp_test_pause("xdata-rebuilt");
	/* 2. one VG commit without them, to the devices that stay (the
	 * missing ones put last, past the commit's count) */
	if ((r = vg_clone(vg, &next)))
		goto out;
	for (unsigned k = nr; k-- > 0;) {
		unsigned i = idx[k], last = vg_nr_data(next) - 1;

		memmove(vg_data_dev(next, i), vg_data_dev(next, i) + 1,
			(last - i) * sizeof(next->xdata[0]));
		memset(vg_data_dev(next, last), 0, sizeof(next->xdata[0]));
		next->nr_xdata--;
		pool_data_pv_to_end(p, i);
	}
	next->metadata_area = !vg->metadata_area;
	if ((r = pool_commit_vg(p, next))) {	/* consumes NEXT */
		for (unsigned k = 0; k < nr; k++)
			pool_data_pv_from_end(p, idx[k]);
		goto out;
	}
	res->written = 1;
	tp_test_pause("xdata-dropped");
	/* 3. their devices-file entries, the places in the labels behind
	 * them; their labels stay where they are (a device that comes back
	 * is an orphan of the pool: its next writer wipes it) */
	for (unsigned k = 0; k < res->nr_devices; k++)
		if (pool_devices_remove_pv(res->dev[k].device_uuid))
			log_warn("pool %s: the devices file still lists device uuid %s", pool_name(p),
				 res->dev[k].device_uuid);
	for (unsigned k = 0; k < nr; k++)
		pool_drop_data_pv(p);
	if (pool_sync_labels(p, NULL))
		log_warn("pool %s: the labels of its data devices keep their old places; the next "
			 "command that changes the pool brings them in step", pool_name(p));
out:
	cut_free(&c);
	return r;
}
