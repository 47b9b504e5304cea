/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv.c - a send stream checked, then received into a pool. See
 * pool_recv.h; the layout is in pool_stream.h.
 *
 * The check reads the stream once, front to back (a pipe is copied into
 * an unlinked temporary file as it is read), so the receive reads it a
 * second time knowing it is whole. The receive is three steps, offline
 * and live alike: a pool_change that lists an unfinished receive (not a
 * volume: vg.receives) with its new thin device (empty, or a snapshot of
 * the base); the data, each chunk into a newly allocated block, holes
 * unmapped, committed every second and when a signal stops it (offline:
 * the data device flushed, then the thin metadata committed at the same
 * transaction id; live: a flush of the receive's temporary device,
 * pool_recv_live.c, which commits the kernel's metadata), each commit
 * followed by the place reached in the VG; and a pool_change that makes
 * it a read-only volume with the stream's content uuid. A cut anywhere
 * leaves either no receive, an unfinished one at its last commit (for
 * tprecv --resume or --abort), or the whole volume. */
#include "lib/pool/pool_recv.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/stream/pool_recv_int.h"
#include "lib/pool/stream/pool_stream.h"

#include "lib/base/crc32c.h"
#include "lib/base/critical.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/thin/delta.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the check ---- */

struct reader {
	struct pool_recv *r;
	int in, spool;		/* spool: -1 when IN is the stream itself */
	unsigned char *buf;	/* a pipe's bytes (a file's are read in place) */
	struct recv_view view;	/* a file: read through a mapping */
	struct tp_crc32c_pair *pair;	/* a second thread for the crc, or NULL */
	uint64_t read, total;	/* bytes read; the file's size (0: a pipe) */
};

/* *P: the next LEN bytes (of a pipe, in the reader's buffer, copied to the
 * spool; of a file, where the view has them); 0, -EBADMSG when the stream
 * ends first (logged with WHAT), -errno. */
static int take(struct reader *rd, size_t len, const unsigned char **p, const char *what)
{
	ssize_t n = (ssize_t)len;
	int e;

	if (rd->spool < 0) {	/* a file of TOTAL bytes */
		if (rd->total - rd->read < len)
			n = (ssize_t)(rd->total - rd->read);
		else if ((e = recv_view_get(&rd->view, rd->read, len, p)))
			n = e;
	} else if ((n = pool_recv_read_full(rd->in, rd->buf, len)) >= 0) {
		*p = rd->buf;
	}
	if (n < 0) {
		log_error("reading the stream from %s: %s", rd->r->where, strerror((int)-n));
		return (int)n;
	}
	if ((size_t)n < len) {
		log_error("the stream from %s is truncated: it ends inside %s; nothing was received",
			  rd->r->where, what);
		return -EBADMSG;
	}
	if (rd->spool >= 0 && (e = tp_write_all(rd->spool, rd->buf, len))) {
		log_error("copying the stream to a temporary file: %s (set TMPDIR to a directory "
			  "with room)", strerror(-e));
		return e;
	}
	rd->read += len;
	if (len > STREAM_RECORD_SIZE)	/* data: often enough, cheap */
		pool_recv_report(rd->r, rd->read, rd->total);
	return 0;
}

/* Nothing after the END record. */
static int at_end(struct reader *rd)
{
	unsigned char b;

	if (rd->spool < 0)
		return rd->read == rd->total;
	return pool_recv_read_full(rd->in, &b, 1) == 0;
}

static int bad_record(struct pool_recv *r, uint64_t n, const char *why)
{
	log_error("the stream from %s is damaged: record %" PRIu64 ": %s; nothing was received",
		  r->where, n, why);
	return -EBADMSG;
}

static int check_header(struct reader *rd)
{
	const unsigned char *b;
	struct stream_header *h = &rd->r->h;
	const char *why = NULL;
	int e;

	if ((e = take(rd, STREAM_HEADER_SIZE, &b, "its header")) ||
	    (e = stream_header_unpack(b, h)))
		return e;
	if (h->flags & ~(STREAM_FLAG_INCREMENTAL |
			 (h->version >= 2 ? STREAM_FLAG_ENCRYPTED : 0u)))
		why = "unknown flags";
	else if (h->version != stream_version_for(h->flags))
		why = "a version its flags do not need";
	else if (!h->canonical)
		why = "bytes outside its fields not zero";
	else if ((h->flags & STREAM_FLAG_ENCRYPTED) && !vg_uuid_valid(h->luks_uuid))
		why = "bad LUKS uuid";
	else if (!h->size || h->size % 512 || h->size > POOL_VOLUME_MAX_BYTES)
		why = "impossible volume size";
	else if (!h->chunk || h->chunk % 65536 || h->chunk > (1ull << 30))
		why = "impossible chunk size";
	else if (!vg_uuid_valid(h->uuid) ||
		 ((h->flags & STREAM_FLAG_INCREMENTAL) ? !vg_uuid_valid(h->base_uuid)
						       : h->base_uuid[0] != '\0'))
		why = "bad uuids";
	else if (!vg_name_valid(h->name, NULL))
		why = "bad volume name";
	if (why) {
		log_error("the stream from %s has a damaged header (%s); nothing was received",
			  rd->r->where, why);
		return -EBADMSG;
	}
	return 0;
}

/* Check one DATA or HOLE record's place: after *END, chunk-aligned or
 * continuing a chunk begun by *PENDING, inside the volume. */
static const char *misplaced(const struct pool_recv *r, const struct stream_record *x,
			     uint64_t end, uint64_t pending)
{
	uint64_t c = r->h.chunk;

	if (!x->length || x->length > r->h.size - x->offset || x->offset > r->h.size)
		return "outside the volume";
	if (x->offset < end)
		return "out of order";
	if (pending != UINT64_MAX && (x->type != STREAM_DATA || x->offset != pending))
		return "a chunk left partly written";
	if (pending == UINT64_MAX && x->offset % c)
		return "not at a chunk boundary";
	if (x->type == STREAM_DATA && x->length > STREAM_MAX_DATA)
		return "too long";
	if (x->type == STREAM_HOLE && (x->offset + x->length) % c &&
	    x->offset + x->length != r->h.size)
		return "a hole ending inside a chunk";
	return NULL;
}

/* An encrypted stream whose volume's first bytes (DATA, P, LEN bytes; a
 * HOLE or nothing: P NULL) are not the LUKS2 header the stream names. */
static int bad_luks(struct pool_recv *r, const unsigned char *p, uint64_t len)
{
	const char *why = "none: the volume's first chunk is unmapped";

	if (p && stream_luks_header_ok(p, len, r->h.luks_uuid, &why))
		return 0;
	log_error("the stream from %s is marked encrypted with LUKS2 header %s, but its volume "
		  "begins with %s; nothing was received (run 'tpcheck' on the sending pool)",
		  r->where, r->h.luks_uuid, why);
	return -EBADMSG;
}

static int check_records(struct reader *rd)
{
	struct pool_recv *r = rd->r;
	uint64_t end = 0, pending = UINT64_MAX, c = r->h.chunk;
	int luks = (r->h.flags & STREAM_FLAG_ENCRYPTED) != 0;
	int full = !(r->h.flags & STREAM_FLAG_INCREMENTAL);
	unsigned char head[STREAM_RECORD_SIZE];
	const unsigned char *p;
	struct stream_record x;
	const char *why;
	int e;

	for (;;) {
		uint32_t crc;
		if ((e = take(rd, sizeof(head), &p, "a record (no END record)")))
			return e;
		memcpy(head, p, sizeof(head));
		stream_record_unpack(head, &x);
		crc = stream_crc_begin(head);
		if (x.type == STREAM_END) {
			if (!stream_crc_ok(head, crc))
				return bad_record(r, r->records, "bad checksum of the END record");
			if (pending != UINT64_MAX)
				return bad_record(r, r->records, "a chunk left partly written");
			if (x.offset != r->data_bytes || x.length != r->records)
				return bad_record(r, r->records, "totals differ from the records");
			if (!at_end(rd))
				return bad_record(r, r->records, "data after the END record");
			/* a full stream carries the header (an incremental one
			 * may leave it as the base has it) */
			if (luks && full && !r->records)
				return bad_luks(r, NULL, 0);
			return 0;
		}
		if (x.type != STREAM_DATA && x.type != STREAM_HOLE)
			return bad_record(r, r->records, "unknown record type");
		if ((why = misplaced(r, &x, end, pending)))
			return bad_record(r, r->records, why);
		if (x.type == STREAM_DATA) {
			if ((e = take(rd, (size_t)x.length, &p, "a data record")))
				return e;
			crc = tp_crc32c_pair(rd->pair, crc, p, (size_t)x.length);
			r->data_bytes += x.length;
			r->chunks += (x.offset + x.length + c - 1) / c - (x.offset + c - 1) / c;
		}
		if (!stream_crc_ok(head, crc))
			return bad_record(r, r->records, "bad checksum");
		/* the volume's first chunk, sent: its LUKS2 header (P still
		 * holds a DATA record's bytes) */
		if (luks && (!x.offset || (full && !r->records)) &&
		    (e = bad_luks(r, x.type == STREAM_DATA && !x.offset ? p : NULL, x.length)))
			return e;
		r->holes += x.type == STREAM_HOLE;
		end = x.offset + x.length;
		pending = x.type == STREAM_DATA && end % c && end != r->h.size ? end : UINT64_MAX;
		r->records++;
	}
}

void pool_recv_watch(struct pool_recv *r, tp_progress_fn *progress, void *ctx)
{
	r->progress = progress;
	r->progress_ctx = ctx;
}

int pool_recv_check(const char *input, tp_progress_fn *progress, void *ctx,
		    struct pool_recv **out)
{
	struct pool_recv *r = calloc(1, sizeof(*r));
	struct reader rd = { r, STDIN_FILENO, -1, NULL };
	struct stat st;
	int e;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	pool_recv_watch(r, progress, ctx);
	snprintf(r->where, sizeof(r->where), "%s", input ? input : "standard input");
	if (input && (rd.in = open(input, O_RDONLY | O_CLOEXEC)) < 0) {
		e = -errno;
		log_error("%s: %s", input, strerror(errno));
		free(r);
		return e;
	}
	if (fstat(rd.in, &st) || !S_ISREG(st.st_mode) || lseek(rd.in, 0, SEEK_SET) < 0) {
		if ((rd.spool = tp_spool_open("the stream")) < 0) {
			e = rd.spool;
			goto fail;
		}
		r->fd = rd.spool;
	} else {
		r->fd = input ? rd.in : dup(rd.in);
		rd.total = (uint64_t)st.st_size;
	}
	if (rd.spool >= 0 && tp_copybuf_alloc(STREAM_MAX_DATA, (void **)&rd.buf)) {
		e = -ENOMEM;
		goto fail;
	}
	recv_view_init(&rd.view, r->fd, rd.total);
	/* the data's crc by two threads (none: by this one) */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 && tp_crc32c_pair_start(&rd.pair))
		rd.pair = NULL;
	e = check_header(&rd);
	if (!e)
		e = check_records(&rd);
	tp_crc32c_pair_end(rd.pair);
	recv_view_end(&rd.view);
	free(rd.buf);
	pool_recv_watch(r, NULL, NULL);	/* the apply is watched anew */
	if (e)
		goto fail;
	if (input && rd.in != r->fd)
		close(rd.in);
	*out = r;
	return 0;
fail:
	if (input && rd.in != r->fd)
		close(rd.in);
	pool_recv_free(r);
	return e;
}

