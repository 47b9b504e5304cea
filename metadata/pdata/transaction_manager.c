/* SPDX-License-Identifier: GPL-2.0-or-later */
/* transaction_manager.c - shadowing and commit. The invariants I1..I5 and
 * the state diagram are in transaction_manager.h; each is marked below
 * where it is enforced. */
#include "metadata/pdata/transaction_manager.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/u64map.h"

struct tm {
	struct block_manager *bm;
	const struct tm_space *space;
	void *sm;	/* the space's ctx */
	struct u64map shadows;	/* blocks allocated or shadowed in this transaction */
};

int tm_create_space(struct block_manager *bm, const struct tm_space *space, void *ctx,
		    struct tm **out)
{
	struct tm *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return -ENOMEM;
	tm->bm = bm;
	tm->space = space;
	tm->sm = ctx;
	u64map_init(&tm->shadows);
	*out = tm;
	return 0;
}

void tm_destroy(struct tm *tm)
{
	if (!tm)
		return;
	u64map_destroy(&tm->shadows);
	free(tm);
}

int tm_new_block(struct tm *tm, const struct bm_validator *v, struct bm_block **out)
{
	uint64_t b;
	int r;

	/* I3: the space map hands out no block freed in this transaction */
	if ((r = tm->space->new_block(tm->sm, &b)))
		return r;
	if ((r = bm_write_lock_zero(tm->bm, b, v, out)))
		return r;
	if ((r = u64map_put(&tm->shadows, b, 1))) {
		bm_unlock(*out);
		return r;
	}
	return 0;
}

int tm_shadow_block(struct tm *tm, uint64_t orig, const struct bm_validator *v,
		    struct bm_block **out, int *inc_children)
{
	struct bm_block *src, *dst;
	uint32_t count;
	int r;

	if ((r = tm->space->get(tm->sm, orig, &count)))
		return r;
	if (!count) {
		log_error("metadata block %llu is referenced but free in the space map",
			  (unsigned long long)orig);
		return -EUCLEAN;
	}
	*inc_children = count > 1;	/* I5 */
	if (count == 1 && u64map_get(&tm->shadows, orig, NULL))
		return bm_write_lock(tm->bm, orig, v, out);	/* I2 */
	/* I1: copy, never touch the original */
	if ((r = bm_read_lock(tm->bm, orig, v, &src)))
		return r;
	if ((r = tm_new_block(tm, v, &dst))) {
		bm_unlock(src);
		return r;
	}
	memcpy(bm_block_data(dst), bm_block_data(src), BM_BLOCK_SIZE);
	bm_unlock(src);
	if ((r = tm->space->dec(tm->sm, orig))) {
		bm_unlock(dst);
		return r;
	}
	*out = dst;
	return 0;
}

int tm_read_lock(struct tm *tm, uint64_t b, const struct bm_validator *v, struct bm_block **out)
{
	return bm_read_lock(tm->bm, b, v, out);
}

void tm_prefetch(struct tm *tm, uint64_t *b, unsigned n)
{
	bm_prefetch(tm->bm, b, n);
}

void tm_unlock(struct tm *tm, struct bm_block *blk)
{
	(void)tm;
	bm_unlock(blk);
}

int tm_inc(struct tm *tm, uint64_t b)
{
	return tm->space->inc(tm->sm, b);
}

int tm_dec(struct tm *tm, uint64_t b)
{
	return tm->space->dec(tm->sm, b);
}

int tm_ref(struct tm *tm, uint64_t b, uint32_t *count)
{
	return tm->space->get(tm->sm, b, count);
}

static const char *lock_state(unsigned st)
{
	return (st & BM_STATE_WRITE_LOCKED) ? "write-locked" : "read-locked";
}

int tm_pre_commit(struct tm *tm, uint64_t sb)
{
	unsigned st = bm_state(tm->bm, sb);

	/* I6: the superblock is written only after this flush */
	if (st & (BM_STATE_READ_LOCKED | BM_STATE_WRITE_LOCKED)) {
		log_error("%s: superblock %" PRIu64 " is still %s at pre-commit",
			  bm_io(tm->bm)->name, sb, lock_state(st));
		return -EBUSY;
	}
	if (st & BM_STATE_DIRTY) {
		log_error("%s: superblock %" PRIu64 " is dirty at pre-commit: it would be "
			  "written together with the blocks it points to", bm_io(tm->bm)->name, sb);
		return -EBUSY;
	}
	return bm_flush(tm->bm);	/* I4: everything but the superblock */
}

int tm_commit(struct tm *tm, uint64_t sb)
{
	unsigned st = bm_state(tm->bm, sb);
	uint64_t other;
	int r;

	if (st & (BM_STATE_READ_LOCKED | BM_STATE_WRITE_LOCKED)) {	/* I6 */
		log_error("%s: superblock %" PRIu64 " is still %s at commit",
			  bm_io(tm->bm)->name, sb, lock_state(st));
		return -EBUSY;
	}
	if (bm_first_dirty_except(tm->bm, sb, &other)) {
		log_error("%s: metadata block %" PRIu64 " changed after the pre-commit: it "
			  "would not be on disk before superblock %" PRIu64,
			  bm_io(tm->bm)->name, other, sb);
		return -EBUSY;
	}
	r = bm_flush(tm->bm);	/* I4: now the superblock */

	if (!r)
		u64map_clear(&tm->shadows);
	return r;
}
