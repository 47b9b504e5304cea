/* tpstatus - allocation of pools and volumes at a glance, as a table or
 * JSON (libdevmapper's dm_report; the JSON schema is in tpstatus(8)). */
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
	return set_text(mem, f, buf, v);
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
	return set_text(mem, f, buf, v);
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
#define NUM (DM_REPORT_FIELD_TYPE_NUMBER | R)
#define SZ (DM_REPORT_FIELD_TYPE_SIZE | R)
#define PCT (DM_REPORT_FIELD_TYPE_PERCENT | R)
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

/* Split -o FIELDS into the pool and volume lists by prefix. */
static int split_fields(const char *spec, char **pool_f, char **vol_f)
{
	size_t n = strlen(spec) + 1;
	char *copy = strdup(spec), *tok, *save = NULL;

	*pool_f = calloc(1, n);
	*vol_f = calloc(1, n);
	if (!copy || !*pool_f || !*vol_f) {
		free(copy);
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dst = !strncmp(tok, "pool_", 5) ? *pool_f : *vol_f;
		if (*dst)
			strcat(dst, ",");
		strcat(dst, tok);
	}
	free(copy);
	return 0;
}

struct status_opts {
	int json, noheadings;
	const char *fields, *devices;
};

static int report_volumes(const struct pool_info *in, struct dm_report *vr)
{
	int ok = 1;

	for (unsigned i = 0; ok && i < in->nr_volumes; i++) {
		const struct pool_volume_info *vi = &in->volumes[i];
		struct vol_row v;
		char created[32];
		time_t t = (time_t)vi->creation_time;
		struct tm tm;

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
	return ok;
}

static int report_pool(struct pool *p, struct dm_report *pr, struct dm_report *vr)
{
	static const char *const discards[] = { "ignore", "nopassdown", "passdown" };
	struct pool_info in;
	struct pool_row row;
	int r = pool_get_info(p, POOL_INFO_USAGE, &in), ok = 1;

	if (r)
		return r;
	memset(&row, 0, sizeof(row));
	row.name = in.name;
	row.uuid = in.uuid;
	row.zero = in.zero ? "yes" : "no";
	row.discards = discards[in.discards];
	row.when_full = in.when_full == POOL_WHEN_FULL_ERROR ? "error" : "queue";
	row.needs_check = in.needs_check ? "yes" : "no";
	row.active = in.live ? "yes" : "no";
	row.mode = !in.live ? "-" : in.out_of_data ? "out_of_data_space" : in.read_only ? "ro" : "rw";
	row.data_dev = in.dev_path[POOL_ROLE_DATA];
	row.meta_dev = in.dev_path[POOL_ROLE_META];
	row.size = in.data_size;
	row.chunk = in.chunk;
	row.data_used = in.data_used;
	row.data_pct = pct(in.data_used, in.data_size);
	row.meta_used = in.meta_used;
	row.meta_size = in.meta_size;
	row.meta_pct = pct(in.meta_used, in.meta_size);
	row.tid = in.transaction_id;
	row.nr_volumes = in.nr_volumes;
	row.virtual_total = in.virtual_total;
	row.data_offset = in.data_offset;
	row.meta_offset = in.meta_offset;
	row.meta_len = in.meta_length;
	row.spare_offset = in.spare_offset;
	if (pr)
		ok = dm_report_object(pr, &row);
	if (ok && vr)
		ok = report_volumes(&in, vr);
	pool_info_free(&in);
	return ok ? 0 : -ENOMEM;
}

static int run_status(const struct tp_command *cmd, const struct status_opts *o, char **names,
		      unsigned n)
{
	uint32_t flags = DM_REPORT_OUTPUT_BUFFERED | DM_REPORT_OUTPUT_ALIGNED;
	uint32_t tp = T_POOL, tv = T_VOL;
	char *pool_f = NULL, *vol_f = NULL;
	struct dm_report *pr = NULL, *vr = NULL;
	struct dm_report_group *g = NULL;
	int rc = TP_EXIT_OK;

	if (!o->noheadings)
		flags |= DM_REPORT_OUTPUT_HEADINGS;
	if (o->fields) {
		if (split_fields(o->fields, &pool_f, &vol_f)) {
			rc = TP_EXIT_FAILED;
			goto out;
		}
	} else if (!(pool_f = strdup(o->json ? "pool_all" : POOL_DEFAULT)) ||
		   !(vol_f = strdup(o->json ? "vol_all" : VOL_DEFAULT))) {
		rc = TP_EXIT_FAILED;
		goto out;
	}
	if (*pool_f && !(pr = dm_report_init(&tp, types, fields, pool_f, " ", flags, NULL, NULL))) {
		rc = cli_usage_error(cmd, "bad field list '%s' (-o help lists the fields)", pool_f);
		goto out;
	}
	if (*vol_f && !(vr = dm_report_init(&tv, types, fields, vol_f, " ", flags, NULL, NULL))) {
		rc = cli_usage_error(cmd, "bad field list '%s' (-o help lists the fields)", vol_f);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		struct pool *p;
		int r = pool_open(names[i], o->devices, POOL_RDONLY, &p);
		if (!r) {
			r = report_pool(p, pr, vr);
			pool_close(p);
		}
		if (r)
			rc = tp_exit_from_errno(r);
	}
	if (o->json) {
		g = dm_report_group_create(DM_REPORT_GROUP_JSON, NULL);
		if (!g || !dm_report_group_push(g, NULL, (void *)"report")) {
			rc = TP_EXIT_FAILED;
			goto out;
		}
		if (pr && (!dm_report_group_push(g, pr, (void *)"pool") || !dm_report_output(pr) ||
			   !dm_report_group_pop(g)))
			rc = TP_EXIT_FAILED;
		if (vr && (!dm_report_group_push(g, vr, (void *)"volume") ||
			   !dm_report_output(vr) || !dm_report_group_pop(g)))
			rc = TP_EXIT_FAILED;
		dm_report_group_pop(g);
	} else {
		if (pr)
			dm_report_output(pr);
		if (pr && vr && !dm_report_is_empty(vr))
			putchar('\n');
		if (vr)
			dm_report_output(vr);
	}
out:
	if (g) {
		dm_report_group_destroy(g);
		putchar('\n');
	}
	if (pr)
		dm_report_free(pr);
	if (vr)
		dm_report_free(vr);
	free(pool_f);
	free(vol_f);
	return rc;
}

int cmd_tpstatus(const struct tp_command *cmd, int argc, const char **argv)
{
	struct status_opts o = { 0, 0, NULL, NULL };
	const char *units_s = NULL, **args;
	char **names = NULL;
	unsigned n = 0;
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "json", 'j', POPT_ARG_NONE, &o.json, 0, "JSON output (schema in tpstatus(8))", NULL },
		{ "units", '\0', POPT_ARG_STRING, &units_s, 0,
		  "size units: h (human, default), b, s, k, m, g, t, p", "UNIT" },
		{ "noheadings", '\0', POPT_ARG_NONE, &o.noheadings, 0, "no column headings", NULL },
		{ "options", 'o', POPT_ARG_STRING, &o.fields, 0,
		  "fields to show, comma separated (pool_* and vol_*; -o help lists them)",
		  "FIELDS" },
		{ "devices", '\0', POPT_ARG_STRING, &o.devices, 0,
		  "the pool's devices, instead of the devices file (one pool only)", "DATA,META" },
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	units = o.json ? 0 : 'h';
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
	if (nargs) {
		names = (char **)args;
		n = (unsigned)nargs;
	} else if (pool_list_names(&names, &n)) {
		rc = TP_EXIT_FAILED;
		goto out;
	}
	rc = run_status(cmd, &o, names, n);
	if (!nargs) {
		for (unsigned i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
out:
	cli_end(&cli);
	return rc;
}
