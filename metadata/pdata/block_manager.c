/* SPDX-License-Identifier: GPL-2.0-or-later */
/* block_manager.c - bounded block cache with validators. See block_manager.h. */
#include "metadata/pdata/block_manager.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "lib/base/le.h"
#include "metadata/pdata/u64map.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define BM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define BM_POISON(p, n) ((void)(p), (void)(n))
#define BM_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct bm_block {
	struct block_manager *bm;
	uint64_t b;
	unsigned char *data;
	const struct bm_validator *checked;	/* validator that passed, or NULL */
	int read_locks;
	int write_locked;
	int dirty;
	struct bm_block *prev, *next;	/* LRU list of unlocked blocks; next: the free list */
};

/* Blocks are carved from slabs (a run of buffers in one aligned
 * allocation, their headers in the slab) and go back to a free list,
 * not to malloc one by one: a 4 KiB aligned buffer and a header of their
 * own cost about 1,400 instructions a block, and an open of a pool of
 * 20,000 volumes reads about 500 blocks. The slabs grow from 16 blocks
 * to 256 and are freed with the block manager; what they hold is bounded
 * by the cache's size, as before. A free block's buffer is poisoned for
 * ASan, as a freed one was. */
#define BM_SLAB_MIN 16u
#define BM_SLAB_MAX 256u

struct bm_slab {
	struct bm_slab *next;
	unsigned char *data;	/* nr * BM_BLOCK_SIZE, 4 KiB aligned */
	unsigned nr;
	struct bm_block blocks[];
};

struct block_manager {
	struct io_engine *io;
	uint64_t nr_blocks;
	unsigned max_blocks;
	unsigned nr_cached;
	struct u64map index;	/* block -> struct bm_block * */
	struct bm_block lru;	/* sentinel: next = least recently used */
	unsigned nr_dirty;
	unsigned max_io;	/* blocks per merged write */
	struct bm_slab *slabs;
	struct bm_block *free;	/* blocks of the slabs not in use, through next */
	unsigned next_slab;	/* blocks of the next slab */
};

static struct bm_block *block_alloc(struct block_manager *bm)
{
	struct bm_block *blk;

	if (!bm->free) {
		unsigned nr = bm->next_slab ? bm->next_slab : BM_SLAB_MIN;
		struct bm_slab *s = calloc(1, sizeof(*s) + nr * sizeof(s->blocks[0]));

		if (!s)
			return NULL;
		if (posix_memalign((void **)&s->data, 4096, (size_t)nr * BM_BLOCK_SIZE)) {
			free(s);
			return NULL;
		}
		s->nr = nr;
		s->next = bm->slabs;
		bm->slabs = s;
		bm->next_slab = nr < BM_SLAB_MAX ? nr * 2 : BM_SLAB_MAX;
		for (unsigned i = nr; i-- > 0;) {
			s->blocks[i].data = s->data + (size_t)i * BM_BLOCK_SIZE;
			s->blocks[i].next = bm->free;
			bm->free = &s->blocks[i];
			BM_POISON(s->blocks[i].data, BM_BLOCK_SIZE);
		}
	}
	blk = bm->free;
	bm->free = blk->next;
	*blk = (struct bm_block){ .bm = bm, .data = blk->data };
	BM_UNPOISON(blk->data, BM_BLOCK_SIZE);
	return blk;
}

static void block_release(struct block_manager *bm, struct bm_block *blk)
{
	BM_POISON(blk->data, BM_BLOCK_SIZE);
	blk->next = bm->free;
	bm->free = blk;
}

static void lru_remove(struct bm_block *blk)
{
	if (blk->next) {
		blk->prev->next = blk->next;
		blk->next->prev = blk->prev;
		blk->prev = blk->next = NULL;
	}
}

static void lru_add_tail(struct block_manager *bm, struct bm_block *blk)
{
	blk->prev = bm->lru.prev;
	blk->next = &bm->lru;
	bm->lru.prev->next = blk;
	bm->lru.prev = blk;
}

