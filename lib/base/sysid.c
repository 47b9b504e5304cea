/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysid.c - see sysid.h. */
#include "lib/base/sysid.h"

#include "lib/base/config.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static int id_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '+';
}

int tp_system_id_check(const char *id, char *why, size_t len)
{
	size_t n = strlen(id);

	if (!n || n > TP_SYSID_MAX) {
		snprintf(why, len, "takes 1..%d characters", TP_SYSID_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!id_char(id[i])) {
			snprintf(why, len, "takes only the characters A-Z a-z 0-9 . _ - +");
			return -1;
		}
	return 0;
}

/* Keep the id characters of RAW, at most TP_SYSID_MAX. */
static void clean(const char *raw, char *buf, size_t len)
{
	size_t n = 0;

	for (; *raw && n + 1 < len && n < TP_SYSID_MAX; raw++)
		if (id_char(*raw))
			buf[n++] = *raw;
	buf[n] = '\0';
}

static int machine_id(char *buf, size_t len, const char **source)
{
	const char *dir = getenv("TPTOOLS_DIR");
	char *path = dir && *dir ? tp_path_join(dir, "machine-id") : strdup("/etc/machine-id");
	char line[256] = "";
	FILE *f;
	int r = 0;

	if (!path)
		return -ENOMEM;
	if (!(f = fopen(path, "re"))) {
		r = -errno;
		log_error("global/system_id_source is machineid, but %s cannot be read (%s); set "
			  "global/system_id instead", path, strerror(errno));
	} else {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
		clean(line, buf, len);
		if (!buf[0]) {
			log_error("global/system_id_source is machineid, but %s is empty; run "
				  "systemd-machine-id-setup or set global/system_id", path);
			r = -ENOENT;
		}
	}
	if (source)
		*source = dir && *dir ? "machineid ($TPTOOLS_DIR/machine-id)"
				      : "machineid (/etc/machine-id)";
	free(path);
	return r;
}

int tp_system_id(char *buf, size_t len, const char **source)
{
	const char *id = tp_config_str("global/system_id");
	const char *from = tp_config_str("global/system_id_source");
	struct utsname u;

	buf[0] = '\0';
	if (id) {
		clean(id, buf, len);
		if (source)
			*source = "global/system_id";
		return 0;
	}
	if (from && !strcmp(from, "machineid"))
		return machine_id(buf, len, source);
	if (from && !strcmp(from, "uname")) {
		if (source)
			*source = "uname";
		if (uname(&u)) {
			int e = errno;
			log_error("global/system_id_source is uname, but uname failed: %s", strerror(e));
			return -e;
		}
		clean(u.nodename, buf, len);
		if (!strcmp(buf, "localhost") || !buf[0]) {
			buf[0] = '\0';
			log_error("global/system_id_source is uname, but this host's name is "
				  "\"%s\", which names no host; set a host name or global/system_id",
				  u.nodename);
			return -EINVAL;
		}
		return 0;
	}
	if (source)
		*source = "none";
	return 0;
}
