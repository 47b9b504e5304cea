/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devopen.c - non-blocking, kind-checked opens of device paths. See
 * devopen.h. */
#include "lib/base/devopen.h"
#include "lib/base/devfilter.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
	if (S_ISBLK(mode) || S_ISREG(mode))
		return NULL;
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	return "neither a file nor a device";
}

const char *io_dev_wrong_kind(const char *path)
{
	struct stat st;

	return stat(path, &st) ? NULL : kind_of(st.st_mode);
}

/* The paths refused so far: a command that looks at a path several times
 * (its label, its signatures, then the open for the work) says why once. */
#define REFUSED_MAX 8
static char refused[REFUSED_MAX][256];
static unsigned nr_refused;

static int said_before(const char *path)
{
	for (unsigned i = 0; i < nr_refused && i < REFUSED_MAX; i++)
		if (!strcmp(refused[i], path))
			return 1;
	if (strlen(path) < sizeof(refused[0]))
		snprintf(refused[nr_refused++ % REFUSED_MAX], sizeof(refused[0]), "%s", path);
	return 0;
}

static int refuse(const char *path, const char *kind)
{
	if (said_before(path))
		return -ENOTBLK;
	log_error("%s is %s, not a block device or image file; name a block device or an "
		  "image file instead", path, kind);
	return -ENOTBLK;
}

/* A block device the devices filter rejects: refused before it is opened. */
static int refuse_filtered(const char *path, const char *why)
{
	if (said_before(path))
		return -ENOTBLK;
	log_error("%s is excluded by the devices filter, pattern %s; to use it, accept it in "
		  "devices/filter (tptools.conf(5), 'tpconfig devices/filter' shows the list)",
		  path, why);
	return -ENOTBLK;
}

int io_dev_filter_check(const char *path)
{
	char why[512];

	return tp_dev_filter_accepts(path, why, sizeof(why)) ? 0 : refuse_filtered(path, why);
}

static int failed(int err)
{
	errno = -err;
	return err;
}

int io_dev_open(const char *path, int oflags)
{
	const char *kind;
	struct stat st;
	char why[512];
	int fd, fl, err;

	if (!tp_dev_filter_accepts(path, why, sizeof(why)))
		return failed(refuse_filtered(path, why));
	fd = open(path, oflags | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		/* a FIFO without a reader (O_WRONLY), a socket, a directory
		 * opened for writing: say what it is, not the open's errno */
		err = -errno;
		kind = io_dev_wrong_kind(path);
		return failed(kind ? refuse(path, kind) : err);
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return failed(err);
	}
	if ((kind = kind_of(st.st_mode))) {
		close(fd);
		return failed(refuse(path, kind));
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		err = -errno;
		close(fd);
		return failed(err);
	}
	return fd;
}
