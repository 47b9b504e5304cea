/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_cmd.c - dump and restore entry points. See xml_cmd.h. */
#include "metadata/thin/xml_cmd.h"
#include "lib/base/log.h"
#include "metadata/pdata/btree_build.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_builder.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"
#include "metadata/thin/xml_pipe.h"
#include "metadata/thin/xml_record.h"
#include "metadata/thin/xml_scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* --dev-id: pass one device on, drop the others. */
struct dev_filter {
	const struct thin_ir_visitor *next;
	uint64_t dev_id;
	int on;			/* inside the chosen device */
};

static int filter_sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct dev_filter *f = ctx;

	return f->next->superblock_begin(f->next->ctx, sb);
}

static int filter_sb_end(void *ctx)
{
	struct dev_filter *f = ctx;

	return f->next->superblock_end(f->next->ctx);
}

static int filter_dev_begin(void *ctx, const struct thin_ir_device *dev)
{
	struct dev_filter *f = ctx;

	f->on = dev->dev_id == f->dev_id;
	return f->on ? f->next->device_begin(f->next->ctx, dev) : 0;
}

static int filter_dev_end(void *ctx)
{
	struct dev_filter *f = ctx;

	return f->on ? f->next->device_end(f->next->ctx) : 0;
}

static int filter_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct dev_filter *f = ctx;

	return f->on ? f->next->mappings(f->next->ctx, runs, n) : 0;
}

/* A visitor that passes everything on to NEXT and tells FN the mapped
 * blocks that went through (of TOTAL). */
struct tally {
	const struct thin_ir_visitor *next;
	void (*fn)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	uint64_t done, total;
};

static int tally_sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct tally *t = ctx;

	return t->next->superblock_begin(t->next->ctx, sb);
}

static int tally_sb_end(void *ctx)
{
	struct tally *t = ctx;

	return t->next->superblock_end(t->next->ctx);
}

static int tally_dev_begin(void *ctx, const struct thin_ir_device *dev)
{
	struct tally *t = ctx;

	return t->next->device_begin(t->next->ctx, dev);
}

static int tally_dev_end(void *ctx)
{
	struct tally *t = ctx;

	return t->next->device_end(t->next->ctx);
}

static int tally_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct tally *t = ctx;
	int r = t->next->mappings(t->next->ctx, runs, n);

	for (size_t i = 0; i < n; i++)
		t->done += runs[i].length;
	t->fn(t->ctx, t->done, t->total);
	return r;
}

/* V wrapped in T when FN watches (else V itself). */
static const struct thin_ir_visitor *tallied(struct tally *t, struct thin_ir_visitor *w,
					      const struct thin_ir_visitor *v,
					      void (*fn)(void *, uint64_t, uint64_t), void *ctx,
					      uint64_t total)
{
	if (!fn)
		return v;
	*t = (struct tally){ v, fn, ctx, 0, total };
	*w = (struct thin_ir_visitor){ t, tally_sb_begin, tally_sb_end, tally_dev_begin,
				       tally_dev_end, tally_mappings };
	return w;
}

int thin_xml_dump(struct io_engine *meta, const struct thin_dump_opts *opts, int fd)
{
	struct tally t;
	struct thin_ir_visitor tv;
	struct dev_filter f = { .dev_id = opts->dev_id };
	struct thin_ir_visitor v, fv = {
		.ctx = &f,
		.superblock_begin = filter_sb_begin,
		.superblock_end = filter_sb_end,
		.device_begin = filter_dev_begin,
		.device_end = filter_dev_end,
		.mappings = filter_mappings,
	};
	struct thin_emitter *e;
	int r;

	r = thin_emitter_create(opts->format, fd, &e);
	if (r)
		return r;
	thin_emitter_visitor(e, &v);
	f.next = &v;
	r = thin_walk_io(meta, opts->walk_flags,
			 tallied(&t, &tv, opts->one_device ? &fv : &v, opts->progress,
				 opts->progress_ctx, 0), NULL);
	if (!r)
		r = thin_emitter_flush(e);
	/* the walker logs its own errors; only output errors are ours */
	if (r && r == thin_emitter_error(e))
		log_error("writing the dump of %s: %s", meta->name, strerror(-r));
	thin_emitter_destroy(e);
	return r;
}

/* ---- restore ---- */

/* The builder writes every tree bottom-up with full nodes
 * (btree_build_nr_nodes is exact) in this order: bottom-level trees, top
 * level, details, data reference-count tree (data blocks named 3 or more
 * times), data bitmaps and their index tree, the metadata space map's
 * empty reference-count leaf, bitmaps and index block. */
