/* SPDX-License-Identifier: GPL-2.0-or-later */
/* transaction_manager.h - copy-on-write over the block manager and the
 * metadata space map. Btrees and the thin layer change metadata only
 * through this (never through the block manager directly).
 *
 * Invariants (numbered; referred to in transaction_manager.c):
 *  I1. A block reachable from the committed superblock is never written
 *      before the next commit: it is shadowed (copied to a new block) first.
 *  I2. A block allocated or shadowed in this transaction (the "shadow set")
 *      is modified in place, unless its reference count has since become
 *      greater than one (a snapshot shares it): then it is shadowed again.
 *  I3. Blocks freed in this transaction are not reused before the commit
 *      (the space map refuses them), so I1 holds for freed blocks too.
 *  I4. The superblock (block 0) is written last, after every other dirty
 *      block has been written and flushed; it is the single commit point.
 *  I5. Shadowing a shared block (count > 1) reports inc_children: the
 *      caller must take one reference on everything the copy points to.
 *  I6. I4 is enforced, not assumed: tm_pre_commit refuses (-EBUSY) while
 *      the superblock is dirty or locked (it would reach the disk together
 *      with, not after, the blocks it points to); bm_flush refuses while
 *      any dirty block is still write locked (a leaked lock); tm_commit
 *      refuses while the superblock is locked or any other block is dirty
 *      (changed after the pre-commit, so not durable before the
 *      superblock). Each refusal logs the block number.
 *
 * States:
 *
 *     open --(new_block / shadow)--> dirty --(pre_commit: space maps written,
 *       ^                             |       all blocks but the superblock
 *       |                             |       flushed)--> precommitted
 *       |                          abort                      |
 *       +------(bm_forget, reload)----+          (superblock written, flushed)
 *       +-----------------------------------------------------+
 *
 * The metadata space map is reached through struct tm_space (the kernel's
 * dm_space_map idea): the transaction manager calls no space-map function
 * by name, so a space map can keep its own btree (the ref-count tree)
 * through a transaction manager of its own. tm_create() is the usual
 * case: a space_map.h map behind sm_tm_space.
 *
 * Returns 0 or -errno throughout. */
#ifndef TP_PDATA_TRANSACTION_MANAGER_H
#define TP_PDATA_TRANSACTION_MANAGER_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"

struct tm;

/* Where metadata blocks come from and how they are counted; CTX is the
 * first argument of every call. */
struct tm_space {
	int (*new_block)(void *ctx, uint64_t *b);
	int (*get)(void *ctx, uint64_t b, uint32_t *count);
	int (*inc)(void *ctx, uint64_t b);
	int (*dec)(void *ctx, uint64_t b);
};

/* sm_new_block, sm_get, sm_inc, sm_dec on a struct space_map (space_map.c). */
extern const struct tm_space sm_tm_space;

int tm_create_space(struct block_manager *bm, const struct tm_space *space, void *ctx,
		    struct tm **out) TP_MUST_CHECK;
static inline TP_MUST_CHECK int tm_create(struct block_manager *bm, struct space_map *meta_sm,
					  struct tm **out)
{
	return tm_create_space(bm, &sm_tm_space, meta_sm, out);
}
void tm_destroy(struct tm *tm);	/* NULL ok */

/* A fresh zeroed block, count 1, write locked (in the shadow set). */
int tm_new_block(struct tm *tm, const struct bm_validator *v, struct bm_block **out) TP_MUST_CHECK;
/* Write lock a copy of ORIG that may be modified (I1, I2, I5). */
int tm_shadow_block(struct tm *tm, uint64_t orig, const struct bm_validator *v,
		    struct bm_block **out, int *inc_children) TP_MUST_CHECK;
int tm_read_lock(struct tm *tm, uint64_t b, const struct bm_validator *v, struct bm_block **out)
	TP_MUST_CHECK;
void tm_unlock(struct tm *tm, struct bm_block *blk);
/* bm_prefetch of blocks B[0..N) (sorted in place), ahead of their locks. */
void tm_prefetch(struct tm *tm, uint64_t *b, unsigned n);

int tm_inc(struct tm *tm, uint64_t b) TP_MUST_CHECK;
int tm_dec(struct tm *tm, uint64_t b) TP_MUST_CHECK;
int tm_ref(struct tm *tm, uint64_t b, uint32_t *count) TP_MUST_CHECK;

/* Write every dirty block and flush (I4, first half). The superblock SB
 * must be neither dirty nor locked yet (I6). */
int tm_pre_commit(struct tm *tm, uint64_t sb) TP_MUST_CHECK;
/* Write the (already updated, unlocked) superblock SB and flush; the
 * shadow set is emptied (I4, second half). No other block may be dirty
 * (I6). */
int tm_commit(struct tm *tm, uint64_t sb) TP_MUST_CHECK;

#endif
