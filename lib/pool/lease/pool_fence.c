/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_fence.c - the fence of a shared pool whose lease this host lost:
 * its devices switched to the error target, the bottom ones (tmeta,
 * tdata) first, then torn down, all of it logged through the one log
 * path (log_crit). The kill path (tools/tp-lease-fence.c, which sanlock
 * runs) and the holder's watcher (pool_lease.c) fence with it. Apart from
 * pool_lease.c, so that the kill path links no sanlock client: it only
 * talks to device-mapper. */
#include "lib/pool/lease/lease_int.h"

#include "kernel/dm.h"
#include "metadata/vg/uuid.h"
#include "metadata/vg/vg.h"
#include "lib/base/compiler.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int count_dev(const char *name, const char *uuid, void *arg)
{
	(void)name;
	(void)uuid;
	(*(unsigned *)arg)++;
	return 0;
}

/* How many of pool UUID's devices device-mapper has loaded (0 on error). */
unsigned lease_pool_loaded(const char *uuid)
{
	char prefix[TP_DM_UUID_MAX];
	unsigned n = 0;

	snprintf(prefix, sizeof(prefix), "%s%s-", TP_DM_UUID_PREFIX, uuid);
	if (tp_dm_list(prefix, count_dev, &n))
		return 0;
	return n;
}

struct fence {
	const char *role;	/* the uuid's ending to act on, NULL: the thin volumes */
	unsigned done;
};

static int is_role(const char *uuid, const char *role)
{
	const char *dash = strrchr(uuid, '-');

	if (!dash)
		return 0;
	if (!role)
		return !strncmp(dash + 1, "thin", 4);
	if (!strcmp(role, "crypt"))	/* an unlocked encrypted volume's top */
		return !strncmp(dash + 1, "crypt", 5);
	return !strcmp(dash + 1, role);
}

static int error_one(const char *name, const char *uuid, void *arg)
{
	struct fence *f = arg;
	struct tp_dm_target t;
	uint64_t sectors = 0;
	int r;

	if (!is_role(uuid, f->role))
		return 0;
	memset(&t, 0, sizeof(t));
	snprintf(t.type, sizeof(t.type), "error");
	if ((r = tp_dm_dev_sectors(name, &sectors)) || !sectors) {
		log_crit("%s: cannot read its size (%s); suspending it instead", name,
			 strerror(r ? -r : EINVAL));
		if (tp_dm_suspend(name, TP_DM_NOFLUSH | TP_DM_NOLOCKFS))
			log_crit("%s: could not be suspended either", name);
		return 0;
	}
	t.length = sectors;
	if ((r = tp_dm_suspend(name, TP_DM_NOFLUSH | TP_DM_NOLOCKFS)) ||
	    (r = tp_dm_load(name, &t, 1, 0)) || (r = tp_dm_resume(name)))
		log_crit("%s: could not be switched to the error target: %s", name, strerror(-r));
	else
		f->done++;
	return 0;
}

static int remove_one(const char *name, const char *uuid, void *arg)
{
	struct fence *f = arg;

	if (is_role(uuid, f->role) && !tp_dm_remove(name))
		f->done++;
	return 0;
}

void lease_fence(const char *uuid, const char *name, const char *why)
{
	static const char *const order[] = { "tmeta", "tdata", NULL, "tpool" };
	static const char *const down[] = { "crypt", NULL, "tpool", "tmeta", "tdata" };
	char prefix[TP_DM_UUID_MAX];
	unsigned errored = 0, removed = 0;

	log_crit("pool %s lost its sanlock lease (%s): its devices are switched to the error "
		 "target and torn down; nothing more of it reaches the disk from this host", name,
		 why);
	snprintf(prefix, sizeof(prefix), "%s%s-", TP_DM_UUID_PREFIX, uuid);
	/* the bottom first: once tmeta and tdata fail every I/O, nothing of
	 * the pool (not its commit at suspend) reaches the shared disk */
	for (unsigned i = 0; i < TP_ARRAY_SIZE(order); i++) {
		struct fence f = { order[i], 0 };

		if (tp_dm_list(prefix, error_one, &f))
			break;
		errored += f.done;
	}
	for (unsigned i = 0; i < TP_ARRAY_SIZE(down); i++) {
		struct fence f = { down[i], 0 };

		if (tp_dm_list(prefix, remove_one, &f))
			break;
		removed += f.done;
	}
	log_crit("pool %s: %u device(s) switched to the error target, %u removed%s", name, errored,
		 removed, lease_pool_loaded(uuid) ? "; some are still open (unmount them)" : "");
}

