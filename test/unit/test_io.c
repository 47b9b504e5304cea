/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io engines: mem, fd (buffered and O_DIRECT), fault, window; locks. */
#include "lib/base/devopen.h"
#include "lib/base/io.h"
#include "lib/base/crc32c.h"
#include "lib/base/le.h"
#include "lib/base/lock.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void test_mem(void)
{
	struct io_engine *e;
	unsigned char buf[16];

	CU_ASSERT_FATAL(io_mem_create(4096, "m", &e) == 0);
	CU_ASSERT_EQUAL(e->size, 4096);
	CU_ASSERT_EQUAL(io_write(e, 100, "hello", 5), 0);
	CU_ASSERT_EQUAL(io_read(e, 100, buf, 5), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "hello", 5), 0);
	CU_ASSERT_EQUAL(io_read(e, 4092, buf, 8), -ENXIO);
	CU_ASSERT_EQUAL(io_write(e, 4097, buf, 1), -ENXIO);
	CU_ASSERT_EQUAL(io_read(e, UINT64_MAX - 2, buf, 8), -ENXIO);
	CU_ASSERT_EQUAL(io_mem_resize(e, 8192), 0);
	CU_ASSERT_EQUAL(io_read(e, 8000, buf, 16), 0);
	CU_ASSERT_EQUAL(buf[0], 0);
	CU_ASSERT_EQUAL(io_flush(e), 0);
	io_destroy(e);
	io_destroy(NULL);
}

