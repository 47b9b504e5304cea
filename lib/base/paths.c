/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.c - see paths.h. */
#include "lib/base/paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tp_config_dir(void)
{
	const char *d = getenv("TPTOOLS_DIR");
	return (d && *d) ? d : "/etc/tptools";
}

char *tp_path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", a, b);
	return p;
}

char *tp_lock_dir(void)
{
	const char *d = getenv("TPTOOLS_DIR");
	if (d && *d)
		return tp_path_join(d, "lock");
	return strdup("/run/lock/tptools");
}

char *tp_run_dir(void)
{
	const char *d = getenv("TPTOOLS_DIR");
	if (d && *d)
		return tp_path_join(d, "run");
	return strdup("/run/tptools");
}

int tp_mkdir_p(const char *path)
{
	char *copy = strdup(path), *p;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) && errno != EEXIST) {
			r = -errno;
			break;
		}
		*p = '/';
	}
	if (!r && mkdir(copy, 0700) && errno != EEXIST)
		r = -errno;
	free(copy);
	return r;
}

/* PATH made absolute against the current directory, its links left as
 * they are (a /dev/disk/by-id name stays that name): malloc'd, NULL on
 * ENOMEM or when the current directory cannot be told. */
static char *tp_path_absolute(const char *path)
{
	char *cwd, *abs;

	if (path[0] == '/')
		return strdup(path);
	if (!(cwd = getcwd(NULL, 0)))
		return NULL;
	abs = tp_path_join(cwd, path);
	free(cwd);
	return abs;
}

void tp_path_absolute_to(char *dst, size_t len, const char *path)
{
	char *abs = tp_path_absolute(path);

	snprintf(dst, len, "%s", abs ? abs : path);
	free(abs);
}
