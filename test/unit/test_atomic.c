/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one atomic replace (lib/base/atomic.h) and the whole writes and
 * spool of lib/base/fileio.h: a replace leaves the old content or the
 * new, never a temporary file; a failure at every step (made real where
 * the system lets a test make it, else by the test seam) returns -errno
 * and is logged once, naming the file and the step; short and
 * interrupted writes are continued. */
#include "lib/base/atomic.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define OLD "old content\n"
#define NEW "the new content, longer than the old\n"

static char dir[512], target[600], tmp[600];
static int dir_nr;

/* A fresh directory holding TARGET with OLD (unless !WITH_OLD). */
static void fresh(int with_old)
{
	snprintf(dir, sizeof(dir), "%s/atomic-%d", tp_test_tmpdir(), dir_nr++);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	snprintf(target, sizeof(target), "%s/file", dir);
	snprintf(tmp, sizeof(tmp), "%s/file.tmp", dir);
	if (with_old) {
		FILE *f = fopen(target, "w");
		CU_ASSERT_FATAL(f != NULL);
		fputs(OLD, f);
		CU_ASSERT_FATAL(fclose(f) == 0);
	}
}

/* PATH's content (static; "" when it cannot be read). */
static const char *content(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

static void test_replace(void)
{
	mode_t old_mask = umask(022);

	fresh(0);
	CU_ASSERT_EQUAL(tp_atomic_replace(target, "file.tmp", 0666, OLD, strlen(OLD)), 0);
	CU_ASSERT_STRING_EQUAL(content(target), OLD);
	CU_ASSERT_EQUAL(mode_of(target), 0644);	/* the mode less the umask, as open(2) */
	CU_ASSERT_EQUAL(tp_atomic_replace(target, NULL, 0600, NEW, strlen(NEW)), 0);
	CU_ASSERT_STRING_EQUAL(content(target), NEW);
	CU_ASSERT_EQUAL(mode_of(target), 0600);
	CU_ASSERT(!exists(tmp));
	/* an empty file is a content too */
	CU_ASSERT_EQUAL(tp_atomic_replace(target, NULL, 0600, "", 0), 0);
	CU_ASSERT_STRING_EQUAL(content(target), "");
	umask(old_mask);
}

/* A temporary file a crash left (any mode, any content), or a link
 * planted at its name: replaced afresh, the link's target untouched. */
static void test_stale_temporary(void)
{
	char other[700];
	FILE *f;
	mode_t old_mask = umask(022);

	fresh(1);
	f = fopen(tmp, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("a much longer half-written temporary file from before a crash\n", f);
	fclose(f);
	CU_ASSERT_FATAL(chmod(tmp, 0777) == 0);
	CU_ASSERT_EQUAL(tp_atomic_replace(target, NULL, 0600, NEW, strlen(NEW)), 0);
	CU_ASSERT_STRING_EQUAL(content(target), NEW);
	CU_ASSERT_EQUAL(mode_of(target), 0600);
	CU_ASSERT(!exists(tmp));

	snprintf(other, sizeof(other), "%s/other", dir);
	f = fopen(other, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(OLD, f);
	fclose(f);
	CU_ASSERT_FATAL(symlink(other, tmp) == 0);
	CU_ASSERT_EQUAL(tp_atomic_replace(target, NULL, 0600, "x", 1), 0);
	CU_ASSERT_STRING_EQUAL(content(target), "x");
	CU_ASSERT_STRING_EQUAL(content(other), OLD);
	umask(old_mask);
}

/* Pieces, at offsets, as text, then the size: a sparse file. */
static void test_open_commit(void)
{
	struct tp_atomic a;
	struct stat st;
	char buf[8];

	fresh(1);
	CU_ASSERT_FATAL(tp_atomic_open(target, ".piece.tmp", 0600, &a) == 0);
	snprintf(tmp, sizeof(tmp), "%s/.piece.tmp", dir);
	CU_ASSERT(exists(tmp));
	CU_ASSERT_STRING_EQUAL(content(target), OLD);	/* nothing replaced yet */
	CU_ASSERT_EQUAL(tp_atomic_printf(&a, "%s=%d;", "n", 42), 0);
	CU_ASSERT_EQUAL(tp_atomic_write(&a, "abc", 3), 0);
	CU_ASSERT_EQUAL(tp_atomic_pwrite(&a, "Z", 1, 1u << 20), 0);
	CU_ASSERT_EQUAL(tp_atomic_set_size(&a, 2u << 20), 0);
	CU_ASSERT_EQUAL(tp_atomic_commit(&a), 0);
	CU_ASSERT(!exists(tmp));
	CU_ASSERT_STRING_EQUAL(content(target), "n=42;abc");
	CU_ASSERT_FATAL(stat(target, &st) == 0);
	CU_ASSERT_EQUAL(st.st_size, 2 << 20);
	{
		int fd = open(target, O_RDONLY);
		CU_ASSERT_EQUAL(pread(fd, buf, 2, 1u << 20), 2);
		CU_ASSERT_EQUAL(buf[0], 'Z');
		CU_ASSERT_EQUAL(buf[1], 0);
		close(fd);
	}
	/* written past its use: refused */
	CU_ASSERT_EQUAL(tp_atomic_write(&a, "x", 1), -EBADF);
}

static void test_abort(void)
{
	struct tp_atomic a;

	fresh(1);
	CU_ASSERT_FATAL(tp_atomic_open(target, NULL, 0600, &a) == 0);
	CU_ASSERT_EQUAL(tp_atomic_write(&a, NEW, strlen(NEW)), 0);
	tp_atomic_abort(&a);
	CU_ASSERT_STRING_EQUAL(content(target), OLD);
	CU_ASSERT(!exists(tmp));
	tp_atomic_abort(&a);	/* twice: harmless */
}

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
static const struct {
	enum tp_atomic_step step;
	int err;
	const char *says;	/* in the one message */
	const char *names;	/* "tmp", "dir" or "both" */
} steps[] = {
	{ TP_ATOMIC_STEP_CREATE, EACCES, "cannot create ", "tmp" },
	{ TP_ATOMIC_STEP_WRITE, ENOSPC, "cannot write ", "tmp" },
	{ TP_ATOMIC_STEP_FSYNC, EIO, "cannot fsync ", "tmp" },
	{ TP_ATOMIC_STEP_CLOSE, EDQUOT, "cannot close ", "tmp" },
	{ TP_ATOMIC_STEP_RENAME, EXDEV, "cannot rename ", "both" },
	{ TP_ATOMIC_STEP_DIRSYNC, EIO, "cannot fsync the directory ", "dir" },
};

/* Count the lines of a capture. */
static int lines(const struct tp_log_capture *cap)
{
	int n = 0;
	for (const char *p = cap->buf; *p; p++)
		n += *p == '\n';
	return n;
}

/* Each step failing: -errno, one message naming the file and the step;
 * up to the rename the old content stays, after it the new. */
static void test_each_step_fails(void)
{
	for (size_t i = 0; i < TP_ARRAY_SIZE(steps); i++) {
		struct tp_log_capture cap;
		int r;

		fresh(1);
		tp_atomic_test_fail(steps[i].step, steps[i].err);
		tp_log_capture(&cap);
		r = tp_atomic_replace(target, NULL, 0600, NEW, strlen(NEW));
		tp_log_capture(NULL);
		tp_atomic_test_fail(TP_ATOMIC_STEP_NONE, 0);
		CU_ASSERT_EQUAL(r, -steps[i].err);
		CU_ASSERT_EQUAL(lines(&cap), 1);
		CU_ASSERT(strstr(cap.buf, steps[i].says) != NULL);
		CU_ASSERT(strstr(cap.buf, strerror(steps[i].err)) != NULL);
		if (strcmp(steps[i].names, "dir"))
			CU_ASSERT(strstr(cap.buf, tmp) != NULL);
		if (!strcmp(steps[i].names, "dir"))
			CU_ASSERT(strstr(cap.buf, dir) != NULL);
		CU_ASSERT(strstr(cap.buf, target) != NULL);
		CU_ASSERT(!exists(tmp));
		if (steps[i].step == TP_ATOMIC_STEP_DIRSYNC) {
			CU_ASSERT_STRING_EQUAL(content(target), NEW);
		} else {
			CU_ASSERT_STRING_EQUAL(content(target), OLD);
			CU_ASSERT(strstr(cap.buf, "is left as it was") != NULL);
		}
	}
}

/* A write failing mid-way: the error is kept, later writes do nothing,
 * the commit returns it and logs no more. */
static void test_sticky_error(void)
{
	struct tp_atomic a;
	struct tp_log_capture cap;

	fresh(1);
	CU_ASSERT_FATAL(tp_atomic_open(target, NULL, 0600, &a) == 0);
	CU_ASSERT_EQUAL(tp_atomic_write(&a, "first ", 6), 0);
	tp_log_capture(&cap);
	tp_atomic_test_fail(TP_ATOMIC_STEP_WRITE, ENOSPC);
	CU_ASSERT_EQUAL(tp_atomic_printf(&a, "%d", 2), -ENOSPC);
	tp_atomic_test_fail(TP_ATOMIC_STEP_NONE, 0);
	CU_ASSERT_EQUAL(tp_atomic_write(&a, "third", 5), -ENOSPC);
	CU_ASSERT_EQUAL(tp_atomic_set_size(&a, 100), -ENOSPC);
	CU_ASSERT_EQUAL(tp_atomic_commit(&a), -ENOSPC);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(lines(&cap), 1);
	CU_ASSERT(!exists(tmp));
	CU_ASSERT_STRING_EQUAL(content(target), OLD);
}

/* Real failures: no directory, a file-size limit (a full disk), a
 * directory in the target's place, and a read-only directory (not for
 * root, whom permissions do not stop). */
#else
/* the release build has no seam: nothing to provoke */
static void test_each_step_fails(void) { CU_PASS("no test seam in this build"); }
static void test_sticky_error(void) { CU_PASS("no test seam in this build"); }
#endif

static void test_real_failures(void)
{
	struct tp_log_capture cap;
	struct rlimit old_lim, lim;
	void (*old_xfsz)(int);
	char *big, missing[700];
	int r;

	fresh(0);
	snprintf(missing, sizeof(missing), "%s/no-such-dir/file", dir);
	tp_log_capture(&cap);
	r = tp_atomic_replace(missing, NULL, 0600, NEW, strlen(NEW));
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT(strstr(cap.buf, "cannot create ") && strstr(cap.buf, "no-such-dir/file.tmp"));

	/* as a full disk: writes past 64 KiB fail with EFBIG */
	fresh(1);
	big = calloc(1, 1 << 20);
	CU_ASSERT_FATAL(big != NULL);
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
	lim = old_lim;
	lim.rlim_cur = 64 << 10;
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	tp_log_capture(&cap);
	r = tp_atomic_replace(target, NULL, 0600, big, 1 << 20);
	tp_log_capture(NULL);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
	signal(SIGXFSZ, old_xfsz);
	free(big);
	CU_ASSERT_EQUAL(r, -EFBIG);
	CU_ASSERT_EQUAL(lines(&cap), 1);
	CU_ASSERT(strstr(cap.buf, "cannot write ") && strstr(cap.buf, tmp));
	CU_ASSERT(!exists(tmp));
	CU_ASSERT_STRING_EQUAL(content(target), OLD);

	/* the rename refused: a directory with something in it is the target */
	fresh(0);
	CU_ASSERT_FATAL(mkdir(target, 0700) == 0);
	snprintf(missing, sizeof(missing), "%s/inside", target);
	CU_ASSERT_FATAL(mkdir(missing, 0700) == 0);
	tp_log_capture(&cap);
	r = tp_atomic_replace(target, NULL, 0600, NEW, strlen(NEW));
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(r, -EISDIR);
	CU_ASSERT(strstr(cap.buf, "cannot rename ") != NULL);
	CU_ASSERT(!exists(tmp));
	CU_ASSERT(exists(missing));

	if (geteuid() != 0) {
		fresh(1);
		CU_ASSERT_FATAL(chmod(dir, 0500) == 0);
		tp_log_capture(&cap);
		r = tp_atomic_replace(target, NULL, 0600, NEW, strlen(NEW));
		tp_log_capture(NULL);
		CU_ASSERT(chmod(dir, 0700) == 0);
		CU_ASSERT_EQUAL(r, -EACCES);
		CU_ASSERT(strstr(cap.buf, "cannot create ") != NULL);
		CU_ASSERT_STRING_EQUAL(content(target), OLD);
	}
}

/* ---- fileio.h ---- */

static void test_write_all_full(void)
{
	int fd = open("/dev/full", O_WRONLY);

	if (fd < 0)
		return;	/* no /dev/full here */
	CU_ASSERT_EQUAL(tp_write_all(fd, "x", 1), -ENOSPC);
	CU_ASSERT_EQUAL(tp_write_all(fd, "", 0), 0);
	close(fd);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

#define PIPE_BYTES (8u << 20)

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + i / 4099);
}

/* A slow reader in a child, a timer interrupting the writer every
 * millisecond (no SA_RESTART): the writes come back short or with EINTR,
 * and all of the bytes still arrive, in order. */
static void test_write_all_pipe(void)
{
	struct sigaction sa, old_sa;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, stop = { { 0, 0 }, { 0, 0 } };
	unsigned char *buf = malloc(PIPE_BYTES);
	int p[2], status, r;
	pid_t pid;

	CU_ASSERT_FATAL(buf != NULL);
	for (size_t i = 0; i < PIPE_BYTES; i++)
		buf[i] = pattern(i);
	CU_ASSERT_FATAL(pipe(p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		unsigned char in[3000];
		size_t got = 0;
		ssize_t n;
		close(p[1]);
		while ((n = read(p[0], in, sizeof(in))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				_exit(2);
			for (ssize_t i = 0; i < n; i++)
				if (in[i] != pattern(got + (size_t)i))
					_exit(3);
			got += (size_t)n;
			if (got % (256u << 10) < (size_t)n)
				usleep(2000);	/* slow: the pipe fills, the writer blocks */
		}
		_exit(got == PIPE_BYTES ? 0 : 4);
	}
	close(p[0]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* sa_flags 0: no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_FATAL(sigaction(SIGALRM, &sa, &old_sa) == 0);
	alarms = 0;
	CU_ASSERT_FATAL(setitimer(ITIMER_REAL, &it, NULL) == 0);
	r = tp_write_all(p[1], buf, PIPE_BYTES);
	setitimer(ITIMER_REAL, &stop, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	close(p[1]);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(alarms > 0);
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(buf);
}

/* pwrite at an offset; a write cut short by the file-size limit is
 * continued, and the next one's error returned. */
static void test_pwrite_all(void)
{
	struct rlimit old_lim, lim;
	void (*old_xfsz)(int);
	unsigned char buf[20000];
	struct stat st;
	int fd, r;

	fresh(0);
	memset(buf, 'p', sizeof(buf));
	fd = open(target, O_RDWR | O_CREAT, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(tp_pwrite_all(fd, "ab", 2, 5000), 0);
	CU_ASSERT_EQUAL(pread(fd, buf, 2, 5000), 2);
	CU_ASSERT(buf[0] == 'a' && buf[1] == 'b');
	memset(buf, 'p', sizeof(buf));
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
	lim = old_lim;
	lim.rlim_cur = 10000;
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	r = tp_pwrite_all(fd, buf, sizeof(buf), 0);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
	signal(SIGXFSZ, old_xfsz);
	CU_ASSERT_EQUAL(r, -EFBIG);
	CU_ASSERT_FATAL(fstat(fd, &st) == 0);
	CU_ASSERT_EQUAL(st.st_size, 10000);	/* the short write went in */
	CU_ASSERT_EQUAL(pread(fd, buf, 1, 9999), 1);
	CU_ASSERT_EQUAL(buf[0], 'p');
	CU_ASSERT_EQUAL(tp_pwrite_all(fd, buf, 1, UINT64_MAX - 1), -EFBIG);
	close(fd);
}

static void test_spool(void)
{
	struct tp_log_capture cap;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL, missing[700];
	struct stat st;
	char back[6] = "";
	int fd;

	fresh(0);
	setenv("TMPDIR", dir, 1);
	fd = tp_spool_open("a test");
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(fstat(fd, &st) == 0);
	CU_ASSERT_EQUAL(st.st_nlink, 0);	/* no name: nothing left behind */
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(tp_write_all(fd, "spool", 5), 0);
	CU_ASSERT_EQUAL(pread(fd, back, 5, 0), 5);
	CU_ASSERT_STRING_EQUAL(back, "spool");
	CU_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	snprintf(missing, sizeof(missing), "%s/none", dir);
	setenv("TMPDIR", missing, 1);
	tp_log_capture(&cap);
	fd = tp_spool_open("a test");
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(fd, -ENOENT);
	CU_ASSERT(strstr(cap.buf, missing) && strstr(cap.buf, "for a test") &&
		  strstr(cap.buf, "set TMPDIR"));
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

TP_TEST_SUITE(atomic, NULL, NULL,
	      { "replace: new content, mode less the umask", test_replace },
	      { "replace: a stale temporary file or a planted link", test_stale_temporary },
	      { "open, pieces, printf, size, commit", test_open_commit },
	      { "abort leaves the old content", test_abort },
	      { "each step failing: -errno, logged once, old or new content",
		test_each_step_fails },
	      { "a failed write is sticky, logged once", test_sticky_error },
	      { "real failures: no dir, full, rename refused, read-only", test_real_failures },
	      { "tp_write_all into /dev/full", test_write_all_full },
	      { "tp_write_all: short writes and EINTR on a pipe", test_write_all_pipe },
	      { "tp_pwrite_all: offsets, a short write continued", test_pwrite_all },
	      { "tp_spool_open: unnamed, TMPDIR missing", test_spool })
