/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The live/offline decision (lib/pool/core/pool_backend.c), the refusal of an
 * offline-only operation on a live pool, and lib/base/critical.c: signals
 * wait for the end of a critical section, test pauses and faults. */
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/pool/core/core_int.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/pool_recv.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_decide(void)
{
	/* a host without dm answers 0 with nothing loaded: offline */
	CU_ASSERT_EQUAL(pool_liveness_decide(0, 0, 0), POOL_IS_OFFLINE);
	CU_ASSERT_EQUAL(pool_liveness_decide(0, 1, 0), POOL_IS_LIVE);
	/* the kernel's pool holds its devices: still live */
	CU_ASSERT_EQUAL(pool_liveness_decide(0, 1, 1), POOL_IS_LIVE);
	/* held, but none of ours loaded: refused, never offline */
	CU_ASSERT_EQUAL(pool_liveness_decide(0, 0, 1), POOL_IS_HELD);
	/* dm present but not answering: refused whatever else is known */
	CU_ASSERT_EQUAL(pool_liveness_decide(-EACCES, 0, 0), POOL_IS_UNKNOWN);
	CU_ASSERT_EQUAL(pool_liveness_decide(-EIO, 1, 0), POOL_IS_UNKNOWN);
	CU_ASSERT_EQUAL(pool_liveness_decide(-ENOMEM, 0, 1), POOL_IS_UNKNOWN);
}

/* pool_remove of a live pool: refused before anything is touched (the
 * pool has no devices here: a write would crash), the pool freed; and so
 * are the other offline-only operations, a raw import among them. */
static void test_refuse_live(void)
{
	struct pool *p = calloc(1, sizeof(*p));
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(p != NULL);
	snprintf(p->name, sizeof(p->name), "vault");
	p->be = &pool_backend_live;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_remove(p), -EBUSY);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "pool vault is active in the kernel"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "tpdeactivate vault"));

	p = calloc(1, sizeof(*p));
	CU_ASSERT_FATAL(p != NULL);
	p->be = &pool_backend_offline;
	CU_ASSERT_EQUAL(pool_refuse_live(p, "anything"), 0);
	p->be = &pool_backend_live;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_refuse_live(p, "growing it"), -EBUSY);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "growing it needs it offline"));
	/* a raw import (tprecv --format raw) too, before it reads anything */
	{
		struct pool_recv *r;
		struct pool_recv_result res;

		snprintf(p->name, sizeof(p->name), "vault");
		CU_ASSERT_EQUAL_FATAL(pool_recv_raw_open("/dev/null", &r), 0);
		CU_ASSERT_EQUAL_FATAL(pool_recv_raw_size(r, "imp", 1 << 20), 0);
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(pool_recv_raw_apply(p, r, &res), -EBUSY);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "pool vault is active in the kernel: a raw "
						       "import (tprecv --format raw) needs it offline"));
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "tpdeactivate vault"));
		pool_recv_free(r);
	}
	free(p);
}

static volatile sig_atomic_t caught[3];

static void on_signal(int sig)
{
	caught[sig == SIGINT ? 0 : sig == SIGTERM ? 1 : 2]++;
}

