/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * start, so a restart neither repeats a warning nor forgets an action.
 * With --textfile DIR every round ends by replacing DIR/tptools.prom with
 * the metrics of every pool (tools/status_prom.h: those of tpstatus
 * --format prometheus), through lib/base/atomic.h's temporary file
 * DIR/.tptools.prom.tmp (not *.prom: node_exporter reads only those). */
#include "lib/base/atomic.h"
#include "lib/base/compiler.h"
#include "lib/base/config.h"
#include "lib/base/critical.h"
#include "lib/base/exitcodes.h"
#include "lib/base/lock.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/monitor.h"
#include "lib/pool/pool_volume.h"
#include "tools/cli.h"
#include "tools/status_prom.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* --textfile: where, and what the last write found, so that a failure
 * that repeats every round is said once (and its end too). */
struct textfile {
	char *path;		/* DIR/tptools.prom; NULL: no --textfile */
	char **down;		/* the pools that could not be read last time */
	unsigned ndown;
	int failing;		/* the last replace failed */
};

#define TEXTFILE_NAME "tptools.prom"
#define TEXTFILE_TMP ".tptools.prom.tmp"

struct monitor {
	struct watched **w;
	unsigned n;
	int events, failed;
	struct textfile tf;
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

/* ---- the trash ---- */

/* One purge, logged (tpmonitor(8)). */
static void say_purge(void *ctx, const struct pool_trash_entry *e, const char *why)
{
	char size[32];

	log_notice("pool %s: purged %s (thin device %u, %s) from the trash: %s", (const char *)ctx,
		   e->name, (unsigned)e->dev_id, tp_size_format(e->size, 'h', size, sizeof(size)),
		   why);
}

/* The trash of every pool of the devices file, active or not: the
 * entries past their retention purged and, while a pool is at its
 * autoextend threshold (POOL_MONITOR_CRITICAL without autoextension)
 * after this round's extensions, the oldest entries first. A pool that
 * cannot be opened now (its devices away, another host's) is left for a
 * later round, quietly: the trash can wait. */
static void trash_round(struct monitor *m)
{
	int64_t now = (int64_t)time(NULL);
	char **names = NULL;
	unsigned n = 0;

	if (pool_list_names(&names, &n)) {
		m->failed = 1;
		return;
	}
	for (unsigned i = 0; i < n && !tp_critical_pending(); i++) {
		struct pool_monitor_policy pol;
		struct tp_log_capture quiet, *old;
		unsigned level, nr = 0;
		struct pool *p;
		int r;

		old = tp_log_capture_push(&quiet);
		r = pool_open(names[i], NULL, POOL_RDONLY, &p);
		tp_log_capture_pop(old);
		if (r)
			continue;
		pool_get_monitor_policy(p, &pol);
		level = pol.autoextend_threshold < 100 ? pol.autoextend_threshold
						       : POOL_MONITOR_CRITICAL;
		r = pool_volume_trash_due(p, now, level);
		pool_close(p);
		if (r <= 0) {
			m->failed |= r < 0;
			continue;
		}
		if ((r = pool_open(names[i], NULL, 0, &p))) {
			m->failed = 1;
			continue;
		}
		if (pool_volume_trash_expire(p, now, level, say_purge, names[i], &nr)) {
			log_error("pool %s: the trash's purge stopped; the next round goes on with "
				  "it", names[i]);
			m->failed = 1;
		}
		pool_close(p);
	}
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- --textfile ---- */

static int listed(char *const *names, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The pools of the textfile: those of the devices file and the active
 * ones the monitor watches, sorted, each once. 0 or -errno. */
static int textfile_pools(const struct monitor *m, char ***out, unsigned *n)
{
	char **names;
	int r = pool_list_names(&names, n);

	if (r)
		return r;
	for (unsigned i = 0; i < m->n; i++) {
		char **grown;
		if (listed(names, *n, m->w[i]->pl.name))
			continue;
		if (!(grown = realloc(names, (*n + 1) * sizeof(*grown))) ||
		    !(grown[*n] = strdup(m->w[i]->pl.name))) {
			free_names(grown ? grown : names, *n);
			return -ENOMEM;
		}
		names = grown;
		(*n)++;
	}
	qsort(names, *n, sizeof(*names), cmp_name);
	*out = names;
	return 0;
}

/* Read pool NAME into REP. Warnings are left out (a round comes every few
 * seconds; tpstatus says them), and so are the errors of a pool that
 * could not be read the round before: its tptools_pool_up says it. */
static int textfile_read(struct textfile *t, struct prom_report *rep, const char *name)
{
	int v = tp_log_verbosity(), down = listed(t->down, t->ndown, name), r, up;

	tp_log_set_verbosity(down ? -2 : TP_MIN(v, -1));
	r = prom_add_pool(rep, name, NULL, 0, NULL, 0);
	tp_log_set_verbosity(v);
	if (r == -ENOMEM)
		return r;
	up = rep->pools[rep->n - 1].up;
	if (!up && !down)
		log_warn("pool %s: cannot be read (see above); %s says tptools_pool_up 0 for it "
			 "until it can", name, t->path);
	else if (up && down)
		log_notice("pool %s: can be read again; its metrics are back in %s", name, t->path);
	return 0;
}

/* Replace the textfile with the metrics of every pool: 0 or -errno. */
static int textfile_write(struct monitor *m)
{
	struct textfile *t = &m->tf;
	struct prom_report rep = { NULL, 0 };
	char **names = NULL, *buf = NULL;
	unsigned n = 0, nd = 0;
	size_t len = 0;
	FILE *f;
	int v = tp_log_verbosity(), r = textfile_pools(m, &names, &n);

	for (unsigned i = 0; !r && i < n; i++)
		r = textfile_read(t, &rep, names[i]);
	if (!r && !(f = open_memstream(&buf, &len)))
		r = -errno;
	else if (!r) {
		r = prom_write(&rep, f);
		if (fclose(f) && !r)
			r = -EIO;
	}
	if (!r) {
		/* the pools down this round, for the next one: NAMES keeps them */
		for (unsigned i = 0; i < n; i++) {
			if (!rep.pools[i].up)
				names[nd++] = names[i];
			else
				free(names[i]);
		}
		free_names(t->down, t->ndown);
		t->down = names;
		t->ndown = nd;
		names = NULL;
		/* a replace that fails every round is said once (atomic.h logs it) */
		tp_log_set_verbosity(t->failing ? -2 : v);
		r = tp_atomic_replace(t->path, TEXTFILE_TMP, 0644, buf, len);
		tp_log_set_verbosity(v);
		if (!r && t->failing)
			log_notice("%s is written again", t->path);
		t->failing = !!r;
	} else {
		log_error("cannot make the metrics for %s: %s; it is left as it was", t->path,
			  strerror(-r));
	}
	free_names(names, names ? n : 0);
	free(buf);
	prom_free(&rep);
	return r;
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

static int run(int once, int interval, int events, char *textfile)
{
	struct monitor m = { NULL, 0, events && !once, 0, { textfile, NULL, 0, 0 } };

	do {
		m.failed = 0;
		round_all(&m);
		if (!tp_critical_pending())
			trash_round(&m);
		if (textfile && !tp_critical_pending() && textfile_write(&m))
			m.failed = 1;
		if (!once && !tp_critical_pending())
			sleep_until_woken(interval);
	} while (!once && !tp_critical_pending());
	for (unsigned i = 0; i < m.n; i++) {
		stop_thread(m.w[i]);
		free(m.w[i]);
	}
	free(m.w);
	free_names(m.tf.down, m.tf.ndown);
	if (!once)
		log_notice("stopped");
	return m.failed ? TP_EXIT_FAILED : TP_EXIT_OK;
}

/* --textfile DIR: an existing directory, made absolute (a daemon runs in
 * /); *PATH its DIR/tptools.prom (NULL on ENOMEM). CLI_CONTINUE or 3. */
static int textfile_path(const struct tp_command *cmd, const char *dir, char **path)
{
	struct stat st;
	char *abs;

	*path = NULL;
	const char *why = stat(dir, &st) ? strerror(errno)
			  : !S_ISDIR(st.st_mode) ? "not a directory" : NULL;

	if (why)
		return cli_usage_error(cmd, "--textfile %s: %s; give the directory node_exporter's "
				       "textfile collector reads (its --collector.textfile.directory)",
				       dir, why);
	if (!(abs = realpath(dir, NULL)))
		return cli_usage_error(cmd, "--textfile %s: %s", dir, strerror(errno));
	if (asprintf(path, "%s/%s", strcmp(abs, "/") ? abs : "", TEXTFILE_NAME) < 0) {
		*path = NULL;
		log_error("--textfile %s: %s", dir, strerror(ENOMEM));
	}
	free(abs);
	return CLI_CONTINUE;
}

int cmd_tpmonitor(const struct tp_command *cmd, int argc, const char **argv)
{
	/* the defaults: tptools.conf's monitor section (its own defaults: 10 s,
	 * no textfile) */
	int once = 0, daemonize = 0, poll_only = 0, rc, nargs;
	int interval = (int)tp_config_int("monitor/interval");
	struct tp_lock *lock = NULL;
	const char **args, *textfile_dir = tp_config_str("monitor/textfile");
	char *textfile = NULL;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "once", '1', POPT_ARG_NONE, &once, 0,
		  "look at every active pool once, act, and exit (tests, cron)", NULL },
		{ "daemon", 'd', POPT_ARG_NONE, &daemonize, 0,
		  "run in the background (messages to the system log only)", NULL },
		{ "interval", 'i', POPT_ARG_INT, &interval, 0,
		  "seconds between looks at every pool, events or not (default 10, or "
		  "tptools.conf's monitor/interval)", "SECONDS" },
		{ "poll", '\0', POPT_ARG_NONE, &poll_only, 0,
		  "do not wait for the kernel's pool events: poll only", NULL },
		{ "textfile", '\0', POPT_ARG_STRING, &textfile_dir, 0,
		  "after every look, replace DIR/" TEXTFILE_NAME " with every pool's metrics "
		  "(node_exporter's textfile collector; default: tptools.conf's "
		  "monitor/textfile)", "DIR" },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 0, 0, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (interval < 1 || interval > 3600)
		rc = cli_usage_error(cmd, "--interval takes 1..3600 seconds, not %d", interval);
	else if (once && daemonize)
		rc = cli_usage_error(cmd, "--once and --daemon exclude each other");
	else if (textfile_dir && (rc = textfile_path(cmd, textfile_dir, &textfile)) == CLI_CONTINUE &&
		 !textfile)
		rc = TP_EXIT_FAILED;
	cli_end(&cli);
	if (rc != CLI_CONTINUE) {
		free(textfile);
		return rc;
	}
	rc = tp_lock_acquire("#monitor", TP_LOCK_EXCL | TP_LOCK_NOWAIT, &lock);
	if (rc == -EWOULDBLOCK) {
		log_error("another tpmonitor is running (it holds the #monitor lock); one "
			  "instance watches every pool");
		rc = TP_EXIT_FAILED;
		goto out;
	}
	if (rc) {
		log_error("cannot take the #monitor lock: %s", strerror(-rc));
		rc = TP_EXIT_FAILED;
		goto out;
	}
	rc = TP_EXIT_FAILED;
	if (daemonize && daemon(0, 0)) {
		log_error("cannot run in the background: %s", strerror(errno));
		goto out;
	}
	tp_log_syslog(!daemonize);
	if ((rc = setup_signals())) {
		log_error("cannot set up signals: %s", strerror(-rc));
		rc = TP_EXIT_FAILED;
		goto out;
	}
	if (!once)
		log_notice("started: every %d s%s%s%s", interval,
			   poll_only ? ", polling only" : ", and on pool events",
			   textfile ? "; metrics to " : "", textfile ? textfile : "");
	rc = run(once, interval, !poll_only, textfile);
out:
	tp_lock_release(lock);
	free(textfile);
	return rc;
}
