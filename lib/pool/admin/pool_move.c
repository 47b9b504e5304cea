/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_move.c - tpmove (pool.h: pool_move_data): every chunk mapped on
 * one data device of an inactive pool moved onto free chunks of the
 * others, so that tpreduce --data can take the device away.
 *
 * Which chunks: one walk of the committed thin metadata collects every
 * mapping (thin id, virtual block) whose data block lies in the device's
 * range, sorted by data block; a chunk several volumes or snapshots map
 * appears once per mapping and moves once: all its mappings follow it in
 * the same step. Where to: the chunks outside the range whose count in
 * the data space map is 0, lowest first. Memory: 24 bytes per mapping
 * into the range.
 *
 * A step (at most POOL_MOVE_STEP mappings, at least one chunk):
 *   1. each chunk's data copied to its new place (pieces of at most
 *      4 MiB) and every data device written to flushed;
 *   2. in one thin transaction each mapping re-pointed, keeping its time
 *      (thin_remap_mapping: the new chunk takes the references, the old
 *      one drops them), then the commit of the thin metadata alone (the
 *      transaction ids stay equal, as a removal's steps do).
 * A cut before 2's commit leaves the old mappings and copies in chunks
 * nobody maps; after it, that step is done. Nothing else is kept between
 * steps, so a run cut anywhere is resumed by running it again: its walk
 * finds what is still there. A pending signal stops it before a step.
 *
 * The same engine empties the data area's tail for tpreduce --size
 * (pool_shrink.c): with no device named, the range is [keep, end of the
 * data area) and the free chunks are those below it. */
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/admin/admin_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/host/host.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_walk.h"
#include "kernel/dm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COPY_PIECE (4u << 20)	/* the most one read or write of a copy covers */

struct ref {
	uint64_t data;		/* the data block, in the range */
	uint64_t vblock;
	uint64_t dev_id;
};

struct collect {
	uint64_t first, end;	/* the range [first, end) */
	uint64_t dev_id;
	struct ref *refs;
	size_t n, alloc;
};

static int collect_device(void *ctx, const struct thin_ir_device *d)
{
	((struct collect *)ctx)->dev_id = d->dev_id;
	return 0;
}

static int collect_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct collect *c = ctx;

	for (size_t i = 0; i < n; i++) {
		const struct thin_ir_mapping *m = &runs[i];
		uint64_t lo = TP_MAX(m->data_begin, c->first);
		uint64_t hi = TP_MIN(m->data_begin + m->length, c->end);

		for (uint64_t d = lo; d < hi; d++) {
			if (c->n == c->alloc) {
				size_t na = c->alloc ? c->alloc * 2 : 1024;
				void *nv = realloc(c->refs, na * sizeof(*c->refs));

				if (!nv)
					return -ENOMEM;
				c->refs = nv;
				c->alloc = na;
			}
			c->refs[c->n++] = (struct ref){ d, m->origin_begin + (d - m->data_begin),
							c->dev_id };
		}
	}
	return 0;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->data != y->data)
		return x->data < y->data ? -1 : 1;
	if (x->dev_id != y->dev_id)
		return x->dev_id < y->dev_id ? -1 : 1;
	return x->vblock < y->vblock ? -1 : x->vblock > y->vblock;
}

/* The data device X->path of P: its index, or -EINVAL (logged). */
static int find_device(struct pool *p, const char *path, unsigned *index)
{
	unsigned n = vg_nr_data(pool_vg(p));
	char *real = realpath(path, NULL);

	for (unsigned i = 0; real && i < n; i++)
		if (pool_same_device(real, pool_data_dev_path(p, i))) {
			free(real);
			*index = i;
			return 0;
		}
	free(real);
	log_error("pool %s: %s is not one of its data devices ('tpstatus --devices-report %s' "
		  "lists them)", pool_name(p), path, pool_name(p));
	return -EINVAL;
}

/* STEP, or the test build's TP_TEST_MOVE_STEP; never 0. */
static uint64_t pool_move_step(uint64_t step)
{
	step = tp_test_count("TP_TEST_MOVE_STEP", step);
	return step ? step : POOL_MOVE_STEP;
}

