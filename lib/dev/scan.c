/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scan.c - see scan.h. */
#include "lib/dev/scan.h"

#include "lib/base/devfilter.h"
#include "lib/base/log.h"

#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct tp_dev_entry *)a)->path,
		      ((const struct tp_dev_entry *)b)->path);
}

/* Fill E from D; 0 = keep, 1 = leave out. */
static int describe(struct udev_device *d, const char *skip_prefix, struct tp_dev_entry *e)
{
	const char *node = udev_device_get_devnode(d);
	const char *size = udev_device_get_sysattr_value(d, "size");
	const char *type = udev_device_get_devtype(d);
	const char *sysname = udev_device_get_sysname(d);

	if (!node || !size || strlen(node) >= sizeof(e->path))
		return 1;
	e->size = strtoull(size, NULL, 10) * 512;
	if (!e->size)
		return 1;
	if (skip_prefix && sysname && !strncmp(sysname, "dm-", 3)) {
		const char *uuid = udev_device_get_sysattr_value(d, "dm/uuid");
		if (uuid && !strncmp(uuid, skip_prefix, strlen(skip_prefix)))
			return 1;
	}
	snprintf(e->path, sizeof(e->path), "%s", node);
	e->partition = type && !strcmp(type, "partition");
	return 0;
}

int tp_dev_scan(const char *skip_dm_uuid_prefix, struct tp_dev_list *out)
{
	struct udev *udev;
	struct udev_enumerate *en = NULL;
	struct udev_list_entry *le;
	unsigned cap = 0;
	int r = 0;

	out->count = 0;
	out->dev = NULL;
	udev = udev_new();
	if (!udev) {
		log_debug(TP_DBG_DEV, "libudev unavailable: no block device scan");
		return -ENODEV;
	}
	en = udev_enumerate_new(udev);
	if (!en || udev_enumerate_add_match_subsystem(en, "block") < 0 ||
	    udev_enumerate_scan_devices(en) < 0) {
		log_debug(TP_DBG_DEV, "libudev: cannot enumerate block devices");
		r = -ENODEV;
		goto out;
	}
	udev_list_entry_foreach(le, udev_enumerate_get_list_entry(en)) {
		struct udev_device *d =
			udev_device_new_from_syspath(udev, udev_list_entry_get_name(le));
		struct tp_dev_entry e;

		if (!d)
			continue;
		memset(&e, 0, sizeof(e));
		if (!describe(d, skip_dm_uuid_prefix, &e) &&
		    tp_dev_filter_accepts(e.path, NULL, 0)) {
			if (out->count == cap) {
				struct tp_dev_entry *n;
				cap = cap ? cap * 2 : 16;
				n = realloc(out->dev, cap * sizeof(*n));
				if (!n) {
					udev_device_unref(d);
					r = -ENOMEM;
					goto out;
				}
				out->dev = n;
			}
			out->dev[out->count++] = e;
		}
		udev_device_unref(d);
	}
	if (out->count)
		qsort(out->dev, out->count, sizeof(*out->dev), cmp_path);
out:
	udev_enumerate_unref(en);
	udev_unref(udev);
	if (r)
		tp_dev_list_free(out);
	return r;
}

void tp_dev_list_free(struct tp_dev_list *l)
{
	if (!l)
		return;
	free(l->dev);
	l->dev = NULL;
	l->count = 0;
}
