/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_owner.c - a pool's owner: the system id its VG records
 * (tptools.conf(5) global/system_id) against this host's (lib/base/
 * sysid.h). A pool owned by another host is foreign: dm-thin is not
 * cluster-aware, and two hosts writing one pool's metadata destroy it,
 * so attach refuses a foreign pool to every command but the readers that
 * ask for it (POOL_FOREIGN_OK: tpstatus lists it, marked), before any
 * write (the stale-copy rewrite, the transaction replay). A pool with no
 * owner (written before owners, or by a host without an id) is anyone's. */
#include "lib/pool/owner/owner_feature.h"

#include "lib/pool/core/core.h"
#include "lib/pool/pool_owner.h"

#include "lib/base/log.h"
#include "lib/base/sysid.h"

#include <errno.h>
#include <string.h>

const char *pool_owner(const struct pool *p)
{
	return pool_vg(p) ? pool_vg(p)->system_id : "";
}

/* The feature's vg_read hook (core.h): after the VG is read, is P another
 * host's? Sets the core's foreign mark (pool_is_foreign); -EREMOTE
 * (logged, unless POOL_FOREIGN_QUIET) when it is and P was not opened
 * with POOL_FOREIGN_OK; -errno when this host's id cannot be told
 * (logged); else 0. */
static int check_owner(struct pool *p)
{
	const struct vg *vg = pool_vg(p);
	char me[TP_SYSID_MAX + 1];
	int r;

	pool_set_foreign(p, 0);
	/* a shared pool has no owner: its lease decides (pool_lease.c) */
	if (!vg || !vg->system_id[0] || vg->lock.type != VG_LOCK_NONE)
		return 0;
	if ((r = tp_system_id(me, sizeof(me), NULL)))
		return r;
	if (!strcmp(me, vg->system_id))
		return 0;
	pool_set_foreign(p, 1);
	if (pool_flags(p) & POOL_FOREIGN_OK)
		return 0;
	if (pool_flags(p) & POOL_FOREIGN_QUIET)
		return -EREMOTE;
	/* a reader (tpcheck, tpdump, tpsend, tpdiff) is told to run on the
	 * owner: that host may be changing the pool while this one reads */
	log_error("pool %s belongs to the host whose system id is \"%s\"; this host's is %s%s%s "
		  "(tptools.conf(5)); %s. %s on that host, 'tpchange --systemid %s %s' hands it "
		  "over%s; if that host is gone for good, 'tpchange --systemid %s --foreign "
		  "--force %s' takes it (if the other host still uses the pool, both writing "
		  "destroy it)",
		  pool_name(p), vg->system_id, me[0] ? "\"" : "", me[0] ? me : "none",
		  me[0] ? "\"" : "",
		  (pool_flags(p) & POOL_RDONLY) ? "nothing was read beyond its labels and VG, nothing "
					     "changed" : "nothing was changed",
		  (pool_flags(p) & POOL_RDONLY) ? "Run the command on that host, which may be changing "
					     "the pool while this one would read it; or move the "
					     "pool here:" : "To move the pool here:",
		  me[0] ? me : "ID", pool_name(p), me[0] ? "" : " once this host has an id",
		  me[0] ? me : "ID", pool_name(p));
	return -EREMOTE;
}

static struct pool_feature owner_feature = {
	.name = "owner",
	.vg_read = check_owner,
};

void pool_owner_register(void)
{
	pool_feature_register(&owner_feature);
}
