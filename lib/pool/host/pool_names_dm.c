/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_names_dm.c - see pool_names_dm.h. */
#include "lib/pool/pool_names_dm.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

_Static_assert(POOL_DM_NAME_LIMIT + 1 == TP_DM_NAME_MAX, "dm names: DM_NAME_LEN");

static size_t escaped_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '-' ? 2 : 1;
	return n;
}

size_t pool_dm_vol_name_len(const char *pool, const char *vol)
{
	return escaped_len(pool) + 1 + escaped_len(vol);
}

int pool_dm_vol_name_check(const char *pool, const char *vol)
{
	char name[TP_DM_NAME_MAX];
	size_t len, room;

	if (!pool || !vol || tp_dm_name(name, sizeof(name), pool, TP_DM_ROLE_THIN, vol) !=
				     -ENAMETOOLONG)
		return 0;
	len = pool_dm_vol_name_len(pool, vol);
	room = escaped_len(pool) + 1 < POOL_DM_NAME_LIMIT ? POOL_DM_NAME_LIMIT -
							    escaped_len(pool) - 1 : 0;
	log_error("invalid volume name '%s': in pool %s its device-mapper name ('%s-%s' with "
		  "every '-' doubled) would be %zu bytes, over the kernel's limit of %d; choose a "
		  "name of at most %zu bytes (a '-' counts as two)", vol, pool, pool, vol, len,
		  POOL_DM_NAME_LIMIT, room);
	return -EINVAL;
}
