/* pool_autoactivate.c - the activation flags of a pool and of its volumes
 * (pool.h: pool_get_autoactivate, pool_set_autoactivate): the VG's
 * activation_skip keys, read and changed by one VG commit. The thin
 * metadata and the kernel do not know them, so a live pool changes them
 * the same way. */
#include "lib/pool/core/core.h"

#include "lib/base/log.h"

#include <errno.h>

static int *flag_of(struct vg *vg, const char *pool, const char *vol)
{
	struct vg_volume *v;

	if (!vol)
		return &vg->activation_skip;
	if ((v = vg_find_volume(vg, vol)))
		return &v->activation_skip;
	log_error("pool %s has no volume %s; 'tpstatus %s' lists them", pool, vol, pool);
	return NULL;
}

int pool_get_autoactivate(const struct pool *p, const char *vol)
{
	const int *skip = flag_of(p->vg, p->name, vol);

	return skip ? !*skip : -ENOENT;
}

int pool_set_autoactivate(struct pool *p, const char *vol, int on)
{
	struct vg *next;
	int *skip, r;

	if (!flag_of(p->vg, p->name, vol))
		return -ENOENT;
	if ((r = vg_clone(p->vg, &next)))
		return r;
	skip = flag_of(next, p->name, vol);
	*skip = !on;
	return pool_commit_vg(p, next);
}
