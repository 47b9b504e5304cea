/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pack.h - thin_metadata_pack's file format (version 3), both ways.
 *
 * A pack holds the checksummed 4 KiB blocks of a metadata area (any block
 * whose crc32c matches one of the persistent-data block types: thin, cache
 * or era superblock, btree node, space-map index or bitmap, array), each
 * with its block number; every other block unpacks as zeros. Layout, all
 * little-endian:
 *
 *   header   u64 magic 0xa537a0aa6309ef77, u64 version 3, u64 block size
 *            4096, u64 number of blocks of the area
 *   chunks   u64 length, then that many bytes of one zlib stream; the
 *            stream holds up to 1024 records: u64 block number, then the
 *            block's instructions for a small byte-code machine (a base
 *            register; set, add, subtract, repeat, literal, and a run of
 *            u64s split into high 40 and low 24 bits), which emit exactly
 *            4096 bytes
 *
 * A btree node's keys and values are coded as runs of deltas; every other
 * block as one literal. pack_write writes the byte code thin_metadata_pack
 * 1.1.0 writes for the same block (the unit tests and t-pack compare the
 * decompressed streams) and its records in block order; a node whose
 * header does not fit its block (which 1.1.0 refuses to pack) goes as one
 * literal.
 *
 * pack_read checks everything before it hands a block on: the header, each
 * chunk's length and zlib stream, each instruction (no write past a block's
 * end, no unknown tag or width), that a block decodes to exactly 4096 bytes
 * with a valid checksum, lies inside the area and comes once. A damaged pack
 * is -EUCLEAN after one logged message naming NAME, the byte offset of the
 * chunk and what is wrong; nothing it allocates depends on a size read from
 * the pack. Both return 0 or -errno. */
#ifndef TP_METADATA_PDATA_PACK_H
#define TP_METADATA_PDATA_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "lib/base/progress.h"

#define PACK_MAGIC 0xa537a0aa6309ef77ull
#define PACK_VERSION 3
#define PACK_BLOCK_SIZE 4096u
#define PACK_HEADER_SIZE 32u
#define PACK_CHUNK_BLOCKS 1024u	/* records in one zlib stream */

/* Where pack_write's bytes go: 0 or -errno. */
typedef int pack_out_fn(void *ctx, const void *buf, size_t len);

/* Pack the first NR_BLOCKS (>= 1) blocks of SRC. PROGRESS (may be NULL)
 * is told the blocks read so far of NR_BLOCKS. */
int pack_write(struct io_engine *src, uint64_t nr_blocks, pack_out_fn *out, void *out_ctx,
	       tp_progress_fn *progress, void *progress_ctx) TP_MUST_CHECK;

/* One unpacked block: 0 or -errno (which ends pack_read). */
/* Headers counting more blocks are damaged (2^40 blocks: 4 PiB). */
#define PACK_MAX_BLOCKS (1ull << 40)

/* The 32-byte header at HEAD: 0 and *NR_BLOCKS, -EUCLEAN (logged, naming
 * NAME and what is wrong: no magic number, XML given as a pack, another
 * version or block size, no blocks or implausibly many) or -ENOSPC (more
 * blocks than MAX_BLOCKS, the target's). */
int pack_header(const void *head, const char *name, uint64_t max_blocks, uint64_t *nr_blocks)
	TP_MUST_CHECK;
/* Do the LEN bytes at HEAD start with the pack magic number? */
int pack_is_pack(const void *head, size_t len);

typedef int pack_block_fn(void *ctx, uint64_t b, const unsigned char *block);

/* Read the pack of LEN bytes at PACK (named NAME in messages): -ENOSPC,
 * logged, when its area is larger than MAX_BLOCKS blocks; else every block
 * to FN (may be NULL: validate only). *NR_BLOCKS (the area's size in
 * blocks, from the header) and *NR_PACKED (blocks held) are set on
 * success; either pointer may be NULL. */
int pack_read(const void *pack, size_t len, const char *name, uint64_t max_blocks,
	      pack_block_fn *fn, void *ctx, uint64_t *nr_blocks, uint64_t *nr_packed)
	TP_MUST_CHECK;

#endif
