/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpchange / tvchange - change the settings a pool or a volume keeps in
 * its VG: the activation flag (--activate y|n) that `tpactivate --all`,
 * the boot unit and udev autoactivation honour, (tpchange) the monitoring
 * policy (--warn, --autoextend-threshold, --autoextend-by,
 * --autoextend-max), the over-provisioning limit (--max-overprovision) and the
 * when-full mode, and (tvchange) a volume's read-only flag (--readonly
 * y|n). Without an option they print the current settings. The options
 * given are one change: all checked, then one VG commit (change_apply). */
#include "lib/base/config.h"
#include "lib/base/critical.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/pool_owner.h"
#include "lib/pool/pool_lease.h"
#include "tools/cli.h"
#include "tools/cli_key.h"
#include "tools/monitor_opts.h"
#include "tools/pool_op.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct change {
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	int set, on;
	const struct monitor_args *monitor;	/* tpchange */
	const struct tp_command *cmd;
	int when_full;		/* tpchange --when-full: -1 not given, else enum pool_when_full */
	int set_ro, ro;	/* tvchange --readonly */
	const char *systemid;	/* tpchange --systemid: the new owner */
	int set_over;		/* tpchange --max-overprovision given */
	unsigned over;		/* ... its percent (0: none) */
	int lock;		/* tpchange --lock-type: -1 not given, 0 none, 1 sanlock */
	const char *meta_replace;	/* tpchange --meta-replace DEV */
	const char *meta_mirror;	/* tpchange --meta-mirror DEV */
	int integrity;		/* with it: dm-integrity under the legs (--meta-integrity) */
	int set_trash;		/* tpchange --trash-retention given */
	uint64_t trash;		/* ... its seconds (0: off) */
	unsigned format;	/* tpchange --metadata-format: 0 not given, else 1 or 2 */
	struct pool_key_change *keys;	/* tvchange --add-key/--change-key/--remove-key */
};

/* Apply the monitoring options given over P's policy; *NOW the result. */
static int change_monitor(struct pool *p, const struct change *c,
			  struct pool_monitor_policy *now)
{
	int given, rc;

	pool_get_monitor_policy(p, now);
	rc = monitor_args_apply(c->cmd, c->monitor, now, &given);
	if (rc != CLI_CONTINUE)
		return -EINVAL;
	return given ? pool_set_monitor_policy(p, now) : 0;
}

/* How many options C gives (each monitoring option counts). */
static unsigned options_given(const struct change *c)
{
	const struct monitor_args *a = c->monitor;

	return !!a->warn + !!a->threshold + !!a->by + !!a->max + !!a->device + !!c->set +
	       (c->when_full >= 0) + !!c->set_ro + !!c->systemid + !!c->set_over + (c->lock >= 0) +
	       !!c->meta_replace + !!c->meta_mirror + !!c->set_trash + !!c->format;
}

/* Every option given, checked and staged on the pool's VG in memory, then
 * written as one VG commit: all of them or none (pool.h
 * pool_settings_begin). Those that are only VG keys first; a lease area
 * is formatted just before the commit; --meta-mirror and --meta-replace
 * copy onto their new leg last, and their commit is the one that carries
 * every setting. 0 or -errno (nothing changed: the staged VG dropped). */
static int change_apply(struct pool *p, const struct change *c,
			struct pool_monitor_policy *m, int *unchanged)
{
	const char *vol = c->vol[0] ? c->vol : NULL;
	int r = pool_settings_begin(p);