static void fd_roundtrip(unsigned flags)
{
	char path[512];
	struct io_engine *e;
	unsigned char *wbuf = malloc(8192 + 1), rbuf[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/fd-%u.img", tp_test_tmpdir(), flags);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, 1 << 20) == 0);
	close(fd);
	CU_ASSERT_FATAL(io_fd_open(path, flags, &e) == 0);
	CU_ASSERT_EQUAL(e->size, 1 << 20);
	for (int i = 0; i < 8192; i++)
		wbuf[i + 1] = (unsigned char)(i * 7);
	/* deliberately misaligned memory: O_DIRECT must bounce it */
	CU_ASSERT_EQUAL(io_write(e, 4096, wbuf + 1, 8192), 0);
	CU_ASSERT_EQUAL(io_flush(e), 0);
	CU_ASSERT_EQUAL(io_read(e, 4096, rbuf, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(rbuf, wbuf + 1, 8192), 0);
	CU_ASSERT_EQUAL(io_read(e, (1 << 20) - 512, rbuf, 1024), -ENXIO);
	if (flags & IO_DIRECT)
		CU_ASSERT_EQUAL(io_read(e, 100, rbuf, 512), io_fd_get(e) >= 0 ? -EINVAL : 0);
	io_destroy(e);
	/* read-only engines refuse writes */
	CU_ASSERT_FATAL(io_fd_open(path, IO_RDONLY, &e) == 0);
	CU_ASSERT_EQUAL(io_write(e, 0, rbuf, 512), -EROFS);
	io_destroy(e);
	free(wbuf);
}

static void test_fd(void) { fd_roundtrip(0); }
static void test_fd_direct(void) { fd_roundtrip(IO_DIRECT); }

static void test_fd_errors(void)
{
	struct io_engine *e;
	CU_ASSERT_EQUAL(io_fd_open("/nonexistent/x", 0, &e), -ENOENT);
	CU_ASSERT_EQUAL(io_fd_open("/dev/null", 0, &e), -ENOTBLK);
	CU_ASSERT_EQUAL(io_fd_open(tp_test_tmpdir(), IO_RDONLY, &e), -ENOTBLK);
}

/* A FIFO with no writer or reader, a socket, a directory, a character
 * device: refused at once (a blocking open of the FIFO would hang this
 * test), by the engine, the file lock and the bare open alike. A regular
 * file opens, blocking again (O_NONBLOCK cleared). */
static void test_dev_kinds(void)
{
	char fifo[512], sock[512], file[512];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct io_engine *e;
	struct tp_lock *l;
	int s, fd;

	snprintf(fifo, sizeof(fifo), "%s/fifo", tp_test_tmpdir());
	snprintf(sock, sizeof(sock), "%s/sock", tp_test_tmpdir());
	snprintf(file, sizeof(file), "%s/kinds.img", tp_test_tmpdir());
	unlink(fifo);
	unlink(sock);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	CU_ASSERT_EQUAL(io_dev_open(fifo, O_RDONLY), -ENOTBLK);
	CU_ASSERT_EQUAL(errno, ENOTBLK);
	CU_ASSERT_EQUAL(io_dev_open(fifo, O_WRONLY), -ENOTBLK);	/* no reader: ENXIO */
	CU_ASSERT_EQUAL(io_dev_open(fifo, O_RDWR | O_EXCL), -ENOTBLK);
	CU_ASSERT_EQUAL(io_fd_open(fifo, IO_RDONLY, &e), -ENOTBLK);
	CU_ASSERT_EQUAL(io_fd_open(fifo, IO_DIRECT, &e), -ENOTBLK);
	CU_ASSERT_EQUAL(tp_lock_file(fifo, TP_LOCK_EXCL, &l), -ENOTBLK);
	CU_ASSERT_STRING_EQUAL(io_dev_wrong_kind(fifo), "a FIFO");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(s >= 0 && strlen(sock) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, sock);
	CU_ASSERT_FATAL(bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	CU_ASSERT_EQUAL(io_dev_open(sock, O_RDONLY), -ENOTBLK);	/* open: ENXIO */
	CU_ASSERT_STRING_EQUAL(io_dev_wrong_kind(sock), "a socket");
	close(s);
	CU_ASSERT_EQUAL(io_dev_open(tp_test_tmpdir(), O_RDWR), -ENOTBLK);	/* EISDIR */
	CU_ASSERT_STRING_EQUAL(io_dev_wrong_kind(tp_test_tmpdir()), "a directory");
	CU_ASSERT_EQUAL(io_dev_open("/dev/null", O_RDONLY), -ENOTBLK);
	CU_ASSERT_STRING_EQUAL(io_dev_wrong_kind("/dev/null"), "a character device");
	CU_ASSERT_EQUAL(io_dev_open("/nonexistent/x", O_RDONLY), -ENOENT);
	CU_ASSERT_PTR_NULL(io_dev_wrong_kind("/nonexistent/x"));
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_PTR_NULL(io_dev_wrong_kind(file));
	fd = io_dev_open(file, O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	CU_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	unlink(fifo);
	unlink(sock);
	unlink(file);
}

static void test_fault(void)
{
	struct io_engine *m, *f;
	unsigned char buf[4];

	CU_ASSERT_FATAL(io_mem_create(64, "m", &m) == 0);
	CU_ASSERT_FATAL(io_fault_create(m, 1, &f) == 0);
	io_fault_set(f, IO_FAULT_DROP, 2);
	CU_ASSERT_EQUAL(io_write(f, 0, "a", 1), 0);
	CU_ASSERT_EQUAL(io_write(f, 1, "b", 1), 0);
	CU_ASSERT_EQUAL(io_write(f, 2, "c", 1), 0); /* dropped */
	CU_ASSERT_EQUAL(io_write(f, 3, "d", 1), 0); /* dropped */
	CU_ASSERT_EQUAL(io_read(f, 0, buf, 4), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "ab\0\0", 4), 0);
	CU_ASSERT_EQUAL(io_fault_writes(f), 4);
	io_fault_set(f, IO_FAULT_FAIL, 5);
	CU_ASSERT_EQUAL(io_write(f, 4, "e", 1), 0);
	CU_ASSERT_EQUAL(io_write(f, 5, "f", 1), -EIO);
	CU_ASSERT_EQUAL(io_flush(f), -EIO);
	io_fault_set(f, IO_FAULT_NONE, 0);
	CU_ASSERT_EQUAL(io_write(f, 6, "g", 1), 0);
	CU_ASSERT_EQUAL(io_read(f, 4, buf, 3), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "e\0g", 3), 0);
	io_destroy(f);
}

static void test_window(void)
{
	struct io_engine *m, *w;
	unsigned char buf[8];

	CU_ASSERT_FATAL(io_mem_create(1024, "m", &m) == 0);
	CU_ASSERT_EQUAL(io_window_create(m, 1000, 100, 0, &w), -ENXIO);
	CU_ASSERT_FATAL(io_window_create(m, 512, 256, 0, &w) == 0);
	CU_ASSERT_EQUAL(w->size, 256);
	CU_ASSERT_EQUAL(io_write(w, 0, "xyz", 3), 0);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(m) + 512, "xyz", 3), 0);
	CU_ASSERT_EQUAL(io_read(w, 250, buf, 8), -ENXIO);
	CU_ASSERT_EQUAL(io_write(w, 256, buf, 1), -ENXIO);
	io_destroy(w);
	io_destroy(m);
}

/* A concatenation: the first engine up to 600, then 300 bytes of the
 * second from 100; accesses across the boundary split, beyond fail. */
static void test_concat(void)
{
	struct io_engine *a, *b, *c;
	struct io_concat_seg seg[2];
	unsigned char buf[16];

	CU_ASSERT_FATAL(io_mem_create(1024, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mem_create(1024, "b", &b) == 0);
	seg[0] = (struct io_concat_seg){ a, 0, 600 };
	seg[1] = (struct io_concat_seg){ b, 100, 300 };
	CU_ASSERT_EQUAL(io_concat_create(seg, 0, "c", 0, &c), -EINVAL);
	CU_ASSERT_FATAL(io_concat_create(seg, 2, "c", 0, &c) == 0);
	CU_ASSERT_EQUAL(c->size, 900);
	CU_ASSERT_STRING_EQUAL(c->name, "c");
	CU_ASSERT_EQUAL(io_write(c, 596, "abcdefgh", 8), 0);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(a) + 596, "abcd", 4), 0);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(b) + 100, "efgh", 4), 0);
	CU_ASSERT_EQUAL(io_mem_data(a)[600], 0);
	CU_ASSERT_EQUAL(io_read(c, 598, buf, 4), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "cdef", 4), 0);
	CU_ASSERT_EQUAL(io_read(c, 895, buf, 8), -ENXIO);
	CU_ASSERT_EQUAL(io_write(c, 900, buf, 1), -ENXIO);
	CU_ASSERT_EQUAL(io_flush(c), 0);
	io_destroy(c);
	/* owning: the segments go with it (LeakSanitizer would say) */
	CU_ASSERT_FATAL(io_concat_create(seg, 2, "c", 1, &c) == 0);
	io_destroy(c);
}

