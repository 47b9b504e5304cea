/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_fd.c - the file/block-device engine (optionally O_DIRECT). See io.h. */
#include "lib/base/io.h"
#include "lib/base/devopen.h"
#include "lib/base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIRECT_ALIGN 4096u

struct io_fd {
	struct io_engine e;
	int fd;
	int direct;
#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
	/* TP_TEST_EIO's byte ranges of this file: an I/O touching one fails */
	struct eio_range {
		uint64_t off, len;
	} eio[8];
	unsigned nr_eio;
#endif
};

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
/* Test hook (test builds only): TP_TEST_EIO="PATH[@OFF[+LEN]][,...]" makes
 * every read and write of PATH (the same file or device, however named)
 * that touches bytes OFF..OFF+LEN (to the end without LEN, the whole file
 * without OFF) fail with -EIO, as a device with bad sectors would: for
 * tests of copies that return I/O errors without a kernel to make them. */
static void eio_parse(struct io_fd *f, const struct stat *st)
{
	const char *env = getenv("TP_TEST_EIO");
	char *copy, *item, *save = NULL;

	if (!env || !*env || !(copy = strdup(env)))
		return;
	for (item = strtok_r(copy, ",", &save); item && f->nr_eio < 8;
	     item = strtok_r(NULL, ",", &save)) {
		char *at = strchr(item, '@'), *plus;
		struct stat other;
		uint64_t off = 0, len = UINT64_MAX;

		if (at) {
			*at++ = '\0';
			off = strtoull(at, &plus, 0);
			if (*plus == '+')
				len = strtoull(plus + 1, NULL, 0);
		}
		if (!stat(item, &other) && other.st_dev == st->st_dev &&
		    other.st_ino == st->st_ino && other.st_rdev == st->st_rdev)
			f->eio[f->nr_eio++] = (struct eio_range){ off, len };
	}
	free(copy);
}

static int eio_hit(const struct io_fd *f, uint64_t off, size_t len)
{
	for (unsigned i = 0; i < f->nr_eio; i++) {
		uint64_t end = f->eio[i].len > UINT64_MAX - f->eio[i].off ? UINT64_MAX
									  : f->eio[i].off + f->eio[i].len;
		if (off < end && f->eio[i].off < off + len)
			return 1;
	}
	return 0;
}
#else
#define eio_parse(f, st) ((void)0)
#define eio_hit(f, off, len) 0
#endif

static int direct_ok(struct io_fd *f, uint64_t off, size_t len)
{
	return !f->direct || ((off % 512) == 0 && (len % 512) == 0);
}

/* pread/pwrite all of LEN, bouncing through an aligned buffer when
 * O_DIRECT needs one. */
static int fd_rw(struct io_fd *f, uint64_t off, void *buf, size_t len, int write)
{
	unsigned char *p = buf;
	void *bounce = NULL;
	size_t done = 0;
	int r = 0;

	if (!direct_ok(f, off, len))
		return -EINVAL;
	if (eio_hit(f, off, len))
		return -EIO;
	if (f->direct && ((uintptr_t)buf % DIRECT_ALIGN)) {
		if (posix_memalign(&bounce, DIRECT_ALIGN, len))
			return -ENOMEM;
		if (write)
			memcpy(bounce, buf, len);
		p = bounce;
	}
	if (write)
		r = tp_pwrite_all(f->fd, p, len, off);
	while (!write && done < len) {
		ssize_t n = pread(f->fd, p + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;	/* 0: a short file */
			break;
		}
		done += (size_t)n;
	}
	if (!r && bounce && !write)
		memcpy(buf, bounce, len);
	free(bounce);
	return r;
}

static int fd_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	return fd_rw(TP_CONTAINER_OF(e, struct io_fd, e), off, buf, len, 0);
}

static int fd_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	/* fd_rw only reads from BUF when writing */
	return fd_rw(TP_CONTAINER_OF(e, struct io_fd, e), off, (void *)buf, len, 1);
}

static int fd_flush(struct io_engine *e)
{
	struct io_fd *f = TP_CONTAINER_OF(e, struct io_fd, e);
	if (e->read_only)
		return 0;
	return fdatasync(f->fd) ? -errno : 0;
}

static void fd_destroy(struct io_engine *e)
{
	struct io_fd *f = TP_CONTAINER_OF(e, struct io_fd, e);
	close(f->fd);
	free(e->name);
	free(f);
}

static const struct io_ops fd_ops = { fd_read, fd_write, fd_flush, fd_destroy };

static int (*fd_wrap)(void *ctx, struct io_engine *e, struct io_engine **out);
static void *fd_wrap_ctx;

void io_fd_set_wrap(int (*wrap)(void *ctx, struct io_engine *e, struct io_engine **out),
		    void *ctx)
{
	fd_wrap = wrap;
	fd_wrap_ctx = ctx;
}

static int wrapped(struct io_engine *e, struct io_engine **out)
{
	int (*wrap)(void *, struct io_engine *, struct io_engine **) = fd_wrap;
	int r;

	if (!wrap) {
		*out = e;
		return 0;
	}
	fd_wrap = NULL;	/* the wrapper may open files itself */
	r = wrap(fd_wrap_ctx, e, out);
	fd_wrap = wrap;
	return r;
}

int io_fd_open(const char *path, unsigned flags, struct io_engine **out)
{
	struct io_fd *f;
	struct stat st;
	int oflags = (flags & IO_RDONLY) ? O_RDONLY : O_RDWR;
	int fd, err;

	if (flags & IO_DIRECT)
		oflags |= O_DIRECT;
	if (flags & IO_EXCL)
		oflags |= O_EXCL;
	fd = io_dev_open(path, oflags);
	if (fd == -EINVAL && (flags & IO_DIRECT)) {
		/* tmpfs and some filesystems refuse O_DIRECT: fall back to buffered. */
		oflags &= ~O_DIRECT;
		flags &= ~(unsigned)IO_DIRECT;
		fd = io_dev_open(path, oflags);
	}
	if (fd < 0)
		return fd;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->e.name = strdup(path))) {
		free(f);
		close(fd);
		return -ENOMEM;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz;
		if (ioctl(fd, BLKGETSIZE64, &sz)) {
			err = -errno;
			goto fail;
		}
		f->e.size = sz;
		/* The kernel's dm targets write these devices below the page
		 * cache: drop whatever an earlier open cached, so buffered
		 * reads see the device as it is. */
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	} else if (S_ISREG(st.st_mode)) {
		f->e.size = (uint64_t)st.st_size;
	} else {
		err = -ENOTBLK;	/* io_dev_open refused the other kinds */
		goto fail;
	}
	f->e.ops = &fd_ops;
	f->e.read_only = !!(flags & IO_RDONLY);
	f->fd = fd;
	f->direct = !!(flags & IO_DIRECT);
	eio_parse(f, &st);
	return wrapped(&f->e, out);
fail:
	close(fd);
	free(f->e.name);
	free(f);
	return err;
}

int io_fd_get(struct io_engine *e)
{
	return e->ops == &fd_ops ? TP_CONTAINER_OF(e, struct io_fd, e)->fd : -1;
}

void io_fd_writeback(struct io_engine *e, uint64_t off, uint64_t len)
{
	struct io_fd *f;

	if (e->ops != &fd_ops || e->read_only || !len)
		return;
	f = TP_CONTAINER_OF(e, struct io_fd, e);
	if (!f->direct)	/* (an error here changes nothing: the flush reports) */
		(void)sync_file_range(f->fd, (off64_t)off, (off64_t)len, SYNC_FILE_RANGE_WRITE);
}