	if (!r && !vol)
		r = change_monitor(p, c, m);
	if (!r && c->systemid)
		r = pool_set_system_id(p, c->systemid);
	if (!r && c->set_ro)
		r = pool_volume_set_readonly(p, vol, c->ro);
	if (!r && !vol && c->when_full >= 0)
		r = pool_set_when_full(p, (enum pool_when_full)c->when_full);
	if (!r && !vol && c->set_over)
		r = pool_set_max_overprovision(p, c->over);
	if (!r && !vol && c->set_trash)
		r = pool_volume_set_trash_retention(p, c->trash);
	if (!r && !vol && c->format)
		r = pool_set_metadata_format(p, c->format);
	if (!r && !vol && c->lock >= 0)
		r = pool_set_lock_type(p, c->lock,
				       (unsigned)tp_config_int("global/sanlock_io_timeout"));
	if (!r && c->set)
		r = pool_set_autoactivate(p, vol, c->on);
	if (!r && (c->meta_mirror || c->meta_replace)) {
		pool_settings_last(p);
		r = c->meta_mirror ? pool_meta_mirror_add(p, c->meta_mirror, c->integrity)
				   : pool_meta_replace(p, c->meta_replace);
	}
	/* every option given is the pool's setting already: nothing is
	 * written (no VG commit, no backup) */
	if (!r && (*unchanged = options_given(c) && pool_settings_unchanged(p)))
		pool_settings_abort(p);
	if (!r)
		r = pool_settings_commit(p);
	if (r) {
		pool_settings_abort(p);
		if (options_given(c) > 1)
			log_error("%s %s%s%s: none of the options given was applied; nothing was "
				  "changed", vol ? "volume" : "pool", c->pool, vol ? "/" : "",
				  vol ? vol : "");
		return r;
	}
	/* live, the kernel's table follows the when-full mode committed */
	if (!vol && c->when_full >= 0 &&
	    (r = pool_set_when_full(p, (enum pool_when_full)c->when_full)))
		log_error("pool %s: every setting given is committed, but the kernel still runs "
			  "the old when-full mode; run 'tpchange --when-full %s %s' again", c->pool,
			  c->when_full == POOL_WHEN_FULL_ERROR ? "error" : "queue", c->pool);
	return r;
}

/* tvchange --add-key, --change-key, --remove-key: what was done, and the
 * volumes sharing the key that keep their old keyslots. */
static int keys_lines(const struct change *c, const struct pool_key_result *res);

/* A signal that comes during the change waits for its end (critical.h);
 * the section is held here until what was done is said, so that a 130,
 * 143 or 129 after a committed change comes with its lines. */
static int keys_op(struct pool *p, void *arg)
{
	const struct change *c = arg;
	struct pool_key_result res;
	int r;

	tp_critical_begin();
	if (!(r = pool_crypt_key_change(p, c->vol, c->keys, &res))) {
		r = keys_lines(c, &res);
		fflush(stdout);
		/* ended by it (128 + the signal), even when it is ignored, as in
		 * a background job */
		if (tp_critical_pending()) {
			log_warn("pool %s: the key change of volume %s was made whole; the signal "
				 "that came meanwhile ends tvchange now", c->pool, c->vol);
			r = -EINTR;
		}
	}
	tp_critical_end();
	return r;
}

static int keys_lines(const struct change *c, const struct pool_key_result *res)
{
	if (tp_log_verbosity() < 0)
		return 0;
	for (unsigned i = 0; i < res->nr; i++) {
		const struct pool_key_volume *kv = &res->vols[i];

		printf("Volume %s/%s: ", c->pool, kv->vol);
		if (c->keys->op == POOL_KEY_ADD)
			printf("key added in keyslot %d", kv->new_slot);
		else if (c->keys->op == POOL_KEY_CHANGE)
			printf("key in keyslot %d changed into keyslot %d", kv->slot, kv->new_slot);
		else
			printf("key in keyslot %d removed", kv->slot);
		printf(" (%u chunk%s of its header written anew).\n", kv->chunks,
		       kv->chunks == 1 ? "" : "s");
	}
	if (res->others[0])
		printf("Volume %s/%s: snapshots and other volumes with the same volume key keep "
		       "their old keyslots: %s ('tvchange --with-snapshots' changes them too).\n",
		       c->pool, c->vol, res->others);
	if (res->kept[0])
		printf("Volume %s/%s: read-only volume%s with the same volume key keep%s %s old "
		       "keyslots: %s.\n", c->pool, c->vol, res->nr_kept == 1 ? "" : "s",
		       res->nr_kept == 1 ? "s" : "", res->nr_kept == 1 ? "its" : "their", res->kept);
	return 0;
}