struct mover {
	struct pool *p;
	const struct pool_move_params *x;
	struct pool_move_result *res;
	uint64_t chunk;		/* bytes */
	uint64_t nr_blocks;	/* the data space map's */
	uint64_t cursor;	/* the next chunk to look at for a free one */
	unsigned char *buf;	/* COPY_PIECE bytes, aligned */
};

/* The next free chunk outside the range, from the cursor on. */
static int next_free(struct mover *m, uint64_t *out)
{
	for (; m->cursor < m->nr_blocks; m->cursor++) {
		uint32_t c;
		int r;

		if (m->cursor >= m->res->first_chunk &&
		    m->cursor < m->res->first_chunk + m->res->chunks) {
			m->cursor = m->res->first_chunk + m->res->chunks - 1;
			continue;
		}
		if ((r = thin_data_count(pool_thin(m->p), m->cursor, &c)))
			return r;
		if (!c) {
			*out = m->cursor++;
			return 0;
		}
	}
	return -ENOSPC;
}

/* Copy chunk FROM to chunk TO; *TOUCHED gets TO's device engine. */
static int copy_chunk(struct mover *m, uint64_t from, uint64_t to, struct io_engine **touched)
{
	struct io_engine *src, *dst;
	uint64_t so, doff, run;
	int r;

	if ((r = pool_data_locate(m->p, from, &src, &so, &run)) ||
	    (r = pool_data_locate(m->p, to, &dst, &doff, &run))) {
		log_error("pool %s: data chunk %llu or %llu lies beyond its data area: %s",
			  pool_name(m->p), (unsigned long long)from, (unsigned long long)to,
			  strerror(-r));
		return r;
	}
	for (uint64_t at = 0; at < m->chunk; at += COPY_PIECE) {
		size_t len = (size_t)TP_MIN(m->chunk - at, (uint64_t)COPY_PIECE);

		if ((r = io_read(src, so + at, m->buf, len))) {
			log_error("pool %s: cannot read data chunk %llu (byte %llu of %s): %s; it "
				  "stays where it is", pool_name(m->p), (unsigned long long)from,
				  (unsigned long long)(so + at), src->name, strerror(-r));
			return r;
		}
		if ((r = io_write(dst, doff + at, m->buf, len))) {
			log_error("pool %s: cannot write data chunk %llu (byte %llu of %s): %s; the "
				  "chunk it was to take stays where it is", pool_name(m->p),
				  (unsigned long long)to, (unsigned long long)(doff + at), dst->name,
				  strerror(-r));
			return r;
		}
	}
	*touched = dst;
	return 0;
}

/* One step: the chunks of REFS[0..N) (whole chunks, sorted) moved. */
static int move_step(struct mover *m, const struct ref *refs, size_t n, uint64_t *dest,
		     size_t nchunks)
{
	struct io_engine *touched[POOL_DATA_DEVICES_MAX] = { NULL };
	struct thin_md *md = pool_thin(m->p);
	size_t c = 0;
	int r = 0;

	/* 1. the copies, made durable */
	for (size_t i = 0; i < n && !r; i++) {
		struct io_engine *e = NULL;
		unsigned k;

		if (i && refs[i].data == refs[i - 1].data)
			continue;
		if ((r = next_free(m, &dest[c]))) {
			if (r == -ENOSPC)
				log_error("pool %s: no free chunk is left on its other data "
					  "devices; the chunks moved so far stay moved", pool_name(m->p));
			return r;
		}
		if ((r = copy_chunk(m, refs[i].data, dest[c], &e)))
			return r;
		c++;
		for (k = 0; k < POOL_DATA_DEVICES_MAX && touched[k] && touched[k] != e; k++)
			;
		if (k < POOL_DATA_DEVICES_MAX)
			touched[k] = e;
	}
	if (c != nchunks)
		return TP_BUG("pool %s: a move step counted %zu chunks, found %zu", pool_name(m->p),
			      nchunks, c);
	for (unsigned k = 0; k < POOL_DATA_DEVICES_MAX && touched[k] && !r; k++)
		if ((r = io_flush(touched[k])))
			log_error("pool %s: cannot flush %s: %s; the step's chunks stay where they "
				  "are", pool_name(m->p), touched[k]->name, strerror(-r));
	if (r)
		return r;
	tp_test_pause_n("move-copied", m->res->steps + 1);
	/* 2. the mappings re-pointed and committed, as one */
	tp_critical_begin();
	c = 0;
	for (size_t i = 0; i < n && !r; i++) {
		if (i && refs[i].data != refs[i - 1].data)
			c++;
		r = thin_remap_mapping(md, refs[i].dev_id, refs[i].vblock, refs[i].data, dest[c]);
	}
	if (!r)
		r = thin_commit(md);
	if (r) {
		log_error("pool %s: cannot commit the moved chunks' mappings: %s; the step is "
			  "dropped, the chunks moved before it stay moved", pool_name(m->p),
			  strerror(-r));
		if (thin_abort(md))
			pool_latch_read_only(m->p, "dropping the uncommitted move step failed");
	}
	tp_critical_end();
	if (r)
		return r;
	m->res->steps++;
	m->res->moved += nchunks;
	tp_test_pause_n("move-step", m->res->steps);
	return 0;
}