uint64_t thin_xml_blocks_needed(const struct thin_xml_stats *st, uint64_t nr_meta)
{
	uint64_t data_bitmaps = TP_DIV_ROUND_UP(st->nr_data_blocks, SM_ENTRIES_PER_BITMAP);
	uint64_t n = 1;		/* superblock */

	n += st->tree_blocks;
	n += btree_build_nr_nodes(st->nr_devices, 8);
	n += btree_build_nr_nodes(st->nr_devices, THIN_DETAILS_SIZE);
	n += btree_build_nr_nodes(st->overflow_blocks, 4);
	n += data_bitmaps + btree_build_nr_nodes(data_bitmaps, 16);
	n += 1 + TP_DIV_ROUND_UP(nr_meta, SM_ENTRIES_PER_BITMAP) + 1;
	return n + 4;		/* reserve: the builder's layout may grow a little */
}

/* Data reference counts saturating at 3, two bits per data block, in
 * chunks allocated on first use: pass 1 finds how many data blocks need
 * the reference-count tree. Freed before the builder runs, so the peak
 * memory is the builder's. */
#define CHUNK_SHIFT 16
#define CHUNK_BLOCKS (1ull << CHUNK_SHIFT)

struct counter {
	struct thin_xml_stats st;
	uint64_t dev_blocks;
	uint8_t **chunks;
	uint64_t nr_chunks;
	struct thin_ir_visitor rec;	/* every event is also recorded (ctx NULL: not) */
	int exact;			/* count into dc (the builder's counts) */
	struct thin_data_counts *dc;
};

static int count_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	struct counter *c = ctx;

	c->st.nr_data_blocks = sb->nr_data_blocks;
	if (c->exact) {
		int r = thin_data_counts_create(sb->nr_data_blocks, &c->dc);

		if (r)
			return r;
		return c->rec.ctx ? c->rec.superblock_begin(c->rec.ctx, sb) : 0;
	}
	c->nr_chunks = TP_DIV_ROUND_UP(sb->nr_data_blocks, CHUNK_BLOCKS);
	c->chunks = calloc(c->nr_chunks ? c->nr_chunks : 1, sizeof(*c->chunks));
	if (!c->chunks)
		return -ENOMEM;
	return c->rec.ctx ? c->rec.superblock_begin(c->rec.ctx, sb) : 0;
}

static int count_sb_end(void *ctx)
{
	struct counter *c = ctx;

	if (c->dc)
		c->st.overflow_blocks = thin_data_counts_over(c->dc);
	return c->rec.ctx ? c->rec.superblock_end(c->rec.ctx) : 0;
}

static int count_dev_begin(void *ctx, const struct thin_ir_device *dev)
{
	struct counter *c = ctx;

	c->st.nr_devices++;
	c->dev_blocks = 0;
	return c->rec.ctx ? c->rec.device_begin(c->rec.ctx, dev) : 0;
}

static int count_dev_end(void *ctx)
{
	struct counter *c = ctx;

	c->st.mapped_blocks += c->dev_blocks;
	c->st.tree_blocks += btree_build_nr_nodes(c->dev_blocks, 8);
	return c->rec.ctx ? c->rec.device_end(c->rec.ctx) : 0;
}

/* Data blocks D .. D+LEN-1 are named once more: a byte (four blocks) at a
 * time where none of its blocks is named twice yet. */
static int count_data(struct counter *c, uint64_t d, uint64_t len)
{
	while (len) {
		uint8_t **chunk = &c->chunks[d >> CHUNK_SHIFT];
		uint64_t i = d & (CHUNK_BLOCKS - 1);
		uint64_t n = TP_MIN(len, CHUNK_BLOCKS - i);

		if (!*chunk && !(*chunk = calloc(CHUNK_BLOCKS / 4, 1)))
			return -ENOMEM;
		d += n;
		len -= n;
		while (n) {
			uint8_t *b = &(*chunk)[i >> 2];

			if (!(i & 3) && n >= 4 && !(*b & 0xaa)) {	/* all 0 or 1 */
				*b = (uint8_t)(*b + 0x55);
				i += 4;
				n -= 4;
				continue;
			}
			unsigned shift = (unsigned)(i & 3) * 2, v = (*b >> shift) & 3;

			if (v < 3)
				*b = (uint8_t)(*b + (1u << shift));
			if (v == 2)
				c->st.overflow_blocks++;
			i++;
			n--;
		}
	}
	return 0;
}