/* A mirror: writes reach both legs, reads the primary; a leg whose write
 * fails drops out and is never read again; a read error falls back to the
 * other leg (not provoked here: the fault engine fails writes only); a
 * missing leg and a leg taken out take no writes. */
static void test_mirror(void)
{
	struct io_engine *a, *b, *fa, *fb, *m;
	char buf[8];

	CU_ASSERT_FATAL(io_mem_create(1024, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mem_create(1024, "b", &b) == 0);
	CU_ASSERT_FATAL(io_fault_create(a, 1, &fa) == 0);
	CU_ASSERT_FATAL(io_fault_create(b, 1, &fb) == 0);
	CU_ASSERT_EQUAL(io_mirror_create(NULL, NULL, 0, "m", 0, &m), -EINVAL);
	CU_ASSERT_FATAL(io_mirror_create(fa, fb, 0, "m", 1, &m) == 0);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
	CU_ASSERT_EQUAL(io_mirror_in_use(a), 0u);	/* no mirror */
	CU_ASSERT_EQUAL(io_write(m, 10, "abcd", 4), 0);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(a) + 10, "abcd", 4), 0);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(b) + 10, "abcd", 4), 0);
	CU_ASSERT_EQUAL(io_flush(m), 0);
	/* the primary is read: leg 1 differs and is not seen */
	memcpy(io_mem_data(b) + 10, "wxyz", 4);
	CU_ASSERT_EQUAL(io_read(m, 10, buf, 4), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "abcd", 4), 0);
	memcpy(io_mem_data(b) + 10, "abcd", 4);
	/* leg 0 fails its writes: it drops out, the write succeeds on leg 1,
	 * and reads go to leg 1 from then on */
	io_fault_set(fa, IO_FAULT_FAIL, io_fault_writes(fa));
	CU_ASSERT_EQUAL(io_write(m, 20, "1234", 4), 0);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 2u);
	CU_ASSERT_EQUAL(io_mirror_error(m, 0), -EIO);
	CU_ASSERT_EQUAL(io_mirror_error(m, 1), 0);
	CU_ASSERT_EQUAL(io_mirror_primary(m), 1u);
	CU_ASSERT_EQUAL(io_mem_data(a)[20], 0);
	CU_ASSERT_EQUAL(io_read(m, 20, buf, 4), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "1234", 4), 0);
	/* the last leg stays: taking it out is refused, its failure returned */
	io_mirror_take_out(m, 1, -ESTALE);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 2u);
	io_fault_set(fb, IO_FAULT_FAIL, io_fault_writes(fb));
	CU_ASSERT_EQUAL(io_write(m, 30, "5678", 4), -EIO);
	CU_ASSERT_EQUAL(io_read(m, 2000, buf, 1), -ENXIO);
	io_destroy(m);

	/* a missing leg: out from the start, the other takes everything */
	CU_ASSERT_FATAL(io_mem_create(1024, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mirror_create(NULL, a, 0, "m", 1, &m) == 0);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 2u);
	CU_ASSERT_EQUAL(io_mirror_error(m, 0), -ENODEV);
	CU_ASSERT_EQUAL(io_mirror_primary(m), 1u);
	CU_ASSERT_EQUAL(io_write(m, 0, "ok", 2), 0);
	CU_ASSERT_EQUAL(memcmp(io_mem_data(a), "ok", 2), 0);
	io_destroy(m);

	/* a stale leg taken out takes no writes and is not read */
	CU_ASSERT_FATAL(io_mem_create(1024, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mem_create(1024, "b", &b) == 0);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	io_mirror_take_out(m, 0, -ESTALE);
	CU_ASSERT_EQUAL(io_mirror_error(m, 0), -ESTALE);
	CU_ASSERT_EQUAL(io_write(m, 0, "zz", 2), 0);
	CU_ASSERT_EQUAL(io_mem_data(a)[0], 0);
	CU_ASSERT_EQUAL(io_mem_data(b)[0], 'z');
	memcpy(io_mem_data(a), "AA", 2);
	CU_ASSERT_EQUAL(io_read(m, 0, buf, 2), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "zz", 2), 0);
	io_destroy(m);

	/* legs of different sizes: the mirror is the smaller one's size, and
	 * nothing is written past it on the larger one */
	CU_ASSERT_FATAL(io_mem_create(1024, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mem_create(512, "b", &b) == 0);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 0, &m) == 0);
	CU_ASSERT_EQUAL(m->size, 512);
	CU_ASSERT_EQUAL(io_write(m, 512, "x", 1), -ENXIO);
	CU_ASSERT_EQUAL(io_mem_data(a)[512], 0);
	CU_ASSERT_EQUAL(io_write(m, 511, "y", 1), 0);
	CU_ASSERT_EQUAL(io_mem_data(a)[511], 'y');
	CU_ASSERT_EQUAL(io_mem_data(b)[511], 'y');
	io_destroy(m);
	io_destroy(a);
	io_destroy(b);
}

