/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_builder.c - thin_ir_visitor -> fresh metadata. See thin_builder.h.
 *
 * Layout written: block 0 superblock; from block 1 on, in allocation
 * order, each device's bottom-level tree (as its mappings arrive), then the
 * top-level tree, the details tree, the data space map (ref-count tree,
 * bitmaps, index btree) and the metadata space map (empty ref-count leaf,
 * bitmaps, index block). Blocks are allocated sequentially, so writes are
 * gathered into large sequential chunks. */
#include "metadata/thin/thin_builder.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_build.h"
#include "lib/base/le.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#define WBUF_BLOCKS 256u	/* 1 MiB writes */
#define XCOUNT_IN_MAP 255u
#define WRITEBACK_BLOCKS 2048u	/* write-back begun every 8 MiB */

struct bdev {
	uint64_t root;
	struct thin_ir_device d;
};

struct thin_builder {
	struct io_engine *out;
	struct thin_ir_visitor visitor;
	uint64_t nr_meta, next_block;
	unsigned char *wbuf, *wbuf2;	/* the one being filled, the writer's */
	uint64_t wbuf_start;
	size_t wbuf_n;
	/* the writer thread: writes the buffer handed over while the next fills */
	pthread_t wt;
	int wt_started, wt_busy, wt_quit, wt_err;
	pthread_mutex_t wt_lock;
	pthread_cond_t wt_cond;
	const unsigned char *wt_buf;
	uint64_t wt_start;
	size_t wt_n;
	struct thin_ir_superblock sb;
	int have_sb, in_dev, finished, ended, sb_zeroed;
	uint64_t nr_dbitmaps;
	struct thin_data_counts *dc;	/* the data reference counts */
	int counts_given;		/* dc came counted: mappings count nothing */
	struct bdev *devs;
	size_t nr_devs, cap_devs;
	struct btree_build bottom;
	struct thin_ir_device cur;
	uint64_t next_vblock;	/* first vblock the next run may use */
	int first_run;
	unsigned long flushes;	/* for the restore-write=N test pause */
	uint64_t wb_next;	/* write-back begun for the blocks before */
};

/* ---- data reference counts ---- */

/* 2 bits per data block (3: see xcount), 510 words per 16320-block bitmap,
 * allocated when first used; for the blocks named 3 or more times, a byte
 * each in their bitmap's xcount (allocated when first needed): count - 2,
 * or XCOUNT_IN_MAP: the count is in overflow. */
struct thin_data_counts {
	uint64_t nr_blocks, nr_bitmaps;
	uint64_t **dcount;
	uint8_t **xcount;
	uint64_t nr_over;
	struct u64map overflow;
};

#define PAIRS_LOW 0x5555555555555555ull

