/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_builder.h - the metadata builder: struct thin_ir_visitor -> brand
 * new metadata written over an io_engine (tprestore, tprepair).
 *
 * Trees are built bottom-up in one pass: leaves full (the last two of a
 * level balanced, so every non-root node is at least half full), nodes
 * written in large sequential chunks as they fill (by a writer thread,
 * one chunk while the next fills), space maps computed from scratch at the
 * end (data counts = number of mapping entries naming a block, counted
 * here or given by thin_builder_take_counts; every metadata block has
 * count 1), then flush, then the superblock, then flush. Nothing in the
 * input is shared (no def/ref).
 *
 * Input rules (-EINVAL with a message): data_block_size 128..2097152 and a
 * multiple of 128; dev_id <= THIN_MAX_DEV_ID, ascending; runs ascending and
 * non-overlapping within a device; data blocks < nr_data_blocks; times <=
 * superblock time is NOT required (thin_dump output may violate it).
 * mapped_blocks in the device record is ignored: the builder writes the
 * real count. metadata_snap is ignored. Out of metadata space: -ENOSPC.
 *
 * Safety: the first write zeroes the output superblock; it is rewritten
 * only when everything else is on disk. If the build fails or is destroyed
 * before superblock_end succeeded, the superblock is left zeroed, so a half
 * written area never looks valid.
 *
 * Usage: thin_builder_create(out, &b); drive thin_builder_visitor(b) (the
 * visitor's superblock_end writes everything); thin_builder_destroy(b).
 * thin_builder_finished(b) says whether superblock_end completed. */
#ifndef TP_THIN_BUILDER_H
#define TP_THIN_BUILDER_H

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/thin/thin_ir.h"

struct thin_builder;

/* The reference counts of data blocks: the number of mapping entries
 * naming each (2 bits per block of the bitmaps used, a byte more for the
 * blocks of a bitmap named 3 or more times). */
struct thin_data_counts;

int thin_data_counts_create(uint64_t nr_data_blocks, struct thin_data_counts **c) TP_MUST_CHECK;
/* Data blocks D .. D+LEN-1 are named once more. -EINVAL past the end. */
int thin_data_counts_add(struct thin_data_counts *c, uint64_t d, uint64_t len) TP_MUST_CHECK;
/* Add B's counts (of as many data blocks) to A's; B is left in pieces, to
 * destroy. */
int thin_data_counts_merge(struct thin_data_counts *a, struct thin_data_counts *b) TP_MUST_CHECK;
/* How many blocks were named 3 or more times. */
uint64_t thin_data_counts_over(const struct thin_data_counts *c);
void thin_data_counts_destroy(struct thin_data_counts *c);

int thin_builder_create(struct io_engine *out, struct thin_builder **b) TP_MUST_CHECK;
/* B takes C (and frees it): C holds the counts of exactly the mappings B is
 * going to be given (counted while they were validated), so B counts none
 * itself. Before superblock_begin, whose nr_data_blocks must be C's. */
void thin_builder_take_counts(struct thin_builder *b, struct thin_data_counts *c);
const struct thin_ir_visitor *thin_builder_visitor(struct thin_builder *b);
int thin_builder_finished(struct thin_builder *b);
/* NULL ok. Zeroes the superblock unless finished. */
void thin_builder_destroy(struct thin_builder *b);

#endif
