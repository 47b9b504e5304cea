/* monitor_opts.c - see monitor_opts.h. */
#include "tools/monitor_opts.h"

#include "lib/base/exitcodes.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "N" or "N%" with N in 0..MAX into *OUT: 0, or -1. */
static int parse_pct(const char *val, unsigned max, unsigned *out)
{
	unsigned long v;
	char *end;

	if (val[0] < '0' || val[0] > '9')
		return -1;
	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || (*end && strcmp(end, "%")) || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int monitor_args_apply(const struct tp_command *cmd, const struct monitor_args *a,
		       struct pool_monitor_policy *m, int *set)
{
	*set = a->warn || a->threshold || a->by;
	if (a->warn && parse_pct(a->warn, 100, &m->warn))
		return cli_usage_error(cmd, "--warn takes a percentage 0..100 (0 = never), not "
				       "'%s'", a->warn);
	if (a->threshold && !strcmp(a->threshold, "off"))
		m->autoextend_threshold = POOL_AUTOEXTEND_OFF;
	else if (a->threshold &&
		 (parse_pct(a->threshold, POOL_AUTOEXTEND_OFF, &m->autoextend_threshold) ||
		  m->autoextend_threshold < POOL_AUTOEXTEND_MIN))
		return cli_usage_error(cmd, "--autoextend-threshold takes a percentage %u..%u or "
				       "off, not '%s'", POOL_AUTOEXTEND_MIN, POOL_AUTOEXTEND_OFF,
				       a->threshold);
	if (a->by && strchr(a->by, '%')) {
		if (parse_pct(a->by, POOL_AUTOEXTEND_PERCENT_MAX, &m->autoextend_percent) ||
		    !m->autoextend_percent)
			return cli_usage_error(cmd, "--autoextend-by takes 1%%..%u%% or a size, not "
					       "'%s'", POOL_AUTOEXTEND_PERCENT_MAX, a->by);
		m->autoextend_size = 0;
	} else if (a->by) {
		if (cli_size(cmd, "--autoextend-by", a->by, 'm', &m->autoextend_size) !=
		    CLI_CONTINUE)
			return TP_EXIT_USAGE;
		if (!m->autoextend_size)
			return cli_usage_error(cmd, "--autoextend-by must be greater than 0");
		m->autoextend_size = (m->autoextend_size + 511) / 512 * 512;
		m->autoextend_percent = 0;
	}
	return CLI_CONTINUE;
}

void monitor_policy_format(const struct pool_monitor_policy *m, char *buf, size_t len)
{
	char warn[32], by[32];

	if (m->warn)
		snprintf(warn, sizeof(warn), "warn at %u%%", m->warn);
	else
		snprintf(warn, sizeof(warn), "warn never");
	if (m->autoextend_size)
		tp_size_format(m->autoextend_size, 'h', by, sizeof(by));
	else
		snprintf(by, sizeof(by), "%u%%", m->autoextend_percent);
	if (m->autoextend_threshold >= POOL_AUTOEXTEND_OFF)
		snprintf(buf, len, "%s, autoextend off (by %s when on)", warn, by);
	else
		snprintf(buf, len, "%s, autoextend at %u%% by %s", warn, m->autoextend_threshold,
			 by);
}
