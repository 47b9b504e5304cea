/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_activate.c - loading and unloading an open pool's kernel targets
 * (pool.h: pool_activate, pool_deactivate): the thin-pool table from the
 * labels and the VG, a fast check of the thin metadata first (pool_guard,
 * as LVM runs thin_check before activating), and one thin target per
 * volume; pool_autoactivate: only the volumes flagged for it. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Every name in VOLS is a volume of P: 0 or -ENOENT (logged). */
static int known_volumes(const struct pool *p, const char *const *vols, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!pool_find_volume(p, vols[i]))
			return -ENOENT;
	return 0;
}

/* FN on the volumes VOLS of P (every volume when N = 0), up to the first
 * error. */
static int each_volume(struct pool *p, const char *const *vols, unsigned n,
		       int (*fn)(struct pool *, const struct vg_volume *))
{
	const struct vg *vg = p->vg;
	int r = 0;

	for (unsigned i = 0; i < (n ? n : vg->nr_volumes) && !r; i++)
		r = fn(p, n ? vg_find_volume(vg, vols[i]) : &vg->volumes[i]);
	return r;
}

/* Load the thin-pool target (fast checks first). */
static int activate_pool(struct pool *p)
{
	struct tp_dm_pool_layout l;
	int r;

	if ((r = pool_guard(p, "activation", "not activated", 1)))
		return r;
	/* Hand the metadata and the devices to the kernel: we must not hold
	 * the one open nor the others exclusively. */
	thin_close(p->md);
	p->md = NULL;
	r = pool_share_devices(p);
	if (!r) {
		pool_dm_layout(p, &l);
		/* the stack is made whole or not at all: a signal waits */
		tp_critical_begin();
		r = tp_dm_pool_activate(&l);
		tp_critical_end();
		/* the kernel's ENOTBLK (metadata it cannot read, kernel/dm.h) is
		 * a failure, not a device path of the wrong kind (exit 3) */
		if (r == -ENOTBLK)
			r = -EIO;
	}
	if (r) {
		int e = pool_open_thin(p);
		(void)e;
		return r;
	}
	/* what the features left out of the stack (a stale copy of the
	 * thin metadata), said */
	pool_features_activated(p, &l);
	p->be = &pool_backend_live;
	return tp_dm_name(p->pool_dm, sizeof(p->pool_dm), p->name, TP_DM_ROLE_POOL, NULL);
}

int pool_activate(struct pool *p, const char *const *vols, unsigned n)
{
	int r;

	if ((r = known_volumes(p, vols, n)))
		return r;
	if (!p->be->live && (r = activate_pool(p)))
		return r;
	return each_volume(p, vols, n, pool_load_volume);
}

int pool_autoactivate(struct pool *p, unsigned *nr_vols)
{
	const struct vg *vg = p->vg;
	const char **vols = calloc(vg->nr_volumes + 1, sizeof(*vols));
	unsigned n = 0;
	int r;

	*nr_vols = 0;
	if (!vols)
		return -ENOMEM;
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		if (!vg->volumes[i].activation_skip)
			vols[n++] = vg->volumes[i].name;
	r = p->be->live ? 0 : activate_pool(p);
	if (!r && n)
		r = each_volume(p, vols, n, pool_load_volume);
	if (!r)
		*nr_vols = n;
	free(vols);
	return r;
}

static int deactivate_volume(struct pool *p, const struct vg_volume *v)
{
	return pool_op_vol_deactivate(p, v->name);
}

int pool_deactivate(struct pool *p, const char *const *vols, unsigned n)
{
	int r;

	if ((r = known_volumes(p, vols, n)))
		return r;
	if (!p->be->live) {
		if (n)
			log_error("pool %s is not active", p->name);
		return n ? -ENXIO : 0;
	}
	if ((r = each_volume(p, vols, n, deactivate_volume)) || n)
		return r;
	r = tp_dm_pool_deactivate(p->name);
	if (r)
		return r;
	p->be = &pool_backend_offline;
	p->pool_dm[0] = '\0';
	return pool_open_thin(p);
}

int pool_name_loaded(const char *name)
{
	static const enum tp_dm_role roles[] = { TP_DM_ROLE_POOL, TP_DM_ROLE_TMETA,
						 TP_DM_ROLE_TDATA };
	char dm[TP_DM_NAME_MAX];
	struct tp_dm_info info;

	for (unsigned i = 0; i < TP_ARRAY_SIZE(roles); i++) {
		int r = tp_dm_name(dm, sizeof(dm), name, roles[i], NULL);
		if (!r)
			r = tp_dm_info(dm, &info);
		if (r != -ENXIO)
			return r ? r : 1;
	}
	return 0;
}

int pool_op_publish(struct pool *p, const char *vol)
{
	return p->be->live ? pool_activate(p, (const char *const[]){ vol }, 1) : 0;
}