int bm_create(struct io_engine *io, unsigned cache_blocks, struct block_manager **out)
{
	struct block_manager *bm = calloc(1, sizeof(*bm));

	if (!bm)
		return -ENOMEM;
	bm->io = io;
	bm->nr_blocks = io->size / BM_BLOCK_SIZE;
	bm->max_blocks = cache_blocks < 16 ? 16 : cache_blocks;
	bm->max_io = 256;
	u64map_init(&bm->index);
	bm->lru.prev = bm->lru.next = &bm->lru;
	*out = bm;
	return 0;
}

static void free_block(struct block_manager *bm, struct bm_block *blk)
{
	lru_remove(blk);
	u64map_del(&bm->index, blk->b);
	if (blk->dirty)
		bm->nr_dirty--;
	bm->nr_cached--;
	block_release(bm, blk);
}

void bm_forget(struct block_manager *bm)
{
	size_t pos = 0;
	uint64_t k, v;

	while (u64map_next(&bm->index, &pos, &k, &v)) {
		struct bm_block *blk = (struct bm_block *)(uintptr_t)v;
		lru_remove(blk);
		block_release(bm, blk);
	}
	u64map_clear(&bm->index);
	bm->nr_cached = 0;
	bm->nr_dirty = 0;
}

void bm_destroy(struct block_manager *bm)
{
	if (!bm)
		return;
	bm_forget(bm);
	u64map_destroy(&bm->index);
	while (bm->slabs) {
		struct bm_slab *s = bm->slabs;

		bm->slabs = s->next;
		BM_UNPOISON(s->data, (size_t)s->nr * BM_BLOCK_SIZE);
		free(s->data);
		free(s);
	}
	free(bm);
}

struct io_engine *bm_io(struct block_manager *bm)
{
	return bm->io;
}

uint64_t bm_nr_blocks(struct block_manager *bm)
{
	bm->nr_blocks = bm->io->size / BM_BLOCK_SIZE;
	return bm->nr_blocks;
}

int bm_has_dirty(struct block_manager *bm)
{
	return bm->nr_dirty > 0;
}

static int write_block(struct block_manager *bm, struct bm_block *blk)
{
	int r;

	if (blk->checked && blk->checked->prepare)
		blk->checked->prepare(blk->data, blk->b);
	r = io_write(bm->io, blk->b * BM_BLOCK_SIZE, blk->data, BM_BLOCK_SIZE);
	if (r) {
		log_error("%s: writing metadata block %" PRIu64 " failed: %s", bm->io->name,
			  blk->b, strerror(-r));
		return r;
	}
	blk->dirty = 0;
	bm->nr_dirty--;
	return 0;
}

/* Make room for one more block: evict the least recently used unlocked one. */
static int make_room(struct block_manager *bm)
{
	while (bm->nr_cached >= bm->max_blocks) {
		struct bm_block *victim = bm->lru.next;
		int r;

		if (victim == &bm->lru)
			return 0;	/* everything locked: grow past the bound */
		if (victim->dirty && (r = write_block(bm, victim)))
			return r;
		free_block(bm, victim);
	}
	return 0;
}

static int valid_copy(const void *data, uint64_t b, void *ctx)
{
	const struct bm_validator *v = ctx;
	return v->valid(data, b);
}

/* Block B from the engine into DATA: through io_read_valid when it has
 * two copies and V can tell a good one silently. */
static int read_block(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		      unsigned char *data)
{
	if (v && v->valid && io_copies(bm->io) > 1)
		return io_read_valid(bm->io, b * BM_BLOCK_SIZE, data, 1, BM_BLOCK_SIZE,
				     valid_copy, (void *)v, IO_HEAL);
	return io_read(bm->io, b * BM_BLOCK_SIZE, data, BM_BLOCK_SIZE);
}

