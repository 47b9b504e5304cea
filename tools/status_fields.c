/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status_fields.c - the rows and fields of tpstatus's reports; see
 * status_fields.h. */
#include "tools/status_fields.h"

#include "lib/base/units.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* --units; 0 = bare byte counts (JSON without --units). */
static char units = 'h';
/* --nosuffix: sizes without their unit. */
static int nosuffix;

static int f_str(struct dm_report *rh, struct dm_pool *mem, struct dm_report_field *f,
		 const void *d, void *priv)
{
	(void)mem;
	(void)priv;
	return dm_report_field_string(rh, f, (const char *const *)d);
}

static int f_num(struct dm_report *rh, struct dm_pool *mem, struct dm_report_field *f,
		 const void *d, void *priv)
{
	(void)mem;
	(void)priv;
	return dm_report_field_uint64(rh, f, (const uint64_t *)d);
}

static int set_text(struct dm_pool *mem, struct dm_report_field *f, const char *text,
		    uint64_t sortval)
{
	char *s = dm_pool_strdup(mem, text);
	uint64_t *sv = dm_pool_alloc(mem, sizeof(*sv));

	if (!s || !sv)
		return 0;
	*sv = sortval;
	dm_report_field_set_value(f, s, sv);
	return 1;
}

/* A size's sort value: dm_report selects on a double count of 512-byte
 * sectors and sorts on its bits as a uint64 (the same order for
 * non-negative doubles). */
static int set_size(struct dm_pool *mem, struct dm_report_field *f, const char *text,
		    uint64_t bytes)
{
	char *s = dm_pool_strdup(mem, text);
	double *sv = dm_pool_alloc(mem, sizeof(*sv));

	if (!s || !sv)
		return 0;
	*sv = (double)bytes / TP_SECTOR_SIZE;
	dm_report_field_set_value(f, s, sv);
	return 1;
}

static char *decimal(uint64_t v, char *end);

/* V as --units h prints it when it is a whole number of its unit
 * ("1 GiB", "0 B"; tp_size_format's text), written here: a report of
 * many volumes prints one for nearly every volume. 0 when V is not
 * whole, or BUF too short: tp_size_format says it. */
static int whole_human(uint64_t v, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	char digits[24], *d;
	uint64_t mult = 1;
	size_t nd, nn;
	int i = 0;

	while (i < 5 && v / mult >= 1024) {
		mult *= 1024;
		i++;
	}
	if (v % mult)
		return 0;
	digits[sizeof(digits) - 1] = '\0';
	d = decimal(v / mult, digits + sizeof(digits) - 1);
	nd = strlen(d);
	nn = strlen(names[i]);
	if (nd + 1 + nn >= len)
		return 0;
	memcpy(buf, d, nd);
	buf[nd] = ' ';
	memcpy(buf + nd + 1, names[i], nn + 1);
	return 1;
}

/* A size as --units and --nosuffix say, for every field that holds one. */
void status_format_size(uint64_t v, char *buf, size_t len)
{
	char digits[24];

	digits[sizeof(digits) - 1] = '\0';
	if (!units)
		snprintf(buf, len, "%s", decimal(v, digits + sizeof(digits) - 1));
	else if (units != 'h' || !whole_human(v, buf, len))
		tp_size_format(v, units, buf, len);
	if (nosuffix)
		buf[strspn(buf, "0123456789.")] = '\0';
}

static int f_size(struct dm_report *rh, struct dm_pool *mem, struct dm_report_field *f,
		  const void *d, void *priv)
{
	uint64_t v = *(const uint64_t *)d;
	char buf[48];

	(void)rh;
	(void)priv;
	status_format_size(v, buf, sizeof(buf));
	return set_size(mem, f, buf, v);
}

static int f_pct(struct dm_report *rh, struct dm_pool *mem, struct dm_report_field *f,
		 const void *d, void *priv)
{
	uint64_t v = *(const uint64_t *)d;
	char buf[32];

	(void)rh;
	(void)priv;
	snprintf(buf, sizeof(buf), "%llu.%02llu", (unsigned long long)(v / 100),
		 (unsigned long long)(v % 100));
	/* dm_report's percent unit (DM_PERCENT_1 = 1%), for -S and -O */
	return set_text(mem, f, buf, v * (DM_PERCENT_1 / 100));
}

static void *obj(void *o) { return o; }

const struct dm_report_object_type status_types[] = {
	{ T_POOL, "Pool", "pool_", obj },
	{ T_VOL, "Volume", "vol_", obj },
	{ 0, NULL, NULL, NULL },
};

#define L DM_REPORT_FIELD_ALIGN_LEFT
#define STR (DM_REPORT_FIELD_TYPE_STRING | L)
#define NUM DM_REPORT_FIELD_TYPE_NUMBER
#define SZ DM_REPORT_FIELD_TYPE_SIZE
#define PCT DM_REPORT_FIELD_TYPE_PERCENT
#define P(f) offsetof(struct pool_row, f)
#define V(f) offsetof(struct vol_row, f)

