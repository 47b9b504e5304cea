/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_admin.h - the pool-wide commands' engine (lib/pool/admin): rename,
 * remove and forget, the labels a command is given, growth, several data
 * devices, the chunk mover, trim
 * (lib/pool's public face; pool.h has what every command shares: the
 * open pool, its names and types, activation and status). Errors as in
 * pool.h. */
#ifndef TP_POOL_ADMIN_H
#define TP_POOL_ADMIN_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "lib/pool/pool.h"

/* Rename pool OLD to NEW_NAME (pool_rename.c), offline: the VG metadata
 * (one commit), the labels, the backups and the devices file, in that
 * order; run again after an interruption it finishes the rename. DEVICES
 * as for pool_open. -EINVAL bad or equal name, -EEXIST NEW_NAME taken,
 * -EBUSY the pool is active, -ENOENT no such pool (all logged). */
int pool_rename(const char *old, const char *new_name, const char *devices) TP_MUST_CHECK;

/* Wipe the pool: labels and VG areas of every device, the devices-file
 * entries; the backups stay. P is closed and freed either way. */
int pool_remove(struct pool *p) TP_MUST_CHECK;

/* Forget pool NAME whose devices cannot all be opened: wipe the label and
 * VG area of each of its devices that is still reachable (by the devices
 * file or a label scan), and drop its devices-file entries. Takes the
 * pool lock. 0, or -ENOENT when nothing at all is known of NAME. */
int pool_forget(const char *name) TP_MUST_CHECK;

/* ---- labels a command is given (pool_remove.c; tptools(7) ORPHAN LABELS) ----
 *
 * Whose a device's tptools label is: its pool is found by the label's
 * name and uuid and attached read-only (its lock waited on briefly), and
 * its current VG decides. */
struct pool_label_verdict {
	enum pool_label_kind kind;
	char pool[POOL_NAME_MAX + 1];		/* its pool's name ("" NONE, DAMAGED) */
	char device_uuid[POOL_UUID_LEN + 1];
	char what[400];				/* in words, for a question */
};
/* What PATH's label is: 0 with *V, or -errno (-ENOENT: no such path,
 * logged). Reads only. */
int pool_label_inspect(const char *path, struct pool_label_verdict *v) TP_MUST_CHECK;
/* tpremove --label: wipe PATH's tptools label and VG metadata area and
 * drop its devices-file entry, when it is an orphan or the label of a
 * pool of which nothing else is known; with FORCE also a damaged label
 * or one whose pool cannot be read whole. The device is claimed and its
 * label looked at again first; it must still be what WAS says (the kind
 * and device uuid the user was asked about), else -EAGAIN. A member of a
 * pool (or a device whose own VG copy is ahead of its pool's) is refused:
 * -EBUSY, logged naming the command that frees it, and so is a kind that
 * needs FORCE without it; no label: -ENOENT, logged. Nothing is written
 * unless 0 is returned. */
int pool_label_remove(const char *path, int force, const struct pool_label_verdict *was)
	TP_MUST_CHECK;

/* ---- growth (pool_extend.c) ---- */

/* What tpextend is asked to do. */
struct pool_extend_params {
	uint64_t data_size;	/* bytes: grow the data area to at most this; 0 = as far as the
				 * data device allows (tpmonitor's steps set it) */
	int metadata;		/* grow the thin-metadata areas too */
	uint64_t metadata_size;	/* with METADATA: bytes of one area; 0 = auto (all the
				 * metadata device offers) */
};


/* Grow the data area to the data device's current size, rounded down to
 * whole chunks, and with X->metadata the active and spare thin-metadata
 * areas to X->metadata_size each, into free space of the metadata device
 * (the active area grows in place; the spare moves behind it when it is in
 * the way). One VG commit and one thin transaction (the protocol above),
 * then the labels. Live, the kernel's tables are reloaded over the grown
 * areas instead (the kernel grows its space maps on resume); a live
 * growth a crash cut short is finished first (res then says so). -ENOSPC
 * (logged) when a device has no room: the data device no whole chunk
 * beyond the area (without X->metadata), the metadata device not the two
 * areas; -EINVAL (logged) for a metadata size not above the current one
 * or beyond the format's limit. The stripe check is made either way and
 * filled into RES. */
