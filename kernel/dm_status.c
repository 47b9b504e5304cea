/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_status.c - parse thin-pool and thin status lines
 * (the kernel's Documentation/admin-guide/device-mapper/thin-provisioning.rst,
 * "Status"). Pure: no ioctls.
 *
 * thin-pool fields, by position (older kernels stop earlier):
 *   1 transaction id   2 used/total metadata   3 used/total data
 *   4 held root | -    5 rw | ro | out_of_data_space
 *   6 discard_passdown | no_discard_passdown | ignore_discard
 *   7 queue_if_no_space | error_if_no_space   8 needs_check | -
 *   9 metadata low water mark
 * Fields past the ninth (newer kernels) are ignored. */
#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16
#define FIELD_LEN 64

static unsigned split(const char *s, char f[MAX_FIELDS][FIELD_LEN], bool *too_long)
{
	unsigned n = 0;

	*too_long = false;
	while (*s) {
		size_t len;

		s += strspn(s, " \t\n");
		if (!*s)
			break;
		len = strcspn(s, " \t\n");
		if (n == MAX_FIELDS)
			break;
		if (len >= FIELD_LEN) {
			*too_long = true;
			return n;
		}
		memcpy(f[n], s, len);
		f[n][len] = '\0';
		n++;
		s += len;
	}
	return n;
}

static bool get_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

static bool get_pair(const char *s, uint64_t *a, uint64_t *b)
{
	char buf[FIELD_LEN], *slash;

	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return get_u64(buf, a) && get_u64(slash + 1, b) && *a <= *b;
}

/* Words of the fields 5-8, at the index of their enum value (index 0 of
 * mode and discard is "field absent"). */
static const char *const mode_words[] = { "", "rw", "ro", "out_of_data_space", NULL };
static const char *const discard_words[] = { "", "discard_passdown", "no_discard_passdown",
					     "ignore_discard", NULL };
static const char *const no_space_words[] = { "queue_if_no_space", "error_if_no_space", NULL };
static const char *const check_words[] = { "-", "needs_check", NULL };
_Static_assert(TP_DM_MODE_RW == 1 && TP_DM_MODE_RO == 2 && TP_DM_MODE_OUT_OF_DATA == 3,
	       "mode_words follows enum tp_dm_pool_mode");
_Static_assert(TP_DM_DISCARD_PASSDOWN == 1 && TP_DM_DISCARD_NO_PASSDOWN == 2 &&
		       TP_DM_DISCARD_IGNORE == 3,
	       "discard_words follows enum tp_dm_discard");

/* index of S in WORDS (never the empty "absent" entry), or -1 */
static int word(const char *s, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		if (*words[i] && !strcmp(s, words[i]))
			return i;
	return -1;
}

static int bad(const char *what, const char *params)
{
	log_error("cannot read the kernel's %s status line '%s'", what, params);
	return -EPROTO;
}

int tp_dm_parse_pool_status(const char *params, struct tp_dm_pool_status *st)
{
	char f[MAX_FIELDS][FIELD_LEN];
	bool too_long;
	unsigned n;
	int v = 0, d = 0, e = 0, c = 0;

	memset(st, 0, sizeof(*st));
	n = split(params, f, &too_long);
	if (too_long)
		return bad("thin-pool", params);
	if (n == 1 && !strcmp(f[0], "Fail")) {
		st->fail = true;
		return 0;
	}
	if (n == 1 && !strcmp(f[0], "Error")) {
		st->error = true;
		return 0;
	}
	if (n < 3 || !get_u64(f[0], &st->transaction_id) ||
	    !get_pair(f[1], &st->used_meta_blocks, &st->total_meta_blocks) ||
	    !get_pair(f[2], &st->used_data_blocks, &st->total_data_blocks))
		return bad("thin-pool", params);
	if (n > 3 && strcmp(f[3], "-")) {
		if (!get_u64(f[3], &st->held_root))
			return bad("thin-pool", params);
		st->has_held_root = true;
	}
	if ((n > 4 && (v = word(f[4], mode_words)) < 0) ||
	    (n > 5 && (d = word(f[5], discard_words)) < 0) ||
	    (n > 6 && (e = word(f[6], no_space_words)) < 0) ||
	    (n > 7 && (c = word(f[7], check_words)) < 0))
		return bad("thin-pool", params);
	st->mode = (enum tp_dm_pool_mode)v;
	st->discard = (enum tp_dm_discard)d;
	st->error_if_no_space = e == 1;
	st->needs_check = c == 1;
	if (n > 8) {
		if (!get_u64(f[8], &st->meta_low_water))
			return bad("thin-pool", params);
		st->has_meta_low_water = true;
	}
	st->nfields = n;
	return 0;
}

int tp_dm_parse_thin_status(const char *params, struct tp_dm_thin_status *st)
{
	char f[MAX_FIELDS][FIELD_LEN];
	bool too_long;
	unsigned n;

	memset(st, 0, sizeof(*st));
	n = split(params, f, &too_long);
	if (too_long || n == 0)
		return bad("thin", params);
	if (n == 1 && !strcmp(f[0], "Fail")) {
		st->fail = true;
		return 0;
	}
	if (n == 1 && !strcmp(f[0], "-")) {
		st->inactive = true;
		return 0;
	}
	if (n != 2 || !get_u64(f[0], &st->mapped_sectors))
		return bad("thin", params);
	if (strcmp(f[1], "-")) {
		if (!get_u64(f[1], &st->highest_sector))
			return bad("thin", params);
		st->has_highest = true;
	}
	return 0;
}
