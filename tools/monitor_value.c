/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor_value.c - one monitoring value, as the options and tptools.conf
 * take it (monitor_opts.h); apart from the option handling so that the
 * configuration reader's fuzz harness links it alone. */
#include "tools/monitor_opts.h"

#include "lib/base/devopen.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int monitor_value_parse(enum monitor_value what, const char *val, struct pool_monitor_policy *m,
			char *why, size_t len)
{
	char size_why[160];

	switch (what) {
	case MONITOR_WARN:
		if (!parse_pct(val, 100, &m->warn))
			return 0;
		snprintf(why, len, "takes a percentage 0..100 (0 = never)");
		return -1;
	case MONITOR_THRESHOLD:
		if (!strcmp(val, "off")) {
			m->autoextend_threshold = POOL_AUTOEXTEND_OFF;
			return 0;
		}
		if (!parse_pct(val, POOL_AUTOEXTEND_OFF, &m->autoextend_threshold) &&
		    m->autoextend_threshold >= POOL_AUTOEXTEND_MIN)
			return 0;
		snprintf(why, len, "takes a percentage %u..%u or off", POOL_AUTOEXTEND_MIN,
			 POOL_AUTOEXTEND_OFF);
		return -1;
	case MONITOR_BY:
		if (strchr(val, '%')) {
			if (!parse_pct(val, POOL_AUTOEXTEND_PERCENT_MAX, &m->autoextend_percent) &&
			    m->autoextend_percent) {
				m->autoextend_size = 0;
				return 0;
			}
			snprintf(why, len, "takes 1%%..%u%% or a size", POOL_AUTOEXTEND_PERCENT_MAX);
			return -1;
		}
		if (tp_size_parse(val, 'm', &m->autoextend_size, size_why, sizeof(size_why))) {
			snprintf(why, len, "takes 1%%..%u%% or a size (%s)",
				 POOL_AUTOEXTEND_PERCENT_MAX, size_why);
			return -1;
		}
		if (!m->autoextend_size) {
			snprintf(why, len, "takes a size greater than 0");
			return -1;
		}
		m->autoextend_size = (m->autoextend_size + 511) / 512 * 512;
		m->autoextend_percent = 0;
		return 0;
	case MONITOR_MAX:
		if (!strcmp(val, "none")) {
			m->autoextend_max = 0;
			return 0;
		}
		if (tp_size_parse(val, 'm', &m->autoextend_max, size_why, sizeof(size_why)) ||
		    !m->autoextend_max || m->autoextend_max > (uint64_t)INT64_MAX) {
			snprintf(why, len, "takes a size greater than 0, or none");
			return -1;
		}
		m->autoextend_max = m->autoextend_max / 512 * 512;
		return 0;
	case MONITOR_DEVICE: {
		const char *kind = io_dev_wrong_kind(val);
		struct stat st;
		char *real;

		if (!strcmp(val, "none")) {
			m->autoextend_device[0] = '\0';
			return 0;
		}
		/* a device tpextend --data could take: it exists, and is a block
		 * device or an image file (what it carries: the pool's check) */
		if (stat(val, &st)) {
			snprintf(why, len, "takes an existing block device or image file (or none): "
				 "%s", strerror(errno));
			return -1;
		}
		if (kind) {
			snprintf(why, len, "takes a block device or image file (or none), and this is "
				 "%s", kind);
			return -1;
		}
		/* kept in the VG for a daemon: an absolute path, the link kept
		 * (a /dev/disk/by-id name stays right when the kernel's changes) */
		if (val[0] == '/') {
			if (strlen(val) > POOL_DEVICE_PATH_MAX) {
				snprintf(why, len, "takes a path of at most %u bytes",
					 POOL_DEVICE_PATH_MAX);
				return -1;
			}
			snprintf(m->autoextend_device, sizeof(m->autoextend_device), "%s", val);
			return 0;
		}
		if (!(real = realpath(val, NULL)) || strlen(real) > POOL_DEVICE_PATH_MAX) {
			snprintf(why, len, "takes an existing device (or none)");
			free(real);
			return -1;
		}
		snprintf(m->autoextend_device, sizeof(m->autoextend_device), "%s", real);
		free(real);
		return 0;
	}
	}
	snprintf(why, len, "is not a monitoring setting");
	return -1;
}


int overprovision_parse(const char *val, unsigned *percent)
{
	unsigned long whole, frac = 0;
	const char *p = val;
	char *end;
	int digits = 0;

	if (!strcmp(val, "none")) {
		*percent = 0;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	whole = strtoul(p, &end, 10);
	if (errno || whole > POOL_OVERPROVISION_MAX / 100)
		return -1;
	if (*end == '.') {
		for (p = end + 1; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 2)
				frac = frac * 10 + (unsigned long)(*p - '0');
			else if (*p != '0')
				return -1;
		if (!digits)
			return -1;
		if (digits == 1)
			frac *= 10;
		end = (char *)p;
	}
	if (*end || whole * 100 + frac == 0 || whole * 100 + frac > POOL_OVERPROVISION_MAX)
		return -1;
	*percent = (unsigned)(whole * 100 + frac);
	return 0;
}
