/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpactivate / tpdeactivate - load a pool and its volumes into the
 * kernel's dm thin-pool/thin targets, or unload them. With --all (every
 * known pool) or --auto POOL|DEVICE... (udev autoactivation) only
 * the pools whose devices are all present and the pools and volumes
 * flagged "activate y" come up; one pool failing does not stop the
 * others, and a summary line ends the run. */
#include "lib/base/config.h"
#include "lib/base/exitcodes.h"
#include "lib/base/lock.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_lease.h"
#include "tools/cli.h"
#include "tools/cli_key.h"
#include "tools/pool_op.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct activation {
	const char *pool;
	const char *const *vols;	/* none: the pool and all its volumes */
	unsigned n;
	int activate;
};

static int activation_op(struct pool *p, void *arg)
{
	const struct activation *a = arg;
	const char *state = a->activate ? "active" : "inactive";
	unsigned locked = pool_unlock_left_locked();
	int r = a->activate ? pool_activate(p, a->vols, a->n) : pool_deactivate(p, a->vols, a->n);

	locked = pool_unlock_left_locked() - locked;
	if (r)
		return r;
	if (tp_log_verbosity() >= 0) {
		if (a->n)
			printf("Pool %s: %u volume(s) %s", a->pool, a->n - locked, state);
		else
			printf("Pool %s %s", a->pool, state);
		if (locked)
			printf("; %u encrypted volume(s) left locked", locked);
		printf(".\n");
	}
	/* a volume left locked (said above, with the way to unlock it): the
	 * others are up, the command did not do all it was asked (exit 5) */
	return locked ? -EACCES : 0;
}

/* What happened to each pool of a --all/--auto run. */
enum outcome { DONE, SKIPPED, FAILED };

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	if (tp_log_verbosity() < 0)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* One pool as at boot: devices all there, flagged y, then activate. */
static enum outcome auto_one(const char *name, int activate)
{
	struct pool *p = NULL;
	unsigned nr = 0, locked = pool_unlock_left_locked();
	int r = pool_devices_present(name);

	if (r <= 0) {
		if (!r)
			say("Pool %s: not all of its devices are present; left as it is.\n", name);
		return r ? FAILED : SKIPPED;
	}
	if ((r = pool_open(name, NULL, POOL_FOREIGN_QUIET | POOL_META_LEG0_LOST_OK |
					  (activate ? POOL_LEASE_KEEP | POOL_META_KEEP_STALE : 0),
			   &p))) {
		/* deactivating, a pool that cannot be opened (its metadata
		 * damaged, said above) but has nothing in the kernel is
		 * inactive already: left as it is, as tpdeactivate(8) says */
		if (!activate && r != -EREMOTE && pool_name_loaded(name) == 0) {
			say("Pool %s: not active; left as it is.\n", name);
			return SKIPPED;
		}
		/* a shared pool another host holds: its host runs it (any other
		 * busy case, a device in use here, is a failure, said above) */
		if (r == -EUSERS) {
			uint64_t h = pool_lease_refused_by();

			if (h)
				say("Pool %s: skipped (host %llu holds its sanlock lease: the pool "
				    "is active there, or a change runs there).\n", name,
				    (unsigned long long)h);
			else
				say("Pool %s: skipped (another host holds its sanlock lease).\n",
				    name);
			return SKIPPED;
		}
		if (r == -ENOTCONN && activate) {
			say("Pool %s: a shared pool, and this host's sanlock daemon does not "
			    "answer: left for tptools-activate-shared.service (after "
			    "sanlock.service).\n", name);
			return SKIPPED;
		}
		if (r != -EREMOTE)
			return FAILED;
		/* another host's pool: never activated at boot or by udev */
		say("Pool %s: skipped (another host owns it; 'tpstatus -o +pool_system_id' "
		    "names it).\n", name);
		return SKIPPED;
	}
	if (activate && pool_get_autoactivate(p, NULL) == 0) {
		say("Pool %s: skipped (activation flag n).\n", name);
		pool_close(p);
		return SKIPPED;
	}
	if (activate)
		r = pool_autoactivate(p, &nr);
	else if (pool_is_live(p))
		r = pool_deactivate(p, NULL, 0);
	else
		r = 1;
	pool_close(p);
	if (r < 0)
		return FAILED;
	if (r > 0) {
		if (tp_log_verbosity() > 0)
			printf("Pool %s: not active.\n", name);
		return SKIPPED;
	}
	if (activate && locked != pool_unlock_left_locked())
		say("Pool %s active, %u volume(s), %u encrypted volume(s) of them left locked.\n",
		    name, nr, pool_unlock_left_locked() - locked);
	else if (activate)
		say("Pool %s active, %u volume(s).\n", name, nr);
	else
		say("Pool %s inactive.\n", name);
	return DONE;
}

