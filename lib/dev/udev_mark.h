/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev_mark.h - has udev marked a block device as taken by something else?
 *
 * libblkid (probe.h) sees the signatures on a device; udev's database also
 * knows what other subsystems decided about it, which no signature shows:
 * a path of a multipath map (DM_MULTIPATH_DEVICE_PATH=1), a device kept
 * from use until its owner assembles it (SYSTEMD_READY=0, set by the
 * multipath, LVM and md rules), and what blkid found when udev probed it
 * (ID_FS_TYPE/ID_FS_USAGE; our own tptools_member mark excepted: the
 * label check handles it). tpcreate refuses such a device unless --force.
 *
 * Three-way result: 1 marked (WHY filled), 0 not marked or nothing known
 * (an image file, no udev database, a device udev never saw), -errno when
 * PATH cannot be examined (logged). Reads only; lib/base and libudev. */
#ifndef TP_DEV_UDEV_MARK_H
#define TP_DEV_UDEV_MARK_H

#include <stddef.h>

#include "lib/base/compiler.h"

int tp_udev_marked(const char *path, char *why, size_t len) TP_MUST_CHECK;

/* The rule alone, over a property lookup (GET returns NULL when unset):
 * 1 marked (WHY filled), 0 not. tp_udev_marked feeds it udev's database. */
int tp_udev_props_marked(const char *(*get)(void *ctx, const char *key), void *ctx, char *why,
			 size_t len);

/* Is PATH a path of a multipath map in udev's database
 * (DM_MULTIPATH_DEVICE_PATH=1)? 1 (WHY filled), 0 (no, or nothing known:
 * an image file, no udev), -errno when PATH cannot be examined (logged). */
int tp_udev_is_mpath_path(const char *path, char *why, size_t len) TP_MUST_CHECK;

#endif
