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
 * content uuid, so it can be the base of the next incremental stream.
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
#include "lib/pool/pool.h"

struct pool_recv;

/* INPUT: a file, or NULL for standard input. */
int pool_recv_check(const char *input, struct pool_recv **out) TP_MUST_CHECK;
void pool_recv_free(struct pool_recv *r);	/* NULL ok */

struct pool_recv_result {
	char name[POOL_NAME_MAX + 1];
	char base[POOL_NAME_MAX + 1];	/* incremental: the base volume; "" if full */
	uint64_t size;			/* the volume's, bytes */
	uint64_t data_bytes;		/* bytes of data received */
	uint64_t chunks;		/* chunks written */
	uint64_t resumed_at;		/* POOL_RECV_RESUME: the byte it went on from */
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
 * 0, -ENOENT (logged), or the change's error. */
int pool_recv_abort(struct pool *p, const char *name) TP_MUST_CHECK;

#endif
