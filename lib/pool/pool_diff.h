/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_diff.h - where two thin volumes differ (tpdiff), from their
 * mapping trees only (metadata/thin/delta.h: subtrees two volumes share
 * since a snapshot are skipped without being read).
 *
 * Two entry points:
 * - pool_diff_volumes: two volumes of one open pool; offline from the
 *   committed thin metadata, live from a metadata snapshot the kernel
 *   holds for the duration. Ranges reach FN in bytes, ascending, merged.
 * - pool_delta_xml: thin_delta 0.9.0's output, byte for byte, for two
 *   thin device ids of a bare metadata file or device (or the area at
 *   OFFSET in one), or of two volumes of a pool.
 * Returns 0 or -errno, logged once: -ENOENT no such volume; -EINVAL the
 * two volumes are one; -ENODATA no such thin device / no metadata
 * snapshot; -EUCLEAN damaged metadata; -EIO an output error. */
#ifndef TP_POOL_POOL_DIFF_H
#define TP_POOL_POOL_DIFF_H

#include <stdint.h>

#include "lib/base/compiler.h"

struct pool;

enum pool_diff_kind {
	POOL_DIFF_LEFT_ONLY,	/* mapped in A, a hole in B */
	POOL_DIFF_RIGHT_ONLY,	/* a hole in A, mapped in B */
	POOL_DIFF_DIFFERENT,	/* mapped in both, to other chunks */
};

struct pool_diff_range {
	enum pool_diff_kind kind;
	uint64_t offset, length;	/* bytes, whole chunks */
};

struct pool_diff_summary {
	uint64_t chunk;			/* bytes */
	uint64_t size_a, size_b;	/* the volumes' virtual sizes, bytes */
	uint64_t dev_a, dev_b;		/* their thin device ids */
	uint64_t ranges, bytes;		/* what differs */
	uint64_t nodes_read;		/* mapping-tree nodes read */
	uint64_t subtrees_shared;	/* shared subtrees skipped unread */
};

typedef int (*pool_diff_fn)(void *ctx, const struct pool_diff_range *r);

/* The ranges where volumes A and B of P differ, to FN (may be NULL), and
 * the figures in *S. */
int pool_diff_volumes(struct pool *p, const char *a, const char *b, pool_diff_fn fn, void *ctx,
		      struct pool_diff_summary *s) TP_MUST_CHECK;

struct pool_delta_params {
	const char *metadata;		/* a metadata file or device; NULL: POOL */
	uint64_t offset, size;		/* of the area in it; size 0 = to the end */
	struct pool *pool;		/* with VOL_A, VOL_B: two volumes of a pool */
	const char *vol_a, *vol_b;
	uint64_t left, right;		/* with METADATA: thin device ids */
	int metadata_snap;		/* with METADATA: the held metadata snapshot */
	uint64_t metadata_snap_block;	/* its superblock block; 0 = the one held */
	int verbose;
	int fd;				/* where the XML goes */
};

int pool_delta_xml(const struct pool_delta_params *d) TP_MUST_CHECK;

#endif
