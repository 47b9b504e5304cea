/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status_prom.c - the pools' figures as Prometheus metrics; see
 * status_prom.h. */
#include "tools/status_prom.h"
#include "lib/pool/pool_volume.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

static struct prom_pool *add(struct prom_report *r, const char *name)
{
	struct prom_pool *v = realloc(r->pools, (r->n + 1) * sizeof(*v)), *pp;

	if (!v)
		return NULL;
	r->pools = v;
	pp = &v[r->n++];
	memset(pp, 0, sizeof(*pp));
	snprintf(pp->name, sizeof(pp->name), "%s", name);
	return pp;
}

int prom_add_down(struct prom_report *r, const char *name)
{
	return add(r, name) ? 0 : -ENOMEM;
}

static int cmp_index(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Keep only the volumes VOLS of PP (each must exist), in the VG's order,
 * each once: 0, -ENOENT or -ENOMEM. */
static int keep_volumes(struct prom_pool *pp, const char *const *vols, unsigned n_vols)
{
	unsigned k = 0;
	int r = 0;

	if (!n_vols)
		return 0;
	if (!(pp->keep = calloc(n_vols, sizeof(*pp->keep))))
		return -ENOMEM;
	for (unsigned j = 0; j < n_vols; j++) {
		long i = pool_info_volume_index(&pp->in, vols[j]);

		if (i < 0 && !r)
			r = pool_no_volume(pp->name, vols[j]);
		else if (i >= 0)
			pp->keep[k++] = i;
	}
	qsort(pp->keep, k, sizeof(*pp->keep), cmp_index);
	pp->nkeep = 0;
	for (unsigned j = 0; j < k; j++)
		if (!j || pp->keep[j] != pp->keep[j - 1])
			pp->keep[pp->nkeep++] = pp->keep[j];
	return r;
}

int prom_add_pool(struct prom_report *r, const char *name, const char *devices, unsigned flags,
		  const char *const *vols, unsigned n_vols)
{
	struct prom_pool *pp = add(r, name);
	struct pool *p;
	int rc;

	if (!pp)
		return -ENOMEM;
	rc = pool_open(name, devices, flags | POOL_RDONLY | POOL_FOREIGN_OK, &p);
	if (rc)
		return rc;
	/* tptools_volume_exclusive_bytes: the mapping walk (tpstatus(8), COST) */
	rc = pool_get_info(p, POOL_INFO_USAGE | POOL_INFO_SHARING | POOL_INFO_BY_VOLUME, &pp->in);
	if (!rc) {
		pp->up = pp->vg = 1;
	} else if (!pool_get_info(p, POOL_INFO_BY_VOLUME, &pp->in)) {
		pp->vg = 1;	/* the settings and the volumes, without the figures */
	}
	if (pp->vg) {
		/* the trash: its entries, and (with the figures) what they map */
		struct pool_trash_entry *e = NULL;
		unsigned nt = 0;

		if (!pp->up || pool_volume_trash_list(p, 0, &e, &nt)) {
			nt = pool_volume_trash_count(p);
		} else {
			for (unsigned i = 0; i < nt; i++)
				pp->trash_bytes += e[i].mapped;
		}
		pp->trash = nt;
		free(e);
	}
	pool_close(p);
	if (!pp->vg)
		return rc;
	/* the pool is closed: nothing of it may be pointed at */
	pp->in.dev_path[POOL_ROLE_DATA] = pp->in.dev_path[POOL_ROLE_META] = NULL;
	/* and its memory moves as the report grows: the profile is copied */
	snprintf(pp->profile, sizeof(pp->profile), "%s", pp->in.profile ? pp->in.profile : "-");
	/* (the owner's system id is a copy already, pool_info.system_id) */
	pp->in.profile = NULL;
	if (!rc)
		rc = keep_volumes(pp, vols, n_vols);
	return rc;
}

void prom_free(struct prom_report *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		pool_info_free(&r->pools[i].in);
		free(r->pools[i].keep);
	}
	free(r->pools);
	r->pools = NULL;
	r->n = 0;
}

/* ---- the text format ---- */

