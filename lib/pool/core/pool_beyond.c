/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_beyond.c - the chunks mapped at or beyond the end of their volume
 * (core.h): found by a walk of the committed thin metadata, unmapped
 * in the open thin transaction. tvresize --force unmaps them after a
 * shrink; the replay of an interrupted transaction (pool_txn.c) unmaps
 * whatever such a shrink left, before a grow could show it again.
 *
 * And the rest of a volume's last chunk (pool_tail_*): a volume whose size
 * ends inside a chunk has bytes of that chunk past its end that are no
 * content, but would be again after a grow. A shrink that cuts inside a
 * chunk counts the bytes it cuts off there as data when they are not all
 * zeros, and makes them zeros (with --force); a grow finds them zeros, or
 * makes them so first offline (a shrink by an earlier tptools, a chunk the
 * kernel provisioned without zeroing), or refuses live. Zeros are written
 * in place when only the volume maps the chunk; a chunk a snapshot shares
 * is copied instead (its head, then zeros), and the volume maps the copy,
 * so the snapshot keeps every byte it shows. */
#include "lib/pool/core/core_int.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "metadata/thin/delta.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int beyond_device(void *ctx, const struct thin_ir_device *d)
{
	struct pool_beyond *b = ctx;
	const struct vg_volume *v = vg_find_dev_id(b->vg, (uint32_t)d->dev_id);

	b->cur = d->dev_id;
	b->first = UINT64_MAX;
	if (v && (b->all || d->dev_id == b->dev_id))
		b->first = (v->size + b->chunk - 1) / b->chunk;
	return 0;
}

static int beyond_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct pool_beyond *b = ctx;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = runs[i].origin_begin > b->first ? runs[i].origin_begin : b->first;

		for (; v < runs[i].origin_begin + runs[i].length; v++) {
			if (b->n == b->alloc) {
				size_t na = b->alloc ? b->alloc * 2 : 256;
				void *nv = realloc(b->found, na * sizeof(*b->found));
				if (!nv)
					return -ENOMEM;
				b->found = nv;
				b->alloc = na;
			}
			b->found[b->n].dev_id = b->cur;
			b->found[b->n++].vblock = v;
		}
	}
	return 0;
}

int pool_find_beyond(struct pool *p, const struct vg *vg, int all, uint32_t dev_id,
		     struct pool_beyond *b)
{
	const struct thin_ir_visitor vis = { .ctx = b, .device_begin = beyond_device,
					     .mappings = beyond_mappings };
	int r;

	memset(b, 0, sizeof(*b));
	b->vg = vg;
	b->chunk = (uint64_t)vg->chunk_size * 512;
	b->all = all;
	b->dev_id = dev_id;
	r = thin_walk(p->md, 0, &vis);
	if (r)
		log_error("pool %s: cannot read its mappings: %s", p->name, strerror(-r));
	return r;
}

void pool_beyond_free(struct pool_beyond *b)
{
	free(b->found);
	b->found = NULL;
	b->n = b->alloc = 0;
}

int pool_unmap_beyond(struct pool *p, const void *arg)
{
	const struct pool_beyond *b = arg;

	for (size_t i = 0; i < b->n; i++) {
		int r = thin_remove_mapping(p->md, b->found[i].dev_id, b->found[i].vblock);
		if (r) {
			log_error("pool %s: cannot unmap block %llu of thin device %llu: %s",
				  p->name, (unsigned long long)b->found[i].vblock,
				  (unsigned long long)b->found[i].dev_id, strerror(-r));
			return r;
		}
	}
	return 0;
}

int pool_unmap_beyond_ends(struct pool *p)
{
	struct pool_beyond b;
	int r = pool_find_beyond(p, p->vg, 1, 0, &b);

	if (!r && b.n) {
		r = pool_unmap_beyond(p, &b);
		if (!r)
			log_warn("pool %s: completed the interrupted shrink: %zu chunk%s beyond the "
				 "end of their volumes unmapped", p->name, b.n, tp_plural(b.n));
	}
	pool_beyond_free(&b);
	return r;
}

/* ---- the rest of the last chunk ---- */

#define TAIL_PIECE (1u << 20)	/* bytes read or written at a time */