static int count_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct counter *c = ctx;
	int r;

	for (size_t i = 0; i < n; i++) {
		c->dev_blocks += runs[i].length;
		if (c->dc) {
			if ((r = thin_data_counts_add(c->dc, runs[i].data_begin, runs[i].length)))
				return r;
			continue;
		}
		if ((r = count_data(c, runs[i].data_begin, runs[i].length)))
			return r;
	}
	return c->rec.ctx ? c->rec.mappings(c->rec.ctx, runs, n) : 0;
}

static void counter_release(struct counter *c)
{
	for (uint64_t i = 0; c->chunks && i < c->nr_chunks; i++)
		free(c->chunks[i]);
	free(c->chunks);
	c->chunks = NULL;
	thin_data_counts_destroy(c->dc);
	c->dc = NULL;
}

/* Add B's counts into A (the halves of one document): reference counts
 * saturate at 3, so the data blocks named 3 or more times are counted
 * again over the sums. */
static int counter_merge(struct counter *a, struct counter *b)
{
	a->st.nr_devices += b->st.nr_devices;
	a->st.mapped_blocks += b->st.mapped_blocks;
	a->st.tree_blocks += b->st.tree_blocks;
	if (a->dc && b->dc) {	/* exact counts */
		int r = thin_data_counts_merge(a->dc, b->dc);

		a->st.overflow_blocks = thin_data_counts_over(a->dc);
		return r;
	}
	a->st.overflow_blocks = 0;
	for (uint64_t i = 0; i < a->nr_chunks; i++) {
		uint8_t *x = a->chunks[i], *y = b->chunks[i];

		if (!x) {
			x = a->chunks[i] = y;
			b->chunks[i] = NULL;
		} else if (y) {
			for (size_t k = 0; k < CHUNK_BLOCKS / 4; k++) {
				unsigned sum = 0;

				for (unsigned sh = 0; sh < 8; sh += 2) {
					unsigned v = ((x[k] >> sh) & 3) + ((y[k] >> sh) & 3);

					sum |= (v > 3 ? 3 : v) << sh;
				}
				x[k] = (uint8_t)sum;
			}
		}
		for (size_t k = 0; x && k < CHUNK_BLOCKS / 4; k++)
			for (unsigned sh = 0; sh < 8; sh += 2)
				a->st.overflow_blocks += ((x[k] >> sh) & 3) == 3;
	}
	return 0;
}

/* A file this large (in recording limits) is past its limit anyway (a
 * mapping is 60 to 90 bytes of XML, about 5 of recording): pass 1 then
 * scans it in two halves at once and pass 2 reads it again. A smaller one
 * of at least SPLIT_MIN_BYTES is scanned in two halves too, each recorded
 * within half the limit, pass 2 replaying both. */
#define SPLIT_MIN_RECORDINGS 16
#define SPLIT_MIN_BYTES (16u << 20)

/* Pass 1 on a large file: validate and count in two halves at once (a
 * counter each, merged), each half recorded into REC0 and REC1 unless
 * NULL (and then counted exactly, for the builder: C->dc). 0, 1 (not taken: reset C and go on with one reader) or -errno
 * (ERR set). */
static int count_split(int fd, uint64_t size, struct counter *c, struct thin_ir_record *rec0,
		       struct thin_ir_record *rec1, struct thin_xml_error *err)
{
	struct counter c1;
	struct thin_ir_visitor v0 = {
		.ctx = c,
		.superblock_begin = count_sb,
		.superblock_end = count_sb_end,
		.device_begin = count_dev_begin,
		.device_end = count_dev_end,
		.mappings = count_mappings,
	}, v1 = v0;
	int r;

	memset(&c1, 0, sizeof(c1));
	if (rec0 && rec1) {	/* exact counts too, for the builder */
		thin_ir_record_visitor(rec0, &c->rec);
		thin_ir_record_visitor(rec1, &c1.rec);
		c->exact = c1.exact = 1;
	}
	v1.ctx = &c1;
	r = thin_xml_scan_split(fd, size, &v0, &v1, err);
	if (!r && (r = counter_merge(c, &c1))) {
		memset(err, 0, sizeof(*err));
		snprintf(err->msg, sizeof(err->msg), "counting the mappings: %s", strerror(-r));
	}
	counter_release(&c1);
	memset(&c->rec, 0, sizeof(c->rec));
	return r;
}