static int change_op(struct pool *p, void *arg)
{
	const struct change *c = arg;
	const char *vol = c->vol[0] ? c->vol : NULL;
	struct pool_monitor_policy m;
	char policy[160];
	struct pool_info info;
	char was[160];
	int r, unchanged = 0;
	/* what the writer's open wrote (each said above): a stale or damaged
	 * VG copy rewritten, an interrupted change finished */
	unsigned rewrote = pool_copy_rewrites(p), finished = pool_commits(p) - rewrote;
	char opened[128] = "";

	pool_get_monitor_policy(p, &m);
	snprintf(was, sizeof(was), "%s", pool_owner(p));
	if (c->systemid && pool_is_foreign(p) &&
	    !cli_confirm("Take pool %s from the host whose system id is \"%s\"? If that host "
			 "still uses the pool, both writing destroy it.", c->pool, was)) {
		log_error("pool %s not taken over", c->pool);
		return -ECANCELED;
	}
	/* without an option (a reader's open) only the settings are shown,
	 * and the removals under way said (as tpstatus does; the open of any
	 * change finishes them) */
	if (options_given(c) && (r = change_apply(p, c, &m, &unchanged)))
		return r;
	if (!options_given(c) && !vol)
		pool_volume_removals_say(p);
	if (finished || rewrote)
		snprintf(opened, sizeof(opened), "; the open %s%s%s said above",
			 finished ? "finished the interrupted change" : "",
			 finished && rewrote ? " and " : "",
			 rewrote ? "rewrote the stale or damaged VG metadata copy" : "");
	if (unchanged && tp_log_verbosity() >= 0)
		printf("%s %s%s%s: nothing changed%s (every setting given is so already)%s.\n",
		       vol ? "Volume" : "Pool", c->pool, vol ? "/" : "", vol ? vol : "",
		       opened[0] ? " by the options given" : "", opened);
	if (c->meta_mirror && tp_log_verbosity() >= 0)
		printf("Pool %s: thin metadata mirrored onto %s.\n", c->pool, c->meta_mirror);
	if (c->meta_replace && tp_log_verbosity() >= 0)
		printf("Pool %s: metadata mirror %s, its out leg now on %s.\n", c->pool,
		       pool_meta_health(p), c->meta_replace);
	if (c->systemid && pool_is_foreign(p))
		log_warn("pool %s taken over from the host whose system id is \"%s\" (--foreign "
			 "--force)", c->pool, was);
	/* (the pool's settings, not its every volume's) */
	if (!vol && (r = pool_get_info(p, POOL_INFO_NO_VOLUMES, &info)) == 0)
		pool_info_free(&info);
	if (!r)
		r = pool_get_autoactivate(p, vol);
	if (r < 0)
		return r;
	if (tp_log_verbosity() >= 0 && (!vol || c->set || !c->set_ro)) {
		if (vol) {
			printf("Volume %s/%s: activate %s.\n", c->pool, vol, r ? "y" : "n");
		} else {
			char over[48] = "unlimited";

			monitor_policy_format(&m, policy, sizeof(policy));
			if (info.max_overprovision)
				snprintf(over, sizeof(over), "at most %u.%02u x its data size",
					 info.max_overprovision / 100, info.max_overprovision % 100);
			printf("Pool %s: activate %s; when full %s; %s; over-provisioning %s.\n",
			       c->pool, r ? "y" : "n",
			       info.when_full == POOL_WHEN_FULL_ERROR ? "error" : "queue", policy, over);
		}
	}
	if (!vol && tp_log_verbosity() >= 0 && (c->lock >= 0 || pool_is_shared(p))) {
		if (!pool_is_shared(p))
			printf("Pool %s: lock type none.\n", c->pool);
		else if ((r = pool_get_info(p, POOL_INFO_NO_VOLUMES, &info)) == 0) {
			printf("Pool %s: lock type sanlock (a lease area at %llu on %s, io_timeout "
			       "%u s: a dead host's lease is free %llu s after its last "
			       "renewal).\n", c->pool, (unsigned long long)info.lease_offset,
			       info.dev_path[POOL_ROLE_META], info.io_timeout,
			       (unsigned long long)pool_lease_dead_seconds(info.io_timeout));
			pool_info_free(&info);
		}
		r = 0;
	}
	if (!vol && tp_log_verbosity() >= 0 && (c->systemid || pool_owner(p)[0])) {
		if (c->systemid && strcmp(was, c->systemid))
			printf("Pool %s: owner %s%s%s (was %s%s%s).\n", c->pool,
			       c->systemid[0] ? "\"" : "", c->systemid[0] ? c->systemid : "none",
			       c->systemid[0] ? "\"" : "", was[0] ? "\"" : "", was[0] ? was : "none",
			       was[0] ? "\"" : "");
		else
			printf("Pool %s: owner %s%s%s.\n", c->pool, was[0] ? "\"" : "",
			       was[0] ? was : "none", was[0] ? "\"" : "");
	}
	if (!vol && tp_log_verbosity() >= 0 && (c->set_trash || pool_volume_trash_retention(p))) {
		char keep[24];

		if (pool_volume_trash_retention(p))
			printf("Pool %s: trash retention %s (tvremove keeps a removed volume in the "
			       "trash that long: 'tpstatus --trash %s' lists it).\n", c->pool,
			       tp_duration_format(pool_volume_trash_retention(p), keep, sizeof(keep)),
			       c->pool);
		else
			printf("Pool %s: trash retention off (tvremove removes at once).\n", c->pool);
	}
	if (!vol && tp_log_verbosity() >= 0 && (c->format || pool_metadata_format(p) != 2))
		printf("Pool %s: VG metadata format %u (%s).\n", c->pool, pool_metadata_format(p),
		       pool_metadata_format(p) == 2
			       ? "a change writes a record of what changed; tptools before format "
				 "2 cannot read the pool"
			       : "a change writes the whole VG text; 'tpchange --metadata-format 2' "
				 "makes changes near-constant in the volume count");
	if (vol && (c->set_ro || !c->set) && (r = pool_volume_get_readonly(p, vol)) < 0)
		return r;
	if (vol && (c->set_ro || !c->set) && tp_log_verbosity() >= 0)
		printf("Volume %s/%s: read-only %s.\n", c->pool, vol, r ? "y" : "n");
	return 0;
}

