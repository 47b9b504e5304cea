/* SPDX-License-Identifier: GPL-2.0-or-later */
/* atomic.h - replacing a file so that a crash leaves its old content or
 * its new, never a mix: the one way tptools rewrites a file in place (the
 * devices file, the VG metadata backups, the damaged thin-metadata
 * copies, the monitor's state files, tpmonitor --textfile's metrics).
 *
 * The rule, step by step:
 *   1. create a temporary file in the target's directory (the rename
 *      must not cross filesystems), afresh, with the caller's mode less
 *      the umask; one left by a crash is removed first;
 *   2. write all of it, every write checked (fileio.h: short writes
 *      continued, EINTR retried);
 *   3. fsync it, so its data are on the disk before its name is;
 *   4. close it (errors checked) and rename it over the target: a reader
 *      sees the old file or the new one;
 *   5. fsync the directory, so the rename itself is on the disk.
 * A failure up to the rename removes the temporary file and leaves the
 * target as it was; a failure of step 5 leaves the new content in place,
 * perhaps not yet durable, and is an error still. Every failure is
 * logged once, here, naming the file and the step ("cannot fsync
 * /etc/tptools/.devices.tmp: ...; /etc/tptools/devices is left as it
 * was"): callers log nothing more for it.
 *
 * The temporary file's name is fixed (TMP_NAME, or the target's name
 * with ".tmp"), so that one a crash left is replaced by the next write
 * instead of piling up; writers of one target must therefore be
 * serialized by the caller (a lock, or one process).
 *
 * Use tp_atomic_replace for a buffer; or tp_atomic_open, any number of
 * tp_atomic_write, _pwrite, _printf and _set_size, then tp_atomic_commit,
 * or tp_atomic_abort to drop the new content. The first failing write is
 * remembered: later ones do nothing and return it, and commit returns it
 * (having removed the temporary file), so a caller may check the commit
 * alone. Functions return 0 or -errno. */
#ifndef TP_BASE_ATOMIC_H
#define TP_BASE_ATOMIC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/base/compiler.h"

struct tp_atomic {
	char *path;	/* the target */
	char *tmp;	/* the temporary file beside it */
	char *dir;	/* their directory */
	int fd;		/* the temporary file's, -1 once closed */
	int err;	/* the first failure (logged), sticky */
};

/* Start replacing PATH: create its temporary file, DIR/TMP_NAME (a name
 * without '/'; NULL: the target's name with ".tmp"), with MODE. On
 * failure (logged) nothing is left to undo; tp_atomic_abort is harmless. */
int tp_atomic_open(const char *path, const char *tmp_name, mode_t mode, struct tp_atomic *a)
	TP_MUST_CHECK;
/* Append LEN bytes. */
int tp_atomic_write(struct tp_atomic *a, const void *buf, size_t len);
/* Write LEN bytes at byte OFF (a sparse file: what is not written reads
 * as zeroes). */
int tp_atomic_pwrite(struct tp_atomic *a, const void *buf, size_t len, uint64_t off);
/* Append formatted text. */
int tp_atomic_printf(struct tp_atomic *a, const char *fmt, ...) TP_PRINTF(2, 3);
/* Make the new file SIZE bytes long (ftruncate). */
int tp_atomic_set_size(struct tp_atomic *a, uint64_t size);
/* Steps 3 to 5; releases A whatever the outcome. */
int tp_atomic_commit(struct tp_atomic *a) TP_MUST_CHECK;
/* Drop the new content: the temporary file is removed, the target left
 * as it was; releases A. Also after a failed open or a commit. */
void tp_atomic_abort(struct tp_atomic *a);

/* The whole rule for LEN bytes of BUF. */
int tp_atomic_replace(const char *path, const char *tmp_name, mode_t mode, const void *buf,
		      size_t len) TP_MUST_CHECK;

/* Test seam, only in the test build (TP_TEST_HOOKS=1, critical.h): while
 * set, every replace fails at STEP with -ERR as though its system call
 * had (CLOSE still closes; DIRSYNC happens after the rename).
 * TP_ATOMIC_STEP_NONE unsets it. */
enum tp_atomic_step {
	TP_ATOMIC_STEP_NONE,
	TP_ATOMIC_STEP_CREATE,
	TP_ATOMIC_STEP_WRITE,
	TP_ATOMIC_STEP_FSYNC,
	TP_ATOMIC_STEP_CLOSE,
	TP_ATOMIC_STEP_RENAME,
	TP_ATOMIC_STEP_DIRSYNC,
};
#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
void tp_atomic_test_fail(enum tp_atomic_step step, int err);
#endif

#endif
