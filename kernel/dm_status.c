/* dm_status.c - parse thin-pool and thin status lines
 * (THIN-METADATA-FORMAT.md 7.2 and 7.3). Pure: no ioctls.
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
	if (n > 4) {
		if (!strcmp(f[4], "rw"))
			st->mode = TP_DM_MODE_RW;
		else if (!strcmp(f[4], "ro"))
			st->mode = TP_DM_MODE_RO;
		else if (!strcmp(f[4], "out_of_data_space"))
			st->mode = TP_DM_MODE_OUT_OF_DATA;
		else
			return bad("thin-pool", params);
	}
	if (n > 5) {
		if (!strcmp(f[5], "discard_passdown"))
			st->discard = TP_DM_DISCARD_PASSDOWN;
		else if (!strcmp(f[5], "no_discard_passdown"))
			st->discard = TP_DM_DISCARD_NO_PASSDOWN;
		else if (!strcmp(f[5], "ignore_discard"))
			st->discard = TP_DM_DISCARD_IGNORE;
		else
			return bad("thin-pool", params);
	}
	if (n > 6) {
		if (!strcmp(f[6], "error_if_no_space"))
			st->error_if_no_space = true;
		else if (strcmp(f[6], "queue_if_no_space"))
			return bad("thin-pool", params);
	}
	if (n > 7) {
		if (!strcmp(f[7], "needs_check"))
			st->needs_check = true;
		else if (strcmp(f[7], "-"))
			return bad("thin-pool", params);
	}
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
