/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-lease - lease/lease.h from the command line, for the two-host VM
 * scenario s2-lease (a host's sanlock daemon must run):
 *
 *   tp-lease format NAME PATH OFFSET [IO_TIMEOUT]
 *   tp-lease join   NAME PATH OFFSET HOST_ID [IO_TIMEOUT]
 *   tp-lease leave  NAME PATH OFFSET HOST_ID
 *   tp-lease joined NAME PATH OFFSET HOST_ID      exit 0 joined, 1 not
 *   tp-lease owner  NAME PATH OFFSET              prints "owner HOST_ID" or "owner none"
 *   tp-lease hold   NAME PATH OFFSET [KILLPATH [ARGS]]
 *       acquires the lease, prints "acquired" and holds it until SIGTERM or
 *       SIGINT, then releases it and exits 0; held by another host: prints
 *       "busy: host N" and exits 2
 *
 * Exit: 0 done, 1 not joined (joined), 2 busy, 3 usage, 4 not joined
 * (hold, join of a bad id), 5 any other error (the message says it). */
#include "lease/lease.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static int usage(void)
{
	fprintf(stderr, "usage: tp-lease format|join|leave|joined|owner|hold NAME PATH OFFSET ...\n");
	return 3;
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	return *s && !*end ? (uint64_t)v : UINT64_MAX;
}

static int code_of(int r)
{
	if (!r)
		return 0;
	fprintf(stderr, "tp-lease: %s\n", strerror(-r));
	return r == -EBUSY ? 2 : r == -ENOLCK ? 4 : 5;
}

int main(int argc, char **argv)
{
	struct lease_area a;
	struct lease_owner o;
	struct lease_hold h;
	const char *cmd;
	int r;

	if (argc < 5)
		return usage();
	cmd = argv[1];
	a.name = argv[2];
	a.path = argv[3];
	a.offset = num(argv[4]);
	if (a.offset == UINT64_MAX)
		return usage();
	if (!strcmp(cmd, "format"))
		return code_of(lease_format(&a, argc > 5 ? (unsigned)num(argv[5]) : 10));
	if (!strcmp(cmd, "join") || !strcmp(cmd, "leave") || !strcmp(cmd, "joined")) {
		uint64_t id = argc > 5 ? num(argv[5]) : UINT64_MAX;

		if (id == UINT64_MAX)
			return usage();
		if (!strcmp(cmd, "join"))
			return code_of(lease_join(&a, id, argc > 6 ? (unsigned)num(argv[6]) : 10));
		if (!strcmp(cmd, "leave"))
			return code_of(lease_leave(&a, id));
		r = lease_joined(&a, id);
		return r < 0 ? code_of(r) : r ? 0 : 1;
	}
	if (!strcmp(cmd, "owner")) {
		if ((r = lease_owner(&a, &o)))
			return code_of(r);
		if (o.host_id)
			printf("owner %" PRIu64 " generation %" PRIu64 "\n", o.host_id, o.generation);
		else
			printf("owner none\n");
		return 0;
	}
	if (!strcmp(cmd, "hold")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		r = lease_acquire(&h, &a, argc > 5 ? argv[5] : NULL, argc > 6 ? argv[6] : NULL, &o);
		if (r == -EBUSY) {
			printf("busy: host %" PRIu64 "\n", o.host_id);
			fflush(stdout);
			return 2;
		}
		if (r)
			return code_of(r);
		printf("acquired\n");
		fflush(stdout);
		while (!stop)
			pause();
		return code_of(lease_release(&h, &a));
	}
	return usage();
}
