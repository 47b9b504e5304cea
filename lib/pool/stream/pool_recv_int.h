/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv_int.h - a checked send stream as lib/pool's receivers see it
 * (pool_recv.c offline, pool_recv_live.c into an active pool); not for
 * tools. */
#ifndef TP_POOL_POOL_RECV_INT_H
#define TP_POOL_POOL_RECV_INT_H

#include "kernel/dm.h"
#include "lib/pool/core/core.h"
#include "lib/pool/pool_recv.h"
#include "lib/pool/stream/pool_stream.h"

#include <sys/types.h>

struct pool_recv {
	int fd;			/* the whole stream, seekable; raw: the input */
	/* raw (pool_recv_raw.c): a plain image read once, not a stream; H
	 * holds only the volume's size and name. SIZED: a file or a block
	 * device, whose KNOWN bytes from its offset were known at the open */
	int raw, sized;
	uint64_t known;
	/* raw: what the new volume's VG entry gets beside its content
	 * (pool_recv_raw_encrypted: tvcreate --encrypt's header) */
	char luks_uuid[VG_UUID_LEN + 1];
	int activation_skip;
	struct stream_header h;
	uint64_t records, data_bytes;
	uint64_t chunks;	/* chunks the data fills */
	uint64_t holes;		/* HOLE records */
	char where[128];	/* for messages */
	tp_progress_fn *progress;	/* pool_recv_watch; NULL: nobody watches */
	void *progress_ctx;
};

/* Progress, if watched: DONE of TOTAL bytes. */
static inline void pool_recv_report(const struct pool_recv *r, uint64_t done, uint64_t total)
{
	if (r->progress)
		r->progress(r->progress_ctx, done, total);
}

/* Where a receive puts the stream: CHUNKS gets N whole chunks of data
 * for virtual blocks VBLOCK.. (consecutive in BUF, which is valid only
 * during the call; the volume's last chunk zero-padded past its end),
 * HOLE each run of N chunks from FIRST that the stream unmaps; RECORD
 * (may be NULL), after each record, the byte of the volume up to which
 * the stream is now applied (a place a receive can go on from). */
struct recv_sink {
	void *ctx;
	int (*chunks)(void *ctx, uint64_t vblock, const void *buf, uint64_t n);
	int (*hole)(void *ctx, uint64_t first, uint64_t n);
	int (*record)(void *ctx, uint64_t end);
};

/* read(2) until LEN bytes or the end: the bytes read, or -errno. */
ssize_t pool_recv_read_full(int fd, void *buf, size_t len);

/* A stream file read through a window mapped into memory (a file that
 * cannot be mapped: read into a buffer), so the check and the replay
 * take its bytes from the page cache in place. SIZE: the file's size the
 * reader trusts; a file found shorter is -EIO (not a fault). */
struct recv_view {
	int fd, copied;
	uint64_t size, page, moff;
	unsigned char *map;
	size_t mlen;
};
void recv_view_init(struct recv_view *v, int fd, uint64_t size);
/* *OUT: LEN bytes of the file from OFF, valid until the next get or the
 * end. 0, -EIO (past SIZE, or the file is shorter now), -ENOMEM. */
int recv_view_get(struct recv_view *v, uint64_t off, size_t len, const unsigned char **out)
	TP_MUST_CHECK;
void recv_view_end(struct recv_view *v);

/* Map chunks VFIRST..VFIRST+N-1 of thin device DEV_ID onto newly
 * allocated data blocks (uncommitted): for each run of K consecutive
 * blocks from D0, PUT(CTX, D0, START, K) writes the run's chunks (START..
 * START+K-1 of the N) before they are mapped; *MAPPED grows by the chunks
 * mapped. 0 or -errno; *ALLOC_FAILED is set when a block could not be
 * allocated (the caller names that failure; PUT names its own). */
int pool_recv_map_runs(struct pool *p, uint32_t dev_id, uint64_t vfirst, uint64_t n,
		       int (*put)(void *ctx, uint64_t d0, uint64_t start, uint64_t k), void *ctx,
		       uint64_t *mapped, int *alloc_failed) TP_MUST_CHECK;

/* Read checked stream R again, front to back, into S (CHUNK: the pool's
 * chunk size in bytes, which R's equals), passing over the records that
 * end at or before byte FROM of the volume (a resumed receive: FROM is a
 * place RECORD was given). 0, -ENOMEM, -EIO, or the sink's error. */
int pool_recv_replay(struct pool_recv *r, uint64_t chunk, uint64_t from,
		     const struct recv_sink *s) TP_MUST_CHECK;

/* ---- pool_recv_live.c: receiving into a pool the kernel runs ---- */

/* Before anything is made: the kernel's pool can take NEED more chunks
 * (not failed, read-only or out of data space) and, when the stream
 * UNMAPS chunks of BASE (holes, or a longer base), passes discards to the
 * thin devices. -ENOSPC, -EROFS, -EIO, -EOPNOTSUPP, logged. */
int pool_recv_live_preflight(struct pool *p, const char *base, int unmaps, uint64_t need)
	TP_MUST_CHECK;

/* A thin device id for the new volume: P's VG's next one, or the first
 * after it that the kernel does not have. */
int pool_recv_live_dev_id(struct pool *p, uint32_t *dev_id) TP_MUST_CHECK;

/* The receive's thin device DEV_ID (it exists in the kernel), loaded as
 * the temporary device "<pool>-tprecv:<id>" of SECTORS and opened with
 * O_DIRECT. CHUNKS and HOLE are a recv_sink's for it (data written whole,
 * a run of chunks in writes of up to RECV_LIVE_WRITE bytes, or one
 * chunk, through an aligned buffer; holes discarded; the free space checked before a run
 * once 64 chunks were written since the last look, against NEED less
 * what was written); SYNC flushes it, which commits the kernel's
 * metadata; CLOSE removes the temporary device and keeps the thin
 * device. Errors logged. */
#define RECV_LIVE_WRITE (4u << 20)
struct recv_live_dev {
	struct pool *p;
	uint32_t dev_id;
	int fd, loaded;
	uint64_t chunk, written, need, checked;
	unsigned char *buf;	/* BUFSIZE bytes (whole chunks, at least one), aligned */
	size_t bufsize;
	char dm[TP_DM_NAME_MAX];
};
int pool_recv_live_open(struct pool *p, uint32_t dev_id, uint64_t sectors, uint64_t need,
			struct recv_live_dev *w) TP_MUST_CHECK;
int pool_recv_live_chunks(void *w, uint64_t vblock, const void *buf, uint64_t n);
int pool_recv_live_hole(void *w, uint64_t first, uint64_t n);
int pool_recv_live_sync(struct recv_live_dev *w) TP_MUST_CHECK;
int pool_recv_live_close(struct recv_live_dev *w);

/* ---- pool_recv_leftovers.c: the temporary device and what outlives it ---- */

/* The temporary device's dm name, and its dm uuid less the thin id. */
int pool_recv_temp_name(const struct pool *p, uint32_t dev_id, char *buf, size_t len)
	TP_MUST_CHECK;
void pool_recv_uuid_prefix(const struct pool *p, char *buf, size_t len);

/* Remove the temporary device of DEV_ID; the thin device stays (the VG
 * lists it as the receive's or the volume's). 0 or -errno, logged with the
 * way to finish by hand. */
int pool_recv_live_finish(struct pool *p, uint32_t dev_id) TP_MUST_CHECK;

#endif