/* --auto takes a pool's device too (/dev/block/MAJ:MIN from the udev
 * rule's unit instance): its label names the pool. NULL if it has none,
 * or if it is a component of another device (an md member: the array's
 * own event activates the pool; M->stacked says so). */
static const char *pool_of(const char *arg, struct pool_member *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	if (!strchr(arg, '/'))
		return arg;
	r = pool_member_probe(arg, m);
	if (r < 0)
		log_error("%s: cannot read its label: %s", arg, strerror(-r));
	else if (!r && m->stacked[0])
		say("skipping %s: %s.\n", arg, m->stacked);
	else if (!r || m->damaged)
		log_error("%s carries no (readable) tptools label", arg);
	return r > 0 && !m->damaged ? m->pool : NULL;
}

/* --all (NAMES NULL: every known pool) or --auto NAMES; the waits for
 * pools' locks take at most LOCK_WAIT seconds in all (a boot that a hung
 * holder must not stall): a pool whose lock is still held then fails,
 * its holder named (lock.c), and the next ones are tried at once. */
static int auto_run(const char *const *names, unsigned n, int activate, unsigned lock_wait)
{
	char **all = NULL;
	unsigned count[3] = { 0, 0, 0 }, i;
	int r;

	tp_lock_writers_budget(lock_wait);
	if (!names) {
		if ((r = pool_list_all_names(&all, &n)))
			return tp_exit_from_errno(r);
		names = (const char *const *)all;
	}
	for (i = 0; i < n; i++) {
		struct pool_member m;
		const char *name = pool_of(names[i], &m);
		count[name ? auto_one(name, activate) : m.stacked[0] ? SKIPPED : FAILED]++;
	}
	for (i = 0; all && i < n; i++)
		free(all[i]);
	free(all);
	if (tp_log_verbosity() >= 0) {
		printf("%u pool(s) %sactivated, %u left as they were, %u failed", count[DONE],
		       activate ? "" : "de", count[SKIPPED], count[FAILED]);
		if (pool_unlock_left_locked())
			printf("; %u encrypted volume(s) left locked", pool_unlock_left_locked());
		printf(".\n");
	}
	return count[FAILED] || pool_unlock_left_locked() ? TP_EXIT_FAILED : TP_EXIT_OK;
}

