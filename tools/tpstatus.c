/* tpstatus - allocation of pools and volumes at a glance, as a table or
 * JSON (libdevmapper's dm_report; the JSON schema is in tpstatus(8)).
 * The report options follow lvs(8): -o [+]FIELDS, -O sort keys, -S
 * selection (dm_report's own sorting and selection), --separator,
 * --nosuffix, --nameprefixes; an argument POOL/VOLUME reports that
 * volume's row only. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <errno.h>
#include <libdevmapper.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pool_row {
	const char *name, *uuid, *zero, *discards, *when_full, *needs_check, *active, *mode;
	const char *data_dev, *meta_dev;
	uint64_t size, chunk, data_used, meta_used, meta_size, tid, nr_volumes, virtual_total;
	uint64_t data_pct, meta_pct;	/* hundredths of a percent */
	uint64_t data_offset, meta_offset, meta_len, spare_offset;
};

struct vol_row {
	const char *pool, *name, *origin, *created;
	uint64_t size, mapped, exclusive, shared, mapped_pct, dev_id;
};

enum { T_POOL = 1, T_VOL = 2 };

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

static int f_size(struct dm_report *rh, struct dm_pool *mem, struct dm_report_field *f,
		  const void *d, void *priv)
{
	uint64_t v = *(const uint64_t *)d;
	char buf[48];

	(void)rh;
	(void)priv;
	if (!units)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	else
		tp_size_format(v, units, buf, sizeof(buf));
	if (nosuffix)
		buf[strspn(buf, "0123456789.")] = '\0';
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

static const struct dm_report_object_type types[] = {
	{ T_POOL, "Pool", "pool_", obj },
	{ T_VOL, "Volume", "vol_", obj },
	{ 0, NULL, NULL, NULL },
};

#define L DM_REPORT_FIELD_ALIGN_LEFT
#define R DM_REPORT_FIELD_ALIGN_RIGHT
#define STR (DM_REPORT_FIELD_TYPE_STRING | L)
#define NUM DM_REPORT_FIELD_TYPE_NUMBER
#define SZ DM_REPORT_FIELD_TYPE_SIZE
#define PCT DM_REPORT_FIELD_TYPE_PERCENT
#define P(f) offsetof(struct pool_row, f)
#define V(f) offsetof(struct vol_row, f)

static const struct dm_report_field_type fields[] = {
	{ T_POOL, STR, P(name), 4, "pool_name", "Pool", f_str, "pool name" },
	{ T_POOL, SZ, P(size), 4, "pool_size", "Size", f_size, "data area size" },
	{ T_POOL, SZ, P(chunk), 5, "pool_chunk", "Chunk", f_size, "chunk (data block) size" },
	{ T_POOL, STR, P(zero), 4, "pool_zero", "Zero", f_str, "new chunks zeroed (yes/no)" },
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
	  "kernel mode: rw, ro, out_of_data_space; - when inactive" },
	{ T_POOL, STR, P(uuid), 4, "pool_uuid", "UUID", f_str, "pool uuid" },
	{ T_POOL, STR, P(discards), 8, "pool_discards", "Discards", f_str, "discard handling" },
	{ T_POOL, STR, P(when_full), 8, "pool_when_full", "WhenFull", f_str,
	  "queue or error when full" },
	{ T_POOL, STR, P(needs_check), 10, "pool_needs_check", "NeedsCheck", f_str,
	  "thin metadata flagged for checking" },
	{ T_POOL, STR, P(data_dev), 7, "pool_data_dev", "DataDev", f_str, "data device path" },
	{ T_POOL, NUM, P(data_offset), 10, "pool_data_offset", "DataOffset", f_num,
	  "byte offset of the data area on the data device" },
	{ T_POOL, STR, P(meta_dev), 7, "pool_meta_dev", "MetaDev", f_str,
	  "metadata device path" },
	{ T_POOL, NUM, P(meta_offset), 10, "pool_meta_offset", "MetaOffset", f_num,
	  "byte offset of the ACTIVE thin-metadata area on the metadata device" },
	{ T_POOL, NUM, P(meta_len), 7, "pool_meta_length", "MetaLen", f_num,
	  "byte length of the active thin-metadata area" },
	{ T_POOL, NUM, P(spare_offset), 11, "pool_spare_offset", "SpareOffset", f_num,
	  "byte offset of the spare thin-metadata area" },
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
	{ T_VOL, STR, V(origin), 6, "vol_origin", "Origin", f_str, "snapshot origin" },
	{ T_VOL, NUM, V(dev_id), 5, "vol_dev_id", "DevId", f_num, "thin device id" },
	{ T_VOL, STR, V(created), 7, "vol_created", "Created", f_str, "creation time (UTC)" },
	{ 0, 0, 0, 0, "", "", NULL, NULL },
};

