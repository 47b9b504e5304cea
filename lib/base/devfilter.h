/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devfilter.h - which block devices tptools may look at: the
 * devices/filter list of tptools.conf (tptools.conf(5)), as lvm.conf's
 * filter.
 *
 * Each pattern is "a" (accept) or "r" (reject), then a delimiter, an
 * extended regular expression (regex(7)) and the same delimiter again:
 * "a|^/dev/md|", "r|.*|". A device's names are the path it is named by
 * and that path with its symbolic links resolved (realpath: /dev/md/data
 * is also /dev/md127); the first pattern that matches one of them decides;
 * a device no pattern matches is accepted. The filter is for block
 * devices: an image file (a regular file) is never filtered.
 *
 * A rejected device is never opened: io_dev_open refuses it (devopen.h),
 * and the label scans pass it by without a word.
 *
 * The test build (TP_TEST_HOOKS) has a scan root besides: with
 * TP_TEST_SCAN_ROOT=DIR in the environment, the only block devices it
 * accepts are loop devices whose backing file lies under DIR (the
 * test's own directory, test/shell/run.sh), so that no test sees or
 * touches a pool on the host's other block devices. */
#ifndef TP_BASE_DEVFILTER_H
#define TP_BASE_DEVFILTER_H

#include <stddef.h>

/* 1 when PATH may be used: not a block device, or the filter accepts it.
 * 0 when the filter rejects it; then, when WHY is given, it is set to the
 * pattern and where it was set ("\"r|.*|\" (tptools.conf:4)"). */
int tp_dev_filter_accepts(const char *path, char *why, size_t len);

/* 1 when PATH is a block device a devices/filter pattern rejects (WHY set
 * as above), else 0: the user's filter alone, never the test build's scan
 * root. For a pool device not found where it was last seen: the filter,
 * not the device's absence, may be why (lib/pool/host: pool_device_filtered). */
int tp_dev_filter_pattern_rejects(const char *path, char *why, size_t len);

/* Is TEXT a valid pattern? 0, or nonzero with WHY set (tptools.conf's
 * check of devices/filter). */
int tp_dev_filter_check(const char *text, char *why, size_t len);

#endif
