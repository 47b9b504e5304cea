/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-lease-holder.c - the lease holder of a shared pool, a program of its
 * own (installed in <prefix>/lib/tptools, not on PATH): tpactivate starts
 * it as
 *
 *   tp-lease-holder POOL UUID DEVICE OFFSET FD
 *
 * (lib/pool/lease/pool_lease.c: start_holder). It acquires the pool's
 * sanlock lease, the area at OFFSET of DEVICE, with the kill path
 * tp-lease-fence beside it, answers on the pipe FD and keeps the lease
 * while the pool is loaded (pool_lease.h: pool_lease_holder_run). It
 * reads tptools.conf as the commands do (global/host_id, the run
 * directory) and logs through the one log path (lib/base/log.h), to the
 * system log as "tptools": its stderr is tpactivate's until it answers.
 * Exit: 0 the lease was held and released, 2 another host holds it,
 * 3 bad arguments or configuration, 5 failed. */
#include "tools/config_keys.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool_lease.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number of ARG in [0, MAX] into *V: 1, or 0 when it is not one. */
static int number(const char *arg, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!*arg || *arg < '0' || *arg > '9')
		return 0;
	errno = 0;
	*v = strtoull(arg, &end, 10);
	return !errno && !*end && *v <= max;
}

static int usage(const char *fmt, const char *arg)
{
	if (fmt)
		log_error(fmt, arg);
	fprintf(stderr, "Usage: " POOL_LEASE_HOLDER " POOL UUID DEVICE OFFSET FD\n"
			"tpactivate starts it for a shared pool (tptools(7) SHARED STORAGE); "
			"it is not run by hand.\n");
	return TP_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	unsigned long long offset, fd;
	int rc;

	tp_log_init(POOL_LEASE_HOLDER);
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(POOL_LEASE_HOLDER " (tptools) %s\n", TP_VERSION);
		return TP_EXIT_OK;
	}
	if (argc != 6)
		return usage(NULL, NULL);
	if (!pool_lease_args_valid(argv[1], argv[2]))
		return usage(NULL, NULL);
	if (argv[3][0] != '/')
		return usage("'%s' is not an absolute device path", argv[3]);
	if (!number(argv[4], UINT64_MAX, &offset))
		return usage("'%s' is not a byte offset", argv[4]);
	/* the pipe tpactivate reads: an open descriptor past stderr */
	if (!number(argv[5], 1 << 20, &fd) || fd < 3 || fcntl((int)fd, F_GETFD) < 0)
		return usage("'%s' is not an open descriptor for the answer", argv[5]);
	if ((rc = config_keys_load(NULL)))
		return rc;
	/* the one log path, from here on: the system log (the journal) as
	 * "tptools", not stderr (tpactivate says what failed in its own words,
	 * and the holder outlives it) */
	tp_log_init("tptools");
	tp_log_syslog(0);
	return pool_lease_holder_run(argv[1], argv[2], argv[3], (uint64_t)offset, (int)fd);
}