static int get_block(struct block_manager *bm, uint64_t b, int read,
		     const struct bm_validator *val, struct bm_block **out)
{
	uint64_t v;
	struct bm_block *blk;
	int r;

	if (b >= bm_nr_blocks(bm)) {
		log_error("%s: metadata block %" PRIu64 " is beyond the end of the area (%" PRIu64
			  " blocks)", bm->io->name, b, bm->nr_blocks);
		return -EUCLEAN;
	}
	if (u64map_get(&bm->index, b, &v)) {
		*out = (struct bm_block *)(uintptr_t)v;
		return 0;
	}
	if ((r = make_room(bm)))
		return r;
	if (!(blk = block_alloc(bm)))
		return -ENOMEM;
	blk->b = b;
	if (read) {
		r = read_block(bm, b, val, blk->data);
		if (r) {
			log_error("%s: reading metadata block %" PRIu64 " failed: %s", bm->io->name,
				  b, strerror(-r));
			block_release(bm, blk);
			return r;
		}
	} else {
		memset(blk->data, 0, BM_BLOCK_SIZE);
	}
	if ((r = u64map_put(&bm->index, b, (uint64_t)(uintptr_t)blk))) {
		block_release(bm, blk);
		return r;
	}
	bm->nr_cached++;
	lru_add_tail(bm, blk);
	*out = blk;
	return 0;
}