size_t prom_escape_label(const char *s, char *out, size_t len)
{
	size_t need = 0, w = 0;
	int full = !len;

	for (; *s; s++) {
		const char *rep = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
		size_t k = rep ? 2 : 1;

		if (!full && w + k < len) {
			memcpy(out + w, rep ? rep : s, k);
			w += k;
		} else {
			full = 1;	/* nothing more, not half an escape */
		}
		need += k;
	}
	if (len)
		out[w] = '\0';
	return need;
}

/* One family being written: its HELP and TYPE lines go before its first
 * sample, and not at all when it has none. */
struct family {
	FILE *f;
	const char *name, *type, *help;
	int begun;
};

/* (written with fputs, not fprintf: a pool of 100,000 volumes has a
 * million samples) */
static void label(FILE *f, const char *key, const char *value, int first)
{
	putc(first ? '{' : ',', f);
	fputs(key, f);
	fputs("=\"", f);
	if (!value[strcspn(value, "\\\"\n")]) {
		fputs(value, f);	/* nothing to escape */
	} else {
		char buf[4 * POOL_NAME_MAX + 64];
		size_t need = prom_escape_label(value, buf, sizeof(buf));
		char *big = need < sizeof(buf) ? NULL : malloc(need + 1);

		if (big)
			prom_escape_label(value, big, need + 1);
		fputs(big ? big : buf, f);
		free(big);
	}
	putc('"', f);
}

/* A sample of FAM: LABELS are key, value pairs ending with NULL; the
 * values are escaped here. */
static void sample(struct family *fam, uint64_t value, const char *const *labels)
{
	FILE *f = fam->f;

	if (!fam->begun) {
		/* HELP text: only backslash and newline are escaped; ours have neither */
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
			fam->type);
		fam->begun = 1;
	}
	fputs(fam->name, f);
	for (unsigned i = 0; labels[i]; i += 2)
		label(f, labels[i], labels[i + 1], !i);
	{
		char digits[24], *d = digits + sizeof(digits) - 1;	/* PRIu64 */

		*d = '\0';
		do
			*--d = (char)('0' + value % 10);
		while (value /= 10);
		fputs(labels[0] ? "} " : " ", f);
		fputs(d, f);
		putc('\n', f);
	}
}

static void pool_sample(struct family *fam, const struct prom_pool *pp, uint64_t value)
{
	const char *labels[] = { "pool", pp->name, NULL };

	sample(fam, value, labels);
}

/* Which series a pool has: what a pool that could not be read still gives. */
enum need { ANY, VG, UP, FIGURES, VOL_FIGURES };

static int has(const struct prom_pool *pp, enum need n)
{
	switch (n) {
	case ANY:
		return 1;
	case VG:
		return pp->vg;
	case UP:
		return pp->up;
	case FIGURES:	/* a pool the kernel failed has none */
		return pp->up && !(pp->in.live && pp->in.failed);
	case VOL_FIGURES:
		return pp->up && !pp->in.no_volume_usage;
	}
	return 0;
}

/* The per-pool families with one sample each: value of a pool. */
struct pool_metric {
	const char *name, *type, *help;
	enum need need;
	uint64_t (*value)(const struct prom_pool *pp);
};

#define VALUE(fn, expr) \
	static uint64_t fn(const struct prom_pool *pp) { return (uint64_t)(expr); }
VALUE(v_up, pp->up)
VALUE(v_active, pp->in.live)
VALUE(v_needs_check, pp->in.needs_check)
VALUE(v_error_when_full, pp->in.when_full == POOL_WHEN_FULL_ERROR)
VALUE(v_activation_skip, pp->in.activation_skip)
VALUE(v_data_size, pp->in.data_size)
VALUE(v_data_used, pp->in.data_used)
VALUE(v_meta_size, pp->in.meta_size)
VALUE(v_meta_used, pp->in.meta_used)
VALUE(v_chunk, pp->in.chunk)
VALUE(v_vg_area, pp->in.vg_area_size)
VALUE(v_vg_area_used, pp->in.vg_area_used)
VALUE(v_virtual, pp->in.virtual_total)
VALUE(v_volumes, pp->keep ? pp->nkeep : pp->in.nr_volumes)	/* (as kept) */
VALUE(v_receives, pp->in.nr_receives)
VALUE(v_tid, pp->in.transaction_id)
VALUE(v_trash, pp->trash)
VALUE(v_trash_bytes, pp->trash_bytes)
#undef VALUE

