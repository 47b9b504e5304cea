/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_pool_find.c - what device-mapper has loaded of one pool, found by
 * the pool's uuid in our dm uuids (so a renamed device still counts), for
 * lib/pool's live-or-offline decision and its clean-up of what a killed
 * command left behind (see dm.h "pool stacks"). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void copy_name(char *dst, const char *name)
{
	snprintf(dst, TP_DM_NAME_MAX, "%s", name);
}

static int visit(const char *name, const char *uuid, void *arg)
{
	struct tp_dm_pool_devs *d = arg;
	char pool_uuid[TP_DM_UUID_MAX];
	struct tp_dm_info info;
	enum tp_dm_role role;
	uint32_t dev_id;

	if (tp_dm_uuid_parse(uuid, pool_uuid, sizeof(pool_uuid), &role, &dev_id))
		return 0;	/* ours by prefix, not by form: not a piece of the pool */
	switch (role) {
	case TP_DM_ROLE_POOL: copy_name(d->tpool, name); break;
	case TP_DM_ROLE_TMETA: copy_name(d->tmeta, name); break;
	case TP_DM_ROLE_TDATA: copy_name(d->tdata, name); break;
	case TP_DM_ROLE_THIN: d->nr_thin++; break;
	case TP_DM_ROLE_CRYPT: break;	/* over a thin device counted */
	}
	/* a device may vanish between the list and this info */
	if (!tp_dm_info(name, &info) && info.suspended &&
	    d->nr_suspended < TP_DM_POOL_SUSPENDED_MAX)
		copy_name(d->suspended[d->nr_suspended++], name);
	return 0;
}

int tp_dm_pool_find(const char *pool_uuid, struct tp_dm_pool_devs *d, char *why, size_t len)
{
	char prefix[TP_DM_UUID_MAX];
	int r;

	memset(d, 0, sizeof(*d));
	r = tp_dm_lib_ready(true, why, len);
	if (r == -ENODEV)
		return 0;	/* no device-mapper on this host: nothing can be loaded */
	if (r)
		return r;
	d->have_dm = true;
	if ((size_t)snprintf(prefix, sizeof(prefix), "%s%s-", TP_DM_UUID_PREFIX, pool_uuid) >=
	    sizeof(prefix)) {
		snprintf(why, len, "the pool uuid '%s' is too long for a device-mapper uuid",
			 pool_uuid);
		return -ENAMETOOLONG;
	}
	r = tp_dm_list(prefix, visit, d);
	if (r)
		snprintf(why, len, "device-mapper could not list its devices: %s%s", strerror(-r),
			 r == -EACCES || r == -EPERM ? " (run as root)" : "");
	return r;
}
