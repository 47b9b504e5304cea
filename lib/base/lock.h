/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock.h - per-object advisory locks (flock) so two commands never
 * interleave on one pool. Lock files are <lock dir>/<name>.lock (see
 * paths.h); a bare file or device (tpdump FILE, tprestore -o FILE) is
 * locked itself. Functions return 0 or -errno; -EWOULDBLOCK when NOWAIT (or
 * BRIEF, after its wait) and another process holds the lock. release
 * accepts NULL. */
#ifndef TP_BASE_LOCK_H
#define TP_BASE_LOCK_H

#include "lib/base/compiler.h"

#include <stddef.h>

struct tp_lock;

enum tp_lock_flags {
	TP_LOCK_SHARED = 0,
	TP_LOCK_EXCL = 1 << 0,
	TP_LOCK_NOWAIT = 1 << 1,
	TP_LOCK_BRIEF = 1 << 2,	/* wait at most TP_LOCK_BRIEF_MS, then -EWOULDBLOCK */
	/* a wait longer than TP_LOCK_TELL_MS is said (a warning: who holds
	 * the lock, its pid and command line from /proc), never silent */
	TP_LOCK_TELL = 1 << 3,
	/* a reader's wait: at most TP_LOCK_READER_MS, then -EWOULDBLOCK, the
	 * holder named in an error (implies TELL) */
	TP_LOCK_BOUNDED = 1 << 4,
};

#define TP_LOCK_TELL_MS 1000
/* How long a reader (tpstatus, tpcheck, tpsend, ...) waits for a pool a
 * writer holds: long enough for any change but a long copy (a receive, a
 * removal of a large volume, a wipe), then it says so and gives up rather
 * than hang a monitoring script. The test build takes TP_TEST_LOCK_WAIT_MS. */
#define TP_LOCK_READER_MS 30000

/* How long a BRIEF lock waits for another command to finish: long enough
 * for a tpcreate or a volume change on the same devices, short enough
 * that a stuck holder is reported rather than waited on. */
#define TP_LOCK_BRIEF_MS 5000

/* Bound the later waits of TP_LOCK_TELL locks (a writer's) in this
 * process to SECONDS of waiting in all (only the time spent waiting for a
 * held lock counts, not the work between); a wait past what is left ends
 * -EWOULDBLOCK with the holder named in an error. One budget for the
 * whole run, not each lock: tpactivate/tpdeactivate --all/--auto (a
 * boot that a hung holder must not stall). */
void tp_lock_writers_budget(unsigned seconds);

int tp_lock_acquire(const char *name, unsigned flags, struct tp_lock **out) TP_MUST_CHECK;
/* The same, WHAT naming the locked object in the messages of TELL and
 * BOUNDED ("pool vault"). */
int tp_lock_acquire_told(const char *name, unsigned flags, const char *what,
			 struct tp_lock **out) TP_MUST_CHECK;
/* Lock the existing file or block device PATH itself (shared for readers,
 * TP_LOCK_EXCL for a writer); -ENOENT when it does not exist, -ENOTBLK
 * (logged, at once) when it is neither (devopen.h). */
int tp_lock_file(const char *path, unsigned flags, struct tp_lock **out) TP_MUST_CHECK;
void tp_lock_release(struct tp_lock *l);

#endif