int thin_data_counts_create(uint64_t nr_blocks, struct thin_data_counts **out)
{
	struct thin_data_counts *c = calloc(1, sizeof(*c));
	size_t n;

	if (!c)
		return -ENOMEM;
	c->nr_blocks = nr_blocks;
	c->nr_bitmaps = TP_DIV_ROUND_UP(nr_blocks, SM_ENTRIES_PER_BITMAP);
	n = c->nr_bitmaps ? c->nr_bitmaps : 1;
	c->dcount = calloc(n, sizeof(*c->dcount));
	c->xcount = calloc(n, sizeof(*c->xcount));
	u64map_init(&c->overflow);
	if (!c->dcount || !c->xcount) {
		thin_data_counts_destroy(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void thin_data_counts_destroy(struct thin_data_counts *c)
{
	if (!c)
		return;
	for (uint64_t i = 0; c->dcount && i < c->nr_bitmaps; i++)
		free(c->dcount[i]);
	for (uint64_t i = 0; c->xcount && i < c->nr_bitmaps; i++)
		free(c->xcount[i]);
	free(c->dcount);
	free(c->xcount);
	u64map_destroy(&c->overflow);
	free(c);
}

uint64_t thin_data_counts_over(const struct thin_data_counts *c)
{
	return c->nr_over;
}

/* Data block I of bitmap BM, counted TWOBIT (2 or 3) already, is named
 * again. */
static int count_over(struct thin_data_counts *c, uint64_t bm, uint32_t i, unsigned twobit)
{
	uint8_t *x = c->xcount[bm];
	uint64_t d = bm * SM_ENTRIES_PER_BITMAP + i, n;

	if (!x && !(x = c->xcount[bm] = calloc(SM_ENTRIES_PER_BITMAP, 1)))
		return -ENOMEM;
	if (twobit == 2) {		/* now 3 */
		x[i] = 1;
		c->nr_over++;
		return 0;
	}
	if (x[i] < XCOUNT_IN_MAP - 1) {
		x[i]++;
		return 0;
	}
	if (x[i] == XCOUNT_IN_MAP - 1) {
		x[i] = XCOUNT_IN_MAP;
		return u64map_put(&c->overflow, d, 2 + XCOUNT_IN_MAP);
	}
	n = 2 + XCOUNT_IN_MAP;
	u64map_get(&c->overflow, d, &n);
	return u64map_put(&c->overflow, d, n + 1);
}

/* The pairs of word *WP from E to E+N-1 (within the word) count once more. */
static int count_word(struct thin_data_counts *c, uint64_t bm, uint64_t *wp, uint32_t e,
		      uint32_t n)
{
	unsigned first = e % 32;
	uint64_t low = (n == 32 ? ~0ull : ((1ull << (2 * n)) - 1) << (2 * first)) & PAIRS_LOW;
	int r;

	if (!(*wp & (low << 1))) {	/* every pair 0 or 1: no carry, no overflow */
		*wp += low;
		return 0;
	}
	for (uint32_t k = 0; k < n; k++) {
		unsigned shift = 2 * (first + k), v = (unsigned)(*wp >> shift) & 3;

		if (v < 3)
			*wp += 1ull << shift;
		if (v >= 2 && (r = count_over(c, bm, e + k, v)))
			return r;
	}
	return 0;
}

int thin_data_counts_add(struct thin_data_counts *c, uint64_t d, uint64_t len)
{
	int r;

	if (d >= c->nr_blocks || len > c->nr_blocks - d)
		return -EINVAL;
	while (len) {
		uint64_t bm = d / SM_ENTRIES_PER_BITMAP;
		uint32_t e = (uint32_t)(d % SM_ENTRIES_PER_BITMAP);
		uint64_t n = TP_MIN(len, (uint64_t)(SM_ENTRIES_PER_BITMAP - e));
		uint64_t *w = c->dcount[bm];

		if (!w && !(w = c->dcount[bm] = calloc(SM_ENTRIES_PER_BITMAP / 32, 8)))
			return -ENOMEM;
		d += n;
		len -= n;
		while (n) {
			uint32_t k = TP_MIN((uint32_t)n, 32 - e % 32);

			if ((r = count_word(c, bm, &w[e / 32], e, k)))
				return r;
			e += k;
			n -= k;
		}
	}
	return 0;
}

/* The count of block E of bitmap BM. */
static uint64_t count_of(const struct thin_data_counts *c, uint64_t bm, uint32_t e)
{
	unsigned v = (unsigned)(c->dcount[bm][e / 32] >> (2 * (e % 32))) & 3;
	uint64_t n;

	if (v < 3)
		return v;
	if (c->xcount[bm][e] < XCOUNT_IN_MAP)
		return 2 + (uint64_t)c->xcount[bm][e];
	n = 2 + XCOUNT_IN_MAP;
	u64map_get(&c->overflow, bm * SM_ENTRIES_PER_BITMAP + e, &n);
	return n;
}

/* Block E of bitmap BM, counted V (< 3) or more times already, is counted
 * N times: set it so. */
static int set_count(struct thin_data_counts *c, uint64_t bm, uint32_t e, uint64_t n)
{
	uint64_t *wp = &c->dcount[bm][e / 32];
	unsigned shift = 2 * (e % 32);
	uint8_t *x;

	*wp = (*wp & ~(3ull << shift)) | ((uint64_t)(n < 3 ? n : 3) << shift);
	if (n < 3)
		return 0;
	if (!(x = c->xcount[bm]) && !(x = c->xcount[bm] = calloc(SM_ENTRIES_PER_BITMAP, 1)))
		return -ENOMEM;
	if (n - 2 < XCOUNT_IN_MAP) {
		x[e] = (uint8_t)(n - 2);
		return 0;
	}
	x[e] = XCOUNT_IN_MAP;
	return u64map_put(&c->overflow, bm * SM_ENTRIES_PER_BITMAP + e, n);
}

int thin_data_counts_merge(struct thin_data_counts *a, struct thin_data_counts *b)
{
	int r;

	if (a->nr_blocks != b->nr_blocks)
		return -EINVAL;
	for (uint64_t bm = 0; bm < a->nr_bitmaps; bm++) {
		uint64_t *wa = a->dcount[bm], *wb = b->dcount[bm];

		if (!wb)
			continue;
		if (!wa && !b->xcount[bm]) {	/* only B's: take it over */
			a->dcount[bm] = wb;
			b->dcount[bm] = NULL;
			continue;
		}
		if (!wa && !(wa = a->dcount[bm] = calloc(SM_ENTRIES_PER_BITMAP / 32, 8)))
			return -ENOMEM;
		for (uint32_t w = 0; w < SM_ENTRIES_PER_BITMAP / 32; w++) {
			if (!wb[w])
				continue;
			if (!((wa[w] | wb[w]) & (PAIRS_LOW << 1))) {	/* 0 or 1 each: no carry */
				wa[w] += wb[w];
				continue;
			}
			for (uint32_t e = w * 32; e < w * 32 + 32; e++) {
				uint64_t nb = count_of(b, bm, e);

				if (nb && (r = set_count(a, bm, e, count_of(a, bm, e) + nb)))
					return r;
			}
		}
	}
	a->nr_over = 0;
	for (uint64_t bm = 0; bm < a->nr_bitmaps; bm++)
		for (uint32_t e = 0; a->xcount[bm] && e < SM_ENTRIES_PER_BITMAP; e++)
			a->nr_over += a->xcount[bm][e] != 0;
	return 0;
}

/* ---- block output ---- */

/* Write N blocks of BUF at block START (either thread). */
static int write_out(struct thin_builder *b, const unsigned char *buf, uint64_t start, size_t n)
{
	int r = io_write(b->out, start * BM_BLOCK_SIZE, buf, n * BM_BLOCK_SIZE);

	/* begin the write-back of what is written, a few MiB at a time, so that
	 * the flush before the superblock finds most of it on its way */
	if (!r && start + n >= b->wb_next + WRITEBACK_BLOCKS) {
		io_fd_writeback(b->out, b->wb_next * BM_BLOCK_SIZE,
				(start + n - b->wb_next) * BM_BLOCK_SIZE);
		b->wb_next = start + n;
	}
	if (r)
		log_error("%s: writing metadata blocks %" PRIu64 "..%" PRIu64 " failed: %s",
			  b->out->name, start, start + n - 1, strerror(-r));
	return r;
}

static void *writer_main(void *arg)
{
	struct thin_builder *b = arg;

	pthread_mutex_lock(&b->wt_lock);
	for (;;) {
		while (!b->wt_busy && !b->wt_quit)
			pthread_cond_wait(&b->wt_cond, &b->wt_lock);
		if (!b->wt_busy)
			break;
		pthread_mutex_unlock(&b->wt_lock);
		int r = write_out(b, b->wt_buf, b->wt_start, b->wt_n);
		pthread_mutex_lock(&b->wt_lock);
		if (r && !b->wt_err)
			b->wt_err = r;
		b->wt_busy = 0;
		pthread_cond_broadcast(&b->wt_cond);
	}
	pthread_mutex_unlock(&b->wt_lock);
	return NULL;
}

/* Wait until the writer has written what it was given: its first error. */
static int writer_wait(struct thin_builder *b)
{
	int r;

	if (!b->wt_started)
		return 0;
	pthread_mutex_lock(&b->wt_lock);
	while (b->wt_busy)
		pthread_cond_wait(&b->wt_cond, &b->wt_lock);
	r = b->wt_err;
	pthread_mutex_unlock(&b->wt_lock);
	return r;
}

static void writer_stop(struct thin_builder *b)
{
	if (!b->wt_started)
		return;
	pthread_mutex_lock(&b->wt_lock);
	b->wt_quit = 1;
	pthread_cond_broadcast(&b->wt_cond);
	pthread_mutex_unlock(&b->wt_lock);
	pthread_join(b->wt, NULL);
	b->wt_started = 0;
}

/* Hand the filled buffer to the writer thread (written here when there is
 * none), go on filling the other. */
static int wflush(struct thin_builder *b)
{
	unsigned char *t;
	int r;

	if (!b->wbuf_n)
		return 0;
	if ((r = writer_wait(b))) {
		b->wbuf_n = 0;
		return r;
	}
	/* a cut here leaves the superblock zeroed (sb_begin), so no reader
	 * takes the half-written area for metadata */
	tp_test_pause_n("restore-write", ++b->flushes);
	if (!b->wt_started && !pthread_create(&b->wt, NULL, writer_main, b))
		b->wt_started = 1;
	if (!b->wt_started) {
		r = write_out(b, b->wbuf, b->wbuf_start, b->wbuf_n);
		b->wbuf_n = 0;
		return r;
	}
	pthread_mutex_lock(&b->wt_lock);
	b->wt_buf = b->wbuf;
	b->wt_start = b->wbuf_start;
	b->wt_n = b->wbuf_n;
	b->wt_busy = 1;
	pthread_cond_broadcast(&b->wt_cond);
	pthread_mutex_unlock(&b->wt_lock);
	t = b->wbuf;
	b->wbuf = b->wbuf2;
	b->wbuf2 = t;
	b->wbuf_n = 0;
	return 0;
}

static int alloc_block(void *ctx, uint64_t *blk)
{
	struct thin_builder *b = ctx;

	if (b->next_block >= b->nr_meta) {
		log_error("%s: out of metadata space (%" PRIu64 " blocks)", b->out->name,
			  b->nr_meta);
		return -ENOSPC;
	}
	*blk = b->next_block++;
	return 0;
}

/* DATA is a finished block for location BLK. */
static int write_block(void *ctx, uint64_t blk, const void *data)
{
	struct thin_builder *b = ctx;
	int r;

	if (b->wbuf_n && (blk != b->wbuf_start + b->wbuf_n || b->wbuf_n == WBUF_BLOCKS) &&
	    (r = wflush(b)))
		return r;
	if (!b->wbuf_n)
		b->wbuf_start = blk;
	memcpy(b->wbuf + b->wbuf_n * BM_BLOCK_SIZE, data, BM_BLOCK_SIZE);
	b->wbuf_n++;
	return 0;
}

static int zero_superblock(struct thin_builder *b)
{
	static const unsigned char zero[BM_BLOCK_SIZE];
	int r = io_write(b->out, 0, zero, sizeof(zero));

	if (!r)
		r = io_flush(b->out);
	return r;
}

/* ---- visitor ---- */

static int sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct thin_builder *b = ctx;
	int r;

	if (b->have_sb)
		return -EINVAL;
	if (sb->data_block_size < THIN_DATA_BLOCK_SIZE_MIN ||
	    sb->data_block_size > THIN_DATA_BLOCK_SIZE_MAX ||
	    sb->data_block_size % THIN_DATA_BLOCK_SIZE_MIN) {
		log_error("data block size %" PRIu32 " sectors: must be 128..2097152 and a "
			  "multiple of 128", sb->data_block_size);
		return -EINVAL;
	}
	if (sb->nr_data_blocks > THIN_MAX_DATA_BLOCKS) {
		log_error("%" PRIu64 " data blocks: at most 2^40", sb->nr_data_blocks);
		return -EINVAL;
	}
	if ((r = zero_superblock(b)))
		return r;
	b->sb_zeroed = 1;
	b->sb = *sb;
	b->have_sb = 1;
	b->nr_dbitmaps = TP_DIV_ROUND_UP(sb->nr_data_blocks, SM_ENTRIES_PER_BITMAP);
	if (b->counts_given)
		return b->dc->nr_blocks == sb->nr_data_blocks ? 0 : -EINVAL;
	return thin_data_counts_create(sb->nr_data_blocks, &b->dc);
}

static int dev_begin(void *ctx, const struct thin_ir_device *dev)
{
	struct thin_builder *b = ctx;

	if (!b->have_sb || b->in_dev || b->ended)
		return -EINVAL;
	if (dev->dev_id > THIN_MAX_DEV_ID) {
		log_error("thin device id %" PRIu64 " is above the limit", dev->dev_id);
		return -EINVAL;
	}
	if (b->nr_devs && b->devs[b->nr_devs - 1].d.dev_id >= dev->dev_id) {
		log_error("thin device %" PRIu64 ": devices must come in ascending order, once each",
			  dev->dev_id);
		return -EINVAL;
	}
	b->cur = *dev;
	b->cur.mapped_blocks = 0;
	b->in_dev = 1;
	b->first_run = 1;
	b->next_vblock = 0;
	btree_build_init(&b->bottom, 8, alloc_block, write_block, b);
	return 0;
}


static int mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct thin_builder *b = ctx;
	int r;

	if (!b->in_dev)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct thin_ir_mapping *m = &runs[i];

		if (!m->length || (!b->first_run && m->origin_begin < b->next_vblock) ||
		    m->origin_begin + m->length < m->origin_begin) {
			log_error("thin device %" PRIu64 ": mapping at block %" PRIu64
				  " overlaps or is out of order", b->cur.dev_id, m->origin_begin);
			return -EINVAL;
		}
		if (m->data_begin >= b->sb.nr_data_blocks ||
		    m->length > b->sb.nr_data_blocks - m->data_begin) {
			log_error("thin device %" PRIu64 ": data blocks %" PRIu64 "+%" PRIu64
				  " are beyond nr_data_blocks %" PRIu64, b->cur.dev_id, m->data_begin,
				  m->length, b->sb.nr_data_blocks);
			return -EINVAL;
		}
		if (m->time > 0xffffff) {
			log_error("thin device %" PRIu64 ": time %" PRIu32 " does not fit 24 bits",
				  b->cur.dev_id, m->time);
			return -EINVAL;
		}
		if ((r = btree_build_add_seq64(&b->bottom, m->origin_begin, m->length,
						 thin_bt_pack(m->data_begin, m->time),
						 thin_bt_pack(1, 0))) ||
		    (!b->counts_given && (r = thin_data_counts_add(b->dc, m->data_begin,
								       m->length))))
			return r;
		b->cur.mapped_blocks += m->length;
		b->next_vblock = m->origin_begin + m->length;
		b->first_run = 0;
	}
	return 0;
}

