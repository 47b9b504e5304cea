/* pool.c - open and close a pool (its devices through pool_attach.c, then
 * the backend: the thin metadata, or the kernel when live) and its VG
 * commits. See pool.h for the contract. */
#include "lib/pool/core/core_int.h"
#include "lib/pool/core/pool_vg.h"

#include "lib/base/log.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pool_name(const struct pool *p) { return p->name; }
int pool_is_live(const struct pool *p) { return p->be && p->be->live; }
const struct vg *pool_vg(const struct pool *p) { return p->vg; }
const struct vg_pv *pool_pv(const struct pool *p, enum vg_role role) { return &p->pv[role]; }
const char *pool_dm_name(const struct pool *p) { return p->pool_dm; }
unsigned pool_flags(const struct pool *p) { return p->flags; }
struct thin_md *pool_thin(const struct pool *p) { return p->md; }
struct io_engine *pool_thin_io(const struct pool *p) { return p->thin_io; }

void pool_set_pv(struct pool *p, enum vg_role role, struct io_engine *io,
		 const struct vg_label *l)
{
	p->pv[role].io = io;
	p->pv[role].label = *l;
}

void pool_set_vg(struct pool *p, struct vg *vg)
{
	if (p->vg != vg)
		vg_free(p->vg);
	p->vg = vg;
}

void pool_drop_lock(struct pool *p)
{
	tp_lock_release(p->lock);
	p->lock = NULL;
}

int pool_figures(struct pool *p, struct pool_status *st, uint64_t *mu, uint64_t *mt,
		 uint64_t *du, uint64_t *dt)
{
	return p->be->figures(p, st, mu, mt, du, dt);
}

int pool_meta_view_begin(struct pool *p, struct pool_meta_view *v)
{
	memset(v, 0, sizeof(*v));
	return p->be->view_begin(p, v);
}

int pool_meta_view_end(struct pool_meta_view *v)
{
	int r = v->snapshot ? pool_msnap_end(&v->snap) : 0;

	if (r)
		log_error("pool %s: releasing the kernel's metadata snapshot: %s",
			  v->snap.p->name, strerror(-r));
	v->snapshot = 0;
	return r;
}

int pool_grow_thin(struct pool *p, const void *arg)
{
	return p->be->grow(p, arg);
}

void pool_grow_undone(struct pool *p, const struct pool_growth *g)
{
	p->be->grow_undone(p, g);
}

int pool_grow_catch_up(struct pool *p, struct pool_extend_result *res)
{
	return p->be->grow_catch_up(p, res);
}

int pool_fill_blocks(struct pool *p, uint64_t *mu, uint64_t *mt, uint64_t *du, uint64_t *dt)
{
	return p->be->fill(p, mu, mt, du, dt);
}

int pool_dev_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		   size_t *n)
{
	return p->be->usage(p, nr_data_blocks, u, n);
}

const char *pool_device_path(const struct pool *p, enum vg_role role)
{
	return p->pv[role].io ? p->pv[role].io->name : "";
}

struct pool *pool_alloc(void)
{
	struct pool *p = calloc(1, sizeof(*p));

	if (!p)
		log_error("out of memory for a pool");
	return p;
}

void pool_close(struct pool *p)
{
	if (!p)
		return;
	pool_detach(p);
	free(p);
}

/* Commit the VG as it is (repairs stale or damaged copies). */
static int rewrite_vg(struct pool *p)
{
	struct vg *copy;
	int r = vg_clone(p->vg, &copy);

	return r ? r : pool_commit_vg(p, copy);
}

int pool_open(const char *name, const char *devices, unsigned flags, struct pool **out)
{
	struct vg_mda_status st;
	struct pool *p;
	int r;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r = pool_attach(p, name, devices, flags, NULL, &st);
	if (r)
		goto fail;
	if (st.needs_repair) {
		if (flags & POOL_RDONLY)
			log_warn("pool %s: one VG metadata copy is stale or damaged; the next change "
				 "rewrites it", name);
		else if (!(r = rewrite_vg(p)))
			log_warn("pool %s: a stale or damaged VG metadata copy was rewritten", name);
	}
	if (!r)
		r = pool_sync_labels(p, NULL);
	if (r)
		goto fail;
	if (!p->be->live)
		r = pool_open_thin(p);
	if (!r)
		r = p->be->reconcile(p, !(flags & POOL_RDONLY));
	if (r)
		goto fail;
	*out = p;
	return 0;
fail:
	pool_close(p);
	return r;
}

int pool_locate_metadata(const char *name, const char *devices, char **path, uint64_t *offset,
			 uint64_t *length)
{
	struct pool *p;
	const struct vg_area *a;
	int r = pool_open(name, devices, POOL_RDONLY, &p);

	if (r)
		return r;
	if ((r = pool_refuse_live(p, "reading its thin metadata from the disk (the kernel's "
				    "may be ahead of it)"))) {
		pool_close(p);
		return r;
	}
	a = &p->pv[VG_ROLE_META].label.area[p->vg->metadata_area];
	*offset = a->offset;
	*length = a->size;
	*path = strdup(p->pv[VG_ROLE_META].io->name);
	pool_close(p);
	return *path ? 0 : -ENOMEM;
}
