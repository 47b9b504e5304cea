/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_send.c - a volume's content as a plain image or a send stream.
 * See pool_send.h; the stream's layout is in pool_stream.h.
 *
 * The volume's mappings come from the delta walker (metadata/thin/delta.h):
 * one device against itself for the raw image and a full stream (runs of
 * consecutive virtual and data blocks), the base against the volume for
 * an incremental stream (only what differs; shared subtrees unread). Each
 * run is read from the data area in pieces of at most 4 MiB and written
 * out: raw, with the gaps as zeros or holes; streamed, as DATA records with
 * HOLE records for what is unmapped. The reads run ahead of the writes: a
 * writer thread (lib/base/fdwriter.h) writes the pieces in order, each
 * record with one writev after its crc is taken there, while the next
 * piece is read into another of BUFS buffers. On a live pool the mappings come from
 * a kernel metadata snapshot and the data device is read with O_DIRECT
 * (pool_send_src.c).
 *
 * A raw image of an inactive pool on one data image file, written to a pipe,
 * a socket or a character device, moves no byte through user space: the
 * kernel copies each piece from the data image's page cache to the output
 * itself (sendfile), in the same pieces and order, without the writer
 * thread. Into a regular file the writer stays (the kernel's copy goes 64
 * KiB at a time and was slower; copy_file_range would let XFS or btrfs
 * share the data image's extents with the export, so the pool's next write
 * to those chunks would need new room in its file system). A piece the
 * kernel cannot move that way (an output it refuses, an error) is copied
 * through a buffer instead, whose read and write report the error.
 *
 * A regular file that already holds bytes where the image goes (opened
 * without truncation) has them punched out over the image's holes, or
 * written over with zeros where its file system punches none (old_bytes). */
#include "lib/pool/pool_send.h"
#include "lib/pool/core/core.h"
#include "lib/pool/stream/pool_send_src.h"
#include "lib/pool/stream/pool_stream.h"

#include "lib/base/critical.h"
#include "lib/base/fdwriter.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/dev/discard.h"
#include "metadata/thin/delta.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_SIZE (4u << 20)
#define BUFS 4u		/* pieces in flight: read ahead of the writer */

struct raw {
	struct pool *p;
	const char *vol;
	int fd, seekable;
	uint64_t start;			/* the file's offset the image begins at */
	uint64_t stale;			/* image bytes up to here held the file's old bytes */
	int no_punch;			/* the file system punches no holes: zeros */
	struct io_engine *data;		/* the data device (pool_send_src.h) */
	uint64_t chunk, size;		/* bytes */
	uint64_t area_off, area_size;	/* the data area on the data device */
	uint64_t pos;			/* bytes of the image done */
	struct tp_fdwriter *out;	/* writes FD in order, beside the reads */
	int direct, in_fd;		/* zero copy: the kernel copies from IN_FD */
	unsigned char *buf;		/* zero copy: BUF_SIZE for what it cannot move */
	const unsigned char *zeros;	/* BUF_SIZE zeros (gaps on a pipe) */
	struct pool_send_stats *st;
	tp_progress_fn *progress;
	void *progress_ctx;
	unsigned long writes;		/* for the send-write=N test pause */
	int logged;			/* the write error is told */
};

/* A write error R of the writer, told once. */
static int write_failed(struct raw *w, int r)
{
	if (r && r != -EINTR && !w->logged) {
		w->logged = 1;
		log_error("writing the image of %s/%s: %s", pool_name(w->p), w->vol, strerror(-r));
	}
	return r;
}

/* Before each write: the test pause and the signal check (signals wait,
 * pool_send_*, and are looked for between writes). */
static int step(struct raw *w)
{
	tp_test_pause_n("send-write", ++w->writes);
	return tp_critical_pending() ? -EINTR : 0;
}

/* One piece of the image queued: HEAD (HLEN bytes) then B (LEN bytes: a
 * buffer of the writer's, or memory that stays as it is). */
