/* tpmonitor - watch every active tptools pool: warnings at its thresholds,
 * autoextension, the switch to error-when-full (lib/pool/monitor.h does
 * the work; this file is the daemon around it).
 *
 * One process (an exclusive lock, "#monitor" in the lock dir). Each active
 * pool gets a thread blocked in the kernel's wait for the pool's next
 * event (DM_DEVICE_WAITEVENT, as dmeventd); an event, or the polling
 * interval (the fallback, and the way new pools are found), wakes the
 * main loop through a pipe, which looks at every pool. SIGTERM, SIGINT
 * (and SIGHUP) end it: lib/base/critical.h catches them (tp_signals_catch,
 * which also wakes the pipe) and the loop looks at tp_critical_pending;
 * the waits are interrupted (tp_signals_interrupt) and joined.
 * What the monitor did is kept per pool in its state file, read back at
 * start, so a restart neither repeats a warning nor forgets an action. */
#include "lib/base/critical.h"
#include "lib/base/exitcodes.h"
#include "lib/base/lock.h"
#include "lib/base/log.h"
#include "lib/pool/monitor.h"
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int wake[2] = { -1, -1 };

/* One pool the monitor knows: its memory and its event thread. */
struct watched {
	struct pool_monitor_pool pl;
	struct pool_monitor_state st;
	pthread_t thread;
	int has_thread;
	volatile int done;	/* the thread has ended (pool gone, or no events) */
	int seen;		/* listed in this round */
};

static void poke(void)
{
	char c = 0;
	ssize_t n = write(wake[1], &c, 1);

	(void)n;	/* a full pipe is already a wake-up */
}

static void *watch(void *arg)
{
	struct watched *w = arg;
	uint32_t nr, next;
	int r = pool_monitor_event_nr(&w->pl, &nr);

	while (!r && !tp_signals_caught()) {
		r = pool_monitor_wait(&w->pl, nr, &next);
		if (r == -EINTR) {
			r = 0;
			continue;
		}
		if (!r) {
			nr = next;
			poke();
		}
	}
	if (r && r != -ENXIO)
		log_warn("pool %s: waiting for its events failed (%s); polling it instead",
			 w->pl.name, strerror(-r));
	w->done = 1;
	return NULL;
}

static void stop_thread(struct watched *w)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	if (!w->has_thread)
		return;
	/* a wait that began after the flag was read needs another signal */
	while (!w->done) {
		(void)tp_signals_interrupt(w->thread);	/* 0: caught, not joined yet */
		nanosleep(&ts, NULL);
	}
	pthread_join(w->thread, NULL);
	w->has_thread = 0;
}

struct monitor {
	struct watched **w;
	unsigned n;
	int events, failed;
};

static struct watched *find_or_add(struct monitor *m, const struct pool_monitor_pool *pl)
{
	struct watched *w, **v;
	int r;

	for (unsigned i = 0; i < m->n; i++)
		if (!strcmp(m->w[i]->pl.uuid, pl->uuid) && !strcmp(m->w[i]->pl.name, pl->name))
			return m->w[i];
	if (!(w = calloc(1, sizeof(*w))) || !(v = realloc(m->w, (m->n + 1) * sizeof(*v)))) {
		free(w);
		return NULL;
	}
	m->w = v;
	m->w[m->n++] = w;
	w->pl = *pl;
	r = pool_monitor_state_read(pl->uuid, &w->st);
	if (r && r != -ENOENT)
		log_warn("pool %s: the monitor's state file is unreadable (%s); starting afresh",
			 pl->name, strerror(-r));
	log_notice("pool %s: monitoring%s", pl->name, m->events ? " (events and polling)" : "");
	return w;
}

/* Drop pools no longer active (their threads have ended or are ended). */
static void forget_gone(struct monitor *m)
{
	unsigned k = 0;

	for (unsigned i = 0; i < m->n; i++) {
		struct watched *w = m->w[i];
		if (w->seen) {
			m->w[k++] = w;
			continue;
		}
		log_notice("pool %s: no longer active; not monitored", w->pl.name);
		stop_thread(w);
		free(w);
	}
	m->n = k;
}

