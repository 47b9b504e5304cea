/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv.h - receiving a send stream (tprecv) into a pool.
 *
 * Two steps, so that nothing of the pool is touched by a bad stream:
 * pool_recv_check reads the whole stream first (from a file, or from a
 * pipe into a temporary file under $TMPDIR) and checks it: the header and
 * every record's checksum, order, bounds and the END record's totals; a
 * truncated or damaged stream is -EBADMSG (logged, naming the record).
 * pool_recv_apply then receives it into an open pool, offline or live
 * (pool_recv_int.h: through a temporary thin device, the VG change last),
 * as one change under the transaction-id protocol (pool.h): a full stream
 * creates volume NAME; an incremental one finds the read-only volume
 * holding the stream's base (by its content uuid, which a volume loses
 * when it is made writable), snapshots it as NAME and applies the
 * changes; either way NAME becomes read-only with the sent volume's
 * content uuid, so it can be the base of the next incremental stream,
 * and encrypted with the stream's LUKS2 header uuid, or plain, as the
 * stream is (no key is needed: the chunks are ciphertext as sent). An
 * incremental stream whose base is not encrypted as it is (plain, or
 * another header) is refused (-EXDEV).
 * Before anything is written: no base (-ENOENT), a chunk size other than
 * the pool's (-EXDEV), too little free data space (-ENOSPC), the name
 * taken (-EEXIST); live also a failed or read-only kernel pool (-EIO,
 * -EROFS) and discards ignored where the stream unmaps (-EOPNOTSUPP):
 * all logged, the pool unchanged. Received data goes into newly allocated
 * chunks only; a live receive that fails later (space, I/O, a signal:
 * -EINTR) removes what it made. */
#ifndef TP_POOL_POOL_RECV_H
#define TP_POOL_POOL_RECV_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "lib/pool/pool.h"

struct pool_recv;

/* INPUT: a file, or NULL for standard input. PROGRESS (NULL: none) is
 * called with CTX as the stream is read: bytes read of the file's size (0
 * for a pipe). */
int pool_recv_check(const char *input, tp_progress_fn *progress, void *ctx,
		    struct pool_recv **out) TP_MUST_CHECK;
void pool_recv_free(struct pool_recv *r);	/* NULL ok */
/* A checked stream of an encrypted volume: the uuid of the volume's LUKS2
 * header, which the received volume records (vg_volume.luks_uuid); a
 * plain volume's stream (and a raw image): "". */
const char *pool_recv_luks_uuid(const struct pool_recv *r);
/* From now on pool_recv_apply and pool_recv_raw_apply call PROGRESS with
 * CTX: the bytes of the volume applied of its size. */
void pool_recv_watch(struct pool_recv *r, tp_progress_fn *progress, void *ctx);

struct pool_recv_result {
	char name[POOL_NAME_MAX + 1];
	char base[POOL_NAME_MAX + 1];	/* incremental: the base volume; "" if full */
	uint64_t size;			/* the volume's, bytes */
	uint64_t data_bytes;		/* bytes of data received */
	uint64_t chunks;		/* chunks written */
	uint64_t resumed_at;		/* POOL_RECV_RESUME: the byte it went on from */
	uint64_t input_bytes;		/* raw: the bytes read from the input */
};

/* NAME: the new volume's name, NULL = the name in the stream.
 * POOL_RECV_RESUME: go on with the unfinished receive of R's content
 * (NAME's, if given) from its last commit. Offline, a receive is three
 * steps: a change that lists it as an unfinished receive (not a volume)
 * with its thin device; the data, committed (data device flushed, thin
 * metadata committed, then the progress mark in the VG) every second and
 * when a signal stops it; and a change that makes it a read-only volume
 * with the stream's content uuid. A failure or signal in the data step
 * leaves it unfinished at its last commit (logged in one line): -EINTR
 * for a signal, else the error. */
#define POOL_RECV_RESUME 1u
int pool_recv_apply(struct pool *p, struct pool_recv *r, const char *name, unsigned flags,
		    struct pool_recv_result *res) TP_MUST_CHECK;
/* Drop the unfinished receive NAME and its thin device (one change):
 * 0, -ENOENT (logged), or the change's error. A raw import's too. */
