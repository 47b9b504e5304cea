/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpstatus - allocation of pools and volumes at a glance, as a table or
 * JSON (libdevmapper's dm_report; the JSON schema is in tpstatus(8)), or
 * as Prometheus metrics (--format prometheus, tools/status_prom.h).
 * The report options follow lvs(8): -o [+]FIELDS, -O sort keys (sorted
 * here: numbers as numbers), -S selection (dm_report's), --separator,
 * --nosuffix, --nameprefixes; an argument POOL/VOLUME reports that
 * volume's row only. */
#include "lib/base/dmlog.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "tools/cli.h"
#include "tools/status_fields.h"
#include "tools/status_prom.h"

#include <ctype.h>
#include <errno.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Which table a field name or sort key ("-name") of -o/-O belongs to:
 * pool_* to the pool table, all others to the volume table. The name is
 * read as dm_report reads it, case and underscores ignored (Pool_all,
 * POOLDATADEV): a pool field dm_report matched in the volume table would
 * be read from a volume's row. "pool" alone is vol_pool. */
static int pool_key(const char *tok)
{
	size_t k = 0;

	for (tok += (*tok == '-' || *tok == '+'); *tok && k <= 4; tok++) {
		if (*tok == '_')
			continue;
		if (k < 4 && tolower((unsigned char)*tok) != "pool"[k])
			return 0;
		k++;
	}
	return k > 4;
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
static int name_table(const char *s, size_t len, void *arg)
{
	uint32_t *t = arg, ft = status_is_field(T_POOL, s, len) ? T_POOL
				 : status_is_field(T_VOL, s, len) ? T_VOL : 0;

	if (ft && *t && ft != *t)
		return 1;	/* mixed */
	if (ft)
		*t = ft;
	return 0;
}

static uint32_t selection_table(const char *sel)
{
	uint32_t t = 0;

	return status_each_name(sel, name_table, &t) ? 0 : t;
}

struct status_opts {
	int json, prometheus, noheadings, nosuffix, nameprefixes, allow_component, devices_report;
	int trash;	/* --trash */
	const char *fields, *sort, *select, *separator, *devices;
	char units;	/* --units for --devices-report ('h' when not given) */
};

/* One pool or volume table being built: its rows are kept (with the
 * pool_infos they point into) until every pool is read, then sorted by
 * KEYS (status_row_cmp: numbers as numbers) and given to dm_report in
 * that order. */
struct table {
	struct dm_report *rh;
	int shown;	/* printed (a selection-only report is not) */
	struct status_key *keys;
	unsigned nkeys;
	void **rows;	/* struct pool_row * or struct vol_entry *, malloc'd */
	size_t n, cap;
};

/* A volume row with what it points into: the volume read on its own
 * (pool_info_volume) and the text of its creation time. */
struct vol_entry {
	struct vol_row v;
	char created[STATUS_TIME_LEN];
	struct pool_volume_info vi;
};

/* Keep ROW (malloc'd) in T: 0 or -ENOMEM (ROW freed). */
static int table_keep(struct table *t, void *row)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		void **r = realloc(t->rows, cap * sizeof(*r));
		if (!r) {
			free(row);
			return -ENOMEM;
		}
		t->rows = r;
		t->cap = cap;
	}
	t->rows[t->n++] = row;
	return 0;
}

/* A row and where it was read: equal keys keep the order read (pools by
 * name or as named, volumes as created). */
struct ordered {
	const void *row;
	size_t i;
};

static const struct table *sorting;	/* qsort's comparison has no argument */

static int row_order(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	int c = status_row_cmp(sorting->keys, sorting->nkeys, x->row, y->row);

	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/* T's rows sorted by its keys: 0 or -ENOMEM. */
static int table_sort(struct table *t)
{
	if (t->nkeys && t->n > 1) {
		struct ordered *o = malloc(t->n * sizeof(*o));
		if (!o)
			return -ENOMEM;
		for (size_t i = 0; i < t->n; i++)
			o[i] = (struct ordered){ t->rows[i], i };
		sorting = t;
		qsort(o, t->n, sizeof(*o), row_order);
		for (size_t i = 0; i < t->n; i++)
			t->rows[i] = (void *)o[i].row;
		free(o);
	}
	return 0;
}

/* T's rows sorted by its keys and given to dm_report in that order:
 * 0 or -ENOMEM. */
static int table_flush(struct table *t)
{
	int ok = !table_sort(t);

	for (size_t i = 0; ok && i < t->n; i++)
		ok = dm_report_object(t->rh, t->rows[i]);
	return ok ? 0 : -ENOMEM;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i]);
	free(t->rows);
	free(t->keys);
	if (t->rh)
		dm_report_free(t->rh);
}

/* One command-line argument: a pool, or POOL/VOLUME for one volume. */
struct target {
	char pool[POOL_NAME_MAX + 1];
	const char *vol;	/* NULL: the pool and all its volumes */
};

