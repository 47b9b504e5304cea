/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv_raw.c - tprecv --format raw: a plain image, read once from a
 * pipe or a file, made a new volume of an inactive pool. See pool_recv.h.
 *
 * The import uses the receive's machinery (pool_recv.c) with one
 * difference that follows from its input: a pipe cannot be read twice,
 * so there is no check before the pool is touched and no resume. The
 * image is read in pieces of 4 MiB (or one chunk, when chunks are
 * larger); a chunk whose bytes are all zero is not allocated, every run
 * of other chunks goes into newly allocated data blocks, one write per
 * run of consecutive blocks, mapped in the thin transaction. Three steps
 * under the transaction-id protocol, as a receive's: a change that lists
 * an unfinished receive (marked raw, not a volume) with its empty thin
 * device; the data, made durable once at the end (the data device
 * flushed, the thin metadata committed); and a change that makes it a
 * writable volume. The whole import is one critical section: a signal,
 * a failure, or an input longer than the volume drops what it made (one
 * more change, pool_recv_abort) and nothing is imported. SIGKILL, a crash
 * or a power cut leave at most an unfinished receive that holds the name
 * (tprecv --abort drops it; it never becomes a volume); its chunks are
 * the ones the last commit holds, none before the end. A wait for a pipe
 * looks for signals every 200 ms, so that a stalled sender does not make
 * tprecv deaf to SIGINT.
 *
 * Offline only: a pool the kernel runs is refused (the receive's live
 * twin, pool_recv_live.c, is not used for raw images). */
#include "lib/pool/pool_recv.h"
#include "lib/pool/core/core.h"
#include "lib/pool/stream/pool_recv_int.h"

#include "lib/base/critical.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PIECE (4u << 20)	/* bytes read at a time (at least one chunk) */
#define POLL_MS 200		/* a wait for a pipe looks for signals this often */

/* ---- the input ---- */

