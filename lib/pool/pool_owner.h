/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_owner.h - a pool's owner, the system id its VG records (lib/pool/owner;
 * handed over by lib/pool/admin)
 * (lib/pool's public face; pool.h has what every command shares: the
 * open pool, its names and types, activation and status). Errors as in
 * pool.h. */
#ifndef TP_POOL_OWNER_H
#define TP_POOL_OWNER_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "lib/pool/pool.h"

/* The system id of the host that owns P ("" when no host does), and 1 when
 * that is another host than this one (opened with POOL_FOREIGN_OK). */
const char *pool_owner(const struct pool *p);
int pool_is_foreign(const struct pool *p);
/* Hand P over to the host whose system id is ID ("" : to no owner, any
 * host may use it): one VG commit. P must be inactive (-EBUSY, logged):
 * the new owner activates it. */
int pool_set_system_id(struct pool *p, const char *id) TP_MUST_CHECK;

#endif
