/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_ir.h - the intermediate representation of thin metadata: what
 * thin_dump's XML says, as a visitor interface.
 *
 * Readers drive a visitor: the metadata walker (on-disk -> visitor) and
 * the XML parser (XML -> visitor). Writers implement one: the XML and
 * human emitters (visitor -> text) and the metadata builder (visitor ->
 * fresh on-disk metadata, used by tprestore and tprepair).
 *
 * Call order: superblock_begin, then for each device in ascending dev_id:
 * device_begin, mappings (zero or more batches, ascending origin blocks,
 * runs never overlapping), device_end; finally superblock_end.
 * Every callback returns 0 or -errno; a non-zero return stops the driver,
 * which returns that value. Callbacks may be NULL (ignored). */
#ifndef TP_THIN_IR_H
#define TP_THIN_IR_H

#include <stddef.h>
#include <stdint.h>

struct thin_ir_superblock {
	uint32_t time;		/* snapshot counter */
	uint64_t transaction;	/* userspace transaction id */
	uint32_t flags;		/* superblock flags word (bit 0: NEEDS_CHECK) */
	uint32_t version;	/* 2 */
	uint32_t data_block_size;	/* in 512-byte sectors */
	uint64_t nr_data_blocks;
	uint64_t metadata_snap;	/* block of the metadata snapshot, 0 = none */
};

struct thin_ir_device {
	uint64_t dev_id;
	uint64_t mapped_blocks;
	uint64_t transaction;
	uint32_t creation_time;
	uint32_t snap_time;
};

/* A run of LENGTH (>= 1) consecutive virtual blocks mapped to consecutive
 * data blocks, all stamped with TIME. */
struct thin_ir_mapping {
	uint64_t origin_begin;
	uint64_t data_begin;
	uint64_t length;
	uint32_t time;
};

struct thin_ir_visitor {
	void *ctx;
	int (*superblock_begin)(void *ctx, const struct thin_ir_superblock *sb);
	int (*superblock_end)(void *ctx);
	int (*device_begin)(void *ctx, const struct thin_ir_device *dev);
	int (*device_end)(void *ctx);
	int (*mappings)(void *ctx, const struct thin_ir_mapping *runs, size_t n);
};

#endif
