/* scan.h - enumerate the block devices of this machine (libudev), for
 * finding pools whose devices-file entry is lost.
 *
 * Owns: one libudev enumeration of the "block" subsystem (disks and
 * partitions, md arrays, loop devices with a backing file, dm devices that
 * are not our own internal ones). Device-mapper devices whose uuid starts
 * with "TPTOOLS-" are skipped (they are our pools' internal devices), as
 * are loop devices without a backing file, ram disks of size 0, and
 * devices that are not ready.
 *
 * tp_dev_scan calls FN(devnode, ARG) for each candidate path in
 * enumeration order; a non-zero return stops the scan and is returned.
 * Returns 0, or -errno when libudev is unusable (no /sys: logged as debug
 * only, since scanning is a fallback). */
#ifndef TP_DEV_SCAN_H
#define TP_DEV_SCAN_H

typedef int (*tp_dev_scan_fn)(const char *devnode, void *arg);

int tp_dev_scan(tp_dev_scan_fn fn, void *arg);

#endif
