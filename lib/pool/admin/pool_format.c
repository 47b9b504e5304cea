/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_format.c - the format a pool's VG metadata is written in (pool.h:
 * pool_set_metadata_format): 1, the whole VG text in each commit, as every
 * pool made before format 2; 2, change records after a checkpoint
 * (metadata/vg/mda.h), what tpcreate makes. A tptools of format 1 only
 * refuses a pool of format 2 (its reader says the format is not
 * supported); to hand a pool to one, write it in format 1 again. */
#include "lib/pool/core/core.h"

#include "lib/base/log.h"

#include <errno.h>

unsigned pool_metadata_format(const struct pool *p)
{
	return pool_vg(p)->format_version;
}

int pool_set_metadata_format(struct pool *p, unsigned format)
{
	struct vg *next;
	int r;

	if (format < VG_FORMAT_VERSION_MIN || format > VG_FORMAT_VERSION) {
		log_error("pool %s: VG metadata format %u is not one this tptools writes (%u or "
			  "%u)", pool_name(p), format, VG_FORMAT_VERSION_MIN, VG_FORMAT_VERSION);
		return -EINVAL;
	}
	if (pool_vg(p)->format_version == format)
		return 0;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	next->format_version = format;
	return pool_commit_vg(p, next);
}
