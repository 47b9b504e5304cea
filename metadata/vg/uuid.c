/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uuid.c - see uuid.h. */
#include "metadata/vg/uuid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

static int is_dash_pos(int i)
{
	return i == 8 || i == 13 || i == 18 || i == 23;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int vg_uuid_valid(const char *s)
{
	int i;

	if (!s || strlen(s) != VG_UUID_LEN)
		return 0;
	for (i = 0; i < VG_UUID_LEN; i++) {
		if (is_dash_pos(i) ? s[i] != '-' : hexval(s[i]) < 0)
			return 0;
	}
	return 1;
}

int vg_uuid_parse(const char *s, uint8_t raw[VG_UUID_BYTES])
{
	int i, n = 0;

	if (!vg_uuid_valid(s))
		return -EINVAL;
	for (i = 0; i < VG_UUID_LEN; i++) {
		if (is_dash_pos(i))
			continue;
		raw[n / 2] = (uint8_t)((n % 2) ? (raw[n / 2] | hexval(s[i]))
					       : (hexval(s[i]) << 4));
		n++;
	}
	return 0;
}

void vg_uuid_format(const uint8_t raw[VG_UUID_BYTES], char out[VG_UUID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	int i, n = 0;

	for (i = 0; i < VG_UUID_LEN; i++) {
		if (is_dash_pos(i)) {
			out[i] = '-';
			continue;
		}
		out[i] = hex[(n % 2) ? (raw[n / 2] & 0xf) : (raw[n / 2] >> 4)];
		n++;
	}
	out[VG_UUID_LEN] = '\0';
}

int vg_uuid_generate(char out[VG_UUID_LEN + 1])
{
	uint8_t raw[VG_UUID_BYTES];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t r = getrandom(raw + got, sizeof(raw) - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)r;
	}
	raw[6] = (uint8_t)((raw[6] & 0x0f) | 0x40);	/* version 4 */
	raw[8] = (uint8_t)((raw[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
	vg_uuid_format(raw, out);
	return 0;
}
