/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_avail.c - is the kernel able to run a pool? Target versions from
 * DM_DEVICE_LIST_VERSIONS, loading dm-thin-pool on demand like LVM does. */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/log.h"

#include <errno.h>
#include <libdevmapper.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int find_version(const char *target, uint32_t version[3], bool quiet)
{
	struct dm_task *dmt;
	struct dm_versions *v;
	unsigned next = 0;
	int r;

	if ((r = tp_dm_lib_start(DM_DEVICE_LIST_VERSIONS, NULL, quiet, &dmt)))
		return r;
	/* a failing ioctl here means dm is there but unusable (permissions) */
	if ((r = tp_dm_lib_run(dmt, "list target versions", NULL, -1,
			       quiet ? TP_DM_LIB_QUIET_ALL : 0)))
		goto out;
	r = -ENOENT;
	v = dm_task_get_versions(dmt);
	do {
		v = (struct dm_versions *)((char *)v + next);
		if (!strcmp(v->name, target)) {
			memcpy(version, v->version, sizeof(v->version));
			r = 0;
			break;
		}
	} while ((next = v->next));
out:
	dm_task_destroy(dmt);
	return r;
}

int tp_dm_target_version(const char *target, uint32_t version[3])
{
	return find_version(target, version, false);
}

/* The kernel loads target modules on a table load; listing versions does
 * not, so load dm-thin-pool (which brings "thin") the way LVM does. */
static void load_module(const char *module)
{
	char *argv[] = { "modprobe", "-q", (char *)module, NULL };
	pid_t pid;
	int status;

	if (geteuid() != 0)
		return;
	if (posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ))
		return;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

int tp_dm_check_available(char *why, size_t len)
{
	uint32_t v[3];
	int r;

	if ((r = tp_dm_lib_ready(true, why, len)))
		return r;
	r = find_version("thin-pool", v, true);
	if (r == -ENOENT) {
		load_module("dm-thin-pool");
		r = find_version("thin-pool", v, true);
	}
	if (r == -ENOENT) {
		snprintf(why, len,
			 "the running kernel has device-mapper but no thin-pool target "
			 "(module dm-thin-pool could not be loaded; CONFIG_DM_THIN_PROVISIONING)");
		return -EOPNOTSUPP;
	}
	if (r) {
		snprintf(why, len, "cannot talk to the kernel's device-mapper: %s%s", strerror(-r),
			 r == -EACCES || r == -EPERM ? " (run as root)" : "");
		return r;
	}
	if (v[0] < TP_DM_THIN_POOL_MIN_MAJOR ||
	    (v[0] == TP_DM_THIN_POOL_MIN_MAJOR && v[1] < TP_DM_THIN_POOL_MIN_MINOR)) {
		snprintf(why, len,
			 "the kernel's thin-pool target is version %u.%u.%u; tptools needs %u.%u "
			 "or later",
			 v[0], v[1], v[2], TP_DM_THIN_POOL_MIN_MAJOR, TP_DM_THIN_POOL_MIN_MINOR);
		return -EOPNOTSUPP;
	}
	if (find_version("thin", v, true) || find_version("linear", v, true)) {
		snprintf(why, len, "the running kernel lacks the thin or linear dm target");
		return -EOPNOTSUPP;
	}
	return 0;
}
