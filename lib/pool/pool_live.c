/* pool_live.c - reading an active pool: the kernel owns the thin
 * metadata, so reads go through a metadata snapshot (the kernel's
 * reserve_metadata_snap: a consistent, held copy of the trees that we read
 * from the device with O_DIRECT); changes are pool messages (pool_ops.c). */
#include "lib/pool/pool_int.h"
#include "lib/pool/pool_usage.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading through the kernel's metadata snapshot ---- */

struct snap_read {
	struct pool *p;
	struct io_engine *dev, *area;
};

static int snap_walk(void *arg, const struct thin_ir_visitor *v)
{
	struct snap_read *s = arg;
	return thin_walk_io(s->area, THIN_WALK_METADATA_SNAP, v, NULL);
}

/* Hold a metadata snapshot and open the active area with O_DIRECT (the
 * page cache may hold stale blocks the kernel has since rewritten). */
static int snap_begin(struct pool *p, struct snap_read *s)
{
	const struct vg_area *a = &p->pv[VG_ROLE_META].label.area[p->vg->metadata_area];
	int r;

	memset(s, 0, sizeof(*s));
	s->p = p;
	r = tp_dm_reserve_metadata_snap(p->pool_dm);
	if (r == -EBUSY)
		log_error("pool %s: the kernel already holds a metadata snapshot (another tool "
			  "is reading it); try again", p->name);
	if (r)
		return r;
	r = io_fd_open(p->pv[VG_ROLE_META].io->name, IO_RDONLY | IO_DIRECT, &s->dev);
	if (!r)
		r = io_window_create(s->dev, a->offset, a->size, 0, &s->area);
	if (r) {
		int e = tp_dm_release_metadata_snap(p->pool_dm);
		(void)e;
		io_destroy(s->dev);
	}
	return r;
}

static int snap_end(struct snap_read *s)
{
	io_destroy(s->area);
	io_destroy(s->dev);
	return tp_dm_release_metadata_snap(s->p->pool_dm);
}

struct id_list {
	uint64_t *ids;
	size_t n, cap;
};

static int collect_id(void *ctx, const struct thin_ir_device *d)
{
	struct id_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		uint64_t *n = realloc(l->ids, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->ids = n;
		l->cap = cap;
	}
	l->ids[l->n++] = d->dev_id;
	return 0;
}

int pool_live_list_devices(struct pool *p, uint64_t **ids, size_t *n)
{
	struct id_list l = { NULL, 0, 0 };
	struct thin_ir_visitor v = { &l, NULL, NULL, collect_id, NULL, NULL };
	struct snap_read s;
	int r = snap_begin(p, &s), e;

	if (r)
		return r;
	r = thin_walk_io(s.area, THIN_WALK_METADATA_SNAP | THIN_WALK_SKIP_MAPPINGS, &v, NULL);
	e = snap_end(&s);
	if (!r)
		r = e;
	if (r) {
		free(l.ids);
		return r;
	}
	*ids = l.ids;
	*n = l.n;
	return 0;
}

int pool_live_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		    size_t *n)
{
	struct snap_read s;
	int r = snap_begin(p, &s), e;

	if (r)
		return r;
	r = pool_usage_walk(snap_walk, &s, nr_data_blocks, u, n);
	e = snap_end(&s);
	return r ? r : e;
}
