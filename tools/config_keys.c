/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_keys.c - see config_keys.h. The defaults here are the commands'
 * own defaults, so that `tpconfig` shows what a command does when neither
 * the file nor an option says otherwise. */
#include "tools/config_keys.h"

#include "lib/base/devfilter.h"
#include "lib/base/exitcodes.h"
#include "lib/base/sysid.h"
#include "lib/base/units.h"
#include "lib/pool/policy.h"
#include "tools/monitor_opts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One of the words of K->values ("a|b|c"). */
static int check_choice(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	const char *p = k->values;
	size_t n = strlen(v);

	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);
		if (l == n && !strncmp(p, v, n))
			return 0;
		p = bar ? bar + 1 : NULL;
	}
	snprintf(why, len, "takes %s", k->values);
	return -1;
}

/* create/chunk, create/metadata_size: tpcreate's parse and range check
 * of --chunk and --metadata-size (tpcreate.c: parse_auto_size). */
static int check_auto_size(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	int chunk = !strcmp(k->path, "create/chunk");
	uint64_t bytes;
	char msg[200];

	if (tp_policy_parse_auto_size(k->path, v, chunk ? 'k' : 'm', &bytes, msg, sizeof(msg))) {
		snprintf(why, len, "takes auto or a size (%s)", msg);
		return -1;
	}
	if (!bytes || !(chunk ? tp_policy_chunk_valid(NULL, bytes, msg, sizeof(msg))
			      : tp_policy_meta_size_valid(NULL, bytes, msg, sizeof(msg))))
		return 0;
	snprintf(why, len, "takes auto or a size tpcreate accepts (%s)", msg);
	return -1;
}

/* backup/max_size: a size above 0 (a bare number is MiB). */
static int check_size(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	uint64_t bytes;
	char msg[160];

	(void)k;
	if (tp_size_parse(v, 'm', &bytes, msg, sizeof(msg))) {
		snprintf(why, len, "takes a size (%s)", msg);
		return -1;
	}
	if (!bytes) {
		snprintf(why, len, "takes a size above 0");
		return -1;
	}
	return 0;
}

static int check_monitor(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	struct pool_monitor_policy m;
	enum monitor_value what = !strcmp(k->path, "create/warn") ? MONITOR_WARN
				  : !strcmp(k->path, "create/autoextend_threshold")
					  ? MONITOR_THRESHOLD
				  : !strcmp(k->path, "create/autoextend_max")
					  ? MONITOR_MAX
					  : MONITOR_BY;

	pool_monitor_policy_default(&m);
	return monitor_value_parse(what, v, &m, why, len);
}

static int check_overprovision(const struct tp_conf_key *k, const char *v, char *why,
			       size_t len)
{
	unsigned percent;

	(void)k;
	if (!overprovision_parse(v, &percent))
		return 0;
	snprintf(why, len, "takes a ratio greater than 0 with at most two decimals (1 = no "
		 "over-provisioning) or none");
	return -1;
}

static int check_duration(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	uint64_t s;

	(void)k;
	return tp_duration_parse(v, &s, why, len) ? -1 : 0;
}

static int check_filter(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	(void)k;
	return tp_dev_filter_check(v, why, len);
}

static int check_abs_dir(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	(void)k;
	if (v[0] == '/')
		return 0;
	snprintf(why, len, "takes an absolute directory path");
	return -1;
}

static int check_sysid(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	(void)k;
	return tp_system_id_check(v, why, len);
}

