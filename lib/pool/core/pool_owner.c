/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_owner.c - a pool's owner: the system id its VG records
 * (tptools.conf(5) global/system_id) against this host's (lib/base/
 * sysid.h). A pool owned by another host is foreign: dm-thin is not
 * cluster-aware, and two hosts writing one pool's metadata destroy it,
 * so attach refuses a foreign pool to every command but the readers that
 * ask for it (POOL_FOREIGN_OK: tpstatus lists it, marked), before any
 * write (the stale-copy rewrite, the transaction replay). A pool with no
 * owner (written before owners, or by a host without an id) is anyone's. */
#include "lib/pool/core/core.h"
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"
#include "lib/base/sysid.h"

#include <errno.h>
#include <string.h>

const char *pool_owner(const struct pool *p)
{
	return p->vg ? p->vg->system_id : "";
}

int pool_is_foreign(const struct pool *p)
{
	return p->foreign;
}

int pool_check_owner(struct pool *p)
{
	char me[TP_SYSID_MAX + 1];
	int r;

	p->foreign = 0;
	/* a shared pool has no owner: its lease decides (pool_lease.c) */
	if (!p->vg || !p->vg->system_id[0] || p->vg->lock.type != VG_LOCK_NONE)
		return 0;
	if ((r = tp_system_id(me, sizeof(me), NULL)))
		return r;
	if (!strcmp(me, p->vg->system_id))
		return 0;
	p->foreign = 1;
	if (p->flags & POOL_FOREIGN_OK)
		return 0;
	if (p->flags & POOL_FOREIGN_QUIET)
		return -EREMOTE;
	/* a reader (tpcheck, tpdump, tpsend, tpdiff) is told to run on the
	 * owner: that host may be changing the pool while this one reads */
	log_error("pool %s belongs to the host whose system id is \"%s\"; this host's is %s%s%s "
		  "(tptools.conf(5)); %s. %s on that host, 'tpchange --systemid %s %s' hands it "
		  "over%s; if that host is gone for good, 'tpchange --systemid %s --foreign "
		  "--force %s' takes it (if the other host still uses the pool, both writing "
		  "destroy it)",
		  p->name, p->vg->system_id, me[0] ? "\"" : "", me[0] ? me : "none",
		  me[0] ? "\"" : "",
		  (p->flags & POOL_RDONLY) ? "nothing was read beyond its labels and VG, nothing "
					     "changed" : "nothing was changed",
		  (p->flags & POOL_RDONLY) ? "Run the command on that host, which may be changing "
					     "the pool while this one would read it; or move the "
					     "pool here:" : "To move the pool here:",
		  me[0] ? me : "ID", p->name, me[0] ? "" : " once this host has an id",
		  me[0] ? me : "ID", p->name);
	return -EREMOTE;
}
