/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status_fields.h - the rows and fields of tpstatus's reports.
 *
 * Owns: the pool and volume row types, how a pool_info fills them, and the
 * libdevmapper dm_report field table: field names (pool_*, vol_*),
 * headings, and formats (sizes in the --units unit or bare bytes,
 * percentages with two decimals), with sort values in dm_report's own
 * units so that its selection (-S) works: sizes as a double count of
 * 512-byte sectors, percentages in DM_PERCENT_1; and the order of the
 * rows (-O), which tpstatus decides itself (status_row_cmp). */
#ifndef TP_TOOLS_STATUS_FIELDS_H
#define TP_TOOLS_STATUS_FIELDS_H

#include "lib/pool/pool.h"

#include <libdevmapper.h>
#include <limits.h>
#include <stdint.h>

/* pool_attr and vol_attr (tpstatus(8) FIELDS): one letter a position. */
#define STATUS_POOL_ATTR_LEN 9
#define STATUS_VOL_ATTR_LEN 7

struct pool_row {
	const char *name, *uuid, *zero, *profile, *discards, *when_full, *needs_check, *active, *mode;
	const char *attr, *activation_skip;	/* attr points into attr_buf */
	const char *system_id;			/* the owner's, "-" for none */
	const char *lock_type, *lease_owner;	/* lease_owner points into lease_buf or "-" */
	char lease_buf[24];
	char attr_buf[STATUS_POOL_ATTR_LEN + 1];
	const char *data_dev, *meta_dev;	/* data_dev_buf, meta_dev_buf: the row
						 * outlives the open pool (tpstatus sorts) */
	char data_dev_buf[PATH_MAX], meta_dev_buf[PATH_MAX];
	const char *meta_health, *meta_legs;	/* mirrored thin metadata */
	const char *meta_scrub;			/* scrub_buf, or "-" */
	char scrub_buf[32];
	const char *meta_integrity;		/* integrity_buf */
	char integrity_buf[48];
	uint64_t meta_mismatches;
	uint64_t meta_bad, meta_scrub_mismatched;
	const char *devices;			/* points into devices_buf */
	char devices_buf[4096];
	const char *orphans;			/* orphans_buf, or "-" */
	char orphans_buf[4096];
	const char *autoextend_by, *monitor;	/* point into by_buf, monitor_buf or "-" */
	const char *autoextend_max;		/* max_buf, or "none" */
	const char *autoextend_device;		/* the policy's device, or "none" */
	const char *overprovision, *max_overprovision;	/* over_buf, maxover_buf or "none" */
	char max_buf[32], over_buf[32], maxover_buf[32];
	uint64_t warn, autoextend_threshold;
	char by_buf[32], monitor_buf[320];
	/* the sort values (-O) of the fields above shown as text but numbers:
	 * hundredths, bytes or a host id; "none" (no limit) sorts last,
	 * percentages of autoextend_by before its sizes */
	uint64_t over_key, maxover_key, by_key, max_key, lease_key;
	uint64_t size, chunk, data_used, meta_used, meta_size, tid, nr_volumes, virtual_total;
	uint64_t data_pct, meta_pct;	/* hundredths of a percent */
	uint64_t data_offset, meta_offset, meta_len, spare_offset;
	uint64_t vg_area, vg_area_used, vg_area_pct;	/* bytes; hundredths of a percent */
	uint64_t metadata_format;			/* the VG's format_version */
};

struct vol_row {
	const char *pool, *name, *origin, *created, *read_only, *activation_skip, *content_uuid;
	const char *encrypted, *luks_uuid, *unlocked;	/* issue 39 */
	const char *attr;	/* points into attr_buf */
	char attr_buf[STATUS_VOL_ATTR_LEN + 1];
	uint64_t size, mapped, exclusive, shared, mapped_pct, dev_id;
	uint64_t highest_mapped;
};

enum { T_POOL = 1, T_VOL = 2 };

#define STATUS_POOL_DEFAULT "pool_name,pool_size,pool_chunk,pool_zero,pool_profile,pool_data_used," \
	"pool_data_percent,pool_meta_used,pool_meta_size,pool_meta_percent,pool_transaction_id," \
	"pool_volumes,pool_virtual,pool_active"
/* The defaults read O(volumes): no exclusive or shared, which walk every
 * mapping tree (status_needs_sharing). JSON's default is every volume
 * field but those two. */