static void report(const char *name, int r, const struct thin_xml_error *e)
{
	if (e->line)
		log_error("%s:%lu:%lu: %s", name, e->line, e->column, e->msg);
	else
		log_error("%s: %s", name, e->msg[0] ? e->msg : strerror(-r));
}

/* The strict scanner in its own thread (xml_pipe.h): in pass 1 while the
 * counter counts and records, in pass 2 of a file the scanner took and no
 * recording holds while the builder writes. */
struct rescan {
	int fd;
	struct thin_xml_error *err;
	int r;			/* the scan's result */
};

static int rescan(void *arg, const struct thin_ir_visitor *v)
{
	struct rescan *rs = arg;

	return rs->r = thin_xml_scan_fd(rs->fd, v, rs->err);
}

/* Pass 1: validate, count, record. A seekable input is read by the strict
 * scanner first (*SCANNED set when it took the document), a large file in
 * two halves at once; what it does not take is read again from the start
 * by expat, the reference, with a fresh count and recording. When the
 * recording holds the whole document, *DC gets its data reference counts
 * for the builder (else NULL). Two halves recorded: *REC the first, *REC1
 * the second (else NULL). */
static int validate(int fd, int seekable, const char *name, struct thin_ir_record **rec,
		    struct thin_ir_record **rec1, size_t record_max, struct thin_xml_stats *st,
		    int *scanned, struct thin_data_counts **dc)
{
	struct counter c;
	struct thin_ir_visitor v = {
		.ctx = &c,
		.superblock_begin = count_sb,
		.superblock_end = count_sb_end,
		.device_begin = count_dev_begin,
		.device_end = count_dev_end,
		.mappings = count_mappings,
	};
	struct thin_xml_error err;
	struct stat sb;
	int r = 1;

	memset(&c, 0, sizeof(c));
	memset(st, 0, sizeof(*st));
	*scanned = 0;
	*dc = NULL;
	*rec1 = NULL;
	if (seekable && !fstat(fd, &sb) && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size >= SPLIT_MIN_BYTES) {
		int record = (uint64_t)sb.st_size / SPLIT_MIN_RECORDINGS < record_max;
		struct thin_ir_record *r0 = NULL, *r1 = NULL;

		if (record && (thin_ir_record_create(record_max / 2, &r0) ||
			       thin_ir_record_create(record_max / 2, &r1))) {
			thin_ir_record_destroy(r0);
			r0 = NULL;
			record = 0;
		}
		r = count_split(fd, (uint64_t)sb.st_size, &c, r0, r1, &err);
		if (r <= 0) {
			if (r)
				report(name, r, &err);
			*scanned = 1;
			*st = c.st;
			if (!r && record && thin_ir_record_complete(r0) &&
			    thin_ir_record_complete(r1)) {
				thin_ir_record_destroy(*rec);
				*rec = r0;
				*rec1 = r1;
				*dc = c.dc;
				c.dc = NULL;
				counter_release(&c);
			} else {
				counter_release(&c);
				thin_ir_record_destroy(r0);
				thin_ir_record_destroy(r1);
			}
			return r;
		}
		thin_ir_record_destroy(r0);
		thin_ir_record_destroy(r1);
		counter_release(&c);
		memset(&c, 0, sizeof(c));
		if (lseek(fd, 0, SEEK_SET)) {
			r = -errno;
			log_error("%s: cannot read it again: %s", name, strerror(errno));
			return r;
		}
	}
	c.exact = 1;
	thin_ir_record_visitor(*rec, &c.rec);
	if (seekable) {
		struct rescan rs = { fd, &err, 0 };

		r = thin_ir_pipe(rescan, &rs, &v);
		if (r < 0 && r != rs.r) {	/* the counter's own error */
			memset(&err, 0, sizeof(err));
			snprintf(err.msg, sizeof(err.msg), "counting the mappings: %s",
				 strerror(-r));
		}
		if (r < 0) {
			report(name, r, &err);
			counter_release(&c);
			return r;
		}
		*scanned = r == 0;
	}
	if (r) {
		counter_release(&c);
		memset(&c, 0, sizeof(c));
		c.exact = 1;
		if (seekable) {
			thin_ir_record_destroy(*rec);
			*rec = NULL;
			if (lseek(fd, 0, SEEK_SET)) {
				r = -errno;
				log_error("%s: cannot read it again: %s", name, strerror(errno));
				return r;
			}
			if ((r = thin_ir_record_create(record_max, rec)))
				return r;
		}
		thin_ir_record_visitor(*rec, &c.rec);
		r = thin_xml_parse_fd(fd, &v, &err);
		if (r)
			report(name, r, &err);
	}
	if (!r && *rec && thin_ir_record_complete(*rec)) {
		*dc = c.dc;
		c.dc = NULL;
	}
	counter_release(&c);
	*st = c.st;
	return r;
}

