/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scan.h - enumerate the block devices of this machine (libudev), for
 * finding pools whose devices-file entry is lost.
 *
 * Owns: one pass over the "block" class (disks, partitions, md arrays,
 * loop devices, dm devices: the entries of /sys/class/block, each read
 * through a libudev device), returned as a list the caller frees. Devices
 * of size 0 (unused loop/ram devices, removed media) are left out; with
 * SKIP_DM_UUID_PREFIX (e.g. "TPTOOLS-"), device-mapper devices whose uuid
 * starts with it are left out too (our pools' internal devices and
 * volumes). The list is sorted by path.
 *
 * It also leaves out the device-mapper devices whose device
 * numbers are in SKIP (NSKIP of them, any order; device-mapper's own list
 * gives them), by their sysfs name "dm-<minor>", before anything of them
 * is read: a host with thousands of our volumes loaded pays a directory
 * entry for each, not a udev device and its sysfs reads. SKIP must hold
 * device-mapper devices only (the match is by minor). The debug log (dev)
 * says how many devices were passed by unread and how many were read.
 *
 * Returns 0, or -errno when libudev cannot scan (no /sys): scanning is a
 * fallback, so that is logged as debug only. */
#ifndef TP_DEV_SCAN_H
#define TP_DEV_SCAN_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/base/compiler.h"

struct tp_dev_entry {
	char path[256];		/* device node, e.g. /dev/loop0 */
	uint64_t size;		/* bytes */
	int partition;		/* 1 for a partition */
};

struct tp_dev_list {
	unsigned count;
	struct tp_dev_entry *dev;
};

int tp_dev_scan_skip(const char *skip_dm_uuid_prefix, const dev_t *skip, unsigned nskip,
		     struct tp_dev_list *out) TP_MUST_CHECK;
/* Free the entries and zero the list; NULL and repeated calls are fine. */
void tp_dev_list_free(struct tp_dev_list *l);

#endif
