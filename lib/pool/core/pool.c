/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool.c - open and close a pool (its devices through pool_attach.c, then
 * the backend: the thin metadata, or the kernel when live) and its VG
 * commits. See pool.h for the contract. */
#include "lib/pool/core/core_int.h"
#include "lib/pool/core/pool_vg.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	int memo;

	if (!p)
		return;
	memo = p->memo;
	pool_settings_abort(p);	/* staged settings never committed: dropped */
	pool_detach(p);		/* (which clears the struct) */
	if (memo) {
		vg_mda_memo_end();
		vg_keep_source(0);
	}
	free(p);
}

/* Commit the VG as it is (repairs stale or damaged copies). */
static int rewrite_vg(struct pool *p)
{
	struct vg *copy;
	int r = vg_clone(p->vg, &copy);

	return r ? r : pool_commit_vg(p, copy);
}

/* An offline writer's checks of the thin metadata against the VG before
 * it writes anything: the labels taken from the VG in memory only, the
 * thin metadata opened read-only and checked (pool_open_thin: its block
 * size, its transaction id), then closed and the labels put back as they
 * are on the devices. A stale or damaged VG copy rewritten before a
 * refusal would write the older VG over the only copies of the newest. */
static int writer_preflight(struct pool *p)
{
	struct vg_label *saved = malloc(sizeof(saved[0]) * POOL_MAX_PVS);
	unsigned flags = p->flags;
	int r;

	if (!saved)
		return -ENOMEM;
	for (unsigned i = 0; i < POOL_MAX_PVS; i++)
		saved[i] = p->pv[i].label;
	p->flags |= POOL_RDONLY;
	r = pool_sync_labels(p, NULL);
	if (!r)
		r = pool_open_thin(p);
	thin_close(p->md);
	io_destroy(p->thin_io);
	p->md = NULL;
	p->thin_io = NULL;
	p->flags = flags;
	for (unsigned i = 0; i < POOL_MAX_PVS; i++)
		p->pv[i].label = saved[i];
	for (unsigned i = 0; i < VG_NR_ROLES; i++)
		if (p->role_view[i])
			p->role_view[i]->label = p->pv[i].label;
	free(saved);
	return r;
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
	/* the reads of this open and of the commits until the close check
	 * each VG slot once (metadata/vg/mda.h) */
	vg_mda_memo_begin();
	/* a writer's VG keeps the text its volumes were read from: a commit
	 * copies each volume it did not change from there (vg_commit_change) */
	vg_keep_source(!(flags & POOL_RDONLY));
	r = pool_attach(p, name, devices, flags, NULL, &st);
	p->memo = 1;	/* (after the attach, which clears the struct first) */
	if (r)
		goto fail;
	/* an activation on a host whose kernel cannot run the pool will be
	 * refused (pool_activate says why, after its own checks): its open
	 * writes nothing, as a reader's */
	if ((flags & POOL_ACTIVATE) && !p->be->live && !(flags & POOL_RDONLY)) {
		char why[256];

		if (tp_dm_check_available(why, sizeof(why))) {
			flags |= POOL_RDONLY;
			p->flags |= POOL_RDONLY;
		}
	}
	/* an offline writer's features refuse what they cannot change yet
	 * (a last check that found reads mixing two copies of the thin
	 * metadata) */
	if (!(flags & POOL_RDONLY) && !p->be->live && (r = pool_features_open_check(p)))
		goto fail;
	/* a writer finishes the changes that left orphan labels (and refuses
	 * a pool whose devices are behind a device's own VG copy), before it
	 * writes anything else (pool_orphan.c) */
	if (!(flags & POOL_RDONLY) && (r = pool_orphans_finish(p, 0, NULL, 0, NULL)))
		goto fail;
	/* a pool opened with a data device missing (tpreduce --missing)
	 * commits nothing here: every commit must reach each device it lists */
	if (pool_features_incomplete(p))
		flags |= POOL_RDONLY;
	/* every refusal of the thin metadata before a stale copy is
	 * rewritten or a label brought in step */
	if (!(flags & POOL_RDONLY) && !p->be->live && (r = writer_preflight(p)))
		goto fail;
	if (st.needs_repair) {
		if (flags & POOL_RDONLY)
			log_warn("pool %s: one VG metadata copy is stale or damaged; the next change "
				 "to the pool, or 'tprepair %s', rewrites it", name, name);
		else if (!(r = rewrite_vg(p))) {
			p->copy_rewrites++;	/* the same VG again: no change finished */
			log_warn("pool %s: a stale or damaged VG metadata copy was rewritten", name);
		}
	}
	if (!r)
		r = pool_sync_labels(p, NULL);
	if (r)
		goto fail;
	/* before the thin metadata opens, the features' step (a stale copy
	 * of it that a writer's first commit resyncs) */
	if (!p->be->live) {
		pool_features_open_thin(p, !(flags & POOL_RDONLY));
		r = pool_open_thin(p);
	}
	if (!r)
		r = p->be->reconcile(p, !(flags & POOL_RDONLY));
	if (r)
		goto fail;
	/* what the features finish at an open (an interrupted removal) */
	pool_features_opened(p, !(flags & POOL_RDONLY));
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