static int run(const struct tp_command *cmd, int argc, const char **argv, int activate)
{
	const char **args, *devices = NULL;
	int rc, nargs, all = 0, autom = 0, allow = 0, lock_wait = INT_MIN;
	const char *lock_wait_s = NULL;
	struct cli_key key = { NULL };
	struct pool_key *k = NULL;
	struct cli cli;
	const struct poptOption key_opts[] = {
		CLI_OPT_KEY(key, "unlock the encrypted volumes activated: "),
		POPT_TABLEEND
	};
	const struct poptOption opts[] = {
		{ "all", 'a', POPT_ARG_NONE, &all, 0,
		  activate ? "every pool whose devices are all present, except those flagged "
			     "'activate n' (and their volumes so flagged)"
			   : "every active pool",
		  NULL },
		{ "auto", '\0', POPT_ARG_NONE, &autom, 0,
		  "the POOLs named (or the pools of the DEVICEs named), by the rules of --all",
		  NULL },
		{ "lock-wait", '\0', POPT_ARG_STRING, &lock_wait_s, 0,
		  "with --all/--auto: wait at most SECONDS in all (time spent waiting) for the "
		  "locks of pools other commands hold, then leave those pools as they are "
		  "(decimal, 0..3600; default 60, or tptools.conf's activate/lock_wait)",
		  "SECONDS" },
		CLI_OPT_DEVICES(devices),
		CLI_OPT_ALLOW_COMPONENT(allow),
		{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, (void *)(activate ? key_opts : key_opts + TP_ARRAY_SIZE(key_opts) - 1), 0,
		  activate ? "Encrypted volumes:" : NULL, NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (lock_wait_s) {
		/* plain decimal seconds: not "" (an unset variable), no octal
		 * or hex by a leading 0 or 0x */
		size_t n = strspn(lock_wait_s, "0123456789");

		lock_wait = n && !lock_wait_s[n] && n <= 4 ? atoi(lock_wait_s) : -1;
	}
	if (cli_key_given(&key) && (all || autom))
		rc = cli_usage_error(cmd, "--%s goes with a POOL and its VOLUMEs, not with --%s "
				     "(the key directory serves those)",
				     key.file ? "key-file" : "key-keyring", all ? "all" : "auto");
	else if (key.file && !*key.file)
		rc = cli_usage_error(cmd, "--key-file needs a FILE ('-' for standard input)");
	else if (all && (autom || nargs))
		rc = cli_usage_error(cmd, "--all takes no POOL (and no --auto)");
	else if (lock_wait != INT_MIN && (lock_wait < 0 || lock_wait > 3600))
		rc = cli_usage_error(cmd, "--lock-wait takes 0..3600 seconds, not '%s'",
				     lock_wait_s);
	else if (lock_wait != INT_MIN && !all && !autom)
		rc = cli_usage_error(cmd, "--lock-wait goes with --all or --auto (a POOL named "
				     "waits for its lock as every change does)");
	else if (allow && !devices)
		rc = cli_usage_error(cmd, "--allow-component goes with --devices DATA,META");
	else if ((all || autom) && devices)
		rc = cli_usage_error(cmd, "--devices names one pool's devices; not with --%s",
				     all ? "all" : "auto");
	else if (!all && !nargs)
		rc = cli_usage_error(cmd, "name a POOL, or give --all");
	else if (all || autom)
		rc = auto_run(all ? NULL : args, all ? 0 : (unsigned)nargs, activate,
			      lock_wait != INT_MIN ? (unsigned)lock_wait
					      : (unsigned)tp_config_int("activate/lock_wait"));
	else {
		struct activation a = { args[0], args + 1, (unsigned)nargs - 1, activate };
		struct pool_key_source src;
		char what[300], label[300];

		rc = CLI_CONTINUE;
		if (cli_key_given(&key) &&
		    (rc = cli_key_source(cmd, &key, &src)) == CLI_CONTINUE) {
			/* read once, before the pool is opened: a key that cannot
			 * be had is the input that is wrong (exit 3), nothing done */
			snprintf(what, sizeof(what), "the encrypted volumes of pool %s", args[0]);
			if ((rc = cli_key_read(&src, what, 0, &k)) == CLI_CONTINUE) {
				snprintf(label, sizeof(label), "%s%s",
					 key.file ? "" : "keyring key ",
					 key.file ? key.file : key.keyring);
				pool_unlock_key(k->data, k->len, label);
			}
		}
		if (rc == CLI_CONTINUE)
			rc = tool_pool_op_flags(args[0], devices,
					(allow ? POOL_ALLOW_COMPONENT : 0) | POOL_META_LEG0_LOST_OK |
						(activate ? POOL_LEASE_KEEP | POOL_META_KEEP_STALE |
								    POOL_ACTIVATE : 0),
					activation_op, &a);
		pool_unlock_key(NULL, 0, NULL);
		pool_key_free(k);
	}
	cli_end(&cli);
	return rc;
}

int cmd_tpactivate(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 1);
}

int cmd_tpdeactivate(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 0);
}