static int write_piece(struct raw *w, const void *head, size_t hlen, const void *b, size_t len)
{
	int r = step(w);

	if (r)
		return r;
	if (w->direct)	/* zero copy: no writer thread (no head either) */
		return write_failed(w, tp_write_all(w->fd, b, len));
	return write_failed(w, tp_fdwriter_put(w->out, head, hlen, b, len));
}

/* A buffer of the writer's to read the next piece into: NULL (the write
 * error logged, *R set) once a write failed. */
static unsigned char *next_buf(struct raw *w, int *r)
{
	unsigned char *b = tp_fdwriter_buf(w->out);

	if (!b) {	/* a write failed: an empty put returns its error */
		*r = write_failed(w, tp_fdwriter_put(w->out, NULL, 0, NULL, 0));
		if (!*r)
			*r = -EIO;
	}
	return b;
}

/* Progress: the image done up to byte AT of the volume. */
static void report(struct raw *w, uint64_t at)
{
	if (w->progress)
		w->progress(w->progress_ctx, at, w->size);
}

/* Zeros written up to byte END of the image. */
static int write_zeros(struct raw *w, uint64_t end)
{
	int r;

	if (!w->zeros && !(w->zeros = calloc(1, BUF_SIZE)))
		return -ENOMEM;
	while (w->pos < end) {
		size_t n = end - w->pos < BUF_SIZE ? (size_t)(end - w->pos) : BUF_SIZE;
		if ((r = write_piece(w, NULL, 0, w->zeros, n)))
			return r;
		w->pos += n;
		report(w, w->pos);
	}
	return 0;
}

/* The file's old bytes from W->pos up to byte END of the image made a
 * hole (the writer seeks over it), or, where the file system punches
 * none, written over with zeros. The hole is punched at once: its range
 * is not one the writer still has to write (the image's pieces do not
 * overlap), so the order does not matter. */
static int old_bytes(struct raw *w, uint64_t end)
{
	int r;

	if (!w->no_punch) {
		r = tp_test_fail("send-punch") ? -EOPNOTSUPP :
			tp_discard(w->fd, TP_DISCARD_PUNCH, w->start + w->pos, end - w->pos);
		if (!r)
			return write_failed(w, tp_fdwriter_skip(w->out, end - w->pos));
		w->no_punch = 1;	/* any refusal: zeros, whose write tells an error */
	}
	return write_zeros(w, end);
}

/* Zeros (or a hole) up to byte END of the image. */
static int gap(struct raw *w, uint64_t end)
{
	int r;

	if (end <= w->pos)
		return 0;
	if (w->seekable && w->pos < w->stale) {	/* over the file's old bytes */
		uint64_t e = end < w->stale ? end : w->stale;
		if ((r = old_bytes(w, e)))
			return r;
		w->pos = e;
		report(w, w->pos);
		if (end == e)
			return 0;
	}
	if (w->seekable) {	/* a hole: the writer seeks over it in turn */
		if ((r = write_failed(w, tp_fdwriter_skip(w->out, end - w->pos))))
			return r;
		w->pos = end;
		report(w, w->pos);
		return 0;
	}
	return write_zeros(w, end);
}

/* Data chunks FIRST..FIRST+N-1 lie in the data area: 0, or -EUCLEAN
 * logged naming the first chunk beyond it (damaged metadata). */
static int in_area(const struct raw *w, uint64_t first, uint64_t n)
{
	uint64_t chunks = w->area_size / w->chunk;

	if (first < chunks && n <= chunks - first)
		return 0;
	log_error("pool %s: volume %s maps data chunk %" PRIu64 " beyond the data area; run "
		  "tpcheck %s", pool_name(w->p), w->vol, first < chunks ? chunks : first,
		  pool_name(w->p));
	return -EUCLEAN;
}

/* N bytes of the data area from byte SRC into BUF: 0 or -errno, logged. */
static int read_data(struct raw *w, uint64_t src, unsigned char *buf, size_t n)
{
	int r = io_read(w->data, w->area_off + src, buf, n);

	if (r)
		log_error("pool %s: reading data chunk %" PRIu64 " of %s: %s", pool_name(w->p),
			  src / w->chunk, w->vol, strerror(-r));
	return r;
}

