/* SPDX-License-Identifier: GPL-2.0-or-later */
/* atomic.c - replacing a file: temporary file, fsync, rename, fsync of
 * the directory. See atomic.h. */
#include "lib/base/atomic.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
static enum tp_atomic_step fail_step;
static int fail_err;

void tp_atomic_test_fail(enum tp_atomic_step step, int err)
{
	fail_step = step;
	fail_err = err;
}

/* The seam's error for STEP, else 0: the step is then done for real. */
static int seam(enum tp_atomic_step step)
{
	return step != TP_ATOMIC_STEP_NONE && fail_step == step ? -fail_err : 0;
}
#else
#define seam(step) ((void)(step), 0)	/* the release build has no seam */
#endif

static void release(struct tp_atomic *a)
{
	if (a->fd >= 0)
		close(a->fd);
	free(a->path);
	free(a->tmp);
	free(a->dir);
	a->fd = -1;
	a->path = a->tmp = a->dir = NULL;
}

/* A failure before the rename: logged as "cannot STEP TMP", the
 * temporary file removed, E remembered. */
static int failed(struct tp_atomic *a, const char *step, int e)
{
	log_error("cannot %s %s: %s; %s is left as it was", step, a->tmp, strerror(-e), a->path);
	if (a->fd >= 0) {
		close(a->fd);
		a->fd = -1;
		unlink(a->tmp);
	}
	a->err = e;
	return e;
}

int tp_atomic_open(const char *path, const char *tmp_name, mode_t mode, struct tp_atomic *a)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int r;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->path = strdup(path);
	if (!slash)
		a->dir = strdup(".");
	else
		a->dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (a->dir && tmp_name) {
		a->tmp = tp_path_join(a->dir, tmp_name);
	} else if (a->dir) {
		size_t n = strlen(a->dir) + strlen(base) + 6;
		if ((a->tmp = malloc(n)))
			snprintf(a->tmp, n, "%s/%s.tmp", a->dir, base);
	}
	if (!a->path || !a->tmp) {
		log_error("cannot replace %s: %s", path, strerror(ENOMEM));
		release(a);
		return a->err = -ENOMEM;
	}
	/* afresh: a stale file keeps its mode, a planted link is not followed */
	if (unlink(a->tmp) && errno != ENOENT) {
		r = -errno;
		log_error("cannot remove the old temporary file %s: %s; %s is left as it was",
			  a->tmp, strerror(-r), a->path);
		release(a);
		return a->err = r;
	}
	r = seam(TP_ATOMIC_STEP_CREATE);
	if (!r && (a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) < 0)
		r = -errno;
	if (r) {
		failed(a, "create", r);
		release(a);
		return r;
	}
	return 0;
}

/* Was the write of *A's content already failed or released? */
static int done(const struct tp_atomic *a)
{
	return a->err ? a->err : a->fd < 0 ? -EBADF : 0;
}

int tp_atomic_write(struct tp_atomic *a, const void *buf, size_t len)
{
	int r = done(a);

	if (r)
		return r;
	r = seam(TP_ATOMIC_STEP_WRITE);
	if (!r)
		r = tp_write_all(a->fd, buf, len);
	return r ? failed(a, "write", r) : 0;
}

int tp_atomic_pwrite(struct tp_atomic *a, const void *buf, size_t len, uint64_t off)
{
	int r = done(a);

	if (r)
		return r;
	r = seam(TP_ATOMIC_STEP_WRITE);
	if (!r)
		r = tp_pwrite_all(a->fd, buf, len, off);
	return r ? failed(a, "write", r) : 0;
}

int tp_atomic_printf(struct tp_atomic *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n, r = done(a);

	if (r)
		return r;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return failed(a, "write", -ENOMEM);
	r = tp_atomic_write(a, s, (size_t)n);
	free(s);
	return r;
}

int tp_atomic_set_size(struct tp_atomic *a, uint64_t size)
{
	int r = done(a);

	if (r)
		return r;
	if (size > (uint64_t)INT64_MAX)
		return failed(a, "set the size of", -EFBIG);
	r = seam(TP_ATOMIC_STEP_WRITE);
	if (!r && ftruncate(a->fd, (off_t)size))
		r = -errno;
	return r ? failed(a, "set the size of", r) : 0;
}

static int fsync_dir(const char *dir)
{
	int fd, r = seam(TP_ATOMIC_STEP_DIRSYNC);

	if (r)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		r = -errno;
	close(fd);
	return r;
}

int tp_atomic_commit(struct tp_atomic *a)
{
	int r = done(a), fd;

	if (r) {
		tp_atomic_abort(a);
		return r;
	}
	r = seam(TP_ATOMIC_STEP_FSYNC);
	if (!r && fsync(a->fd))
		r = -errno;
	if (r) {
		failed(a, "fsync", r);
		goto out;
	}
	fd = a->fd;
	a->fd = -1;
	r = close(fd) ? -errno : seam(TP_ATOMIC_STEP_CLOSE);
	if (r) {
		failed(a, "close", r);
		unlink(a->tmp);
		goto out;
	}
	r = seam(TP_ATOMIC_STEP_RENAME);
	if (!r && rename(a->tmp, a->path))
		r = -errno;
	if (r) {
		log_error("cannot rename %s to %s: %s; %s is left as it was", a->tmp, a->path,
			  strerror(-r), a->path);
		unlink(a->tmp);
		goto out;
	}
	r = fsync_dir(a->dir);
	if (r)
		log_error("cannot fsync the directory %s: %s; %s has its new content, but a crash "
			  "may yet undo that", a->dir, strerror(-r), a->path);
out:
	release(a);
	return r;
}

void tp_atomic_abort(struct tp_atomic *a)
{
	if (a->fd >= 0) {
		close(a->fd);
		a->fd = -1;
		unlink(a->tmp);
	}
	release(a);
}

int tp_atomic_replace(const char *path, const char *tmp_name, mode_t mode, const void *buf,
		      size_t len)
{
	struct tp_atomic a;
	int r = tp_atomic_open(path, tmp_name, mode, &a);

	if (r)
		return r;
	(void)tp_atomic_write(&a, buf, len);
	return tp_atomic_commit(&a);
}