const struct dm_report_field_type status_fields[] = {
	{ T_POOL, STR, P(name), 4, "pool_name", "Pool", f_str, "pool name" },
	{ T_POOL, SZ, P(size), 4, "pool_size", "Size", f_size, "data area size" },
	{ T_POOL, SZ, P(chunk), 5, "pool_chunk", "Chunk", f_size, "chunk (data block) size" },
	{ T_POOL, STR, P(zero), 4, "pool_zero", "Zero", f_str, "new chunks zeroed (yes/no)" },
	{ T_POOL, STR, P(profile), 7, "pool_profile", "Profile", f_str,
	  "geometry profile (balanced, throughput, snapshots, custom; - before profiles)" },
	{ T_POOL, SZ, P(data_used), 4, "pool_data_used", "Data", f_size, "data in use" },
	{ T_POOL, PCT, P(data_pct), 5, "pool_data_percent", "Data%", f_pct, "data in use, %" },
	{ T_POOL, SZ, P(meta_used), 4, "pool_meta_used", "Meta", f_size, "metadata in use" },
	{ T_POOL, SZ, P(meta_size), 8, "pool_meta_size", "MetaSize", f_size,
	  "size of the active thin-metadata area" },
	{ T_POOL, PCT, P(meta_pct), 5, "pool_meta_percent", "Meta%", f_pct,
	  "metadata in use, %" },
	{ T_POOL, NUM, P(tid), 7, "pool_transaction_id", "TransId", f_num, "transaction id" },
	{ T_POOL, NUM, P(nr_volumes), 4, "pool_volumes", "#Vol", f_num, "number of volumes" },
	{ T_POOL, SZ, P(virtual_total), 7, "pool_virtual", "Virtual", f_size,
	  "sum of the volumes' virtual sizes (over-provisioning when above Size)" },
	{ T_POOL, STR, P(active), 6, "pool_active", "Active", f_str,
	  "loaded in the kernel (yes/no); then the figures are the kernel's" },
	{ T_POOL, STR, P(mode), 4, "pool_mode", "Mode", f_str,
	  "kernel mode: rw, ro, out_of_data_space, failed; - when inactive" },
	{ T_POOL, STR, P(uuid), 4, "pool_uuid", "UUID", f_str, "pool uuid" },
	{ T_POOL, STR, P(discards), 8, "pool_discards", "Discards", f_str, "discard handling" },
	{ T_POOL, STR, P(when_full), 8, "pool_when_full", "WhenFull", f_str,
	  "queue or error when full" },
	{ T_POOL, STR, P(needs_check), 10, "pool_needs_check", "NeedsCheck", f_str,
	  "thin metadata flagged for checking" },
	{ T_POOL, STR, P(data_dev), 7, "pool_data_dev", "DataDev", f_str, "data device path" },
	{ T_POOL, STR, P(devices), 7, "pool_devices", "Devices", f_str,
	  "every data device in the data area's order, comma-separated" },
	{ T_POOL, STR, P(orphans), 7, "pool_orphans", "Orphans", f_str,
	  "devices whose label names the pool while its VG does not (orphan labels, "
	  "comma-separated; its next change wipes them); - none" },
	{ T_POOL, NUM, P(data_offset), 10, "pool_data_offset", "DataOffset", f_num,
	  "byte offset of the data area on the first data device (each device's: "
	  "--devices-report)" },
	{ T_POOL, STR, P(meta_dev), 7, "pool_meta_dev", "MetaDev", f_str,
	  "metadata device path" },
	{ T_POOL, STR, P(meta_health), 10, "pool_meta_health", "MetaHealth", f_str,
	  "thin metadata: single, or mirrored, resyncing, degraded (a leg out), damaged (bad "
	  "blocks on a leg)" },
	{ T_POOL, STR, P(meta_legs), 8, "pool_meta_legs", "MetaLegs", f_str,
	  "the metadata mirror's two legs, each PATH(STATE); - for one device" },
	{ T_POOL, STR, P(meta_integrity), 9, "pool_meta_integrity", "Integrity", f_str,
	  "dm-integrity under the metadata mirror's legs: on, computing (tags N%), none, or - "
	  "for one metadata device" },
	{ T_POOL, NUM, P(meta_mismatches), 10, "pool_meta_mismatches", "Mismatches", f_num,
	  "active, with integrity: bad reads of a leg corrected from the other since activation" },
	{ T_POOL, NUM, P(meta_bad), 7, "pool_meta_bad_blocks", "MetaBad", f_num,
	  "metadata blocks known bad on a mirror leg and good on the other (tprepair rewrites them)" },
	{ T_POOL, STR, P(meta_scrub), 9, "pool_meta_scrub", "MetaScrub", f_str,
	  "when tpcheck or tprepair last compared the mirror's legs (UTC); - when never here" },
	{ T_POOL, NUM, P(meta_scrub_mismatched), 13, "pool_meta_scrub_mismatches", "ScrubMismatch",
	  f_num, "blocks that validate on both legs but differ, as the last scrub left them" },
	{ T_POOL, NUM, P(meta_offset), 10, "pool_meta_offset", "MetaOffset", f_num,
	  "byte offset of the ACTIVE thin-metadata area on the metadata device" },
	{ T_POOL, NUM, P(meta_len), 7, "pool_meta_length", "MetaLen", f_num,
	  "byte length of the active thin-metadata area" },
	{ T_POOL, NUM, P(spare_offset), 11, "pool_spare_offset", "SpareOffset", f_num,
	  "byte offset of the spare thin-metadata area" },
	{ T_POOL, NUM, P(metadata_format), 6, "pool_metadata_format", "Format", f_num,
	  "the VG metadata's format: 2, a change writes a record; 1, the whole text (pools "
	  "made before format 2; tpchange --metadata-format)" },
	{ T_POOL, SZ, P(vg_area), 6, "pool_vg_area", "VGArea", f_size,
	  "VG text one copy in the VG metadata area holds (tpcreate --vg-area; the smallest "
	  "device's)" },
	{ T_POOL, SZ, P(vg_area_used), 6, "pool_vg_area_used", "VGUsed", f_size,
	  "VG text the pool's state takes now" },
	{ T_POOL, PCT, P(vg_area_pct), 7, "pool_vg_area_percent", "VGArea%", f_pct,
	  "VG metadata area in use, %: at 100 no volume can be added" },
	{ T_POOL, NUM, P(warn), 4, "pool_warn", "Warn", f_num,
	  "percent used (data or metadata) warned about; 0 = never" },
	{ T_POOL, NUM, P(autoextend_threshold), 10, "pool_autoextend_threshold", "AutoExtend",
	  f_num, "percent used at which tpmonitor grows the pool; 100 = never" },
	{ T_POOL, STR, P(autoextend_by), 8, "pool_autoextend_by", "ExtendBy", f_str,
	  "what one growth adds: a percentage of the area or a size" },
	{ T_POOL, STR, P(autoextend_max), 9, "pool_autoextend_max", "ExtendMax", f_str,
	  "the data size tpmonitor never grows the pool past; none = no limit" },
	{ T_POOL, STR, P(autoextend_device), 16, "pool_autoextend_device", "ExtendDevice",
	  f_str, "the device tpmonitor adds when the data devices have no room; none = none" },
	{ T_POOL, STR, P(overprovision), 9, "pool_overprovision", "OverProv", f_str,
	  "the volumes' virtual sizes over the data size (1.00 = as large as the pool)" },
	{ T_POOL, STR, P(max_overprovision), 7, "pool_max_overprovision", "MaxOver", f_str,
	  "the most pool_overprovision may become (--max-overprovision); none = unlimited" },
	{ T_POOL, STR, P(monitor), 7, "pool_monitor", "Monitor", f_str,
	  "tpmonitor's last action on the pool (UTC time and what); - when none" },
	{ T_POOL, STR, P(activation_skip), 4, "pool_activation_skip", "Skip", f_str,
	  "passed by activation of all pools (yes/no)" },
	{ T_POOL, STR, P(attr), 4, "pool_attr", "Attr", f_str,
	  "attributes, a letter each: mode, active, when full, zeroing, needs_check, "
	  "discards, activation skip, unfinished receive, foreign" },
	{ T_POOL, STR, P(system_id), 8, "pool_system_id", "SystemID", f_str,
	  "the system id of the host that owns the pool (tptools.conf(5)); - when none" },
	{ T_POOL, STR, P(lock_type), 8, "pool_lock_type", "LockType", f_str,
	  "sanlock for a pool on shared storage (tpcreate --lock-type), else none" },
	{ T_POOL, STR, P(lease_owner), 10, "pool_lease_owner", "LeaseOwner", f_str,
	  "the sanlock host id that holds a shared pool's lease, none, ? when this host's "
	  "sanlock daemon does not answer; - for a pool of one host" },
	{ T_VOL, STR, V(pool), 4, "vol_pool", "Pool", f_str, "pool name" },
	{ T_VOL, STR, V(name), 6, "vol_name", "Volume", f_str, "volume name" },
	{ T_VOL, SZ, V(size), 4, "vol_size", "Size", f_size, "virtual size" },
	{ T_VOL, SZ, V(mapped), 6, "vol_mapped", "Mapped", f_size, "data mapped" },
	{ T_VOL, PCT, V(mapped_pct), 7, "vol_mapped_percent", "Mapped%", f_pct,
	  "data mapped, % of the virtual size" },
	{ T_VOL, SZ, V(exclusive), 9, "vol_exclusive", "Exclusive", f_size,
	  "data mapped by this volume only" },
	{ T_VOL, SZ, V(shared), 6, "vol_shared", "Shared", f_size,
	  "data shared with snapshots or origins" },
	{ T_VOL, SZ, V(highest_mapped), 7, "vol_highest_mapped", "Highest", f_size,
	  "end of the highest chunk mapped: nothing is mapped at or above it" },
	{ T_VOL, STR, V(origin), 6, "vol_origin", "Origin", f_str, "snapshot origin" },
	{ T_VOL, NUM, V(dev_id), 5, "vol_dev_id", "DevId", f_num, "thin device id" },
	{ T_VOL, STR, V(read_only), 2, "vol_read_only", "RO", f_str, "read-only (yes/no)" },
	{ T_VOL, STR, V(activation_skip), 4, "vol_activation_skip", "Skip", f_str,
	  "passed by activation of all volumes (yes/no)" },
	{ T_VOL, STR, V(content_uuid), 11, "vol_content_uuid", "ContentUUID", f_str,
	  "a read-only volume's content uuid (the base incremental streams name)" },
	{ T_VOL, STR, V(encrypted), 3, "vol_encrypted", "Enc", f_str,
	  "an encrypted volume, its content a LUKS2 device (yes/no)" },
	{ T_VOL, STR, V(luks_uuid), 8, "vol_luks_uuid", "LUKSUUID", f_str,
	  "an encrypted volume's LUKS2 header uuid" },
	{ T_VOL, STR, V(unlocked), 8, "vol_unlocked", "Unlocked", f_str,
	  "an encrypted volume's plaintext device is loaded (yes/no; no offline)" },
	{ T_VOL, STR, V(created), 7, "vol_created", "Created", f_str, "creation time (UTC)" },
	{ T_VOL, STR, V(attr), 4, "vol_attr", "Attr", f_str,
	  "attributes, a letter each: type, permissions, active, open, health, "
	  "activation skip, encryption" },
	{ 0, 0, 0, 0, "", "", NULL, NULL },
};


