/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_rmap.h - tprmap: which thin device (volume) and virtual block map
 * each data block of given regions, from a pool's active thin metadata or
 * a bare metadata file or device (an area in it), as thin_rmap prints it.
 * The source is opened as tpdump opens it (pool_dump.h: a pool name is
 * anything that is not an existing path and is a valid pool name; a pool
 * is read offline only). See metadata/thin/rmap.h for the walk.
 * Returns 0 or -errno: -EINVAL/-ERANGE only for the caller's input (exit
 * 3); anything else is a failure of the work (exit 5), logged. */
#ifndef TP_POOL_POOL_RMAP_H
#define TP_POOL_POOL_RMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/pool/pool.h"

struct pool_rmap_region {
	uint64_t begin, end;	/* data blocks (pool chunks), end exclusive */
};

struct pool_rmap_run {
	uint64_t data_begin, data_end;	/* end exclusive */
	uint64_t dev_id;
	uint64_t thin_begin;		/* the virtual block data_begin is mapped at */
	const char *volume;		/* a pool's volume of dev_id, else NULL */
};

struct pool_rmap_params {
	const char *source;	/* metadata file or device, or a pool name */
	const char *devices;	/* with a pool: NULL or "DATA,META" */
	uint64_t offset, size;	/* of the area in a file; size 0 = to the end */
	int metadata_snap;	/* read the held metadata snapshot */
	int shared_once;	/* each mapping-tree node once, as thin_rmap */
	const struct pool_rmap_region *regions;
	size_t nr_regions;
};

struct pool_rmap {
	struct pool_rmap_run *runs;	/* thin_rmap's order */
	size_t nr;
	uint64_t chunk;		/* data block size, bytes */
	char **names;		/* owned volume names (freed by pool_rmap_free) */
	size_t nr_names;
};

int pool_rmap(const struct pool_rmap_params *p, struct pool_rmap *out) TP_MUST_CHECK;
void pool_rmap_free(struct pool_rmap *m);

#endif