static int cmp_u64b(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Blocks B[0..N) (B is sorted here) into the cache ahead of their locks,
 * each run of neighbours in one read: a walk of a tree's leaves at every
 * open (20,000 devices: about 950 nodes) read them one pread each. Only
 * what is not cached yet, at most half the cache, and nothing on an
 * engine with copies (whose reads choose a copy per block); a read that
 * fails leaves its blocks to their locks, which read and say why. The
 * blocks are checked by their validators when locked, as any read. */
void bm_prefetch(struct block_manager *bm, uint64_t *b, unsigned n)
{
	unsigned char *buf = NULL;
	unsigned i = 0, j, k, room = bm->max_blocks / 2;

	if (n < 2 || io_copies(bm->io) > 1)
		return;
	qsort(b, n, sizeof(*b), cmp_u64b);
	while (i < n && room) {
		uint64_t v;

		if (b[i] >= bm_nr_blocks(bm) || u64map_get(&bm->index, b[i], &v) ||
		    (i && b[i] == b[i - 1])) {
			i++;
			continue;
		}
		for (j = i + 1; j < n && j - i < room && j - i < bm->max_io && b[j] == b[j - 1] + 1 &&
				b[j] < bm->nr_blocks && !u64map_get(&bm->index, b[j], &v);
		     j++)
			;
		if (j - i < 2) {	/* (alone: its lock reads it as well) */
			i = j;
			continue;
		}
		if (!buf && !(buf = malloc((size_t)TP_MIN(room, bm->max_io) * BM_BLOCK_SIZE)))
			return;
		if (io_read(bm->io, b[i] * BM_BLOCK_SIZE, buf, (size_t)(j - i) * BM_BLOCK_SIZE)) {
			i = j;
			continue;
		}
		for (k = i; k < j; k++) {
			struct bm_block *blk;

			if (make_room(bm) || !(blk = block_alloc(bm)))
				goto out;
			blk->b = b[k];
			memcpy(blk->data, buf + (size_t)(k - i) * BM_BLOCK_SIZE, BM_BLOCK_SIZE);
			if (u64map_put(&bm->index, b[k], (uint64_t)(uintptr_t)blk)) {
				block_release(bm, blk);
				goto out;
			}
			bm->nr_cached++;
			lru_add_tail(bm, blk);
			room--;
		}
		i = j;
	}
out:
	free(buf);
}

static int validate(struct bm_block *blk, const struct bm_validator *v)
{
	int r;

	if (blk->checked == v || !v)
		return 0;
	if (blk->dirty) {	/* our own content: trust it, adopt the new type */
		blk->checked = v;
		return 0;
	}
	if (v->check && (r = v->check(blk->data, blk->b)))
		return r;
	blk->checked = v;
	return 0;
}

static void busy(struct bm_block *blk)
{
	log_error("%s: metadata block %" PRIu64 " is already locked (a loop in a tree?)",
		  blk->bm->io->name, blk->b);
}

int bm_read_lock(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		 struct bm_block **out)
{
	struct bm_block *blk;
	int r = get_block(bm, b, 1, v, &blk);

	if (r)
		return r;
	if (blk->write_locked) {
		busy(blk);
		return -EBUSY;
	}
	if ((r = validate(blk, v)))
		return r;
	lru_remove(blk);
	blk->read_locks++;
	*out = blk;
	return 0;
}

static int wlock(struct block_manager *bm, uint64_t b, const struct bm_validator *v, int zero,
		 struct bm_block **out)
{
	struct bm_block *blk;
	int r = get_block(bm, b, !zero, v, &blk);

	if (r)
		return r;
	if (blk->write_locked || blk->read_locks) {
		busy(blk);
		return -EBUSY;
	}
	if (zero) {
		memset(blk->data, 0, BM_BLOCK_SIZE);
		blk->checked = v;
	} else if ((r = validate(blk, v))) {
		return r;
	}
	lru_remove(blk);
	blk->write_locked = 1;
	if (!blk->dirty) {
		blk->dirty = 1;
		bm->nr_dirty++;
	}
	*out = blk;
	return 0;
}

int bm_write_lock(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		  struct bm_block **out)
{
	return wlock(bm, b, v, 0, out);
}

int bm_write_lock_zero(struct block_manager *bm, uint64_t b, const struct bm_validator *v,
		       struct bm_block **out)
{
	return wlock(bm, b, v, 1, out);
}

void bm_unlock(struct bm_block *blk)
{
	if (!blk)
		return;
	if (blk->write_locked)
		blk->write_locked = 0;
	else if (blk->read_locks > 0)
		blk->read_locks--;
	if (!blk->write_locked && !blk->read_locks)
		lru_add_tail(blk->bm, blk);
}

void bm_set_max_io(struct block_manager *bm, unsigned blocks)
{
	bm->max_io = blocks < 1 ? 1 : blocks > 256 ? 256 : blocks;
}

void *bm_block_data(struct bm_block *blk)
{
	return blk->data;
}

uint64_t bm_block_location(struct bm_block *blk)
{
	return blk->b;
}

static int cmp_blk(const void *a, const void *b)
{
	const struct bm_block *x = *(struct bm_block *const *)a, *y = *(struct bm_block *const *)b;
	return x->b < y->b ? -1 : x->b > y->b;
}

unsigned bm_state(struct block_manager *bm, uint64_t b)
{
	struct bm_block *blk;
	uint64_t v;

	if (!u64map_get(&bm->index, b, &v))
		return 0;
	blk = (struct bm_block *)(uintptr_t)v;
	return (blk->dirty ? BM_STATE_DIRTY : 0) | (blk->read_locks ? BM_STATE_READ_LOCKED : 0) |
	       (blk->write_locked ? BM_STATE_WRITE_LOCKED : 0);
}

int bm_first_dirty_except(struct block_manager *bm, uint64_t except, uint64_t *b)
{
	size_t pos = 0;
	uint64_t k, v;
	int found = 0;

	while (u64map_next(&bm->index, &pos, &k, &v)) {
		struct bm_block *blk = (struct bm_block *)(uintptr_t)v;
		if (blk->dirty && k != except && (!found || k < *b)) {
			*b = k;
			found = 1;
		}
	}
	return found;
}

/* The flush invariant (block_manager.h): no dirty block may still be write
 * locked. Each one is logged; -EBUSY if there is any. */
static int check_no_write_locks(struct block_manager *bm)
{
	size_t pos = 0;
	uint64_t k, v;
	int r = 0;

	while (u64map_next(&bm->index, &pos, &k, &v)) {
		struct bm_block *blk = (struct bm_block *)(uintptr_t)v;
		if (blk->dirty && blk->write_locked) {
			log_error("%s: metadata block %" PRIu64 " is dirty and still write-locked "
				  "at flush: refusing to write a half-updated block",
				  bm->io->name, k);
			r = -EBUSY;
		}
	}
	return r;
}

int bm_flush(struct block_manager *bm)
{
	struct bm_block **list;
	size_t n = 0, pos = 0;
	uint64_t k, v;
	unsigned char *buf = NULL;
	int r = 0;

	if (bm->nr_dirty && (r = check_no_write_locks(bm)))
		return r;
	if (bm->nr_dirty) {
		list = malloc(bm->nr_dirty * sizeof(*list));
		buf = malloc(256 * BM_BLOCK_SIZE);
		if (!list || !buf) {
			free(list);
			free(buf);
			return -ENOMEM;
		}
		while (u64map_next(&bm->index, &pos, &k, &v)) {
			struct bm_block *blk = (struct bm_block *)(uintptr_t)v;
			if (blk->dirty)
				list[n++] = blk;
		}
		qsort(list, n, sizeof(*list), cmp_blk);
		/* merge consecutive blocks into writes of up to 1 MiB */
		for (size_t i = 0; i < n && !r;) {
			size_t j = i;
			while (j < n && j - i < bm->max_io && list[j]->b == list[i]->b + (j - i)) {
				struct bm_block *blk = list[j];
				if (blk->checked && blk->checked->prepare)
					blk->checked->prepare(blk->data, blk->b);
				memcpy(buf + (j - i) * BM_BLOCK_SIZE, blk->data, BM_BLOCK_SIZE);
				j++;
			}
			r = io_write(bm->io, list[i]->b * BM_BLOCK_SIZE, buf, (j - i) * BM_BLOCK_SIZE);
			if (r) {
				log_error("%s: writing metadata blocks %" PRIu64 "..%" PRIu64
					  " failed: %s", bm->io->name, list[i]->b, list[j - 1]->b,
					  strerror(-r));
				break;
			}
			for (size_t x = i; x < j; x++) {
				list[x]->dirty = 0;
				bm->nr_dirty--;
			}
			i = j;
		}
		free(list);
		free(buf);
		if (r)
			return r;
	}
	r = io_flush(bm->io);
	if (r)
		log_error("%s: flush failed: %s", bm->io->name, strerror(-r));
	return r;
}

void bm_header_prepare(void *data, uint64_t b, uint32_t salt)
{
	le64_put((char *)data + 8, b);
	le32_put(data, tp_block_csum(data, BM_BLOCK_SIZE, salt));
}

int bm_header_check_location(const void *data, uint64_t b, const char *what)
{
	uint64_t at = le64_get((const char *)data + 8);

	if (at == b)
		return 0;
	log_error("%s %" PRIu64 ": wrong block number %" PRIu64, what, b, at);
	return -EUCLEAN;
}

int bm_header_check_csum(const void *data, uint64_t b, uint32_t salt, const char *what)
{
	if (le32_get(data) == tp_block_csum(data, BM_BLOCK_SIZE, salt))
		return 0;
	log_error("%s %" PRIu64 ": bad checksum", what, b);
	return -EUCLEAN;
}

int bm_header_valid(const void *data, uint64_t b, uint32_t salt)
{
	return le64_get((const char *)data + 8) == b &&
	       le32_get(data) == tp_block_csum(data, BM_BLOCK_SIZE, salt);
}

int bm_header_check(const void *data, uint64_t b, uint32_t salt, const char *what)
{
	int r = bm_header_check_location(data, b, what);
	return r ? r : bm_header_check_csum(data, b, salt, what);
}