int pool_extend(struct pool *p, const struct pool_extend_params *x,
		struct pool_extend_result *res) TP_MUST_CHECK;

/* ---- several data devices (pool_extend_data.c) ----
 * A pool's data area is a linear concatenation of up to 8 data devices:
 * the first, then each one tpextend --data added, in that order. */
#define POOL_DATA_DEVICES_MAX 8

struct pool_extend_data_params {
	const char *path;	/* the new data device */
	int force;		/* take a device whose stripe the chunk does not fit */
	int test;		/* decide and say, write nothing (the pool open read-only) */
};

struct pool_extend_data_result {
	unsigned index;			/* the new device's place (1: the second) */
	uint64_t chunk;			/* bytes */
	uint64_t dev_size;		/* bytes, the new device */
	uint64_t offset;		/* its data area's start, bytes */
	uint64_t grid;			/* the alignment unit of that start */
	uint64_t first_chunk, chunks;	/* the range of the pool's chunks it holds */
	uint64_t old_data_size, new_data_size;	/* bytes, the whole data area */
	uint64_t meta_size;		/* bytes of the active thin-metadata area */
	uint64_t meta_estimate;		/* bytes of thin metadata the new size wants */
	int fits;			/* the chunk fits the device's stripe */
	int written;			/* the device was added */
	char topo_desc[256];		/* the new device's geometry in words */
	char offset_reason[640];
	char stripe_reason[640];
};

/* Add X->path to P's data area, behind the last data device: its data
 * area aligned for it (the geometry policy), its label and a VG copy
 * written, then one change (the VG listing it with its range, the thin
 * data space map grown), then the labels. Refused, nothing written:
 * -EINVAL (logged) when the chunk does not fit the device's stripe
 * without X->force, -ENOSPC for a device without a whole chunk behind
 * its header or a pool with 8 data devices, -EBUSY for a device in use
 * or carrying a signature (another pool's label, a filesystem).
 * X->test fills RES and writes nothing. Live: the kernel's data device
 * is reloaded as a linear table over the devices. */
int pool_extend_data(struct pool *p, const struct pool_extend_data_params *x,
		     struct pool_extend_data_result *res) TP_MUST_CHECK;

/* Take a data device but the first away from P (tpreduce --data PATH)
 * when no chunk of its range is in use (pool_move_data empties one): the
 * thin metadata is rebuilt into the spare area without the range (the
 * chunks behind it numbered down by its size), and one VG commit (to the
 * devices that stay) makes that area active and drops the device (the
 * ones behind it one place up); then its label and VG area are wiped, its
 * devices-file entry dropped and the labels behind it given their new
 * places. Offline only. -EBUSY (logged, naming how many chunks are in use
 * there) when it holds data, -EINVAL when PATH is none of P's data
 * devices or its first, or P has one. TEST: decide, say, write nothing. */
struct pool_reduce_data_result {
	unsigned index;			/* the device's place (1: the second) */
	uint64_t first_chunk, chunks, used;
	uint64_t old_data_size, new_data_size;	/* bytes */
	int written;
};
int pool_reduce_data(struct pool *p, const char *path, int test,
		     struct pool_reduce_data_result *res) TP_MUST_CHECK;

/* tpreduce --missing: take every data device of P that is missing (not
 * found; opened with POOL_DATA_MISSING_OK) away, in one rebuild of the
 * thin metadata into the spare area and one VG commit, as pool_reduce_data
 * does. The mappings into their ranges are counted first: when any
 * volume maps chunks there, -EBUSY (logged, naming each volume and how
 * many of its chunks) unless FORCE, which drops those mappings (the
 * blocks read as zeros afterwards: the loss is reported in RES, volume
 * by volume). -ENOENT (logged) when no data device is missing. Offline
 * only. TEST: count, say, write nothing. A device that comes back later
 * carries an orphan label of the pool (tptools(7)). */
