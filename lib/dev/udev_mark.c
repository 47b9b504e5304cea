/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev_mark.c - see udev_mark.h. */
#include "lib/dev/udev_mark.h"

#include "lib/base/log.h"

#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int is(const char *v, const char *want)
{
	return v && !strcmp(v, want);
}

static int mpath_path(const char *(*get)(void *ctx, const char *key), void *ctx, char *why,
		      size_t len)
{
	if (!is(get(ctx, "DM_MULTIPATH_DEVICE_PATH"), "1"))
		return 0;
	snprintf(why, len, "it is a path of a multipath device "
			   "(DM_MULTIPATH_DEVICE_PATH=1): use the multipath device");
	return 1;
}

int tp_udev_props_marked(const char *(*get)(void *ctx, const char *key), void *ctx, char *why,
			 size_t len)
{
	const char *type = get(ctx, "ID_FS_TYPE");
	const char *usage = get(ctx, "ID_FS_USAGE");

	if (mpath_path(get, ctx, why, len))
		return 1;
	if (is(get(ctx, "SYSTEMD_READY"), "0")) {
		snprintf(why, len, "udev keeps it from use until its owner (multipath, LVM or md) "
				   "assembles it (SYSTEMD_READY=0)");
		return 1;
	}
	if (type && *type && !is(type, "tptools_member")) {
		snprintf(why, len, "udev recorded a %s signature on it (ID_FS_TYPE=%s%s%s)", type,
			 type, usage ? ", ID_FS_USAGE=" : "", usage ? usage : "");
		return 1;
	}
	return 0;
}

static const char *prop(void *ctx, const char *key)
{
	return udev_device_get_property_value(ctx, key);
}

typedef int (*rule_fn)(const char *(*get)(void *ctx, const char *key), void *ctx, char *why,
		       size_t len);

/* RULE over udev's database entry of PATH. */
static int ask_udev(const char *path, rule_fn rule, char *why, size_t len)
{
	struct udev *udev;
	struct udev_device *d;
	struct stat st;
	int r;

	if (stat(path, &st)) {
		r = -errno;
		log_error("%s: %s", path, strerror(errno));
		return r;
	}
	if (!S_ISBLK(st.st_mode))
		return 0;
	udev = udev_new();
	if (!udev)
		return 0;	/* no udev: nothing known */
	d = udev_device_new_from_devnum(udev, 'b', st.st_rdev);
	r = 0;
	if (d) {
		/* a device udev never processed has no database entry: then
		 * its properties say nothing about other owners */
		if (udev_device_get_is_initialized(d))
			r = rule(prop, d, why, len);
		udev_device_unref(d);
	}
	udev_unref(udev);
	log_debug(TP_DBG_DEV, "%s: udev %s", path, r ? why : "marks nothing");
	return r;
}

int tp_udev_marked(const char *path, char *why, size_t len)
{
	return ask_udev(path, tp_udev_props_marked, why, len);
}

int tp_udev_is_mpath_path(const char *path, char *why, size_t len)
{
	return ask_udev(path, mpath_path, why, len);
}
