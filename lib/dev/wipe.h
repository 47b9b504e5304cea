/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wipe.h - erase the signatures libblkid recognises (filesystems, RAID
 * members, LVM labels, partition tables, including backup copies such as
 * GPT's at the end of the device), as `wipefs -a` does.
 *
 * Used by tpcreate --force after the user agreed to overwrite a device,
 * so that blkid and udev no longer see the old contents. Returns the number
 * of signatures erased (>= 0) or -errno (logged, naming PATH). */
#ifndef TP_DEV_WIPE_H
#define TP_DEV_WIPE_H

#include "lib/base/compiler.h"

int tp_dev_wipe_signatures(const char *path) TP_MUST_CHECK;

#endif
