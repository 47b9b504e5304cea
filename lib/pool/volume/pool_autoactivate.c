/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_autoactivate.c - the activation flags of a pool and of its volumes
 * (pool.h: pool_get_autoactivate, pool_set_autoactivate): the VG's
 * activation_skip keys, read and changed by one VG commit. The thin
 * metadata and the kernel do not know them, so a live pool changes them
 * the same way. */
#include "lib/pool/core/core.h"

#include "lib/base/log.h"

#include <errno.h>

static int *flag_of(struct vg *vg, const char *vol)
{
	struct vg_volume *v;

	if (!vol)
		return &vg->activation_skip;
	return (v = vg_find_volume(vg, vol)) ? &v->activation_skip : NULL;
}

int pool_get_autoactivate(const struct pool *p, const char *vol)
{
	const struct vg_volume *v = NULL;

	if (vol && !(v = pool_find_volume(p, vol)))
		return -ENOENT;
	return !(v ? v->activation_skip : pool_vg(p)->activation_skip);
}

int pool_set_autoactivate(struct pool *p, const char *vol, int on)
{
	struct vg *next;
	int *skip, r;

	if (vol && !pool_find_volume(p, vol))
		return -ENOENT;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	skip = flag_of(next, vol);
	*skip = !on;
	return pool_commit_vg(p, next);
}
