/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdwriter: the background writer writes heads, data and skips in the
 * order queued (through a pipe and into a file), runs SEAL on each item
 * before its write, hands its buffers back, and keeps the first error. */
#include "lib/base/fdwriter.h"
#include "lib/base/fileio.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF 4096u

/* SEAL: the head's first byte becomes the sum of the data bytes. */
static void sum_seal(unsigned char *head, size_t hlen, const void *data, size_t len)
{
	const unsigned char *d = data;
	unsigned char s = 0;

	for (size_t i = 0; i < len; i++)
		s = (unsigned char)(s + d[i]);
	if (hlen)
		head[0] = s;
}

/* Queue N pieces of BUF bytes (piece i all bytes i, each after a 2-byte
 * head whose second byte is i) into W; also return the bytes expected. */
static unsigned char *queue_pieces(struct tp_fdwriter *w, unsigned n, size_t *len)
{
	unsigned char *want = malloc((size_t)n * (BUF + 2));

	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	for (unsigned i = 0; i < n; i++) {
		unsigned char head[2] = { 0, (unsigned char)i }, *b = tp_fdwriter_buf(w);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		memset(b, (int)i, BUF);
		CU_ASSERT_EQUAL(tp_fdwriter_put(w, head, 2, b, BUF), 0);
		want[(size_t)i * (BUF + 2)] = (unsigned char)(BUF * i);	/* the sum, mod 256 */
		want[(size_t)i * (BUF + 2) + 1] = (unsigned char)i;
		memset(want + (size_t)i * (BUF + 2) + 2, (int)i, BUF);
	}
	*len = (size_t)n * (BUF + 2);
	return want;
}

struct drain {
	int fd;
	unsigned char *got;
	size_t len, cap;
};

static void *drain(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	while ((n = read(d->fd, d->got + d->len, d->cap - d->len)) > 0)
		d->len += (size_t)n;
	return NULL;
}

static void test_order_pipe(void)
{
	const unsigned n = 200;	/* far more than the buffers: the reader waits */
	struct drain d = { 0 };
	struct tp_fdwriter *w;
	unsigned char *want;
	pthread_t t;
	size_t len;
	int p[2];

	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	d.fd = p[0];
	d.cap = (size_t)n * (BUF + 2) + 1;
	d.got = malloc(d.cap);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, drain, &d), 0);
	CU_ASSERT_EQUAL_FATAL(tp_fdwriter_start(p[1], 3, BUF, sum_seal, &w), 0);
	want = queue_pieces(w, n, &len);
	CU_ASSERT_EQUAL(tp_fdwriter_finish(w), 0);
	close(p[1]);
	pthread_join(t, NULL);
	close(p[0]);
	CU_ASSERT_EQUAL(d.len, len);
	CU_ASSERT(d.len == len && !memcmp(d.got, want, len));
	free(want);
	free(d.got);
}

static void test_skip_file(void)
{
	char path[] = "/tmp/tp-fdwriter-XXXXXX";
	static const unsigned char zeros[BUF + 8];
	unsigned char got[3 * BUF + 8];
	struct tp_fdwriter *w;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(tp_fdwriter_start(fd, 2, BUF, NULL, &w), 0);
	CU_ASSERT_EQUAL(tp_fdwriter_put(w, "ab", 2, NULL, 0), 0);
	CU_ASSERT_EQUAL(tp_fdwriter_skip(w, BUF), 0);	/* a hole */
	CU_ASSERT_EQUAL(tp_fdwriter_put(w, NULL, 0, zeros, 8), 0);	/* caller's memory */
	CU_ASSERT_EQUAL(tp_fdwriter_put(w, "cd", 2, NULL, 0), 0);
	CU_ASSERT_EQUAL(tp_fdwriter_finish(w), 0);
	CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_CUR), 2 + BUF + 8 + 2);
	CU_ASSERT_EQUAL(pread(fd, got, sizeof(got), 0), 2 + BUF + 8 + 2);
	CU_ASSERT(!memcmp(got, "ab", 2) && !memcmp(got + 2, zeros, BUF + 8) &&
		  !memcmp(got + 2 + BUF + 8, "cd", 2));
	close(fd);
}

static void test_error_kept(void)
{
	struct tp_fdwriter *w;
	int fd = open("/dev/null", O_RDONLY);	/* writes fail: EBADF */
	int r = 0;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(tp_fdwriter_start(fd, 2, BUF, NULL, &w), 0);
	for (int i = 0; i < 50 && !r; i++) {
		unsigned char *b = tp_fdwriter_buf(w);
		if (!b)
			break;	/* the failure is known: no more buffers */
		r = tp_fdwriter_put(w, NULL, 0, b, BUF);
	}
	CU_ASSERT(r == 0 || r == -EBADF);
	CU_ASSERT_PTR_NULL(tp_fdwriter_buf(w));
	CU_ASSERT_EQUAL(tp_fdwriter_put(w, "x", 1, NULL, 0), -EBADF);
	CU_ASSERT_EQUAL(tp_fdwriter_finish(w), -EBADF);
	CU_ASSERT_EQUAL(tp_fdwriter_finish(NULL), 0);
	close(fd);
}

/* copy buffers: O_DIRECT's alignment always, a huge page's from 2 MiB */
static void test_copybuf(void)
{
	void *b;

	CU_ASSERT_EQUAL_FATAL(tp_copybuf_alloc(64 << 10, &b), 0);
	CU_ASSERT_EQUAL((uintptr_t)b % 4096, 0);
	memset(b, 1, 64 << 10);
	free(b);
	CU_ASSERT_EQUAL_FATAL(tp_copybuf_alloc(4u << 20, &b), 0);
	CU_ASSERT_EQUAL((uintptr_t)b % (2u << 20), 0);
	memset(b, 2, 4u << 20);
	free(b);
	CU_ASSERT_EQUAL(tp_copybuf_alloc(0, &b), -ENOMEM);
	CU_ASSERT_PTR_NULL(b);
}

TP_TEST_SUITE(fdwriter, NULL, NULL,
	      { "pieces through a pipe in order, sealed", test_order_pipe },
	      { "skips and caller memory in a file", test_skip_file },
	      { "the first write error is kept", test_error_kept },
	      { "copy buffers aligned for O_DIRECT and huge pages", test_copybuf })
