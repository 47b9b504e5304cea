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
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/thin_ir.h"

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
/* Checks beyond the checksum: magic, sizes, feature flags. Logs, -EUCLEAN. */
int thin_sb_sanity(const struct thin_sb *sb, uint64_t where);
/* Read and validate the superblock copy at block B of IO (no cache).
 * An all-zero block 0 is -ENODATA. */
int thin_sb_read(struct io_engine *io, uint64_t b, struct thin_sb *sb);

void thin_details_unpack(const void *v, struct thin_ir_device *d);
void thin_details_pack(void *v, const struct thin_ir_device *d);

static inline uint64_t thin_bt_block(uint64_t bt) { return bt >> 24; }
static inline uint32_t thin_bt_time(uint64_t bt) { return (uint32_t)(bt & 0xffffff); }
static inline uint64_t thin_bt_pack(uint64_t block, uint32_t time)
{
	return (block << 24) | (time & 0xffffff);
}

#endif