const char *pool_recv_luks_uuid(const struct pool_recv *r)
{
	return r->h.luks_uuid;
}

void pool_recv_free(struct pool_recv *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

/* ---- the receive ---- */

/* A change of the VG alone: the thin devices are as it says already. */
static int apply_none(struct pool *p, const void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

struct vrange {
	uint64_t begin, length;
};

struct recv_ctx {
	struct pool *p;
	struct pool_recv *r;
	const char *name;
	uint32_t dev_id;
	const struct vg_volume *base;	/* in P's VG before the change, else NULL */
	int has_base;			/* the same, kept across the VG commit */
	struct vrange *beyond;	/* mappings past the new end, to unmap */
	size_t nbeyond, cap;
	uint64_t chunk, area_off;
	uint64_t durable;	/* offline: the volume's bytes received and committed */
	uint64_t applied;	/* the same, applied since (not yet committed) */
	uint64_t count;		/* chunks counted (the resume's preflight) */
	unsigned long records;	/* records applied by this run (test pauses) */
	struct timespec last;	/* of the last commit */
	int stop;		/* the signal that stopped the receive, or 0 */
	uint64_t base_size;	/* the base's size; 0: no base, or none known */
	int live;		/* the kernel runs the pool: data through LD */
	struct recv_live_dev ld;
	struct pool_recv_result *res;
	/* offline: short runs of chunks on consecutive data blocks gathered
	 * for one write (PEND_N of at most PEND_MAX, from data block PEND_D),
	 * written before every commit */
	unsigned char *pend;
	uint64_t pend_d, pend_n, pend_max;
	/* offline: where the data goes (pool_data_bulk; OWN: O_DIRECT, every
	 * run gathered through PEND, which is aligned) */
	struct io_engine *data, *own;
};

#define RECV_WRITE (4u << 20)	/* bytes gathered for one write, at most */

static int collect_beyond(void *ctx, const struct thin_delta_range *x)
{
	struct recv_ctx *c = ctx;
	uint64_t first = (c->r->h.size + c->chunk - 1) / c->chunk;

	if (x->begin + x->length <= first)
		return 0;
	if (c->nbeyond == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct vrange *n = realloc(c->beyond, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->beyond = n;
		c->cap = cap;
	}
	uint64_t b = x->begin > first ? x->begin : first;
	c->beyond[c->nbeyond++] = (struct vrange){ b, x->begin + x->length - b };
	return 0;
}

static int unmap(struct pool *p, uint32_t dev, uint64_t begin, uint64_t n)
{
	for (uint64_t v = begin; v < begin + n; v++) {
		int e = thin_remove_mapping(pool_thin(p), dev, v);
		if (e && e != -ENODATA)
			return e;
	}
	return 0;
}

/* Data blocks D.. (N of them) written: their write-back begins now, on
 * each data device, so the next commit's flush has little left to wait
 * for (the copy goes on meanwhile). */
static void start_writeback(struct recv_ctx *c, uint64_t d, uint64_t n)
{
	while (n) {
		struct io_engine *io;
		uint64_t off, run;
		if (pool_data_locate(c->p, d, &io, &off, &run) || !run)
			return;
		if (run > n)
			run = n;
		io_fd_writeback(io, off, run * c->chunk);
		d += run;
		n -= run;
	}
}

/* N chunks in BUF onto data blocks D..: 0 or -errno, logged. */
static int write_blocks(struct recv_ctx *c, uint64_t d, const void *buf, uint64_t n)
{
	struct pool *p = c->p;
	int e = io_write(c->data, c->area_off + d * c->chunk, buf, n * c->chunk);

	if (e)
		log_error("pool %s: writing data chunks %" PRIu64 "-%" PRIu64 ": %s", pool_name(p),
			  d, d + n - 1, strerror(-e));
	else if (!c->own)
		start_writeback(c, d, n);
	return e;
}

/* The gathered chunks written: 0 or -errno, logged. */
static int put_pending(struct recv_ctx *c)
{
	int e;

	if (!c->pend_n)
		return 0;
	e = write_blocks(c, c->pend_d, c->pend, c->pend_n);
	c->pend_n = 0;
	return e;
}

/* N chunks in BUF onto data blocks D.. that follow each other: a short
 * run is gathered with the runs before it while their blocks follow each
 * other (one write of up to RECV_WRITE bytes), a long one is written from
 * where it is (BUF is the stream file's mapping: no copy); with O_DIRECT
 * every run goes through the aligned buffer. */
static int put_blocks(struct recv_ctx *c, uint64_t d, const unsigned char *buf, uint64_t n)
{
	int direct = !c->own && n * 2 >= c->pend_max;
	int e;

	while (n) {
		uint64_t k;
		if (c->pend_n && (direct || d != c->pend_d + c->pend_n ||
				  c->pend_n == c->pend_max) && (e = put_pending(c)))
			return e;
		if (direct)
			return write_blocks(c, d, buf, n);
		if (!c->pend_n)
			c->pend_d = d;
		k = c->pend_max - c->pend_n < n ? c->pend_max - c->pend_n : n;
		memcpy(c->pend + c->pend_n * c->chunk, buf, k * c->chunk);
		c->pend_n += k;
		d += k;
		buf += k * c->chunk;
		n -= k;
	}
	return 0;
}

int pool_recv_map_runs(struct pool *p, uint32_t dev_id, uint64_t vfirst, uint64_t n,
		       int (*put)(void *ctx, uint64_t d0, uint64_t start, uint64_t k), void *ctx,
		       uint64_t *mapped, int *alloc_failed)
{
	uint64_t start = 0, d0 = 0, d = 0;
	int e;

	*alloc_failed = 0;
	for (uint64_t i = 0; i <= n; i++) {
		if (i < n && (e = thin_alloc_data_block(pool_thin(p), &d))) {
			*alloc_failed = 1;
			return e;
		}
		if (i && (i == n || d != d0 + (i - start))) {	/* a run of blocks ends */
			uint64_t k = i - start;
			if ((e = put(ctx, d0, start, k)))
				return e;
			for (uint64_t j = 0; j < k; j++)
				if ((e = thin_insert_mapping_alloced(pool_thin(p), dev_id,
								     vfirst + start + j, d0 + j)))
					return e;
			*mapped += k;
			start = i;
		}
		if (i == start)
			d0 = d;
	}
	return 0;
}

struct put_run_arg {
	struct recv_ctx *c;
	const unsigned char *buf;
};

static int put_run_at(void *ctx, uint64_t d0, uint64_t start, uint64_t k)
{
	struct put_run_arg *a = ctx;

	return put_blocks(a->c, d0, a->buf + start * a->c->chunk, k);
}

/* Write the N chunks in BUF at virtual blocks VB..: each onto a new data
 * block, mapped (over the block a cut run mapped there, which goes back
 * to free); consecutive blocks in one write. */
static int put_chunks(void *ctx, uint64_t vb, const void *buf, uint64_t n)
{
	struct recv_ctx *c = ctx;
	struct pool *p = c->p;
	const unsigned char *b = buf;
	int e, alloc_failed = 0;

	if (c->live) {
		if (!(e = pool_recv_live_chunks(&c->ld, vb, buf, n)))
			c->res->chunks += n;
		return e;
	}
	e = pool_recv_map_runs(p, c->dev_id, vb, n, put_run_at, &(struct put_run_arg){ c, b },
			       &c->res->chunks, &alloc_failed);
	if (e && alloc_failed && e == -ENOSPC)
		log_error("pool %s: out of data space", pool_name(p));
	return e;
}

static int put_hole(void *ctx, uint64_t first, uint64_t n)
{
	struct recv_ctx *c = ctx;

	if (!c->has_base)
		return 0;
	return c->live ? pool_recv_live_hole(&c->ld, first, n) : unmap(c->p, c->dev_id, first, n);
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Make what the receive applied durable: the data device flushed, the
 * thin metadata committed (the same transaction id: only the receive's
 * own thin device changed), then the progress mark in the VG. A cut
 * between the two leaves the mark behind the data: a resume writes those
 * chunks again, over the old. */
static int commit_progress(struct recv_ctx *c)
{
	struct pool *p = c->p;
	struct vg_volume *v;
	struct vg *next;
	int e;

	if (c->live) {
		if ((e = pool_recv_live_sync(&c->ld)))	/* the kernel commits */
			return e;
	} else if ((e = put_pending(c))) {
		return e;
	} else if ((e = io_flush(c->data))) {
		log_error("pool %s: flushing the data device: %s", pool_name(p), strerror(-e));
		return e;
	} else if ((e = thin_commit(pool_thin(p)))) {
		log_error("pool %s: committing the thin metadata: %s", pool_name(p), strerror(-e));
		return e;
	}
	if ((e = vg_clone(pool_vg(p), &next)))
		return e;
	if (!(v = vg_find_receive(next, c->name))) {
		vg_free(next);
		return TP_BUG("pool %s lost the receive of %s", pool_name(p), c->name);
	}
	v->received = c->applied;
	if ((e = pool_commit_vg_progress(p, next)))
		return e;
	c->durable = c->applied;
	clock_gettime(CLOCK_MONOTONIC, &c->last);
	return 0;
}

/* After each record: commit every second, and stop (committed) at a
 * signal. */
static int at_record(void *ctx, uint64_t end)
{
	struct recv_ctx *c = ctx;
	int e;

	c->applied = end;
	tp_test_pause_n("recv-record", ++c->records);
	c->stop = tp_critical_pending();
	if (!c->stop && since(&c->last) < 1.0)
		return 0;
	if ((e = commit_progress(c)))
		return e;
	return c->stop ? -EINTR : 0;
}

static int count_chunks(void *ctx, uint64_t vb, const void *buf, uint64_t n)
{
	(void)vb;
	(void)buf;
	((struct recv_ctx *)ctx)->count += n;
	return 0;
}

static int count_hole(void *ctx, uint64_t first, uint64_t n)
{
	(void)ctx;
	(void)first;
	(void)n;
	return 0;
}

/* The pool's free data chunks against NEED: -ENOSPC, logged. */
static int room_for(struct pool *p, const char *name, uint64_t need)
{
	uint64_t du, dt, chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	char a[32], b[32];
	int e;

	if ((e = thin_usage(pool_thin(p), NULL, NULL, &du, &dt)))
		return e;
	if (dt - du >= need)
		return 0;
	log_error("pool %s has %s of free data space; receiving %s needs %s: extend the pool "
		  "(tpextend) or free space first", pool_name(p),
		  tp_size_format((dt - du) * chunk, 'h', a, sizeof(a)), name,
		  tp_size_format(need * chunk, 'h', b, sizeof(b)));
	return -ENOSPC;
}

/* "X of SIZE": how far the receive's commits reached. */
static const char *reached(const struct recv_ctx *c, char *buf, size_t len)
{
	char a[32], b[32];

	snprintf(buf, len, "%s of %s", tp_size_format(c->durable, 'h', a, sizeof(a)),
		 tp_size_format(c->r->h.size, 'h', b, sizeof(b)));
	return buf;
}

/* Every chunk is durable: the volume appears, read-only, with the
 * stream's content uuid. A signal that came meanwhile is said once the
 * volume is made; it ends tprecv at the end of the critical section (as
 * in the raw import). */
static int recv_finish(struct pool *p, struct recv_ctx *c)
{
	struct vg *next;
	int e;

	if ((e = vg_clone(pool_vg(p), &next)))
		return e;
	if ((e = vg_finish_receive(next, c->name))) {
		vg_free(next);
		if (e == -ENOENT)
			return TP_BUG("pool %s lost the receive of %s", pool_name(p), c->name);
		log_error("pool %s: the receive of %s cannot end: %s", pool_name(p), c->name,
			  strerror(-e));
		return e;
	}
	if ((e = pool_change(p, next, apply_none, NULL)))
		return e;
	if (pool_op_publish(p, c->name))
		log_warn("pool %s: %s was received but could not be activated; activate it with "
			 "'tpactivate %s %s'", pool_name(p), c->name, pool_name(p), c->name);
	if (tp_critical_pending())
		log_warn("pool %s: volume %s was received whole; the signal that came meanwhile "
			 "ends tprecv now", pool_name(p), c->name);
	return 0;
}

/* After the receive's thin device exists: the data from byte FROM of the
 * volume, committed every second, then the change that makes it a volume.
 * A failure or signal leaves the receive unfinished at its last commit,
 * said in one line. The base's chunks past the new end (a longer base)
 * are unmapped before the first record, in the first commit: a run that
 * goes on from a later place finds them gone already. */
static int recv_data(struct pool *p, struct recv_ctx *c, uint64_t from)
{
	struct recv_sink sink = { c, put_chunks, put_hole, at_record };
	struct thin_delta_visitor bv = { c, NULL, collect_beyond };
	uint64_t first_beyond = (c->r->h.size + c->chunk - 1) / c->chunk;
	uint64_t size = c->base_size > c->r->h.size ? c->base_size : c->r->h.size;
	int beyond = c->has_base && !from && (c->base_size > c->r->h.size || !c->base_size);
	char a[80];
	int e = 0;

	c->durable = c->applied = from;
	clock_gettime(CLOCK_MONOTONIC, &c->last);
	/* signals wait, and the copy looks for them after every record; the
	 * section lasts until the receive is a volume, or is said to be
	 * unfinished (the callers hold one from the receive's first change:
	 * a signal that comes before the copy stops it at its first record,
	 * one after it waits for the volume) */
	tp_critical_begin();
	tp_test_pause("recv-begun");
	if (c->live) {
		/* the base's chunks past the new end are discarded through a
		 * device that covers them */
		e = pool_recv_live_open(p, c->dev_id, (size + c->chunk - 1) / c->chunk * c->chunk /
					512, c->count, &c->ld);
		if (!e && beyond && size > c->r->h.size)
			e = pool_recv_live_hole(&c->ld, first_beyond,
						(size + c->chunk - 1) / c->chunk - first_beyond);
	} else if (beyond) {	/* (a base of unknown size: its mappings say) */
		e = thin_mappings_io(pool_thin_io(p), 0, c->dev_id, &bv);
		for (size_t i = 0; !e && i < c->nbeyond; i++)
			e = unmap(p, c->dev_id, c->beyond[i].begin, c->beyond[i].length);
	}
	if (!e && !c->live) {
		c->pend_max = c->chunk < RECV_WRITE ? RECV_WRITE / c->chunk : 1;
		if (tp_copybuf_alloc(c->pend_max * c->chunk, (void **)&c->pend))
			e = -ENOMEM;
		else
			e = pool_data_bulk(p, 0, &c->data, &c->own);
	}
	if (!e && !tp_test_fail("recv-skip-data"))	/* proves the tests see it */
		e = pool_recv_replay(c->r, c->chunk, from, &sink);
	if (!e && (c->durable < c->r->h.size || c->pend_n)) {
		c->applied = c->r->h.size;
		e = commit_progress(c);
	}
	free(c->pend);	/* (what was gathered and not written is not committed) */
	c->pend = NULL;
	c->pend_n = 0;
	io_destroy(c->own);
	c->own = NULL;
	if (c->live && pool_recv_live_close(&c->ld) && !e)
		log_warn("pool %s: the next tptools command on the pool removes the temporary "
			 "device left", pool_name(p));
	if (e) {
		int a2 = c->live ? 0 : thin_abort(pool_thin(p));
		if (a2)
			pool_latch_read_only(p, "dropping the uncommitted part of the receive "
					     "failed");
		log_error("pool %s: the receive of %s %s at %s; what it received "
			  "is kept, but it is no volume: finish it with 'tprecv --resume' and "
			  "the same stream, or drop it with 'tprecv --abort %s %s'", pool_name(p),
			  c->name, c->stop ? "was stopped by a signal" : "stopped",
			  reached(c, a, sizeof(a)),
			  c->name, pool_name(p));
		tp_critical_end();	/* a signal takes effect here */
		return c->stop ? -EINTR : e == -EINTR ? -EIO : e;
	}
	tp_test_pause("recv-data-done");
	e = recv_finish(p, c);
	tp_critical_end();
	return e;
}

/* The receive's first change: its thin device, empty or the base's
 * snapshot; the VG lists it as an unfinished receive, not as a volume. */
static int apply_begin(struct pool *p, const void *arg)
{
	const struct recv_ctx *c = arg;
	const struct vg_volume *v = vg_find_receive(pool_vg(p), c->name);
	const struct vg_volume *o = v && v->origin[0] ? vg_find_volume(pool_vg(p), v->origin) : NULL;

	if (!v || (c->has_base && !o)) {
		return TP_BUG("pool %s lost the receive of %s", pool_name(p), c->name);
	}
	/* offline the thin transaction; live pool messages (an active base
	 * suspended for the snapshot) */
	return o ? pool_op_snap(p, c->dev_id, o) : pool_op_create(p, c->dev_id);
}

/* The read-only volume whose content is the stream's base. */
static const struct vg_volume *find_base(const struct pool *p, const struct pool_recv *r)
{
	for (unsigned i = 0; i < pool_vg(p)->nr_volumes; i++) {
		const struct vg_volume *v = &pool_vg(p)->volumes[i];
		if (v->read_only && !strcmp(v->content_uuid, r->h.base_uuid))
			return v;
	}
	log_error("pool %s has no read-only volume with the stream's base (content uuid %s): "
		  "receive the base first; a volume made writable since no longer counts as it",
		  pool_name(p), r->h.base_uuid);
	return NULL;
}

/* An incremental stream's chunks join its base's: both encrypted with the
 * same LUKS2 header, or both plain. -EXDEV, logged. */
static int same_luks(const struct pool *p, const struct vg_volume *base,
		     const struct pool_recv *r)
{
	if (!strcmp(base->luks_uuid, r->h.luks_uuid))
		return 0;
	if (!base->luks_uuid[0])
		log_error("pool %s: the stream is encrypted (LUKS2 header %s) but its base %s is a "
			  "plain volume; nothing was received", pool_name(p), r->h.luks_uuid,
			  base->name);
	else if (!r->h.luks_uuid[0])
		log_error("pool %s: the stream is not encrypted but its base %s is (LUKS2 header "
			  "%s); nothing was received", pool_name(p), base->name, base->luks_uuid);
	else
		log_error("pool %s: the stream is encrypted with LUKS2 header %s, its base %s with "
			  "%s: they are not the same volume's; nothing was received", pool_name(p),
			  r->h.luks_uuid, base->name, base->luks_uuid);
	return -EXDEV;
}

static int preflight(struct pool *p, struct recv_ctx *c)
{
	struct pool_recv *r = c->r;
	char a[32], b[32];
	int e;

	if ((e = pool_name_free(p, c->name)))
		return e;
	for (unsigned i = 0; i < pool_vg(p)->nr_volumes; i++)
		if (!strcmp(pool_vg(p)->volumes[i].content_uuid, r->h.uuid)) {
			log_error("pool %s: volume %s already holds this stream's content (uuid %s)",
				  pool_name(p), pool_vg(p)->volumes[i].name, r->h.uuid);
			return -EEXIST;
		}
	for (unsigned i = 0; i < pool_vg(p)->nr_receives; i++)
		if (!strcmp(pool_vg(p)->receives[i].content_uuid, r->h.uuid)) {
			log_error("pool %s: this stream's receive into %s was cut short: finish it "
				  "with 'tprecv --resume' or drop it with 'tprecv --abort %s %s'",
				  pool_name(p), pool_vg(p)->receives[i].name, pool_vg(p)->receives[i].name, pool_name(p));
			return -EEXIST;
		}
	if (r->h.chunk != c->chunk) {
		log_error("pool %s has %s chunks, the stream %s chunks: receive it into a pool "
			  "with the sender's chunk size", pool_name(p),
			  tp_size_format(c->chunk, 'h', a, sizeof(a)),
			  tp_size_format(r->h.chunk, 'h', b, sizeof(b)));
		return -EXDEV;
	}
	if ((r->h.flags & STREAM_FLAG_INCREMENTAL) && !(c->base = find_base(p, r)))
		return -ENOENT;
	if (c->base && (e = same_luks(p, c->base, r)))
		return e;
	if (pool_is_live(p))
		return pool_recv_live_preflight(p, c->base ? c->base->name : "",
						c->base && (r->holes || c->base->size > r->h.size),
						r->chunks);
	if ((e = room_for(p, c->name, r->chunks)))
		return e;
	return pool_guard(p, "receiving", "nothing was received", 0);
}

/* Live: the VG's next thin device id moves past ID before the kernel has
 * it, so a thin device a crash leaves there (no temporary device to say
 * whose, after a reboot; tpcheck reports it) is never handed out again. */
static int reserve_dev_id(struct pool *p, uint32_t id)
{
	struct vg *next;
	int e;

	if (id > VG_DEV_ID_MAX || pool_vg(p)->next_dev_id > id)
		return 0;
	if ((e = vg_clone(pool_vg(p), &next)))
		return e;
	next->next_dev_id = id + 1;
	return pool_commit_vg(p, next);
}

static int pick_dev_id(struct pool *p, uint32_t *dev_id)
{
	uint32_t id = pool_vg(p)->next_dev_id;
	int e;

	if (pool_is_live(p)) {
		if ((e = pool_recv_live_dev_id(p, &id)) || (e = reserve_dev_id(p, id)))
			return e;
	} else {
		for (struct thin_ir_device d; !thin_device_info(pool_thin(p), id, &d);)
			id++;
	}
	if (id > VG_DEV_ID_MAX) {
		log_error("pool %s: no thin device id left", pool_name(p));
		return -ENOSPC;
	}
	*dev_id = id;
	return 0;
}

/* tprecv --resume: the unfinished receive of R's content (named NAME, if
 * given) goes on from its last commit. */
/* "uuid U, N bytes, plain" or "..., encrypted, LUKS uuid L", into BUF. */
static void stream_describe(char *buf, size_t len, const char *uuid, uint64_t size,
			    const char *luks_uuid)
{
	snprintf(buf, len, "uuid %s, %" PRIu64 " bytes, %s%s", uuid, size,
		 luks_uuid[0] ? "encrypted, LUKS uuid " : "plain", luks_uuid);
}

static int recv_resume(struct pool *p, struct recv_ctx *c, const char *name)
{
	struct recv_sink count = { c, count_chunks, count_hole, NULL };
	const struct vg_volume *v = NULL, *o;
	int e;

	for (unsigned i = 0; i < pool_vg(p)->nr_receives && !v; i++)
		if (name ? !strcmp(pool_vg(p)->receives[i].name, name)
			 : !strcmp(pool_vg(p)->receives[i].content_uuid, c->r->h.uuid))
			v = &pool_vg(p)->receives[i];
	if (!v) {
		log_error("pool %s has no unfinished receive %s%s%s: receive the stream without "
			  "--resume", pool_name(p), name ? "named " : "of this stream (uuid ",
			  name ? name : c->r->h.uuid, name ? "" : ")");
		return -ENOENT;
	}
	if (v->raw) {
		log_error("pool %s: %s is a raw import that was cut short (tprecv --format raw): "
			  "its input was read once, so it cannot go on; drop it with 'tprecv "
			  "--abort %s %s' and import again", pool_name(p), v->name, v->name,
			  pool_name(p));
		return -EOPNOTSUPP;
	}
	if (strcmp(v->content_uuid, c->r->h.uuid) || v->size != c->r->h.size ||
	    strcmp(v->luks_uuid, c->r->h.luks_uuid)) {
		char was[160], is[160];

		/* what differs is named: content uuid, size, or the encryption
		 * (plain, or the LUKS uuid of an encrypted stream) */
		stream_describe(was, sizeof(was), v->content_uuid, v->size, v->luks_uuid);
		stream_describe(is, sizeof(is), c->r->h.uuid, c->r->h.size, c->r->h.luks_uuid);
		log_error("pool %s: the unfinished receive of %s is of another stream (%s), not "
			  "this one (%s); nothing was received", pool_name(p), v->name, was, is);
		return -ENOENT;
	}
	if (c->r->h.chunk != c->chunk) {
		log_error("pool %s: the stream's chunk size differs from the pool's; nothing was "
			  "received", pool_name(p));
		return -EXDEV;
	}
	/* (V points into the VG that the first commit replaces) */
	snprintf(c->res->name, sizeof(c->res->name), "%s", v->name);
	c->name = c->res->name;
	c->dev_id = v->dev_id;
	c->has_base = (c->r->h.flags & STREAM_FLAG_INCREMENTAL) != 0;
	snprintf(c->res->base, sizeof(c->res->base), "%s", v->origin);
	c->res->size = v->size;
	c->res->data_bytes = c->r->data_bytes;
	c->res->resumed_at = v->received;
	/* cut before its first commit: the base's chunks past the end go
	 * (its size, when it is still there, says whether there are any) */
	o = v->origin[0] && !v->received ? vg_find_volume(pool_vg(p), v->origin) : NULL;
	c->base_size = o ? o->size : 0;
	if ((e = pool_recv_replay(c->r, c->chunk, v->received, &count)))
		return e;
	if (c->live)
		e = pool_recv_live_preflight(p, v->origin, c->has_base && (c->r->holes ||
					     c->base_size > c->r->h.size), c->count);
	else if (!(e = room_for(p, c->name, c->count)))
		e = pool_guard(p, "receiving", "nothing was received", 0);
	return e ? e : recv_data(p, c, c->res->resumed_at);
}

int pool_recv_apply(struct pool *p, struct pool_recv *r, const char *name, unsigned flags,
		    struct pool_recv_result *res)
{
	struct recv_ctx c = { p, r, name ? name : r->h.name };
	const struct vg_volume *base;
	struct vg_volume v;
	struct vg *next;
	int e;

	memset(res, 0, sizeof(*res));
	c.chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	c.area_off = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	c.res = res;
	c.live = pool_is_live(p);
	if (flags & POOL_RECV_RESUME) {
		e = recv_resume(p, &c, name);
		goto out;
	}
	if ((e = preflight(p, &c)))
		goto out;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", c.name);
	if (c.base)
		snprintf(v.origin, sizeof(v.origin), "%s", c.base->name);
	v.size = r->h.size;
	v.creation_time = (int64_t)time(NULL);
	v.read_only = 1;
	snprintf(v.content_uuid, sizeof(v.content_uuid), "%s", r->h.uuid);
	snprintf(v.luks_uuid, sizeof(v.luks_uuid), "%s", r->h.luks_uuid);
	if ((e = pick_dev_id(p, &v.dev_id)))
		goto out;
	if (c.base)	/* live, the VG C.base pointed into has been replaced */
		c.base = vg_find_volume(pool_vg(p), v.origin);
	c.dev_id = v.dev_id;
	c.has_base = c.base != NULL;
	base = c.base;
	c.base = NULL;
	snprintf(res->name, sizeof(res->name), "%s", v.name);
	snprintf(res->base, sizeof(res->base), "%s", v.origin);
	res->size = v.size;
	res->data_bytes = r->data_bytes;
	c.count = r->chunks;
	c.base_size = base ? base->size : 0;
	if ((e = vg_clone(pool_vg(p), &next)))
		goto out;
	next->next_dev_id = v.dev_id + 1;
	/* listed as an unfinished receive with its thin device first, then
	 * the data, then the change that makes it a volume */
	if ((e = vg_add_receive(next, &v))) {
		vg_free(next);
		goto out;
	}
	/* a signal from the first change on waits for recv_data to say
	 * where the receive stands */
	tp_critical_begin();
	if (!(e = pool_change(p, next, apply_begin, &c)))
		e = recv_data(p, &c, 0);
	tp_critical_end();
out:
	free(c.beyond);
	return e;
}

static int apply_delete(struct pool *p, const void *arg)
{
	const struct vg_volume *v = arg;

	return pool_op_delete(p, v->dev_id, NULL);
}

int pool_recv_abort(struct pool *p, const char *name)
{
	struct vg_volume *v = vg_find_receive(pool_vg(p), name), gone;
	struct vg *next;
	int e;

	if (!v) {
		log_error("pool %s has no unfinished receive named %s (tpstatus %s lists them)",
			  pool_name(p), name, pool_name(p));
		return -ENOENT;
	}
	gone = *v;
	if ((e = vg_clone(pool_vg(p), &next)))
		return e;
	if ((e = vg_remove_receive(next, name))) {
		vg_free(next);
		return e;
	}
	return pool_change(p, next, apply_delete, &gone);
}

/* ---- a new volume filled live (pool_recv_live_fill) ---- */

static int apply_create(struct pool *p, const void *arg)
{
	const uint32_t *dev_id = arg;

	return pool_op_create(p, *dev_id);
}

int pool_recv_live_fill(struct pool *p, const char *name, uint64_t size, const char *luks_uuid,
			int activation_skip, uint64_t need, pool_recv_fill_fn *fill, void *arg)
{
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	struct recv_live_dev ld;
	struct vg_volume v;
	struct vg *next;
	char path[TP_DM_NAME_MAX + 16];
	int e;

	if (!pool_is_live(p))
		return TP_BUG("pool %s: a live fill of an inactive pool", pool_name(p));
	if ((e = pool_name_free(p, name)) ||
	    (e = pool_guard(p, "creating a volume", "nothing was changed", 0)) ||
	    (e = pool_recv_live_preflight(p, "", 0, need)))
		return e;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.size = size;
	v.creation_time = (int64_t)time(NULL);
	v.activation_skip = activation_skip;
	/* as a raw import's: read-only with a content uuid while it is no
	 * volume, writable without one once it is (vg_finish_receive); it
	 * cannot go on, only be dropped */
	v.read_only = 1;
	v.raw = 1;
	snprintf(v.luks_uuid, sizeof(v.luks_uuid), "%s", luks_uuid ? luks_uuid : "");
	if ((e = vg_uuid_generate(v.content_uuid)) || (e = pick_dev_id(p, &v.dev_id)) ||
	    (e = vg_clone(pool_vg(p), &next)))
		return e;
	next->next_dev_id = v.dev_id + 1;
	/* an unfinished receive with its empty thin device, then FILL's bytes
	 * flushed through a temporary device, then the change that makes it
	 * a volume: killed before that, it is no volume, and tprecv --abort
	 * drops it */
	if ((e = vg_add_receive(next, &v))) {
		vg_free(next);
		return e;
	}
	if ((e = pool_change(p, next, apply_create, &v.dev_id)))
		return e;
	tp_test_pause("fill-begun");
	tp_critical_begin();
	e = pool_recv_live_open(p, v.dev_id, (size + chunk - 1) / chunk * chunk / 512, need, &ld);
	if (!e)
		e = tp_dm_path(path, sizeof(path), ld.dm);
	if (!e)
		e = fill(arg, path);
	if (!e && tp_critical_pending())
		e = -EINTR;
	if (!e)
		e = pool_recv_live_sync(&ld);	/* the kernel commits its metadata */
	if (pool_recv_live_close(&ld) && !e)
		log_warn("pool %s: the next tptools command on the pool removes the temporary "
			 "device left", pool_name(p));
	if (e) {
		/* dropped in one more change, as a failed raw import is */
		if (pool_recv_abort(p, name))
			log_error("pool %s: %s was not made%s; what was written is no volume: "
				  "drop it with 'tprecv --abort %s %s'", pool_name(p), name,
				  e == -EINTR ? " (stopped by a signal)" : "", name, pool_name(p));
		else
			log_error("pool %s: %s was not made%s; what was written is dropped",
				  pool_name(p), name, e == -EINTR ? " (stopped by a signal)" : "");
		tp_critical_end();
		return e;
	}
	tp_critical_end();
	tp_test_pause("fill-done");
	if ((e = vg_clone(pool_vg(p), &next)))
		return e;
	if ((e = vg_finish_receive(next, name))) {
		vg_free(next);
		return e == -ENOENT ? TP_BUG("pool %s lost the new volume %s", pool_name(p), name)
				    : e;
	}
	return pool_change(p, next, apply_none, NULL);
}
