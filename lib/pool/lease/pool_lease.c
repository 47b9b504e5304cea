/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_lease.c - a shared pool's sanlock lease (pool.h: POOL_LEASE_KEEP,
 * pool_lease_*; lease/lease.h does the talking to sanlock). A pool whose
 * VG has a lock (tpcreate/tpchange --lock-type sanlock) is written by the
 * host that holds its resource lease only:
 *
 * - every writer's attach takes it right after the VG is read and the
 *   owner checked, before anything is written (the stale-copy rewrite,
 *   the transaction replay): the command holds it itself (an offline
 *   change) and lets it go at detach; or this host's holder process has
 *   it (the pool is active here) and the command runs under that;
 * - tpactivate (POOL_LEASE_KEEP) starts the holder instead: a program of
 *   its own (tools/tp-lease-holder.c, setsid; lease_program finds it) that
 *   acquires the lease with a kill path and keeps it while the pool is
 *   loaded, its pid in
 *   <run dir>/lease/<pool uuid>.pid. sanlock ends a lease with the
 *   process that holds it, so the lease outlives tpactivate only so;
 * - a detach that leaves the pool inactive stops this host's holder
 *   (tpdeactivate, or an activation that failed);
 * - the kill path (the program tools/tp-lease-fence.c, run as
 *   `tp-lease-fence UUID NAME PID`), which sanlock runs when this host can
 *   no longer renew its lease (the storage is gone, or the host was
 *   paused past its lease), switches the pool's devices to the error
 *   target, the bottom ones (tmeta, tdata) first, tears them down, logs
 *   it (lib/base/log.h: log_crit, the journal and the kernel's log), and
 *   ends the holder (pool_fence.c, which links no sanlock client);
 * - the holder's watcher (a child sanlock does not know) fences the pool
 *   the same way when the lease's owner on the disk is no longer this
 *   host, or when sanlock killed the holder outright (watch: a host that
 *   was paused).
 *
 * Another host holding the lease: -EUSERS, logged with its host id (not
 * -EBUSY: that is this host's own business, a device in use). */
#include "lib/pool/lease/lease_feature.h"
#include "lib/pool/lease/lease_int.h"

#include "lib/pool/core/core.h"
#include "lib/pool/pool_owner.h"

#include "kernel/dm.h"
#include "lease/lease.h"
#include "lib/base/atomic.h"
#include "lib/base/config.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The lease's state of an open pool (its feature slot): the lease this
 * command holds itself, or the pid of this host's holder that has it. */
struct lease_state {
	struct lease_hold lease;
	int own;
	int holder;
};

static struct pool_feature lease_feature;

/* P's lease state, made on first use; NULL on ENOMEM (logged). */
static struct lease_state *state_of(struct pool *p)
{
	void **slot = pool_feature_state(p, &lease_feature);

	if (slot && !*slot && !(*slot = calloc(1, sizeof(struct lease_state))))
		log_error("pool %s: out of memory", pool_name(p));
	return slot ? *slot : NULL;
}

_Static_assert(VG_LOCK_AREA_BYTES == LEASE_AREA_BYTES && VG_LOCK_ALIGN == LEASE_ALIGN &&
		       VG_LOCK_NAME_MAX == LEASE_NAME_MAX,
	       "the VG's lease area is lease.h's");

int pool_is_shared(const struct pool *p)
{
	return pool_vg(p) && pool_vg(p)->lock.type != VG_LOCK_NONE;
}

static void area_of(const struct pool *p, struct lease_area *a)
{
	a->name = pool_vg(p)->lock.name;
	a->path = pool_pv(p, VG_ROLE_META)->io->name;
	a->offset = pool_vg(p)->lock.offset;
}

uint64_t pool_lease_dead_seconds(unsigned io_timeout)
{
	/* sanlock's host_dead_seconds: a host whose delta lease is this old
	 * is dead. Its own sanlock gives up renewing after 8 io_timeouts
	 * (id_renewal_fail_seconds) and runs the kill paths; its watchdog
	 * (wdmd) resets it at the latest 60 s later (the watchdog's fire
	 * timeout), which every other host waits out as well */
	return 8ull * io_timeout + 60;
}

/* <run dir>/lease/<uuid>.pid; caller frees */
static char *pid_file(const char *uuid)
{
	char *run = tp_run_dir(), *dir = run ? tp_path_join(run, "lease") : NULL, *f = NULL;
	char name[VG_UUID_LEN + 8];

	snprintf(name, sizeof(name), "%s.pid", uuid);
	if (dir)
		f = tp_path_join(dir, name);
	free(run);
	free(dir);
	return f;
}

/* The pid in UUID's pid file, 0 when none. */
static int holder_pid(const char *uuid)
{
	char *f = pid_file(uuid), buf[32] = "";
	FILE *fp = f ? fopen(f, "r") : NULL;
	int pid = 0;

	if (fp) {
		if (fgets(buf, sizeof(buf), fp))
			pid = atoi(buf);
		fclose(fp);
	}
	free(f);
	return pid > 1 && tp_process_alive(pid) ? pid : 0;
}

unsigned pool_host_id(void)
{
	return (unsigned)tp_config_int("global/host_id");
}

/* This host in A's lockspace, joined if need be. */
static int join(struct pool *p, const struct lease_area *a)
{
	unsigned id = pool_host_id();
	int r;

	if (!id) {
		log_error("pool %s is on shared storage (lock type sanlock), and this host has no "
			  "sanlock host id: set 'global { host_id = N }' in tptools.conf(5), a "
			  "number 1..2000 that no other host uses; nothing was changed", pool_name(p));
		return -ENOLCK;
	}
	if ((r = lease_daemon_check(pool_name(p))))
		return r;
	if ((r = lease_joined(a, id)) < 0)
		return r;
	if (r)
		return 0;
	log_info("pool %s: joining its sanlock lockspace as host %u (sanlock first makes sure "
		 "no other host uses the id: %u s or more)", pool_name(p), id,
		 2 * pool_vg(p)->lock.io_timeout);
	if ((r = lease_join(a, id, pool_vg(p)->lock.io_timeout)))
		log_error("pool %s: cannot join its sanlock lockspace as host %u: %s", pool_name(p), id,
			  strerror(-r));
	return r;
}

/* The host id named by this process's last refusal (busy), 0: none. */
static uint64_t refused_by;

uint64_t pool_lease_refused_by(void)
{
	return refused_by;
}

static int busy(const struct pool *p, const struct lease_owner *o)
{
	char host[32] = "another host";

	refused_by = o->host_id;
	/* autoactivation says it in its own line */
	if (pool_flags(p) & POOL_FOREIGN_QUIET)
		return -EUSERS;
	if (o->host_id)
		snprintf(host, sizeof(host), "host %" PRIu64, o->host_id);
	log_error("pool %s is held by %s (its sanlock lease: the pool is active there, or a "
		  "change runs there); nothing was changed. Deactivate it there ('tpdeactivate "
		  "%s'); if that host is dead, sanlock frees its lease %" PRIu64 " s after its last "
		  "renewal (8 x io_timeout %u s + 60 s): run the command again then",
		  pool_name(p), o->host_id ? host : "another host", pool_name(p),
		  pool_lease_dead_seconds(pool_vg(p)->lock.io_timeout), pool_vg(p)->lock.io_timeout);
	return -EUSERS;
}

/* The private directory of the lease's programs, below the prefix. */
#define LEASE_PROGRAM_DIR "lib/tptools"

/* The path of NAME, one of the lease's programs (POOL_LEASE_HOLDER,
 * POOL_LEASE_FENCE), in BUF: LEASE_PROGRAM_DIR beside the directory of
 * the running program (/usr/sbin/tp: /usr/lib/tptools; a build's
 * build/bin/tp: build/lib/tptools), or the running program's own
 * directory when that is LEASE_PROGRAM_DIR (the holder finding the kill
 * path). 0 when it is there and executable, else -errno (BUF still names
 * where it was looked for). */
static int lease_program(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX], dir[PATH_MAX], *slash;
	const char *tail = "/" LEASE_PROGRAM_DIR;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t dl;

	snprintf(buf, len, "%s", name);
	if (n <= 0)
		return n ? -errno : -ENOENT;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return -ENOENT;
	*slash = '\0';
	dl = strlen(exe);
	if (dl >= strlen(tail) && !strcmp(exe + dl - strlen(tail), tail))
		snprintf(dir, sizeof(dir), "%s", exe);
	else if ((size_t)snprintf(dir, sizeof(dir), "%s/../%s", exe, LEASE_PROGRAM_DIR) >=
		 sizeof(dir))
		return -ENAMETOOLONG;
	if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
		return -ENAMETOOLONG;
	/* the canonical path: sanlock keeps the kill path's (at most 127
	 * bytes), and the log names it */
	if (!realpath(dir, exe))
		return -errno;
	if ((size_t)snprintf(buf, len, "%s/%s", exe, name) >= len)
		return -ENAMETOOLONG;
	return access(buf, X_OK) ? -errno : 0;
}

/* 0 when the lease's program NAME is there (its path in BUF), else -errno
 * after an error naming it: WHO (a pool's name) is refused. */
static int lease_program_check(const char *who, const char *name, char *buf, size_t len)
{
	int r = lease_program(name, buf, len);

	if (r)
		log_error("pool %s: the lease's program %s cannot be run (%s): tptools is not "
			  "installed completely; reinstall it (make install, or the package); "
			  "nothing was changed", who, buf, strerror(-r));
	return r;
}

/* Start the holder and wait until it has the lease (0), or says why not. */
static int start_holder(struct pool *p, struct lease_state *st, const struct lease_area *a)
{
	char exe[PATH_MAX], fencer[PATH_MAX], off[32], fdno[16], line[128] = "";
	int fds[2], status, r;
	ssize_t n;
	pid_t pid;

	/* both, before anything runs: a holder without its kill path is
	 * refused by the holder itself, less clearly */
	if ((r = lease_program_check(pool_name(p), POOL_LEASE_HOLDER, exe, sizeof(exe))) ||
	    (r = lease_program_check(pool_name(p), POOL_LEASE_FENCE, fencer, sizeof(fencer))))
		return r;
	if (pipe(fds))
		return -errno;
	snprintf(off, sizeof(off), "%" PRIu64, a->offset);
	snprintf(fdno, sizeof(fdno), "%d", fds[1]);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (!pid) {
		/* none of the pool's descriptors (and flocks) go with it */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != fds[1])
				close(fd);
		execl(exe, POOL_LEASE_HOLDER, pool_name(p), pool_vg(p)->uuid, a->path, off, fdno,
		      (char *)NULL);
		snprintf(line, sizeof(line), "exec %d\n", errno);
		if (write(fds[1], line, strlen(line)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	if (n > 0 && !strncmp(line, "ok", 2)) {
		st->holder = pid;
		return 0;
	}
	waitpid(pid, &status, 0);
	if (n > 0 && !strncmp(line, "busy", 4)) {
		struct lease_owner o = { 0 };

		o.host_id = strtoull(line + 4, NULL, 10);
		return busy(p, &o);
	}
	if (n > 0 && !strncmp(line, "exec", 4)) {
		r = -atoi(line + 4);
		r = r ? r : -ENOEXEC;
		log_error("pool %s: cannot run the lease holder %s: %s; nothing was changed",
			  pool_name(p), exe, strerror(-r));
		return r;
	}
	r = n > 0 && !strncmp(line, "err", 3) ? -atoi(line + 3) : -EPROTO;
	if (!r)
		r = -EPROTO;
	log_error("pool %s: the lease holder (%s) could not take its sanlock lease: %s "
		  "(the system log says why, as tptools)", pool_name(p), exe, strerror(-r));
	return r;
}

/* What this host's page cache holds of the pool's devices may be older
 * than what the host that let the lease go wrote: drop it, so that the
 * VG and the thin metadata are read from the disks. */
static void forget_cached(struct pool *p)
{
	for (unsigned i = 0; i <= pool_nr_pvs(p); i++) {
		const struct vg_pv *pv = i < pool_nr_pvs(p) ? pool_pv_at(p, i) : pool_meta1_pv(p);
		int fd = pv && pv->io ? io_fd_get(pv->io) : -1;
		struct stat st;

		if (fd < 0 || fstat(fd, &st))
			continue;
		if (S_ISBLK(st.st_mode)) {
			if (ioctl(fd, BLKFLSBUF, 0))
				log_warn("pool %s: cannot drop the cached blocks of %s: %s",
					 pool_name(p), pv->io->name, strerror(errno));
		} else {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		}
	}
}

/* Test builds only: 1 when the environment variable NAME is "1" (a
 * release build: 0, and NAME does not reach the binary). */
#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
static int test_env(const char *name)
{
	const char *t = getenv(name);

	return t && !strcmp(t, "1");
}
#else
#define test_env(name) 0
#endif

/* Test builds only: TP_TEST_LEASE_NO_JOIN=1 has tpactivate start the
 * lease holder without joining the lockspace first (no daemon on this
 * host), so that shell tests see tp find and run its holder, and the
 * holder its kill path, before sanlock refuses it. */
static int test_no_join(void)
{
	return test_env("TP_TEST_LEASE_NO_JOIN");
}

/* The feature's vg_read hook (core.h): a writer takes a shared pool's
 * lease after the VG is read and the owner checked, before anything is
 * written. 1 when it was taken now (the VG is read again: another host
 * may have changed it), 0 when none is needed or this host's holder has
 * it, or -errno (logged). */
static int lease_take(struct pool *p)
{
	struct lease_state *st;
	struct lease_area a;
	struct lease_owner o;
	int r, pid;

	if (!pool_is_shared(p) || (pool_flags(p) & POOL_RDONLY) || pool_is_foreign(p))
		return 0;
	if (!(st = state_of(p)))
		return -ENOMEM;
	area_of(p, &a);
	/* boot and udev (--all, --auto) pass a shared pool by while sanlock
	 * is not up yet: tptools-activate-shared.service comes after it */
	if ((pool_flags(p) & POOL_FOREIGN_QUIET) && !lease_daemon_up())
		return -ENOTCONN;
	if (!(test_no_join() && (pool_flags(p) & POOL_LEASE_KEEP)) && (r = join(p, &a)))
		return r;
	/* active here: the holder has it */
	if ((pid = holder_pid(pool_vg(p)->uuid)) && lease_held_by(&a, pid) == 1) {
		st->holder = pid;
		return 0;
	}
	/* tpactivate; or the pool is loaded here and its holder is gone
	 * (killed): a new holder takes over the lease it left (sanlock keeps
	 * a holder's lease as this host's orphan), or is refused when another
	 * host took it */
	if ((pool_flags(p) & POOL_LEASE_KEEP) || pool_is_live(p)) {
		if ((r = start_holder(p, st, &a)))
			return r;
		forget_cached(p);
		return 1;
	}
	r = lease_acquire(&st->lease, &a, NULL, NULL, &o);
	if (r == -EBUSY && o.host_id == pool_host_id() && !lease_release_orphan(&a)) {
		/* this host's own lease, left by a holder that was killed while
		 * nothing of the pool is loaded: nothing writes, free it */
		log_warn("pool %s: its lease was still held by this host (a lease holder was "
			 "killed); released", pool_name(p));
		for (int i = 0; i < 20 && r == -EBUSY; i++) {
			usleep(250 * 1000);
			r = lease_acquire(&st->lease, &a, NULL, NULL, &o);
		}
	}
	if (!r) {
		st->own = 1;
		forget_cached(p);
		return 1;
	}
	if (r == -EBUSY)
		return busy(p, &o);
	if (r)
		log_error("pool %s: cannot take its sanlock lease: %s; nothing was changed",
			  pool_name(p), strerror(-r));
	return r;
}

/* Ask the holder PID to end (it does once the pool is unloaded), and wait
 * a little for it. */
static void stop_holder(const char *name, int pid)
{
	if (tp_process_stop(pid))
		return;
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid || !tp_process_alive(pid))
			return;
		usleep(50 * 1000);
	}
	log_warn("pool %s: its lease holder (pid %d) has not ended yet", name, pid);
}

/* The feature's detach hook: let go of the lease this command took, stop
 * this host's holder when the pool is not loaded here (the core frees the
 * state). */
static void lease_drop(struct pool *p)
{
	struct lease_state *st = pool_feature_state_get(p, &lease_feature);

	if (!st)
		return;
	if (st->own && pool_vg(p)) {
		struct lease_area a;

		area_of(p, &a);
		if (lease_release(&st->lease, &a))
			log_warn("pool %s: its sanlock lease was not released cleanly; sanlock "
				 "releases it as this command ends", pool_name(p));
	}
	/* the holder lives while the pool is active here */
	if (st->holder && !pool_is_live(p))
		stop_holder(pool_name(p), st->holder);
}

static struct pool_feature lease_feature = {
	.name = "lease",
	.vg_read = lease_take,
	.detach = lease_drop,
};

void pool_lease_register(void)
{
	pool_feature_register(&lease_feature);
}

int pool_lease_owner(const struct pool *p, uint64_t *host_id)
{
	struct lease_area a;
	struct lease_owner o;
	int r;

	*host_id = 0;
	if (!pool_is_shared(p))
		return 0;
	if (!lease_daemon_up())
		return -ENOTCONN;
	area_of(p, &a);
	if ((r = lease_owner(&a, &o)))
		return r;
	*host_id = o.host_id;
	return 0;
}

/* Test builds only: TP_TEST_LEASE_UNFORMATTED=1 makes a shared pool
 * without a sanlock daemon, its lease area left unwritten, so that shell
 * tests can prove the refusals of a host without a daemon on it. */
static int test_unformatted(void)
{
	return test_env("TP_TEST_LEASE_UNFORMATTED");
}

int pool_lease_format(const char *pool, const char *name, const char *path, uint64_t offset,
		      unsigned io_timeout)
{
	struct lease_area a = { name, path, offset };
	int r = test_unformatted() ? 0 : lease_format(&a, io_timeout);

	if (r)
		log_error("pool %s: cannot write its lease area on %s: %s", pool, path,
			  strerror(-r));
	return r;
}

int pool_lease_check_daemon(const char *pool)
{
	char who[VG_NAME_MAX + 8];

	snprintf(who, sizeof(who), "pool %s", pool);
	return test_unformatted() ? 0 : lease_daemon_check(who);
}

/* ---- the holder and the kill path: processes of their own ---- */


/* 1 when the lease's owner on the disk is no longer MINE (another host,
 * another generation, or nobody; *NOW says who), 0 when it is, or when
 * the disk could not be read (lost storage is sanlock's renewal's case). */
static int lease_lost(const struct lease_area *a, const struct lease_owner *mine,
		      struct lease_owner *now)
{
	if (lease_owner(a, now))
		return 0;
	return now->host_id != mine->host_id ||
	       (mine->generation && now->generation != mine->generation);
}

/* The holder's watcher: a child of the holder that sanlock does not know
 * (not registered), so that it lives on when sanlock kills the holder.
 * It watches what sanlock's renewal cannot see:
 * - a host paused with its clock (a hypervisor's stop) past its host-dead
 *   time comes back with its renewals looking punctual, so its sanlock
 *   runs no kill path, while another host has acquired the lease in
 *   between; sanlock never reads a resource lease it holds again. The
 *   watcher does, once a second while the pool is loaded: another owner
 *   on the disk (or none), and the pool is fenced;
 * - a host whose clock ran on over the stop (SIGSTOP of the machine) is
 *   late past sanlock's grace time: sanlock SIGKILLs the holder at once,
 *   without the kill path. The holder gone while the pool is loaded and
 *   this host no longer in the lockspace: the pool is fenced. (Gone while
 *   this host is still in the lockspace: someone killed it; the lease
 *   stays this host's orphan, and the watch goes on.)
 * It ends when the holder is gone and nothing of the pool is loaded. */
static void watch(const char *uuid, const char *name, const struct lease_area *a,
		  const struct lease_owner *mine, pid_t holder)
{
	struct lease_owner now;
	char why[200];

	for (;;) {
		int gone;

		sleep(1);
		gone = getppid() != holder;
		if (!lease_pool_loaded(uuid)) {
			if (gone)
				return;
			continue;
		}
		if (lease_lost(a, mine, &now)) {
			if (now.host_id)
				snprintf(why, sizeof(why), "host %" PRIu64 " holds it now: this host "
					 "was stopped past its lease", now.host_id);
			else
				snprintf(why, sizeof(why), "nobody holds it on the disk: another host "
					 "took it while this host was stopped, and let it go");
		} else if (gone && lease_joined(a, mine->host_id) != 1) {
			snprintf(why, sizeof(why), "sanlock killed its lease holder: this host's "
				 "renewals were too late, the host was stopped past its lease");
		} else {
			continue;
		}
		lease_fence(uuid, name, why);
		if (!gone)
			(void)tp_process_stop(holder);
		return;
	}
}

int pool_lease_holder_run(const char *name, const char *uuid, const char *path, uint64_t offset,
			  int fd)
{
	struct lease_area a;
	struct lease_owner o, mine;
	struct lease_hold h;
	char fencer[PATH_MAX], args[256], line[64], lname[VG_LOCK_NAME_MAX + 1];
	pid_t parent;
	char *file = NULL, *dir;
	pid_t holder, watcher;
	int r;

	a.path = path;
	a.offset = offset;
	vg_lock_name(uuid, lname);
	a.name = lname;
	parent = getppid();
	holder = getpid();
	setsid();
	/* SIGTERM, SIGINT, SIGHUP: a request to end, looked at each second */
	if ((r = tp_signals_catch(-1)))
		goto fail;
	/* the kill path: the program beside this one */
	if ((r = lease_program_check(name, POOL_LEASE_FENCE, fencer, sizeof(fencer))))
		goto fail;
	snprintf(args, sizeof(args), "%s %s %d", uuid, name, (int)getpid());
	/* persistent: should this process be killed while the pool is loaded,
	 * the lease stays this host's (an orphan), not free for another */
	r = lease_acquire_persistent(&h, &a, fencer, args, &o);
	if (r == -EINVAL)
		log_error("pool %s: sanlock cannot keep the kill path %s (at most 127 bytes)", name,
			  fencer);
	if (r == -EBUSY) {
		snprintf(line, sizeof(line), "busy %" PRIu64 "\n", o.host_id);
		if (write(fd, line, strlen(line)) < 0)
			return 5;
		return 2;
	}
	if (r)
		goto fail;
	file = pid_file(uuid);
	dir = tp_run_dir();
	if (dir) {
		char *ld = tp_path_join(dir, "lease");
		if (ld)
			tp_mkdir_p(ld);
		free(ld);
	}
	free(dir);
	snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (!file || (r = tp_atomic_replace(file, NULL, 0644, line, strlen(line)))) {
		r = file ? r : -ENOMEM;
		lease_release(&h, &a);
		goto fail;
	}
	if (write(fd, "ok\n", 3) < 0) {
		/* tpactivate is gone: it did not load the pool */
		lease_release(&h, &a);
		unlink(file);
		free(file);
		return 5;
	}
	close(fd);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	/* what the disk says of us as the owner, for the watcher */
	if (lease_owner(&a, &mine) || mine.host_id != pool_host_id()) {
		memset(&mine, 0, sizeof(mine));
		mine.host_id = pool_host_id();
	}
	watcher = fork();
	if (!watcher) {
		/* not ours to keep: sanlock must see the holder end with it */
		close(h.sock);
		watch(uuid, name, &a, &mine, holder);
		_exit(0);
	}
	if (watcher < 0)
		log_warn("pool %s: no watcher for its lease (%s): a pause of this host past its "
			 "lease goes unseen", name, strerror(errno));
	log_notice("pool %s: this host holds its sanlock lease (host id %u)", name,
		   pool_host_id());
	for (;;) {
		if (tp_signals_take()) {
			if (!lease_pool_loaded(uuid))
				break;
			log_warn("pool %s is still active: its lease is kept (tpdeactivate %s "
				 "ends it)", name, name);
		}
		sleep(1);
		/* the tpactivate that started us ended (killed, say) before it
		 * loaded the pool: nothing here needs the lease */
		if (getppid() != parent && !lease_pool_loaded(uuid)) {
			log_warn("pool %s: tpactivate ended without loading it; its lease is "
				 "released", name);
			break;
		}
	}
	unlink(file);
	free(file);
	/* after a fence, sanlock writes nothing over the new owner's lease
	 * (its release finds another host's leader on the disk) */
	r = lease_release(&h, &a);
	log_notice("pool %s: its sanlock lease is released", name);
	return r ? 5 : 0;
fail:
	free(file);
	snprintf(line, sizeof(line), "err %d\n", -r);
	if (write(fd, line, strlen(line)) < 0)
		return 5;
	return 5;
}

