/* SPDX-License-Identifier: GPL-2.0-or-later */
/* critical.c - the process's signals: critical sections, the stop
 * request, a daemon's handlers; and the test hooks of a TP_TEST_HOOKS=1
 * build (see critical.h). */
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int depth;
static sigset_t saved;
static int last_pending;
static volatile sig_atomic_t caught;	/* the first stop signal caught */
static volatile sig_atomic_t catching;	/* tp_signals_catch is done */
static volatile sig_atomic_t wake_fd = -1;	/* tp_signals_catch's pipe */

void tp_critical_begin(void)
{
	sigset_t block;

	if (depth++)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &saved);
}

void tp_critical_end(void)
{
	if (depth <= 0 || --depth)
		return;
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

int tp_critical_depth(void)
{
	return depth;
}

int tp_critical_pending(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t s;

	if (caught)
		return last_pending = caught;
	if (sigpending(&s))
		return 0;
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&s, sigs[i]) == 1)
			return last_pending = sigs[i];
	return 0;
}

int tp_critical_stopped_by(void)
{
	return last_pending;
}

static void on_signal(int sig)
{
	int e = errno;

	if (sig != SIGUSR1 && !caught)
		caught = sig;
	if (wake_fd >= 0) {
		char c = 0;
		ssize_t n = write(wake_fd, &c, 1);

		(void)n;	/* a full pipe is already a wake-up */
	}
	errno = e;
}

int tp_signals_catch(int fd)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
	struct sigaction sa;

	wake_fd = fd;
	if (catching)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: a signal ends a blocking wait */
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	catching = 1;
	return 0;
}

int tp_signals_caught(void)
{
	return caught;
}

int tp_signals_interrupt(pthread_t thread)
{
	if (!catching)
		return -EINVAL;	/* SIGUSR1 would end the process */
	return -pthread_kill(thread, SIGUSR1);
}

int tp_signals_take(void)
{
	int sig = caught;

	caught = 0;
	return sig;
}

int tp_thread_start_unsignalled(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	/* the new thread inherits the mask in force when it is created */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

int tp_process_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int tp_process_stop(long pid)
{
	if (pid <= 1)
		return -EINVAL;
	return kill((pid_t)pid, SIGTERM) ? -errno : 0;
}

int tp_process_stop_if(long pid, int (*is_it)(long pid, void *arg), void *arg)
{
	int fd = -1, r;

	if (pid <= 1)
		return -EINVAL;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	/* a handle on this process, taken before it is looked at: if it ends
	 * meanwhile and its pid goes to another, the signal goes nowhere */
	fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (fd < 0 && errno != ENOSYS)
		return -errno;
#endif
	if (!is_it(pid, arg)) {
		if (fd >= 0)
			close(fd);
		return -ESRCH;
	}
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	if (fd >= 0) {
		r = syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0) ? -errno : 0;
		close(fd);
		return r;
	}
#endif
	return kill((pid_t)pid, SIGTERM) ? -errno : 0;
}

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
/* Is STEP one of the comma-separated names in LIST? */
static int listed(const char *list, const char *step)
{
	size_t n = strlen(step);

	for (const char *s = list; *s;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (len == n && !strncmp(s, step, n))
			return 1;
		s += len + (comma != NULL);
	}
	return 0;
}

uint64_t tp_test_count(const char *name, uint64_t dflt)
{
	const char *t = getenv(name);
	uint64_t v = t ? strtoull(t, NULL, 10) : 0;

	return v ? v : dflt;
}

void tp_test_pause(const char *step)
{
	const char *steps = getenv("TP_TEST_PAUSE"), *file = getenv("TP_TEST_PAUSE_FILE");
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int fd;

	if (!steps || !file || !*file || !listed(steps, step))
		return;
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		log_warn("test pause at %s: cannot create %s: %s", step, file, strerror(errno));
		return;
	}
	close(fd);
	/* TP_TEST_PAUSE_QUIET: no line on a terminal a test watches */
	if (!getenv("TP_TEST_PAUSE_QUIET"))
		log_warn("test pause at %s (pid %ld): remove %s to go on", step, (long)getpid(),
			 file);
	while (access(file, F_OK) == 0)
		nanosleep(&tick, NULL);
}

void tp_test_pause_n(const char *step, unsigned long n)
{
	char name[96];

	if (!getenv("TP_TEST_PAUSE"))
		return;
	snprintf(name, sizeof(name), "%s=%lu", step, n);
	tp_test_pause(name);
}

int tp_test_fail(const char *step)
{
	const char *steps = getenv("TP_TEST_FAIL");

	if (!steps || !listed(steps, step))
		return 0;
	log_warn("test fault at %s", step);
	return 1;
}
#endif
