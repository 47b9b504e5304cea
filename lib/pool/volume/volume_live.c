/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume_live.c - a loaded thin volume takes its grown size (tvresize on
 * an active pool; core.h: pool_volume_live_grow): the VG has been
 * committed with the new size, then the volume's thin table is reloaded
 * with it. The kernel's thin target maps any length; blocks beyond the old
 * end read as zeros until written. A crash between the two leaves the
 * table at the old size under a VG with the new one: the next tvresize of
 * the volume (any size not below the VG's) reloads it, and so does a
 * deactivation and activation, which build the table from the VG. */
#include "lib/pool/core/core.h"
#include "lib/pool/volume/volume_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>

int pool_volume_live_grow(struct pool *p, const char *name, uint32_t dev_id, uint64_t size)
{
	int r;

	if (!pool_is_live(p))
		return 0;
	r = tp_dm_vol_reload(pool_name(p), name, dev_id, size / 512);
	if (r == -ENXIO)
		return 0;	/* not loaded: activation takes the VG's size */
	if (r)
		log_error("pool %s: volume %s has its new size in the VG metadata but the kernel "
			  "still runs it at the old one; run 'tvresize -V %llus %s/%s' again, or "
			  "deactivate and activate it", pool_name(p), name, (unsigned long long)(size / 512),
			  pool_name(p), name);
	return r;
}
