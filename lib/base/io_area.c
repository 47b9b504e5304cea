/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_area.c - an area of a path. See io_area.h. */
#include "lib/base/io_area.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

int io_open_area(const char *path, unsigned io_flags, uint64_t offset, uint64_t length,
		 struct io_engine **out)
{
	struct io_engine *e;
	int r;

	*out = NULL;
	r = io_fd_open(path, io_flags, &e);
	if (r) {
		if (r != -ENOTBLK)	/* logged by io_fd_open */
			log_error("%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	if (!offset && !length) {
		*out = e;
		return 0;
	}
	if (offset >= e->size || (length && length > e->size - offset)) {
		if (offset >= e->size)
			log_error("%s: offset %llu is beyond the end of the device (%llu bytes)",
				  path, (unsigned long long)offset, (unsigned long long)e->size);
		else
			log_error("%s: the area at offset %llu of length %llu ends beyond the "
				  "device (%llu bytes)", path, (unsigned long long)offset,
				  (unsigned long long)length, (unsigned long long)e->size);
		io_destroy(e);
		return -EINVAL;
	}
	if (!length)
		length = e->size - offset;
	r = io_window_create(e, offset, length, 1, out);
	if (r) {
		io_destroy(e);
		log_error("%s: %s", path, strerror(-r));
	}
	return r;
}