/* Valid: any block of leg 1's filling, 'B' (for test_mirror_read_error). */
static int abc_never(const void *blk, uint64_t idx, void *ctx)
{
	(void)idx, (void)ctx;
	return ((const unsigned char *)blk)[0] == 'B';
}

/* A read error on the leg read first: the read is served by the other leg
 * (the leg that failed drops out), also when its failure changed which
 * leg is the primary mid-read; io_read_valid of a run whose other copy
 * cannot be read in one piece takes it block by block. TP_TEST_EIO is the
 * test build's fd-engine hook. */
static void mirror_legs_files(const char *p0, const char *p1, size_t size)
{
	unsigned char *buf = malloc(size);

	CU_ASSERT_FATAL(buf != NULL);
	for (int i = 0; i < 2; i++) {
		int fd = open(i ? p1 : p0, O_RDWR | O_CREAT | O_TRUNC, 0600);

		memset(buf, i ? 'B' : 'A', size);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, buf, size), (ssize_t)size);
		close(fd);
	}
	free(buf);
}

/* P's engine opened with TP_TEST_EIO set to EIO (its range's reads and
 * writes fail). */
static struct io_engine *open_eio(const char *p, const char *eio, int flags)
{
	struct io_engine *e = NULL;

	setenv("TP_TEST_EIO", eio, 1);
	CU_ASSERT_FATAL(io_fd_open(p, flags, &e) == 0);
	unsetenv("TP_TEST_EIO");
	return e;
}

/* A test engine over INNER whose block at BAD fails every read until it
 * is written (a pending sector that a write remaps, as a disk does). */
struct pending {
	struct io_engine e;
	struct io_engine *inner;
	uint64_t bad;
	int remapped;
};

static int pending_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	struct pending *p = (struct pending *)e;

	if (!p->remapped && off < p->bad + 4096 && p->bad < off + len)
		return -EIO;
	return io_read(p->inner, off, buf, len);
}

static int pending_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	struct pending *p = (struct pending *)e;

	if (off <= p->bad && p->bad + 4096 <= off + len)
		p->remapped = 1;
	return io_write(p->inner, off, buf, len);
}

static int pending_flush(struct io_engine *e)
{
	return io_flush(((struct pending *)e)->inner);
}

static void pending_destroy(struct io_engine *e)
{
	io_destroy(((struct pending *)e)->inner);
	free(e);
}

static const struct io_ops pending_ops = { pending_read, pending_write, pending_flush,
					   pending_destroy };

static struct io_engine *pending_create(struct io_engine *inner, uint64_t bad)
{
	struct pending *p = calloc(1, sizeof(*p));

	CU_ASSERT_FATAL(p != NULL);
	p->e.ops = &pending_ops;
	p->e.size = inner->size;
	p->e.name = inner->name;
	p->inner = inner;
	p->bad = bad;
	return &p->e;
}

