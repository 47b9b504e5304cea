/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_data.c - a pool's data area over several data devices (core.h:
 * pool_pv, pool_data_locate; core_int.h: pool_attach_xdata).
 *
 * The first data device keeps the label, VG area and data area it was
 * created with; each device tpextend --data added carries its own label
 * (role data, its place in the order as data_index) and VG copy, and its
 * data area follows the one before it in the pool's chunk numbering (the
 * VG records each device's range: vg.h). Offline the pool reads and
 * writes the concatenation through one engine (P->data_cat), live the
 * kernel's data device is a linear table over the same segments
 * (pool_layout.c), so a chunk is at the same place either way. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pool_data_rebuild(struct pool *p)
{
	struct io_concat_seg seg[VG_DATA_DEVICES_MAX];
	const struct vg *vg = p->vg;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	unsigned n = vg_nr_data(vg);
	int r;

	io_destroy(p->data_cat);
	p->data_cat = NULL;
	memset(&p->data_view, 0, sizeof(p->data_view));
	if (n == 1)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		const struct vg_device *d = vg_data_dev(vg, i);
		struct io_engine *io = p->pv[POOL_DATA_PV(i)].io;

		if (!io)
			return -ENOENT;
		/* the first device as it is up to the end of its data area (its
		 * label and VG area read through), then each added area */
		seg[i].io = io;
		seg[i].offset = i ? d->area[0].offset : 0;
		seg[i].length = (i ? 0 : d->area[0].offset) + vg_data_dev_chunks(vg, i) * chunk;
	}
	if ((r = io_concat_create(seg, n, p->pv[VG_ROLE_DATA].io->name, 0, &p->data_cat)))
		return r;
	p->data_view.io = p->data_cat;
	p->data_view.label = p->pv[VG_ROLE_DATA].label;
	return 0;
}

int pool_data_reader_multi(struct pool *p, unsigned flags, struct io_engine **out)
{
	struct io_concat_seg seg[VG_DATA_DEVICES_MAX];
	const struct vg *vg = p->vg;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	unsigned n = vg_nr_data(vg), i;
	int r = 0;

	*out = NULL;
	for (i = 0; i < n && !r; i++) {
		const char *path = p->pv[POOL_DATA_PV(i)].io->name;

		seg[i].offset = i ? vg_data_dev(vg, i)->area[0].offset : 0;
		seg[i].length = (i ? 0 : vg_data_dev(vg, 0)->area[0].offset) +
				vg_data_dev_chunks(vg, i) * chunk;
		if ((r = io_fd_open(path, flags, &seg[i].io)))
			log_error("pool %s: cannot open its data device %s: %s", p->name, path,
				  strerror(-r));
	}
	if (!r)
		r = io_concat_create(seg, n, p->pv[VG_ROLE_DATA].io->name, 1, out);
	if (r)
		for (unsigned k = 0; k < i; k++)
			io_destroy(seg[k].io);
	return r;
}

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

int pool_data_missing(const struct pool *p)
{
	for (unsigned i = 1; p->vg && i < vg_nr_data(p->vg); i++)
		if (!p->pv[POOL_DATA_PV(i)].io)
			return 1;
	return 0;
}

const char *pool_data_dev_path(const struct pool *p, unsigned i)
{
	const struct vg_pv *pv = i < vg_nr_data(p->vg) ? &p->pv[POOL_DATA_PV(i)] : NULL;

	return pv && pv->io ? pv->io->name : "";
}

uint64_t pool_data_dev_size(const struct pool *p, unsigned i)
{
	const struct vg_pv *pv = i < vg_nr_data(p->vg) ? &p->pv[POOL_DATA_PV(i)] : NULL;

	return pv && pv->io ? pv->io->size : 0;
}

int pool_claim_new_data(struct pool *p, const char *path, struct tp_lock **lock,
			struct io_engine **io)
{
	int r = pool_claim_open(p->name, path, 0, lock, io);

	if (r || !p->be->live)
		return r;
	/* the kernel's table will hold it: no O_EXCL of ours in its way (the
	 * exclusive open above proved nobody else holds it; the flock stays) */
	io_destroy(*io);
	*io = NULL;
	if ((r = pool_claim_open(p->name, path, POOL_CLAIM_LIVE | POOL_CLAIM_LOCKED, lock, io))) {
		tp_lock_release(*lock);
		*lock = NULL;
	}
	return r;
}

int pool_add_data_pv(struct pool *p, struct io_engine *io, const struct vg_label *l,
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

void pool_drop_data_pv(struct pool *p)
{
	if (p->nr_pv <= VG_NR_ROLES)
		return;
	p->nr_pv--;
	io_destroy(p->pv[p->nr_pv].io);
	tp_lock_release(p->claim[p->nr_pv]);
	memset(&p->pv[p->nr_pv], 0, sizeof(p->pv[0]));
	p->claim[p->nr_pv] = NULL;
}

/* Rotate P's devices [A, B] by one: up (the one at A goes to B) or down. */
static void rotate(struct pool *p, unsigned a, unsigned b, int up)
{
	struct vg_pv pv;
	struct tp_lock *claim;

	if (a >= b || b >= p->nr_pv)
		return;
	if (up) {
		pv = p->pv[a];
		claim = p->claim[a];
		memmove(&p->pv[a], &p->pv[a + 1], (b - a) * sizeof(p->pv[0]));
		memmove(&p->claim[a], &p->claim[a + 1], (b - a) * sizeof(p->claim[0]));
		p->pv[b] = pv;
		p->claim[b] = claim;
	} else {
		pv = p->pv[b];
		claim = p->claim[b];
		memmove(&p->pv[a + 1], &p->pv[a], (b - a) * sizeof(p->pv[0]));
		memmove(&p->claim[a + 1], &p->claim[a], (b - a) * sizeof(p->claim[0]));
		p->pv[a] = pv;
		p->claim[a] = claim;
	}
}

/* The first data device's slot (VG_ROLE_DATA) and the second's swapped:
 * the first one, put last, leaves its role's slot to the second. */
static void swap_first(struct pool *p)
{
	unsigned b = POOL_DATA_PV(1);
	struct vg_pv pv = p->pv[VG_ROLE_DATA];
	struct tp_lock *claim = p->claim[VG_ROLE_DATA];

	p->pv[VG_ROLE_DATA] = p->pv[b];
	p->claim[VG_ROLE_DATA] = p->claim[b];
	p->pv[b] = pv;
	p->claim[b] = claim;
}

void pool_data_pv_to_end(struct pool *p, unsigned i)
{
	if (!i && p->nr_pv > POOL_DATA_PV(1))
		swap_first(p);
	rotate(p, POOL_DATA_PV(i ? i : 1), p->nr_pv - 1, 1);
}

void pool_data_pv_from_end(struct pool *p, unsigned i)
{
	rotate(p, POOL_DATA_PV(i ? i : 1), p->nr_pv - 1, 0);
	if (!i && p->nr_pv > POOL_DATA_PV(1))
		swap_first(p);
}