/* Zero copy: N bytes of the data area from byte SRC to the output by the
 * kernel; what it does not move goes through W->buf (errors told there). */
static int copy_piece(struct raw *w, uint64_t src, size_t n)
{
	off_t in = (off_t)(w->area_off + src);
	ssize_t k;
	int r;

	if ((r = step(w)))
		return r;
	while (n && (k = sendfile(w->fd, w->in_fd, &in, n)) > 0)
		n -= (size_t)k;
	if (!n)
		return 0;
	if (!w->buf && tp_copybuf_alloc(BUF_SIZE, (void **)&w->buf))
		return -ENOMEM;
	if ((r = read_data(w, (uint64_t)in - w->area_off, w->buf, n)))
		return r;
	return write_failed(w, tp_write_all(w->fd, w->buf, n));
}

static int run(void *ctx, const struct thin_delta_range *x)
{
	struct raw *w = ctx;
	uint64_t off = x->begin * w->chunk, len = x->length * w->chunk;
	uint64_t src = x->left_data * w->chunk;
	int r;

	if (off >= w->size)
		return 0;	/* beyond the end (an interrupted shrink): not content */
	if (len > w->size - off)
		len = w->size - off;
	if ((r = in_area(w, x->left_data, x->length)))
		return r;
	if ((r = gap(w, off)))
		return r;
	while (len) {
		size_t n = len < BUF_SIZE ? (size_t)len : BUF_SIZE;
		unsigned char *b;

		if (w->direct)
			r = copy_piece(w, src, n);
		else if ((b = next_buf(w, &r)) && !(r = read_data(w, src, b, n)))
			r = write_piece(w, NULL, 0, b, n);
		if (r)
			return r;
		w->pos += n;
		report(w, w->pos);
		w->st->mapped += n;
		src += n;
		len -= n;
	}
	return 0;
}

/* The writer for W's output started (SEAL: see fdwriter.h; none in zero
 * copy, W->direct), and zeros for the gaps of a raw image on a pipe.
 * 0 or -ENOMEM. */