int pool_admin_unsnapped(struct pool *p, const char *risk, const char *nothing, const char *cmd,
			 struct thin_ir_superblock *sb)
{
	char dm[TP_DM_NAME_MAX];
	int r = thin_superblock_info(pool_thin(p), sb);

	if (r) {
		log_error("pool %s: cannot read the thin superblock: %s; %s", pool_name(p),
			  strerror(-r), nothing);
		return r;
	}
	if (!sb->metadata_snap)
		return 0;
	/* the thin-pool target's dm name ('-' doubled inside the pool's) */
	if (tp_dm_name(dm, sizeof(dm), pool_name(p), TP_DM_ROLE_POOL, NULL))
		snprintf(dm, sizeof(dm), "%s-tpool", pool_name(p));
	log_error("pool %s: its thin metadata holds a metadata snapshot (block %llu), whose "
		  "mappings %s; %s. Release it, then run %s again: offline, 'tprepair --force "
		  "%s' rewrites the thin metadata without it (the volumes keep their content; "
		  "a backup tool still reading the snapshot loses it); or activate the pool "
		  "('tpactivate %s'), run 'dmsetup message %s 0 release_metadata_snap' and "
		  "'tpdeactivate %s'", pool_name(p), (unsigned long long)sb->metadata_snap, risk,
		  nothing, cmd, pool_name(p), pool_name(p), dm, pool_name(p));
	return -EBUSY;
}

