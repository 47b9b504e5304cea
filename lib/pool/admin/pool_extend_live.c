/* pool_extend_live.c - tpextend on an active pool (pool.h: pool_extend):
 * the thin side of the growth is a reload of the kernel's table stack
 * (kernel/dm_resize.c); the kernel grows its data space map to the pool
 * target's new length and its metadata space map to tmeta's new size on
 * the resume, and commits.
 *
 * The protocol is pool_change's: the VG first (transaction id + 1), then
 * the reload, then the kernel's transaction id. A crash after the VG
 * commit leaves the kernel running the old, smaller tables under a VG
 * that records the growth: the next command that changes the pool
 * completes the transaction and with it reloads the tables
 * (pool_live_catch_up in lib/pool/core, from the transaction replay), and so does the
 * next `tpextend`; a deactivation and activation gets the grown tables
 * too, since activation builds them from the VG. */
#include "lib/pool/core/core.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <string.h>

int pool_extend_live_apply(struct pool *p, const void *arg)
{
	struct tp_dm_pool_layout l;
	int r;

	(void)arg;
	if ((r = pool_sync_labels(p, NULL)))
		return r;
	pool_dm_layout(p, &l);
	return tp_dm_pool_reload(&l);
}