static void test_mirror_read_error(void)
{
	char p0[512], p1[512], eio[600];
	struct io_engine *a, *b, *m;
	struct io_mirror_bad bad;
	unsigned char buf[32 * 4096];

	snprintf(p0, sizeof(p0), "%s/leg0", tp_test_tmpdir());
	snprintf(p1, sizeof(p1), "%s/leg1", tp_test_tmpdir());
	mirror_legs_files(p0, p1, sizeof(buf));
	/* one block leg 0 cannot read: leg 1 serves it, leg 0 stays in use
	 * (and primary) for the others, the block counted unreadable there */
	snprintf(eio, sizeof(eio), "%s@4096+4096", p0);
	a = open_eio(p0, eio, IO_RDONLY);
	CU_ASSERT_FATAL(io_fd_open(p1, IO_RDONLY, &b) == 0);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	CU_ASSERT_EQUAL(io_read(m, 0, buf, 4096), 0);
	CU_ASSERT_EQUAL(buf[0], 'A');
	CU_ASSERT_EQUAL(io_read(m, 0, buf, 3 * 4096), 0);	/* leg 0 fails block 1 only */
	CU_ASSERT(buf[0] == 'B' && buf[4096] == 'B' && buf[8192] == 'B');	/* all from leg 1 */
	CU_ASSERT_EQUAL(io_mirror_error(m, 0), 0);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
	CU_ASSERT_EQUAL(io_mirror_primary(m), 0u);
	io_mirror_bad(m, 0, &bad);
	CU_ASSERT(bad.bad == 1 && bad.unreadable == 1 && bad.first_off == 4096);
	CU_ASSERT_EQUAL(io_read(m, 8192, buf, 4096), 0);
	CU_ASSERT_EQUAL(buf[0], 'A');	/* leg 0 reads on */
	io_destroy(m);

	/* writable: the good copy is written over the unreadable block at the
	 * flush; the device failing that write takes the leg out */
	a = open_eio(p0, eio, 0);
	CU_ASSERT_FATAL(io_fd_open(p1, 0, &b) == 0);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	CU_ASSERT_EQUAL(io_read(m, 4096, buf, 4096), 0);
	CU_ASSERT_EQUAL(buf[0], 'B');
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
	CU_ASSERT_EQUAL(io_flush(m), 0);
	CU_ASSERT_EQUAL(io_mirror_error(m, 0), -EIO);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 2u);
	io_destroy(m);
	/* a device that takes the rewrite (a pending sector it remaps when
	 * written): healed at the flush, the leg in use and read again */
	{
		struct io_engine *ma = NULL, *mb = NULL;

		CU_ASSERT_FATAL(io_mem_create(4 * 4096, "a", &ma) == 0);
		CU_ASSERT_FATAL(io_mem_create(4 * 4096, "b", &mb) == 0);
		memset(io_mem_data(ma), 'A', 4 * 4096);
		memset(io_mem_data(mb), 'B', 4 * 4096);
		a = pending_create(ma, 4096);
		CU_ASSERT_FATAL(io_mirror_create(a, mb, 0, "m", 1, &m) == 0);
		CU_ASSERT_EQUAL(io_read(m, 0, buf, 2 * 4096), 0);
		CU_ASSERT_EQUAL(buf[4096], 'B');
		CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
		CU_ASSERT_EQUAL(io_mem_data(ma)[4096], 'A');	/* nothing written before the flush */
		CU_ASSERT_EQUAL(io_flush(m), 0);
		CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
		CU_ASSERT_EQUAL(io_mem_data(ma)[4096], 'B');	/* the good copy, rewritten */
		CU_ASSERT_EQUAL(io_mem_data(ma)[0], 'A');	/* nothing else */
		io_mirror_bad(m, 0, &bad);
		CU_ASSERT(bad.bad == 1 && bad.healed == 1 && bad.unreadable == 1);
		CU_ASSERT_EQUAL(io_read(m, 4096, buf, 4096), 0);
		io_mirror_bad(m, 0, &bad);
		CU_ASSERT_EQUAL(bad.bad, 1u);	/* read from leg 0 now: nothing new */
		io_destroy(m);
	}

	/* more than 20 unreadable blocks: the leg drops out (md's
	 * max_read_errors); fewer keep it */
	snprintf(eio, sizeof(eio), "%s@0+%u", p0, 21 * 4096);
	a = open_eio(p0, eio, IO_RDONLY);
	CU_ASSERT_FATAL(io_fd_open(p1, IO_RDONLY, &b) == 0);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	CU_ASSERT_EQUAL(io_read(m, 0, buf, 20 * 4096), 0);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
	CU_ASSERT_EQUAL(io_read(m, 20 * 4096, buf, 4096), 0);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 2u);
	CU_ASSERT_EQUAL(io_mirror_error(m, 0), -EIO);
	CU_ASSERT_EQUAL(io_read(m, 30 * 4096, buf, 4096), 0);
	CU_ASSERT_EQUAL(buf[0], 'B');	/* leg 1 alone now */
	io_destroy(m);

	/* a block neither leg reads: -EIO for a read that holds it, both legs
	 * stay; a read of the other blocks goes on */
	snprintf(eio, sizeof(eio), "%s@8192+4096", p0);
	a = open_eio(p0, eio, IO_RDONLY);
	snprintf(eio, sizeof(eio), "%s@8192+4096", p1);
	b = open_eio(p1, eio, IO_RDONLY);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	CU_ASSERT_EQUAL(io_read(m, 0, buf, 4 * 4096), -EIO);
	CU_ASSERT_EQUAL(io_read(m, 8192, buf, 4096), -EIO);
	CU_ASSERT_EQUAL(io_mirror_in_use(m), 3u);
	CU_ASSERT_EQUAL(io_read(m, 0, buf, 2 * 4096), 0);
	CU_ASSERT_EQUAL(buf[0], 'A');
	io_destroy(m);

	/* the other leg's run unreadable in one piece: block by block */
	snprintf(eio, sizeof(eio), "%s@8192+4096", p1);
	b = open_eio(p1, eio, IO_RDONLY);
	CU_ASSERT_FATAL(io_fd_open(p0, IO_RDONLY, &a) == 0);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	/* every block of leg 0 "invalid": blocks 0 and 1 come from leg 1,
	 * block 2 is unreadable there and stays leg 0's */
	CU_ASSERT_EQUAL(io_read_valid(m, 0, buf, 3, 4096, abc_never, NULL, 0), 0);
	CU_ASSERT_EQUAL(buf[0], 'B');
	CU_ASSERT_EQUAL(buf[4096], 'B');
	CU_ASSERT_EQUAL(buf[8192], 'A');
	io_destroy(m);
}