#define GAUGE "gauge"
static const struct pool_metric pool_metrics[] = {
	{ "tptools_pool_up", GAUGE,
	  "1 when the pool and its allocation could be read, else 0 (its figures are then missing)",
	  ANY, v_up },
	{ "tptools_pool_active", GAUGE, "1 while the pool is loaded in the kernel, else 0", UP,
	  v_active },
	{ "tptools_pool_needs_check", GAUGE,
	  "1 when the thin metadata is flagged needs_check (run tpcheck and tprepair)", FIGURES,
	  v_needs_check },
	{ "tptools_pool_error_when_full", GAUGE,
	  "1 when writes fail (ENOSPC) once the data area is full, 0 when they queue", VG,
	  v_error_when_full },
	{ "tptools_pool_activation_skip", GAUGE,
	  "1 when activation of all pools passes the pool by (tpchange --activate n)", VG,
	  v_activation_skip },
	{ "tptools_pool_data_size_bytes", GAUGE, "Size of the data area", FIGURES, v_data_size },
	{ "tptools_pool_data_used_bytes", GAUGE, "Data provisioned to volumes", FIGURES,
	  v_data_used },
	{ "tptools_pool_metadata_size_bytes", GAUGE, "Size of the active thin-metadata area",
	  FIGURES, v_meta_size },
	{ "tptools_pool_metadata_used_bytes", GAUGE, "Thin metadata in use", FIGURES,
	  v_meta_used },
	{ "tptools_pool_chunk_size_bytes", GAUGE, "The chunk (data block) size", VG, v_chunk },
	{ "tptools_pool_vg_area_bytes", GAUGE,
	  "VG text one copy in the VG metadata area holds (tpcreate --vg-area): no volume is "
	  "added past it", VG, v_vg_area },
	{ "tptools_pool_vg_area_used_bytes", GAUGE, "VG text the pool's state takes", VG,
	  v_vg_area_used },
	{ "tptools_pool_virtual_size_bytes", GAUGE,
	  "Sum of the volumes' virtual sizes (over-provisioned above the data size)", VG,
	  v_virtual },
	{ "tptools_pool_volumes", GAUGE, "Number of volumes, snapshots included", VG,
	  v_volumes },
	{ "tptools_pool_unfinished_receives", GAUGE,
	  "Receives cut short, holding data but no volume (tprecv --resume or --abort)", VG,
	  v_receives },
	{ "tptools_pool_trash_volumes", GAUGE,
	  "Volumes removed into the pool's trash, kept until purged (tvremove --undo brings one "
	  "back)", VG, v_trash },
	{ "tptools_pool_trash_bytes", GAUGE,
	  "Data the trash's volumes map: held until they are purged", FIGURES, v_trash_bytes },
	{ "tptools_pool_transaction_id", GAUGE,
	  "The pool's transaction id (VG metadata); each change adds 1", VG, v_tid },
};

static void write_pool_metric(FILE *f, const struct prom_report *r, const struct pool_metric *m)
{
	struct family fam = { f, m->name, m->type, m->help, 0 };

	for (unsigned i = 0; i < r->n; i++)
		if (has(&r->pools[i], m->need))
			pool_sample(&fam, &r->pools[i], m->value(&r->pools[i]));
}

static void write_info(FILE *f, const struct prom_report *r)
{
	struct family fam = { f, "tptools_pool_info", GAUGE,
			      "The pool's uuid, geometry profile and owner (system id, empty for "
			      "none), as labels; always 1", 0 };

	for (unsigned i = 0; i < r->n; i++) {
		const struct prom_pool *pp = &r->pools[i];
		const char *labels[] = { "pool", pp->name, "uuid", pp->in.uuid, "profile",
					 pp->profile, "system_id", pp->in.system_id, NULL };
		if (pp->vg)
			sample(&fam, 1, labels);
	}
}

/* The kernel's mode as a state set: one series per mode, 1 for the one
 * the pool is in; all 0 for an inactive pool (no kernel mode). */
