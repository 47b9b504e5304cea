/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lease_feature.h - the lease module (lib/pool/lease/pool_lease.c): a
 * shared pool's sanlock lease as a feature of the core's lifecycle table
 * (core.h: struct pool_feature). Registered by pool_init; its vg_read
 * hook takes a writer's lease after the VG is read, its detach hook lets
 * it go. What the tools see of it is in lib/pool/pool_lease.h. */
#ifndef TP_POOL_LEASE_FEATURE_H
#define TP_POOL_LEASE_FEATURE_H

#include "lib/base/compiler.h"
#include "lib/pool/pool_lease.h"

#include <stdint.h>

/* Register the lease with the core (pool_init). */
void pool_lease_register(void);
/* Before a new shared pool or lease area is written: 0 when the sanlock
 * daemon answers (else -ENOTCONN, logged). */
int pool_lease_check_daemon(const char *pool) TP_MUST_CHECK;
/* Write an empty lease area NAME on PATH at OFFSET (through the daemon). */
int pool_lease_format(const char *pool, const char *name, const char *path, uint64_t offset,
		      unsigned io_timeout) TP_MUST_CHECK;

#endif