int pool_lease_args_valid(const char *name, const char *uuid)
{
	const char *why = NULL;

	if (!vg_name_valid(name, &why)) {
		log_error("'%s' is not a pool name (%s)", name, why ? why : "invalid");
		return 0;
	}
	if (!vg_uuid_valid(uuid)) {
		log_error("'%s' is not a pool uuid", uuid);
		return 0;
	}
	return 1;
}

/* Which process the kill path is to stop: pool NAME's (UUID's) holder. */
struct holder_check {
	const char *name, *uuid;
	char why[160];		/* when it is not: what the pid is */
};

/* 1 when PID is a running tp-lease-holder of pool NAME (UUID), as
 * start_holder execs it (pool_lease.c): its program is tp-lease-holder
 * (wherever it is installed, " (deleted)" after an upgrade replaced it)
 * and its arguments are POOL UUID DEVICE OFFSET FD with this pool's name
 * and uuid. Else 0, with WHY saying what it is. */
static int is_holder(long pid, void *arg)
{
	static const char deleted[] = " (deleted)";
	struct holder_check *c = arg;
	char path[64], exe[PATH_MAX], args[2 * PATH_MAX];
	const char *argv[6], *base;
	ssize_t n;
	size_t len, argc = 0, got = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) < 0) {
		int e = errno;

		snprintf(path, sizeof(path), "/proc/%ld", pid);
		snprintf(c->why, sizeof(c->why), "%s",
			 e != ENOENT ? strerror(e) :
			 access(path, F_OK) ? "no such process" : "it runs no program");
		return 0;
	}
	exe[n] = '\0';
	len = (size_t)n;
	if (len > sizeof(deleted) - 1 && !strcmp(exe + len - (sizeof(deleted) - 1), deleted))
		exe[len - (sizeof(deleted) - 1)] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	if (strcmp(base, POOL_LEASE_HOLDER)) {
		snprintf(c->why, sizeof(c->why), "it runs %.120s", exe);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(c->why, sizeof(c->why), "%s", strerror(errno));
		return 0;
	}
	while (got < sizeof(args) - 1 && (n = read(fd, args + got, sizeof(args) - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	args[got] = '\0';
	for (const char *a = args; a < args + got && argc < TP_ARRAY_SIZE(argv) + 1;
	     a += strlen(a) + 1) {
		if (argc < TP_ARRAY_SIZE(argv))
			argv[argc] = a;
		argc++;
	}
	if (argc != TP_ARRAY_SIZE(argv)) {
		snprintf(c->why, sizeof(c->why), "it is a " POOL_LEASE_HOLDER " run with other "
			 "arguments than a holder's");
		return 0;
	}
	if (strcmp(argv[1], c->name) || strcmp(argv[2], c->uuid)) {
		snprintf(c->why, sizeof(c->why), "it is a " POOL_LEASE_HOLDER " of another pool");
		return 0;
	}
	return 1;
}

int pool_lease_fence_run(const char *uuid, const char *name, int holder)
{
	struct holder_check c = { name, uuid, "no such process" };
	int r = -ESRCH;

	if (holder <= 1)
		snprintf(c.why, sizeof(c.why), "no process a holder can be");
	/* the devices first, whoever HOLDER is: they are what keeps the
	 * pool's data from this host's writes */
	lease_fence(uuid, name, "this host could not renew it in time: the shared storage is "
		    "unreachable, or the host was stopped");
	/* the holder ends once nothing is loaded; sanlock kills it if not.
	 * Only the holder: a pid given by hand, or one that went to another
	 * process after the holder ended, is left alone */
	if (holder > 1)
		r = tp_process_stop_if(holder, is_holder, &c);
	if (r == -ESRCH)
		log_warn("pool %s: process %d is not its lease holder (%s): there is no holder to "
			 "stop", name, holder, c.why);
	else if (r)
		log_warn("pool %s: its lease holder (pid %d) could not be asked to end: %s", name,
			 holder, strerror(-r));
	return lease_pool_loaded(uuid) ? 5 : 0;
}