/* A block is "valid" when its first byte equals its index + 'A'. */
static int abc_valid(const void *blk, uint64_t idx, void *ctx)
{
	(void)ctx;
	return ((const unsigned char *)blk)[0] == 'A' + idx;
}

static void fill_abc(unsigned char *d, unsigned n, unsigned bs)
{
	for (unsigned i = 0; i < n; i++)
		memset(d + i * bs, 'A' + (int)i, bs);
}

/* io_read_valid over a mirror (through a window): a block bad on the leg
 * read first is taken from the other and counted on its leg; with IO_HEAL
 * the good bytes go over the bad copy at the next flush, not before (a
 * command that never flushes changes nothing), and a write of the same
 * bytes before the flush supersedes the rewrite; a read-only window
 * never heals; a block bad on both is left as the first leg holds it;
 * io_read_copy and io_write_copy reach one leg. */
static void test_mirror_valid(void)
{
	struct io_engine *a, *b, *m, *w;
	unsigned char buf[4 * 64];
	struct io_mirror_bad bad;

	CU_ASSERT_FATAL(io_mem_create(5 * 64, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mem_create(5 * 64, "b", &b) == 0);
	fill_abc(io_mem_data(a) + 64, 4, 64);	/* blocks 1..4 of the legs: A..D */
	fill_abc(io_mem_data(b) + 64, 4, 64);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 0, "m", 1, &m) == 0);
	CU_ASSERT_FATAL(io_window_create(m, 64, 4 * 64, 0, &w) == 0);
	CU_ASSERT_EQUAL(io_copies(w), 2u);
	CU_ASSERT_EQUAL(io_copies(a), 1u);
	/* no damage: nothing counted */
	CU_ASSERT_EQUAL(io_read_valid(w, 0, buf, 4, 64, abc_valid, NULL, IO_HEAL), 0);
	io_mirror_bad(w, 0, &bad);
	CU_ASSERT_EQUAL(bad.bad, 0);
	/* block 1 (B) bad on leg 0, block 3 (D) bad on both */
	memset(io_mem_data(a) + 2 * 64, 'x', 64);
	memset(io_mem_data(a) + 4 * 64, 'y', 64);
	memset(io_mem_data(b) + 4 * 64, 'z', 64);
	CU_ASSERT_EQUAL(io_read_valid(w, 0, buf, 4, 64, abc_valid, NULL, IO_HEAL), 0);
	CU_ASSERT_EQUAL(buf[64], 'B');
	CU_ASSERT_EQUAL(buf[3 * 64], 'y');	/* neither validates: leg 0's */
	io_mirror_bad(w, 0, &bad);
	CU_ASSERT_EQUAL(bad.bad, 1);
	CU_ASSERT_EQUAL(bad.healed, 0);
	CU_ASSERT_EQUAL(bad.first_off, 2 * 64);	/* on the leg */
	io_mirror_bad(w, 1, &bad);
	CU_ASSERT_EQUAL(bad.bad, 0);
	/* not healed before a flush */
	CU_ASSERT_EQUAL(io_mem_data(a)[2 * 64], 'x');
	CU_ASSERT_EQUAL(io_flush(w), 0);
	CU_ASSERT_EQUAL(io_mem_data(a)[2 * 64], 'B');
	CU_ASSERT_EQUAL(io_mem_data(a)[2 * 64 + 63], 'B');
	io_mirror_bad(w, 0, &bad);
	CU_ASSERT_EQUAL(bad.healed, 1);
	/* a write of the block before the flush supersedes the rewrite */
	io_mirror_bad_clear(w);
	memset(io_mem_data(a) + 2 * 64, 'x', 64);
	CU_ASSERT_EQUAL(io_read_valid(w, 64, buf, 1, 64, abc_valid, NULL, IO_HEAL), 0);
	memset(buf, 'N', 64);
	CU_ASSERT_EQUAL(io_write(w, 64, buf, 64), 0);
	CU_ASSERT_EQUAL(io_flush(w), 0);
	CU_ASSERT_EQUAL(io_mem_data(a)[2 * 64], 'N');
	CU_ASSERT_EQUAL(io_mem_data(b)[2 * 64], 'N');
	memset(io_mem_data(a) + 2 * 64, 'B', 64);
	memset(io_mem_data(b) + 2 * 64, 'B', 64);
	io_destroy(w);
	io_destroy(m);
	/* through a read-only window: counted, not kept; leg 1 read first */
	CU_ASSERT_FATAL(io_mem_create(5 * 64, "a", &a) == 0);
	CU_ASSERT_FATAL(io_mem_create(5 * 64, "b", &b) == 0);
	fill_abc(io_mem_data(a) + 64, 4, 64);
	fill_abc(io_mem_data(b) + 64, 4, 64);
	memset(io_mem_data(b) + 3 * 64, 'x', 2 * 64);
	CU_ASSERT_FATAL(io_mirror_create(a, b, 1, "m", 1, &m) == 0);
	CU_ASSERT_FATAL(io_window_create(m, 64, 4 * 64, 0, &w) == 0);
	w->read_only = 1;
	CU_ASSERT_EQUAL(io_read_valid(w, 0, buf, 4, 64, abc_valid, NULL, IO_HEAL), 0);
	CU_ASSERT_EQUAL(buf[2 * 64], 'C');
	io_mirror_bad(w, 1, &bad);
	CU_ASSERT_EQUAL(bad.bad, 2);	/* C and D bad on leg 1, good on leg 0 */
	w->read_only = 0;
	CU_ASSERT_EQUAL(io_flush(w), 0);
	CU_ASSERT_EQUAL(io_mem_data(b)[3 * 64], 'x');	/* nothing kept to write */
	/* one copy alone */
	CU_ASSERT_EQUAL(io_read_copy(w, 0, 0, buf, 64), 0);
	CU_ASSERT_EQUAL(buf[0], 'A');
	CU_ASSERT_EQUAL(io_write_copy(w, 1, 2 * 64, "Q", 1), 0);
	CU_ASSERT_EQUAL(io_mem_data(b)[3 * 64], 'Q');
	CU_ASSERT_EQUAL(io_mem_data(a)[3 * 64], 'C');
	CU_ASSERT_EQUAL(io_read_copy(w, 2, 0, buf, 64), -ENODEV);
	CU_ASSERT_EQUAL(io_read_copy(w, 0, 4 * 64, buf, 1), -ENXIO);
	/* a leg out is no copy */
	io_mirror_take_out(m, 0, -ESTALE);
	CU_ASSERT_EQUAL(io_copy_in_use(w, 0), 0);
	CU_ASSERT_EQUAL(io_read_copy(w, 0, 0, buf, 64), -ENODEV);
	io_destroy(w);
	io_destroy(m);
	/* a plain engine: one copy, validated reads are plain reads */
	CU_ASSERT_FATAL(io_mem_create(64, "p", &a) == 0);
	CU_ASSERT_EQUAL(io_read_valid(a, 0, buf, 1, 64, abc_valid, NULL, IO_HEAL), 0);
	CU_ASSERT_EQUAL(io_read_copy(a, 1, 0, buf, 64), -ENODEV);
	io_destroy(a);
}