/* One target read (its pool closed again): its volumes packed
 * (POOL_INFO_BY_VOLUME), each made (pool_info_volume) when its row is:
 * a row of a large pool is written, not held. */
struct source {
	struct pool_info in;
	long only;	/* POOL/VOLUME: that volume's index; -1: every volume */
	int vols;	/* its volumes are rows of the volume table */
};

static unsigned source_rows(const struct source *s)
{
	return !s->vols ? 0 : s->only >= 0 ? 1 : s->in.nr_volumes;
}

/* The row of volume I of S into E. */
static void source_row(const struct source *s, unsigned i, struct vol_entry *e)
{
	pool_info_volume(&s->in, i, &e->vi);
	status_vol_row(&s->in, &e->vi, e->created, &e->v);
}

/* Call FN on each volume row of the N sources, in order. */
static void each_vol_row(const struct source *src, unsigned n,
			 void (*fn)(void *arg, const void *row), void *arg)
{
	struct vol_entry e;

	for (unsigned k = 0; k < n; k++) {
		const struct source *s = &src[k];

		if (!s->vols)
			continue;
		if (s->only >= 0) {
			source_row(s, (unsigned)s->only, &e);
			fn(arg, &e.v);
			continue;
		}
		for (unsigned i = 0; i < s->in.nr_volumes; i++) {
			source_row(s, i, &e);
			fn(arg, &e.v);
		}
	}
}

/* Keep a copy of every volume row of the N sources in VT (for -O, and
 * for dm_report's own output): 0 or -ENOMEM. */
static int keep_vol_rows(const struct source *src, unsigned n, struct table *vt)
{
	int r = 0;

	for (unsigned k = 0; !r && k < n; k++) {
		const struct source *s = &src[k];
		unsigned first = s->only >= 0 ? (unsigned)s->only : 0;

		for (unsigned i = first; !r && i < first + source_rows(s); i++) {
			struct vol_entry *e = malloc(sizeof(*e));

			if (!e)
				return -ENOMEM;
			source_row(s, i, e);
			r = table_keep(vt, e);
		}
	}
	return r;
}

/* A pool the kernel stopped: say what it did and the way back (tptools(7),
 * "When the kernel stops a pool"). */
static void explain_kernel_mode(const struct pool_info *in)
{
	const char *n = in->name;

	if (!in->live)
		return;
	if (in->failed)
		log_warn("pool %s: the kernel has FAILED the pool (an I/O error on its metadata it "
			 "could not recover from; the kernel log says which): its volumes return "
			 "I/O errors and no figures are available. Fix the device, then run "
			 "'tpdeactivate %s', 'tpcheck %s', 'tprepair %s' if it reports damage or "
			 "needs_check, and 'tpactivate %s'", n, n, n, n, n);
	else if (in->read_only && in->needs_check)
		log_warn("pool %s: the kernel has made the pool READ-ONLY and flagged it "
			 "needs_check: a metadata operation failed (the kernel log says why): "
			 "writes to unprovisioned blocks fail. Fix the cause, then run "
			 "'tpdeactivate %s', 'tpcheck %s', 'tprepair %s' and 'tpactivate %s'",
			 n, n, n, n, n);
	else if (in->read_only)
		log_warn("pool %s: the kernel has made the pool READ-ONLY: its thin metadata is "
			 "full (see pool_meta_percent); writes to unprovisioned blocks fail. Run "
			 "'tpdeactivate %s', 'tpextend --metadata-size SIZE %s' (grows the "
			 "metadata into free space of the metadata device) and 'tpactivate %s'",
			 n, n, n, n);
	else if (in->needs_check)
		log_warn("pool %s: the kernel has flagged the pool needs_check; run "
			 "'tpdeactivate %s', 'tpcheck %s', 'tprepair %s' and 'tpactivate %s'",
			 n, n, n, n, n);
	if (in->no_volume_usage)
		log_warn("pool %s: per-volume figures are not available in this mode (the kernel "
			 "refuses the metadata snapshot they are read from); they show as 0", n);
}

/* Devices whose label names the pool while its VG does not: what they
 * are and what wipes them (tptools(7) ORPHAN LABELS). */
static void explain_orphans(const struct pool_info *in)
{
	for (unsigned i = 0; i < in->nr_orphans; i++) {
		const struct pool_orphan_info *o = &in->orphans[i];

		if (o->ahead)
			log_warn("pool %s: %s carries %s: the devices the pool was read from are "
				 "behind its state; 'tpcheck %s' says more", in->name, o->path,
				 o->what, in->name);
		else
			log_warn("pool %s: %s carries an orphan label of the pool (%s); the pool's "
				 "next change wipes it, or 'tprepair %s', or 'tpremove --label %s'",
				 in->name, o->path, o->what, in->name, o->path);
	}
}

/* Report the pool row (unless a single volume is asked for) and its
 * volumes; a pool the selection drops takes its volumes with it. */
/* A pool whose trash holds volumes: their space is in its data use, so
 * say where it went and how to get it back (a notice: nothing is wrong). */
