/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor_opts.h - the monitoring-policy options tpcreate and tpchange
 * share: --warn PCT, --autoextend-threshold PCT|off, --autoextend-by
 * PCT%|SIZE, --autoextend-max SIZE|none (a bare number is MiB, as every
 * size option reads it), --autoextend-device DEV|none. */
#ifndef TP_TOOLS_MONITOR_OPTS_H
#define TP_TOOLS_MONITOR_OPTS_H

#include "lib/pool/pool.h"
#include "tools/cli.h"

struct monitor_args {
	const char *warn, *threshold, *by, *max, *device;
};

#define CLI_OPT_MONITOR(a)                                                          \
	{ "warn", '\0', POPT_ARG_STRING, &(a).warn, 0,                                  \
	  "warn when data or metadata use reaches PCT percent (0 = never; default 80)", \
	  "PCT" },                                                                      \
	{ "autoextend-threshold", '\0', POPT_ARG_STRING, &(a).threshold, 0,             \
	  "tpmonitor grows the pool at PCT percent used (50..100; 100 or off = never, " \
	  "the default)", "PCT|off" },                                                  \
	{ "autoextend-by", '\0', POPT_ARG_STRING, &(a).by, 0,                           \
	  "each growth adds PCT% of the area or SIZE of data (default 20%)", "PCT%|SIZE" }, \
	{ "autoextend-max", '\0', POPT_ARG_STRING, &(a).max, 0,                         \
	  "tpmonitor never grows the data area past SIZE (none = no limit, the "        \
	  "default)", "SIZE|none" },                                                    \
	{ "autoextend-device", '\0', POPT_ARG_STRING, &(a).device, 0,                   \
	  "when the data devices have no room, tpmonitor adds DEV as a data device "    \
	  "(none = no device, the default)", "DEV|none" }

/* One monitoring value, as --warn, --autoextend-threshold and
 * --autoextend-by (and tptools.conf's create/warn, ...) take it. */
enum monitor_value { MONITOR_WARN, MONITOR_THRESHOLD, MONITOR_BY, MONITOR_MAX, MONITOR_DEVICE };
/* Parse VAL into *M: 0, or -1 with WHY ("takes ...", without VAL). */
int monitor_value_parse(enum monitor_value what, const char *val, struct pool_monitor_policy *m,
			char *why, size_t len);

/* --max-overprovision RATIO: "1", "1.5", "2.25" (two decimals at most;
 * 0.01 .. POOL_OVERPROVISION_MAX / 100) into *PERCENT (100 = 1.0), or
 * "none" (0: unlimited). 0, or -1. */
int overprovision_parse(const char *val, unsigned *percent);
#define OVERPROVISION_HELP                                                               \
	"the volumes' virtual sizes (snapshots included) may add up to at most RATIO x the " \
	"pool's data size (1 = no over-provisioning; none = unlimited, the default)"

/* Apply the options given in A over *M (1 in *SET when any was given).
 * Returns CLI_CONTINUE or 3 (usage error printed). */
int monitor_args_apply(const struct tp_command *cmd, const struct monitor_args *a,
		       struct pool_monitor_policy *m, int *set);

/* "warn 80%, autoextend at 70% by 20%" (or "autoextend off"). */
void monitor_policy_format(const struct pool_monitor_policy *m, char *buf, size_t len);

#endif