static int dev_end(void *ctx)
{
	struct thin_builder *b = ctx;
	uint64_t root;
	int r;

	if (!b->in_dev)
		return -EINVAL;
	r = btree_build_finish(&b->bottom, &root);
	btree_build_destroy(&b->bottom);
	b->in_dev = 0;
	if (r)
		return r;
	if (b->nr_devs == b->cap_devs) {
		size_t nc = b->cap_devs ? b->cap_devs * 2 : 16;
		struct bdev *nd = realloc(b->devs, nc * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		b->devs = nd;
		b->cap_devs = nc;
	}
	b->devs[b->nr_devs++] = (struct bdev){ root, b->cur };
	return 0;
}

/* ---- the end: trees over devices, space maps, superblock ---- */

static int build_top_and_details(struct thin_builder *b, uint64_t *top, uint64_t *details)
{
	struct btree_build bb;
	unsigned char v[THIN_DETAILS_SIZE];
	int r = 0;

	btree_build_init(&bb, 8, alloc_block, write_block, b);
	for (size_t i = 0; i < b->nr_devs && !r; i++) {
		le64_put(v, b->devs[i].root);
		r = btree_build_add(&bb, b->devs[i].d.dev_id, v);
	}
	if (!r)
		r = btree_build_finish(&bb, top);
	btree_build_destroy(&bb);
	if (r)
		return r;
	btree_build_init(&bb, THIN_DETAILS_SIZE, alloc_block, write_block, b);
	for (size_t i = 0; i < b->nr_devs && !r; i++) {
		thin_details_pack(v, &b->devs[i].d);
		r = btree_build_add(&bb, b->devs[i].d.dev_id, v);
	}
	if (!r)
		r = btree_build_finish(&bb, details);
	btree_build_destroy(&bb);
	return r;
}

static int write_bitmap(struct thin_builder *b, unsigned char *blk, uint64_t loc)
{
	memset(blk, 0, 16);
	bm_header_prepare(blk, loc, SM_BITMAP_CSUM_XOR);
	return write_block(b, loc, blk);
}

static int build_data_sm(struct thin_builder *b, unsigned char *blk, struct sm_root *root)
{
	struct btree_build bb;
	uint64_t k, first;
	unsigned char val[16];
	int r = 0;

	/* ref-count tree: the blocks named 3 or more times, in order */
	btree_build_init(&bb, 4, alloc_block, write_block, b);
	for (uint64_t i = 0; i < b->nr_dbitmaps && !r; i++) {
		const uint8_t *x = b->dc->xcount[i];

		for (uint32_t e = 0; x && e < SM_ENTRIES_PER_BITMAP && !r; e++) {
			uint64_t c;

			if (!x[e])
				continue;
			k = i * SM_ENTRIES_PER_BITMAP + e;
			c = 2 + (uint64_t)x[e];
			if (x[e] == XCOUNT_IN_MAP)
				u64map_get(&b->dc->overflow, k, &c);
			le32_put(val, (uint32_t)c);
			r = btree_build_add(&bb, k, val);
		}
	}
	if (!r)
		r = btree_build_finish(&bb, &root->ref_count_root);
	btree_build_destroy(&bb);
	if (r)
		return r;
	/* bitmaps, then the index btree over them */
	if (b->next_block + b->nr_dbitmaps > b->nr_meta)
		return alloc_block(b, &k);	/* -ENOSPC with the message */
	first = b->next_block;
	b->next_block += b->nr_dbitmaps;
	btree_build_init(&bb, 16, alloc_block, write_block, b);
	root->nr_allocated = 0;
	for (uint64_t i = 0; i < b->nr_dbitmaps && !r; i++) {
		uint32_t nr_free, nfb;
		sm_bitmap_encode(blk, b->dc->dcount[i], &nr_free, &nfb);
		root->nr_allocated += SM_ENTRIES_PER_BITMAP - nr_free;
		if ((r = write_bitmap(b, blk, first + i)))
			break;
		sm_index_entry_pack(val, first + i, nr_free, nfb);
		r = btree_build_add(&bb, i, val);
	}
	if (!r)
		r = btree_build_finish(&bb, &root->bitmap_root);
	btree_build_destroy(&bb);
	root->nr_blocks = b->sb.nr_data_blocks;
	return r;
}

static int build_meta_sm(struct thin_builder *b, unsigned char *blk, struct sm_root *root)
{
	uint64_t nb = TP_DIV_ROUND_UP(b->nr_meta, SM_ENTRIES_PER_BITMAP), first, index, used;
	uint64_t *words;
	int r = 0;

	if (b->next_block + 2 + nb > b->nr_meta)
		return alloc_block(b, &first), -ENOSPC;
	/* empty ref-count leaf: every metadata block has count 1 */
	root->ref_count_root = b->next_block++;
	bn_init(blk, BTREE_NODE_LEAF, 4);
	btree_node_prepare(blk, root->ref_count_root);
	if ((r = write_block(b, root->ref_count_root, blk)))
		return r;
	first = b->next_block;
	b->next_block += nb;
	index = b->next_block++;
	used = b->next_block;	/* blocks 0 .. used-1 have count 1 */
	words = malloc(SM_ENTRIES_PER_BITMAP / 4);
	unsigned char *idx = calloc(1, BM_BLOCK_SIZE);
	if (!words || !idx) {
		free(words);
		free(idx);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < nb && !r; i++) {
		uint64_t base = i * SM_ENTRIES_PER_BITMAP;
		uint32_t nr_free, nfb;
		memset(words, 0, SM_ENTRIES_PER_BITMAP / 4);
		for (uint32_t e = 0; e < SM_ENTRIES_PER_BITMAP && base + e < used; e++)
			words[e / 32] |= 1ull << (2 * (e % 32));	/* count 1 */
		sm_bitmap_encode(blk, words, &nr_free, &nfb);
		if ((r = write_bitmap(b, blk, first + i)))
			break;
		sm_index_entry_pack(idx + 16 + 16 * i, first + i, nr_free, nfb);
	}
	if (!r) {
		bm_header_prepare(idx, index, SM_INDEX_CSUM_XOR);
		r = write_block(b, index, idx);
	}
	free(words);
	free(idx);
	root->nr_blocks = b->nr_meta;
	root->nr_allocated = used;
	root->bitmap_root = index;
	return r;
}

static int sb_end(void *ctx)
{
	struct thin_builder *b = ctx;
	struct thin_sb sb = { 0 };
	unsigned char *blk;
	int r;

	if (!b->have_sb || b->in_dev || b->ended)
		return -EINVAL;
	b->ended = 1;
	blk = malloc(BM_BLOCK_SIZE);
	if (!blk)
		return -ENOMEM;
	sb.flags = b->sb.flags;
	sb.version = THIN_SB_VERSION;
	sb.time = b->sb.time;
	sb.trans_id = b->sb.transaction;
	sb.data_block_size = b->sb.data_block_size;
	sb.metadata_block_size = BM_BLOCK_SIZE / 512;
	sb.metadata_nr_blocks = b->nr_meta;
	if ((r = build_top_and_details(b, &sb.mapping_root, &sb.details_root)) ||
	    (r = build_data_sm(b, blk, &sb.data_sm)) ||
	    (r = build_meta_sm(b, blk, &sb.meta_sm)) ||
	    (r = wflush(b)) || (r = writer_wait(b)) || (r = io_flush(b->out)))
		goto out;
	thin_sb_pack(blk, &sb);
	bm_header_prepare(blk, 0, THIN_SB_CSUM_XOR);
	if ((r = io_write(b->out, 0, blk, BM_BLOCK_SIZE)) || (r = io_flush(b->out))) {
		log_error("%s: writing the superblock failed: %s", b->out->name, strerror(-r));
		goto out;
	}
	b->finished = 1;
out:
	free(blk);
	return r;
}

/* ---- life cycle ---- */

int thin_builder_create(struct io_engine *out, struct thin_builder **bp)
{
	struct thin_builder *b;

	if (out->read_only)
		return -EROFS;
	if (out->size / BM_BLOCK_SIZE < 16) {
		log_error("%s: a metadata area needs at least 64 KiB", out->name);
		return -ENOSPC;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (posix_memalign((void **)&b->wbuf, 4096, (size_t)WBUF_BLOCKS * BM_BLOCK_SIZE)) {
		free(b);
		return -ENOMEM;
	}
	if (posix_memalign((void **)&b->wbuf2, 4096, (size_t)WBUF_BLOCKS * BM_BLOCK_SIZE)) {
		free(b->wbuf);
		free(b);
		return -ENOMEM;
	}
	pthread_mutex_init(&b->wt_lock, NULL);
	pthread_cond_init(&b->wt_cond, NULL);
	b->out = out;
	b->nr_meta = TP_MIN(out->size / BM_BLOCK_SIZE, THIN_METADATA_MAX_BLOCKS);
	b->next_block = 1;
	b->visitor = (struct thin_ir_visitor){ b, sb_begin, sb_end, dev_begin, dev_end, mappings };
	*bp = b;
	return 0;
}

void thin_builder_take_counts(struct thin_builder *b, struct thin_data_counts *c)
{
	thin_data_counts_destroy(b->dc);
	b->dc = c;
	b->counts_given = 1;
}

const struct thin_ir_visitor *thin_builder_visitor(struct thin_builder *b)
{
	return &b->visitor;
}

int thin_builder_finished(struct thin_builder *b)
{
	return b->finished;
}

void thin_builder_destroy(struct thin_builder *b)
{
	if (!b)
		return;
	writer_stop(b);
	if (!b->finished && b->sb_zeroed && zero_superblock(b))
		log_error("%s: could not zero the superblock of the unfinished metadata",
			  b->out->name);
	if (b->in_dev)
		btree_build_destroy(&b->bottom);
	thin_data_counts_destroy(b->dc);
	free(b->devs);
	pthread_cond_destroy(&b->wt_cond);
	pthread_mutex_destroy(&b->wt_lock);
	free(b->wbuf);
	free(b->wbuf2);
	free(b);
}
