/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_lease.h - shared storage: a pool's sanlock lease, as the tools see
 * it (the lease module, lib/pool/lease: a writer takes the lease when it
 * attaches and lets it go at detach; tpactivate starts the holder, a
 * program of its own, below). */
#ifndef TP_POOL_LEASE_H
#define TP_POOL_LEASE_H

#include "lib/base/compiler.h"

#include <stdint.h>

struct pool;

/* 1 when P is on shared storage (a sanlock lease guards it). */
int pool_is_shared(const struct pool *p);
/* This host's sanlock host id (tptools.conf(5) global/host_id), 0: none. */
unsigned pool_host_id(void);
/* The host id of the host whose lease refused this process's last open
 * (-EUSERS), 0 when none did or the disk named nobody. */
uint64_t pool_lease_refused_by(void);
/* The seconds after its last renewal that sanlock counts a host dead
 * with IO_TIMEOUT: then another host may take its lease. */
uint64_t pool_lease_dead_seconds(unsigned io_timeout);
/* Who holds P's lease, as the storage says (*HOST_ID 0: nobody; P not
 * shared: 0 with 0). Needs the sanlock daemon (-ENOTCONN, not logged). */
int pool_lease_owner(const struct pool *p, uint64_t *host_id) TP_MUST_CHECK;
/* The lease's two programs of their own, not on PATH: installed in
 * <prefix>/lib/tptools beside <prefix>/sbin/tp (a build has them in
 * build/lib/tptools beside build/bin/tp), found from the running
 * program's path (/proc/self/exe), so a build runs its own. Their mains
 * are tools/tp-lease-holder.c and tools/tp-lease-fence.c. */
#define POOL_LEASE_HOLDER "tp-lease-holder"
#define POOL_LEASE_FENCE "tp-lease-fence"
/* 1 when NAME is a pool name and UUID a pool uuid, else 0 (logged): the
 * programs' arguments, checked before they act. */
int pool_lease_args_valid(const char *name, const char *uuid);
/* The holder: `tp-lease-holder NAME UUID DEVICE OFFSET FD`, started by
 * tpactivate (setsid here), acquires pool NAME's lease (the area at
 * OFFSET of DEVICE) with the kill path beside it, answers on descriptor
 * FD ("ok", "busy HOST", "err ERRNO") and keeps the lease while the pool
 * is loaded. Logs to the system log (set up by its main). Returns the
 * exit code. */
int pool_lease_holder_run(const char *name, const char *uuid, const char *path, uint64_t offset,
			  int fd);
/* The kill path: `tp-lease-fence UUID NAME HOLDER_PID`, which sanlock
 * runs when this host can no longer renew the lease: the pool's devices
 * switched to the error target and torn down, then the holder asked to
 * end when HOLDER is a running tp-lease-holder of pool NAME (UUID); any
 * other process is left alone, with a line saying so. 0, or 5 when some
 * of its devices are still loaded (open). */
int pool_lease_fence_run(const char *uuid, const char *name, int holder);

#endif