#define STATUS_VOL_DEFAULT "vol_pool,vol_name,vol_size,vol_mapped,vol_mapped_percent,vol_origin"
#define STATUS_VOL_JSON_DEFAULT "vol_pool,vol_name,vol_size,vol_mapped,vol_mapped_percent," \
	"vol_origin,vol_dev_id,vol_read_only,vol_activation_skip,vol_content_uuid,vol_encrypted," \
	"vol_luks_uuid,vol_unlocked,vol_created," \
	"vol_attr"

extern const struct dm_report_object_type status_types[];
extern const struct dm_report_field_type status_fields[];	/* ends with report_fn NULL */

/* How sizes print: UNIT is an --units letter, or 0 for bare byte counts;
 * NO_SUFFIX drops the unit (--nosuffix). */
void status_set_format(char unit, int no_suffix);

/* Is NAME[0..LEN) a field of TYPE (T_POOL, T_VOL; a volume field also
 * without its vol_ prefix)? */
int status_is_field(uint32_t type, const char *name, size_t len);

/* Does TEXT (a volume table's -o list, -O keys or -S expression) name a
 * field that needs the mapping walk: vol_exclusive, vol_shared (also
 * without vol_), or all / vol_all? Quoted strings are skipped. */
int status_needs_sharing(const char *text);
/* Call FN on each name (identifier) of TEXT outside quoted values (a -o,
 * -O or -S argument), in order, until it returns nonzero: that value, or
 * 0 after the last. */
int status_each_name(const char *text, int (*fn)(const char *name, size_t len, void *arg),
		     void *arg);

/* Fill a row from IN (a pool row: valid while IN is, also after the pool
 * is closed; a volume row: while IN and CREATED are). CREATED holds the
 * volume's creation time as text. */
/* The attribute strings of a pool and of its volume VI, as tpstatus(8)
 * lists their letters (NUL-terminated). */
void status_pool_attr(const struct pool_info *in, char attr[STATUS_POOL_ATTR_LEN + 1]);
void status_vol_attr(const struct pool_info *in, const struct pool_volume_info *vi,
		     char attr[STATUS_VOL_ATTR_LEN + 1]);

/* One -O key: an index into status_fields and the direction. tpstatus
 * sorts its rows itself, numerically for every field that holds a number
 * (sizes, percentages, counts, also those shown as text such as
 * pool_overprovision), as text for the others: libdevmapper's own sort
 * compares a percentage's sort value as a string (1.02.185, Debian 12;
 * mended upstream only in 2026), and knows no numbers shown as text. */
struct status_key {
	unsigned field;
	int desc;
};

/* The keys of table TYPE in KEYS (a comma list of [+|-]FIELD; a volume
 * field also without its vol_ prefix) into *OUT (malloc'd, NULL for
 * none) and *N: 0, -EINVAL with the bad key copied into BAD, or -ENOMEM. */
int status_parse_keys(uint32_t type, const char *keys, struct status_key **out, unsigned *n,
		      char *bad, size_t bad_len);
/* Compare rows A and B (struct pool_row or struct vol_row, as the keys'
 * table) by the N KEYS: <0, 0 or >0. */
int status_row_cmp(const struct status_key *keys, unsigned n, const void *a, const void *b);

#define STATUS_TIME_LEN 32
void status_pool_row(const struct pool_info *in, struct pool_row *row);
void status_vol_row(const struct pool_info *in, const struct pool_volume_info *vi,
		    char created[STATUS_TIME_LEN], struct vol_row *v);

/* The fields of table TYPE a -o list SPEC (as dm_report_init took it)
 * names, in order, as indexes into status_fields, into *OUT (malloc'd)
 * and *N: 0, 1 when the list names a field that is not of TYPE or one of
 * dm_report's own (help, selected: only dm_report shows those), or
 * -ENOMEM. The names are matched as dm_report matches them: without
 * their underscores and case, with or without the table's prefix, and
 * "all" or PREFIX_all for all the table's fields. */
int status_resolve_fields(uint32_t type, const char *spec, unsigned **out, unsigned *n);
/* Field F's text in ROW (a struct pool_row or vol_row of F's table), as
 * dm_report shows it: pointing into ROW, or into BUF. */
#define STATUS_TEXT_LEN 48
const char *status_field_text(unsigned f, const void *row, char buf[STATUS_TEXT_LEN]);
/* Is field F right-aligned in a table (numbers and sizes)? */
int status_field_right(unsigned f);

/* A size as --units and --nosuffix (status_set_format) say. */
void status_format_size(uint64_t v, char *buf, size_t len);

#endif