/* Before a key is asked for a key change: a pool that cannot be opened,
 * that the kernel runs, or whose volume VOL is missing, plain or
 * read-only refuses it anyway (a read-only open says which, holding no
 * lock while the terminal waits). CLI_CONTINUE or the exit code (said). */
static int keys_first(const char *pool, const char *vol, const char *devices)
{
	const struct pool_volume_info *v = NULL;
	struct pool_info info;
	struct pool *p = NULL;
	int r = pool_open(pool, devices, POOL_RDONLY, &p), rc = CLI_CONTINUE;

	if (r)
		return tp_exit_from_errno(r);
	if (pool_is_live(p)) {
		log_error("pool %s is active in the kernel: tvchange changes an encrypted volume's "
			  "keys offline; deactivate the pool first ('tpdeactivate %s'); nothing was "
			  "changed", pool, pool);
		rc = TP_EXIT_FAILED;
	} else if ((r = pool_get_info(p, 0, &info))) {
		rc = tp_exit_from_errno(r);
	} else {
		for (unsigned i = 0; i < info.nr_volumes && !v; i++)
			if (!strcmp(info.volumes[i].name, vol))
				v = &info.volumes[i];
		if (!v)
			rc = tp_exit_from_errno(pool_volume_missing(p, vol));
		else if (!v->luks_uuid[0]) {
			log_error("volume %s/%s is not encrypted: it has no keys to change (tvcreate "
				  "--encrypt makes an encrypted volume)", pool, vol);
			rc = TP_EXIT_USAGE;
		} else if (v->read_only) {
			log_error("volume %s/%s is read-only: a key change rewrites its header, which "
				  "offline writers refuse ('tvchange --readonly n %s/%s' makes it "
				  "writable); nothing was changed", pool, vol, pool, vol);
			rc = TP_EXIT_FAILED;
		}
		pool_info_free(&info);
	}
	pool_close(p);
	return rc;
}

/* tvchange's key-change options into *KC (*OUT set to it when one was
 * given, else NULL): CLI_CONTINUE or 3. SETTINGS: --activate or
 * --readonly given too. */
static int parse_keys(const struct tp_command *cmd, const struct cli_key *key, int add,
		      int change, int remove, const char *new_key_file, int with_snapshots,
		      int settings, struct pool_key_change *kc, struct pool_key_change **out)
{
	int rc = CLI_CONTINUE;

	*out = NULL;
	memset(kc, 0, sizeof(*kc));
	if (add + change + remove > 1)
		return cli_usage_error(cmd, "--add-key, --change-key and --remove-key go one at a "
					    "time");
	if (!add && !change && !remove) {
		if (cli_key_given(key) || cli_pbkdf_given(key) || new_key_file || with_snapshots)
			return cli_usage_error(cmd, "--%s goes with a key change (--add-key, "
						    "--change-key or --remove-key)",
					       key->file ? "key-file" : key->keyring ? "key-keyring"
					       : new_key_file ? "new-key-file" : with_snapshots
					       ? "with-snapshots" : "pbkdf and its like");
		return CLI_CONTINUE;
	}
	if (settings)
		return cli_usage_error(cmd, "a key change goes alone: --activate and --readonly are "
					    "a change of their own (run tvchange twice)");
	kc->op = add ? POOL_KEY_ADD : change ? POOL_KEY_CHANGE : POOL_KEY_REMOVE;
	kc->with_snapshots = with_snapshots;
	if (remove && (new_key_file || cli_pbkdf_given(key)))
		return cli_usage_error(cmd, "--remove-key takes no new key (--new-key-file, --pbkdf "
					    "and its like go with --add-key and --change-key)");
	if (new_key_file && !strcmp(new_key_file, "-") && key->file && !strcmp(key->file, "-"))
		return cli_usage_error(cmd, "--key-file - and --new-key-file - cannot both read "
					    "standard input: give one of them a file");
	if (!remove && (rc = cli_pbkdf(cmd, key, &kc->pbkdf)) != CLI_CONTINUE)
		return rc;
	*out = kc;
	return CLI_CONTINUE;
}

