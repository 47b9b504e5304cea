/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_claim.c - one owner per device: how every command that writes a
 * pool device opens it (pool_attach.c, pool_create.c, pool_forget).
 *
 * Two claims, both held until the device is closed:
 *   1. an exclusive flock on the device node or image file itself, so two
 *      tptools commands on the same devices serialise whatever pool names
 *      they use (the pool lock only serialises one name). The second
 *      command waits up to TP_LOCK_BRIEF_MS for the first to finish, then
 *      fails with -EBUSY: a wait serialises quick commands, the bound
 *      reports a stuck one instead of hanging;
 *   2. O_EXCL on a block device: the kernel refuses it (-EBUSY) while the
 *      device is mounted, part of a device-mapper or md device, or opened
 *      exclusively by another program. An active pool's own devices are
 *      held by the kernel's thin-pool target: POOL_CLAIM_LIVE opens them
 *      without O_EXCL (the flock still serialises us).
 * -EBUSY (exit 5) is logged here, naming the pool and the device; any
 * other -errno (cannot open) is left to the caller's message. Readers
 * (tpstatus, tpcheck) take no claim. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

int pool_claim_lock(const char *pool, const char *path, struct tp_lock **lock)
{
	int r = tp_lock_file(path, TP_LOCK_EXCL | TP_LOCK_BRIEF, lock);

	if (r == -EWOULDBLOCK) {
		log_error("pool %s: %s is in use by another tptools command (waited %u s); try "
			  "again when it has finished", pool, path, TP_LOCK_BRIEF_MS / 1000);
		return -EBUSY;
	}
	return r;
}

int pool_claim_open(const char *pool, const char *path, unsigned flags, struct tp_lock **lock,
		    struct io_engine **io)
{
	int r;

	*io = NULL;
	if (!(flags & POOL_CLAIM_LOCKED))
		*lock = NULL;
	if (!(flags & (POOL_CLAIM_HELD | POOL_CLAIM_LOCKED)) &&
	    (r = pool_claim_lock(pool, path, lock)))
		return r;
	r = io_fd_open(path, (flags & (POOL_CLAIM_LIVE | POOL_CLAIM_HELD)) ? 0 : IO_EXCL, io);
	if (r == -EBUSY)
		log_error("pool %s: %s is held by the kernel or another program (mounted, part of "
			  "an active device-mapper or md device, or opened exclusively); tptools "
			  "will not write to it", pool, path);
	if (r && !(flags & POOL_CLAIM_LOCKED)) {
		tp_lock_release(*lock);
		*lock = NULL;
	}
	return r;
}
