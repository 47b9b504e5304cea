/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devopen.h - how every device path is opened (the io_fd engine, probing,
 * topology, signature wiping, the claim and area locks, the liveness
 * probe): never blocking, and only a block device or a regular file (an
 * image file).
 *
 * open() with O_NONBLOCK, fstat, then O_NONBLOCK cleared with fcntl: a
 * FIFO (whose open would wait for a writer or reader), a character device
 * (/dev/null, a tty), a directory or a socket is refused at once, before
 * any wait and before anything is read or written. O_NONBLOCK on a block
 * device or a regular file changes nothing but that first open, so the
 * descriptor returned behaves as a plain open()'s would.
 *
 * A block device that tptools.conf's devices/filter rejects
 * (devfilter.h) is refused the same way, before it is opened. */
#ifndef TP_BASE_DEVOPEN_H
#define TP_BASE_DEVOPEN_H

#include "lib/base/compiler.h"

/* Open PATH with OFLAGS (O_RDONLY/O_RDWR and O_EXCL, O_DIRECT, ...;
 * O_CLOEXEC is added): the file descriptor, or -errno. -ENOTBLK when PATH
 * is anything but a block device or a regular file, logged here as
 * "PATH is a FIFO, not a block device or image file" (callers add nothing:
 * it is the caller's input, exit code 3, see exitcodes.h; said once per
 * path, so a path probed several times is reported once); so is a block
 * device the devices filter rejects ("PATH is excluded by the devices
 * filter, pattern ..."); any other
 * -errno is the open's, for the caller's message. errno is set to the
 * error too, so a plain open() call can be swapped for this one. */
int io_dev_open(const char *path, int oflags) TP_MUST_CHECK;

/* 0 when the devices filter accepts PATH (or it is no block device);
 * -ENOTBLK when it rejects it, said as io_dev_open says it (once per
 * path): for a command that refuses a device it was given before it
 * opens or probes anything (tools/cli.c: cli_device_kind). */
int io_dev_filter_check(const char *path) TP_MUST_CHECK;

/* What PATH is, when it exists and is neither a block device nor a
 * regular file: "a FIFO", "a character device", "a directory", "a
 * socket", ...; else NULL. */
const char *io_dev_wrong_kind(const char *path);

#endif