#define POOL_DEFAULT "pool_name,pool_size,pool_chunk,pool_zero,pool_data_used,pool_data_percent," \
	"pool_meta_used,pool_meta_size,pool_meta_percent,pool_transaction_id,pool_volumes," \
	"pool_virtual,pool_active"
#define VOL_DEFAULT "vol_pool,vol_name,vol_size,vol_mapped,vol_mapped_percent,vol_exclusive," \
	"vol_shared,vol_origin"

static uint64_t pct(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	return (uint64_t)((unsigned __int128)part * 10000 / whole);
}

/* Is NAME (with or without its vol_ prefix) a field of TYPE? */
static int is_field(uint32_t type, const char *name, size_t len)
{
	for (const struct dm_report_field_type *f = fields; f->report_fn; f++) {
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

/* Which table a field name or sort key ("-name") of -o/-O belongs to:
 * pool_* to the pool table, all others to the volume table. */
static int pool_key(const char *tok)
{
	return !strncmp(tok + (*tok == '-' || *tok == '+'), "pool_", 5);
}

/* Append TOK to the comma list DST. */
static void list_add(char *dst, const char *tok)
{
	if (*dst)
		strcat(dst, ",");
	strcat(dst, tok);
}

/* Split the list SPEC (-o FIELDS or -O KEYS) into the pool and volume
 * lists; a leading '+' adds the fields to the defaults POOL_DEF, VOL_DEF. */
static int split_list(const char *spec, const char *pool_def, const char *vol_def, char **pool_f,
		      char **vol_f)
{
	int plus = spec && *spec == '+';
	size_t n = (spec ? strlen(spec) : 0) + strlen(pool_def) + strlen(vol_def) + 2;
	char *copy = strdup(spec ? spec + plus : ""), *tok, *save = NULL;

	*pool_f = calloc(1, n);
	*vol_f = calloc(1, n);
	if (!copy || !*pool_f || !*vol_f) {
		free(copy);
		return -1;
	}
	if (!spec || plus) {
		strcpy(*pool_f, pool_def);
		strcpy(*vol_f, vol_def);
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		list_add(pool_key(tok) ? *pool_f : *vol_f, tok);
	free(copy);
	return 0;
}

/* The table a -S expression selects on: T_POOL or T_VOL by the field
 * names it mentions (quoted values skipped), 0 when it mixes them or
 * names none. */
static uint32_t selection_table(const char *sel)
{
	uint32_t t = 0;

	for (const char *s = sel; *s;) {
		if (*s == '"' || *s == '\'') {
			const char *end = strchr(s + 1, *s);
			s = end ? end + 1 : s + strlen(s);
		} else if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') {
			size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
			uint32_t ft = is_field(T_POOL, s, len) ? T_POOL
				      : is_field(T_VOL, s, len) ? T_VOL : 0;
			if (ft && t && ft != t)
				return 0;
			if (ft)
				t = ft;
			s += len;
		} else {
			s++;
		}
	}
	return t;
}

struct status_opts {
	int json, noheadings, nosuffix, nameprefixes;
	const char *fields, *sort, *select, *separator, *devices;
};

/* One pool or volume table being built. */
struct table {
	struct dm_report *rh;
	int shown;	/* printed (a selection-only report is not) */
};

/* One command-line argument: a pool, or POOL/VOLUME for one volume. */
struct target {
	char pool[POOL_NAME_MAX + 1];
	const char *vol;	/* NULL: the pool and all its volumes */
};

static int report_volumes(const struct pool_info *in, struct dm_report *vr, const char *only)
{
	int ok = 1, found = 0;

	for (unsigned i = 0; ok && i < in->nr_volumes; i++) {
		const struct pool_volume_info *vi = &in->volumes[i];
		struct vol_row v;
		char created[32];
		time_t t = (time_t)vi->creation_time;
		struct tm tm;

		if (only && strcmp(only, vi->name))
			continue;
		found = 1;
		gmtime_r(&t, &tm);
		strftime(created, sizeof(created), "%Y-%m-%d %H:%M:%S", &tm);
		memset(&v, 0, sizeof(v));
		v.pool = in->name;
		v.name = vi->name;
		v.origin = vi->origin;
		v.created = created;
		v.size = vi->size;
		v.mapped = vi->mapped;
		v.exclusive = vi->exclusive;
		v.shared = vi->shared;
		v.mapped_pct = pct(vi->mapped, vi->size);
		v.dev_id = vi->dev_id;
		ok = dm_report_object(vr, &v);
	}
	if (!ok)
		return -ENOMEM;
	if (only && !found) {
		log_error("pool %s has no volume %s; 'tpstatus %s' lists them", in->name, only,
			  in->name);
		return -ENOENT;
	}
	return 0;
}

static void fill_pool_row(const struct pool_info *in, struct pool_row *row)
{
	static const char *const discards[] = { "ignore", "nopassdown", "passdown" };

	memset(row, 0, sizeof(*row));
	row->name = in->name;
	row->uuid = in->uuid;
	row->zero = in->zero ? "yes" : "no";
	row->discards = discards[in->discards];
	row->when_full = in->when_full == POOL_WHEN_FULL_ERROR ? "error" : "queue";
	row->needs_check = in->needs_check ? "yes" : "no";
	row->active = in->live ? "yes" : "no";
	row->mode = !in->live ? "-" : in->out_of_data ? "out_of_data_space"
				     : in->read_only ? "ro" : "rw";
	row->data_dev = in->dev_path[POOL_ROLE_DATA];
	row->meta_dev = in->dev_path[POOL_ROLE_META];
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
}

/* Report the pool row (unless a single volume is asked for) and its
 * volumes; a pool the selection drops takes its volumes with it. */
static int report_pool(struct pool *p, const struct target *t, struct table *pt,
		       struct table *vt)
{
	struct pool_info in;
	struct pool_row row;
	int r = pool_get_info(p, POOL_INFO_USAGE, &in), selected = 1;

	if (r)
		return r;
	fill_pool_row(&in, &row);
	if (pt->rh && !t->vol && !dm_report_object_is_selected(pt->rh, &row, pt->shown, &selected))
		r = -ENOMEM;
	if (!r && selected && vt->rh)
		r = report_volumes(&in, vt->rh, t->vol);
	pool_info_free(&in);
	return r;
}

/* Create the report of table TYPE with FIELDS, KEYS and SELECTION. */
static int table_init(const struct tp_command *cmd, const struct status_opts *o, uint32_t type,
		      const char *fields_s, const char *keys, const char *sel, struct table *t)
{
	uint32_t flags = DM_REPORT_OUTPUT_BUFFERED;
	uint32_t tt = type;

	if (!o->noheadings)
		flags |= DM_REPORT_OUTPUT_HEADINGS;
	if (o->nameprefixes)
		flags |= DM_REPORT_OUTPUT_FIELD_NAME_PREFIX;
	else if (!o->separator)
		flags |= DM_REPORT_OUTPUT_ALIGNED;
	t->rh = dm_report_init_with_selection(&tt, types, fields, fields_s,
					      o->separator ? o->separator : " ", flags, keys, sel,
					      NULL, NULL);
	if (!t->rh)
		return cli_usage_error(cmd, "bad field list '%s'%s%s%s%s (-o help lists the fields)",
				       fields_s, *keys ? ", sort keys '" : "", keys,
				       *keys ? "'" : "", sel ? " or selection" : "");
	if (o->nameprefixes && !dm_report_set_output_field_name_prefix(t->rh, "tp_"))
		return TP_EXIT_FAILED;
	return CLI_CONTINUE;
}

static int output(const struct status_opts *o, struct table *pt, struct table *vt)
{
	struct dm_report_group *g;
	int ok = 1;

	if (!o->json) {
		if (pt->shown)
			ok = dm_report_output(pt->rh);
		if (pt->shown && vt->shown && !dm_report_is_empty(vt->rh) && !o->noheadings)
			putchar('\n');
		if (vt->shown)
			ok = dm_report_output(vt->rh) && ok;
		return ok ? TP_EXIT_OK : TP_EXIT_FAILED;
	}
	g = dm_report_group_create(DM_REPORT_GROUP_JSON, NULL);
	if (!g || !dm_report_group_push(g, NULL, (void *)"report"))
		ok = 0;
	if (ok && pt->shown)
		ok = dm_report_group_push(g, pt->rh, (void *)"pool") && dm_report_output(pt->rh) &&
		     dm_report_group_pop(g);
	if (ok && vt->shown)
		ok = dm_report_group_push(g, vt->rh, (void *)"volume") &&
		     dm_report_output(vt->rh) && dm_report_group_pop(g);
	if (g) {
		dm_report_group_pop(g);
		dm_report_group_destroy(g);
		putchar('\n');
	}
	return ok ? TP_EXIT_OK : TP_EXIT_FAILED;
}

static int run_status(const struct tp_command *cmd, const struct status_opts *o,
		      const struct target *targets, unsigned n)
{
	char *pool_f = NULL, *vol_f = NULL, *pool_k = NULL, *vol_k = NULL;
	struct table pt = { NULL, 0 }, vt = { NULL, 0 };
	const char *pool_sel = NULL, *vol_sel = NULL;
	int rc = CLI_CONTINUE, any_pool = !n;

	for (unsigned i = 0; i < n; i++)
		any_pool |= !targets[i].vol;
	if (o->select) {
		/* "-S help" lists the pool fields and the operators */
		uint32_t t = !strcmp(o->select, "help") ? T_POOL : selection_table(o->select);
		if (!t)
			return cli_usage_error(cmd, "-S must name fields of one table, pool_* or "
						    "vol_* (-o help lists them)");
		*(t == T_POOL ? &pool_sel : &vol_sel) = o->select;
	}
	if (split_list(o->fields, o->json ? "pool_all" : POOL_DEFAULT,
		       o->json ? "vol_all" : VOL_DEFAULT, &pool_f, &vol_f) ||
	    split_list(o->sort, "", "", &pool_k, &vol_k)) {
		rc = TP_EXIT_FAILED;
		goto out;
	}
	/* the pool table is built for a selection on it even when not shown */
	pt.shown = *pool_f && any_pool;
	vt.shown = !!*vol_f;
	if (pt.shown || pool_sel)
		rc = table_init(cmd, o, T_POOL, *pool_f ? pool_f : "pool_name", pool_k, pool_sel,
				&pt);
	if (rc == CLI_CONTINUE && vt.shown)
		rc = table_init(cmd, o, T_VOL, vol_f, vol_k, vol_sel, &vt);
	if (rc != CLI_CONTINUE)
		goto out;
	rc = TP_EXIT_OK;
	if (o->select && !strcmp(o->select, "help"))
		goto out;	/* dm_report printed the help */
	pt.shown = pt.shown && pt.rh;
	for (unsigned i = 0; i < n; i++) {
		struct pool *p;
		int r = pool_open(targets[i].pool, o->devices, POOL_RDONLY, &p);
		if (!r) {
			r = report_pool(p, &targets[i], &pt, &vt);
			pool_close(p);
		}
		if (r)
			rc = tp_exit_from_errno(r);
	}
	if (output(o, &pt, &vt))
		rc = TP_EXIT_FAILED;
out:
	if (pt.rh)
		dm_report_free(pt.rh);
	if (vt.rh)
		dm_report_free(vt.rh);
	free(pool_f);
	free(vol_f);
	free(pool_k);
	free(vol_k);
	return rc;
}

/* The arguments as targets: POOL, or POOL/VOLUME; without any, every pool
 * of the devices file. Returns 0, -EINVAL (a bad name) or -ENOMEM. */
static int targets_from(const char **args, int nargs, struct target **out, unsigned *n)
{
	char **names = NULL;
	unsigned count = (unsigned)nargs;
	struct target *t;

	if (!nargs && pool_list_names(&names, &count))
		return -ENOMEM;
	t = calloc(count ? count : 1, sizeof(*t));
	for (unsigned i = 0; t && i < count; i++) {
		char vol[POOL_NAME_MAX + 1];
		const char *a = nargs ? args[i] : names[i];
		if (!strchr(a, '/')) {
			snprintf(t[i].pool, sizeof(t[i].pool), "%s", a);
		} else if (pool_split_volume_spec(a, t[i].pool, vol)) {
			free(t);
			t = NULL;
			count = 0;
		} else {
			t[i].vol = strchr(a, '/') + 1;
		}
	}
	for (unsigned i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
	*out = t;
	*n = count;
	return t ? 0 : nargs ? -EINVAL : -ENOMEM;
}

int cmd_tpstatus(const struct tp_command *cmd, int argc, const char **argv)
{
	struct status_opts o;
	const char *units_s = NULL, **args;
	struct target *targets = NULL;
	unsigned n = 0;
	int rc, nargs, r;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "json", 'j', POPT_ARG_NONE, &o.json, 0, "JSON output (schema in tpstatus(8))", NULL },
		{ "units", '\0', POPT_ARG_STRING, &units_s, 0,
		  "size units: h (human, default), b, s, k, m, g, t, p", "UNIT" },
		{ "nosuffix", '\0', POPT_ARG_NONE, &o.nosuffix, 0, "sizes without their unit", NULL },
		{ "noheadings", '\0', POPT_ARG_NONE, &o.noheadings, 0, "no column headings", NULL },
		{ "nameprefixes", '\0', POPT_ARG_NONE, &o.nameprefixes, 0,
		  "print TP_FIELD='value' pairs", NULL },
		{ "separator", '\0', POPT_ARG_STRING, &o.separator, 0,
		  "separate the columns with this string, unaligned", "SEP" },
		{ "options", 'o', POPT_ARG_STRING, &o.fields, 0,
		  "fields to show, comma separated (pool_* and vol_*; +FIELDS adds to the "
		  "default; -o help lists them)", "[+]FIELDS" },
		{ "sort", 'O', POPT_ARG_STRING, &o.sort, 0,
		  "sort the rows by these fields (-FIELD: descending)", "FIELDS" },
		{ "select", 'S', POPT_ARG_STRING, &o.select, 0,
		  "only the rows that match (e.g. 'pool_data_percent>80')", "EXPR" },
		{ "devices", '\0', POPT_ARG_STRING, &o.devices, 0,
		  "the pool's devices, instead of the devices file (one pool only)", "DATA,META" },
		POPT_TABLEEND
	};

	memset(&o, 0, sizeof(o));
	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	units = o.json ? 0 : 'h';
	nosuffix = o.nosuffix;
	if (units_s) {
		if (strlen(units_s) != 1 || !tp_units_valid(units_s[0])) {
			rc = cli_usage_error(cmd, "--units takes one of h, b, s, k, m, g, t, p");
			goto out;
		}
		units = units_s[0];
	}
	if (o.devices && nargs != 1) {
		rc = cli_usage_error(cmd, "--devices needs exactly one POOL");
		goto out;
	}
	r = targets_from(args, nargs, &targets, &n);
	if (r) {
		rc = r == -EINVAL ? cli_usage_error(cmd, "bad POOL or POOL/VOLUME argument")
				  : TP_EXIT_FAILED;
		goto out;
	}
	rc = run_status(cmd, &o, targets, n);
	free(targets);
out:
	cli_end(&cli);
	return rc;
}