static void write_mode(FILE *f, const struct prom_report *r)
{
	static const char *const modes[] = { "read_write", "read_only", "out_of_data_space",
					     "failed" };
	struct family fam = { f, "tptools_pool_mode", GAUGE,
			      "The kernel's mode of the pool, 1 for the mode it is in; every mode "
			      "0 while the pool is inactive", 0 };

	for (unsigned i = 0; i < r->n; i++) {
		const struct prom_pool *pp = &r->pools[i];
		const struct pool_info *in = &pp->in;
		unsigned cur = in->failed ? 3 : in->read_only ? 1 : in->out_of_data ? 2 : 0;

		if (!pp->up)
			continue;
		for (unsigned m = 0; m < 4; m++) {
			const char *labels[] = { "pool", pp->name, "mode", modes[m], NULL };
			sample(&fam, in->live && m == cur, labels);
		}
	}
}

static void write_monitor(FILE *f, const struct prom_report *r)
{
	struct family acts = { f, "tptools_pool_monitor_actions_total", "counter",
			       "What tpmonitor did to the pool, by action, since its state file "
			       "began (at boot)", 0 };
	struct family last = { f, "tptools_pool_monitor_last_action_timestamp_seconds", GAUGE,
			       "When tpmonitor last acted on the pool (Unix time)", 0 };

	for (unsigned i = 0; i < r->n; i++) {
		const struct prom_pool *pp = &r->pools[i];
		const struct pool_monitor_counts *c = &pp->in.monitor_counts;
		const struct { const char *action; uint64_t n; } v[] = {
			{ "warning", c->warnings },
			{ "no_room", c->no_room },
			{ "autoextend", c->autoextends },
			{ "autoextend_failure", c->autoextend_failures },
			{ "error_when_full", c->error_switches },
		};

		if (!pp->vg)
			continue;
		for (unsigned k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			const char *labels[] = { "pool", pp->name, "action", v[k].action, NULL };
			sample(&acts, v[k].n, labels);
		}
	}
	for (unsigned i = 0; i < r->n; i++)
		if (r->pools[i].vg && r->pools[i].in.monitor_time > 0)
			pool_sample(&last, &r->pools[i], (uint64_t)r->pools[i].in.monitor_time);
}

/* A mirrored pool's metadata legs and the last scrub of them. */
static void write_mirror(FILE *f, const struct prom_report *r)
{
	struct family up = { f, "tptools_pool_metadata_leg_up", GAUGE,
			     "1 while the metadata mirror's leg is in use, 0 while it is out "
			     "(missing, stale, failed)", 0 };
	struct family bad = { f, "tptools_pool_metadata_leg_bad_blocks", GAUGE,
			      "Metadata blocks known bad on the leg and good on the other (the "
			      "last scrub, or this read); tprepair rewrites them", 0 };
	struct family when = { f, "tptools_pool_metadata_scrub_timestamp_seconds", GAUGE,
			       "When tpcheck or tprepair last compared the mirror's legs (Unix "
			       "time)", 0 };
	struct family mis = { f, "tptools_pool_metadata_scrub_mismatched_blocks", GAUGE,
			      "Blocks that validate on both legs but differ, as the last scrub "
			      "left them", 0 };

	for (int fam = 0; fam < 2; fam++)
		for (unsigned i = 0; i < r->n; i++) {
			const struct prom_pool *pp = &r->pools[i];

			if (!pp->vg || !pp->in.meta_legs[0])
				continue;	/* one metadata device */
			for (unsigned k = 0; k < 2; k++) {
				const char *labels[] = { "pool", pp->name, "leg", k ? "1" : "0",
							 NULL };
				if (fam)
					sample(&bad, pp->in.meta_leg_bad[k], labels);
				else
					sample(&up, (uint64_t)pp->in.meta_leg_up[k], labels);
			}
		}
	struct family mism = { f, "tptools_pool_metadata_leg_integrity_mismatches", GAUGE,
			       "Active, with dm-integrity under the legs: reads of the leg whose "
			       "tag did not match since activation (read from the other leg and "
			       "rewritten)", 0 };

	for (unsigned i = 0; i < r->n; i++) {
		const struct prom_pool *pp = &r->pools[i];

		for (unsigned k = 0; pp->vg && pp->in.meta_legs[0] && k < 2; k++) {
			const char *labels[] = { "pool", pp->name, "leg", k ? "1" : "0", NULL };

			if (pp->in.meta_leg_mismatches[k] >= 0)
				sample(&mism, (uint64_t)pp->in.meta_leg_mismatches[k], labels);
		}
	}
	for (unsigned i = 0; i < r->n; i++)
		if (r->pools[i].vg && r->pools[i].in.meta_scrub_time > 0)
			pool_sample(&when, &r->pools[i], (uint64_t)r->pools[i].in.meta_scrub_time);
	for (unsigned i = 0; i < r->n; i++)
		if (r->pools[i].vg && r->pools[i].in.meta_scrub_time > 0)
			pool_sample(&mis, &r->pools[i], r->pools[i].in.meta_scrub_mismatched);
}