static void explain_trash(struct pool *p)
{
	struct pool_trash_entry *e = NULL;
	uint64_t mapped = 0;
	unsigned n = 0;
	char a[32];

	if (!pool_volume_trash_count(p) || pool_volume_trash_list(p, 0, &e, &n) || !n) {
		free(e);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		mapped += e[i].mapped;
	free(e);
	log_notice("pool %s: its trash holds %u volume%s mapping %s of its data ('tpstatus "
		   "--trash %s' lists them, 'tvremove --purge %s' frees the space)",
		   pool_name(p), n, n == 1 ? "" : "s", tp_size_format(mapped, 'h', a, sizeof(a)),
		   pool_name(p), pool_name(p));
}

/* Read the target T from its pool P into S: explain its state,
 * keep its pool row in PT when shown and selected, and mark whether its
 * volumes are rows of the volume table VT; a pool the selection drops
 * takes its volumes with it. */
static int report_pool(struct pool *p, const struct target *t, unsigned flags, struct table *pt,
		       struct table *vt, struct source *s)
{
	struct pool_row *row = malloc(sizeof(*row));
	int r, selected = 1;

	s->only = -1;
	if (!row)
		return -ENOMEM;
	if ((r = pool_get_info(p, flags | POOL_INFO_BY_VOLUME, &s->in))) {
		free(row);
		return r;
	}
	explain_kernel_mode(&s->in);
	explain_orphans(&s->in);
	if (!t->vol)
		explain_trash(p);
	status_pool_row(&s->in, row);
	if (pt->rh && !t->vol && !dm_report_object_is_selected(pt->rh, row, 0, &selected))
		r = -ENOMEM;
	if (!r && selected && pt->shown && !t->vol) {
		r = table_keep(pt, row);
		row = NULL;
	}
	free(row);
	if (r || !selected || !vt->rh)
		return r;
	if (t->vol && (s->only = pool_info_volume_index(&s->in, t->vol)) < 0)
		return pool_no_volume(s->in.name, t->vol);
	s->vols = 1;
	return 0;
}

/* Headings only in the aligned or separated tables: --nameprefixes
 * prints NAME='value' lines a shell can eval, nothing else. */
static int headings(const struct status_opts *o)
{
	return !o->noheadings && !o->nameprefixes;
}

static struct dm_report *report_init(const struct status_opts *o, uint32_t type,
				     const char *fields_s, const char *keys, const char *sel)
{
	uint32_t flags = DM_REPORT_OUTPUT_BUFFERED;
	uint32_t tt = type;

	if (headings(o))
		flags |= DM_REPORT_OUTPUT_HEADINGS;
	if (o->nameprefixes)
		flags |= DM_REPORT_OUTPUT_FIELD_NAME_PREFIX;
	else if (!o->separator)
		flags |= DM_REPORT_OUTPUT_ALIGNED;
	return dm_report_init_with_selection(&tt, status_types, status_fields, fields_s,
					     o->separator ? o->separator : " ", flags, keys, sel,
					     NULL, NULL);
}

/* The sort keys KEYS of table TYPE into T, checked. */
static int table_init_keys(const struct tp_command *cmd, uint32_t type, const char *keys,
			   struct table *t)
{
	char bad[128];
	int r = status_parse_keys(type, keys, &t->keys, &t->nkeys, bad, sizeof(bad));

	if (r == -EINVAL)
		return cli_usage_error(cmd, "bad sort key '%s': no %s field of that name (-o help "
				       "lists the fields)", bad, type == T_POOL ? "pool" : "volume");
	return r ? TP_EXIT_FAILED : CLI_CONTINUE;
}

/* Create the report of table TYPE with FIELDS, KEYS and SELECTION: the
 * fields and keys first (dm_report lists the fields after a bad one),
 * then with the selection, whose error dm_report only logs: it is quoted
 * with the expression ("-S help" prints dm_report's help itself). */
static int table_init(const struct tp_command *cmd, const struct status_opts *o, uint32_t type,
		      const char *fields_s, const char *keys, const char *sel, struct table *t)
{
	int help = sel && !strcmp(sel, "help");

	int r = table_init_keys(cmd, type, keys, t);

	if (r != CLI_CONTINUE)
		return r;
	/* no keys for dm_report: the rows come in their order (table_flush);
	 * its help (-o help, -S help) and its list of the fields after a bad
	 * one are for the user, not tptools' debug log */
	tp_dmlog_pass_through(1);
	t->rh = report_init(o, type, fields_s, "", help ? sel : NULL);
	tp_dmlog_pass_through(0);
	if (!t->rh)
		return cli_usage_error(cmd, "bad field list '%s' (-o help lists the fields)",
				       fields_s);
	if (sel && !help) {
		char why[256];
		size_t len;

		dm_report_free(t->rh);
		tp_dmlog_install();
		tp_dmlog_clear();
		t->rh = report_init(o, type, fields_s, "", sel);
		if (!t->rh) {
			snprintf(why, sizeof(why), "%s", *tp_dmlog_first_error()
				 ? tp_dmlog_first_error() : "not a selection");
			len = strlen(why);
			if (len && why[len - 1] == '.')
				why[len - 1] = '\0';
			return cli_usage_error(cmd, "bad -S selection '%s': %s ('-S help' lists the "
					       "fields and the operators)", sel, why);
		}
	}
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
		if (pt->shown && vt->shown && !dm_report_is_empty(vt->rh) && headings(o))
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

/* ---- the report written as it is read ----
 *
 * dm_report holds every row, each field's text in its memory, until its
 * output: at 100,000 volumes twice the VG's own memory, and most of the
 * time of tpstatus. Where nothing but dm_report can say what to show (a
 * selection, -o naming one of its own fields or another table's), it
 * still makes the report; otherwise the rows are written here as they
 * are made, byte for byte as dm_report writes them (libdevmapper 1.02's
 * format: aligned columns as wide as their widest text or heading, a
 * separator, NAME='value' pairs, JSON), each volume read when its row
 * is written. Aligned columns need their widths first: the rows are made
 * twice, once to measure them. -O needs them all: they are held, as
 * before, and written in their order. */

/* One table as written: its fields and their widths. */
struct writer {
	const struct status_opts *o;
	unsigned *f, nf;	/* indexes into status_fields */
	size_t *width;
	int aligned;
	const char *sep;
	size_t rows;		/* measured, or written */
};

static int writer_init(struct writer *w, const struct status_opts *o, uint32_t type,
		       const char *fields)
{
	int r;

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->aligned = !o->json && !o->nameprefixes && !o->separator;
	w->sep = o->separator ? o->separator : " ";
	r = status_resolve_fields(type, fields, &w->f, &w->nf);
	if (r)
		return r;
	if (!(w->width = calloc(w->nf ? w->nf : 1, sizeof(*w->width))))
		return -ENOMEM;
	for (unsigned k = 0; k < w->nf; k++)
		w->width[k] = (size_t)status_fields[w->f[k]].width;
	return 0;
}

static void writer_free(struct writer *w)
{
	free(w->f);
	free(w->width);
}

static void measure(void *arg, const void *row)
{
	struct writer *w = arg;
	char buf[STATUS_TEXT_LEN];

	for (unsigned k = 0; k < w->nf; k++) {
		size_t len = strlen(status_field_text(w->f[k], row, buf));

		if (len > w->width[k])
			w->width[k] = len;
	}
	w->rows++;
}

/* The line being written: a row goes to stdout in one fwrite (a call of
 * stdio per piece was most of the cost of a row). */
static struct {
	char *b;
	size_t n, cap;
} line;

static void line_flush(void)
{
	if (line.n)
		fwrite(line.b, 1, line.n, stdout);
	line.n = 0;
}

static void put_n(const char *s, size_t n)
{
	if (!n)
		return;
	if (line.n + n > line.cap) {
		size_t cap = 2 * (line.n + n) + 256;
		char *b = realloc(line.b, cap);

		if (!b) {	/* written as it comes, then */
			line_flush();
			fwrite(s, 1, n, stdout);
			return;
		}
		line.b = b;
		line.cap = cap;
	}
	memcpy(line.b + line.n, s, n);
	line.n += n;
}

static void put_s(const char *s)
{
	put_n(s, strlen(s));
}

static void put_c(char c)
{
	put_n(&c, 1);
}

static void pad(size_t n)
{
	static const char spaces[] = "                                ";

	for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
		put_n(spaces, sizeof(spaces) - 1);
	put_n(spaces, n);
}

/* TEXT, aligned in a column of WIDTH to the RIGHT or the left. */
static void cell(const char *text, size_t width, int right)
{
	size_t len = strlen(text);

	if (len > width)
		len = width;	/* dm_report's "%-*.*s" */
	if (right)
		pad(width - len);
	put_n(text, len);
	if (!right)
		pad(width - len);
}

static void heading(const struct writer *w)
{
	for (unsigned k = 0; k < w->nf; k++) {
		const char *h = status_fields[w->f[k]].heading;

		if (k)
			put_s(w->sep);
		if (w->aligned)
			cell(h, w->width[k], 0);
		else
			put_s(h);
	}
	put_c('\n');
	line_flush();
}

/* A JSON value: dm_report escapes the double quote only. */
static void json_text(const char *t)
{
	for (const char *q; (q = strchr(t, '"')); t = q + 1) {
		put_n(t, (size_t)(q - t));
		put_s("\\\"");
	}
	put_s(t);
}

/* One row: a line of the table, or a JSON object (its comma and newline
 * written before the next one, or by json_table_end). */
static void write_row(void *arg, const void *row)
{
	struct writer *w = arg;
	char buf[STATUS_TEXT_LEN];

	if (w->o->json)
		put_s(w->rows ? ",\n                {" : "                {");
	for (unsigned k = 0; k < w->nf; k++) {
		const char *id = status_fields[w->f[k]].id;
		const char *t = status_field_text(w->f[k], row, buf);

		if (w->o->json) {
			put_s(k ? ", \"" : "\"");
			put_s(id);
			put_s("\":\"");
			json_text(t);
			/* (dm_report closes it with the name prefixes' quote) */
			put_c(w->o->nameprefixes ? '\'' : '"');
			continue;
		}
		if (k)
			put_s(w->sep);
		if (w->o->nameprefixes) {
			put_s("TP_");
			for (; *id; id++)
				put_c((char)toupper((unsigned char)*id));
			put_s("='");
			put_s(t);
			put_c('\'');
		} else if (w->aligned) {
			cell(t, w->width[k], status_field_right(w->f[k]));
		} else {
			put_s(t);
		}
	}
	if (w->o->json)
		put_c('}');
	else
		put_c('\n');
	line_flush();
	w->rows++;
}

static void json_table_begin(const char *name, int first)
{
	if (!first)
		fputs("        ,\n", stdout);
	printf("        {\n            \"%s\": [\n", name);
}

static void json_table_end(const struct writer *w)
{
	if (w->rows)
		putchar('\n');
	fputs("            ]\n        }\n", stdout);
}

/* The volume rows: those kept in VT when it has any (-O), else those of
 * the sources, made as they are written. */
static void vol_rows(const struct source *src, unsigned n, const struct table *vt,
		     void (*fn)(void *arg, const void *row), void *arg)
{
	if (!vt->rows) {
		each_vol_row(src, n, fn, arg);
		return;
	}
	for (size_t i = 0; i < vt->n; i++)
		fn(arg, &((const struct vol_entry *)vt->rows[i])->v);
}

/* Write the pool table PT (its rows kept) and the volume table VT through
 * PW and VW (NULL: not shown). */
static void write_tables(const struct status_opts *o, const struct table *pt, struct writer *pw,
			 const struct table *vt, struct writer *vw, const struct source *src,
			 unsigned n)
{
	size_t nvol = vt->n;

	if (vw && !vt->rows) {
		nvol = 0;
		for (unsigned k = 0; k < n; k++)
			nvol += source_rows(&src[k]);
	}
	for (size_t i = 0; pw && pw->aligned && i < pt->n; i++)
		measure(pw, pt->rows[i]);
	if (vw && vw->aligned && nvol)
		vol_rows(src, n, vt, measure, vw);
	if (o->json) {
		fputs("{\n    \"report\": [\n", stdout);
		if (pw) {
			json_table_begin("pool", 1);
			for (size_t i = 0; i < pt->n; i++)
				write_row(pw, pt->rows[i]);
			json_table_end(pw);
		}
		if (vw) {
			json_table_begin("volume", !pw);
			vol_rows(src, n, vt, write_row, vw);
			json_table_end(vw);
		}
		fputs("    ]\n}\n\n", stdout);
		return;
	}
	if (pw && pt->n) {
		if (headings(o))
			heading(pw);
		pw->rows = 0;
		for (size_t i = 0; i < pt->n; i++)
			write_row(pw, pt->rows[i]);
	}
	if (pw && vw && nvol && headings(o))
		putchar('\n');
	if (vw && nvol) {
		if (headings(o))
			heading(vw);
		vw->rows = 0;
		vol_rows(src, n, vt, write_row, vw);
	}
}

static int run_status(const struct tp_command *cmd, const struct status_opts *o,
		      const struct target *targets, unsigned n)
{
	char *pool_f = NULL, *vol_f = NULL, *pool_k = NULL, *vol_k = NULL;
	struct table pt = { 0 }, vt = { 0 };
	struct writer pw, vw;
	struct source *src = calloc(n ? n : 1, sizeof(*src));
	const char *pool_sel = NULL, *vol_sel = NULL;
	int rc = CLI_CONTINUE, any_pool = !n, own = 0;
	unsigned flags = POOL_INFO_USAGE | POOL_INFO_ORPHANS;

	memset(&pw, 0, sizeof(pw));
	memset(&vw, 0, sizeof(vw));
	if (!src)
		return TP_EXIT_FAILED;
	for (unsigned i = 0; i < n; i++)
		any_pool |= !targets[i].vol;
	if (o->select) {
		/* "-S help" lists the pool fields and the operators */
		uint32_t t = !strcmp(o->select, "help") ? T_POOL : selection_table(o->select);
		if (!t) {
			free(src);
			return cli_usage_error(cmd, "-S must name fields of one table, pool_* or "
						    "vol_* (-o help lists them)");
		}
		*(t == T_POOL ? &pool_sel : &vol_sel) = o->select;
	}
	if (split_list(o->fields, o->json ? "pool_all" : STATUS_POOL_DEFAULT,
		       o->json ? STATUS_VOL_JSON_DEFAULT : STATUS_VOL_DEFAULT, &pool_f, &vol_f) ||
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
	/* a key of a table not shown is still checked */
	if (rc == CLI_CONTINUE && !pt.rh)
		rc = table_init_keys(cmd, T_POOL, pool_k, &pt);
	if (rc == CLI_CONTINUE && !vt.rh)
		rc = table_init_keys(cmd, T_VOL, vol_k, &vt);
	if (rc != CLI_CONTINUE)
		goto out;
	rc = TP_EXIT_OK;
	if (o->select && !strcmp(o->select, "help"))
		goto out;	/* dm_report printed the help */
	pt.shown = pt.shown && pt.rh;
	/* written here unless only dm_report knows what to show */
	own = !o->select;
	if (own && pt.shown) {
		int r = writer_init(&pw, o, T_POOL, pool_f);
		own = !r;
		if (r < 0)
			rc = TP_EXIT_FAILED;
	}
	if (own && vt.shown) {
		int r = writer_init(&vw, o, T_VOL, vol_f);
		own = !r;
		if (r < 0)
			rc = TP_EXIT_FAILED;
	}
	if (rc != TP_EXIT_OK)
		goto out;
	/* the mapping walk only for a volume field, key or selection that
	 * needs it (tpstatus(8), COST) */
	if (vt.shown && (status_needs_sharing(vol_f) || status_needs_sharing(vol_k) ||
			 status_needs_sharing(vol_sel)))
		flags |= POOL_INFO_SHARING;
	for (unsigned i = 0; i < n; i++) {
		struct pool *p;
		/* another host's pool is listed too, marked (pool_attr f) */
		int r = pool_open(targets[i].pool, o->devices,
				  POOL_RDONLY | POOL_FOREIGN_OK |
					  (o->allow_component ? POOL_ALLOW_COMPONENT : 0),
				  &p);
		if (!r) {
			r = report_pool(p, &targets[i], flags, &pt, &vt, &src[i]);
			pool_close(p);
		}
		if (r)
			rc = tp_exit_from_errno(r);
	}
	if ((!own || vt.nkeys) && vt.rh && keep_vol_rows(src, n, &vt)) {
		rc = TP_EXIT_FAILED;
	} else if (own) {
		if (table_sort(&pt) || table_sort(&vt))
			rc = TP_EXIT_FAILED;
		else
			write_tables(o, &pt, pt.shown ? &pw : NULL, &vt, vt.shown ? &vw : NULL, src,
				     n);
	} else if ((pt.rh && table_flush(&pt)) || (vt.rh && table_flush(&vt)) ||
		   output(o, &pt, &vt)) {
		rc = TP_EXIT_FAILED;
	}
out:
	table_free(&pt);
	table_free(&vt);
	writer_free(&pw);
	writer_free(&vw);
	free(line.b);
	line.b = NULL;
	line.n = line.cap = 0;
	for (unsigned i = 0; i < n; i++)
		pool_info_free(&src[i].in);
	free(src);
	free(pool_f);
	free(vol_f);
	free(pool_k);
	free(vol_k);
	return rc;
}

/* --format prometheus: every pool of the targets once (POOL/VOLUME
 * arguments of one pool keep those volumes only, unless the pool is named
 * whole too), its kernel mode explained as for the tables. */
static int run_prometheus(const struct status_opts *o, const struct target *t, unsigned n)
{
	unsigned flags = o->allow_component ? POOL_ALLOW_COMPONENT : 0;
	struct prom_report rep = { NULL, 0 };
	const char **vols = calloc(n ? n : 1, sizeof(*vols));
	int rc = vols ? TP_EXIT_OK : TP_EXIT_FAILED;

	for (unsigned i = 0; vols && i < n; i++) {
		unsigned nv = 0, j;
		int whole = 0, r;

		for (j = 0; j < i && strcmp(t[j].pool, t[i].pool); j++)
			;
		if (j < i)
			continue;	/* done with its first argument */
		for (j = i; j < n; j++) {
			if (strcmp(t[j].pool, t[i].pool))
				continue;
			whole |= !t[j].vol;
			if (t[j].vol)
				vols[nv++] = t[j].vol;
		}
		r = prom_add_pool(&rep, t[i].pool, o->devices, flags, vols, whole ? 0 : nv);
		if (r == -ENOMEM) {
			rc = tp_exit_from_errno(r);
			break;
		}
		if (r)
			rc = tp_exit_from_errno(r);
		if (rep.pools[rep.n - 1].up)
			explain_kernel_mode(&rep.pools[rep.n - 1].in);
	}
	if (prom_write(&rep, stdout)) {
		log_error("cannot write the metrics to standard output: %s", strerror(EIO));
		rc = TP_EXIT_FAILED;
	}
	prom_free(&rep);
	free(vols);
	return rc;
}

/* --devices-report: one line per device of each pool (like pvs): the
 * data devices in the data area's order, each with the range of chunks
 * it holds, then the metadata device (a mirror's two legs), then the
 * pool's orphan labels; a device that is missing is listed with where
 * it was last seen (pool.h: pool_devices_report). */
static int run_devices(const struct status_opts *o, const struct target *t, unsigned n)
{
	int rc = TP_EXIT_OK;

	if (!o->noheadings)
		printf("%-12s %-4s %-5s %12s %12s %12s %12s %-36s %-9s %s\n", "Pool", "Role",
		       "Place", "DevSize", "DataStart", "FirstChunk", "Chunks", "DevUUID", "State",
		       "Path");
	for (unsigned i = 0; i < n; i++) {
		struct pool_device_row *row;
		unsigned nr;
		int r;

		if (i && !strcmp(t[i].pool, t[i - 1].pool))
			continue;
		r = pool_devices_report(t[i].pool, o->devices,
					o->allow_component ? POOL_ALLOW_COMPONENT : 0, &row, &nr);
		if (r) {
			rc = tp_exit_from_errno(r);
			continue;
		}
		for (unsigned k = 0; k < nr; k++) {
			const struct pool_device_row *d = &row[k];
			char a[32], b[32], c[24], e[24];

			if (d->has_range) {
				tp_size_format(d->data_start, o->units, b, sizeof(b));
				snprintf(c, sizeof(c), "%llu", (unsigned long long)d->first_chunk);
				snprintf(e, sizeof(e), "%llu", (unsigned long long)d->chunks);
			} else {
				strcpy(b, "-");
				strcpy(c, "-");
				strcpy(e, "-");
			}
			printf("%-12s %-4s %-5s %12s %12s %12s %12s %-36s %-9s %s\n", d->pool, d->role,
			       d->place, tp_size_format(d->dev_size, o->units, a, sizeof(a)), b, c, e,
			       d->device_uuid, d->state, d->path);
		}
		free(row);
	}
	return rc;
}

/* --trash: one line (or, with --json, one object) per entry of each
 * pool's trash, the oldest (the next to be purged under pressure) first:
 * its name, thin id, virtual size, what its thin device maps and maps
 * alone, how long it has been there, when it expires and when it came. */
static int run_trash(const struct status_opts *o, const struct target *t, unsigned n)
{
	int rc = TP_EXIT_OK, first = 1;
	int64_t now = (int64_t)time(NULL);
	const char *sep = o->separator;

	if (o->json)
		printf("{\"trash\": [");
	else if (!o->noheadings && sep)
		printf("Pool%sVolume%sDevId%sSize%sMapped%sExclusive%sAge%sExpires%sTrashed\n", sep,
		       sep, sep, sep, sep, sep, sep, sep);
	else if (!o->noheadings)
		printf("%-12s %-16s %6s %10s %10s %10s %6s %-10s %s\n", "Pool", "Volume", "DevId",
		       "Size", "Mapped", "Exclusive", "Age", "Expires", "Trashed");
	for (unsigned i = 0; i < n; i++) {
		struct pool_trash_entry *e = NULL;
		unsigned nr = 0;
		struct pool *p;
		int r;

		if (i && !strcmp(t[i].pool, t[i - 1].pool))
			continue;
		r = pool_open(t[i].pool, o->devices,
			      POOL_RDONLY | POOL_FOREIGN_OK |
				      (o->allow_component ? POOL_ALLOW_COMPONENT : 0), &p);
		if (!r) {
			r = pool_volume_trash_list(p, 1, &e, &nr);
			pool_close(p);
		}
		if (r) {
			rc = tp_exit_from_errno(r);
			continue;
		}
		for (unsigned k = 0; k < nr; k++) {
			char a[32], b[32], c[32], age[24], exp[24], when[32];
			time_t at = (time_t)e[k].trashed_at;
			struct tm tm;

			if (t[i].vol && strcmp(t[i].vol, e[k].name))
				continue;
			if (o->json) {
				printf("%s\n  {\"pool\": ", first ? "" : ",");
				cli_json_string(t[i].pool);
				printf(", \"volume\": ");
				cli_json_string(e[k].name);
				printf(", \"dev_id\": %u, \"size\": %" PRIu64 ", \"mapped\": %" PRIu64
				       ", \"exclusive\": %" PRIu64 ", \"trashed_at\": %lld, "
				       "\"expires_at\": ", (unsigned)e[k].dev_id, e[k].size,
				       e[k].mapped, e[k].exclusive, (long long)e[k].trashed_at);
				if (e[k].expires == INT64_MAX)
					printf("null");
				else
					printf("%lld", (long long)e[k].expires);
				printf(", \"state\": \"%s\"}", e[k].purging ? "purging"
				       : e[k].expires != INT64_MAX && e[k].expires <= now ? "due"
				       : "kept");
				first = 0;
				continue;
			}
			tp_duration_format_approx(now > e[k].trashed_at
							  ? (uint64_t)(now - e[k].trashed_at) : 0,
						  age, sizeof(age));
			if (e[k].purging)
				snprintf(exp, sizeof(exp), "purging");
			else if (e[k].expires == INT64_MAX)
				snprintf(exp, sizeof(exp), "never");
			else if (e[k].expires <= now)
				snprintf(exp, sizeof(exp), "due");
			else
				tp_duration_format_approx((uint64_t)(e[k].expires - now), exp,
							  sizeof(exp));
			if (gmtime_r(&at, &tm))
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
			else
				snprintf(when, sizeof(when), "%lld", (long long)e[k].trashed_at);
			status_format_size(e[k].size, a, sizeof(a));
			status_format_size(e[k].mapped, b, sizeof(b));
			status_format_size(e[k].exclusive, c, sizeof(c));
			if (sep)
				printf("%s%s%s%s%u%s%s%s%s%s%s%s%s%s%s%s%s\n", t[i].pool, sep, e[k].name,
				       sep, (unsigned)e[k].dev_id, sep, a, sep, b, sep, c, sep, age,
				       sep, exp, sep, when);
			else
				printf("%-12s %-16s %6u %10s %10s %10s %6s %-10s %s\n", t[i].pool,
				       e[k].name, (unsigned)e[k].dev_id, a, b, c, age, exp, when);
		}
		free(e);
	}
	if (o->json)
		printf("%s]}\n", first ? "" : "\n");
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
	const char *units_s = NULL, *format = NULL, **args;
	struct target *targets = NULL;
	unsigned n = 0;
	int rc, nargs, r;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "json", 'j', POPT_ARG_NONE, &o.json, 0, "JSON output (schema in tpstatus(8))", NULL },
		{ "format", 'f', POPT_ARG_STRING, &format, 0,
		  "table (the default), json (as --json), or prometheus (metrics in the text "
		  "exposition format)", "table|json|prometheus" },
		{ "units", '\0', POPT_ARG_STRING, &units_s, 0,
		  "size units: h (human, default), b, s, k, m, g, t, p (powers of 1024); "
		  "H, K, M, G, T, P (of 1000)", "UNIT" },
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
		{ "devices-report", '\0', POPT_ARG_NONE, &o.devices_report, 0,
		  "one line per device of each pool, data devices with their ranges", NULL },
		{ "trash", '\0', POPT_ARG_NONE, &o.trash, 0,
		  "one line per volume in each pool's trash: size, data, age, expiry", NULL },
		CLI_OPT_ALLOW_COMPONENT(o.allow_component),
		POPT_TABLEEND
	};

	memset(&o, 0, sizeof(o));
	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	if (format && strcmp(format, "table") && strcmp(format, "json") &&
	    strcmp(format, "prometheus")) {
		rc = cli_usage_error(cmd, "--format takes table, json or prometheus, not '%s'",
				     format);
		goto out;
	}
	if (format && o.json && strcmp(format, "json")) {
		rc = cli_usage_error(cmd, "--json is --format json: it does not go with --format %s",
				     format);
		goto out;
	}
	o.json |= format && !strcmp(format, "json");
	o.prometheus = format && !strcmp(format, "prometheus");
	if (o.prometheus && (o.fields || o.sort || o.select || units_s || o.nosuffix ||
			     o.noheadings || o.nameprefixes || o.separator)) {
		rc = cli_usage_error(cmd, "--format prometheus prints every metric, sizes in bytes: "
				     "-o, -O, -S, --units, --nosuffix, --noheadings, --nameprefixes "
				     "and --separator do not go with it");
		goto out;
	}
	if (units_s && (strlen(units_s) != 1 || !tp_units_valid(units_s[0]))) {
		rc = cli_usage_error(cmd, "--units takes one of h, b, s, k, m, g, t, p (powers "
				     "of 1024) or H, K, M, G, T, P (powers of 1000), not '%s'",
				     units_s);
		goto out;
	}
	o.units = units_s ? units_s[0] : 'h';
	/* JSON without --units: bare byte counts */
	status_set_format(units_s ? units_s[0] : o.json ? 0 : 'h', o.nosuffix);
	if (o.allow_component && !o.devices) {
		rc = cli_usage_error(cmd, "--allow-component goes with --devices DATA,META");
		goto out;
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
	if (o.devices_report && (o.json || o.prometheus || o.fields || o.sort || o.select)) {
		free(targets);
		rc = cli_usage_error(cmd, "--devices-report is a table of its own: -o, -O, -S, "
				     "--json and --format do not go with it");
		goto out;
	}
	if (o.trash && (o.devices_report || o.prometheus || o.fields || o.sort || o.select ||
			o.nameprefixes)) {
		free(targets);
		rc = cli_usage_error(cmd, "--trash is a table of its own: -o, -O, -S, "
				     "--nameprefixes, --format prometheus and --devices-report do "
				     "not go with it");
		goto out;
	}
	rc = o.trash ? run_trash(&o, targets, n)
	     : o.devices_report ? run_devices(&o, targets, n)
	     : o.prometheus  ? run_prometheus(&o, targets, n)
			     : run_status(cmd, &o, targets, n);
	free(targets);
out:
	cli_end(&cli);
	return rc;
}
