/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_area: opening an area of a path (whole file, offset, offset+length,
 * areas outside the file, a missing file); and the lock on a file. */
#include "lib/base/io_area.h"
#include "lib/base/lock.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static void test_area_open(void)
{
	char path[512];
	struct io_engine *e;
	int fd;

	snprintf(path, sizeof(path), "%s/area.img", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, 1 << 20) == 0);
	close(fd);
	CU_ASSERT_EQUAL(io_open_area(path, IO_RDONLY, 0, 0, &e), 0);
	CU_ASSERT_EQUAL(e->size, 1 << 20);
	io_destroy(e);
	CU_ASSERT_EQUAL(io_open_area(path, IO_RDONLY, 4096, 0, &e), 0);
	CU_ASSERT_EQUAL(e->size, (1 << 20) - 4096);
	io_destroy(e);
	CU_ASSERT_EQUAL(io_open_area(path, IO_RDONLY, 4096, 8192, &e), 0);
	CU_ASSERT_EQUAL(e->size, 8192);
	io_destroy(e);
	CU_ASSERT_EQUAL(io_open_area(path, IO_RDONLY, 1 << 20, 0, &e), -EINVAL);
	CU_ASSERT_EQUAL(io_open_area(path, IO_RDONLY, 4096, 1 << 20, &e), -EINVAL);
	CU_ASSERT_PTR_NULL(e);
	snprintf(path, sizeof(path), "%s/none.img", tp_test_tmpdir());
	CU_ASSERT_EQUAL(io_open_area(path, IO_RDONLY, 0, 0, &e), -ENOENT);
}

static void test_file_lock(void)
{
	struct tp_lock *a, *b;
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/locked.img", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(tp_lock_file(path, TP_LOCK_SHARED, &a), 0);
	CU_ASSERT_EQUAL(tp_lock_file(path, TP_LOCK_SHARED | TP_LOCK_NOWAIT, &b), 0);
	tp_lock_release(b);
	CU_ASSERT_EQUAL(tp_lock_file(path, TP_LOCK_EXCL | TP_LOCK_NOWAIT, &b), -EWOULDBLOCK);
	tp_lock_release(a);
	CU_ASSERT_EQUAL(tp_lock_file(path, TP_LOCK_EXCL | TP_LOCK_NOWAIT, &b), 0);
	tp_lock_release(b);
	snprintf(path, sizeof(path), "%s/none.img", tp_test_tmpdir());
	CU_ASSERT_EQUAL(tp_lock_file(path, TP_LOCK_SHARED, &a), -ENOENT);
}

TP_TEST_SUITE(io_area, NULL, NULL,
	      { "area_open", test_area_open },
	      { "file_lock", test_file_lock })