int pool_recv_raw_open(const char *input, struct pool_recv **out)
{
	struct pool_recv *r = calloc(1, sizeof(*r));
	struct stat st;
	off_t at;
	int e;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->raw = 1;
	snprintf(r->where, sizeof(r->where), "%s", input ? input : "standard input");
	r->fd = input ? open(input, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	if (r->fd < 0) {
		e = -errno;
		log_error("%s: cannot open: %s", r->where, strerror(errno));
		free(r);
		return e;
	}
	if (fstat(r->fd, &st)) {
		e = -errno;
		log_error("%s: %s", r->where, strerror(errno));
		pool_recv_free(r);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		log_error("%s is a directory, not an image: give a file, a block device or a pipe",
			  r->where);
		pool_recv_free(r);
		return -EISDIR;
	}
	/* a file or a device is read from where its offset stands, as cat
	 * would; its size from there is known before anything is read */
	at = lseek(r->fd, 0, SEEK_CUR);
	if (S_ISREG(st.st_mode)) {
		r->sized = 1;
		r->known = at > 0 && at < st.st_size ? (uint64_t)(st.st_size - at)
						    : at > 0 ? 0 : (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;
		if (ioctl(r->fd, BLKGETSIZE64, &bytes)) {
			e = -errno;
			log_error("%s: cannot read the device's size: %s", r->where, strerror(errno));
			pool_recv_free(r);
			return e;
		}
		r->sized = 1;
		r->known = at > 0 && (uint64_t)at < bytes ? bytes - (uint64_t)at
							  : at > 0 ? 0 : bytes;
	}
	*out = r;
	return 0;
}

int pool_recv_raw_known(const struct pool_recv *r, uint64_t *bytes)
{
	*bytes = r->sized ? r->known : 0;
	return r->sized;
}

int pool_recv_raw_size(struct pool_recv *r, const char *name, uint64_t size)
{
	char a[32], b[32];
	const char *why;
	uint64_t rounded;
	int e;

	if (!vg_name_valid(name, &why)) {
		log_error("invalid volume name '%s': %s", name, why);
		return -EINVAL;
	}
	if ((e = pool_volume_size_check(name, size, &rounded)))
		return e;
	if (r->sized && r->known > rounded) {
		log_error("%s holds %s, more than the %s of volume %s (-V): nothing was "
			  "imported; give -V %" PRIu64 "b or more, or leave -V out to take the "
			  "input's size", r->where, tp_size_format(r->known, 'h', a, sizeof(a)),
			  tp_size_format(rounded, 'h', b, sizeof(b)), name, r->known);
		return -EFBIG;
	}
	r->h.size = rounded;
	snprintf(r->h.name, sizeof(r->h.name), "%s", name);
	return 0;
}

/* Read up to LEN bytes (fewer only at the end of the input): the bytes
 * read, -EINTR when a signal asks to stop while a pipe is waited for, or
 * -errno (logged). */
static ssize_t read_in(struct pool_recv *r, void *buf, size_t len)
{
	struct pollfd pfd = { r->fd, POLLIN, 0 };
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		/* (a file or a device never waits) */
		while (!r->sized) {
			int k = poll(&pfd, 1, POLL_MS);
			if (k > 0)
				break;
			if (k < 0 && errno != EINTR) {
				log_error("waiting for %s: %s", r->where, strerror(errno));
				return -errno;
			}
			if (tp_critical_pending())
				return -EINTR;
		}
		n = read(r->fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;
			log_error("reading %s: %s", r->where, strerror(errno));
			return e;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

void pool_recv_raw_encrypted(struct pool_recv *r, const char *luks_uuid, int activation_skip)
{
	snprintf(r->luks_uuid, sizeof(r->luks_uuid), "%s", luks_uuid);
	snprintf(r->where, sizeof(r->where), "the new LUKS2 header");	/* not a path */
	r->activation_skip = !!activation_skip;
}

/* ---- the import ---- */

struct raw_ctx {
	struct pool *p;
	struct pool_recv *r;
	const char *name;
	uint32_t dev_id;
	uint64_t chunk, area_off;
	uint64_t pos;		/* bytes of the volume read */
	unsigned long pieces;	/* for the recv-raw-piece=N test pause */
	int stop;		/* the signal that stopped it, or 0 */
	struct pool_recv_result *res;
	struct io_engine *data, *own;	/* pool_data_bulk: where the chunks go */
};

/* LEN (a multiple of 4096) bytes of zeros: compared 4 KiB at a time with
 * zeros by memcmp (vector code; a test per word was a branch per 8
 * bytes, slow where the CPU is emulated). */
static int all_zero(const unsigned char *b, uint64_t len)
{
	static const unsigned char zeros[4096];

	for (uint64_t i = 0; i < len; i += sizeof(zeros))
		if (memcmp(b + i, zeros, sizeof(zeros)))
			return 0;
	return 1;
}

/* Chunks FIRST..FIRST+N-1 of the volume, in BUF: each into a newly
 * allocated data block, written with one write per run of consecutive
 * blocks, then mapped (uncommitted). */
struct raw_run_arg {
	struct raw_ctx *c;
	const unsigned char *buf;
};

static int write_run(void *ctx, uint64_t d0, uint64_t start, uint64_t k)
{
	struct raw_run_arg *a = ctx;
	struct raw_ctx *c = a->c;
	int e = io_write(c->data, c->area_off + d0 * c->chunk, a->buf + start * c->chunk,
			 (size_t)(k * c->chunk));

	if (e)
		log_error("pool %s: writing data chunks %" PRIu64 "..%" PRIu64 ": %s",
			  pool_name(c->p), d0, d0 + k - 1, strerror(-e));
	return e;
}

static int put_run(struct raw_ctx *c, uint64_t first, const unsigned char *buf, uint64_t n)
{
	struct raw_run_arg a = { c, buf };
	int alloc_failed, e;

	e = pool_recv_map_runs(c->p, c->dev_id, first, n, write_run, &a, &c->res->chunks,
			       &alloc_failed);
	if (e && alloc_failed) {
		if (e == -ENOSPC)
			log_error("pool %s is out of data space: extend it (tpextend) or free "
				  "space, then %s again", pool_name(c->p),
				  c->r->luks_uuid[0] ? "run tvcreate" : "import");
		else
			log_error("pool %s: allocating a data chunk: %s", pool_name(c->p),
				  strerror(-e));
	}
	return e;
}

/* One piece: N chunks of the volume from chunk FIRST, in BUF; the
 * chunks of zeros are passed by. */
static int put_piece(struct raw_ctx *c, uint64_t first, const unsigned char *buf, uint64_t n)
{
	uint64_t run = 0;
	int e;

	for (uint64_t i = 0; i <= n; i++) {
		int zero = i == n || all_zero(buf + i * c->chunk, c->chunk);
		if (!zero)
			continue;
		if (i > run && (e = put_run(c, first + run, buf + run * c->chunk, i - run)))
			return e;
		run = i + 1;
	}
	return 0;
}

/* The image, piece by piece, then the proof that it ends inside the
 * volume. 0, -EINTR (a signal: c->stop), -EFBIG (longer than the
 * volume), or the error (logged). */
static int copy(struct raw_ctx *c, unsigned char *buf, uint64_t piece)
{
	struct pool_recv *r = c->r;
	uint64_t size = r->h.size;
	unsigned char extra;
	ssize_t n;
	int e;

	while (c->pos < size) {
		uint64_t want = size - c->pos < piece ? size - c->pos : piece;
		uint64_t span = (want + c->chunk - 1) / c->chunk * c->chunk;

		if ((n = read_in(r, buf, (size_t)want)) < 0) {
			if (n == -EINTR)
				c->stop = tp_critical_pending();
			return (int)n;
		}
		c->res->input_bytes += (uint64_t)n;
		memset(buf + n, 0, (size_t)(span - (uint64_t)n));	/* the rest reads as zeros */
		if ((e = put_piece(c, c->pos / c->chunk, buf, span / c->chunk)))
			return e;
		c->pos += (uint64_t)n;
		pool_recv_report(r, c->pos, size);
		tp_test_pause_n("recv-raw-piece", ++c->pieces);
		if ((c->stop = tp_critical_pending()))
			return -EINTR;
		if ((uint64_t)n < want)
			return 0;	/* the input ended: the rest of the volume is zeros */
	}
	if ((n = read_in(r, &extra, 1)) < 0) {
		if (n == -EINTR)
			c->stop = tp_critical_pending();
		return (int)n;
	}
	if (n) {
		char a[32];
		log_error("%s is longer than the %s of volume %s (-V): give a larger -V", r->where,
			  tp_size_format(size, 'h', a, sizeof(a)), c->name);
		return -EFBIG;
	}
	return 0;
}

/* The first change: the empty thin device of the unfinished receive. */
static int apply_begin(struct pool *p, const void *arg)
{
	const struct raw_ctx *c = arg;

	return pool_op_create(p, c->dev_id);
}

static int apply_none(struct pool *p, const void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

/* The data durable: the data device flushed, then the thin metadata
 * committed (at the same transaction id: only the import's own thin
 * device changed). */
static int make_durable(struct raw_ctx *c)
{
	struct pool *p = c->p;
	int e;

	if ((e = io_flush(c->data))) {
		log_error("pool %s: flushing the data device: %s", pool_name(p), strerror(-e));
		return e;
	}
	if ((e = thin_commit(pool_thin(p))))
		log_error("pool %s: committing the thin metadata: %s", pool_name(p), strerror(-e));
	return e;
}

/* The import failed with E (said already, but for a signal) after its
 * first change: what it wrote goes, in one more change. Returns what the
 * command ends with. */
static int drop(struct raw_ctx *c, int e)
{
	struct pool *p = c->p;
	char a[32], b[32], at[80];
	int d = 0;

	snprintf(at, sizeof(at), "%s of %s", tp_size_format(c->pos, 'h', a, sizeof(a)),
		 tp_size_format(c->r->h.size, 'h', b, sizeof(b)));
	if (thin_abort(pool_thin(p))) {
		pool_latch_read_only(p, "dropping the uncommitted part of the import failed");
		d = -EIO;
	}
	tp_test_pause("recv-raw-drop");
	if (!d)
		d = pool_recv_abort(p, c->name);
	if (c->r->luks_uuid[0]) {	/* tvcreate --encrypt's header */
		if (d)
			log_error("pool %s: tvcreate --encrypt of %s %s while it wrote the volume's "
				  "LUKS2 header, and what it wrote could not be dropped: it is no "
				  "volume; drop it with 'tprecv --abort %s %s'", pool_name(p),
				  c->name, c->stop ? "was stopped by a signal" : "failed", c->name,
				  pool_name(p));
		else
			log_error("pool %s: tvcreate --encrypt of %s %s while it wrote the volume's "
				  "LUKS2 header; nothing was changed (what it wrote is dropped)",
				  pool_name(p), c->name,
				  c->stop ? "was stopped by a signal" : "failed");
	} else if (d) {
		log_error("pool %s: the raw import of %s from %s %s at %s and could not be "
			  "dropped: it is no volume; drop it with 'tprecv --abort %s %s'",
			  pool_name(p), c->name, c->r->where,
			  c->stop ? "was stopped by a signal" : "stopped", at, c->name, pool_name(p));
	} else {
		log_error("pool %s: the raw import of %s from %s %s at %s; nothing was imported "
			  "(what it wrote is dropped)", pool_name(p), c->name, c->r->where,
			  c->stop ? "was stopped by a signal" : "stopped", at);
	}
	return c->stop ? -EINTR : e == -EINTR ? -EIO : e;
}

/* A thin device id for the new volume: the VG's next one, past any that
 * the thin metadata has (a stray a cut command left). */
static int pick_dev_id(struct pool *p, uint32_t *dev_id)
{
	uint32_t id = pool_vg(p)->next_dev_id;

	for (struct thin_ir_device d; id <= VG_DEV_ID_MAX && !thin_device_info(pool_thin(p), id, &d);)
		id++;
	if (id > VG_DEV_ID_MAX) {
		log_error("pool %s: no thin device id left", pool_name(p));
		return -ENOSPC;
	}
	*dev_id = id;
	return 0;
}

static int import(struct raw_ctx *c)
{
	struct pool *p = c->p;
	struct vg_volume v;
	struct vg *next;
	unsigned char *buf = NULL;
	uint64_t piece = c->chunk >= PIECE ? c->chunk : PIECE / c->chunk * c->chunk;
	int e;

	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", c->name);
	v.size = c->r->h.size;
	v.creation_time = (int64_t)time(NULL);
	v.read_only = 1;	/* as every unfinished receive: it is no volume */
	v.raw = 1;
	/* vg_finish_receive keeps both */
	snprintf(v.luks_uuid, sizeof(v.luks_uuid), "%s", c->r->luks_uuid);
	v.activation_skip = c->r->activation_skip;
	if ((e = vg_uuid_generate(v.content_uuid)) || (e = pick_dev_id(p, &v.dev_id)))
		return e;
	c->dev_id = v.dev_id;
	if (tp_copybuf_alloc((size_t)piece, (void **)&buf))
		return -ENOMEM;
	if ((e = vg_clone(pool_vg(p), &next))) {
		free(buf);
		return e;
	}
	next->next_dev_id = v.dev_id + 1;
	if ((e = vg_add_receive(next, &v))) {
		vg_free(next);
		free(buf);
		return e;
	}
	/* listed as an unfinished receive with its empty thin device */
	if ((e = pool_change(p, next, apply_begin, c))) {
		free(buf);
		return e;	/* settled: nothing left */
	}
	tp_test_pause("recv-begun");
	if ((c->stop = tp_critical_pending()))
		e = -EINTR;
	if (!e)		/* block devices with O_DIRECT */
		e = pool_data_bulk(p, 0, &c->data, &c->own);
	if (!e && !tp_test_fail("recv-raw-skip-data"))	/* proves the tests see it */
		e = copy(c, buf, piece);
	free(buf);
	if (!e)
		e = make_durable(c);
	io_destroy(c->own);
	c->own = NULL;
	tp_test_pause("recv-data-done");
	if (!e && (c->stop = tp_critical_pending()))
		e = -EINTR;
	if (e)
		return drop(c, e);
	/* every chunk is durable: the volume appears, writable */
	if ((e = vg_clone(pool_vg(p), &next)))
		return drop(c, e);
	if ((e = vg_finish_receive(next, c->name))) {
		vg_free(next);
		return e == -ENOENT ? TP_BUG("pool %s lost the import of %s", pool_name(p), c->name)
				    : drop(c, e);
	}
	if ((e = pool_change(p, next, apply_none, NULL)))
		return drop(c, e);
	if (tp_critical_pending())
		log_warn("pool %s: volume %s was imported whole; the signal that came meanwhile "
			 "ends tprecv now", pool_name(p), c->name);
	return 0;
}

int pool_recv_raw_apply(struct pool *p, struct pool_recv *r, struct pool_recv_result *res)
{
	struct raw_ctx c = { p, r, r->h.name };
	int e;

	memset(res, 0, sizeof(*res));
	if (!r->raw || !r->h.size)
		return TP_BUG("a raw import without its input or size");
	if ((e = pool_refuse_live(p, "a raw import (tprecv --format raw)")) ||
	    (e = pool_name_free(p, c.name)) ||
	    (e = pool_guard(p, "importing", "nothing was imported", 0)))
		return e;
	c.chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	c.area_off = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	c.res = res;
	snprintf(res->name, sizeof(res->name), "%s", c.name);
	res->size = r->h.size;
	/* signals wait for the end, and the copy looks for them after every
	 * piece: a stopped import is dropped, never left half */
	tp_critical_begin();
	e = import(&c);
	res->data_bytes = res->chunks * c.chunk;
	tp_critical_end();	/* a signal takes effect here */
	return e;
}
