/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp_process_stop_if (lib/base/critical.c): a process is asked to end only
 * when the caller's check says it is the one meant; a process that is gone
 * is never looked at nor signalled. */
#include "lib/base/critical.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int looked;

static int is_it(long pid, void *arg)
{
	(void)pid;
	looked++;
	return *(int *)arg;
}

/* A child that waits to be signalled: its pid. */
static pid_t child(void)
{
	pid_t pid = fork();

	if (!pid) {
		sigset_t none;

		/* SIGTERM's default action, whatever suite ran before */
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (;;)
			pause();
	}
	return pid;
}

/* How CHILD ended once the test killed it (SIGKILL) if it still ran. */
static int end_of(pid_t pid)
{
	int status = 0;

	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return -1;
	return WTERMSIG(status);
}

static void test_stop_if(void)
{
	int yes = 1, no = 0;
	pid_t pid;

	/* the check says no: nothing sent */
	pid = child();
	CU_ASSERT_FATAL(pid > 0);
	looked = 0;
	CU_ASSERT_EQUAL(tp_process_stop_if(pid, is_it, &no), -ESRCH);
	CU_ASSERT_EQUAL(looked, 1);
	CU_ASSERT_EQUAL(end_of(pid), SIGKILL);
	/* the check says yes: SIGTERM */
	pid = child();
	CU_ASSERT_FATAL(pid > 0);
	looked = 0;
	CU_ASSERT_EQUAL(tp_process_stop_if(pid, is_it, &yes), 0);
	CU_ASSERT_EQUAL(looked, 1);
	CU_ASSERT_EQUAL(end_of(pid), SIGTERM);
	/* gone (reaped): -ESRCH (the check says no, should the pid have gone
	 * to another process meanwhile) */
	looked = 0;
	CU_ASSERT_EQUAL(tp_process_stop_if(pid, is_it, &no), -ESRCH);
	CU_ASSERT(looked <= 1);
	/* init and below: never */
	CU_ASSERT_EQUAL(tp_process_stop_if(1, is_it, &yes), -EINVAL);
	CU_ASSERT_EQUAL(tp_process_stop_if(0, is_it, &yes), -EINVAL);
}

TP_TEST_SUITE(process_stop, NULL, NULL,
	      { "a process is signalled only when the check says it is the one", test_stop_if })
