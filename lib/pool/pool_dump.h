/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_dump.h - thin metadata as text and back: tpdump (a pool's active
 * area, or a bare file or device) and tprestore (XML into a bare file or
 * device, or an area inside one); either also as thin_metadata_pack's
 * file of blocks (metadata/pdata/pack.h).
 *
 * A bare area is opened through lib/base/io_area.h with the file itself
 * locked (shared to dump, exclusively to restore; see pool_check.h for
 * the refusal of a pool device as a restore target). Errors are logged
 * once, naming the file, the pool or the XML position.
 * Returns 0 or -errno: -EINVAL/-ERANGE only for the caller's input (an
 * area outside the device: exit 3); a failed walk, restore or output is
 * never reported as such (exit 5). */
#ifndef TP_POOL_POOL_DUMP_H
#define TP_POOL_POOL_DUMP_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"

#define POOL_MAX_DEV_ID ((1ull << 24) - 1)	/* highest thin device id */

enum pool_dump_format {
	POOL_DUMP_XML,		/* byte-identical to thin_dump 0.9.0 */
	POOL_DUMP_HUMAN,	/* thin_dump -f human_readable */
	POOL_DUMP_PACK,		/* thin_metadata_pack's file (metadata/pdata/pack.h):
				 * every metadata block of the area, which the
				 * other fields but source, devices, area and output
				 * do not change */
};

struct pool_dump_params {
	const char *source;	/* metadata file or device, or a pool name */
	const char *devices;	/* with a pool: NULL or "DATA,META" */
	uint64_t offset, size;	/* of the area in a file; size 0 = to the end */
	enum pool_dump_format format;
	int metadata_snap;	/* dump the held metadata snapshot */
	int skip_mappings;	/* devices only */
	int one_device;		/* only device DEV_ID */
	uint64_t dev_id;
	const char *output;	/* NULL = stdout; a regular file is written whole
				 * through a temporary file and renamed over it
				 * (left as it was on failure); never the source,
				 * a block device or a file carrying a pool's
				 * label, VG metadata or another signature unless
				 * FORCE (the last two) */
	int force;		/* write OUTPUT even if a block device or signed */
	tp_progress_fn *progress;	/* mapped blocks printed (total 0: unknown); NULL: none */
	void *progress_ctx;
};

/* Is SOURCE a pool name (no such path, and a valid pool name)? */
int pool_dump_source_is_pool(const char *source);
int pool_dump(const struct pool_dump_params *p) TP_MUST_CHECK;

struct pool_restore_params {
	const char *input;	/* XML file, "-" = standard input */
	const char *output;	/* an existing file or device */
	uint64_t offset, size;	/* of the area in OUTPUT; size 0 = to the end */
	int force;		/* write OUTPUT even if it carries a tptools label */
	int pack;		/* INPUT is thin_metadata_pack's file, not XML */
	tp_progress_fn *progress;	/* mapped blocks written of the XML's (a pack's
					 * blocks); NULL: none */
	void *progress_ctx;
};

/* The whole XML (or pack) is validated first: invalid XML, a damaged pack,
 * a pack that is not whole metadata (block 0 no thin superblock, or a
 * block the metadata space map marks in use missing: a pack cut at a
 * chunk boundary; FORCE restores it anyway) or an area too small for it
 * leaves OUTPUT unwritten. A pack's blocks go
 * where the pack puts them; every other block of the area is zeroed, the
 * superblock (block 0) first (so that a restore cut short leaves no
 * superblock over half-written metadata) and written last, each step
 * flushed. */
int pool_restore(const struct pool_restore_params *p) TP_MUST_CHECK;

#endif