/* NAME[0..LEN) without its underscores into OUT (OUT_LEN bytes): 0, or
 * -1 when it does not fit (dm_report refuses such a name too). */
static int canonical(const char *name, size_t len, char *out, size_t out_len)
{
	size_t k = 0;

	for (size_t i = 0; i < len && name[i]; i++) {
		if (name[i] == '_')
			continue;
		if (k + 1 >= out_len)
			return -1;
		out[k++] = name[i];
	}
	out[k] = '\0';
	return 0;
}

/* Is the field of canonical id ID the canonical name NAME, alone or after
 * PREFIX (a table's, "pool_" or "vol_")? */
static int same_field(const char *id, const char *name, const char *prefix)
{
	size_t pl = strlen(prefix) - 1;

	return !strcasecmp(id, name) || (!strncasecmp(prefix, id, pl) && !strcasecmp(id + pl, name));
}

int status_resolve_fields(uint32_t type, const char *spec, unsigned **out, unsigned *n)
{
	const char *prefix = type == T_POOL ? "pool_" : "vol_";
	size_t cap = 16;
	unsigned *f = malloc(cap * sizeof(*f));

	*out = NULL;
	*n = 0;
	if (!f)
		return -ENOMEM;
	for (const char *s = spec ? spec : ""; *s;) {
		size_t len = strcspn(s, ",");
		char name[DM_REPORT_FIELD_TYPE_ID_LEN], id[DM_REPORT_FIELD_TYPE_ID_LEN];
		int found = -1, all = 0;

		if (!len) {
			s++;
			continue;
		}
		if (canonical(s, len, name, sizeof(name)))
			goto other;
		/* dm_report's own fields come first: help, ?, selected */
		if (same_field("help", name, prefix) || same_field("?", name, prefix) ||
		    same_field("selected", name, prefix))
			goto other;
		for (int i = 0; found < 0 && status_fields[i].report_fn; i++)
			if (!canonical(status_fields[i].id, strlen(status_fields[i].id), id,
				       sizeof(id)) && same_field(id, name, prefix))
				found = i;
		if (found < 0) {
			/* all, or PREFIX_all (any case, without underscores) */
			char tn[8];

			canonical(prefix, strlen(prefix), tn, sizeof(tn));
			all = !strcasecmp(name, "all") ||
			      (!strncasecmp(name, tn, strlen(tn)) && !strcasecmp(name + strlen(tn), "all"));
			if (!all)
				goto other;	/* another table's all, or no field */
		} else if (status_fields[found].type != type) {
			goto other;
		}
		for (int i = 0; status_fields[i].report_fn; i++) {
			if (all ? status_fields[i].type != type : i != found)
				continue;
			if (*n == cap) {
				unsigned *g = realloc(f, 2 * cap * sizeof(*f));
				if (!g) {
					free(f);
					return -ENOMEM;
				}
				f = g;
				cap *= 2;
			}
			f[(*n)++] = (unsigned)i;
		}
		s += len;
	}
	*out = f;
	return 0;
other:
	free(f);
	*n = 0;
	return 1;
}

