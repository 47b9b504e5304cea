/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin.h - the thin-pool metadata engine: dm-thin's on-disk format, read
 * and written transactionally, byte-compatible with the kernel (layouts:
 * thin_sb.h for the superblock and values, metadata/pdata/btree_node.h
 * and space_map.c for nodes and space maps).
 *
 * Owns: one open metadata area (struct thin_md) over a caller-owned
 * io_engine (a file, a device or a window inside a pool device). The
 * engine is not destroyed by thin_close.
 *
 * Contract:
 * - Every call returns 0 or -errno. Unknown device: -ENODATA. Existing
 *   device id: -EEXIST. Device id above THIN_MAX_DEV_ID: -EINVAL. No free
 *   metadata or data block: -ENOSPC. Corrupt metadata: -EUCLEAN, with the
 *   block number logged. A read-only handle refuses changes with -EROFS.
 * - Changes are made in a transaction and become durable only with
 *   thin_commit(): the superblock (block 0) is the single commit point, so
 *   a crash at any moment leaves exactly the previous or the new committed
 *   state. thin_abort() drops everything since the last commit.
 *   thin_close() does NOT commit.
 * - After any failed modifying call the transaction must be treated as
 *   broken: call thin_abort() (the kernel does the same and sets
 *   needs_check; we leave that decision to the caller).
 * - Time follows the kernel: the pool time starts at 0 and
 *   thin_create_snap() increments it; new mappings are stamped with the
 *   current time; a mapped block is shared iff its device's snap_time is
 *   greater than the mapping's time.
 * - Block counts (usage, sizes) are in 4 KiB metadata blocks and in data
 *   blocks of data_block_size sectors.
 * - Not thread safe: one thread per handle. */
#ifndef TP_THIN_H
#define TP_THIN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/thin/thin_ir.h"

#define THIN_METADATA_BLOCK_SIZE 4096u
#define THIN_MAX_DEV_ID ((1ull << 24) - 1)
/* 255 bitmaps of 16320 blocks: the metadata space map's hard limit. */
#define THIN_METADATA_MAX_BLOCKS 4161600ull
#define THIN_DATA_BLOCK_SIZE_MIN 128u		/* sectors, 64 KiB */
#define THIN_DATA_BLOCK_SIZE_MAX 2097152u	/* sectors, 1 GiB */
#define THIN_MAX_DATA_BLOCKS (1ull << 40)	/* block_time packing */
#define THIN_SB_FLAG_NEEDS_CHECK 1u

struct thin_md;

enum thin_open_flags {
	THIN_RDONLY = 1 << 0,	/* no changes; commit/abort are no-ops */
};

/* Write fresh, empty metadata over META (its size / 4096 blocks, capped
 * at THIN_METADATA_MAX_BLOCKS) and commit it, then return it open.
 * DATA_BLOCK_SIZE: 128..2097152 sectors, a multiple of 128 (else -EINVAL).
 * The area needs at least 16 blocks (else -ENOSPC). */
int thin_format(struct io_engine *meta, uint32_t data_block_size, uint64_t nr_data_blocks,
		struct thin_md **out) TP_MUST_CHECK;
/* Open committed metadata. An all-zero superblock is -ENODATA (unformatted);
 * a bad checksum, magic or block number is -EUCLEAN. */
int thin_open(struct io_engine *meta, unsigned flags, struct thin_md **out) TP_MUST_CHECK;
void thin_close(struct thin_md *md);	/* NULL ok; does not commit */
int thin_commit(struct thin_md *md) TP_MUST_CHECK;
int thin_abort(struct thin_md *md) TP_MUST_CHECK;

/* The in-core superblock (uncommitted changes included). nr_data_blocks
 * is the data space map's size; metadata_snap the held root or 0. */
int thin_superblock_info(struct thin_md *md, struct thin_ir_superblock *sb);

/* Devices. create_snap shares ORIGIN's mapping tree (O(1)): time++, the
 * origin's snap_time and the new device's creation_time/snap_time become
 * the new time, mapped_blocks is copied. delete drops the device and every
 * reference its tree held (shared subtrees stay for their other owners). */
int thin_create_thin(struct thin_md *md, uint64_t dev_id) TP_MUST_CHECK;
int thin_create_snap(struct thin_md *md, uint64_t dev_id, uint64_t origin_id) TP_MUST_CHECK;
int thin_delete(struct thin_md *md, uint64_t dev_id) TP_MUST_CHECK;
int thin_device_info(struct thin_md *md, uint64_t dev_id, struct thin_ir_device *out);
/* All device ids, ascending, in a malloc'ed array the caller frees (NULL
 * when there are none). */
int thin_list_devices(struct thin_md *md, uint64_t **ids, size_t *nr) TP_MUST_CHECK;
size_t thin_nr_devices(const struct thin_md *md);
/* FN on each device's details, ascending id, as the open loaded them (no
 * block read); stops at FN's first nonzero return, which it returns. */
int thin_each_device(struct thin_md *md,
		     int (*fn)(void *ctx, uint64_t dev_id, const struct thin_ir_device *d),
		     void *ctx);

/* Compare-and-swap, like the kernel's set_transaction_id message:
 * -EINVAL if the current id is not OLD_ID. */
int thin_get_transaction_id(struct thin_md *md, uint64_t *id);
int thin_set_transaction_id(struct thin_md *md, uint64_t old_id, uint64_t new_id) TP_MUST_CHECK;
uint32_t thin_get_time(struct thin_md *md);

/* Mappings. insert maps VBLOCK to DBLOCK stamped with the current time and
 * takes one data reference on DBLOCK (so a block from
 * thin_alloc_data_block, which already holds one, should have it dropped by
 * thin_data_dec, or be mapped with thin_insert_mapping_alloced); an
 * overwritten mapping drops its old data reference. remove drops the data
 * reference; -ENODATA if VBLOCK is unmapped. DBLOCK beyond the data size:
 * -EINVAL. */