#define POOL_REDUCE_LOST_MAX 16
struct pool_reduce_missing_result {
	unsigned nr_devices;		/* taken away */
	struct {
		unsigned index;		/* its place (1: the second) */
		char device_uuid[POOL_UUID_LEN + 1];
		char last_path[1024];	/* where the VG saw it last */
		uint64_t chunks;
	} dev[8];
	uint64_t lost;			/* mapped chunks there, over all volumes */
	unsigned nr_lost;		/* volumes (and thin devices) that map any */
	struct {
		char name[POOL_NAME_MAX + 1];	/* "" for a thin device no volume lists */
		uint64_t dev_id, blocks;
	} vol[POOL_REDUCE_LOST_MAX];
	uint64_t old_data_size, new_data_size;	/* bytes */
	int written;
};
int pool_reduce_missing(struct pool *p, int force, int test,
			struct pool_reduce_missing_result *res) TP_MUST_CHECK;

/* ---- the chunk mover (pool_move.c) ---- */
#define POOL_MOVE_STEP 16384u	/* the most mappings one step re-points */

struct pool_move_params {
	const char *path;	/* the data device to empty */
	int test;		/* count and decide, move nothing */
	uint64_t step;		/* mappings per step; 0 = POOL_MOVE_STEP */
	tp_progress_fn *progress;	/* chunks moved of those to move; may be NULL */
	void *progress_ctx;
	/* path NULL: the range to empty is the data area's tail, from chunk
	 * KEEP on (tpreduce --size), onto free chunks below KEEP */
	uint64_t keep;
};

struct pool_move_result {
	unsigned index;			/* the device's place (0: the first) */
	uint64_t chunk;			/* bytes */
	uint64_t first_chunk, chunks;	/* its range of the pool's chunks */
	uint64_t used;			/* chunks of the range in use before */
	uint64_t mappings;		/* mappings naming them (a shared chunk: several) */
	uint64_t free_elsewhere;	/* free chunks on the other devices before */
	uint64_t moved, steps;		/* chunks moved, thin commits made */
};

/* Move every chunk a volume maps on the data device X->path of the
 * inactive pool P onto free chunks of its other data devices, in steps
 * of at most X->step mappings: each step copies its chunks' data, flushes
 * it, then re-points their mappings (a chunk shared by several volumes
 * once, all its mappings with it) in one thin commit. A run cut anywhere
 * leaves every volume reading what it read; running it again goes on.
 * Refused, nothing written: -EINVAL (logged) for a device that is none
 * of P's data devices or a pool with one, -ENOSPC when the other devices
 * have fewer free chunks than the device uses, -EBUSY for a live pool or
 * a held metadata snapshot. A signal stops it between two steps
 * (-EINTR, logged). X->test: RES filled, nothing written. */
int pool_move_data(struct pool *p, const struct pool_move_params *x,
		   struct pool_move_result *res) TP_MUST_CHECK;

/* ---- the data area shrunk (pool_shrink.c; tpreduce --size) ---- */

struct pool_shrink_params {
	uint64_t size;		/* the pool's new data size, bytes */
	int test;		/* count and decide, write nothing */
	uint64_t step;		/* the mover's mappings per step; 0 = POOL_MOVE_STEP */
	tp_progress_fn *progress;	/* chunks moved of those to move; may be NULL */
	void *progress_ctx;
};

struct pool_shrink_result {
	unsigned index;			/* the last data device's place (0: the first) */
	const char *path;		/* its path (P's) */
	uint64_t chunk;			/* bytes */
	uint64_t old_chunks, new_chunks;	/* the data area, in chunks */
	uint64_t used;			/* chunks in use in the whole area */
	uint64_t to_move;		/* of them, from NEW_CHUNKS on (mapped) */
	uint64_t leaked;		/* counted from NEW_CHUNKS on, mapped by none:
					 * a leak the rebuild drops (not in USED) */
	uint64_t mappings;		/* mappings naming those */
	uint64_t free_below;		/* free chunks below NEW_CHUNKS */
	uint64_t moved, steps;		/* chunks moved, thin commits made */
	uint64_t freed_offset, freed_bytes;	/* the device's tail no longer used */
	uint64_t dev_size;		/* the last device's size, bytes */
	unsigned warn;			/* the warn threshold (0: none) */
	unsigned used_pct;		/* of the new area in use, percent */
	int already;			/* the area had that size: nothing done */
	int written;
	int label_lags;			/* committed, but the last device's label
					 * could not be rewritten (warned): the
					 * device must not be cut yet */
};

