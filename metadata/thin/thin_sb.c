/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_sb.c - superblock and details packing, superblock validator. */
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "lib/base/le.h"
#include "metadata/thin/thin.h"

static void sb_prepare(void *d, uint64_t b)
{
	bm_header_prepare(d, b, THIN_SB_CSUM_XOR);
}

static int sb_check(const void *d, uint64_t b)
{
	/* the kernel's order: location, magic, checksum */
	if (bm_header_check_location(d, b, "superblock at block"))
		return -EUCLEAN;
	if (le64_get((const char *)d + 0x20) != THIN_SB_MAGIC) {
		log_error("superblock at block %" PRIu64 ": bad magic (not thin metadata)", b);
		return -EUCLEAN;
	}
	return bm_header_check_csum(d, b, THIN_SB_CSUM_XOR, "superblock at block");
}

static int sb_valid(const void *d, uint64_t b)
{
	return le64_get((const char *)d + 0x20) == THIN_SB_MAGIC &&
	       bm_header_valid(d, b, THIN_SB_CSUM_XOR);
}

const struct bm_validator thin_sb_validator = { "superblock", sb_prepare, sb_check, sb_valid };

void thin_sb_unpack(const void *block, struct thin_sb *sb)
{
	const char *p = block;

	sb->flags = le32_get(p + 0x04);
	sb->blocknr = le64_get(p + 0x08);
	sb->version = le32_get(p + 0x28);
	sb->time = le32_get(p + 0x2c);
	sb->trans_id = le64_get(p + 0x30);
	sb->held_root = le64_get(p + 0x38);
	sm_root_unpack(p + 0x40, &sb->data_sm);
	sm_root_unpack(p + 0xc0, &sb->meta_sm);
	sb->mapping_root = le64_get(p + 0x140);
	sb->details_root = le64_get(p + 0x148);
	sb->data_block_size = le32_get(p + 0x150);
	sb->metadata_block_size = le32_get(p + 0x154);
	sb->metadata_nr_blocks = le64_get(p + 0x158);
	sb->compat = le32_get(p + 0x160);
	sb->compat_ro = le32_get(p + 0x164);
	sb->incompat = le32_get(p + 0x168);
}

void thin_sb_pack(void *block, const struct thin_sb *sb)
{
	char *p = block;

	memset(p, 0, BM_BLOCK_SIZE);
	le32_put(p + 0x04, sb->flags);
	le64_put(p + 0x08, sb->blocknr);
	le64_put(p + 0x20, THIN_SB_MAGIC);
	le32_put(p + 0x28, sb->version);
	le32_put(p + 0x2c, sb->time);
	le64_put(p + 0x30, sb->trans_id);
	le64_put(p + 0x38, sb->held_root);
	sm_root_pack(p + 0x40, &sb->data_sm);
	sm_root_pack(p + 0xc0, &sb->meta_sm);
	le64_put(p + 0x140, sb->mapping_root);
	le64_put(p + 0x148, sb->details_root);
	le32_put(p + 0x150, sb->data_block_size);
	le32_put(p + 0x154, sb->metadata_block_size);
	le64_put(p + 0x158, sb->metadata_nr_blocks);
	le32_put(p + 0x160, sb->compat);
	le32_put(p + 0x164, sb->compat_ro);
	le32_put(p + 0x168, sb->incompat);
}

int thin_sb_data_size_ok(uint64_t nr_data_blocks, uint64_t nr_meta_blocks)
{
	/* every bitmap of the data space map occupies a metadata block */
	return nr_data_blocks <= THIN_MAX_DATA_BLOCKS &&
	       nr_data_blocks / SM_ENTRIES_PER_BITMAP < nr_meta_blocks;
}

