/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_access.c - the accessors of struct pool for the other modules,
 * the calls that dispatch to P's backend, and the read-only latch
 * (core.h). A leaf of the core: it calls no other file of it but the
 * metadata snapshot's release, so every core file may use it. */
#include "lib/pool/core/core_int.h"
#include "lib/pool/pool_owner.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *pool_name(const struct pool *p) { return p->name; }
int pool_is_live(const struct pool *p) { return p->be && p->be->live; }
const struct vg *pool_vg(const struct pool *p) { return p->vg; }
int pool_vg_too_new(const struct pool *p) { return p->vg_too_new; }
const struct vg_pv *pool_pv(const struct pool *p, enum vg_role role)
{
	return p->role_view[role] ? p->role_view[role] : &p->pv[role];
}

unsigned pool_nr_pvs(const struct pool *p) { return p->nr_pv ? p->nr_pv : VG_NR_ROLES; }

const struct vg_pv *pool_pv_at(const struct pool *p, unsigned i) { return &p->pv[i]; }
unsigned pool_data_slot(unsigned i) { return POOL_DATA_PV(i); }

int pool_data_locate(const struct pool *p, uint64_t chunk, struct io_engine **io, uint64_t *off,
		     uint64_t *run)
{
	unsigned dev;
	int r = vg_data_locate(p->vg, chunk, &dev, off, run);

	if (r)
		return r;
	*io = p->pv[POOL_DATA_PV(dev)].io;
	return *io ? 0 : -ENOENT;
}
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

void pool_set_pv_at(struct pool *p, unsigned k, struct io_engine *io, const struct vg_label *l)
{
	if (k >= POOL_MAX_PVS) {
		TP_BUG("pool %s: no device slot %u", p->name, k);
		return;
	}
	p->pv[k].io = io;
	p->pv[k].label = *l;
}

void pool_set_nr_pvs(struct pool *p, unsigned n)
{
	p->nr_pv = n < POOL_MAX_PVS ? n : POOL_MAX_PVS;
}

int pool_push_pv(struct pool *p, struct io_engine *io, const struct vg_label *l,
		 struct tp_lock *claim)
{
	if (p->nr_pv >= POOL_MAX_PVS)
		return -ENOSPC;
	p->pv[p->nr_pv].io = io;
	p->pv[p->nr_pv].label = *l;
	p->claim[p->nr_pv] = claim;
	p->nr_pv++;
	return 0;
}

void pool_pop_pv(struct pool *p)
{
	if (p->nr_pv <= VG_NR_ROLES)
		return;
	p->nr_pv--;
	io_destroy(p->pv[p->nr_pv].io);
	tp_lock_release(p->claim[p->nr_pv]);
	memset(&p->pv[p->nr_pv], 0, sizeof(p->pv[0]));
	p->claim[p->nr_pv] = NULL;
}

void pool_swap_pvs(struct pool *p, unsigned a, unsigned b)
{
	struct vg_pv pv;
	struct tp_lock *claim;

	if (a >= POOL_MAX_PVS || b >= POOL_MAX_PVS)
		return;
	pv = p->pv[a];
	claim = p->claim[a];
	p->pv[a] = p->pv[b];
	p->claim[a] = p->claim[b];
	p->pv[b] = pv;
	p->claim[b] = claim;
}

void pool_rotate_pvs(struct pool *p, unsigned a, unsigned b, int up)
{
	if (a >= b || b >= p->nr_pv)
		return;
	/* one slot at a time: up, A's device carried to B; down, B's to A */
	for (unsigned k = 0; k < b - a; k++)
		if (up)
			pool_swap_pvs(p, a + k, a + k + 1);
		else
			pool_swap_pvs(p, b - k - 1, b - k);
}

void pool_set_role_view(struct pool *p, enum vg_role role, struct vg_pv *view)
{
	p->role_view[role] = view;
}

void pool_set_vg(struct pool *p, struct vg *vg)
{
	if (p->vg != vg)
		vg_free(p->vg);
	p->vg = vg;
}

unsigned pool_commits(const struct pool *p)
{
	return p->commits;
}

unsigned pool_copy_rewrites(const struct pool *p)
{
	return p->copy_rewrites;
}

/* Whether list A (NA entries) and B (NB) hold the same bytes: a clone's
 * entries are copied whole, and a setting given its value again leaves
 * them so (a difference that is not one costs a commit, never a change
 * missed). */
static int same_list(const struct vg_volume *a, unsigned na, const struct vg_volume *b,
		     unsigned nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

/* VG without its four lists, as text into *T (the pool's settings and
 * devices): 0 or -errno. */
static int settings_text(const struct vg *vg, char **t, size_t *len)
{
	struct vg h = *vg;

	h.nr_volumes = h.nr_receives = h.nr_removals = h.nr_trash = 0;
	h.volumes = h.receives = h.removals = h.trash = NULL;
	return vg_export(&h, t, len);
}

int pool_settings_unchanged(const struct pool *p)
{
	const struct vg *o = p->stage_base, *n = p->vg;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	int same;

	if (!p->stage_base || !p->staging)
		return 0;
	if (!p->staged)
		return 1;
	/* the staged VG keeps the durable one's seqno: the same lists and
	 * the same text of the rest are the same VG (a failed export counts
	 * as a change, which is written). Not the whole text twice: at
	 * 20,000 volumes two exports were a third of a tpchange */
	same = same_list(o->volumes, o->nr_volumes, n->volumes, n->nr_volumes) &&
	       same_list(o->receives, o->nr_receives, n->receives, n->nr_receives) &&
	       same_list(o->removals, o->nr_removals, n->removals, n->nr_removals) &&
	       same_list(o->trash, o->nr_trash, n->trash, n->nr_trash) &&
	       !settings_text(o, &a, &la) && !settings_text(n, &b, &lb) && la == lb &&
	       !memcmp(a, b, la);
	free(a);
	free(b);
	return same;
}

void pool_latch_read_only(struct pool *p, const char *why)
{
	if (p->latched)
		return;
	p->latched = 1;
	for (unsigned i = 0; i < POOL_MAX_PVS; i++)
		if (p->pv[i].io)
			p->pv[i].io->read_only = 1;
	for (unsigned i = 0; i < VG_NR_ROLES; i++)
		if (p->role_view[i] && p->role_view[i]->io)
			p->role_view[i]->io->read_only = 1;
	if (p->thin_io)
		p->thin_io->read_only = 1;
	log_error("pool %s: %s; this command writes nothing more to it; the next command "
		  "completes or reports the change from what is on the devices", p->name, why);
}

int pool_refuse_latched(const struct pool *p)
{
	if (!p->latched)
		return 0;
	log_error("pool %s: refused: a failed rollback earlier in this command made it "
		  "read-only for the rest of the command; run the command again", p->name);
	return -EROFS;
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

int pool_dev_mapped(struct pool *p, struct pool_dev_usage **u, size_t *n)
{
	return p->be->details(p, u, n);
}

int pool_is_foreign(const struct pool *p)
{
	return p->foreign;
}

void pool_set_foreign(struct pool *p, int foreign)
{
	p->foreign = foreign;
}