static int run(const struct tp_command *cmd, int argc, const char **argv, int volume)
{
	const char **args, *devices = NULL, *activate = NULL;
	struct monitor_args monitor = { NULL, NULL, NULL, NULL };
	const char *when_full = NULL, *readonly = NULL, *over = NULL, *trash = NULL;
	const char *format = NULL;
	struct change c = { "", "", 0, 1, &monitor, NULL, -1, 0, 0, NULL, 0, 0, -1, NULL, NULL, 1 };
	const char *lock_type = NULL, *integrity = NULL, *new_key_file = NULL;
	int rc, nargs, foreign = 0, force = 0, add_key = 0, change_key = 0, remove_key = 0;
	int with_snapshots = 0;
	struct cli_key key = { NULL };
	struct pool_key_change kc;
	struct pool_key *k = NULL, *nk = NULL;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "activate", 'a', POPT_ARG_STRING, &activate, 0,
		  volume ? "activated with its pool by tpactivate --all and at boot (y) or not (n)"
			 : "activated by tpactivate --all, at boot and by udev (y) or not (n)",
		  "y|n" },
		{ "when-full", '\0', POPT_ARG_STRING, &when_full, 0,
		  "when the data area is full: queue writes or fail them (live: a table reload)",
		  "queue|error" },
		CLI_OPT_MONITOR(monitor),
		{ "max-overprovision", '\0', POPT_ARG_STRING, &over, 0, OVERPROVISION_HELP,
		  "RATIO|none" },
		{ "trash-retention", '\0', POPT_ARG_STRING, &trash, 0,
		  "how long tvremove keeps a removed volume in the pool's trash (off: it removes "
		  "at once)", "DURATION|off" },
		{ "metadata-format", '\0', POPT_ARG_STRING, &format, 0,
		  "write the pool's VG metadata in format 2 (a record per change; tptools before "
		  "format 2 cannot read the pool) or 1 (the whole text per change); given alone",
		  "1|2" },
		{ "systemid", '\0', POPT_ARG_STRING, &c.systemid, 0,
		  "hand the pool over to the host with this system id (\"\": to no owner); "
		  "offline", "ID" },
		{ "meta-mirror", '\0', POPT_ARG_STRING, &c.meta_mirror, 0,
		  "mirror the thin metadata onto DEV as well", "DEV" },
		{ "meta-integrity", '\0', POPT_ARG_STRING, &integrity, 0,
		  "with --meta-mirror: dm-integrity under each leg when both devices have room "
		  "(default y)", "y|n" },
		{ "meta-replace", '\0', POPT_ARG_STRING, &c.meta_replace, 0,
		  "put the metadata mirror's missing or stale leg on DEV and resync it", "DEV" },
		{ "lock-type", '\0', POPT_ARG_STRING, &lock_type, 0,
		  "sanlock: make the pool a shared pool, written by one host at a time (a lease "
		  "area on its metadata device); none: a pool of one host again; offline",
		  "none|sanlock" },
		{ "foreign", '\0', POPT_ARG_NONE, &foreign, 0,
		  "with --systemid and --force: take a pool another host owns (that host is gone)",
		  NULL },
		{ "force", 'f', POPT_ARG_NONE, &force, 0, "with --foreign", NULL },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};
	/* tvchange: --activate, --readonly, the key changes and --devices */
	struct poptOption vopts[] = {
		opts[0],
		{ "readonly", 'r', POPT_ARG_STRING, &readonly, 0,
		  "read-only: activated read-only, offline writers refuse it (y), or writable (n)",
		  "y|n" },
		{ "add-key", '\0', POPT_ARG_NONE, &add_key, 0,
		  "an encrypted volume: add a keyslot for the new key (offline)", NULL },
		{ "change-key", '\0', POPT_ARG_NONE, &change_key, 0,
		  "an encrypted volume: replace the existing key's keyslot by the new key's "
		  "(offline)", NULL },
		{ "remove-key", '\0', POPT_ARG_NONE, &remove_key, 0,
		  "an encrypted volume: remove the existing key's keyslot, never the last "
		  "(offline)", NULL },
		CLI_OPT_KEY(key, "with a key change: the existing key: "),
		{ "new-key-file", '\0', POPT_ARG_STRING, &new_key_file, 0,
		  "with --add-key or --change-key: the new key is this file's whole content (- for "
		  "standard input); default: a passphrase asked twice on the terminal", "FILE" },
		{ "with-snapshots", '\0', POPT_ARG_NONE, &with_snapshots, 0,
		  "with a key change: every writable volume sharing the volume key too, in the "
		  "same change", NULL },
		CLI_OPT_PBKDF(key, "with --add-key or --change-key: "),
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	/* before popt, which keeps the last of a repeated option (and leaks
	 * the others) */
	if (volume && (rc = cli_key_repeated(cmd, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_parse(&cli, cmd, volume ? vopts : opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	c.set = activate != NULL;
	c.cmd = cmd;
	if (c.set)
		rc = cli_parse_activate(cmd, activate, &c.on);
	c.set_ro = readonly != NULL;
	if (rc == CLI_CONTINUE && c.set_ro)
		rc = cli_parse_yes_no(cmd, "--readonly", readonly, &c.ro);
	if (rc == CLI_CONTINUE && when_full) {
		if (!strcmp(when_full, "queue") || !strcmp(when_full, "error"))
			c.when_full = when_full[0] == 'e' ? POOL_WHEN_FULL_ERROR : POOL_WHEN_FULL_QUEUE;
		else
			rc = cli_usage_error(cmd, "--when-full takes queue or error, not '%s'",
					     when_full);
	}
	if (rc == CLI_CONTINUE) {
		/* the syntax, before the pool is opened; change_op applies them */
		struct pool_monitor_policy probe;
		int given;
		pool_monitor_policy_default(&probe);
		rc = monitor_args_apply(cmd, &monitor, &probe, &given);
	}
	if (rc == CLI_CONTINUE && over) {
		c.set_over = 1;
		if (overprovision_parse(over, &c.over))
			rc = cli_usage_error(cmd, "--max-overprovision takes a ratio greater than 0 "
						  "with at most two decimals (1 = no "
						  "over-provisioning) or none, not '%s'", over);
	}
	if (rc == CLI_CONTINUE && trash) {
		char why[128];

		c.set_trash = 1;
		if (tp_duration_parse(trash, &c.trash, why, sizeof(why)))
			rc = cli_usage_error(cmd, "--trash-retention takes a duration (12h, 7d: s, m, "
						  "h, d or w) or off, not '%s': %s", trash, why);
	}
	if (rc == CLI_CONTINUE && format) {
		if (!strcmp(format, "1") || !strcmp(format, "2"))
			c.format = (unsigned)(format[0] - '0');
		else
			rc = cli_usage_error(cmd, "--metadata-format takes 1 or 2, not '%s'", format);
	}
	/* alone: a commit of format 2 that carried another change would let a
	 * tptools of format 1, stopped short of it, read the pool without it */
	if (rc == CLI_CONTINUE && c.format && options_given(&c) > 1)
		rc = cli_usage_error(cmd, "--metadata-format is a change of its own: give it "
					  "without other options, then the others");
	if (rc == CLI_CONTINUE && integrity) {
		rc = cli_parse_yes_no(cmd, "--meta-integrity", integrity, &c.integrity);
		if (rc == CLI_CONTINUE && !c.meta_mirror)
			rc = cli_usage_error(cmd, "--meta-integrity goes with --meta-mirror DEV (a "
						  "mirrored pool's own is chosen when it is made)");
	}
	if (rc == CLI_CONTINUE && lock_type) {
		if (!strcmp(lock_type, "none") || !strcmp(lock_type, "sanlock"))
			c.lock = lock_type[0] == 's';
		else
			rc = cli_usage_error(cmd, "--lock-type takes none or sanlock, not '%s'",
					     lock_type);
	}
	if (rc == CLI_CONTINUE)
		rc = cli_device_kind(cmd, "--autoextend-device", monitor.device);
	if (rc == CLI_CONTINUE)
		rc = cli_device_kind(cmd, "--meta-mirror", c.meta_mirror);
	if (rc == CLI_CONTINUE)
		rc = cli_device_kind(cmd, "--meta-replace", c.meta_replace);
	if (rc == CLI_CONTINUE && c.meta_mirror && c.meta_replace)
		rc = cli_usage_error(cmd, "--meta-mirror and --meta-replace exclude each other: the "
					  "first mirrors a pool of one metadata device, the second "
					  "replaces a leg of a mirror");
	/* one device cannot be both the new metadata leg and the device the
	 * monitor is to add as data */
	if (rc == CLI_CONTINUE && monitor.device && (c.meta_mirror || c.meta_replace) &&
	    pool_same_device_named(monitor.device,
				   c.meta_mirror ? c.meta_mirror : c.meta_replace))
		rc = cli_usage_error(cmd, "--autoextend-device %s is the device --%s names: the "
					  "metadata mirror's leg cannot also be added as a data "
					  "device; name another one (or none)", monitor.device,
				     c.meta_mirror ? "meta-mirror" : "meta-replace");
	if (rc == CLI_CONTINUE && c.systemid && c.lock >= 0)
		rc = cli_usage_error(cmd, "--systemid and --lock-type exclude each other: a shared "
					  "pool has no owner, and --lock-type none makes it this "
					  "host's");
	if (rc == CLI_CONTINUE && (foreign || force) && !(foreign && force && c.systemid))
		rc = cli_usage_error(cmd, "--foreign and --force go together, with --systemid ID: "
					  "they take a pool from a host that is gone");
	if (rc == CLI_CONTINUE && volume)
		rc = parse_keys(cmd, &key, add_key, change_key, remove_key, new_key_file,
				with_snapshots, c.set || c.set_ro, &kc, &c.keys);
	if (rc == CLI_CONTINUE && c.keys && pool_split_volume_spec(args[0], c.pool, c.vol))
		rc = TP_EXIT_USAGE;
	if (rc == CLI_CONTINUE && c.keys) {
		/* the keys before the pool is opened: a prompt holds no lock */
		char what[2 * POOL_NAME_MAX + 48];
		struct pool_key_source src, nsrc = { POOL_KEY_TERMINAL, NULL };

		snprintf(what, sizeof(what), "volume %s/%s", c.pool, c.vol);
		rc = keys_first(c.pool, c.vol, devices);
		if (new_key_file)
			nsrc = (struct pool_key_source){ POOL_KEY_FILE, new_key_file };
		if (rc == CLI_CONTINUE && (rc = cli_key_source(cmd, &key, &src)) == CLI_CONTINUE)
			rc = cli_key_read(&src, what, 0, &k);
		kc.key = k;
		if (rc == CLI_CONTINUE && kc.op != POOL_KEY_REMOVE) {
			rc = cli_key_read(&nsrc, what, POOL_KEY_NEW | POOL_KEY_REPLACES, &nk);
		}
		kc.new_key = nk;
		if (rc == CLI_CONTINUE)
			rc = tool_pool_op(c.pool, devices, keys_op, &c);
		pool_key_free(k);
		pool_key_free(nk);
		cli_end(&cli);
		return rc;
	}
	if (rc == CLI_CONTINUE) {
		if (volume && pool_split_volume_spec(args[0], c.pool, c.vol))
			rc = TP_EXIT_USAGE;
		else if (!volume && strlen(args[0]) > POOL_NAME_MAX)
			rc = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
		else {
			if (!volume)
				strcpy(c.pool, args[0]);
			unsigned replace = POOL_META_LEG0_LOST_OK | POOL_META_KEEP_STALE;
			/* without an option only a display: a reader's open, which
			 * writes nothing (a stale VG copy is said, not rewritten) */
			unsigned show = options_given(&c) ? 0 : POOL_RDONLY;

			rc = tool_pool_op_flags(c.pool, devices, (foreign ? POOL_FOREIGN_OK : 0) |
							   (c.meta_replace ? replace : 0) | show,
						change_op, &c);
		}
	}
	cli_end(&cli);
	return rc;
}

int cmd_tpchange(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 0);
}

int cmd_tvchange(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 1);
}
