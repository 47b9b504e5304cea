/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.c - whole writes, and the spool file. See fileio.h. */
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* OFF < 0: write at the file position; else pwrite at OFF. */
static int write_loop(int fd, const unsigned char *p, size_t len, int64_t off)
{
	while (len) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int tp_write_all(int fd, const void *buf, size_t len)
{
	return write_loop(fd, buf, len, -1);
}

int tp_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	if (len > (uint64_t)INT64_MAX || off > (uint64_t)INT64_MAX - len)
		return -EFBIG;
	return write_loop(fd, buf, len, (int64_t)off);
}

int tp_spool_open(const char *what)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd, e;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	path = tp_path_join(dir, "tptools-spool.XXXXXX");
	if (!path) {
		e = ENOMEM;
	} else if ((fd = mkostemp(path, O_CLOEXEC)) < 0) {
		e = errno;
	} else {
		unlink(path);
		free(path);
		return fd;
	}
	free(path);
	log_error("cannot create a temporary file in %s for %s: %s (set TMPDIR to a directory "
		  "with room)", dir, what, strerror(e));
	return -e;
}

#define HUGE_PAGE (2u << 20)	/* x86-64's and arm64's with 4 KiB pages */

int tp_copybuf_alloc(size_t len, void **out)
{
	size_t align = len >= HUGE_PAGE ? HUGE_PAGE : 4096;

	*out = NULL;
	if (!len || posix_memalign(out, align, len)) {
		*out = NULL;
		return -ENOMEM;
	}
	/* advice only: a kernel without transparent huge pages ignores it */
	if (align == HUGE_PAGE)
		(void)madvise(*out, len, MADV_HUGEPAGE);
	return 0;
}

int tp_read_lines(const char *path, size_t max, int (*fn)(char *line, void *ctx), void *ctx)
{
	char *line = malloc(max);
	FILE *f;
	int r = 0;

	if (!line)
		return -ENOMEM;
	if (!(f = fopen(path, "re"))) {
		r = -errno;
		free(line);
		return r;
	}
	while (!r && fgets(line, (int)max, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '#')
			r = fn(line, ctx);
	}
	fclose(f);
	free(line);
	return r;
}
