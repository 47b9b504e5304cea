/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.h - reading sysfs attributes (lib/dev internal): one value of a
 * device directory, trimmed of its newline. */
#ifndef TP_DEV_SYSFS_H
#define TP_DEV_SYSFS_H

#include <stddef.h>

#include "lib/base/compiler.h"

#define PATH_MAX_SYSFS 1024

/* DIR/NAME's first line into BUF ("" when it cannot be read). 1 read, 0
 * not. */
int tp_sysfs_attr(const char *dir, const char *name, char *buf, size_t len);

/* Does DIR/NAME exist? */
int tp_sysfs_exists(const char *dir, const char *name);

/* snprintf for message parts and paths that may be cut short. */
void tp_dev_fmt(char *buf, size_t len, const char *fmt, ...) TP_PRINTF(3, 4);

#endif
