/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_lease.h - shared storage: a pool's sanlock lease, as the tools see
 * it (the lease module, lib/pool/lease: a writer takes the lease when it
 * attaches and lets it go at detach; tpactivate starts the holder). */
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
/* The hidden commands of the multi-call binary: `tp __lease-holder` (the
 * process that keeps an active pool's lease, started by tpactivate) and
 * `tp __lease-fence` (the kill path sanlock runs when the lease is lost).
 * ARGV[0] is the command's name; they return an exit code. */
int pool_lease_holder_main(int argc, const char **argv);
int pool_lease_fence_main(int argc, const char **argv);

#endif