/* A dm-integrity superblock as the kernel formats it for a region of
 * DATA_LEN bytes (4 KiB blocks, crc32c, one journal section). */
static void integrity_sb(unsigned char *sb, uint64_t data_len)
{
	memset(sb, 0, 512);
	memcpy(sb, "integrt", 8);
	sb[8] = 3;			/* version: bitmap mode, meta device */
	sb[0x0a] = 4;			/* tag size */
	le32_put(sb + 0x0c, 1);		/* journal sections */
	le64_put(sb + 0x10, data_len / 512);
	sb[0x1c] = 3;			/* 4 KiB blocks */
}

/* The tags of a region: each 4 KiB block written gets the crc32c of its
 * sector number (le64) and its data, 4 bytes at 8 + 392 sectors of the
 * region's metadata on; blocks written in part are read back; block 0's
 * write is flushed; a new (zeroed) superblock gets no tags; one formatted
 * another way is zeroed before the first write; reads pass through. */
static void test_integrity(void)
{
	enum { AREA = 64 * 4096, META = 256 * 1024, AREA_OFF = 512 * 1024, META_OFF = 64 * 1024 };
	struct io_integrity_region reg = { AREA_OFF, AREA, META_OFF, META };
	struct io_engine *leg, *f, *t;
	unsigned char *m, blk[4096], sect[8];
	uint32_t tag;

	CU_ASSERT_FATAL(io_mem_create(1 << 20, "leg", &leg) == 0);
	CU_ASSERT_FATAL(io_fault_create(leg, 1, &f) == 0);
	m = io_mem_data(leg);
	/* formatted: tags kept */
	integrity_sb(m + META_OFF, AREA);
	CU_ASSERT_FATAL(io_integrity_create(f, &reg, 1, 1, &t) == 0);
	memset(blk, 0xab, sizeof(blk));
	CU_ASSERT_EQUAL(io_write(t, AREA_OFF + 5 * 4096, blk, 4096), 0);
	le64_put(sect, 5 * 8);
	tag = tp_crc32c(tp_crc32c(0xffffffffu, sect, 8), blk, 4096) ^ 0xffffffffu;
	CU_ASSERT_EQUAL(le32_get(m + META_OFF + 400 * 512 + 5 * 4), tag);
	CU_ASSERT_EQUAL(io_integrity_tag(5, blk, &tag), 0);
	CU_ASSERT_EQUAL(le32_get(m + META_OFF + 400 * 512 + 5 * 4), tag);
	CU_ASSERT_EQUAL(le32_get(m + META_OFF + 400 * 512 + 4 * 4), 0);	/* untouched */
	/* a write of part of a block: its tag from the whole block as written */
	CU_ASSERT_EQUAL(io_write(t, AREA_OFF + 7 * 4096 + 100, "xyz", 3), 0);
	CU_ASSERT_EQUAL(io_integrity_tag(7, m + AREA_OFF + 7 * 4096, &tag), 0);
	CU_ASSERT_EQUAL(le32_get(m + META_OFF + 400 * 512 + 7 * 4), tag);
	/* several blocks at once; outside the region no tags */
	CU_ASSERT_EQUAL(io_write(t, AREA_OFF - 4096, m, 3 * 4096), 0);
	CU_ASSERT_EQUAL(io_integrity_tag(1, m + AREA_OFF + 4096, &tag), 0);
	CU_ASSERT_EQUAL(le32_get(m + META_OFF + 400 * 512 + 4), tag);
	CU_ASSERT_EQUAL(io_read(t, AREA_OFF + 5 * 4096, blk, 1), 0);
	CU_ASSERT_EQUAL(blk[0], 0xab);
	io_destroy(t);	/* (and the fault engine and the leg under it) */

	/* new: the superblock zeros, no tags */
	CU_ASSERT_FATAL(io_mem_create(1 << 20, "leg", &leg) == 0);
	m = io_mem_data(leg);
	CU_ASSERT_FATAL(io_integrity_create(leg, &reg, 1, 1, &t) == 0);
	CU_ASSERT_EQUAL(io_write(t, AREA_OFF, blk, 4096), 0);
	for (unsigned i = 0; i < META; i++)
		if (m[META_OFF + i]) {
			CU_FAIL("a tag written for a new superblock");
			break;
		}
	io_destroy(t);

	/* formatted another way (512-byte blocks; another data size): the
	 * superblock zeroed before the first write, no tags */
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_FATAL(io_mem_create(1 << 20, "leg", &leg) == 0);
		m = io_mem_data(leg);
		integrity_sb(m + META_OFF, k ? 2 * AREA : AREA);
		if (!k)
			m[META_OFF + 0x1c] = 0;
		CU_ASSERT_FATAL(io_integrity_create(leg, &reg, 1, 1, &t) == 0);
		CU_ASSERT_EQUAL(memcmp(m + META_OFF, "integrt", 8), 0);	/* not before a write */
		CU_ASSERT_EQUAL(io_write(t, AREA_OFF + 4096, blk, 4096), 0);
		CU_ASSERT_EQUAL(m[META_OFF], 0);
		CU_ASSERT_EQUAL(le32_get(m + META_OFF + 400 * 512 + 4), 0);
		io_destroy(t);
	}
	/* bad regions */
	CU_ASSERT_FATAL(io_mem_create(1 << 20, "leg", &leg) == 0);
	reg.data_off = 100;
	CU_ASSERT_EQUAL(io_integrity_create(leg, &reg, 1, 0, &t), -EINVAL);
	io_destroy(leg);
}

