/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_send.h - a volume's content read from the pool's devices (tpsend).
 *
 * pool_send_raw writes volume VOL's whole virtual size to OUTPUT (a file
 * created or truncated once the volume is found; NULL: standard output)
 * as a plain image: its mapped chunks read from the data device at the data blocks
 * the thin metadata names (only mapped chunks are read), unmapped ranges
 * as zeros, or, when the output is a regular file, as holes (seeked over, the
 * file's size set at the end). Offline, the committed metadata and the
 * data device are a consistent picture (which also makes it a recovery
 * tool for a pool that cannot be activated). On an active pool only a
 * read-only volume is read (-EPERM, logged, for a writable one), its
 * mappings from a kernel metadata snapshot (pool_send_src.h says what is
 * guaranteed); -EBUSY when another command holds that snapshot.
 * Returns 0 or -errno, logged: -ENOENT no such volume; -EUCLEAN damaged
 * metadata or a data block beyond the data area; -EIO a read or write
 * failed. */
#ifndef TP_POOL_POOL_SEND_H
#define TP_POOL_POOL_SEND_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"

struct pool;

/* What the caller watches (NULL: nothing): PROGRESS is called with the
 * bytes of the volume done (the image written up to there, or the stream
 * through that offset) of its size; it must be cheap. */
struct pool_send_params {
	tp_progress_fn *progress;
	void *progress_ctx;
};

struct pool_send_stats {
	uint64_t size;		/* bytes written or skipped: the volume's size */
	uint64_t mapped;	/* bytes read from the data device */
};

int pool_send_raw(struct pool *p, const char *vol, const char *output,
		  const struct pool_send_params *sp, struct pool_send_stats *st)
	TP_MUST_CHECK;

/* pool_send_stream writes the send stream (man/tp-stream.5) of VOL to
 * OUTPUT (as above): full (FROM NULL: the whole volume, data and holes),
 * or incremental from volume FROM of the same pool (only the chunks where
 * VOL differs from FROM, found by the delta walker: shared subtrees are
 * not read). VOL and FROM must be read-only (their content uuids name
 * them in the stream; a writable volume could change after it was sent):
 * -EPERM, logged. Offline or live, as pool_send_raw. */
int pool_send_stream(struct pool *p, const char *vol, const char *from, const char *output,
		     const struct pool_send_params *sp, struct pool_send_stats *st) TP_MUST_CHECK;

#endif
