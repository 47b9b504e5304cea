/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_name.c - the name rule for pools and volumes. See vg.h. */
#include "metadata/vg/vg.h"

#include <string.h>

int vg_name_valid(const char *name, const char **why)
{
	const char *dummy, *p;
	size_t len;

	if (!why)
		why = &dummy;
	if (!name || !*name) {
		*why = "the name is empty";
		return 0;
	}
	len = strlen(name);
	if (len > VG_NAME_MAX) {
		*why = "the name is longer than 64 bytes";
		return 0;
	}
	if (name[0] == '-') {
		*why = "the name starts with '-'";
		return 0;
	}
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		*why = "'.' and '..' are reserved";
		return 0;
	}
	for (p = name; *p; p++) {
		char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '+' || c == '_' || c == '.' || c == '-')
			continue;
		*why = "only letters, digits and '+_.-' are allowed";
		return 0;
	}
	*why = NULL;
	return 1;
}
