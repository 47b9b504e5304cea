/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_area.h - open a byte range ("area") of a file or block device: a
 * whole thin-metadata file, or the metadata area at an offset inside a
 * pool device.
 *
 * Owns nothing beyond the call: the engine returned owns the opened file.
 * Errors are logged here, once, naming the path; returns 0 or -errno
 * (-EINVAL: the area is empty or not inside the device). */
#ifndef TP_BASE_IO_AREA_H
#define TP_BASE_IO_AREA_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

/* Open PATH with IO_* FLAGS and return the area [OFFSET, OFFSET + LENGTH)
 * of it; LENGTH 0 = up to the end (OFFSET and LENGTH both 0: the whole
 * engine itself). */
int io_open_area(const char *path, unsigned io_flags, uint64_t offset, uint64_t length,
		 struct io_engine **out) TP_MUST_CHECK;

#endif
