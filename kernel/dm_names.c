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
	[TP_DM_ROLE_CRYPT] = "crypt",
};

/* the layer of an encrypted volume's hidden thin device */
#define LUKS_LAYER "luks"

/* roles whose uuid ends in a thin device id */
static bool numbered(enum tp_dm_role role)
{
	return role == TP_DM_ROLE_THIN || role == TP_DM_ROLE_CRYPT;
}

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
	    (numbered(role) && !valid_part(vol)))
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
	if (numbered(role)) {
		if (!put_escaped(buf, len, &pos, vol))
			return -ENAMETOOLONG;
	} else if (pos + strlen(role_suffix[role]) >= len) {
		return -ENAMETOOLONG;
	} else {
		strcpy(buf + pos, role_suffix[role]);
	}
	return 0;
}

int tp_dm_luks_name(char *buf, size_t len, const char *pool, const char *vol)
{
	size_t n;
	int r = tp_dm_name(buf, len, pool, TP_DM_ROLE_THIN, vol);

	if (r)
		return r;
	if (len > TP_DM_NAME_MAX)
		len = TP_DM_NAME_MAX;
	n = strlen(buf);
	if (n + 1 + strlen(LUKS_LAYER) >= len)
		return -ENAMETOOLONG;
	strcpy(buf + n, "-" LUKS_LAYER);
	return 0;
}

/* Does NAME[0..N) hold a single '-' (an odd run of dashes)? */
static bool has_separator(const char *name, size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && name[i] == '-') {
			run++;
			continue;
		}
		if (run % 2 == 1)
			return true;
		run = 0;
	}
	return false;
}

bool tp_dm_name_is_luks(const char *name)
{
	size_t n = name ? strlen(name) : 0, l = strlen("-" LUKS_LAYER), dashes = 0, i;

	if (n <= l || strcmp(name + n - l, "-" LUKS_LAYER))
		return false;
	/* the layer's '-' is single: an odd run of dashes ends the volume's
	 * escaped name ("a--luks" is the volume "a-luks"), and before it
	 * the pool's and the volume's names ("vault-luks" is the volume
	 * "luks") */
	for (i = n - l + 1; i > 0 && name[i - 1] == '-'; i--)
		dashes++;
	return dashes % 2 == 1 && i > 0 && has_separator(name, i);
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
	    (numbered(role) && dev_id > TP_DM_THIN_ID_MAX))
		return -EINVAL;
	if (len > TP_DM_UUID_MAX)
		len = TP_DM_UUID_MAX;
	if (numbered(role))
		n = snprintf(buf, len, TP_DM_UUID_PREFIX "%s-%s%" PRIu32, pool_uuid,
			     role_suffix[role], dev_id);
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
		if (!numbered((enum tp_dm_role)r) && !strcmp(suffix, role_suffix[r]))
			break;
	if (r == TP_ARRAY_SIZE(role_suffix)) {
		const char *digits = NULL;
		char *end;
		unsigned long v;

		for (r = 0; r < TP_ARRAY_SIZE(role_suffix) && !digits; r++)
			if (numbered((enum tp_dm_role)r) &&
			    !strncmp(suffix, role_suffix[r], strlen(role_suffix[r])))
				digits = suffix + strlen(role_suffix[r]);
		if (!digits || *digits < '0' || *digits > '9' || (digits[0] == '0' && digits[1]))
			return -EINVAL;
		errno = 0;
		v = strtoul(digits, &end, 10);
		if (*end || errno || v > TP_DM_THIN_ID_MAX)
			return -EINVAL;
		*dev_id = (uint32_t)v;
		r--;	/* the loop went one past the role it found */
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
