/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_lib.c - libdevmapper glue for kernel/ (see dm_lib.h). */
#include "kernel/dm_lib.h"
#include "kernel/dm.h"
#include "lib/base/dmlog.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <libdevmapper.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ready = 1;	/* 1: not yet checked, 0: ok, <0: -errno */
static bool no_udev;
static char ready_why[256];

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* /proc/misc lists "device-mapper" once dm-mod is loaded. */
static bool misc_has_dm(void)
{
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/misc", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " device-mapper") != NULL;
	fclose(f);
	return found;
}

/* A /dev/mapper/control node with no driver behind it: left by a package
 * (lvm2, dmsetup) on a kernel without device-mapper. Opening the node is
 * what loads dm-mod on demand, so only a failed open says so. */
static bool control_is_stale(void)
{
	int fd;

	if (exists("/sys/class/misc/device-mapper") || misc_has_dm())
		return false;
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ENODEV || errno == ENXIO;
}

int tp_dm_lib_ready(bool quiet, char *why, size_t len)
{
	if (ready == 1) {
		tp_dmlog_install();
		/* Without udev, libdevmapper must make /dev/mapper nodes itself;
		 * DM_DISABLE_UDEV=1 says so explicitly, a missing udev control
		 * socket says so implicitly. */
		if (getenv("DM_DISABLE_UDEV") || !exists("/run/udev/control")) {
			no_udev = true;
			dm_udev_set_sync_support(0);
		}
		if (!exists("/dev/mapper/control") && !exists("/sys/class/misc/device-mapper") &&
		    !misc_has_dm()) {
			snprintf(ready_why, sizeof(ready_why),
				 "the running kernel has no device-mapper (dm-mod is not loaded and "
				 "/dev/mapper/control is missing): load it with 'modprobe dm-mod' or "
				 "use a kernel with CONFIG_BLK_DEV_DM");
			ready = -ENODEV;
		} else if (exists("/dev/mapper/control") &&
			   access("/dev/mapper/control", R_OK | W_OK) && errno == EACCES) {
			snprintf(ready_why, sizeof(ready_why),
				 "no permission to use device-mapper (/dev/mapper/control): run as "
				 "root");
			ready = -EACCES;
		} else if (exists("/dev/mapper/control") && control_is_stale()) {
			snprintf(ready_why, sizeof(ready_why),
				 "the running kernel has no device-mapper (/dev/mapper/control is "
				 "there but no driver answers it): load dm-mod with 'modprobe dm-mod' "
				 "or use a kernel with CONFIG_BLK_DEV_DM");
			ready = -ENODEV;
		} else {
			ready = 0;
		}
	}
	if (ready && why)
		snprintf(why, len, "%s", ready_why);
	if (ready && !quiet)
		log_error("%s", ready_why);
	return ready;
}

bool tp_dm_lib_no_udev(void)
{
	return no_udev;
}

/* dm_task_create(TYPE) with NAME set (NAME may be NULL); NULL on ENOMEM
 * (logged). */
static struct dm_task *tp_dm_lib_task(int type, const char *name)
{
	struct dm_task *dmt = dm_task_create(type);

	if (!dmt) {
		/* libdevmapper checks the kernel's interface version here: NULL
		 * is almost always an unusable /dev/mapper/control, rarely memory */
		log_error("device-mapper is not usable: libdevmapper could not reach the kernel "
			  "through /dev/mapper/control (is dm-mod loaded and the node right? "
			  "TPTOOLS_DEBUG=kernel shows libdevmapper's own messages)");
		return NULL;
	}
	if (name && !dm_task_set_name(dmt, name)) {
		log_error("device-mapper rejected the name '%s'", name);
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

int tp_dm_lib_run(struct dm_task *dmt, const char *what, const char *name, int udev_flags,
		  int quiet_err)
{
	uint32_t cookie = 0;
	bool waited = false;
	int ok, err = 0;

	if (udev_flags >= 0) {
		if (!dm_task_set_cookie(dmt, &cookie, (uint16_t)udev_flags)) {
			log_error("%s: cannot set up udev synchronisation for %s", name ? name : "",
				  what);
			return -EIO;
		}
		waited = true;
	}
	ok = dm_task_run(dmt);
	if (!ok) {
		err = dm_task_get_errno(dmt);
		err = err > 0 ? -err : -EIO;
	}
	/* the cookie must be waited for even when the ioctl failed */
	if (waited && !dm_udev_wait(cookie))
		log_warn("%s: udev did not confirm %s; /dev nodes may lag", name ? name : "", what);
	if (err && err != quiet_err && quiet_err != TP_DM_LIB_QUIET_ALL)
		log_error("%s%s%s failed: %s", name ? name : "", name ? ": " : "", what,
			  strerror(-err));
	return err;
}

int tp_dm_lib_start(int type, const char *name, bool quiet, struct dm_task **out)
{
	int r = tp_dm_lib_ready(quiet, NULL, 0);

	*out = NULL;
	if (r)
		return r;
	tp_dmlog_reclaim();	/* again: libcryptsetup may have replaced it */
	return (*out = tp_dm_lib_task(type, name)) ? 0 : -ENOMEM;
}