static void test_lock(void)
{
	struct tp_lock *a, *b;
	setenv("TPTOOLS_DIR", tp_test_tmpdir(), 1);
	CU_ASSERT_FATAL(tp_lock_acquire("pool1", TP_LOCK_EXCL, &a) == 0);
	/* flock locks are per open file: a second open conflicts even in-process */
	CU_ASSERT_EQUAL(tp_lock_acquire("pool1", TP_LOCK_EXCL | TP_LOCK_NOWAIT, &b), -EWOULDBLOCK);
	CU_ASSERT_EQUAL(tp_lock_acquire("pool2", TP_LOCK_EXCL | TP_LOCK_NOWAIT, &b), 0);
	tp_lock_release(b);
	tp_lock_release(a);
	CU_ASSERT_EQUAL(tp_lock_acquire("pool1", TP_LOCK_SHARED | TP_LOCK_NOWAIT, &a), 0);
	CU_ASSERT_EQUAL(tp_lock_acquire("pool1", TP_LOCK_SHARED | TP_LOCK_NOWAIT, &b), 0);
	tp_lock_release(a);
	tp_lock_release(b);
	CU_ASSERT_EQUAL(tp_lock_acquire("../x", TP_LOCK_EXCL, &a), -EINVAL);
	tp_lock_release(NULL);
}

TP_TEST_SUITE(io, NULL, NULL,
	      { "memory engine", test_mem },
	      { "concat engine: across the boundary, bounds, owning", test_concat },
	      { "fd engine", test_fd },
	      { "fd engine O_DIRECT, unaligned buffer", test_fd_direct },
	      { "fd engine errors", test_fd_errors },
	      { "device paths: only block devices and regular files", test_dev_kinds },
	      { "fault engine drop and fail", test_fault },
	      { "window engine", test_window },
	      { "mirror engine: both legs written, a failed or stale leg out", test_mirror },
	      { "mirror engine: validated reads take the good leg, heal at the flush",
		test_mirror_valid },
	      { "integrity tags of a leg kept offline", test_integrity },
	      { "mirror engine: a read error on the primary is served by the other leg",
		test_mirror_read_error },
	      { "flock locks", test_lock })