/* V in decimal at the end of BUF (BUF_END points past the last digit):
 * its first digit. */
static char *decimal(uint64_t v, char *end)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

const char *status_field_text(unsigned f, const void *row, char buf[STATUS_TEXT_LEN])
{
	const struct dm_report_field_type *ft = &status_fields[f];
	const char *base = row;
	uint64_t v;

	if (ft->report_fn == f_str) {
		const char *t;

		memcpy(&t, base + ft->offset, sizeof(t));
		return t ? t : "";
	}
	memcpy(&v, base + ft->offset, sizeof(v));
	if (ft->report_fn == f_size) {
		status_format_size(v, buf, STATUS_TEXT_LEN);
		return buf;
	}
	buf[STATUS_TEXT_LEN - 1] = '\0';
	if (ft->report_fn == f_pct) {
		/* %llu.%02llu */
		char *p = buf + STATUS_TEXT_LEN - 1;

		*--p = (char)('0' + v % 10);
		*--p = (char)('0' + v / 10 % 10);
		*--p = '.';
		return decimal(v / 100, p);
	}
	return decimal(v, buf + STATUS_TEXT_LEN - 1);	/* f_num: %llu */
}

int status_field_right(unsigned f)
{
	uint32_t fl = status_fields[f].flags;

	if (fl & DM_REPORT_FIELD_ALIGN_MASK)
		return !!(fl & DM_REPORT_FIELD_ALIGN_RIGHT);
	return !!(fl & (DM_REPORT_FIELD_TYPE_NUMBER | DM_REPORT_FIELD_TYPE_SIZE));
}

