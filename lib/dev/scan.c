/* scan.c - see scan.h. */
#include "lib/dev/scan.h"

#include "lib/base/log.h"

#include <errno.h>
#include <libudev.h>
#include <stdlib.h>
#include <string.h>

static int skip(struct udev_device *d)
{
	const char *sysname = udev_device_get_sysname(d);
	const char *v;

	if (!sysname)
		return 1;
	v = udev_device_get_sysattr_value(d, "size");
	if (v && !strcmp(v, "0"))
		return 1;	/* empty: unused loop or ram device, removed media */
	if (!strncmp(sysname, "dm-", 3)) {
		v = udev_device_get_sysattr_value(d, "dm/uuid");
		if (v && !strncmp(v, "TPTOOLS-", 8))
			return 1;
	}
	return 0;
}

int tp_dev_scan(tp_dev_scan_fn fn, void *arg)
{
	struct udev *udev = udev_new();
	struct udev_enumerate *en;
	struct udev_list_entry *e;
	int r = 0;

	if (!udev) {
		log_debug(TP_DBG_DEV, "libudev unavailable: no block device scan");
		return -ENODEV;
	}
	en = udev_enumerate_new(udev);
	if (!en || udev_enumerate_add_match_subsystem(en, "block") < 0 ||
	    udev_enumerate_scan_devices(en) < 0) {
		log_debug(TP_DBG_DEV, "libudev: cannot enumerate block devices");
		udev_enumerate_unref(en);
		udev_unref(udev);
		return -ENODEV;
	}
	udev_list_entry_foreach(e, udev_enumerate_get_list_entry(en)) {
		struct udev_device *d =
			udev_device_new_from_syspath(udev, udev_list_entry_get_name(e));
		const char *node;

		if (!d)
			continue;
		node = udev_device_get_devnode(d);
		if (node && !skip(d)) {
			log_debug(TP_DBG_DEV, "scan: %s", node);
			r = fn(node, arg);
		}
		udev_device_unref(d);
		if (r)
			break;
	}
	udev_enumerate_unref(en);
	udev_unref(udev);
	return r;
}
