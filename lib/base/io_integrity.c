/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_integrity.c - a leg's dm-integrity tags kept offline. See io.h.
 *
 * dm-integrity with a separate metadata device (the kernel's
 * drivers/md/dm-integrity.c, read for facts: get_data_sector maps the
 * data 1:1; the superblock, the journal sections and then the tags lie on
 * the metadata device) keeps, for every block of BLOCK bytes of the data,
 * a tag: the CRC-32C of the block's first 512-byte sector number (little
 * endian, 8 bytes) followed by the block, stored little endian, 4 bytes a
 * block, from sector 8 + JOURNAL_SECTIONS x SECTION_SECTORS of the
 * metadata device on. Its superblock (sector 0) says how it was formatted:
 *
 *   0x00 magic "integrt\0"  0x08 u8 version  0x09 u8 log2_interleave_sectors
 *   0x0a le16 tag_size  0x0c le32 journal_sections  0x10 le64 provided_data_sectors
 *   0x18 le32 flags  0x1c u8 log2_sectors_per_block  0x1d u8 log2_blocks_per_bitmap_bit
 *   0x20 le64 recalc_sector
 *
 * This engine writes what the kernel would: after each write of a
 * region's data, the tag of every 4 KiB block it touched. It keeps tags
 * only for the one format tptools loads (4 KiB blocks, crc32c tags of 4
 * bytes, no interleaving, no MAC, a data size the superblock covers);
 * a region whose superblock is all zeros is new (the kernel formats it
 * and recalculates every tag at activation: nothing to keep), and one
 * whose superblock is anything else has its superblock zeroed before its
 * first data write, so that the kernel formats it anew. Reads pass
 * through: the thin metadata's own checksums find damage offline. A write
 * of a region's block 0 (the thin superblock, the block a commit writes
 * in place) is flushed with its tag before the write returns, so a crash
 * tears at most the leg being written (the mirror writes its legs in
 * turn). */
#include "lib/base/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/crc32c.h"
#include "lib/base/le.h"

#define IB 4096u		/* the block size tptools formats */
#define SECTION_SECTORS 392u	/* a journal section of 4 KiB blocks, crc32c tags */
#define SB_FLAG_MAC 0x1u	/* journal MAC */
#define SB_FLAG_FIXED_HMAC 0x10u
#define SB_FLAG_INLINE 0x20u

enum region_state { R_FRESH, R_TAGS, R_RESET };

struct region {
	struct io_integrity_region r;
	enum region_state st;
	uint64_t tags_off;	/* byte offset of block 0's tag on the leg */
};

struct io_integ {
	struct io_engine e;
	struct io_engine *leg;
	int own;
	unsigned n;
	struct region reg[];
};

static int it_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	return io_read(TP_CONTAINER_OF(e, struct io_integ, e)->leg, off, buf, len);
}

/* What region G's superblock (the SB bytes read) says. */
static enum region_state judge(struct region *g, const unsigned char *sb)
{
	static const unsigned char zero[512];
	uint64_t tags_end;

	if (!memcmp(sb, zero, sizeof(zero)))
		return R_FRESH;
	if (memcmp(sb, "integrt", 8) || sb[8] < 1 || sb[8] > 7 || sb[9] != 0 ||
	    (sb[0x0a] | sb[0x0b] << 8) != 4 || sb[0x1c] != 3 ||
	    (le32_get(sb + 0x18) & (SB_FLAG_MAC | SB_FLAG_FIXED_HMAC | SB_FLAG_INLINE)) ||
	    !le32_get(sb + 0x0c) || le32_get(sb + 0x0c) > 1024 ||
	    le64_get(sb + 0x10) != g->r.data_len / 512)
		return R_RESET;
	g->tags_off = g->r.meta_off + (8 + (uint64_t)le32_get(sb + 0x0c) * SECTION_SECTORS) * 512;
	tags_end = g->tags_off + g->r.data_len / IB * 4;
	return tags_end > g->r.meta_off + g->r.meta_len ? R_RESET : R_TAGS;
}

/* The tag of 4 KiB block B of a region, its content DATA. */
static uint32_t tag_of(uint64_t b, const void *data)
{
	unsigned char sector[8];

	le64_put(sector, b * (IB / 512));
	return tp_crc32c(tp_crc32c(0xffffffffu, sector, 8), data, IB) ^ 0xffffffffu;
}

/* Write the tags of blocks FIRST..LAST of region G, BUF holding the data
 * written at OFF..OFF+LEN of the leg (blocks it holds only in part are
 * read back from the leg). The tags are written sector by sector. */