/* The fields shown as text whose sort value is a number of the row. */
static const struct {
	const char *id;
	size_t key;
} numeric_text[] = {
	{ "pool_overprovision", P(over_key) },
	{ "pool_max_overprovision", P(maxover_key) },
	{ "pool_autoextend_by", P(by_key) },
	{ "pool_autoextend_max", P(max_key) },
	{ "pool_lease_owner", P(lease_key) },
};

/* The field named NAME[0..LEN) of table TYPE (a volume field also without
 * vol_): its index, or -1. */
/* The field of table TYPE that NAME[0..LEN) names as dm_report reads a
 * name (case and underscores ignored, the table's prefix optional), or -1. */
static int field_index(uint32_t type, const char *name, size_t len)
{
	const char *prefix = type == T_POOL ? "pool_" : "vol_";
	char nm[DM_REPORT_FIELD_TYPE_ID_LEN], id[DM_REPORT_FIELD_TYPE_ID_LEN];

	if (canonical(name, len, nm, sizeof(nm)))
		return -1;
	for (int i = 0; status_fields[i].report_fn; i++)
		if (status_fields[i].type == type &&
		    !canonical(status_fields[i].id, strlen(status_fields[i].id), id, sizeof(id)) &&
		    same_field(id, nm, prefix))
			return i;
	return -1;
}

int status_parse_keys(uint32_t type, const char *keys, struct status_key **out, unsigned *n,
		      char *bad, size_t bad_len)
{
	size_t max = 1;

	*out = NULL;
	*n = 0;
	for (const char *c = keys ? keys : ""; *c; c++)
		max += *c == ',';
	if (!keys || !*keys)
		return 0;
	if (!(*out = calloc(max, sizeof(**out))))
		return -ENOMEM;
	for (const char *s = keys; *s;) {
		size_t len = strcspn(s, ",");
		int desc = *s == '-', f = -1;
		size_t skip = desc || *s == '+';

		if (len > skip)
			f = field_index(type, s + skip, len - skip);
		if (f < 0) {
			snprintf(bad, bad_len, "%.*s", (int)len, s);
			free(*out);
			*out = NULL;
			*n = 0;
			return -EINVAL;
		}
		(*out)[(*n)++] = (struct status_key){ (unsigned)f, desc };
		s += len + (s[len] == ',');
	}
	return 0;
}

/* Field F's value in ROW as a number (*NUM, returns 1) or as text (*TEXT,
 * returns 0). */