int pool_recv_abort(struct pool *p, const char *name) TP_MUST_CHECK;

/* ---- tprecv --format raw (pool_recv_raw.c) ----
 *
 * A plain image (what tpsend --format raw writes) made a new volume of an
 * inactive pool, read once from INPUT (NULL: standard input): a pipe is
 * streamed, never seeked; a file or block device is read from its offset.
 * pool_recv_raw_open opens it (-EISDIR, or the open's error, logged);
 * pool_recv_raw_known is 1 with *BYTES what a file or device holds from
 * there, else 0 (a pipe: known at its end only). pool_recv_raw_size
 * checks the name (-EINVAL), sets the volume's size, SIZE rounded up to
 * 512 (pool_volume_size_check's -EINVAL, -ERANGE), and refuses an input
 * known to be longer (-EFBIG), all logged, before any pool is opened. The result is pool_recv_free's.
 *
 * pool_recv_raw_apply makes volume NAME of P (the name pool_recv_raw_size
 * was given): a chunk of zeros is left unmapped, every other chunk goes
 * into a newly allocated data block; input shorter than the volume leaves
 * the rest zeros (unmapped). Three steps under the protocol, as a
 * receive's: an unfinished receive marked raw (vg_volume.raw), the data
 * (durable at the end), a change that makes it a writable volume without
 * a content uuid. Refused, nothing written: an active pool (-EBUSY), the
 * name taken (-EEXIST), a damaged pool (-EUCLEAN). A failure or a signal
 * after the first change, or input longer than the volume (-EFBIG),
 * drops what it made in one more change and returns the error (-EINTR
 * for a signal); logged in one line that says nothing was imported.
 * Killed, it leaves an unfinished receive that no command completes and
 * tprecv --abort drops. */
int pool_recv_raw_open(const char *input, struct pool_recv **out) TP_MUST_CHECK;
int pool_recv_raw_known(const struct pool_recv *r, uint64_t *bytes);
int pool_recv_raw_size(struct pool_recv *r, const char *name, uint64_t size) TP_MUST_CHECK;
int pool_recv_raw_apply(struct pool *p, struct pool_recv *r, struct pool_recv_result *res)
	TP_MUST_CHECK;
/* The image is an encrypted volume's LUKS2 header (tvcreate --encrypt,
 * lib/pool/crypt): the new volume records LUKS_UUID as its luks_uuid, and
 * ACTIVATION_SKIP (tvcreate --activate n), both in the change that makes
 * it a volume. Call before pool_recv_raw_apply. */
void pool_recv_raw_encrypted(struct pool_recv *r, const char *luks_uuid, int activation_skip);

/* ---- a new volume filled live (pool_recv.c; tvcreate --encrypt of an
 * active pool) ----
 *
 * New writable volume NAME of SIZE bytes (rounded as pool_volume_size_check
 * does already) in pool P, which the kernel runs, whose first bytes FILL
 * writes onto PATH, a temporary device of the new thin device alone
 * (pool_recv_live.c's, a name and dm uuid no volume has), mapping at most
 * NEED chunks (checked against the pool's free space first). LUKS_UUID
 * (NULL: none) and ACTIVATION_SKIP go into the VG entry. Three steps, as
 * a raw import's: an unfinished receive marked raw, with its empty thin
 * device; FILL's bytes, flushed (the kernel commits them); the change
 * that makes it a volume. The new volume is not activated. Refused,
 * nothing changed: the name taken (-EEXIST), a pool the kernel reports
 * failed or read-only, too little free space (-ENOSPC). A failure of FILL
 * or of the flush, or a signal (-EINTR; signals wait until FILL returns),
 * drops what it made in one more change (said in one line; if that change
 * fails too, the line names 'tprecv --abort'). Killed, it leaves the
 * unfinished receive, which tpstatus names and tprecv --abort drops, and
 * the next command on the pool removes the temporary device. FILL returns
 * 0 or -errno, logged. */
typedef int pool_recv_fill_fn(void *arg, const char *path);
int pool_recv_live_fill(struct pool *p, const char *name, uint64_t size, const char *luks_uuid,
			int activation_skip, uint64_t need, pool_recv_fill_fn *fill, void *arg)
	TP_MUST_CHECK;

#endif
