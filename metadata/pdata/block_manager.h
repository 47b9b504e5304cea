/* SPDX-License-Identifier: GPL-2.0-or-later */
/* block_manager.h - 4 KiB metadata blocks over an io_engine, with a
 * bounded cache, validators and read/write locks.
 *
 * Owns: the cache (one 4 KiB buffer per slot, LRU eviction of unlocked
 * blocks; a dirty block is written out when evicted; the buffers come from
 * slabs that are reused and freed by bm_destroy). The io_engine is the
 * caller's.
 *
 * Validators: every lock names the block type's validator. On read the
 * validator's check runs once (cached until the block is re-locked with a
 * different validator); before every write its prepare stores the block
 * number and checksum. check returns 0 or -EUCLEAN and logs the block.
 * On an engine with two copies (mirrored thin metadata, io.h) a block is
 * read through io_read_valid: a copy that fails the validator is read
 * from the other leg, and rewritten from it when the engine is writable,
 * so one leg's bad block never fails a command while the other holds it
 * good.
 *
 * Locks: any number of read locks, or one write lock; a conflicting lock
 * is -EBUSY (logged: a loop in a corrupt tree causes this). Blocks beyond
 * the area are -EUCLEAN (a pointer out of range is corruption).
 *
 * Writes: dirty blocks reach the disk when evicted or at bm_flush(), which
 * writes every dirty block (ascending block number, merged into large
 * writes) and then flushes the engine. bm_forget() drops the cache,
 * dirty blocks included (abort).
 *
 * Flush invariant: a write-locked block may be half updated, so bm_flush
 * refuses (-EBUSY, writing nothing) while any dirty block is still write
 * locked, and logs each such block by number. A leaked lock therefore
 * fails the commit instead of letting a superblock point at a block that
 * never reached the disk. */
#ifndef TP_PDATA_BLOCK_MANAGER_H
#define TP_PDATA_BLOCK_MANAGER_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

#define BM_BLOCK_SIZE 4096u

struct bm_validator {
	const char *name;
	/* Set the block number and checksum of DATA for location B. */
	void (*prepare)(void *data, uint64_t b);
	/* 0 or -EUCLEAN (logs which block and why). */
	int (*check)(const void *data, uint64_t b);
	/* 1 when CHECK would pass, silently: what a read from an engine
	 * with two copies (a mirror) asks of each copy before it takes one
	 * (io_read_valid); NULL: the first copy is taken. */
	int (*valid)(const void *data, uint64_t b);
};

/* The header every checksummed block type shares: a little-endian crc32c
 * (bytes 4..4095, xor the type's SALT) at offset 0 and the block's own
 * location at offset 8. Validators build on these. prepare stores both;
 * the checks return 0 or -EUCLEAN after logging "WHAT B: ...". */
void bm_header_prepare(void *data, uint64_t b, uint32_t salt);
int bm_header_check_location(const void *data, uint64_t b, const char *what);
int bm_header_check_csum(const void *data, uint64_t b, uint32_t salt, const char *what);
/* Location, then checksum. */
int bm_header_check(const void *data, uint64_t b, uint32_t salt, const char *what);
/* Both, silently: 1 when the header is right (readers that report damage
 * their own way, like the checker). */
int bm_header_valid(const void *data, uint64_t b, uint32_t salt);

struct block_manager;
struct bm_block;

int bm_create(struct io_engine *io, unsigned cache_blocks, struct block_manager **out)
	TP_MUST_CHECK;
void bm_destroy(struct block_manager *bm);	/* NULL ok; does not flush */
struct io_engine *bm_io(struct block_manager *bm);
uint64_t bm_nr_blocks(struct block_manager *bm);	/* io size / 4096 */

int bm_read_lock(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		 struct bm_block **out) TP_MUST_CHECK;
int bm_write_lock(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		  struct bm_block **out) TP_MUST_CHECK;
/* Write lock without reading: the buffer is zeroed. */
int bm_write_lock_zero(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		       struct bm_block **out) TP_MUST_CHECK;
void bm_unlock(struct bm_block *blk);
void *bm_block_data(struct bm_block *blk);
uint64_t bm_block_location(struct bm_block *blk);

int bm_flush(struct block_manager *bm) TP_MUST_CHECK;

/* What the cache holds of block B (0: not cached, clean and unlocked). */
enum bm_state_flags {
	BM_STATE_DIRTY = 1 << 0,
	BM_STATE_READ_LOCKED = 1 << 1,
	BM_STATE_WRITE_LOCKED = 1 << 2,
};
unsigned bm_state(struct block_manager *bm, uint64_t b);
/* 1 and the lowest dirty block other than EXCEPT in *B, or 0 if none. */
int bm_first_dirty_except(struct block_manager *bm, uint64_t except, uint64_t *b);
/* Largest merged write at flush, in blocks (1..256, default 256). Crash
 * tests set 1 so that every block is a write of its own they can cut. */
void bm_set_max_io(struct block_manager *bm, unsigned blocks);
void bm_forget(struct block_manager *bm);
/* Read blocks B[0..N) (sorted in place) into the cache ahead of their
 * read locks, a run of neighbours in one read; best effort: a lock
 * reads, checks and reports as ever. */
void bm_prefetch(struct block_manager *bm, uint64_t *b, unsigned n);
int bm_has_dirty(struct block_manager *bm);

#endif