#define S TP_CONF_STRING
const struct tp_conf_key tp_conf_keys[] = {
	{ "global/system_id", S, NULL, "NAME",
	  "this host's system id, the owner a pool records (wins over system_id_source)", 0, 0,
	  check_sysid },
	{ "global/system_id_source", S, "none", "none|machineid|uname",
	  "where the system id comes from when system_id is not set", 0, 0, check_choice },
	{ "global/host_id", TP_CONF_INT, NULL, "1..2000",
	  "this host's sanlock host id in the lockspaces of shared pools (one per host)", 1,
	  2000, NULL },
	{ "global/sanlock_io_timeout", TP_CONF_INT, "10", "1..300",
	  "tpcreate/tpchange --lock-type sanlock: sanlock's io_timeout, seconds (a dead "
	  "host's lease is free 8 x io_timeout + 60 s after its last renewal)", 1, 300, NULL },
	{ "devices/filter", TP_CONF_LIST, NULL, "[ \"a|REGEX|\", \"r|REGEX|\", ... ]",
	  "block devices tptools may open: the first pattern that matches a device's path "
	  "decides (a accept, r reject); none matches: accepted",
	  0, 0, check_filter },
	{ "create/profile", S, "balanced", "balanced|throughput|snapshots",
	  "tpcreate --profile: what the auto chunk and zeroing aim at", 0, 0, check_choice },
	{ "create/chunk", S, "auto", "auto|SIZE", "tpcreate --chunk: the data chunk size", 0, 0,
	  check_auto_size },
	{ "create/metadata_size", S, "auto", "auto|SIZE",
	  "tpcreate --metadata-size: one thin-metadata area", 0, 0, check_auto_size },
	{ "create/zero", S, "auto", "auto|y|n", "tpcreate --zero: zero new chunks", 0, 0,
	  check_choice },
	{ "create/discards", S, NULL, "ignore|nopassdown|passdown",
	  "tpcreate --discards (unset: passdown when the device supports it)", 0, 0,
	  check_choice },
	{ "create/when_full", S, "queue", "queue|error",
	  "tpcreate --when-full: queue writes or fail them when the pool is full", 0, 0,
	  check_choice },
	{ "create/activate", S, "y", "y|n",
	  "tpcreate --activate: activated at boot, by udev and by tpactivate --all", 0, 0,
	  check_choice },
	{ "create/warn", S, "80", "PCT", "tpcreate --warn: warn at PCT percent used (0 = never)",
	  0, 0, check_monitor },
	{ "create/autoextend_threshold", S, "off", "PCT|off",
	  "tpcreate --autoextend-threshold: tpmonitor grows the pool at PCT percent", 0, 0,
	  check_monitor },
	{ "create/autoextend_by", S, "20%", "PCT%|SIZE",
	  "tpcreate --autoextend-by: each growth adds PCT% of the area or SIZE", 0, 0,
	  check_monitor },
	{ "create/autoextend_max", S, "none", "SIZE|none",
	  "tpcreate --autoextend-max: tpmonitor never grows the data area past SIZE", 0, 0,
	  check_monitor },
	{ "create/max_overprovision", S, "none", "RATIO|none",
	  "tpcreate --max-overprovision: the volumes' virtual sizes add up to at most RATIO x "
	  "the data size", 0, 0, check_overprovision },
	{ "create/trash_retention", S, "off", "DURATION|off",
	  "tpcreate --trash-retention: how long tvremove keeps a removed volume in the trash",
	  0, 0, check_duration },
	{ "recv/require_encrypted", S, "n", "y|n",
	  "tprecv --require-encrypted: y refuses the streams of plain volumes and raw imports",
	  0, 0, check_choice },
	{ "activate/lock_wait", TP_CONF_INT, "60", "0..3600",
	  "tpactivate/tpdeactivate --all/--auto --lock-wait: seconds they wait in all for the "
	  "locks of pools other commands hold (the boot unit)", 0, 3600, NULL },
	{ "monitor/interval", TP_CONF_INT, "10", "1..3600",
	  "tpmonitor --interval: seconds between two passes", 1, 3600, NULL },
	{ "monitor/textfile", S, NULL, "DIR",
	  "tpmonitor --textfile: the directory of node_exporter's textfile collector",
	  0, 0, check_abs_dir },
	{ "backup/keep", TP_CONF_INT, "50", "1..100000",
	  "VG metadata backups kept of each pool, the newest (backup/max_size may keep fewer)",
	  1, 100000, NULL },
	{ "backup/max_size", S, "64M", "SIZE",
	  "the bytes a pool's VG metadata backups may take: the oldest go first past it, the "
	  "newest 3 always stay", 0, 0, check_size },
	{ "crypt/key_dir", S, NULL, "DIR",
	  "tpactivate: the key files of encrypted volumes, DIR/POOL/VOLUME (root's, mode 600; "
	  "unset: the config dir's keys/)", 0, 0, check_abs_dir },
};
#undef S
const unsigned tp_conf_nkeys = sizeof(tp_conf_keys) / sizeof(tp_conf_keys[0]);

int config_keys_load(const char *file)
{
	int r = tp_config_load(tp_conf_keys, tp_conf_nkeys, file);

	if (!r)
		return TP_EXIT_OK;
	if (r == -EINVAL)
		return TP_EXIT_USAGE;
	return tp_exit_from_errno(r);
}