/* Byte DBLOCK's chunk starts at in the data area as pool_data_reader and
 * the data concatenation see it. */
static uint64_t chunk_at(const struct pool *p, uint64_t dblock, uint64_t chunk)
{
	return p->pv[VG_ROLE_DATA].label.area[0].offset + dblock * chunk;
}

/* Bytes FROM..CHUNK of data chunk DBLOCK read (in aligned pieces: the
 * reader may be O_DIRECT) up to the first that is not zero: T->dirty when
 * there is one, T->data when it lies before LIMIT. 0 or -errno (logged). */
static int tail_scan(struct pool *p, struct io_engine *rd, uint64_t chunk, uint64_t limit,
		     struct pool_tail *t, unsigned char *buf)
{
	uint64_t base = chunk_at(p, t->dblock, chunk);

	for (uint64_t at = t->from & ~(uint64_t)4095; at < chunk; at += TAIL_PIECE) {
		size_t len = (size_t)TP_MIN(chunk - at, (uint64_t)TAIL_PIECE);
		size_t i = at < t->from ? (size_t)(t->from - at) : 0;
		int r = io_read(rd, base + at, buf, len);

		if (r) {
			log_error("pool %s: cannot read data chunk %llu: %s", p->name,
				  (unsigned long long)t->dblock, strerror(-r));
			return r;
		}
		while (i < len && !buf[i])
			i++;
		if (i < len) {
			t->dirty = 1;
			t->data = at + i < limit;
			break;
		}
	}
	return 0;
}

int pool_tail_read(struct pool *p, uint32_t dev_id, uint64_t end, uint64_t shown,
		   struct pool_tail *t)
{
	uint64_t chunk = (uint64_t)p->vg->chunk_size * 512, limit;
	struct io_engine *rd, *own = NULL;
	struct pool_meta_view view;
	unsigned char *buf = NULL;
	int r, e;

	memset(t, 0, sizeof(*t));
	t->dev_id = dev_id;
	t->vblock = end / chunk;
	t->from = end % chunk;
	if (!t->from)
		return 0;	/* ends on a chunk boundary: no rest */
	limit = shown > end ? TP_MIN(shown - t->vblock * chunk, chunk) : 0;
	if ((r = pool_meta_view_begin(p, &view)))
		return r;
	r = thin_lookup_io(view.io, view.flags, dev_id, t->vblock, &t->dblock);
	e = pool_meta_view_end(&view);
	if (r == -ENODATA)
		return e;	/* unmapped: reads as zeros */
	if (r || (r = e)) {
		if (r != e)
			log_error("pool %s: cannot read the mapping of thin device %u: %s",
				  p->name, dev_id, strerror(-r));
		return r;
	}
	t->mapped = 1;
	if (t->dblock >= vg_data_chunks(p->vg)) {
		log_error("pool %s: thin device %u maps data chunk %llu beyond the data area; run "
			  "tpcheck %s", p->name, dev_id, (unsigned long long)t->dblock, p->name);
		return -EUCLEAN;
	}
	if ((r = pool_data_reader(p, &rd, &own)))
		return r;
	if (posix_memalign((void **)&buf, 4096, TAIL_PIECE))
		r = -ENOMEM;
	else
		r = tail_scan(p, rd, chunk, limit, t, buf);
	free(buf);
	io_destroy(own);
	return r;
}

/* Data chunk DBLOCK's bytes FROM..CHUNK made zeros and, when COPY_FROM is
 * not UINT64_MAX, its bytes 0..FROM copied from data chunk COPY_FROM
 * first; the devices written flushed. 0 or -errno (logged). */
