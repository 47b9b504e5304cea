/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owner_feature.h - the owner module (lib/pool/owner/pool_owner.c): a
 * pool's owner, the system id its VG records, as a feature of the core's
 * lifecycle table (core.h). Its vg_read hook, registered before the
 * lease's, marks or refuses another host's pool before anything is
 * written. */
#ifndef TP_POOL_OWNER_FEATURE_H
#define TP_POOL_OWNER_FEATURE_H

/* Register the owner check with the core (pool_init). */
void pool_owner_register(void);

#endif
