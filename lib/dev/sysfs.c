/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.c - see sysfs.h. */
#include "lib/dev/sysfs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int tp_sysfs_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX_SYSFS];
	FILE *fp;
	int got = 0;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	if (fgets(buf, (int)len, fp)) {
		buf[strcspn(buf, "\n")] = '\0';
		got = 1;
	}
	fclose(fp);
	return got;
}

int tp_sysfs_exists(const char *dir, const char *name)
{
	char path[PATH_MAX_SYSFS];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

void tp_dev_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
