/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_names.c - dm names and uuids of our devices (see dm.h "Naming"). */
#include "kernel/dm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_suffix[] = {
	[TP_DM_ROLE_THIN] = "thin",
	[TP_DM_ROLE_POOL] = "tpool",
	[TP_DM_ROLE_TMETA] = "tmeta",
	[TP_DM_ROLE_TDATA] = "tdata",
};

static bool valid_role(enum tp_dm_role role)
{
	return (unsigned)role < TP_ARRAY_SIZE(role_suffix);
}

/* A name part usable in a dm name and in /dev/<pool>/<vol>; a leading
 * '-' would make "<pool>-<vol>" ambiguous to split. */
static bool valid_part(const char *s)
{
	if (!s || !*s || *s == '-' || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/* Append S to BUF at *POS with '-' doubled; false if it does not fit. */
static bool put_escaped(char *buf, size_t len, size_t *pos, const char *s)
{
	for (; *s; s++) {
		size_t need = *s == '-' ? 2 : 1;
		if (*pos + need >= len)
			return false;
		buf[(*pos)++] = *s;
		if (*s == '-')
			buf[(*pos)++] = '-';
	}
	buf[*pos] = '\0';
	return true;
}

int tp_dm_name(char *buf, size_t len, const char *pool, enum tp_dm_role role, const char *vol)
{
	size_t pos = 0;

	if (!valid_role(role) || !valid_part(pool) ||
	    (role == TP_DM_ROLE_THIN && !valid_part(vol)))
		return -EINVAL;
	if (len > TP_DM_NAME_MAX)
		len = TP_DM_NAME_MAX;
	if (!len)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (!put_escaped(buf, len, &pos, pool) || pos + 1 >= len)
		return -ENAMETOOLONG;
	buf[pos++] = '-';
	buf[pos] = '\0';
	if (role == TP_DM_ROLE_THIN) {
		if (!put_escaped(buf, len, &pos, vol))
			return -ENAMETOOLONG;
	} else if (pos + strlen(role_suffix[role]) >= len) {
		return -ENAMETOOLONG;
	} else {
		strcpy(buf + pos, role_suffix[role]);
	}
	return 0;
}

bool tp_dm_vol_name_reserved(const char *vol)
{
	return vol && (!strcmp(vol, role_suffix[TP_DM_ROLE_POOL]) ||
		       !strcmp(vol, role_suffix[TP_DM_ROLE_TMETA]) ||
		       !strcmp(vol, role_suffix[TP_DM_ROLE_TDATA]));
}

int tp_dm_uuid(char *buf, size_t len, const char *pool_uuid, enum tp_dm_role role,
	       uint32_t dev_id)
{
	int n;

	if (!valid_role(role) || !valid_part(pool_uuid) ||
	    (role == TP_DM_ROLE_THIN && dev_id > TP_DM_THIN_ID_MAX))
		return -EINVAL;
	if (len > TP_DM_UUID_MAX)
		len = TP_DM_UUID_MAX;
	if (role == TP_DM_ROLE_THIN)
		n = snprintf(buf, len, TP_DM_UUID_PREFIX "%s-thin%" PRIu32, pool_uuid, dev_id);
	else
		n = snprintf(buf, len, TP_DM_UUID_PREFIX "%s-%s", pool_uuid, role_suffix[role]);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tp_dm_uuid_parse(const char *uuid, char *pool_uuid, size_t len, enum tp_dm_role *role,
		     uint32_t *dev_id)
{
	const size_t plen = sizeof(TP_DM_UUID_PREFIX) - 1;
	const char *body, *dash, *suffix;
	size_t n;
	unsigned r;

	if (!uuid || strncmp(uuid, TP_DM_UUID_PREFIX, plen))
		return -EINVAL;
	body = uuid + plen;
	dash = strrchr(body, '-');
	if (!dash || dash == body)
		return -EINVAL;
	suffix = dash + 1;
	*dev_id = 0;
	for (r = 0; r < TP_ARRAY_SIZE(role_suffix); r++)
		if (r != TP_DM_ROLE_THIN && !strcmp(suffix, role_suffix[r]))
			break;
	if (r == TP_ARRAY_SIZE(role_suffix)) {
		const char *digits = suffix + strlen(role_suffix[TP_DM_ROLE_THIN]);
		char *end;
		unsigned long v;

		if (strncmp(suffix, role_suffix[TP_DM_ROLE_THIN], strlen(role_suffix[TP_DM_ROLE_THIN])) ||
		    *digits < '0' || *digits > '9' || (digits[0] == '0' && digits[1]))
			return -EINVAL;
		errno = 0;
		v = strtoul(digits, &end, 10);
		if (*end || errno || v > TP_DM_THIN_ID_MAX)
			return -EINVAL;
		*dev_id = (uint32_t)v;
		r = TP_DM_ROLE_THIN;
	}
	n = (size_t)(dash - body);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(pool_uuid, body, n);
	pool_uuid[n] = '\0';
	*role = (enum tp_dm_role)r;
	return 0;
}

int tp_dm_path(char *buf, size_t len, const char *dm_name)
{
	int n;

	if (!valid_part(dm_name))
		return -EINVAL;
	n = snprintf(buf, len, "/dev/mapper/%s", dm_name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
