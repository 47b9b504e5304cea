/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock.c - see lock.h. */
#include "lib/base/lock.h"
#include "lib/base/critical.h"
#include "lib/base/devopen.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

struct tp_lock {
	int fd;
};

/* Who holds the lock on open file FD (from /proc/locks and
 * /proc/PID/cmdline): "process PID (COMMAND LINE)" into BUF, "and N more"
 * when several do; "another process" when /proc does not say. */
static void tp_lock_holder(int fd, char *buf, size_t len)
{
	unsigned long long ino;
	unsigned maj, min, more = 0;
	char line[256], kind[16];
	long pid = 0, p;
	struct stat st;
	FILE *f;

	snprintf(buf, len, "another process");
	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 2470 fe:00:11012640 0 EOF"; a waiter's
		 * line has "->" after the number */
		if (strstr(line, "->") ||
		    sscanf(line, "%*u: %15s %*s %*s %ld %x:%x:%llu", kind, &p, &maj, &min, &ino) != 5 ||
		    strcmp(kind, "FLOCK") || ino != (unsigned long long)st.st_ino ||
		    makedev(maj, min) != st.st_dev || p == (long)getpid())
			continue;
		if (!pid)
			pid = p;
		else if (p != pid)
			more++;
	}
	fclose(f);
	if (pid) {
		char path[64], cmd[160] = "";
		size_t n = 0;
		int cf;

		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		if ((cf = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			ssize_t k = read(cf, cmd, sizeof(cmd) - 1);
			n = k > 0 ? (size_t)k : 0;
			close(cf);
		}
		cmd[n] = '\0';
		for (size_t i = 0; i + 1 < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (n == sizeof(cmd) - 1)
			snprintf(cmd + n - 4, 4, "...");
		snprintf(buf, len, "process %ld%s%s%s", pid, cmd[0] ? " (" : "", cmd,
			 cmd[0] ? ")" : "");
		if (more)
			snprintf(buf + strlen(buf), len - strlen(buf), " and %u more", more);
	}
}

/* tp_lock_writers_budget: the ms of waiting for locks left (only the
 * time spent waiting counts), whether one is set, and the seconds it
 * gave. */
static uint64_t writers_left;
static int writers_budget;
static unsigned writers_seconds;

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void tp_lock_writers_budget(unsigned seconds)
{
	writers_left = (uint64_t)seconds * 1000;
	writers_budget = 1;
	writers_seconds = seconds;
}

/* The time since BEGAN (ms) spent from the writers' budget. */
static void spend(uint64_t began)
{
	uint64_t d = now_ms() - began;

	writers_left = d < writers_left ? writers_left - d : 0;
}

/* The reader's bound, ms. */
static unsigned reader_ms(void)
{
	return (unsigned)tp_test_count("TP_TEST_LOCK_WAIT_MS", TP_LOCK_READER_MS);
}

/* flock FD as FLAGS say; on success L owns FD. BRIEF polls every 20 ms
 * until TP_LOCK_BRIEF_MS have passed; TELL says who holds it once the
 * wait passes TP_LOCK_TELL_MS (WHAT names the object), BOUNDED gives up
 * after reader_ms(), naming the holder. */
static int lock_fd(int fd, unsigned flags, const char *what, struct tp_lock *l)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	int op = (flags & TP_LOCK_EXCL) ? LOCK_EX : LOCK_SH;
	unsigned waited = 0, bound = UINT32_MAX, told = 0, budget = 0;
	uint64_t began = 0;
	char who[256];

	if (flags & TP_LOCK_BOUNDED) {
		flags |= TP_LOCK_TELL;
		bound = reader_ms();
	} else if ((flags & TP_LOCK_TELL) && writers_budget) {
		budget = 1;
		bound = (unsigned)TP_MIN(writers_left, (uint64_t)UINT32_MAX);
		began = now_ms();
	}
	if (flags & TP_LOCK_BRIEF)
		bound = TP_LOCK_BRIEF_MS;
	if (flags & (TP_LOCK_NOWAIT | TP_LOCK_BRIEF | TP_LOCK_TELL))
		op |= LOCK_NB;
	while (flock(fd, op)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || (flags & TP_LOCK_NOWAIT) || waited >= bound) {
			int e = -errno;
			if (e == -EWOULDBLOCK && (flags & TP_LOCK_BOUNDED)) {
				tp_lock_holder(fd, who, sizeof(who));
				log_error("%s: its lock is still held by %s after %u s; nothing was read. "
					  "Run the command again when that one has ended (if it hangs, "
					  "stop it: tptools commands end cleanly at SIGTERM)",
					  what, who, waited / 1000);
			} else if (e == -EWOULDBLOCK && budget) {
				tp_lock_holder(fd, who, sizeof(who));
				log_error("%s: its lock is still held by %s; this command waits at most "
					  "%u s in all for locks, and that time is spent: left as it is "
					  "(if that command hangs, stop it: tptools commands end cleanly "
					  "at SIGTERM)", what, who, writers_seconds);
			}
			if (budget)
				spend(began);
			return e;
		}
		if ((flags & TP_LOCK_TELL) && !told && waited >= TP_LOCK_TELL_MS) {
			told = 1;
			tp_lock_holder(fd, who, sizeof(who));
			if ((flags & TP_LOCK_BOUNDED) || budget)
				log_warn("%s: waiting for its lock, held by %s (at most %u s more)", what,
					 who, (bound - waited + 999) / 1000);
			else
				log_warn("%s: waiting for its lock, held by %s", what, who);
		}
		nanosleep(&tick, NULL);
		waited += 20;
	}
	if (budget)
		spend(began);
	l->fd = fd;
	return 0;
}

int tp_lock_acquire(const char *name, unsigned flags, struct tp_lock **out)
{
	return tp_lock_acquire_told(name, flags, name, out);
}

int tp_lock_acquire_told(const char *name, unsigned flags, const char *what,
			 struct tp_lock **out)
{
	char *dir = tp_lock_dir(), *path = NULL;
	struct tp_lock *l = NULL;
	int fd = -1, r;
	size_t n;

	if (!dir)
		return -ENOMEM;
	if (strchr(name, '/') || !*name) {
		free(dir);
		return -EINVAL;
	}
	r = tp_mkdir_p(dir);
	if (r)
		goto out;
	n = strlen(dir) + strlen(name) + 8;
	path = malloc(n);
	l = calloc(1, sizeof(*l));
	if (!path || !l) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(path, n, "%s/%s.lock", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = lock_fd(fd, flags, what, l);
	if (!r) {
		*out = l;
		l = NULL;
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(l);
	free(path);
	free(dir);
	return r;
}

int tp_lock_file(const char *path, unsigned flags, struct tp_lock **out)
{
	struct tp_lock *l = calloc(1, sizeof(*l));
	int fd, r;

	if (!l)
		return -ENOMEM;
	fd = io_dev_open(path, O_RDONLY);
	if (fd < 0) {
		r = fd;
		free(l);
		return r;
	}
	r = lock_fd(fd, flags, path, l);
	if (r) {
		close(fd);
		free(l);
		return r;
	}
	*out = l;
	return 0;
}

void tp_lock_release(struct tp_lock *l)
{
	if (!l)
		return;
	close(l->fd); /* closing drops the flock */
	free(l);
}
