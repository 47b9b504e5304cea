/* SPDX-License-Identifier: GPL-2.0-or-later */
/* discard.c - see discard.h. */
#include "lib/dev/discard.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

int tp_discard_kind(int fd, enum tp_discard_kind *kind)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		*kind = TP_DISCARD_BLOCK;
	else if (S_ISREG(st.st_mode))
		*kind = TP_DISCARD_PUNCH;
	else
		return -ENOTBLK;
	return 0;
}

int tp_discard(int fd, enum tp_discard_kind kind, uint64_t off, uint64_t len)
{
	uint64_t range[2] = { off, len };

	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EINVAL;
	if (kind == TP_DISCARD_BLOCK) {
		if (ioctl(fd, BLKDISCARD, range))
			return errno == ENOTTY ? -EOPNOTSUPP : -errno;
		return 0;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return -errno;
	return 0;
}

int tp_zero_range(int fd, enum tp_discard_kind kind, uint64_t off, uint64_t len)
{
	uint64_t range[2] = { off, len };

	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EINVAL;
	if (kind == TP_DISCARD_BLOCK) {
		if (ioctl(fd, BLKZEROOUT, range))
			return errno == ENOTTY ? -EOPNOTSUPP : -errno;
		return 0;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return -errno;
	return 0;
}
