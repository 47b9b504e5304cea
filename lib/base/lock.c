/* lock.c - see lock.h. */
#include "lib/base/lock.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct tp_lock {
	int fd;
};

int tp_lock_acquire(const char *name, unsigned flags, struct tp_lock **out)
{
	char *dir = tp_lock_dir(), *path = NULL;
	struct tp_lock *l = NULL;
	int fd = -1, r, op;
	size_t n;

	if (!dir)
		return -ENOMEM;
	if (strchr(name, '/') || !*name) {
		free(dir);
		return -EINVAL;
	}
	r = tp_mkdir_p(dir);
	if (r)
		goto out;
	n = strlen(dir) + strlen(name) + 8;
	path = malloc(n);
	l = calloc(1, sizeof(*l));
	if (!path || !l) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(path, n, "%s/%s.lock", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	op = (flags & TP_LOCK_EXCL) ? LOCK_EX : LOCK_SH;
	if (flags & TP_LOCK_NOWAIT)
		op |= LOCK_NB;
	while (flock(fd, op)) {
		if (errno == EINTR)
			continue;
		r = -errno;
		goto out;
	}
	l->fd = fd;
	*out = l;
	l = NULL;
	fd = -1;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(l);
	free(path);
	free(dir);
	return r;
}

void tp_lock_release(struct tp_lock *l)
{
	if (!l)
		return;
	close(l->fd); /* closing drops the flock */
	free(l);
}
