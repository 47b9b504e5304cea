/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_meta_dev.c - the thin metadata's devices (core.h): the engine the
 * thin-metadata areas go through (a feature's, else the meta device) and
 * the slots of the metadata devices, which a feature (the metadata
 * mirror, lib/pool/mirror) fills through its hooks. A leaf of the core:
 * it calls no other file of it. */
#include "lib/pool/core/core_int.h"

#include <errno.h>

struct io_engine *pool_meta_io(const struct pool *p)
{
	return p->meta_io ? p->meta_io : p->pv[VG_ROLE_META].io;
}

struct io_engine *pool_meta_engine(const struct pool *p) { return p->meta_io; }

void pool_set_meta_io(struct pool *p, struct io_engine *io)
{
	if (p->meta_io != io)
		io_destroy(p->meta_io);
	p->meta_io = io;
}

int pool_meta_area_io(const struct pool *p, int spare, struct io_engine **out)
{
	const struct vg_pv *meta = &p->pv[VG_ROLE_META];
	const struct vg_area *a = &meta->label.area[spare ? !p->vg->metadata_area
							  : p->vg->metadata_area];
	struct io_engine *io = pool_meta_io(p);

	*out = NULL;
	if (!io)
		return -ENODEV;
	if (!a->size)
		return -ENOSPC;
	return io_window_create(io, a->offset, a->size, 0, out);
}

const struct vg_pv *pool_meta1_pv(const struct pool *p)
{
	/* vg.meta1 is set exactly when the VG lists a second metadata
	 * device (metadata/vg/vg_text.c) */
	return p->vg && p->vg->meta1.pv_uuid[0] && p->pv[POOL_META1_PV].io
		       ? &p->pv[POOL_META1_PV]
		       : NULL;
}

const char *pool_meta_dev_name(const struct pool *p)
{
	const struct io_engine *io = p->pv[VG_ROLE_META].io ? p->pv[VG_ROLE_META].io
							    : p->pv[POOL_META1_PV].io;

	return io ? io->name : "?";
}

unsigned pool_meta_dev_index(unsigned i) { return i ? POOL_META1_PV : VG_ROLE_META; }

const struct vg_pv *pool_meta_dev_at(const struct pool *p, unsigned i)
{
	return &p->pv[pool_meta_dev_index(i)];
}

struct vg_pv *pool_meta_dev_slot(struct pool *p, unsigned i)
{
	return &p->pv[pool_meta_dev_index(i)];
}

struct tp_lock **pool_meta_dev_claim(struct pool *p, unsigned i)
{
	return &p->claim[pool_meta_dev_index(i)];
}

void pool_close_thin(struct pool *p)
{
	thin_close(p->md);
	p->md = NULL;
	io_destroy(p->thin_io);
	p->thin_io = NULL;
}