static int sort_value(const struct dm_report_field_type *f, const void *row, uint64_t *num,
		      const char **text)
{
	const char *base = row;

	if (f->flags & (DM_REPORT_FIELD_TYPE_NUMBER | DM_REPORT_FIELD_TYPE_SIZE |
			DM_REPORT_FIELD_TYPE_PERCENT)) {
		memcpy(num, base + f->offset, sizeof(*num));
		return 1;
	}
	for (size_t i = 0; i < sizeof(numeric_text) / sizeof(numeric_text[0]); i++)
		if (!strcmp(numeric_text[i].id, f->id)) {
			memcpy(num, base + numeric_text[i].key, sizeof(*num));
			return 1;
		}
	memcpy(text, base + f->offset, sizeof(*text));
	return 0;
}

int status_row_cmp(const struct status_key *keys, unsigned n, const void *a, const void *b)
{
	for (unsigned i = 0; i < n; i++) {
		const struct dm_report_field_type *f = &status_fields[keys[i].field];
		uint64_t x, y;
		const char *s, *t;
		int c;

		if (sort_value(f, a, &x, &s)) {
			sort_value(f, b, &y, &t);
			c = x < y ? -1 : x > y;
		} else {
			sort_value(f, b, &y, &t);
			c = strcmp(s ? s : "", t ? t : "");
		}
		if (c)
			return keys[i].desc ? -c : c;
	}
	return 0;
}

static uint64_t pct(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	return (uint64_t)((unsigned __int128)part * 10000 / whole);
}

int status_is_field(uint32_t type, const char *name, size_t len)
{
	for (const struct dm_report_field_type *f = status_fields; f->report_fn; f++) {
		const char *id = f->id;
		if (f->type != type)
			continue;
		if (strlen(id) == len && !strncmp(id, name, len))
			return 1;
		if (type == T_VOL && strlen(id) == len + 4 && !strncmp(id + 4, name, len))
			return 1;
	}
	return 0;
}

static int walk_field(const char *s, size_t len)
{
	static const char *const names[] = { "vol_exclusive", "exclusive", "vol_shared", "shared",
					     "vol_highest_mapped", "highest_mapped",
					     "vol_all", "all" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(names[i], s, len))
			return 1;
	return 0;
}

int status_each_name(const char *text, int (*fn)(const char *name, size_t len, void *arg),
		     void *arg)
{
	for (const char *s = text ? text : ""; *s;) {
		if (*s == '"' || *s == '\'') {
			const char *end = strchr(s + 1, *s);
			s = end ? end + 1 : s + strlen(s);
		} else if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') {
			size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
			int r = fn(s, len, arg);
			if (r)
				return r;
			s += len;
		} else {
			s++;
		}
	}
	return 0;
}

static int names_walk_field(const char *s, size_t len, void *arg)
{
	(void)arg;
	return walk_field(s, len);
}

int status_needs_sharing(const char *text)
{
	return status_each_name(text, names_walk_field, NULL);
}

void status_set_format(char unit, int no_suffix)
{
	units = unit;
	nosuffix = no_suffix;
}

/* No chunk left to provision: the kernel's out-of-data-space mode, or
 * offline a data area whose every chunk is in use. */
static int out_of_data(const struct pool_info *in)
{
	if (in->live)
		return in->out_of_data;
	return in->data_size && in->data_used >= in->data_size;
}

void status_pool_attr(const struct pool_info *in, char attr[STATUS_POOL_ATTR_LEN + 1])
{
	static const char discards[] = { 'i', 'n', 'p' };

	attr[0] = in->live && in->failed ? 'F' : in->live && in->read_only ? 'r'
		  : out_of_data(in) ? 'D' : 'w';
	attr[1] = in->live ? 'a' : '-';
	attr[2] = in->when_full == POOL_WHEN_FULL_ERROR ? 'e' : 'q';
	attr[3] = in->zero ? 'z' : '-';
	attr[4] = in->needs_check ? 'c' : '-';
	attr[5] = discards[in->discards];
	attr[6] = in->activation_skip ? 'k' : '-';
	attr[7] = in->nr_receives ? 'u' : '-';
	attr[8] = in->foreign ? 'f' : '-';
	attr[STATUS_POOL_ATTR_LEN] = '\0';
}

void status_vol_attr(const struct pool_info *in, const struct pool_volume_info *vi,
		     char attr[STATUS_VOL_ATTR_LEN + 1])
{
	attr[0] = vi->origin[0] ? 's' : 'V';
	attr[1] = vi->read_only ? 'r' : 'w';
	attr[2] = vi->active ? 'a' : '-';
	attr[3] = vi->open ? 'o' : '-';
	attr[4] = in->live && in->failed ? 'F' : in->live && in->read_only ? 'M'
		  : out_of_data(in) ? 'D' : in->needs_check ? 'C' : '-';
	attr[5] = vi->activation_skip ? 'k' : '-';
	attr[6] = !vi->luks_uuid[0] ? '-' : vi->unlocked ? 'E' : 'e';
	attr[STATUS_VOL_ATTR_LEN] = '\0';
}

