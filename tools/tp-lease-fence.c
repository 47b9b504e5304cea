/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-lease-fence.c - the kill path of a shared pool's lease, a program of
 * its own (installed in <prefix>/lib/tptools, not on PATH). The lease
 * holder (tp-lease-holder) registers it with sanlock as
 *
 *   tp-lease-fence UUID POOL HOLDER_PID
 *
 * and sanlock runs it when this host can no longer renew the lease: the
 * pool's devices are switched to the error target, the bottom ones
 * first, and torn down, then the holder is asked to end if HOLDER_PID is
 * still a tp-lease-holder of that pool, else left alone
 * (lib/pool/lease/pool_fence.c). It logs through the one log path
 * (lib/base/log.h) as "tptools": the system log, stderr, and the kernel's
 * log for the critical lines (log_crit, tp_log_kmsg), so a host without a
 * syslog daemon still says it. It links no sanlock client: it only
 * talks to device-mapper. Exit: 0 fenced, 3 bad arguments, 5 some of the
 * pool's devices are still loaded. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool_lease.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *fmt, const char *arg)
{
	if (fmt)
		log_error(fmt, arg);
	fprintf(stderr, "Usage: " POOL_LEASE_FENCE " UUID POOL HOLDER_PID\n"
			"sanlock runs it when this host lost a shared pool's lease (tptools(7) "
			"SHARED STORAGE); it is not run by hand.\n");
	return TP_EXIT_USAGE;
}

/* Test builds only: TP_TEST_LEASE_LOG=stderr-only keeps the kill path's
 * lines out of the system log and the kernel's log, so that a test on the
 * host runs it (a release build: the system log always, and the name
 * does not reach the binary). */
#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
static int test_stderr_only(void)
{
	const char *t = getenv("TP_TEST_LEASE_LOG");

	return t && !strcmp(t, "stderr-only");
}
#else
#define test_stderr_only() 0
#endif

int main(int argc, char **argv)
{
	int quiet = test_stderr_only();
	char *end;
	long pid;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(POOL_LEASE_FENCE " (tptools) %s\n", TP_VERSION);
		return TP_EXIT_OK;
	}
	/* the one log path: the journal and stderr (sanlock's call with
	 * wrong arguments is a fence not done: it says so there too) */
	tp_log_init("tptools");
	if (!quiet)
		tp_log_syslog(1);
	if (argc != 4)
		return usage("%s takes UUID POOL HOLDER_PID: no pool was fenced", POOL_LEASE_FENCE);
	if (!pool_lease_args_valid(argv[2], argv[1]))
		return usage(NULL, NULL);
	errno = 0;
	pid = strtol(argv[3], &end, 10);
	if (errno || !*argv[3] || *end || pid < 0 || pid > (1L << 22))
		return usage("'%s' is not the holder's process id", argv[3]);
	/* and the kernel's log, for the critical lines */
	if (!quiet)
		tp_log_kmsg();
	return pool_lease_fence_run(argv[1], argv[2], (int)pid);
}
