/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_lib.h - internal to kernel/: the libdevmapper glue shared by the
 * dm_*.c files (log routing, udev detection, task running). Not for
 * callers outside kernel/; they use dm.h. */
#ifndef TP_KERNEL_DM_LIB_H
#define TP_KERNEL_DM_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dm_task;

/* One-time setup: libdevmapper's log into ours, udev sync off when udev
 * is not running. Then 0, or -ENODEV (logged unless QUIET) when the
 * kernel has no device-mapper. WHY (may be NULL) gets the reason. */
int tp_dm_lib_ready(bool quiet, char *why, size_t len);

/* true when libdevmapper manages /dev/mapper nodes itself (no udev) */
bool tp_dm_lib_no_udev(void);

/* tp_dm_lib_ready (QUIET, no reason wanted), then the task of TYPE on
 * NAME into *OUT: 0, ready's -errno, or -ENOMEM. Every call into
 * libdevmapper starts here. */
int tp_dm_lib_start(int type, const char *name, bool quiet, struct dm_task **out);

/* Run DMT; on failure return the kernel's -errno (-EIO if unknown).
 * UDEV_FLAGS >= 0 sets a udev cookie with those flags and waits for udev
 * after the ioctl. WHAT names the operation for the error message; the
 * error QUIET_ERR (a -errno, or 0 for none, or TP_DM_LIB_QUIET_ALL) is
 * returned but not logged. */
#define TP_DM_LIB_QUIET_ALL 1
int tp_dm_lib_run(struct dm_task *dmt, const char *what, const char *name, int udev_flags,
		  int quiet_err);

/* dm_table.c: the thin-pool table of layout L over the loaded devices
 * META and DATA (dm names), into T (activation and a reload alike). */
struct tp_dm_pool_layout;
struct tp_dm_target;
int tp_dm_pool_table(const struct tp_dm_pool_layout *l, const char *meta, const char *data,
		     struct tp_dm_target *t);

#endif