static int tail_write(struct pool *p, uint64_t dblock, uint64_t copy_from, uint64_t chunk,
		      uint64_t from, unsigned char *buf)
{
	struct io_engine *dst, *src = NULL;
	uint64_t doff, soff = 0, run;
	int r;

	if ((r = pool_data_locate(p, dblock, &dst, &doff, &run)) ||
	    (copy_from != UINT64_MAX && (r = pool_data_locate(p, copy_from, &src, &soff, &run)))) {
		log_error("pool %s: data chunk %llu lies beyond its data area", p->name,
			  (unsigned long long)dblock);
		return r;
	}
	for (uint64_t at = 0; at < chunk; at += TAIL_PIECE) {
		size_t len = (size_t)TP_MIN(chunk - at, (uint64_t)TAIL_PIECE);
		size_t keep = at < from ? (size_t)TP_MIN(from - at, (uint64_t)len) : 0;

		if (!src && at + len <= from)
			continue;	/* in place: the head stays */
		if (src && keep && (r = io_read(src, soff + at, buf, keep))) {
			log_error("pool %s: cannot read data chunk %llu: %s", p->name,
				  (unsigned long long)copy_from, strerror(-r));
			return r;
		}
		memset(buf + keep, 0, len - keep);
		if (src)
			r = io_write(dst, doff + at, buf, len);
		else
			r = io_write(dst, doff + at + keep, buf + keep, len - keep);
		if (r) {
			log_error("pool %s: cannot write data chunk %llu: %s", p->name,
				  (unsigned long long)dblock, strerror(-r));
			return r;
		}
	}
	if ((r = io_flush(dst)))
		log_error("pool %s: cannot flush %s: %s", p->name, dst->name, strerror(-r));
	return r;
}

int pool_tail_zero(struct pool *p, const struct pool_tail *t, int *remapped)
{
	uint64_t chunk = (uint64_t)p->vg->chunk_size * 512, copy;
	unsigned char *buf = NULL;
	uint64_t now;
	int shared, r;

	*remapped = 0;
	if (!t->dirty)
		return 0;
	/* the transaction may have changed it (the shrink's unmapping before) */
	if ((r = thin_lookup(p->md, t->dev_id, t->vblock, &now, NULL)) ||
	    (r = thin_mapping_shared(p->md, t->dev_id, t->vblock, &shared))) {
		log_error("pool %s: cannot look up the last chunk of thin device %u: %s",
			  p->name, t->dev_id, strerror(-r));
		return r;
	}
	if (now != t->dblock) {
		log_error("pool %s: the last chunk of thin device %u moved while it was read",
			  p->name, t->dev_id);
		return -ESTALE;
	}
	if (posix_memalign((void **)&buf, 4096, TAIL_PIECE))
		return -ENOMEM;
	if (!shared) {	/* only the volume sees it: in place, unseen */
		r = tail_write(p, t->dblock, UINT64_MAX, chunk, t->from, buf);
		free(buf);
		return r;
	}
	/* shared: a copy of the head with zeros after it, the volume's alone
	 * (written before it is mapped, in a chunk no commit names yet) */
	if ((r = thin_alloc_data_block(p->md, &copy))) {
		if (r == -ENOSPC)
			log_error("pool %s: the last chunk of thin device %u is shared with a "
				  "snapshot, and no data chunk is free to give the volume its own "
				  "copy with zeros past its end", p->name, t->dev_id);
		free(buf);
		return r;
	}
	r = tail_write(p, copy, t->dblock, chunk, t->from, buf);
	free(buf);
	if (!r && (r = thin_insert_mapping_alloced(p->md, t->dev_id, t->vblock, copy)))
		log_error("pool %s: cannot map the copy of the last chunk of thin device %u: %s",
			  p->name, t->dev_id, strerror(-r));
	*remapped = !r;
	return r;
}

int pool_tail_clear(struct pool *p, const struct pool_tail *t)
{
	int remapped, r;

	if (!t->dirty)
		return 0;
	if ((r = pool_tail_zero(p, t, &remapped)) || !remapped) {
		if (r && thin_abort(p->md))
			pool_latch_read_only(p, "dropping an uncommitted copy of a chunk failed");
		return r;
	}
	/* the copy shows the volume what the shared chunk did up to its end:
	 * committed alone, the transaction id unchanged (as a removal's step) */
	tp_critical_begin();
	r = thin_commit(p->md);
	if (r) {
		log_error("pool %s: cannot commit the thin metadata: %s", p->name, strerror(-r));
		if (thin_abort(p->md))
			pool_latch_read_only(p, "dropping an uncommitted copy of a chunk failed");
	}
	tp_critical_end();
	return r;
}
