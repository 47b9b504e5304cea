/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_names_dm.h - whether a volume name can become a device-mapper name.
 *
 * A volume is loaded as the dm device "POOL-VOLUME" with every '-' of
 * either name doubled (kernel/dm_names.c), and dm names hold at most 127
 * bytes (DM_NAME_LEN 128 with the NUL). A pool and a volume name can each
 * be 64 bytes, so a valid pair may not fit: such a name is refused when a
 * volume gets it (tvcreate, tvsnap, tvrename), and a pool name that would
 * make a volume's too long is refused by tprename, before anything is
 * written, instead of failing at activation: pool_name_free
 * (core/pool_change.c) calls it for every new volume name (tprecv's too). */
#ifndef TP_POOL_NAMES_DM_H
#define TP_POOL_NAMES_DM_H

#include <stddef.h>

#include "lib/base/compiler.h"

/* The most bytes "POOL-VOLUME" may take as a dm name. */
#define POOL_DM_NAME_LIMIT 127

/* The length of VOL's dm name in pool POOL ('-' doubled, the separator
 * counted). */
size_t pool_dm_vol_name_len(const char *pool, const char *vol);

/* 0 when volume VOL of pool POOL has a dm name that fits, else -EINVAL
 * after an error naming the volume, the length and the limit, and the
 * longest name that would fit. Names invalid in other ways are left to
 * the other checks (0). */
int pool_dm_vol_name_check(const char *pool, const char *vol) TP_MUST_CHECK;

#endif