int thin_xml_restore_watched(int xml_fd, const char *name, struct io_engine *out,
			     size_t record_max, struct thin_xml_stats *stats,
			     void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx)
{
	const struct thin_ir_visitor *bv;
	struct thin_ir_visitor tv;
	struct tally t;
	int seekable = lseek(xml_fd, 0, SEEK_SET) == 0;
	struct thin_ir_record *rec, *rec1 = NULL;
	struct thin_xml_error err;
	struct thin_builder *b;
	struct thin_xml_stats st;
	struct thin_data_counts *dc = NULL;
	uint64_t need, have;
	int r, scanned;

	if (!record_max)
		record_max = seekable ? THIN_XML_RECORD_MAX : THIN_XML_RECORD_MAX_PIPE;
	r = thin_ir_record_create(record_max, &rec);
	if (r)
		return r;
	r = validate(xml_fd, seekable, name, &rec, &rec1, record_max, &st, &scanned, &dc);
	if (stats)
		*stats = st;
	if (r)
		goto out;
	if (!rec1 && !thin_ir_record_complete(rec) && !seekable) {
		log_error("%s: too large to restore from a pipe (it is read twice): give a file",
			  name);
		r = -EFBIG;
		goto out;
	}
	have = TP_MIN(out->size / THIN_METADATA_BLOCK_SIZE, THIN_METADATA_MAX_BLOCKS);
	need = thin_xml_blocks_needed(&st, have);
	if (need > have) {
		log_error("%s: too small for this metadata: %llu device%s and %llu mapped block%s "
			  "need %llu metadata blocks (%llu KiB), the area has %llu",
			  out->name, (unsigned long long)st.nr_devices, tp_plural(st.nr_devices),
			  (unsigned long long)st.mapped_blocks, tp_plural(st.mapped_blocks),
			  (unsigned long long)need,
			  (unsigned long long)need * 4, (unsigned long long)have);
		r = -ENOSPC;
		goto out;
	}
	r = thin_builder_create(out, &b);
	if (r) {
		log_error("%s: cannot start writing metadata: %s", out->name, strerror(-r));
		goto out;
	}
	if (dc) {	/* the recording is what was counted */
		thin_builder_take_counts(b, dc);
		dc = NULL;
	}
	/* pass 2: from the recording, or the XML again when it did not fit */
	bv = tallied(&t, &tv, thin_builder_visitor(b), progress, ctx, st.mapped_blocks);
	if (rec1) {	/* the halves: the first ends no superblock, the second starts none */
		struct thin_ir_visitor v0 = *bv, v1 = *bv;

		v0.superblock_end = NULL;
		v1.superblock_begin = NULL;
		r = thin_ir_record_replay(rec, &v0);
		if (!r)
			r = thin_ir_record_replay(rec1, &v1);
	} else if (thin_ir_record_complete(rec)) {
		r = thin_ir_record_replay(rec, bv);
	} else if (lseek(xml_fd, 0, SEEK_SET)) {
		r = -errno;
		log_error("%s: cannot read it again: %s", name, strerror(errno));
	} else if (scanned) {
		struct rescan rs = { xml_fd, &err, 0 };

		r = thin_ir_pipe(rescan, &rs, bv);
		if (r < 0 && r != rs.r) {	/* the builder's own error */
			memset(&err, 0, sizeof(err));
			snprintf(err.msg, sizeof(err.msg), "building the metadata: %s",
				 strerror(-r));
		}
		if (r > 0) {
			log_error("%s: changed while it was read", name);
			r = -EIO;
		} else if (r) {
			report(name, r, &err);
		}
	} else {
		r = thin_xml_parse_fd(xml_fd, bv, &err);
		if (r)
			report(name, r, &err);
	}
	if (!r && !thin_builder_finished(b)) {
		log_error("%s: the metadata was not completed", out->name);
		r = -EIO;
	}
	thin_builder_destroy(b);
out:
	thin_data_counts_destroy(dc);
	thin_ir_record_destroy(rec1);
	thin_ir_record_destroy(rec);
	return r;
}