int thin_insert_mapping(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t dblock)
	TP_MUST_CHECK;
/* The kernel's provisioning path: DBLOCK was just allocated (count 1) and
 * the mapping takes over that reference. */
int thin_insert_mapping_alloced(struct thin_md *md, uint64_t dev_id, uint64_t vblock,
				uint64_t dblock) TP_MUST_CHECK;
int thin_remove_mapping(struct thin_md *md, uint64_t dev_id, uint64_t vblock) TP_MUST_CHECK;
/* Point the mapping of VBLOCK, which names data block FROM, at TO,
 * keeping its time (whether a later write breaks sharing goes by it):
 * TO takes a reference, FROM loses one. -ENODATA if VBLOCK is unmapped,
 * -ESTALE if it names another block than FROM. A chunk mover's step. */
int thin_remap_mapping(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t from,
		       uint64_t to) TP_MUST_CHECK;
/* Unmap the first MAX (at most 1M) mappings of DEV_ID in key order, each
 * dropping its data reference, in the current transaction: the bounded
 * step of a removal (a caller commits between steps, so the work of one
 * transaction stays bounded). *REMOVED gets how many went (0: the device
 * maps nothing). */
int thin_unmap_first(struct thin_md *md, uint64_t dev_id, uint64_t max, uint64_t *removed)
	TP_MUST_CHECK;
/* Does another device, or another mapping, see the data block DEV_ID maps
 * at VBLOCK (its reference count above 1, or a node of the way there held
 * by another tree too: a snapshot not yet written apart)? *SHARED 1 or 0,
 * in the current transaction; -ENODATA if unmapped. */
int thin_mapping_shared(struct thin_md *md, uint64_t dev_id, uint64_t vblock, int *shared)
	TP_MUST_CHECK;
/* -ENODATA if unmapped. TIME may be NULL. */
int thin_lookup(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t *dblock,
		uint32_t *time);
/* Allocate a free data block with reference count 1 (-ENOSPC when full).
 * Blocks freed in this transaction are not reused before the commit. */
int thin_alloc_data_block(struct thin_md *md, uint64_t *dblock) TP_MUST_CHECK;
int thin_data_dec(struct thin_md *md, uint64_t dblock) TP_MUST_CHECK;
int thin_data_count(struct thin_md *md, uint64_t dblock, uint32_t *count);

/* Usage. exclusive = mapped blocks whose data reference count is 1,
 * shared = mapped - exclusive. This walks the device's tree. Reference
 * counts are per leaf, not per device: while a snapshot and its origin
 * still share a leaf, its blocks count as "exclusive" for both. What a
 * user means by exclusive (no other device maps the block) is counted by
 * walking every tree: lib/pool/core/pool_usage.c, which tpstatus uses. */
int thin_device_usage(struct thin_md *md, uint64_t dev_id, uint64_t *mapped,
		      uint64_t *exclusive, uint64_t *shared);
int thin_usage(struct thin_md *md, uint64_t *meta_used, uint64_t *meta_total,
	       uint64_t *data_used, uint64_t *data_total);

/* Growth only (shrinking: -EINVAL). The metadata area's io_engine must
 * already be large enough (else -ENOSPC). */
int thin_resize_data(struct thin_md *md, uint64_t nr_blocks) TP_MUST_CHECK;
int thin_resize_metadata(struct thin_md *md, uint64_t nr_blocks) TP_MUST_CHECK;

/* Metadata snapshot (the kernel's reserve/release_metadata_snap): reserve
 * commits, then takes a read-only copy of the superblock; -EBUSY if one is
 * held. release: -EINVAL if none. Both are committed before returning.
 * Read through it with thin_walk(md, THIN_WALK_METADATA_SNAP, ...). */
int thin_reserve_metadata_snap(struct thin_md *md) TP_MUST_CHECK;
int thin_release_metadata_snap(struct thin_md *md) TP_MUST_CHECK;
int thin_get_metadata_snap(struct thin_md *md, uint64_t *block);

/* NEEDS_CHECK flag. set/clear is written with the next commit. */
int thin_needs_check(struct thin_md *md);	/* 1, 0 */
int thin_set_needs_check(struct thin_md *md, int on) TP_MUST_CHECK;

/* Verify every metadata and data reference count against what a full walk
 * of all trees (live and metadata snapshot) computes (the model test and
 * tpcheck use this). Only on a clean handle (just opened or committed:
 * else -EBUSY). Returns 0, or -EUCLEAN after logging each difference (at
 * most a few dozen lines); a bad node on the way gives its own error. */
int thin_verify_counts(struct thin_md *md) TP_MUST_CHECK;

struct thin_count_diff {
	int data;		/* 0: a metadata block, 1: a data block */
	uint64_t block;
	uint32_t got;		/* what the space map says (0 beyond its end) */
	uint64_t expected;	/* what the trees say */
	int beyond_end;		/* referenced, but past the space map's end */
};
/* The same check, each difference passed to FN instead of the log (got 1,
 * expected 0 is a leak: harmless, what thin_check calls non-fatal). A
 * non-zero return from FN stops with that value. 0 if none, else -EUCLEAN. */
int thin_verify_counts_cb(struct thin_md *md,
			  int (*fn)(void *ctx, const struct thin_count_diff *d), void *ctx)
	TP_MUST_CHECK;
/* Repair: set every differing count to what the trees say (leaks and wrong
 * counts alike), in the current transaction; commit to keep it. References
 * past the end cannot be fixed: -EUCLEAN. Call on a clean handle. */
int thin_fix_counts(struct thin_md *md) TP_MUST_CHECK;

#endif