static void test_critical(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old[3];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (int i = 0; i < 3; i++) {
		caught[i] = 0;
		sigaction(sigs[i], &sa, &old[i]);
	}
	tp_critical_begin();
	tp_critical_begin();	/* nested */
	CU_ASSERT_EQUAL(tp_critical_depth(), 2);
	for (int i = 0; i < 3; i++)
		raise(sigs[i]);
	tp_critical_end();
	/* the inner end keeps them blocked */
	CU_ASSERT_EQUAL(caught[0] + caught[1] + caught[2], 0);
	tp_critical_end();
	/* the outermost end delivers each one */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(caught[i], 1);
	CU_ASSERT_EQUAL(tp_critical_depth(), 0);
	tp_critical_end();	/* unbalanced: ignored */
	CU_ASSERT_EQUAL(tp_critical_depth(), 0);
	raise(SIGINT);	/* not blocked any more */
	CU_ASSERT_EQUAL(caught[0], 2);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

struct blocked {
	int fd;
	volatile int done, err;
};

static void *read_blocked(void *arg)
{
	struct blocked *b = arg;
	char c;

	b->err = read(b->fd, &c, 1) < 0 ? errno : 0;
	b->done = 1;
	return NULL;
}

/* The daemon's handlers, in a child (they stay for the process): a
 * thread's blocking read is interrupted; a stop signal is recorded (the
 * first one), wakes the pipe, and tp_critical_pending reports it. The
 * child's exit code is the check that failed. */
static int catch_child(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int wake[2], idle[2];
	struct blocked b = { -1, 0, 0 };
	pthread_t t;
	char c;

	if (pipe2(wake, O_NONBLOCK) || pipe(idle))
		return 1;
	if (tp_signals_interrupt(pthread_self()) != -EINVAL)
		return 2;	/* not before the handlers are in */
	if (tp_signals_catch(wake[1]) || tp_signals_catch(wake[1]))
		return 3;
	if (tp_signals_caught() || tp_critical_pending())
		return 4;
	b.fd = idle[0];
	if (pthread_create(&t, NULL, read_blocked, &b))
		return 5;
	while (!b.done) {
		if (tp_signals_interrupt(t))
			return 6;
		nanosleep(&tick, NULL);
	}
	pthread_join(t, NULL);
	if (b.err != EINTR || tp_signals_caught())
		return 7;	/* SIGUSR1 interrupts, asks nothing */
	while (read(wake[0], &c, 1) > 0)
		;
	raise(SIGHUP);	/* caught: the process goes on */
	if (tp_signals_caught() != SIGHUP || tp_critical_pending() != SIGHUP ||
	    tp_critical_stopped_by() != SIGHUP)
		return 8;
	if (read(wake[0], &c, 1) != 1)
		return 9;
	tp_critical_begin();
	raise(SIGTERM);
	tp_critical_end();
	if (tp_signals_caught() != SIGHUP || tp_critical_pending() != SIGHUP)
		return 10;	/* the first one stays */
	return 0;
}

static void test_signals_catch(void)
{
	int status;
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (!pid)
		_exit(catch_child());
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
static void test_fail_hook(void)
{
	struct tp_log_capture cap;

	unsetenv("TP_TEST_FAIL");
	CU_ASSERT_EQUAL(tp_test_fail("set-tid"), 0);
	setenv("TP_TEST_FAIL", "commit,set-tid", 1);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tp_test_fail("set-tid"), 1);
	CU_ASSERT_EQUAL(tp_test_fail("commit"), 1);
	CU_ASSERT_EQUAL(tp_test_fail("set"), 0);
	CU_ASSERT_EQUAL(tp_test_fail("set-tid-x"), 0);
	tp_log_capture(NULL);
	unsetenv("TP_TEST_FAIL");
}

/* A paused child waits for the file to go; a step not named never
 * pauses. No timing is asserted: the parent waits for the file. */
static void test_pause_hook(void)
{
	char file[512];
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int status;
	pid_t pid;

	snprintf(file, sizeof(file), "%s/pause", tp_test_tmpdir());
	setenv("TP_TEST_PAUSE", "after-suspend,after-reserve", 1);
	setenv("TP_TEST_PAUSE_FILE", file, 1);
	tp_test_pause("after-apply");	/* not named: returns at once */
	CU_ASSERT_NOT_EQUAL(access(file, F_OK), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		tp_log_set_verbosity(-2);
		tp_test_pause("after-reserve");
		_exit(access(file, F_OK) == 0 ? 1 : 0);
	}
	while (access(file, F_OK) != 0)
		nanosleep(&tick, NULL);
	CU_ASSERT_EQUAL(waitpid(pid, &status, WNOHANG), 0);	/* still paused */
	unlink(file);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unsetenv("TP_TEST_PAUSE");
	unsetenv("TP_TEST_PAUSE_FILE");
}
#else
/* A build without the hooks (TESTHOOKS=0): the variables change nothing,
 * and a pause's counter is not evaluated. */
static void test_fail_hook(void)
{
	setenv("TP_TEST_FAIL", "set-tid", 1);
	CU_ASSERT_EQUAL(tp_test_fail("set-tid"), 0);
	unsetenv("TP_TEST_FAIL");
}

static void test_pause_hook(void)
{
	char file[512];
	unsigned long n = 0;

	snprintf(file, sizeof(file), "%s/pause", tp_test_tmpdir());
	setenv("TP_TEST_PAUSE", "after-reserve,after-write=1", 1);
	setenv("TP_TEST_PAUSE_FILE", file, 1);
	tp_test_pause("after-reserve");
	tp_test_pause_n("after-write", ++n);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_NOT_EQUAL(access(file, F_OK), 0);
	unsetenv("TP_TEST_PAUSE");
	unsetenv("TP_TEST_PAUSE_FILE");
}
#endif

TP_TEST_SUITE(live, NULL, NULL,
	{ "live or offline: the decision fails closed", test_decide },
	{ "offline-only operations refuse a live pool", test_refuse_live },
	{ "critical sections hold signals until their end", test_critical },
	{ "a daemon's signals: caught, recorded, interrupting", test_signals_catch },
	{ "test faults by name", test_fail_hook },
	{ "test pauses wait for their file", test_pause_hook })
