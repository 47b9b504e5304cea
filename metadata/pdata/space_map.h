/* SPDX-License-Identifier: GPL-2.0-or-later */
/* space_map.h - reference counts of metadata blocks and of data blocks,
 * in the kernel's on-disk format (bitmaps of 2-bit counts with the
 * reversed bit order, index entries, a ref-count btree for counts >= 3).
 *
 * Owns: the in-core state of one space map: the index (one entry per
 * 16320-block bitmap), bitmaps loaded on first use (at most 1024, 4 MiB:
 * unchanged ones beyond are dropped and re-read; changed ones stay until
 * the commit, or in a data map with sm_set_meta() are written out early),
 * the counts >= 3 changed since they last went into the ref-count tree
 * (at most 65536 in a data map with sm_set_meta(); a metadata map keeps
 * its few until the commit), and
 * the blocks freed in the current transaction (a bit each, 2 KiB per bitmap
 * with frees: they are not handed out again before commit, so the
 * committed trees stay intact on disk).
 * Unchanged counts >= 3 are read from the ref-count tree when asked for.
 *
 * Two kinds:
 *   SM_METADATA: index entries in one index block (at most 255 bitmaps);
 *                its own blocks (bitmaps, index block, ref-count tree
 *                nodes) are allocated from itself at commit.
 *   SM_DATA:     index entries in a btree (value 16 bytes); its blocks are
 *                allocated from the metadata space map passed to commit.
 *
 * Commit (sm_commit) writes every changed bitmap to a new location (the
 * committed one is never overwritten), puts the changed counts >= 3 into
 * the ref-count tree copy-on-write (only the paths to them are written),
 * rebuilds the index when it changed, frees the superseded blocks, and
 * fills the 32-byte root for the superblock: the work is proportional to
 * the change, not to the size of the map. Abort = destroy + reopen.
 * All functions return 0 or -errno; corrupt structures give -EUCLEAN. */
#ifndef TP_PDATA_SPACE_MAP_H
#define TP_PDATA_SPACE_MAP_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/u64map.h"

#define SM_ENTRIES_PER_BITMAP 16320u
#define SM_MAX_METADATA_BITMAPS 255u
#define SM_INDEX_ENTRY_SIZE 16u

#define SM_BITMAP_CSUM_XOR 240779u
#define SM_INDEX_CSUM_XOR 160478u

enum sm_kind { SM_METADATA, SM_DATA };

struct sm_root {
	uint64_t nr_blocks;
	uint64_t nr_allocated;
	uint64_t bitmap_root;	/* index block, or index btree root */
	uint64_t ref_count_root;
};

struct space_map;

extern const struct bm_validator sm_bitmap_validator;
extern const struct bm_validator sm_index_validator;

void sm_root_unpack(const void *disk, struct sm_root *r);
void sm_root_pack(void *disk, const struct sm_root *r);

/* A new, empty map of NR_BLOCKS (nothing on disk until commit). */
int sm_create(struct block_manager *bm, enum sm_kind kind, uint64_t nr_blocks,
	      struct space_map **out) TP_MUST_CHECK;
/* Open the committed map described by ROOT (the index is read now, bitmaps
 * on first use, counts >= 3 when asked for). */
int sm_open(struct block_manager *bm, enum sm_kind kind, const struct sm_root *root,
	    struct space_map **out) TP_MUST_CHECK;
void sm_destroy(struct space_map *sm);
/* A data map's ref-count tree nodes come from META, the metadata space map
 * (the one later passed to sm_commit): with it, changed counts >= 3 go into
 * the tree whenever too many are pending, instead of waiting in core for
 * the commit. */
void sm_set_meta(struct space_map *data, struct space_map *meta);

uint64_t sm_nr_blocks(const struct space_map *sm);
uint64_t sm_nr_allocated(const struct space_map *sm);
int sm_get(struct space_map *sm, uint64_t b, uint32_t *count) TP_MUST_CHECK;
int sm_set(struct space_map *sm, uint64_t b, uint32_t count) TP_MUST_CHECK;
int sm_inc(struct space_map *sm, uint64_t b) TP_MUST_CHECK;
/* Decrementing a free block is -EUCLEAN (logged). */
int sm_dec(struct space_map *sm, uint64_t b) TP_MUST_CHECK;
/* A block free in the current and in the committed state, count set to 1.
 * -ENOSPC when none. */
int sm_new_block(struct space_map *sm, uint64_t *b) TP_MUST_CHECK;
/* Grow to NR_BLOCKS (shrinking: -EINVAL; metadata above 255 bitmaps: -ENOSPC). */
int sm_extend(struct space_map *sm, uint64_t nr_blocks) TP_MUST_CHECK;
/* What growing a disk (data) space map from OLD_NR to NEW_NR blocks costs
 * in metadata blocks: the new bitmaps (*LEAST, what it takes at the very
 * least) and, returned, those plus the index btree's new nodes at half
 * fill (an upper estimate; the commit's shadow copies come and go). */
uint64_t sm_disk_grow_blocks(uint64_t old_nr, uint64_t new_nr, uint64_t *least);

/* Write the map. META is the metadata space map to allocate from (NULL
 * for SM_METADATA, which allocates from itself and must be committed
 * last; for SM_DATA the one of sm_set_meta, if set, else -EINVAL). ROOT
 * receives what goes into the superblock. */
int sm_commit(struct space_map *sm, struct space_map *meta, struct sm_root *root) TP_MUST_CHECK;

/* On-disk encoding helpers, shared with the from-scratch builder.
 * sm_bitmap_encode: the 510 words of a bitmap block (its 16-byte header
 * and checksum are the caller's) from WORDS (510 words of 32 two-bit
 * counts in the natural order, low bit first; NULL = all free); returns
 * nr_free over all 16320 entries and none_free_before.
 * sm_index_entry_pack: one 16-byte index entry. */
void sm_bitmap_encode(void *block, const uint64_t *words, uint32_t *nr_free, uint32_t *nfb);
void sm_index_entry_pack(void *entry, uint64_t bitmap_block, uint32_t nr_free, uint32_t nfb);

/* Call the function for every block the map itself occupies (bitmaps,
 * index block or index btree nodes, ref-count tree nodes, the last read
 * from the tree), as of the last commit or open. For reference checks. */
int sm_for_each_own_block(struct space_map *sm, int (*fn)(void *ctx, uint64_t b), void *ctx);

#endif
