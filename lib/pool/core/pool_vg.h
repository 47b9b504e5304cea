/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_vg.h - lib/pool internals that hand out the lower layers' types
 * (the VG model, the thin metadata, per-volume status over struct
 * vg_volume); not for tools, which get lib/pool's own types (pool.h). */
#ifndef TP_POOL_POOL_VG_H
#define TP_POOL_POOL_VG_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/pool/core/core.h"
#include "metadata/vg/vg.h"



/* Path of the device in ROLE (as opened). */
const char *pool_device_path(const struct pool *p, enum vg_role role);

/* Where pool NAME's active thin-metadata area is (for tpdump POOL): the
 * metadata device's path (malloc'd) and the area's byte offset and length.
 * Refuses (-EBUSY, logged) a pool the kernel is running: its on-disk
 * metadata may be behind the kernel's. */
int pool_locate_metadata(const char *name, const char *devices, char **path, uint64_t *offset,
			 uint64_t *length) TP_MUST_CHECK;

struct pool_volume_status {
	const struct vg_volume *vol;
	uint64_t mapped;	/* bytes */
	uint64_t exclusive;	/* bytes only this volume maps (sharing only) */
	uint64_t shared;	/* bytes shared with other volumes (sharing only) */
	uint64_t highest_mapped;	/* bytes: end of the highest chunk mapped, 0 none (sharing only) */
};

struct pool_status {
	uint64_t data_size, data_used;		/* bytes */
	uint64_t meta_size, meta_used;		/* bytes of the active area */
	uint64_t chunk;				/* bytes */
	uint64_t transaction_id;
	uint64_t virtual_total;			/* sum of volume sizes */
	uint64_t data_offset;			/* byte offset of the data area */
	uint64_t meta_offset;			/* byte offset of the ACTIVE thin area */
	uint64_t spare_offset;			/* byte offset of the spare area */
	int needs_check;
	int live;				/* figures from the kernel */
	int read_only;				/* kernel: pool in read-only mode */
	int failed;				/* kernel: pool failed (no figures) */
	int no_volume_usage;			/* ro/failed/needs_check: no metadata snapshot */
	int out_of_data;			/* kernel: out of data space */
	int sharing;				/* exclusive and shared were walked */
	unsigned nr_volumes;
	struct pool_volume_status *volumes;	/* VG order */
};

/* SHARING: exclusive and shared too, by walking every mapping tree
 * (O(mapped blocks)); else mapped alone, from the device details
 * (O(volumes)), exclusive and shared left 0. */
int pool_get_status(struct pool *p, int sharing, struct pool_status *st) TP_MUST_CHECK;
void pool_status_free(struct pool_status *st);

#endif