static int out_begin(struct raw *w, tp_fdwriter_seal_fn *seal, int zeros)
{
	if (zeros && !w->seekable && !(w->zeros = calloc(1, BUF_SIZE)))
		return -ENOMEM;
	if (!w->direct && tp_fdwriter_start(w->fd, BUFS, BUF_SIZE, seal, &w->out)) {
		free((void *)w->zeros);
		w->zeros = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* After the copy R: everything queued written; R or the write error. */
static int out_end(struct raw *w, int r)
{
	int e = w->direct ? 0 : tp_fdwriter_finish(w->out);

	w->out = NULL;
	free((void *)w->zeros);
	w->zeros = NULL;
	free(w->buf);
	w->buf = NULL;
	return r ? r : write_failed(w, e);
}

static int send_raw(struct pool *p, const struct vg_volume *v, int fd,
		    const struct pool_send_params *sp, struct pool_send_stats *st)
{
	const char *vol = v->name;
	struct thin_delta_visitor vis;
	struct raw w = { p, vol, fd };
	struct send_src src;
	struct stat sb;
	off_t at = 0;
	int r;

	w.chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	w.size = v->size;
	w.area_off = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	w.area_size = vg_data_chunks(pool_vg(p)) * ((uint64_t)pool_vg(p)->chunk_size * 512);
	w.st = st;
	if (sp) {
		w.progress = sp->progress;
		w.progress_ctx = sp->progress_ctx;
	}
	/* holes by seeking: a regular file, not opened to append (every write
	 * would land at its end, the holes lost); where it already holds bytes
	 * (opened without truncation, 1<>FILE), the image's holes there are
	 * punched (old_bytes) */
	w.seekable = !fstat(fd, &sb) && S_ISREG(sb.st_mode) && !(fcntl(fd, F_GETFL) & O_APPEND) &&
		     (at = lseek(fd, 0, SEEK_CUR)) >= 0;
	if (w.seekable) {
		w.start = (uint64_t)at;
		w.stale = sb.st_size > at ? (uint64_t)(sb.st_size - at) : 0;
	}
	if ((r = send_src_open(p, &src)))
		return r;
	w.data = src.data;
	/* zero copy: offline (live reads must bypass the page cache), one data
	 * device on a plain descriptor, into anything but a regular file we
	 * seek in (where the kernel's copy, 64 KiB at a time, is slower than
	 * the writer's 4 MiB writes: 0.68-0.84 of dd against 1.10-1.19) */
	w.in_fd = src.own_data ? -1 : io_fd_get(src.data);
	w.direct = !w.seekable && w.in_fd >= 0;
	if ((r = out_begin(&w, NULL, 1))) {
		send_src_close(&src);
		return r;
	}
	vis = (struct thin_delta_visitor){ &w, NULL, run };
	r = send_src_walk(&src, v->dev_id, v->dev_id, &vis);
	send_src_close(&src);
	if (!r)
		r = gap(&w, w.size);
	r = out_end(&w, r);
	if (!r && w.seekable) {
		off_t end = lseek(fd, 0, SEEK_CUR);
		if (end < 0 || ftruncate(fd, end)) {
			r = -errno;
			log_error("setting the size of the image of %s/%s: %s", pool_name(p), vol,
				  strerror(errno));
		}
	}
	st->size = w.pos;
	return r;
}

/* OUTPUT opened for the copy (NULL: standard output): fd or -errno. */
static int open_output(const char *output)
{
	int fd;

	if (!output)
		return STDOUT_FILENO;
	if ((fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		fd = -errno;
		log_error("%s: cannot create: %s", output, strerror(errno));
	}
	return fd;
}

/* After the copy R into FD: OUTPUT closed; a copy a signal stopped
 * (-EINTR) leaves no partial file behind and says what it left. */
static int end_output(const struct pool *p, const char *vol, const char *output, int fd, int r)
{
	struct stat st;
	int file = output && !fstat(fd, &st) && S_ISREG(st.st_mode);

	if (output && close(fd) && !r) {
		r = -errno;
		log_error("%s: %s", output, strerror(errno));
	}
	if (r != -EINTR)
		return r;
	if (file && !unlink(output))
		log_error("%s/%s: stopped by a signal; the partial %s is removed, nothing else "
			  "changed", pool_name(p), vol, output);
	else
		log_error("%s/%s: stopped by a signal; %s ends early (tprecv refuses a cut "
			  "stream), nothing else changed", pool_name(p), vol,
			  output ? output : "standard output");
	return r;
}

int pool_send_raw(struct pool *p, const char *vol, const char *output,
		  const struct pool_send_params *sp, struct pool_send_stats *st)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);
	int fd = STDOUT_FILENO, r;

	memset(st, 0, sizeof(*st));
	if (!v)
		return pool_volume_missing(p, vol);
	if (pool_is_live(p) && !v->read_only) {
		log_error("pool %s is active and volume %s is writable: its chunks may change "
			  "while they are read; snapshot it with 'tvsnap --readonly' and export the "
			  "snapshot, or deactivate the pool first", pool_name(p), vol);
		return -EPERM;
	}
	if ((fd = open_output(output)) < 0)
		return fd;
	tp_critical_begin();
	r = end_output(p, vol, output, fd, send_raw(p, v, fd, sp, st));
	tp_critical_end();	/* a signal that stopped it takes effect here */
	return r;
}

/* ---- the send stream ---- */

struct sender {
	struct raw w;		/* output, data area, stats */
	int incremental;
	const char *luks_uuid;	/* an encrypted volume's LUKS2 header's, else NULL */
	uint64_t records, data_bytes;
	unsigned char head[STREAM_HEADER_SIZE];	/* the stream's header, queued */
};

/* In the writer thread, before a record is written: its crc over the
 * head and the data (the stream header, queued as data, has no head). */
static void seal(unsigned char *head, size_t hlen, const void *data, size_t len)
{
	struct stream_record r;

	if (hlen != STREAM_RECORD_SIZE)
		return;
	stream_record_unpack(head, &r);
	stream_record_pack(head, &r, data, len);
}

/* A record queued: its head (the crc taken by seal) and DLEN bytes of
 * DATA; two steps for a record with data, as it was two writes. */
static int put_record(struct sender *s, uint32_t type, uint64_t off, uint64_t len,
		      const void *data, uint64_t dlen)
{
	unsigned char head[STREAM_RECORD_SIZE];
	struct stream_record r = { type, off, len };
	int e;

	stream_record_pack(head, &r, NULL, 0);
	if (dlen && (e = step(&s->w)))
		return e;
	if ((e = write_piece(&s->w, head, sizeof(head), data, (size_t)dlen)))
		return e;
	if (type != STREAM_END)
		s->records++;
	return 0;
}

/* An encrypted volume's first chunk, sent (P, LEN bytes: its data; NULL:
 * unmapped), holds its LUKS2 header, as the receiver checks: else
 * -EUCLEAN, logged. */
static int luks_header(const struct sender *s, const unsigned char *p, uint64_t len)
{
	const char *why = "none: the first chunk is unmapped";

	if (p && stream_luks_header_ok(p, len, s->luks_uuid, &why))
		return 0;
	log_error("pool %s: volume %s is encrypted with LUKS2 header %s, but it begins with %s: "
		  "not sent, the stream stops here and tprecv refuses it ('tpcheck %s' reports "
		  "the volume)", pool_name(s->w.p), s->w.vol, s->luks_uuid, why, pool_name(s->w.p));
	return -EUCLEAN;
}

static int put_hole(struct sender *s, uint64_t off, uint64_t end)
{
	int r = end > off && s->luks_uuid && !off ? luks_header(s, NULL, 0) : 0;

	if (!r && end > off)
		r = put_record(s, STREAM_HOLE, off, end - off, NULL, 0);

	if (!r && end > off)
		report(&s->w, end);
	return r;
}

/* Data of LEN bytes at image offset OFF, from data chunk DBLOCK on. */
static int put_data(struct sender *s, uint64_t off, uint64_t dblock, uint64_t len)
{
	struct raw *w = &s->w;
	uint64_t src = dblock * w->chunk;
	int r;

	if ((r = in_area(w, dblock, (len + w->chunk - 1) / w->chunk)))
		return r;
	while (len) {
		size_t n = len < STREAM_MAX_DATA ? (size_t)len : STREAM_MAX_DATA;
		unsigned char *b = next_buf(w, &r);
		if (!b || (r = read_data(w, src, b, n)) ||
		    (s->luks_uuid && !off && (r = luks_header(s, b, n))) ||
		    (r = put_record(s, STREAM_DATA, off, n, b, n)))
			return r;
		report(w, off + n);
		w->st->mapped += n;
		s->data_bytes += n;
		off += n;
		src += n;
		len -= n;
	}
	return 0;
}

static int stream_range(void *ctx, const struct thin_delta_range *x)
{
	struct sender *s = ctx;
	struct raw *w = &s->w;
	uint64_t off = x->begin * w->chunk, len = x->length * w->chunk;
	int r;

	if (off >= w->size)
		return 0;	/* beyond the end (an interrupted shrink): not content */
	if (s->incremental && (x->kind == THIN_DELTA_SAME || x->kind == THIN_DELTA_SHARED))
		return 0;	/* equal in the base */
	if (len > w->size - off)
		len = w->size - off;
	if (!s->incremental) {	/* a full stream: every mapping, holes between */
		if ((r = put_hole(s, w->pos, off)) || (r = put_data(s, off, x->left_data, len)))
			return r;
		w->pos = off + len;
		return 0;
	}
	if (x->kind == THIN_DELTA_LEFT_ONLY)
		return put_hole(s, off, off + len);
	return put_data(s, off, x->right_data, len);
}

static int frozen(struct pool *p, const struct vg_volume *v)
{
	if (v->read_only && v->content_uuid[0])
		return 0;
	if (v->read_only) {
		log_error("pool %s: volume %s was made read-only before volumes had content uuids; "
			  "give it one with 'tvchange --readonly y %s/%s'", pool_name(p), v->name, pool_name(p),
			  v->name);
		return -EPERM;
	}
	log_error("pool %s: volume %s is writable: only a read-only volume can be sent (what "
		  "was sent must stay what the receiver has); snapshot it with 'tvsnap --readonly' "
		  "or make it read-only with 'tvchange --readonly y %s/%s'", pool_name(p), v->name,
		  pool_name(p), v->name);
	return -EPERM;
}

static int send_stream(struct pool *p, const struct vg_volume *v, const struct vg_volume *b,
		       int fd, const struct pool_send_params *sp, struct pool_send_stats *st)
{
	struct sender s = { { p, v->name, fd } };
	struct stream_header h = { 0, b ? STREAM_FLAG_INCREMENTAL : 0 };
	struct thin_delta_visitor vis = { &s, NULL, stream_range };
	struct send_src src;
	int r;

	s.incremental = b != NULL;
	if (v->luks_uuid[0]) {	/* the chunks are ciphertext: the stream says so */
		s.luks_uuid = v->luks_uuid;
		h.flags |= STREAM_FLAG_ENCRYPTED;
		snprintf(h.luks_uuid, sizeof(h.luks_uuid), "%s", v->luks_uuid);
	}
	h.version = stream_version_for(h.flags);
	s.w.chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	s.w.size = v->size;
	s.w.area_off = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	s.w.area_size = vg_data_chunks(pool_vg(p)) * ((uint64_t)pool_vg(p)->chunk_size * 512);
	s.w.st = st;
	if (sp) {
		s.w.progress = sp->progress;
		s.w.progress_ctx = sp->progress_ctx;
	}
	h.size = v->size;
	h.chunk = s.w.chunk;
	snprintf(h.uuid, sizeof(h.uuid), "%s", v->content_uuid);
	if (b)
		snprintf(h.base_uuid, sizeof(h.base_uuid), "%s", b->content_uuid);
	snprintf(h.name, sizeof(h.name), "%s", v->name);
	stream_header_pack(s.head, &h);
	if ((r = send_src_open(p, &src)))
		return r;
	s.w.data = src.data;
	if ((r = out_begin(&s.w, seal, 0))) {
		send_src_close(&src);
		return r;
	}
	r = write_piece(&s.w, NULL, 0, s.head, sizeof(s.head));
	if (!r)
		r = send_src_walk(&src, b ? b->dev_id : v->dev_id, v->dev_id, &vis);
	send_src_close(&src);
	if (!r && !b)
		r = put_hole(&s, s.w.pos, s.w.size);
	if (!r)
		r = put_record(&s, STREAM_END, s.data_bytes, s.records, NULL, 0);
	r = out_end(&s.w, r);
	st->size = v->size;
	return r;
}

int pool_send_stream(struct pool *p, const char *vol, const char *from, const char *output,
		     const struct pool_send_params *sp, struct pool_send_stats *st)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);
	const struct vg_volume *b = from ? vg_find_volume(pool_vg(p), from) : NULL;
	int fd = STDOUT_FILENO, r;

	memset(st, 0, sizeof(*st));
	if (!v || (from && !b))
		return pool_volume_missing(p, v ? from : vol);
	if ((r = frozen(p, v)) || (b && (r = frozen(p, b))))
		return r;
	if (b && strcmp(v->luks_uuid, b->luks_uuid)) {
		log_error("pool %s: %s is %s%s, its base %s %s%s: an incremental stream goes "
			  "between snapshots of one encrypted volume, or of plain volumes; nothing "
			  "was sent: send %s in full (without --from)", pool_name(p), vol,
			  v->luks_uuid[0] ? "encrypted with LUKS2 header " : "plain", v->luks_uuid,
			  from, b->luks_uuid[0] ? "with header " : "plain", b->luks_uuid, vol);
		return -EXDEV;
	}
	if ((fd = open_output(output)) < 0)
		return fd;
	tp_critical_begin();
	r = end_output(p, vol, output, fd, send_stream(p, v, b, fd, sp, st));
	tp_critical_end();
	return r;
}