unsigned thin_sb_check(const struct thin_sb *sb, uint64_t where, uint64_t area_blocks)
{
	unsigned m = 0;

	if (sb->incompat)
		m |= THIN_SB_BIT(THIN_SBF_INCOMPAT);
	if (!sb->mapping_root || !sb->details_root)
		m |= THIN_SB_BIT(THIN_SBF_NO_ROOTS);
	if (where == 0 && (sb->data_block_size < THIN_DATA_BLOCK_SIZE_MIN ||
			   sb->data_block_size > THIN_DATA_BLOCK_SIZE_MAX ||
			   sb->data_block_size % THIN_DATA_BLOCK_SIZE_MIN))
		m |= THIN_SB_BIT(THIN_SBF_DATA_BLOCK_SIZE);
	if (sb->version != THIN_SB_VERSION)
		m |= THIN_SB_BIT(sb->version == 1 ? THIN_SBF_VERSION_OLD : THIN_SBF_VERSION);
	if (sb->metadata_block_size != BM_BLOCK_SIZE / 512)
		m |= THIN_SB_BIT(THIN_SBF_METADATA_BLOCK_SIZE);
	if (sb->compat_ro)
		m |= THIN_SB_BIT(THIN_SBF_COMPAT_RO);
	if (sb->meta_sm.nr_blocks > area_blocks || sb->meta_sm.nr_blocks > THIN_METADATA_MAX_BLOCKS)
		return m | THIN_SB_BIT(THIN_SBF_META_SIZE);
	if (!thin_sb_data_size_ok(sb->data_sm.nr_blocks, sb->meta_sm.nr_blocks))
		return m | THIN_SB_BIT(THIN_SBF_DATA_SIZE);
	if (!sb->metadata_nr_blocks || sb->metadata_nr_blocks > sb->meta_sm.nr_blocks)
		m |= THIN_SB_BIT(THIN_SBF_METADATA_NR_BLOCKS);
	if (sb->held_root && sb->held_root >= sb->meta_sm.nr_blocks)
		m |= THIN_SB_BIT(THIN_SBF_HELD_ROOT);
	return m;
}

const char *thin_sb_fault_str(enum thin_sb_fault f)
{
	static const char *const str[THIN_SBF_NR_FAULTS] = {
		[THIN_SBF_INCOMPAT] = "unsupported incompatible features",
		[THIN_SBF_NO_ROOTS] = "missing tree roots",
		[THIN_SBF_DATA_BLOCK_SIZE] = "impossible data block size",
		[THIN_SBF_VERSION] = "unknown version",
		[THIN_SBF_VERSION_OLD] = "version 1",
		[THIN_SBF_METADATA_BLOCK_SIZE] = "metadata block size not 8 sectors",
		[THIN_SBF_COMPAT_RO] = "unknown read-only features",
		[THIN_SBF_META_SIZE] = "metadata space map larger than the area",
		[THIN_SBF_DATA_SIZE] = "impossible data device size",
		[THIN_SBF_METADATA_NR_BLOCKS] = "metadata_nr_blocks does not fit the space map",
		[THIN_SBF_HELD_ROOT] = "metadata snapshot beyond the end",
	};
	return (unsigned)f < THIN_SBF_NR_FAULTS ? str[f] : "unknown fault";
}

/* Log the unusable faults of M as thin_sb_read always has. */
static int refuse_unusable(const struct thin_sb *sb, uint64_t where, unsigned m)
{
	if (m & THIN_SB_BIT(THIN_SBF_INCOMPAT))
		log_error("superblock at block %" PRIu64 ": unsupported incompatible features %#"
			  PRIx32, where, sb->incompat);
	else if (m & THIN_SB_BIT(THIN_SBF_NO_ROOTS))
		log_error("superblock at block %" PRIu64 ": missing tree roots", where);
	else if (m & THIN_SB_BIT(THIN_SBF_DATA_BLOCK_SIZE))
		log_error("superblock: impossible data block size %" PRIu32 " sectors",
			  sb->data_block_size);
	else
		return 0;
	return -EUCLEAN;
}

int thin_sb_read(struct io_engine *io, uint64_t b, struct thin_sb *sb)
{
	unsigned char *d = malloc(BM_BLOCK_SIZE);
	int r;

	if (!d)
		return -ENOMEM;
	if ((uint64_t)(b + 1) * BM_BLOCK_SIZE > io->size) {
		log_error("%s: superblock at block %" PRIu64 " is beyond the end (truncated?)",
			  io->name, b);
		r = b ? -EUCLEAN : -ENODATA;
		goto out;
	}
	if ((r = io_read(io, b * BM_BLOCK_SIZE, d, BM_BLOCK_SIZE))) {
		log_error("%s: reading the superblock failed: %s", io->name, strerror(-r));
		goto out;
	}
	if (b == 0) {
		size_t i = 0;
		while (i < BM_BLOCK_SIZE && !d[i])
			i++;
		if (i == BM_BLOCK_SIZE) {
			r = -ENODATA;
			goto out;
		}
	}
	if ((r = sb_check(d, b)))
		goto out;
	thin_sb_unpack(d, sb);
	r = refuse_unusable(sb, b,
			    thin_sb_check(sb, b, io->size / BM_BLOCK_SIZE) & THIN_SB_UNUSABLE);
out:
	free(d);
	return r;
}

void thin_details_pack(void *v, const struct thin_ir_device *d)
{
	char *p = v;
	le64_put(p, d->mapped_blocks);
	le64_put(p + 8, d->transaction);
	le32_put(p + 16, d->creation_time);
	le32_put(p + 20, d->snap_time);
}
