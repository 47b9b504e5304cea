/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_pool_find.c - what device-mapper has loaded of one pool, found by
 * the pool's uuid in our dm uuids (so a renamed device still counts), for
 * lib/pool's live-or-offline decision and its clean-up of what a killed
 * command left behind (see dm.h "pool stacks"). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void copy_name(char *dst, const char *name)
{
	snprintf(dst, TP_DM_NAME_MAX, "%s", name);
}

/* Is dm device D suspended? Its sysfs attribute says it in one small read,
 * where a DM_DEV_STATUS through libdevmapper is a task of 16 KiB: what a
 * command on a pool with thousands of volumes loaded paid most for, once
 * per volume. Where sysfs cannot say, the device is asked; one that
 * vanished since the list is not suspended. */
static bool is_suspended(const struct tp_dm_listed *d)
{
	struct tp_dm_info info;
	char path[64], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%" PRIu32 ":%" PRIu32 "/dm/suspended",
		 d->major, d->minor);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, &c, 1);

		close(fd);
		if (n == 1 && (c == '0' || c == '1'))
			return c == '1';
	}
	return !tp_dm_info(d->name, &info) && info.suspended;
}

static int visit(const struct tp_dm_listed *l, void *arg)
{
	struct tp_dm_pool_devs *d = arg;
	char pool_uuid[TP_DM_UUID_MAX];
	enum tp_dm_role role;
	uint32_t dev_id;

	if (tp_dm_uuid_parse(l->uuid, pool_uuid, sizeof(pool_uuid), &role, &dev_id))
		return 0;	/* ours by prefix, not by form: not a piece of the pool */
	switch (role) {
	case TP_DM_ROLE_POOL: copy_name(d->tpool, l->name); break;
	case TP_DM_ROLE_TMETA: copy_name(d->tmeta, l->name); break;
	case TP_DM_ROLE_TDATA: copy_name(d->tdata, l->name); break;
	case TP_DM_ROLE_THIN: d->nr_thin++; break;
	case TP_DM_ROLE_CRYPT: break;	/* over a thin device counted */
	}
	if (is_suspended(l) && d->nr_suspended < TP_DM_POOL_SUSPENDED_MAX)
		copy_name(d->suspended[d->nr_suspended++], l->name);
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
	r = tp_dm_list_devs(prefix, visit, d);
	if (r)
		snprintf(why, len, "device-mapper could not list its devices: %s%s", strerror(-r),
			 r == -EACCES || r == -EPERM ? " (run as root)" : "");
	return r;
}