/* The per-volume families. */
struct vol_metric {
	const char *name, *help;
	enum need need;
	uint64_t (*value)(const struct pool_volume_info *vi);
};

#define VALUE(fn, expr) \
	static uint64_t fn(const struct pool_volume_info *vi) { return (uint64_t)(expr); }
VALUE(vv_size, vi->size)
VALUE(vv_mapped, vi->mapped)
VALUE(vv_exclusive, vi->exclusive)
VALUE(vv_highest, vi->highest_mapped)
VALUE(vv_active, vi->active)
VALUE(vv_open, vi->open)
VALUE(vv_read_only, vi->read_only)
VALUE(vv_encrypted, vi->luks_uuid[0] != '\0')
VALUE(vv_unlocked, vi->unlocked)
#undef VALUE

static const struct vol_metric vol_metrics[] = {
	{ "tptools_volume_size_bytes", "The volume's virtual size", VG, vv_size },
	{ "tptools_volume_mapped_bytes", "Data mapped by the volume, shared or not",
	  VOL_FIGURES, vv_mapped },
	{ "tptools_volume_exclusive_bytes",
	  "Data mapped by this volume only (what removing it frees)", VOL_FIGURES,
	  vv_exclusive },
	{ "tptools_volume_highest_mapped_bytes",
	  "End of the highest chunk the volume maps: nothing is mapped at or above it",
	  VOL_FIGURES, vv_highest },
	{ "tptools_volume_active", "1 while the volume is loaded in the kernel", UP, vv_active },
	{ "tptools_volume_open", "1 while the volume's device is open (mounted, in use)", UP,
	  vv_open },
	{ "tptools_volume_read_only", "1 for a read-only volume", VG, vv_read_only },
	{ "tptools_volume_encrypted", "1 for an encrypted volume (its content a LUKS2 device)",
	  VG, vv_encrypted },
	{ "tptools_volume_unlocked",
	  "1 while an encrypted volume's plaintext (dm-crypt) device is loaded", UP,
	  vv_unlocked },
};

static void write_vol_metric(FILE *f, const struct prom_report *r, const struct vol_metric *m)
{
	struct family fam = { f, m->name, GAUGE, m->help, 0 };

	for (unsigned i = 0; i < r->n; i++) {
		const struct prom_pool *pp = &r->pools[i];
		unsigned nv = pp->keep ? pp->nkeep : pp->in.nr_volumes;

		if (!has(pp, m->need))
			continue;
		for (unsigned k = 0; k < nv; k++) {
			unsigned idx = pp->keep ? (unsigned)pp->keep[k] : k;
			struct pool_volume_info one;
			const struct pool_volume_info *vi = &one;

			if (!pp->in.volumes)
				pool_info_volume(&pp->in, idx, &one);
			else
				vi = &pp->in.volumes[idx];
			const char *labels[] = { "pool", pp->name, "volume", vi->name, NULL };
			sample(&fam, m->value(vi), labels);
		}
	}
}

int prom_write(const struct prom_report *r, FILE *f)
{
	const unsigned np = sizeof(pool_metrics) / sizeof(pool_metrics[0]);

	write_pool_metric(f, r, &pool_metrics[0]);	/* tptools_pool_up first */
	write_info(f, r);
	write_pool_metric(f, r, &pool_metrics[1]);	/* active, then the mode */
	write_mode(f, r);
	for (unsigned i = 2; i < np; i++)
		write_pool_metric(f, r, &pool_metrics[i]);
	write_monitor(f, r);
	write_mirror(f, r);
	for (unsigned i = 0; i < sizeof(vol_metrics) / sizeof(vol_metrics[0]); i++)
		write_vol_metric(f, r, &vol_metrics[i]);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