/* tpreduce --size: shrink the data area of the inactive pool P to
 * X->size (rounded up to whole chunks) by shrinking its last data
 * device's range: the chunks mapped at or beyond the new end moved below
 * it first (pool_move_data, resumable), then the thin metadata rebuilt
 * into the spare area with the smaller data space map and one VG commit
 * that makes that area active and shrinks the device's range. Refused,
 * nothing written: -EFBIG (logged) for a size above the area's, -ERANGE
 * for one that leaves the last device no chunk, -ENOSPC when the pool
 * uses more chunks than the smaller area has (the number named), -EDQUOT
 * above the over-provisioning limit, -EBUSY for a live pool or a held
 * metadata snapshot. The area already of that size: 0, RES->already. A
 * use of the new area at or above the warn threshold is warned about.
 * A signal stops the move between two steps (-EINTR, logged). */
int pool_shrink_data(struct pool *p, const struct pool_shrink_params *x,
		     struct pool_shrink_result *res) TP_MUST_CHECK;

/* The data devices of P, in the data area's order: paths and ranges. */
struct pool_data_device;
unsigned pool_data_devices(const struct pool *p, struct pool_data_device *out, unsigned max);

/* ---- trim (pool_trim.c) ----
 *
 * tptrim: give every data chunk no volume maps back to the data device's
 * storage (an SSD, a thin LUN, a sparse image file): the chunks with a
 * reference count of 0 in the committed data space map, in runs of
 * adjacent chunks, each discarded in pieces of at most MAX_BATCH bytes
 * (BLKDISCARD on a block device, a hole punched into an image file:
 * lib/dev/discard.h). Offline only (-EBUSY, logged: a live pool passes
 * volumes' discards down itself, tpcreate --discards); a pool flagged
 * needs_check or fatally damaged is refused as by every offline writer
 * (-EUCLEAN), and so is one whose thin metadata holds a metadata snapshot
 * (-EBUSY: its mappings may still name freed chunks). Changes no
 * metadata: a kill at any point leaves the pool as it was, a chunk
 * discarded or not. A signal stops it between two pieces (-EINTR,
 * logged). With TEST only the runs are found and reported. */
#define POOL_TRIM_BATCH (1ull << 30)	/* bytes per discard, by default */
struct pool_trim_params {
	int test;				/* find and report, discard nothing */
	uint64_t max_batch;			/* bytes; 0 = POOL_TRIM_BATCH */
	/* each run of free chunks, before it is discarded: its first chunk,
	 * how many, the device and the byte offset there (NULL: none) */
	void (*range)(void *ctx, uint64_t chunk, uint64_t nr, const char *dev, uint64_t off,
		      uint64_t bytes);
	void *range_ctx;
	tp_progress_fn *progress;		/* chunks looked at, of all (NULL: none) */
	void *progress_ctx;
};
struct pool_trim_result {
	uint64_t chunks;	/* of the data area */
	uint64_t free;		/* of those, mapped by no volume */
	uint64_t runs;		/* runs of adjacent free chunks */
	uint64_t discards;	/* pieces discarded (or, with test, to discard) */
	uint64_t bytes;		/* bytes discarded (or to discard) */
	uint64_t chunk;		/* bytes */
	int punch;		/* the data device is an image file: holes punched */
};
int pool_trim(struct pool *p, const struct pool_trim_params *x, struct pool_trim_result *res)
	TP_MUST_CHECK;

/* ---- pool_extend.c (also the monitor's: its autoextend ceiling) ---- */

/* The largest thin-metadata area (bytes) the metadata device has room
 * for with its spare (the current size when none more). */
uint64_t pool_meta_room(const struct pool *p);

/* pool_find.c (host.h: pool_same_device): 1 when A and B name one device,
 * the same block device or file; or, when either cannot be looked at, the
 * same name (a command line's two options naming one missing path). */
int pool_same_device_named(const char *a, const char *b);

#endif