void status_pool_row(const struct pool_info *in, struct pool_row *row)
{
	static const char *const discards[] = { "ignore", "nopassdown", "passdown" };

	memset(row, 0, sizeof(*row));
	row->name = in->name;
	row->uuid = in->uuid;
	row->zero = in->zero ? "yes" : "no";
	row->profile = in->profile;
	row->discards = discards[in->discards];
	row->when_full = in->when_full == POOL_WHEN_FULL_ERROR ? "error" : "queue";
	row->needs_check = in->needs_check ? "yes" : "no";
	row->active = in->live ? "yes" : "no";
	row->mode = !in->live ? "-" : in->failed ? "failed" : in->out_of_data ? "out_of_data_space"
				     : in->read_only ? "ro" : "rw";
	snprintf(row->data_dev_buf, sizeof(row->data_dev_buf), "%s",
		 in->dev_path[POOL_ROLE_DATA] ? in->dev_path[POOL_ROLE_DATA] : "");
	snprintf(row->meta_dev_buf, sizeof(row->meta_dev_buf), "%s",
		 in->dev_path[POOL_ROLE_META] ? in->dev_path[POOL_ROLE_META] : "");
	row->data_dev = row->data_dev_buf;
	row->meta_dev = row->meta_dev_buf;
	row->meta_health = in->meta_health;
	row->meta_legs = in->meta_legs[0] ? in->meta_legs : "-";
	row->meta_bad = in->meta_leg_bad[0] + in->meta_leg_bad[1];
	row->meta_integrity = !in->meta_legs[0] ? "-" : in->meta_integrity ? "on" : "none";
	if (in->meta_integrity && TP_MIN(in->meta_leg_tags_pct[0], in->meta_leg_tags_pct[1]) < 100) {
		snprintf(row->integrity_buf, sizeof(row->integrity_buf), "computing (tags %u%%)",
			 TP_MIN(in->meta_leg_tags_pct[0], in->meta_leg_tags_pct[1]));
		row->meta_integrity = row->integrity_buf;
	}
	for (unsigned i = 0; i < 2; i++)
		row->meta_mismatches += in->meta_leg_mismatches[i] > 0
						? (uint64_t)in->meta_leg_mismatches[i] : 0;
	row->meta_scrub_mismatched = in->meta_scrub_mismatched;
	row->meta_scrub = "-";
	if (in->meta_scrub_time > 0) {
		time_t t = (time_t)in->meta_scrub_time;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(row->scrub_buf, sizeof(row->scrub_buf), "%Y-%m-%d %H:%M:%S", &tm);
		row->meta_scrub = row->scrub_buf;
	}
	for (unsigned i = 0; i < in->nr_data_devs; i++) {
		size_t used = strlen(row->devices_buf);

		snprintf(row->devices_buf + used, sizeof(row->devices_buf) - used, "%s%s",
			 i ? "," : "", in->data_devs[i].path);
	}
	row->devices = row->devices_buf;
	for (unsigned i = 0; i < in->nr_orphans; i++) {
		size_t used = strlen(row->orphans_buf);

		snprintf(row->orphans_buf + used, sizeof(row->orphans_buf) - used, "%s%.*s",
			 i ? "," : "", (int)sizeof(in->orphans[i].path) - 1, in->orphans[i].path);
	}
	row->orphans = in->nr_orphans ? row->orphans_buf : "-";
	row->size = in->data_size;
	row->chunk = in->chunk;
	row->data_used = in->data_used;
	row->data_pct = pct(in->data_used, in->data_size);
	row->meta_used = in->meta_used;
	row->meta_size = in->meta_size;
	row->meta_pct = pct(in->meta_used, in->meta_size);
	row->tid = in->transaction_id;
	row->nr_volumes = in->nr_volumes;
	row->virtual_total = in->virtual_total;
	row->data_offset = in->data_offset;
	row->meta_offset = in->meta_offset;
	row->meta_len = in->meta_length;
	row->spare_offset = in->spare_offset;
	row->vg_area = in->vg_area_size;
	row->metadata_format = in->metadata_format;
	row->vg_area_used = in->vg_area_used;
	row->vg_area_pct = pct(in->vg_area_used, in->vg_area_size);
	row->warn = in->monitor.warn;
	row->autoextend_threshold = in->monitor.autoextend_threshold;
	if (in->monitor.autoextend_size) {
		status_format_size(in->monitor.autoextend_size, row->by_buf, sizeof(row->by_buf));
		row->by_key = (UINT64_C(1) << 63) | in->monitor.autoextend_size;
	} else {
		snprintf(row->by_buf, sizeof(row->by_buf), "%u%%", in->monitor.autoextend_percent);
		row->by_key = in->monitor.autoextend_percent;
	}
	row->autoextend_by = row->by_buf;
	row->autoextend_max = "none";
	row->max_key = UINT64_MAX;
	if (in->monitor.autoextend_max) {
		status_format_size(in->monitor.autoextend_max, row->max_buf, sizeof(row->max_buf));
		row->autoextend_max = row->max_buf;
		row->max_key = in->monitor.autoextend_max;
	}
	row->autoextend_device = in->monitor.autoextend_device[0] ?
		in->monitor.autoextend_device : "none";
	snprintf(row->over_buf, sizeof(row->over_buf), "%.2f",
		 in->data_size ? (double)in->virtual_total / (double)in->data_size : 0.0);
	row->overprovision = row->over_buf;
	row->over_key = pct(in->virtual_total, in->data_size);
	row->max_overprovision = "none";
	row->maxover_key = in->max_overprovision ? in->max_overprovision : UINT64_MAX;
	if (in->max_overprovision) {
		snprintf(row->maxover_buf, sizeof(row->maxover_buf), "%u.%02u",
			 in->max_overprovision / 100, in->max_overprovision % 100);
		row->max_overprovision = row->maxover_buf;
	}
	row->activation_skip = in->activation_skip ? "yes" : "no";
	row->system_id = in->system_id[0] ? in->system_id : "-";
	row->lock_type = in->lock_type ? in->lock_type : "none";
	row->lease_owner = "-";	/* sorts first, then none, ?, host ids */
	if (in->lock_type && !strcmp(in->lock_type, "sanlock")) {
		row->lease_key = in->lease_owner < 0 ? 2 : 1 + (uint64_t)in->lease_owner * 2;
		if (in->lease_owner < 0)
			row->lease_owner = "?";
		else if (!in->lease_owner)
			row->lease_owner = "none";
		else {
			snprintf(row->lease_buf, sizeof(row->lease_buf), "%lld",
				 (long long)in->lease_owner);
			row->lease_owner = row->lease_buf;
		}
	}
	status_pool_attr(in, row->attr_buf);
	row->attr = row->attr_buf;
	row->monitor = "-";
	if (in->monitor_time) {
		time_t t = (time_t)in->monitor_time;
		struct tm tm;
		char when[32];

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(row->monitor_buf, sizeof(row->monitor_buf), "%s %s", when,
			 in->monitor_action);
		row->monitor = row->monitor_buf;
	}
}

