/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdwriter.h - an ordered background writer to a file descriptor, so a
 * long copy reads its source while the previous pieces are written.
 *
 * The caller (one thread) takes a buffer (tp_fdwriter_buf), fills it and
 * queues it (tp_fdwriter_put) with an optional short head to go before
 * it; one writer thread writes the queue in order, each item with one
 * writev, after calling SEAL on it (where the work that belongs to the
 * write, like a checksum over head and data, runs beside the next read).
 * A skip (tp_fdwriter_skip) moves the file offset forward instead (a
 * hole in a regular file). NBUF buffers of BUFSIZE bytes, 4 KiB aligned,
 * bound the memory and how far the reader runs ahead.
 *
 * Errors: the first failed write or seek is kept; from then on _buf
 * returns NULL and _put, _skip and _finish return it (-errno). Start the
 * writer inside the critical section that covers the copy (critical.h):
 * its thread inherits the blocked signals, so they stay for the caller's
 * tp_critical_pending. _finish waits for the queue to be written, ends the
 * thread and frees everything, whatever happened. */
#ifndef TP_BASE_FDWRITER_H
#define TP_BASE_FDWRITER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

#define TP_FDWRITER_HEAD 64u	/* bytes of head an item can carry */

struct tp_fdwriter;

/* Called by the writer thread just before an item is written: HEAD
 * (HEADLEN bytes, writable) and DATA (LEN bytes). */
typedef void tp_fdwriter_seal_fn(unsigned char *head, size_t headlen, const void *data,
				 size_t len);

int tp_fdwriter_start(int fd, unsigned nbuf, size_t bufsize, tp_fdwriter_seal_fn *seal,
		      struct tp_fdwriter **out) TP_MUST_CHECK;
/* A free buffer of BUFSIZE bytes (waits for one), or NULL once a write failed. */
void *tp_fdwriter_buf(struct tp_fdwriter *w);
/* Queue HEAD (HEADLEN <= TP_FDWRITER_HEAD bytes, copied; 0: none) and LEN
 * bytes of DATA: a buffer from tp_fdwriter_buf (given back once written)
 * or memory of the caller's that stays unchanged until _finish (zeros). */
int tp_fdwriter_put(struct tp_fdwriter *w, const void *head, size_t headlen, const void *data,
		    size_t len) TP_MUST_CHECK;
/* Queue a seek of N bytes forward (SEEK_CUR). */
int tp_fdwriter_skip(struct tp_fdwriter *w, uint64_t n) TP_MUST_CHECK;
/* Everything queued written (or the first error), the thread ended, W
 * freed. 0 or -errno. Accepts NULL. */
int tp_fdwriter_finish(struct tp_fdwriter *w) TP_MUST_CHECK;

#endif
