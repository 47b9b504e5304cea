/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lease_int.h - the lease module's own (lib/pool/lease): the fence
 * (pool_fence.c) that the holder's watcher (pool_lease.c) and the kill
 * path share. */
#ifndef TP_POOL_LEASE_INT_H
#define TP_POOL_LEASE_INT_H

#include "lib/pool/pool_lease.h"

/* How many of pool UUID's devices device-mapper has loaded (0 on error). */
unsigned lease_pool_loaded(const char *uuid);
/* Switch pool UUID's (named NAME) devices to the error target, the bottom
 * ones first, and remove them; WHY says how the lease was lost (the
 * log's words, log_crit). */
void lease_fence(const char *uuid, const char *name, const char *why);

#endif
