/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_usage.h - per-device mapped and exclusive data blocks from a walk
 * of the mapping trees, or mapped alone from the device details (see
 * pool_usage.c). lib/pool internal. */
#ifndef TP_POOL_POOL_USAGE_H
#define TP_POOL_POOL_USAGE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/thin/thin_ir.h"

struct pool_dev_usage {
	uint64_t dev_id;
	uint64_t mapped;	/* data blocks */
	uint64_t exclusive;	/* mapped by no other device */
	uint64_t highest_end;	/* the walk: 1 + the highest virtual block mapped, 0 none */
};

struct vg;

/* Drives the visitor once over every device; called twice. */
typedef int (*walk_fn)(void *arg, const struct thin_ir_visitor *v);

/* *OUT: malloc'd, ascending dev_id, one entry per device walked; room
 * for EXPECT of them from the start (pool_usage_expect: at 100,000
 * volumes, growing by doubling held 6 MB where 3 MB do). */
int pool_usage_walk(walk_fn walk, void *arg, uint64_t nr_data_blocks, size_t expect,
		    struct pool_dev_usage **out, size_t *nr) TP_MUST_CHECK;
/* The thin devices VG's entries have (volumes, receives, removals, trash). */
size_t pool_usage_expect(const struct vg *vg);
/* Mapped blocks alone (exclusive left 0), from the device details that
 * WALK, a walk_fn of the devices only (THIN_WALK_SKIP_MAPPINGS), reads:
 * O(devices), no mapping tree below its root is read. *OUT as above. */
int pool_usage_details(walk_fn walk, void *arg, size_t expect, struct pool_dev_usage **out,
		       size_t *nr) TP_MUST_CHECK;
const struct pool_dev_usage *pool_usage_find(const struct pool_dev_usage *u, size_t n,
					     uint64_t dev_id);

#endif
