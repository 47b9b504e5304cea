/* pool_live.c - an active pool: the kernel owns the thin metadata, so
 * reads go through a metadata snapshot (the kernel's
 * reserve_metadata_snap: a consistent, held copy of the trees that we read
 * from the device with O_DIRECT); changes are pool messages (pool_ops.c).
 * Also activation and deactivation (pool.h). */
#include "lib/pool/pool_int.h"
#include "lib/pool/pool_usage.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "metadata/thin/check.h"
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

/* ---- activation ---- */

static int activate_volume(struct pool *p, const struct vg_volume *v)
{
	int r = tp_dm_vol_activate(p->name, p->vg->uuid, v->name, v->dev_id, v->size / 512,
				   v->read_only ? TP_DM_READ_ONLY : 0);
	if (r == -EEXIST)
		return 0;	/* active already */
	if (r)
		log_error("pool %s: cannot activate volume %s: %s", p->name, v->name, strerror(-r));
	return r;
}

/* Every name in VOLS is a volume of P: 0 or -ENOENT (logged). */
static int known_volumes(const struct pool *p, const char *const *vols, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!vg_find_volume(p->vg, vols[i])) {
			log_error("pool %s has no volume %s; 'tpstatus %s' lists them", p->name,
				  vols[i], p->name);
			return -ENOENT;
		}
	return 0;
}

/* The dm table settings of P's thin-pool target. */
static void pool_layout(const struct pool *p, struct tp_dm_pool_layout *l)
{
	const struct vg *vg = p->vg;
	const struct vg_label *meta = &p->pv[VG_ROLE_META].label;
	const struct vg_label *data = &p->pv[VG_ROLE_DATA].label;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	memset(l, 0, sizeof(*l));
	l->pool = p->name;
	l->pool_uuid = vg->uuid;
	l->meta_dev = p->pv[VG_ROLE_META].io->name;
	l->meta_offset = meta->area[vg->metadata_area].offset;
	l->meta_length = meta->area[vg->metadata_area].size;
	l->data_dev = p->pv[VG_ROLE_DATA].io->name;
	l->data_offset = data->area[0].offset;
	l->data_length = data->area[0].size / chunk * chunk;
	l->block_sectors = vg->chunk_size;
	l->low_water_blocks = l->data_length / chunk / 20;	/* 5% free: dm event */
	if (!vg->zero)
		l->features |= TP_DM_SKIP_BLOCK_ZEROING;
	if (vg->discards == VG_DISCARDS_IGNORE)
		l->features |= TP_DM_IGNORE_DISCARD;
	else if (vg->discards == VG_DISCARDS_NOPASSDOWN)
		l->features |= TP_DM_NO_DISCARD_PASSDOWN;
	if (vg->when_full == VG_WHEN_FULL_ERROR)
		l->features |= TP_DM_ERROR_IF_NO_SPACE;
}

/* tpcheck --fast before the kernel gets the metadata, as LVM runs
 * thin_check before activating a thin pool: fatal damage refuses. */
static int fast_check(struct pool *p)
{
	struct thin_check_opts o = { THIN_CHECK_FAST, NULL, NULL };
	struct thin_check_report rep;
	int r = thin_check_io(p->thin_io, &o, &rep);

	if (r) {
		log_error("pool %s: the check before activation could not run: %s", p->name,
			  strerror(-r));
		return r;
	}
	if (rep.f.verdict == THIN_CHECK_FATAL) {
		log_error("pool %s: its thin metadata is damaged%s%s; not activated. Run "
			  "'tpcheck %s' for details and 'tprepair %s' to salvage it", p->name,
			  rep.f.nr_problems ? ": " : "",
			  rep.f.nr_problems ? rep.f.problems[0].msg : "", p->name, p->name);
		r = -EUCLEAN;
	} else if (rep.f.verdict == THIN_CHECK_NONFATAL) {
		log_warn("pool %s: the thin metadata has minor problems (%s); 'tpcheck %s' "
			 "lists them", p->name,
			 rep.f.nr_problems ? rep.f.problems[0].msg : "non-fatal", p->name);
	}
	thin_check_report_free(&rep);
	return r;
}

int pool_activate(struct pool *p, const char *const *vols, unsigned n)
{
	const struct vg *vg = p->vg;
	int r;

	if ((r = known_volumes(p, vols, n)))
		return r;
	if (!p->live) {
		struct tp_dm_pool_layout l;

		if (thin_needs_check(p->md)) {
			log_error("pool %s: its thin metadata is flagged needs_check; run "
				  "'tpcheck %s' and, if it finds damage, 'tprepair %s'",
				  p->name, p->name, p->name);
			return -EUCLEAN;
		}
		if ((r = fast_check(p)))
			return r;
		pool_layout(p, &l);
		/* Hand the metadata to the kernel: we must not hold it open. */
		thin_close(p->md);
		p->md = NULL;
		r = tp_dm_pool_activate(&l);
		if (r) {
			int e = pool_open_thin(p);
			(void)e;
			return r;
		}
		p->live = 1;
		if ((r = tp_dm_name(p->pool_dm, sizeof(p->pool_dm), p->name, TP_DM_ROLE_POOL,
				    NULL)))
			return r;
	}
	for (unsigned i = 0; i < (n ? n : vg->nr_volumes); i++) {
		const struct vg_volume *v = n ? vg_find_volume(vg, vols[i]) : &vg->volumes[i];
		if ((r = activate_volume(p, v)))
			return r;
	}
	return 0;
}

int pool_deactivate(struct pool *p, const char *const *vols, unsigned n)
{
	const struct vg *vg = p->vg;
	int r;

	if ((r = known_volumes(p, vols, n)))
		return r;
	if (!p->live) {
		if (n)
			log_error("pool %s is not active", p->name);
		return n ? -ENXIO : 0;
	}
	for (unsigned i = 0; i < (n ? n : vg->nr_volumes); i++) {
		const char *name = n ? vols[i] : vg->volumes[i].name;
		r = tp_dm_vol_deactivate(p->name, name);
		if (r == -EBUSY) {
			log_error("pool %s: volume %s is in use (mounted or open); close it first",
				  p->name, name);
			return r;
		}
		if (r && r != -ENXIO)
			return r;
	}
	if (n)
		return 0;
	r = tp_dm_pool_deactivate(p->name);
	if (r)
		return r;
	p->live = 0;
	return pool_open_thin(p);
}

int pool_is_live(const struct pool *p)
{
	return p->live;
}
