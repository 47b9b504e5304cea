/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_owner_set.c - tpchange --systemid (pool.h: pool_set_system_id):
 * the pool's owner, as one VG commit. Offline only: the host that takes
 * the pool over activates it, and a pool running here while its VG names
 * another host would be written by two. */
#include "lib/pool/core/core.h"
#include "lib/pool/pool_owner.h"

#include "lib/base/log.h"
#include "lib/base/sysid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int pool_set_system_id(struct pool *p, const char *id)
{
	char why[128];
	struct vg *next;
	int r;

	if (id[0] && tp_system_id_check(id, why, sizeof(why))) {
		log_error("--systemid '%s' %s", id, why);
		return -EINVAL;
	}
	if (pool_vg(p)->lock.type != VG_LOCK_NONE) {
		log_error("pool %s is a shared pool: no host owns it, whichever host holds its "
			  "sanlock lease writes it; 'tpchange --lock-type none %s' makes it a pool "
			  "of this host first", pool_name(p), pool_name(p));
		return -EINVAL;
	}
	if (!strcmp(pool_vg(p)->system_id, id))
		return 0;
	if ((r = pool_refuse_live(p, "a change of its owner (the new owner activates it)")))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	snprintf(next->system_id, sizeof(next->system_id), "%s", id);
	return pool_commit_vg(p, next);
}
