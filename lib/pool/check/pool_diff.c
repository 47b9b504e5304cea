/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_diff.c - tpdiff: two volumes' mapping trees compared. See
 * pool_diff.h.
 *
 * Offline the committed thin metadata of the active area is read; on a
 * live pool the trees are read from a kernel metadata snapshot held for
 * the walk (pool_msnap.c). */
#include "lib/pool/pool_diff.h"
#include "lib/pool/check/pool_check_int.h"
#include "lib/pool/core/core.h"

#include "lib/base/log.h"
#include "metadata/thin/delta.h"
#include "metadata/thin/delta_xml.h"

#include <errno.h>
#include <string.h>


static int find_pair(struct pool *p, const char *a, const char *b, const struct vg_volume **va,
		     const struct vg_volume **vb)
{
	*va = vg_find_volume(pool_vg(p), a);
	*vb = vg_find_volume(pool_vg(p), b);
	if (!*va || !*vb)
		return pool_volume_missing(p, *va ? b : a);
	return 0;
}

/* ---- native ranges ---- */

struct native {
	pool_diff_fn fn;
	void *ctx;
	uint64_t chunk;
	struct pool_diff_summary *s;
};

static int native_range(void *ctx, const struct thin_delta_range *x)
{
	struct native *n = ctx;
	struct pool_diff_range r;

	if (x->kind == THIN_DELTA_SAME || x->kind == THIN_DELTA_SHARED)
		return 0;
	r.kind = x->kind == THIN_DELTA_LEFT_ONLY    ? POOL_DIFF_LEFT_ONLY
		 : x->kind == THIN_DELTA_RIGHT_ONLY ? POOL_DIFF_RIGHT_ONLY
						    : POOL_DIFF_DIFFERENT;
	r.offset = x->begin * n->chunk;
	r.length = x->length * n->chunk;
	n->s->ranges++;
	n->s->bytes += r.length;
	return n->fn ? n->fn(n->ctx, &r) : 0;
}

int pool_diff_volumes(struct pool *p, const char *a, const char *b, pool_diff_fn fn, void *ctx,
		      struct pool_diff_summary *s)
{
	const struct vg_volume *va, *vb;
	struct native n = { fn, ctx, (uint64_t)pool_vg(p)->chunk_size * 512, s };
	struct thin_delta_visitor v = { &n, NULL, native_range };
	struct thin_delta_stats st;
	struct pool_meta_view src;
	int r, e;

	memset(s, 0, sizeof(*s));
	if ((r = find_pair(p, a, b, &va, &vb)))
		return r;
	s->chunk = n.chunk;
	s->size_a = va->size;
	s->size_b = vb->size;
	s->dev_a = va->dev_id;
	s->dev_b = vb->dev_id;
	if ((r = pool_meta_view_begin(p, &src)))
		return r;
	r = thin_delta_io(src.io, src.flags | THIN_DELTA_SKIP_SHARED, 0, va->dev_id, vb->dev_id,
			  &v, &st);
	e = pool_meta_view_end(&src);
	s->nodes_read = st.nodes_read;
	s->subtrees_shared = st.subtrees_shared;
	return r ? r : e;
}

/* ---- thin_delta's XML ---- */

int pool_delta_xml(const struct pool_delta_params *d)
{
	struct thin_delta_xml_opts o = { d->metadata_snap, d->metadata_snap_block, d->left,
					 d->right, d->verbose };
	const struct vg_volume *va, *vb;
	struct pool_meta_view src;
	struct pool_area area;
	int r, e;

	if (d->metadata) {
		if ((r = pool_area_open_read(d->metadata, d->offset, d->size, &area)))
			return r;
		r = thin_delta_xml(area.io, &o, d->fd);
		pool_area_close(&area);
		return r == -EINVAL || r == -ERANGE ? -EIO : r;
	}
	if ((r = find_pair(d->pool, d->vol_a, d->vol_b, &va, &vb)) ||
	    (r = pool_meta_view_begin(d->pool, &src)))
		return r;
	o.left = va->dev_id;
	o.right = vb->dev_id;
	o.metadata_snap = src.flags != 0;
	o.metadata_snap_block = 0;
	r = thin_delta_xml(src.io, &o, d->fd);
	e = pool_meta_view_end(&src);
	return r ? r : e;
}