int pool_move_data(struct pool *p, const struct pool_move_params *x, struct pool_move_result *res)
{
	const struct vg *vg = pool_vg(p);
	struct thin_ir_superblock sb;
	struct thin_ir_visitor vis;
	struct collect col;
	struct mover m;
	uint64_t *dest = NULL, step = pool_move_step(x->step);
	unsigned index;
	const char *who = "tpmove";
	char what[1024 + 32];
	int r;

	memset(res, 0, sizeof(*res));
	memset(&col, 0, sizeof(col));
	memset(&m, 0, sizeof(m));
	res->chunk = (uint64_t)vg->chunk_size * 512;
	if ((r = pool_refuse_live(p, x->path ? "moving its chunks (tpmove)"
					      : "shrinking its data area (tpreduce --size)")))
		return r;
	if (!x->path) {		/* the tail from chunk x->keep on */
		res->index = vg_nr_data(vg) - 1;
		res->first_chunk = TP_MIN(x->keep, vg_data_chunks(vg));
		res->chunks = vg_data_chunks(vg) - res->first_chunk;
		snprintf(what, sizeof(what), "chunks %llu and above",
			 (unsigned long long)res->first_chunk);
		who = "tpreduce --size";
	} else if ((r = find_device(p, x->path, &index))) {
		return r;
	} else {
		res->index = index;
		res->first_chunk = vg_data_first_chunk(vg, index);
		res->chunks = vg_data_dev_chunks(vg, index);
		snprintf(what, sizeof(what), "%s", x->path);
	}
	if (x->path && vg_nr_data(vg) == 1) {
		log_error("pool %s has one data device; there is nowhere to move its chunks",
			  pool_name(p));
		return -EINVAL;
	}
	if ((r = pool_guard(p, "the move", "nothing was moved", 0)) || (r = pool_open_thin(p)))
		return r;
	if ((r = pool_admin_unsnapped(p, "would still name the old chunks",
					   "nothing was moved", who, &sb)))
		return r;
	/* what maps into the range */
	col.first = res->first_chunk;
	col.end = res->first_chunk + res->chunks;
	memset(&vis, 0, sizeof(vis));
	vis.ctx = &col;
	vis.device_begin = collect_device;
	vis.mappings = collect_mappings;
	if ((r = thin_walk(pool_thin(p), 0, &vis))) {
		log_error("pool %s: cannot read its mappings: %s; nothing was moved", pool_name(p),
			  strerror(-r));
		goto out;
	}
	if (col.n)
		qsort(col.refs, col.n, sizeof(*col.refs), ref_cmp);
	res->mappings = col.n;
	for (size_t i = 0; i < col.n; i++)
		res->used += !i || col.refs[i].data != col.refs[i - 1].data;
	/* where to: the free chunks elsewhere */
	m.p = p;
	m.x = x;
	m.res = res;
	m.chunk = res->chunk;
	m.nr_blocks = TP_MIN(sb.nr_data_blocks, vg_data_chunks(vg));
	for (uint64_t b = 0; b < m.nr_blocks; b++) {
		uint32_t c;

		if (b == col.first) {
			b = col.end - 1;
			continue;
		}
		if ((r = thin_data_count(pool_thin(p), b, &c))) {
			log_error("pool %s: cannot read the count of data chunk %llu: %s; run "
				  "'tpcheck %s'", pool_name(p), (unsigned long long)b, strerror(-r),
				  pool_name(p));
			goto out;
		}
		res->free_elsewhere += !c;
	}
	if (res->used > res->free_elsewhere) {
		char a[32], b[32];

		log_error("pool %s: %llu chunk%s (%s) of %s %s in use, but its other data devices "
			  "have only %llu free (%s); nothing was moved. Free space first, or add a "
			  "device ('tpextend --data DEV %s')", pool_name(p),
			  (unsigned long long)res->used, tp_plural(res->used),
			  tp_size_format(res->used * m.chunk, 'h', a, 32), what,
			  res->used == 1 ? "is" : "are",
			  (unsigned long long)res->free_elsewhere,
			  tp_size_format(res->free_elsewhere * m.chunk, 'h', b, 32), pool_name(p));
		r = -ENOSPC;
		goto out;
	}
	if (x->test || !col.n)
		goto out;
	if (posix_memalign((void **)&m.buf, 4096, COPY_PIECE) ||
	    !(dest = malloc((size_t)TP_MIN(step, col.n) * sizeof(*dest)))) {
		r = -ENOMEM;
		goto out;
	}
	if (x->progress)
		x->progress(x->progress_ctx, 0, res->used);
	/* signals wait; the loop looks for them before every step */
	tp_critical_begin();
	for (size_t i = 0; i < col.n && !r;) {
		size_t j = i, chunks = 0;

		/* whole chunks, at most STEP mappings (at least one chunk) */
		while (j < col.n) {
			size_t k = j;

			while (k < col.n && col.refs[k].data == col.refs[j].data)
				k++;
			if (chunks && k - i > step)
				break;
			chunks++;
			j = k;
			if (chunks >= step)
				break;
		}
		if (tp_critical_pending()) {
			char a[32];

			log_error("pool %s: %s stopped by a signal after moving %llu of %llu "
				  "chunk%s (%s); the moved ones stay moved (run it again to go on)",
				  pool_name(p), who, (unsigned long long)res->moved,
				  (unsigned long long)res->used, tp_plural(res->used),
				  tp_size_format(res->moved * m.chunk, 'h', a, sizeof(a)));
			r = -EINTR;
			break;
		}
		r = move_step(&m, col.refs + i, j - i, dest, chunks);
		if (!r && x->progress)
			x->progress(x->progress_ctx, res->moved, res->used);
		i = j;
	}
	tp_critical_end();	/* a signal that stopped it takes effect here */
out:
	free(m.buf);
	free(dest);
	free(col.refs);
	return r;
}
