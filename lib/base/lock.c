/* lock.c - see lock.h. */
#include "lib/base/lock.h"
#include "lib/base/devopen.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

struct tp_lock {
	int fd;
};

/* flock FD as FLAGS say; on success L owns FD. BRIEF polls every 20 ms
 * until TP_LOCK_BRIEF_MS have passed. */
static int lock_fd(int fd, unsigned flags, struct tp_lock *l)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	int op = (flags & TP_LOCK_EXCL) ? LOCK_EX : LOCK_SH;
	unsigned waited = 0;

	if (flags & (TP_LOCK_NOWAIT | TP_LOCK_BRIEF))
		op |= LOCK_NB;
	while (flock(fd, op)) {
		if (errno == EWOULDBLOCK && (flags & TP_LOCK_BRIEF) && !(flags & TP_LOCK_NOWAIT) &&
		    waited < TP_LOCK_BRIEF_MS) {
			nanosleep(&tick, NULL);
			waited += 20;
			continue;
		}
		if (errno != EINTR)
			return -errno;
	}
	l->fd = fd;
	return 0;
}

int tp_lock_acquire(const char *name, unsigned flags, struct tp_lock **out)
{
	char *dir = tp_lock_dir(), *path = NULL;
	struct tp_lock *l = NULL;
	int fd = -1, r;
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
	r = lock_fd(fd, flags, l);
	if (!r) {
		*out = l;
		l = NULL;
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(l);
	free(path);
	free(dir);
	return r;
}

int tp_lock_file(const char *path, unsigned flags, struct tp_lock **out)
{
	struct tp_lock *l = calloc(1, sizeof(*l));
	int fd, r;

	if (!l)
		return -ENOMEM;
	fd = io_dev_open(path, O_RDONLY);
	if (fd < 0) {
		r = fd;
		free(l);
		return r;
	}
	r = lock_fd(fd, flags, l);
	if (r) {
		close(fd);
		free(l);
		return r;
	}
	*out = l;
	return 0;
}

void tp_lock_release(struct tp_lock *l)
{
	if (!l)
		return;
	close(l->fd); /* closing drops the flock */
	free(l);
}
