/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scan.c - see scan.h. */
#include "lib/dev/scan.h"

#include "lib/base/devfilter.h"
#include "lib/base/log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* every block device of the machine, a link each to its sysfs directory */
#define SYS_BLOCK "/sys/class/block"

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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Is the block device called NAME in sysfs one of the device-mapper
 * minors SKIP (N, sorted)? The kernel names every dm device "dm-<minor>"
 * (all of them share device-mapper's one major). */
static int skipped(const char *name, const uint32_t *skip, unsigned n)
{
	char *end;
	unsigned long m;

	if (!n || strncmp(name, "dm-", 3) || !isdigit((unsigned char)name[3]))
		return 0;
	errno = 0;
	m = strtoul(name + 3, &end, 10);
	if (errno || *end || m > UINT32_MAX)
		return 0;
	return bsearch(&(uint32_t){ (uint32_t)m }, skip, n, sizeof(*skip), cmp_u32) != NULL;
}

static int add(struct tp_dev_list *out, unsigned *cap, const struct tp_dev_entry *e)
{
	if (out->count == *cap) {
		unsigned grown = *cap ? *cap * 2 : 16;
		struct tp_dev_entry *n = realloc(out->dev, grown * sizeof(*n));

		if (!n)
			return -ENOMEM;
		out->dev = n;
		*cap = grown;
	}
	out->dev[out->count++] = *e;
	return 0;
}

int tp_dev_scan_skip(const char *skip_dm_uuid_prefix, const dev_t *skip, unsigned nskip,
		     struct tp_dev_list *out)
{
	struct udev *udev;
	struct dirent *de;
	uint32_t *minors = NULL;
	unsigned cap = 0, seen = 0, passed = 0, read = 0;
	DIR *dir = NULL;
	int r = 0;

	out->count = 0;
	out->dev = NULL;
	if (nskip) {
		if (!(minors = malloc(nskip * sizeof(*minors))))
			return -ENOMEM;
		for (unsigned i = 0; i < nskip; i++)
			minors[i] = minor(skip[i]);
		qsort(minors, nskip, sizeof(*minors), cmp_u32);
	}
	udev = udev_new();
	if (!udev) {
		log_debug(TP_DBG_DEV, "libudev unavailable: no block device scan");
		free(minors);
		return -ENODEV;
	}
	/* the block class's directory, read here rather than through a
	 * libudev enumeration, which makes a device of every entry: a device
	 * passed by is then never opened (no udev_device, no sysfs read) */
	dir = opendir(SYS_BLOCK);
	if (!dir) {
		log_debug(TP_DBG_DEV, "%s: %s: no block device scan", SYS_BLOCK, strerror(errno));
		r = -ENODEV;
		goto out;
	}
	while ((de = readdir(dir))) {
		char syspath[sizeof(SYS_BLOCK) + sizeof(de->d_name) + 1];
		struct udev_device *d;
		struct tp_dev_entry e;

		if (de->d_name[0] == '.')
			continue;
		seen++;
		if (skipped(de->d_name, minors, nskip)) {
			passed++;
			continue;
		}
		snprintf(syspath, sizeof(syspath), "%s/%s", SYS_BLOCK, de->d_name);
		if (!(d = udev_device_new_from_syspath(udev, syspath)))
			continue;
		read++;
		memset(&e, 0, sizeof(e));
		if (!describe(d, skip_dm_uuid_prefix, &e) && tp_dev_filter_accepts(e.path, NULL, 0))
			r = add(out, &cap, &e);
		udev_device_unref(d);
		if (r)
			goto out;
	}
	/* what the scan cost: the devices read are what grows with a host's
	 * devices, those passed by never cost more than their directory entry */
	log_debug(TP_DBG_DEV, "block device scan: %u devices, %u passed by unread, %u read, %u kept",
		  seen, passed, read, out->count);
	if (out->count)
		qsort(out->dev, out->count, sizeof(*out->dev), cmp_path);
out:
	if (dir)
		closedir(dir);
	udev_unref(udev);
	free(minors);
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