/* WHEN as "%Y-%m-%d %H:%M:%S" (UTC) into OUT: the date of the last day
 * asked for is kept, for volumes are mostly made on few days and strftime
 * is most of the cost of a volume's row. */
static void format_created(uint64_t when, char out[STATUS_TIME_LEN])
{
	static int64_t day = -1;
	static char date[16];
	time_t t = (time_t)when;
	struct tm tm;
	int64_t sec;

	if (t < 0 || t > INT64_C(253402300799)) {	/* (after 9999-12-31) */
		gmtime_r(&t, &tm);
		strftime(out, STATUS_TIME_LEN, "%Y-%m-%d %H:%M:%S", &tm);
		return;
	}
	if ((int64_t)t / 86400 != day) {
		time_t midnight = t - t % 86400;

		gmtime_r(&midnight, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d", &tm);
		day = (int64_t)t / 86400;
	}
	sec = (int64_t)t % 86400;
	{
		size_t n = strlen(date);
		int part[3] = { (int)(sec / 3600), (int)(sec / 60 % 60), (int)(sec % 60) };

		memcpy(out, date, n);	/* "%s %02d:%02d:%02d" */
		for (int k = 0; k < 3; k++) {
			out[n++] = k ? ':' : ' ';
			out[n++] = (char)('0' + part[k] / 10);
			out[n++] = (char)('0' + part[k] % 10);
		}
		out[n] = '\0';
	}
}

void status_vol_row(const struct pool_info *in, const struct pool_volume_info *vi,
		    char created[STATUS_TIME_LEN], struct vol_row *v)
{
	format_created(vi->creation_time, created);
	memset(v, 0, sizeof(*v));
	v->pool = in->name;
	v->name = vi->name;
	v->origin = vi->origin;
	v->created = created;
	v->size = vi->size;
	v->mapped = vi->mapped;
	v->exclusive = vi->exclusive;
	v->shared = vi->shared;
	v->highest_mapped = vi->highest_mapped;
	v->mapped_pct = pct(vi->mapped, vi->size);
	v->dev_id = vi->dev_id;
	v->read_only = vi->read_only ? "yes" : "no";
	v->activation_skip = vi->activation_skip ? "yes" : "no";
	v->content_uuid = vi->content_uuid;
	v->encrypted = vi->luks_uuid[0] ? "yes" : "no";
	v->luks_uuid = vi->luks_uuid;
	v->unlocked = vi->unlocked ? "yes" : "no";
	status_vol_attr(in, vi, v->attr_buf);
	v->attr = v->attr_buf;
}
