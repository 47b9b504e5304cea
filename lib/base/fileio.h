/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h - whole writes to a file descriptor, and the spool file.
 *
 * tp_write_all and tp_pwrite_all write all of LEN: a write cut short
 * (a pipe's reader, a signal after some bytes) is continued, one
 * interrupted before any byte (EINTR) is retried. 0 or -errno; a write
 * that returns 0 is -EIO. Nothing is logged: the caller names the file.
 *
 * The spool: an unlinked temporary file in $TMPDIR (else /tmp), O_TMPFILE
 * where the filesystem has it, else created and unlinked at once, mode
 * 0600, close-on-exec. Nothing names it, so nothing is left behind
 * however the program ends.
 *
 * A copy buffer: LEN bytes for the pieces of a bulk copy, 4 KiB aligned
 * (O_DIRECT takes it) and, from 2 MiB up, aligned to and advised for
 * huge pages, so filling it the first time is not a page fault per 4 KiB
 * (a fifth of a 1 GiB raw export's time in a virtual machine). Freed
 * with free(). */
#ifndef TP_BASE_FILEIO_H
#define TP_BASE_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

int tp_write_all(int fd, const void *buf, size_t len) TP_MUST_CHECK;
int tp_pwrite_all(int fd, const void *buf, size_t len, uint64_t off) TP_MUST_CHECK;

/* A spool file open for reading and writing: its fd, or -errno, logged
 * as "cannot create a temporary file in DIR for WHAT: ... (set TMPDIR to
 * a directory with room)". A caller wanting a FILE * fdopens it. */
int tp_spool_open(const char *what) TP_MUST_CHECK;

/* *OUT: a copy buffer of LEN bytes (uninitialised). 0 or -ENOMEM. */
int tp_copybuf_alloc(size_t len, void **out) TP_MUST_CHECK;

/* Read PATH line by line (each at most MAX - 1 bytes, its newline
 * dropped), lines starting with '#' passed by, FN(line, CTX) called on the
 * others until it returns non-zero: 0, FN's value, or -errno (-ENOENT: no
 * such file). */
int tp_read_lines(const char *path, size_t max, int (*fn)(char *line, void *ctx), void *ctx)
	TP_MUST_CHECK;

#endif