static int put_tags(struct io_integ *t, struct region *g, uint64_t first, uint64_t last,
		    uint64_t off, const unsigned char *buf, size_t len)
{
	unsigned char *blk = NULL, sec[512];
	uint64_t s0 = (g->tags_off + first * 4) / 512 * 512;
	int r = 0;

	for (uint64_t s = s0; !r && s <= g->tags_off + last * 4; s += 512) {
		if ((r = io_read(t->leg, s, sec, sizeof(sec))))
			break;
		for (uint64_t b = first; b <= last && !r; b++) {
			uint64_t at = g->tags_off + b * 4, boff = g->r.data_off + b * IB;
			const unsigned char *data;

			if (at < s || at >= s + 512)
				continue;
			if (boff >= off && boff + IB <= off + len) {
				data = buf + (boff - off);
			} else {
				if (!blk && !(blk = malloc(IB))) {
					r = -ENOMEM;
					break;
				}
				if ((r = io_read(t->leg, boff, blk, IB)))
					break;
				data = blk;
			}
			le32_put(sec + (at - s), tag_of(b, data));
		}
		if (!r)
			r = io_write(t->leg, s, sec, sizeof(sec));
	}
	free(blk);
	return r;
}

static int it_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	struct io_integ *t = TP_CONTAINER_OF(e, struct io_integ, e);
	static const unsigned char zero[IB];
	int r;

	/* a region whose superblock tptools cannot keep tags for is reset
	 * before its data changes: the kernel formats it anew */
	for (unsigned i = 0; i < t->n; i++) {
		struct region *g = &t->reg[i];

		if (g->st == R_RESET && off < g->r.data_off + g->r.data_len &&
		    g->r.data_off < off + len) {
			if ((r = io_write(t->leg, g->r.meta_off, zero, sizeof(zero))) ||
			    (r = io_flush(t->leg)))
				return r;
			g->st = R_FRESH;
		}
	}
	if ((r = io_write(t->leg, off, buf, len)))
		return r;
	for (unsigned i = 0; i < t->n; i++) {
		struct region *g = &t->reg[i];
		uint64_t lo, hi;

		if (g->st != R_TAGS || off >= g->r.data_off + g->r.data_len ||
		    g->r.data_off >= off + len)
			continue;
		lo = TP_MAX(off, g->r.data_off) - g->r.data_off;
		hi = TP_MIN(off + len, g->r.data_off + g->r.data_len) - g->r.data_off;
		if ((r = put_tags(t, g, lo / IB, (hi - 1) / IB, off, buf, len)))
			return r;
		if (lo < IB && (r = io_flush(t->leg)))	/* block 0: with its tag, now */
			return r;
	}
	return 0;
}

static int it_flush(struct io_engine *e)
{
	return io_flush(TP_CONTAINER_OF(e, struct io_integ, e)->leg);
}

static void it_destroy(struct io_engine *e)
{
	struct io_integ *t = TP_CONTAINER_OF(e, struct io_integ, e);

	if (t->own)
		io_destroy(t->leg);
	free(e->name);
	free(t);
}

static const struct io_ops integ_ops = { it_read, it_write, it_flush, it_destroy };

int io_integrity_create(struct io_engine *leg, const struct io_integrity_region *reg, unsigned n,
			int own, struct io_engine **out)
{
	unsigned char sb[512];
	struct io_integ *t;
	int r;

	*out = NULL;
	t = calloc(1, sizeof(*t) + n * sizeof(t->reg[0]));
	if (!t || !(t->e.name = strdup(leg->name))) {
		free(t);
		return -ENOMEM;
	}
	t->e.ops = &integ_ops;
	t->e.size = leg->size;
	t->e.read_only = leg->read_only;
	t->leg = leg;
	t->own = own;
	t->n = n;
	for (unsigned i = 0; i < n; i++) {
		struct region *g = &t->reg[i];

		g->r = reg[i];
		if (reg[i].data_off % IB || reg[i].data_len % IB || reg[i].meta_off % 512 ||
		    reg[i].meta_off + reg[i].meta_len > leg->size) {
			free(t->e.name);
			free(t);
			return -EINVAL;
		}
		if ((r = io_read(leg, reg[i].meta_off, sb, sizeof(sb)))) {
			free(t->e.name);
			free(t);
			return r;
		}
		g->st = judge(g, sb);
	}
	*out = &t->e;
	return 0;
}

int io_integrity_tag(uint64_t block, const void *data, uint32_t *tag)
{
	*tag = tag_of(block, data);
	return 0;
}