/* One round: list the active pools, look at each. */
static void round_all(struct monitor *m)
{
	struct pool_monitor_pool *pools = NULL;
	unsigned n = 0;
	int r = pool_monitor_list(&pools, &n);

	if (r) {
		log_error("cannot list the kernel's devices: %s", strerror(-r));
		m->failed = 1;
		return;
	}
	for (unsigned i = 0; i < m->n; i++)
		m->w[i]->seen = 0;
	for (unsigned i = 0; i < n && !tp_critical_pending(); i++) {
		struct watched *w = find_or_add(m, &pools[i]);

		if (!w) {
			m->failed = 1;
			continue;
		}
		w->seen = 1;
		if (m->events && w->has_thread && w->done)
			stop_thread(w);
		if (m->events && !w->has_thread && !w->done &&
		    !pthread_create(&w->thread, NULL, watch, w))
			w->has_thread = 1;
		if (pool_monitor_pass(&w->pl, &w->st))
			m->failed = 1;
	}
	free(pools);
	forget_gone(m);
}

static int setup_signals(void)
{
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	return tp_signals_catch(wake[1]);
}

static void sleep_until_woken(int interval)
{
	struct pollfd pfd = { wake[0], POLLIN, 0 };
	char buf[64];

	if (poll(&pfd, 1, interval * 1000) > 0)
		while (read(wake[0], buf, sizeof(buf)) > 0)
			;
}

static int run(int once, int interval, int events)
{
	struct monitor m = { NULL, 0, events && !once, 0 };

	do {
		m.failed = 0;
		round_all(&m);
		if (!once && !tp_critical_pending())
			sleep_until_woken(interval);
	} while (!once && !tp_critical_pending());
	for (unsigned i = 0; i < m.n; i++) {
		stop_thread(m.w[i]);
		free(m.w[i]);
	}
	free(m.w);
	if (!once)
		log_notice("stopped");
	return m.failed ? TP_EXIT_FAILED : TP_EXIT_OK;
}

int cmd_tpmonitor(const struct tp_command *cmd, int argc, const char **argv)
{
	int once = 0, daemonize = 0, poll_only = 0, interval = 10, rc, nargs;
	struct tp_lock *lock = NULL;
	const char **args;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "once", '1', POPT_ARG_NONE, &once, 0,
		  "look at every active pool once, act, and exit (tests, cron)", NULL },
		{ "daemon", 'd', POPT_ARG_NONE, &daemonize, 0,
		  "run in the background (messages to the system log only)", NULL },
		{ "interval", 'i', POPT_ARG_INT, &interval, 0,
		  "seconds between looks at every pool, events or not (default 10)", "SECONDS" },
		{ "poll", '\0', POPT_ARG_NONE, &poll_only, 0,
		  "do not wait for the kernel's pool events: poll only", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 0, 0, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (interval < 1 || interval > 3600)
		rc = cli_usage_error(cmd, "--interval takes 1..3600 seconds, not %d", interval);
	else if (once && daemonize)
		rc = cli_usage_error(cmd, "--once and --daemon exclude each other");
	cli_end(&cli);
	if (rc != CLI_CONTINUE)
		return rc;
	rc = tp_lock_acquire("#monitor", TP_LOCK_EXCL | TP_LOCK_NOWAIT, &lock);
	if (rc == -EWOULDBLOCK) {
		log_error("another tpmonitor is running (it holds the #monitor lock); one "
			  "instance watches every pool");
		return TP_EXIT_FAILED;
	}
	if (rc) {
		log_error("cannot take the #monitor lock: %s", strerror(-rc));
		return TP_EXIT_FAILED;
	}
	if (daemonize && daemon(0, 0)) {
		log_error("cannot run in the background: %s", strerror(errno));
		tp_lock_release(lock);
		return TP_EXIT_FAILED;
	}
	tp_log_syslog(!daemonize);
	if ((rc = setup_signals())) {
		log_error("cannot set up signals: %s", strerror(-rc));
		tp_lock_release(lock);
		return TP_EXIT_FAILED;
	}
	if (!once)
		log_notice("started: every %d s%s", interval,
			   poll_only ? ", polling only" : ", and on pool events");
	rc = run(once, interval, !poll_only);
	tp_lock_release(lock);
	return rc;
}
