/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_sb.h - the thin superblock (block 0) and the device-details value,
 * packed and unpacked (format doc section 1.2 and 3.5):
 *
 *   0x000 u32 csum (salt 160774)   0x004 u32 flags (bit 0 NEEDS_CHECK)
 *   0x008 u64 blocknr              0x010 16 bytes uuid (zero)
 *   0x020 u64 magic 27022010       0x028 u32 version (2)  0x02c u32 time
 *   0x030 u64 trans_id             0x038 u64 held_root (metadata snapshot)
 *   0x040 128 bytes data space map root (32 used)
 *   0x0c0 128 bytes metadata space map root (32 used)
 *   0x140 u64 data_mapping_root    0x148 u64 device_details_root
 *   0x150 u32 data_block_size      0x154 u32 metadata_block_size (8)
 *   0x158 u64 metadata_nr_blocks   0x160 u32 compat, compat_ro, incompat
 *
 * Details value (24 bytes): u64 mapped_blocks, u64 transaction_id,
 * u32 creation_time, u32 snapshotted_time.
 * Block-time value (8 bytes): data_block << 24 | time (24 bits). */
#ifndef TP_THIN_SB_H
#define TP_THIN_SB_H

#include <stdint.h>

#include "lib/base/io.h"
#include "lib/base/le.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/thin_ir.h"

#define THIN_SB_BLOCK 0u	/* the superblock's location in the area */
#define THIN_SB_MAGIC 27022010ull
#define THIN_SB_CSUM_XOR 160774u
#define THIN_SB_VERSION 2u
#define THIN_DETAILS_SIZE 24u

struct thin_sb {
	uint32_t flags;
	uint64_t blocknr;
	uint32_t version;
	uint32_t time;
	uint64_t trans_id;
	uint64_t held_root;
	struct sm_root data_sm, meta_sm;
	uint64_t mapping_root;
	uint64_t details_root;
	uint32_t data_block_size;
	uint32_t metadata_block_size;
	uint64_t metadata_nr_blocks;
	uint32_t compat, compat_ro, incompat;
};

extern const struct bm_validator thin_sb_validator;

void thin_sb_unpack(const void *block, struct thin_sb *sb);
/* Zero BLOCK and fill it (checksum and blocknr are the validator's job). */
void thin_sb_pack(void *block, const struct thin_sb *sb);
/* The one superblock check, beyond the validator's location, magic and
 * checksum. Faults (THIN_SBF_*) in the order they are looked for and reported:
 *
 *   unusable (thin_sb_read refuses the copy; check: "unreadable"):
 *     INCOMPAT        unknown incompatible features (the kernel refuses too)
 *     NO_ROOTS        a tree root is 0
 *     DATA_BLOCK_SIZE block 0 only: not 128..2097152 sectors, a multiple of 128
 *   fatal (thin_open refuses; tpcheck exits 2):
 *     VERSION         version neither 1 nor 2
 *     METADATA_BLOCK_SIZE  not 8 sectors
 *     COMPAT_RO       unknown read-only features: a writer must refuse them
 *                     (the kernel's rule: thin_open refuses them unless
 *                     THIN_RDONLY; the checker cannot vouch for them: fatal)
 *     META_SIZE       the metadata space map is larger than the area or the
 *                     format's limit (checks below it are not reported)
 *     DATA_SIZE       the data space map above 2^40 blocks, or with more
 *                     bitmaps than there are metadata blocks (likewise)
 *     HELD_ROOT       the metadata snapshot beyond the metadata space map
 *   non-fatal (reported, accepted by open):
 *     VERSION_OLD     version 1
 *     METADATA_NR_BLOCKS  metadata_nr_blocks 0 or above the space map's size
 *
 * thin_sb_check returns the faults of SB read from block WHERE of an area
 * of AREA_BLOCKS blocks as a mask of THIN_SB_BIT(fault); it logs nothing. */
enum thin_sb_fault {
	THIN_SBF_INCOMPAT,
	THIN_SBF_NO_ROOTS,
	THIN_SBF_DATA_BLOCK_SIZE,
	THIN_SBF_VERSION,
	THIN_SBF_VERSION_OLD,
	THIN_SBF_METADATA_BLOCK_SIZE,
	THIN_SBF_COMPAT_RO,
	THIN_SBF_META_SIZE,
	THIN_SBF_DATA_SIZE,
	THIN_SBF_METADATA_NR_BLOCKS,
	THIN_SBF_HELD_ROOT,
	THIN_SBF_NR_FAULTS
};

#define THIN_SB_BIT(f) (1u << (f))
#define THIN_SB_UNUSABLE (THIN_SB_BIT(THIN_SBF_INCOMPAT) | THIN_SB_BIT(THIN_SBF_NO_ROOTS) | \
			  THIN_SB_BIT(THIN_SBF_DATA_BLOCK_SIZE))
#define THIN_SB_NONFATAL (THIN_SB_BIT(THIN_SBF_VERSION_OLD) | \
			  THIN_SB_BIT(THIN_SBF_METADATA_NR_BLOCKS))
#define THIN_SB_FATAL (((1u << THIN_SBF_NR_FAULTS) - 1) & ~THIN_SB_NONFATAL)

unsigned thin_sb_check(const struct thin_sb *sb, uint64_t where, uint64_t area_blocks);
/* The DATA_SIZE rule alone: can a data device of NR_DATA_BLOCKS have its
 * space map in NR_META_BLOCKS metadata blocks? (repair asks it of the area) */
int thin_sb_data_size_ok(uint64_t nr_data_blocks, uint64_t nr_meta_blocks);
/* A short static description ("unknown read-only features", ...). */
const char *thin_sb_fault_str(enum thin_sb_fault f);
/* Read and validate the superblock copy at block B of IO (no cache):
 * location, magic, checksum, then the unusable faults (logged, -EUCLEAN).
 * An all-zero block 0 is -ENODATA. */
int thin_sb_read(struct io_engine *io, uint64_t b, struct thin_sb *sb);

/* Inline: the walks of the device details tree decode every device with
 * it (20,000 of them a walk in a large pool). */
static inline void thin_details_unpack(const void *v, struct thin_ir_device *d)
{
	const char *p = v;
	d->mapped_blocks = le64_get(p);
	d->transaction = le64_get(p + 8);
	d->creation_time = le32_get(p + 16);
	d->snap_time = le32_get(p + 20);
}
void thin_details_pack(void *v, const struct thin_ir_device *d);

static inline uint64_t thin_bt_block(uint64_t bt) { return bt >> 24; }
static inline uint32_t thin_bt_time(uint64_t bt) { return (uint32_t)(bt & 0xffffff); }
static inline uint64_t thin_bt_pack(uint64_t block, uint32_t time)
{
	return (block << 24) | (time & 0xffffff);
}

#endif
