/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unlock.h - the unlock module (encrypted volumes at activation: pool.h
 * "encrypted volumes at activation") towards the rest of lib/pool. */
#ifndef TP_POOL_UNLOCK_H
#define TP_POOL_UNLOCK_H

/* Register the unlock module's load_volume hook with the core (pool_init). */
void pool_unlock_register(void);

#endif
