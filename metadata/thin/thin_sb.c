/* thin_sb.c - superblock and details packing, superblock validator. */
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "metadata/pdata/le.h"
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

const struct bm_validator thin_sb_validator = { "superblock", sb_prepare, sb_check };

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

int thin_sb_sanity(const struct thin_sb *sb, uint64_t where)
{
	if (sb->incompat) {
		log_error("superblock at block %" PRIu64 ": unsupported incompatible features %#"
			  PRIx32, where, sb->incompat);
		return -EUCLEAN;
	}
	if (sb->mapping_root == 0 || sb->details_root == 0) {
		log_error("superblock at block %" PRIu64 ": missing tree roots", where);
		return -EUCLEAN;
	}
	if (where == 0 && (sb->data_block_size < THIN_DATA_BLOCK_SIZE_MIN ||
			   sb->data_block_size > THIN_DATA_BLOCK_SIZE_MAX ||
			   sb->data_block_size % THIN_DATA_BLOCK_SIZE_MIN)) {
		log_error("superblock: impossible data block size %" PRIu32 " sectors",
			  sb->data_block_size);
		return -EUCLEAN;
	}
	return 0;
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
	r = thin_sb_sanity(sb, b);
out:
	free(d);
	return r;
}

void thin_details_unpack(const void *v, struct thin_ir_device *d)
{
	const char *p = v;
	d->mapped_blocks = le64_get(p);
	d->transaction = le64_get(p + 8);
	d->creation_time = le32_get(p + 16);
	d->snap_time = le32_get(p + 20);
}

void thin_details_pack(void *v, const struct thin_ir_device *d)
{
	char *p = v;
	le64_put(p, d->mapped_blocks);
	le64_put(p + 8, d->transaction);
	le32_put(p + 16, d->creation_time);
	le32_put(p + 20, d->snap_time);
}
