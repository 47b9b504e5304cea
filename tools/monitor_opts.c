/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor_opts.c - see monitor_opts.h. */
#include "tools/monitor_opts.h"

#include "lib/base/exitcodes.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int monitor_args_apply(const struct tp_command *cmd, const struct monitor_args *a,
		       struct pool_monitor_policy *m, int *set)
{
	static const char *const opt[] = { "--warn", "--autoextend-threshold", "--autoextend-by",
					   "--autoextend-max", "--autoextend-device" };
	const char *val[] = { a->warn, a->threshold, a->by, a->max, a->device };
	char why[256];

	*set = a->warn || a->threshold || a->by || a->max || a->device;
	for (unsigned i = 0; i < 5; i++)
		if (val[i] && monitor_value_parse((enum monitor_value)i, val[i], m, why, sizeof(why)))
			return cli_usage_error(cmd, "%s %s, not '%s'", opt[i], why, val[i]);
	return CLI_CONTINUE;
}

void monitor_policy_format(const struct pool_monitor_policy *m, char *buf, size_t len)
{
	char warn[32], by[32], max[48] = "", cap[32], dev[POOL_DEVICE_PATH_MAX + 16] = "";

	if (m->warn)
		snprintf(warn, sizeof(warn), "warn at %u%%", m->warn);
	else
		snprintf(warn, sizeof(warn), "warn never");
	if (m->autoextend_size)
		tp_size_format(m->autoextend_size, 'h', by, sizeof(by));
	else
		snprintf(by, sizeof(by), "%u%%", m->autoextend_percent);
	if (m->autoextend_max)
		snprintf(max, sizeof(max), " up to %s",
			 tp_size_format(m->autoextend_max, 'h', cap, sizeof(cap)));
	if (m->autoextend_device[0])
		snprintf(dev, sizeof(dev), ", then onto %s", m->autoextend_device);
	if (m->autoextend_threshold >= POOL_AUTOEXTEND_OFF)
		snprintf(buf, len, "%s, autoextend off (by %s%s%s when on)", warn, by, max, dev);
	else
		snprintf(buf, len, "%s, autoextend at %u%% by %s%s%s", warn,
			 m->autoextend_threshold, by, max, dev);
}
