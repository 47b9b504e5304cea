/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_text_ref.c - the reference the VG text's reader and writer are held
 * to: metadata/vg/vg_text.c as it was before its own reader and writer
 * (libdevmapper builds and writes a dm_config tree; libdevmapper's
 * dm_config_parse_without_dup_node_check reads the text and the key walk
 * of that time reads the tree), kept verbatim but for the names
 * ref_vg_export and ref_vg_import_why. test_vg_text.c and
 * test/fuzz/fuzz_vg.c compare every byte written, every VG read and every
 * refusal's message with it (vg_text_ref.h). Not for tools. */
#include "test/unit/vg_text_ref.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include "lib/base/dmlog.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VG_TEXT_CONTENTS "tptools VG metadata"
#define VG_TEXT_VERSION 1

static const char *const discards_names[] = { "ignore", "nopassdown", "passdown" };
static const char *const when_full_names[] = { "queue", "error" };
static const char *const lock_type_names[] = { "none", "sanlock" };
static const char *const profile_names[] = { "", "balanced", "throughput", "snapshots",
					     "custom" };

/* ---- export ---- */

struct builder {
	struct dm_config_tree *cft;
	int failed;
};

/* A new node KEY as the last child of PARENT (or the last top-level
 * sibling after *TOP when PARENT is NULL). */
static struct dm_config_node *add_node(struct builder *b, struct dm_config_node *parent,
				       const char *key)
{
	struct dm_config_node *n, **link;

	if (b->failed)
		return NULL;
	n = dm_config_create_node(b->cft, key);
	if (!n) {
		b->failed = 1;
		return NULL;
	}
	n->parent = parent;
	n->sib = n->child = NULL;
	n->v = NULL;
	link = parent ? &parent->child : &b->cft->root;
	while (*link)
		link = &(*link)->sib;
	*link = n;
	return n;
}

static void add_int(struct builder *b, struct dm_config_node *parent, const char *key, int64_t v)
{
	struct dm_config_node *n = add_node(b, parent, key);
	struct dm_config_value *val;

	if (!n)
		return;
	val = dm_config_create_value(b->cft);
	if (!val) {
		b->failed = 1;
		return;
	}
	val->type = DM_CFG_INT;
	val->v.i = v;
	val->next = NULL;
	n->v = val;
}

static void add_str(struct builder *b, struct dm_config_node *parent, const char *key,
		    const char *s)
{
	struct dm_config_node *n = add_node(b, parent, key);
	struct dm_config_value *val;

	if (!n)
		return;
	val = dm_config_create_value(b->cft);
	if (!val || !(val->v.str = dm_pool_strdup(dm_config_memory(b->cft), s))) {
		b->failed = 1;
		return;
	}
	val->type = DM_CFG_STRING;
	val->next = NULL;
	n->v = val;
}

struct outbuf {
	char *buf;
	size_t len, alloc;
	int failed;
};

static int putline(const char *line, void *baton)
{
	struct outbuf *o = baton;
	size_t n = strlen(line);

	if (o->len + n + 2 > o->alloc) {
		size_t a = (o->alloc ? o->alloc * 2 : 4096);
		char *p;
		while (a < o->len + n + 2)
			a *= 2;
		p = realloc(o->buf, a);
		if (!p) {
			o->failed = 1;
			return 0;
		}
		o->buf = p;
		o->alloc = a;
	}
	memcpy(o->buf + o->len, line, n);
	o->len += n;
	o->buf[o->len++] = '\n';
	o->buf[o->len] = '\0';
	return 1;
}

static struct dm_config_node *export_one(struct builder *b, struct dm_config_node *devs,
					 const struct vg_device *d, const char *key)
{
	struct dm_config_node *n = add_node(b, devs, key);

	add_str(b, n, "uuid", d->pv_uuid);
	add_str(b, n, "path", d->path);
	add_int(b, n, "size", (int64_t)d->size);
	add_int(b, n, "mda_offset", (int64_t)d->mda.offset);
	add_int(b, n, "mda_size", (int64_t)d->mda.size);
	add_int(b, n, "area0_offset", (int64_t)d->area[0].offset);
	add_int(b, n, "area0_size", (int64_t)d->area[0].size);
	add_int(b, n, "area1_offset", (int64_t)d->area[1].offset);
	add_int(b, n, "area1_size", (int64_t)d->area[1].size);
	return n;
}

static void export_device(struct builder *b, struct dm_config_node *devs, const struct vg *vg,
			  enum vg_role role)
{
	export_one(b, devs, &vg->dev[role], vg_role_name(role));
}

/* data1..: the added data devices, with the range of chunks each holds */
static void export_xdata(struct builder *b, struct dm_config_node *devs, const struct vg *vg)
{
	char key[16];

	for (unsigned i = 1; i < vg_nr_data(vg); i++) {
		struct dm_config_node *n;

		snprintf(key, sizeof(key), "data%u", i);
		n = export_one(b, devs, vg_data_dev(vg, i), key);
		add_int(b, n, "first_chunk", (int64_t)vg_data_first_chunk(vg, i));
		add_int(b, n, "chunks", (int64_t)vg_data_dev_chunks(vg, i));
	}
}

static void export_volume(struct builder *b, struct dm_config_node *parent,
			  const struct vg_volume *v, int receiving)
{
	struct dm_config_node *n = add_node(b, parent, v->name);

	add_int(b, n, "dev_id", v->dev_id);
	add_int(b, n, "size", (int64_t)v->size);
	add_str(b, n, "origin", v->origin);
	add_int(b, n, "creation_time", v->creation_time);
	add_int(b, n, "read_only", v->read_only);
	if (v->activation_skip)
		add_int(b, n, "activation_skip", 1);
	if (v->content_uuid[0])
		add_str(b, n, "content_uuid", v->content_uuid);
	if (v->luks_uuid[0])
		add_str(b, n, "luks_uuid", v->luks_uuid);
	if (receiving)
		add_int(b, n, "received", (int64_t)v->received);
	if (receiving && v->raw)
		add_int(b, n, "raw", 1);
}

int ref_vg_export(const struct vg *vg, char **text, size_t *len)
{
	struct builder b = { 0 };
	struct outbuf o = { 0 };
	struct dm_config_node *pool, *devs, *vols;
	unsigned i;
	int r;

	r = vg_validate(vg);
	if (r)
		return r;
	b.cft = dm_config_create();
	if (!b.cft)
		return -ENOMEM;
	add_str(&b, NULL, "contents", VG_TEXT_CONTENTS);
	add_int(&b, NULL, "version", VG_TEXT_VERSION);
	pool = add_node(&b, NULL, "pool");
	add_str(&b, pool, "name", vg->name);
	add_str(&b, pool, "uuid", vg->uuid);
	add_int(&b, pool, "seqno", (int64_t)vg->seqno);
	add_int(&b, pool, "format_version", vg->format_version);
	add_int(&b, pool, "creation_time", vg->creation_time);
	add_str(&b, pool, "creation_host", vg->creation_host);
	if (vg->system_id[0])
		add_str(&b, pool, "system_id", vg->system_id);
	add_int(&b, pool, "chunk_size", vg->chunk_size);
	add_int(&b, pool, "zero", vg->zero);
	add_str(&b, pool, "discards", discards_names[vg->discards]);
	add_str(&b, pool, "when_full", when_full_names[vg->when_full]);
	add_int(&b, pool, "transaction_id", (int64_t)vg->transaction_id);
	add_int(&b, pool, "next_dev_id", vg->next_dev_id);
	add_int(&b, pool, "metadata_area", vg->metadata_area);
	if (vg->activation_skip)
		add_int(&b, pool, "activation_skip", 1);
	if (vg->profile != VG_PROFILE_NONE)
		add_str(&b, pool, "profile", profile_names[vg->profile]);
	if (!vg_monitor_is_default(&vg->monitor)) {
		struct dm_config_node *m = add_node(&b, pool, "monitor");

		add_int(&b, m, "warn", vg->monitor.warn);
		add_int(&b, m, "autoextend_threshold", vg->monitor.autoextend_threshold);
		if (vg->monitor.autoextend_size)
			add_int(&b, m, "autoextend_size", (int64_t)vg->monitor.autoextend_size);
		else
			add_int(&b, m, "autoextend_percent", vg->monitor.autoextend_percent);
		if (vg->monitor.autoextend_max)
			add_int(&b, m, "autoextend_max", (int64_t)vg->monitor.autoextend_max);
		if (vg->monitor.autoextend_device[0])
			add_str(&b, m, "autoextend_device", vg->monitor.autoextend_device);
	}
	if (vg->max_overprovision)
		add_int(&b, pool, "max_overprovision_percent", vg->max_overprovision);
	if (vg->trash_retention)
		add_int(&b, pool, "trash_retention", (int64_t)vg->trash_retention);
	if (vg->lock.type != VG_LOCK_NONE) {
		struct dm_config_node *l = add_node(&b, pool, "lock");

		add_str(&b, l, "type", lock_type_names[vg->lock.type]);
		add_int(&b, l, "offset", (int64_t)vg->lock.offset);
		add_int(&b, l, "io_timeout", vg->lock.io_timeout);
		add_str(&b, l, "name", vg->lock.name);
	}
	devs = add_node(&b, pool, "devices");
	export_device(&b, devs, vg, VG_ROLE_DATA);
	export_device(&b, devs, vg, VG_ROLE_META);
	export_xdata(&b, devs, vg);
	if (vg->meta_mirror) {
		struct dm_config_node *m1 = export_one(&b, devs, &vg->meta1, "meta1");

		if (vg->raid_meta_offset)
			add_int(&b, m1, "raid_meta_offset", (int64_t)vg->raid_meta_offset);
		if (vg->integrity_offset) {
			add_int(&b, m1, "integrity_offset", (int64_t)vg->integrity_offset);
			add_int(&b, m1, "integrity_size", (int64_t)vg->integrity_size);
		}
	}
	vols = add_node(&b, pool, "volumes");
	for (i = 0; i < vg->nr_volumes && !b.failed; i++)
		export_volume(&b, vols, &vg->volumes[i], 0);
	/* an old tptools refuses the unknown section rather than taking an
	 * unfinished receive for a volume */
	if (vg->nr_receives) {
		vols = add_node(&b, pool, "receiving");
		for (i = 0; i < vg->nr_receives && !b.failed; i++)
			export_volume(&b, vols, &vg->receives[i], 1);
	}
	/* the same for a removal under way: an old tptools must not take it
	 * for a thin device no volume owns, nor reuse its name */
	if (vg->nr_removals) {
		vols = add_node(&b, pool, "removing");
		for (i = 0; i < vg->nr_removals && !b.failed; i++) {
			struct dm_config_node *n = add_node(&b, vols, vg->removals[i].name);

			add_int(&b, n, "dev_id", vg->removals[i].dev_id);
			add_int(&b, n, "size", (int64_t)vg->removals[i].size);
			if (vg->removals[i].wiped)
				add_int(&b, n, "wiped", 1);
		}
	}
	/* and for the trash: an old tptools must neither take a trashed
	 * volume for a live one nor its thin device for one no volume owns */
	if (vg->nr_trash) {
		vols = add_node(&b, pool, "trash");
		for (i = 0; i < vg->nr_trash && !b.failed; i++) {
			const struct vg_volume *t = &vg->trash[i];
			struct dm_config_node *n;
			char key[16];

			snprintf(key, sizeof(key), "t%u", (unsigned)t->dev_id);
			n = add_node(&b, vols, key);
			add_str(&b, n, "name", t->name);
			add_int(&b, n, "dev_id", t->dev_id);
			add_int(&b, n, "size", (int64_t)t->size);
			add_int(&b, n, "creation_time", t->creation_time);
			add_int(&b, n, "read_only", t->read_only);
			if (t->activation_skip)
				add_int(&b, n, "activation_skip", 1);
			if (t->content_uuid[0])
				add_str(&b, n, "content_uuid", t->content_uuid);
			if (t->luks_uuid[0])
				add_str(&b, n, "luks_uuid", t->luks_uuid);
			add_int(&b, n, "trashed_at", t->trashed_at);
			if (t->purging)
				add_int(&b, n, "purging", 1);
		}
	}
	if (!b.failed) {
		putline("# tptools VG metadata: written by tptools, read back with checks.", &o);
		putline("# Edit a backup copy only, never the device.", &o);
		if (!o.failed && !dm_config_write_node(b.cft->root, putline, &o))
			o.failed = 1;
	}
	dm_config_destroy(b.cft);
	if (b.failed || o.failed) {
		free(o.buf);
		return -ENOMEM;
	}
	*text = o.buf;
	*len = o.len;
	return 0;
}

/* ---- import ---- */

struct reader {
	char msg[512];
};

static int bad(struct reader *rd, const char *fmt, ...) TP_PRINTF(2, 3);
static int bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->msg, sizeof(rd->msg), fmt, ap);
	va_end(ap);
	return -1;
}

struct key_at {
	const char *key;
	unsigned pos;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Every key of SECTION is one of KEYS (NULL-terminated; NULL: any) and
 * none repeats; the first key in order that breaks a rule is reported
 * (PATH names SECTION). A large section (the
 * volumes) has its keys sorted once, so the check is not quadratic in the
 * volume count (issue 40). */
static int check_keys(struct reader *rd, const struct dm_config_node *section, const char *path,
		      const char *const *keys)
{
	const struct dm_config_node *a, *b;
	struct key_at *sorted = NULL;
	unsigned char *repeats = NULL;
	unsigned n = 0, i;
	int r = 0;

	for (a = section->child; a; a = a->sib)
		n++;
	if (n > 16) {
		sorted = malloc(n * sizeof(*sorted));
		repeats = calloc(n, 1);
		if (!sorted || !repeats) {
			free(sorted);
			free(repeats);
			return bad(rd, "%s: out of memory", path);
		}
		for (a = section->child, i = 0; a; a = a->sib, i++)
			sorted[i] = (struct key_at){ a->key, i };
		qsort(sorted, n, sizeof(*sorted), key_cmp);
		for (i = 1; i < n; i++)
			if (!strcmp(sorted[i - 1].key, sorted[i].key))
				repeats[sorted[i].pos] = 1;
	}
	for (a = section->child, i = 0; a && !r; a = a->sib, i++) {
		int again = 0;
		if (keys) {
			const char *const *k;
			for (k = keys; *k && strcmp(*k, a->key); k++)
				;
			if (!*k) {
				r = bad(rd, "%s/%s: unknown key", path, a->key);
				break;
			}
		}
		if (repeats)
			again = repeats[i];
		else
			for (b = section->child; b != a && !again; b = b->sib)
				again = !strcmp(a->key, b->key);
		if (again)
			r = bad(rd, "%s/%s: duplicate key", path, a->key);
	}
	free(sorted);
	free(repeats);
	return r;
}

static const struct dm_config_node *child(const struct dm_config_node *section, const char *key)
{
	const struct dm_config_node *n;

	for (n = section ? section->child : NULL; n; n = n->sib)
		if (!strcmp(n->key, key))
			return n;
	return NULL;
}

static int get_section(struct reader *rd, const struct dm_config_node *parent, const char *path,
		       const char *key, const struct dm_config_node **out)
{
	const struct dm_config_node *n = child(parent, key);

	if (!n)
		return bad(rd, "%s/%s: missing", path, key);
	if (n->v)
		return bad(rd, "%s/%s: must be a section", path, key);
	*out = n;
	return 0;
}

static int get_int(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, int64_t min, int64_t max, int64_t *out)
{
	const struct dm_config_node *n = child(parent, key);

	if (!n)
		return bad(rd, "%s/%s: missing", path, key);
	if (!n->v || n->v->type != DM_CFG_INT || n->v->next)
		return bad(rd, "%s/%s: must be an integer", path, key);
	if (n->v->v.i < min || n->v->v.i > max)
		return bad(rd, "%s/%s: %" PRId64 " is out of range %" PRId64 "..%" PRId64, path,
			   key, n->v->v.i, min, max);
	*out = n->v->v.i;
	return 0;
}

/* An optional 0|1 flag: a missing key reads as 0. */
static int get_flag(struct reader *rd, const struct dm_config_node *parent, const char *path,
		    const char *key, int *out)
{
	int64_t v;

	*out = 0;
	if (!child(parent, key))
		return 0;
	if (get_int(rd, parent, path, key, 0, 1, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int get_u64(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, uint64_t *out)
{
	int64_t v;

	if (get_int(rd, parent, path, key, 0, INT64_MAX, &v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int get_u32(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, uint32_t max, uint32_t *out)
{
	int64_t v;

	if (get_int(rd, parent, path, key, 0, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A string into BUF (SIZE bytes including the NUL); too long is an error.
 * OPTIONAL: a missing key gives "". */
static int get_str(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, char *buf, size_t size, int optional)
{
	const struct dm_config_node *n = child(parent, key);

	if (!n && optional) {
		buf[0] = '\0';
		return 0;
	}
	if (!n)
		return bad(rd, "%s/%s: missing", path, key);
	if (!n->v || n->v->type != DM_CFG_STRING || n->v->next)
		return bad(rd, "%s/%s: must be a string", path, key);
	if (strlen(n->v->v.str) >= size)
		return bad(rd, "%s/%s: longer than %zu bytes", path, key, size - 1);
	strcpy(buf, n->v->v.str);
	return 0;
}

static int get_enum(struct reader *rd, const struct dm_config_node *parent, const char *path,
		    const char *key, const char *const *names, unsigned nr, unsigned *out)
{
	char buf[32];
	unsigned i;

	if (get_str(rd, parent, path, key, buf, sizeof(buf), 0))
		return -1;
	for (i = 0; i < nr; i++) {
		if (!strcmp(buf, names[i])) {
			*out = i;
			return 0;
		}
	}
	return bad(rd, "%s/%s: unknown value '%s'", path, key, buf);
}

static const char *const device_keys[] = { "uuid",	   "path",	   "size",
					   "mda_offset",   "mda_size",	   "area0_offset",
					   "area0_size",   "area1_offset", "area1_size",
					   NULL };

static const char *const xdata_keys[] = { "uuid",	     "path",	     "size",
					  "mda_offset",	     "mda_size",     "area0_offset",
					  "area0_size",	     "area1_offset", "area1_size",
					  "first_chunk",     "chunks",	     NULL };

static int import_one(struct reader *rd, const struct dm_config_node *devs, struct vg_device *d,
		      const char *key, const char *const *keys, const struct dm_config_node **np)
{
	const struct dm_config_node *n;
	char path[64];

	snprintf(path, sizeof(path), "pool/devices/%s", key);
	if (get_section(rd, devs, "pool/devices", key, &n) ||
	    check_keys(rd, n, path, keys) ||
	    get_str(rd, n, path, "uuid", d->pv_uuid, sizeof(d->pv_uuid), 0) ||
	    get_str(rd, n, path, "path", d->path, sizeof(d->path), 0) ||
	    get_u64(rd, n, path, "size", &d->size) ||
	    get_u64(rd, n, path, "mda_offset", &d->mda.offset) ||
	    get_u64(rd, n, path, "mda_size", &d->mda.size) ||
	    get_u64(rd, n, path, "area0_offset", &d->area[0].offset) ||
	    get_u64(rd, n, path, "area0_size", &d->area[0].size) ||
	    get_u64(rd, n, path, "area1_offset", &d->area[1].offset) ||
	    get_u64(rd, n, path, "area1_size", &d->area[1].size))
		return -1;
	*np = n;
	return 0;
}

static int import_device(struct reader *rd, const struct dm_config_node *devs, struct vg *vg,
			 enum vg_role role)
{
	const struct dm_config_node *n;

	return import_one(rd, devs, &vg->dev[role], vg_role_name(role), device_keys, &n);
}

/* data1.. in order, each with the range the model derives from the areas */
static int import_xdata(struct reader *rd, const struct dm_config_node *devs, struct vg *vg)
{
	uint64_t chunk = (uint64_t)vg->chunk_size * 512, first, chunks;
	char key[16], path[64];

	for (unsigned i = 1; i < VG_DATA_DEVICES_MAX; i++) {
		const struct dm_config_node *n;

		snprintf(key, sizeof(key), "data%u", i);
		if (!child(devs, key))
			break;
		snprintf(path, sizeof(path), "pool/devices/%s", key);
		vg->nr_xdata = i;
		if (import_one(rd, devs, vg_data_dev(vg, i), key, xdata_keys, &n) ||
		    get_u64(rd, n, path, "first_chunk", &first) ||
		    get_u64(rd, n, path, "chunks", &chunks))
			return -1;
		if (!chunk || chunks != vg_data_dev(vg, i)->area[0].size / chunk)
			return bad(rd, "%s/chunks: %" PRIu64 " is not the chunks of its data area",
				   path, chunks);
		if (first != vg_data_first_chunk(vg, i))
			return bad(rd, "%s/first_chunk: %" PRIu64 " is not the sum of the chunks "
				   "before it (%" PRIu64 ")", path, first,
				   vg_data_first_chunk(vg, i));
	}
	return 0;
}

/* meta1: the second metadata device of a mirrored pool, when there is one */
static int import_meta1(struct reader *rd, const struct dm_config_node *devs, struct vg *vg)
{
	const struct dm_config_node *n;

	static const char *const keys[] = { "uuid",	     "path",	     "size",
					    "mda_offset",    "mda_size",     "area0_offset",
					    "area0_size",    "area1_offset", "area1_size",
					    "raid_meta_offset", "integrity_offset",
					    "integrity_size", NULL };

	if (!child(devs, "meta1"))
		return 0;
	vg->meta_mirror = 1;
	if (import_one(rd, devs, &vg->meta1, "meta1", keys, &n))
		return -1;
	if (child(n, "raid_meta_offset") &&
	    get_u64(rd, n, "pool/devices/meta1", "raid_meta_offset", &vg->raid_meta_offset))
		return -1;
	if (!child(n, "integrity_offset") != !child(n, "integrity_size"))
		return bad(rd, "pool/devices/meta1: integrity_offset and integrity_size go "
			   "together");
	return child(n, "integrity_offset")
		       ? (get_u64(rd, n, "pool/devices/meta1", "integrity_offset",
				  &vg->integrity_offset) ||
			  get_u64(rd, n, "pool/devices/meta1", "integrity_size",
				  &vg->integrity_size))
		       : 0;
}

static const char *const volume_keys[] = { "dev_id", "size", "origin", "creation_time",
					   "read_only", "activation_skip", "content_uuid",
					   "luks_uuid", NULL };
static const char *const receive_keys[] = { "dev_id", "size", "origin", "creation_time",
					    "read_only", "activation_skip", "content_uuid",
					    "luks_uuid", "received", "raw", NULL };

/* One volume of pool/volumes, or (RECEIVING) an unfinished receive of
 * pool/receiving. */
static int import_volume(struct reader *rd, const struct dm_config_node *n, struct vg *vg,
			 int receiving)
{
	const char *sect = receiving ? "pool/receiving" : "pool/volumes";
	struct vg_volume v;
	char path[128];
	const char *why;
	int64_t i;

	memset(&v, 0, sizeof(v));
	snprintf(path, sizeof(path), "%s/%.64s", sect, n->key);
	if (!vg_name_valid(n->key, &why))
		return bad(rd, "%s/%.64s: bad volume name: %s", sect, n->key, why);
	if (n->v)
		return bad(rd, "%s: must be a section", path);
	strcpy(v.name, n->key);
	if (check_keys(rd, n, path, receiving ? receive_keys : volume_keys) ||
	    get_u32(rd, n, path, "dev_id", VG_DEV_ID_MAX, &v.dev_id) ||
	    get_u64(rd, n, path, "size", &v.size) ||
	    get_str(rd, n, path, "origin", v.origin, sizeof(v.origin), 1) ||
	    get_int(rd, n, path, "creation_time", INT64_MIN, INT64_MAX, &v.creation_time) ||
	    get_int(rd, n, path, "read_only", 0, 1, &i) ||
	    get_flag(rd, n, path, "activation_skip", &v.activation_skip) ||
	    get_str(rd, n, path, "content_uuid", v.content_uuid, sizeof(v.content_uuid), 1) ||
	    get_str(rd, n, path, "luks_uuid", v.luks_uuid, sizeof(v.luks_uuid), 1) ||
	    (receiving && get_u64(rd, n, path, "received", &v.received)) ||
	    (receiving && get_flag(rd, n, path, "raw", &v.raw)))
		return -1;
	v.read_only = (int)i;
	if (!receiving)
		return vg_append_volume(vg, &v);
	return vg_append_receive(vg, &v);
}

static const char *const removal_keys[] = { "dev_id", "size", "wiped", NULL };

/* One removal under way of pool/removing. */
static int import_removal(struct reader *rd, const struct dm_config_node *n, struct vg *vg)
{
	struct vg_volume v;
	char path[128];
	const char *why;

	memset(&v, 0, sizeof(v));
	snprintf(path, sizeof(path), "pool/removing/%.64s", n->key);
	if (!vg_name_valid(n->key, &why))
		return bad(rd, "pool/removing/%.64s: bad volume name: %s", n->key, why);
	if (n->v)
		return bad(rd, "%s: must be a section", path);
	strcpy(v.name, n->key);
	if (check_keys(rd, n, path, removal_keys) ||
	    get_u32(rd, n, path, "dev_id", VG_DEV_ID_MAX, &v.dev_id) ||
	    get_u64(rd, n, path, "size", &v.size) ||
	    get_flag(rd, n, path, "wiped", &v.wiped))
		return -1;
	return vg_append_removal(vg, &v);
}

static const char *const trash_keys[] = { "name", "dev_id", "size", "creation_time",
					  "read_only", "activation_skip", "content_uuid",
					  "luks_uuid", "trashed_at", "purging", NULL };

/* One trash entry of pool/trash, keyed t<dev_id>. */
static int import_trash(struct reader *rd, const struct dm_config_node *n, struct vg *vg)
{
	struct vg_volume v;
	char path[128], want[16];
	const char *why;
	int64_t i;

	memset(&v, 0, sizeof(v));
	snprintf(path, sizeof(path), "pool/trash/%.64s", n->key);
	if (n->v)
		return bad(rd, "%s: must be a section", path);
	if (check_keys(rd, n, path, trash_keys) ||
	    get_str(rd, n, path, "name", v.name, sizeof(v.name), 0) ||
	    get_u32(rd, n, path, "dev_id", VG_DEV_ID_MAX, &v.dev_id) ||
	    get_u64(rd, n, path, "size", &v.size) ||
	    get_int(rd, n, path, "creation_time", INT64_MIN, INT64_MAX, &v.creation_time) ||
	    get_int(rd, n, path, "read_only", 0, 1, &i) ||
	    get_flag(rd, n, path, "activation_skip", &v.activation_skip) ||
	    get_str(rd, n, path, "content_uuid", v.content_uuid, sizeof(v.content_uuid), 1) ||
	    get_str(rd, n, path, "luks_uuid", v.luks_uuid, sizeof(v.luks_uuid), 1) ||
	    get_int(rd, n, path, "trashed_at", INT64_MIN, INT64_MAX, &v.trashed_at) ||
	    get_flag(rd, n, path, "purging", &v.purging))
		return -1;
	v.read_only = (int)i;
	if (!vg_name_valid(v.name, &why))
		return bad(rd, "%s/name: bad volume name: %s", path, why);
	snprintf(want, sizeof(want), "t%u", (unsigned)v.dev_id);
	if (strcmp(n->key, want))
		return bad(rd, "%s: the key of thin device %u's entry must be %s", path,
			   (unsigned)v.dev_id, want);
	return vg_append_trash(vg, &v);
}

static const char *const monitor_keys[] = { "warn", "autoextend_threshold",
					    "autoextend_percent", "autoextend_size",
					    "autoextend_max", "autoextend_device", NULL };

/* The optional monitor section: missing keys keep their defaults; an
 * autoextend_size given replaces the default percent. */
static int import_monitor(struct reader *rd, const struct dm_config_node *pool, struct vg *vg)
{
	const struct dm_config_node *n = child(pool, "monitor");
	struct vg_monitor *m = &vg->monitor;
	uint64_t size = 0;
	uint32_t pct = VG_MONITOR_PERCENT_DEFAULT;

	if (!n)
		return 0;
	if (n->v)
		return bad(rd, "pool/monitor: must be a section");
	if (check_keys(rd, n, "pool/monitor", monitor_keys) ||
	    (child(n, "warn") && get_u32(rd, n, "pool/monitor", "warn", 100, &m->warn)) ||
	    (child(n, "autoextend_threshold") &&
	     get_u32(rd, n, "pool/monitor", "autoextend_threshold", VG_MONITOR_THRESHOLD_OFF,
		     &m->autoextend_threshold)) ||
	    (child(n, "autoextend_percent") &&
	     get_u32(rd, n, "pool/monitor", "autoextend_percent", VG_MONITOR_PERCENT_MAX, &pct)) ||
	    (child(n, "autoextend_size") &&
	     get_u64(rd, n, "pool/monitor", "autoextend_size", &size)) ||
	    (child(n, "autoextend_max") &&
	     get_u64(rd, n, "pool/monitor", "autoextend_max", &m->autoextend_max)) ||
	    get_str(rd, n, "pool/monitor", "autoextend_device", m->autoextend_device,
		    sizeof(m->autoextend_device), 1))
		return -1;
	if (size && child(n, "autoextend_percent"))
		return bad(rd, "pool/monitor: autoextend_percent and autoextend_size both given");
	m->autoextend_percent = size ? 0 : pct;
	m->autoextend_size = size;
	return 0;
}

static const char *const top_keys[] = { "contents", "version", "pool", NULL };
static const char *const pool_keys[] = { "name",	   "uuid",	     "seqno",
					 "format_version", "creation_time",  "creation_host",
					 "chunk_size",	   "zero",	     "discards",
					 "when_full",	   "transaction_id", "next_dev_id",
					 "metadata_area",  "devices",	     "volumes",
					 "activation_skip", "profile", "monitor", "receiving", "removing",
					 "trash", "trash_retention", "system_id", "max_overprovision_percent", "lock", NULL };
static const char *const lock_keys[] = { "type", "offset", "io_timeout", "name", NULL };

/* pool/lock (optional): a pool on shared storage */
static int import_lock(struct reader *rd, const struct dm_config_node *pool, struct vg *vg)
{
	const struct dm_config_node *n;
	unsigned e = 0;

	if (!child(pool, "lock"))
		return 0;
	if (get_section(rd, pool, "pool", "lock", &n) || check_keys(rd, n, "pool/lock", lock_keys) ||
	    get_enum(rd, n, "pool/lock", "type", lock_type_names + 1,
		     TP_ARRAY_SIZE(lock_type_names) - 1, &e) ||
	    get_u64(rd, n, "pool/lock", "offset", &vg->lock.offset) ||
	    get_u32(rd, n, "pool/lock", "io_timeout", VG_LOCK_IO_TIMEOUT_MAX, &vg->lock.io_timeout) ||
	    get_str(rd, n, "pool/lock", "name", vg->lock.name, sizeof(vg->lock.name), 0))
		return -1;
	vg->lock.type = (enum vg_lock_type)(e + 1);
	return 0;
}
static const char *const devices_keys[] = { "data",  "meta",  "data1", "data2", "data3",
					    "data4", "data5", "data6", "data7", "meta1", NULL };

static int import_tree(struct reader *rd, const struct dm_config_tree *cft, struct vg *vg)
{
	struct dm_config_node top = { .key = "", .child = cft->root };
	const struct dm_config_node *pool, *devs, *vols, *n;
	char contents[64];
	int64_t i, retention = 0;
	unsigned e = 0;
	int r;

	if (check_keys(rd, &top, "", top_keys) ||
	    get_str(rd, &top, "", "contents", contents, sizeof(contents), 0))
		return -1;
	if (strcmp(contents, VG_TEXT_CONTENTS))
		return bad(rd, "contents: '%s' is not tptools VG metadata", contents);
	if (get_int(rd, &top, "", "version", VG_TEXT_VERSION, VG_TEXT_VERSION, &i) ||
	    get_section(rd, &top, "", "pool", &pool) ||
	    check_keys(rd, pool, "pool", pool_keys) ||
	    get_str(rd, pool, "pool", "name", vg->name, sizeof(vg->name), 0) ||
	    get_str(rd, pool, "pool", "uuid", vg->uuid, sizeof(vg->uuid), 0) ||
	    get_int(rd, pool, "pool", "seqno", 1, INT64_MAX, &i))
		return -1;
	vg->seqno = (uint64_t)i;
	if (get_u32(rd, pool, "pool", "format_version", UINT32_MAX, &vg->format_version) ||
	    get_int(rd, pool, "pool", "creation_time", INT64_MIN, INT64_MAX, &vg->creation_time) ||
	    get_str(rd, pool, "pool", "creation_host", vg->creation_host,
		    sizeof(vg->creation_host), 0) ||
	    get_str(rd, pool, "pool", "system_id", vg->system_id, sizeof(vg->system_id), 1) ||
	    get_u32(rd, pool, "pool", "chunk_size", VG_CHUNK_MAX_SECTORS, &vg->chunk_size) ||
	    get_int(rd, pool, "pool", "zero", 0, 1, &i))
		return -1;
	vg->zero = (int)i;
	if (get_enum(rd, pool, "pool", "discards", discards_names, 3, &e))
		return -1;
	vg->discards = (enum vg_discards)e;
	if (get_enum(rd, pool, "pool", "when_full", when_full_names, 2, &e))
		return -1;
	vg->when_full = (enum vg_when_full)e;
	if (get_u64(rd, pool, "pool", "transaction_id", &vg->transaction_id) ||
	    get_u32(rd, pool, "pool", "next_dev_id", VG_DEV_ID_MAX + 1, &vg->next_dev_id) ||
	    get_int(rd, pool, "pool", "metadata_area", 0, 1, &i) ||
	    get_flag(rd, pool, "pool", "activation_skip", &vg->activation_skip) ||
	    (child(pool, "max_overprovision_percent") &&
	     get_u32(rd, pool, "pool", "max_overprovision_percent", VG_OVERPROVISION_MAX,
		     &vg->max_overprovision)) ||
	    (child(pool, "trash_retention") &&
	     get_int(rd, pool, "pool", "trash_retention", 1, (int64_t)VG_TRASH_RETENTION_MAX,
		     &retention)))
		return -1;
	vg->trash_retention = (uint64_t)retention;
	vg->metadata_area = (unsigned)i;
	if (child(pool, "profile")) {
		if (get_enum(rd, pool, "pool", "profile", profile_names + 1,
			     TP_ARRAY_SIZE(profile_names) - 1, &e))
			return -1;
		vg->profile = (enum vg_profile)(e + 1);
	}
	if (import_monitor(rd, pool, vg) || import_lock(rd, pool, vg) ||
	    get_section(rd, pool, "pool", "devices", &devs) ||
	    check_keys(rd, devs, "pool/devices", devices_keys) ||
	    import_device(rd, devs, vg, VG_ROLE_DATA) || import_device(rd, devs, vg, VG_ROLE_META) ||
	    import_xdata(rd, devs, vg) || import_meta1(rd, devs, vg) ||
	    get_section(rd, pool, "pool", "volumes", &vols) ||
	    check_keys(rd, vols, "pool/volumes", NULL))
		return -1;
	for (n = vols->child; n; n = n->sib) {
		if (vg->nr_volumes >= VG_MAX_VOLUMES)
			return bad(rd, "pool/volumes: more than %u volumes", VG_MAX_VOLUMES);
		r = import_volume(rd, n, vg, 0);
		if (r)
			return r;
	}
	if (child(pool, "receiving")) {
		if (get_section(rd, pool, "pool", "receiving", &vols) ||
		    check_keys(rd, vols, "pool/receiving", NULL))
			return -1;
		for (n = vols->child; n; n = n->sib) {
			if (vg->nr_volumes + vg->nr_receives >= VG_MAX_VOLUMES)
				return bad(rd, "pool/receiving: more than %u volumes and receives",
					   VG_MAX_VOLUMES);
			if ((r = import_volume(rd, n, vg, 1)))
				return r;
		}
	}
	if (child(pool, "removing")) {
		if (get_section(rd, pool, "pool", "removing", &vols) ||
		    check_keys(rd, vols, "pool/removing", NULL))
			return -1;
		for (n = vols->child; n; n = n->sib) {
			if (vg->nr_volumes + vg->nr_receives + vg->nr_removals >= VG_MAX_VOLUMES)
				return bad(rd, "pool/removing: more than %u volumes, receives and "
					   "removals", VG_MAX_VOLUMES);
			if ((r = import_removal(rd, n, vg)))
				return r;
		}
	}
	if (child(pool, "trash")) {
		if (get_section(rd, pool, "pool", "trash", &vols) ||
		    check_keys(rd, vols, "pool/trash", NULL))
			return -1;
		for (n = vols->child; n; n = n->sib) {
			if (vg->nr_volumes + vg->nr_receives + vg->nr_removals + vg->nr_trash >=
			    VG_MAX_VOLUMES)
				return bad(rd, "pool/trash: more than %u volumes, receives, removals "
					   "and trash entries", VG_MAX_VOLUMES);
			if ((r = import_trash(rd, n, vg)))
				return r;
		}
	}
	return vg_check_model(vg, rd->msg, sizeof(rd->msg));
}

/* libdevmapper's parser reports where the syntax broke through its log
 * function: lib/base/dmlog keeps the first error for us to quote. */
static const char *parse_msg = "";

static int parse(struct dm_config_tree *cft, const char *text, size_t len)
{
	/* libdevmapper's number parser reads past the end it is given when the
	 * text stops inside a number: hand it a NUL-terminated copy. */
	char *copy = malloc(len + 1);
	int ok;

	if (!copy)
		return 0;
	memcpy(copy, text, len);
	copy[len] = '\0';
	tp_dmlog_install();
	tp_dmlog_clear();
	ok = dm_config_parse_without_dup_node_check(cft, copy, copy + len);
	parse_msg = tp_dmlog_first_error();
	free(copy);
	return ok;
}


int ref_vg_import_why(const char *text, size_t len, struct vg **out, char *why, size_t whylen)
{
	struct dm_config_tree *cft;
	struct reader rd = { { 0 } };
	struct vg *vg;
	int r;

	*out = NULL;
	vg = vg_alloc();
	cft = dm_config_create();
	if (!vg || !cft) {
		r = -ENOMEM;
		goto out;
	}
	if (memchr(text, '\0', len)) {
		bad(&rd, "text contains a NUL byte");
		r = -1;
	} else if (!parse(cft, text, len)) {
		bad(&rd, "syntax error%s%s", parse_msg[0] ? ": " : "", parse_msg);
		r = -1;
	} else {
		r = import_tree(&rd, cft, vg);
	}
	if (whylen)
		why[0] = '\0';
	if (r == -1) {
		snprintf(why, whylen, "%s", rd.msg);
		r = -EUCLEAN;
	}
	if (!r) {
		*out = vg;
		vg = NULL;
	}
out:
	if (cft)
		dm_config_destroy(cft);
	vg_free(vg);
	return r;
}

/* ---- the comparisons (vg_text_ref.h) ---- */

static int differ(char *why, size_t whylen, const char *fmt, ...) TP_PRINTF(3, 4);
static int differ(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return 1;
}

static int same_value(const struct dm_config_value *a, const struct dm_config_value *b)
{
	for (; a && b; a = a->next, b = b->next) {
		if (a->type != b->type)
			return 0;
		switch (a->type) {
		case DM_CFG_INT:
			if (a->v.i != b->v.i)
				return 0;
			break;
		case DM_CFG_FLOAT:
			if (memcmp(&a->v.f, &b->v.f, sizeof(a->v.f)))
				return 0;
			break;
		case DM_CFG_STRING:
			if (strcmp(a->v.str, b->v.str))
				return 0;
			break;
		default:
			break;
		}
	}
	return !a && !b;
}

static int same_tree(const struct dm_config_node *a, const struct dm_config_node *b,
		     char *why, size_t whylen)
{
	for (; a && b; a = a->sib, b = b->sib) {
		if (strcmp(a->key, b->key))
			return !differ(why, whylen, "key '%s' where libdevmapper has '%s'", a->key,
				       b->key);
		if (!a->v != !b->v || (a->v && !same_value(a->v, b->v)))
			return !differ(why, whylen, "key '%s': another value or kind", a->key);
		if (!same_tree(a->child, b->child, why, whylen))
			return 0;
	}
	if (a || b)
		return !differ(why, whylen, "%s key '%s' of libdevmapper's", a ? "no" : "a",
			       a ? a->key : b->key);
	return 1;
}

int ref_parse_diff(const char *text, size_t len, char *why, size_t whylen)
{
	struct vg_text_tree tree;
	struct dm_config_tree *cft;
	char err[256], *copy;
	int r, ok, d = 0;

	if (memchr(text, '\0', len))
		return 0;
	copy = malloc(len + 1);
	cft = dm_config_create();
	if (!copy || !cft)
		abort();
	memcpy(copy, text, len);
	copy[len] = '\0';
	tp_dmlog_install();
	tp_dmlog_clear();
	ok = dm_config_parse_without_dup_node_check(cft, copy, copy + len);
	r = vg_text_parse(text, len, &tree, err, sizeof(err));
	if (r == -ENOMEM)
		abort();
	if (!r != !!ok)
		d = differ(why, whylen, "ours %s, libdevmapper %s (%s%s)", r ? "refuses" : "accepts",
			   ok ? "accepts" : "refuses", err, tp_dmlog_first_error());
	else if (r && strcmp(err, tp_dmlog_first_error()))
		d = differ(why, whylen, "ours says '%s', libdevmapper '%s'", err,
			   tp_dmlog_first_error());
	else if (!r && !same_tree(tree.root, cft->root, why, whylen))
		d = 1;
	vg_text_tree_free(&tree);
	dm_config_destroy(cft);
	free(copy);
	return d;
}

/* every field of A and B, the lists' entries included */
static int same_vg_fields(const struct vg *a, const struct vg *b)
{
	struct vg x = *a, y = *b;

	x.volumes = y.volumes = NULL;
	x.receives = y.receives = NULL;
	x.removals = y.removals = NULL;
	x.trash = y.trash = NULL;
	x.alloc_volumes = y.alloc_volumes = 0;
	x.alloc_receives = y.alloc_receives = 0;
	x.alloc_removals = y.alloc_removals = 0;
	x.alloc_trash = y.alloc_trash = 0;
	x.checked = y.checked = 0;	/* (not stored: whether vg_check_model ran) */
	if (memcmp(&x, &y, sizeof(x)))
		return 0;
	/* (memcmp of an empty list's NULL is undefined) */
	return (!a->nr_volumes ||
		!memcmp(a->volumes, b->volumes, a->nr_volumes * sizeof(*a->volumes))) &&
	       (!a->nr_receives ||
		!memcmp(a->receives, b->receives, a->nr_receives * sizeof(*a->receives))) &&
	       (!a->nr_removals ||
		!memcmp(a->removals, b->removals, a->nr_removals * sizeof(*a->removals))) &&
	       (!a->nr_trash || !memcmp(a->trash, b->trash, a->nr_trash * sizeof(*a->trash)));
}

int ref_import_diff(const char *text, size_t len, char *why, size_t whylen)
{
	struct vg *a = NULL, *b = NULL;
	char wa[512], wb[512];
	int ra, rb, d = 0;

	ra = vg_import_why(text, len, &a, wa, sizeof(wa));
	rb = ref_vg_import_why(text, len, &b, wb, sizeof(wb));
	if (ra == -ENOMEM || rb == -ENOMEM)
		abort();
	if (ra != rb)
		d = differ(why, whylen, "ours returns %d (%s), the reference %d (%s)", ra, wa, rb,
			   wb);
	else if (strcmp(wa, wb))
		d = differ(why, whylen, "ours says '%s', the reference '%s'", wa, wb);
	else if (!ra && !same_vg_fields(a, b))
		d = differ(why, whylen, "another struct vg");
	vg_free(a);
	vg_free(b);
	return d;
}

struct lines {
	char *buf;
	size_t len;
};

static int add_line(const char *line, void *baton)
{
	struct lines *l = baton;
	size_t n = strlen(line);
	char *p = realloc(l->buf, l->len + n + 2);

	if (!p)
		abort();
	memcpy(p + l->len, line, n);
	l->len += n;
	p[l->len++] = '\n';
	p[l->len] = '\0';
	l->buf = p;
	return 1;
}

int ref_export_diff(const struct vg *vg, char *why, size_t whylen)
{
	static const char head[] = "# tptools VG metadata: written by tptools, read back with checks.\n"
				   "# Edit a backup copy only, never the device.\n";
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int ra, rb, d = 0;

	ra = vg_export(vg, &a, &na);
	rb = ref_vg_export(vg, &b, &nb);
	if (ra != rb)
		d = differ(why, whylen, "ours returns %d, the reference %d", ra, rb);
	else if (!ra && (na != nb || memcmp(a, b, na) || strlen(a) != na))
		d = differ(why, whylen, "other bytes (%zu, the reference's %zu)", na, nb);
	else if (!ra) {
		struct dm_config_tree *cft = dm_config_from_string(a);
		struct lines l = { 0 };

		if (!cft)
			return differ(why, whylen, "libdevmapper does not read it");
		add_line("# tptools VG metadata: written by tptools, read back with checks.", &l);
		add_line("# Edit a backup copy only, never the device.", &l);
		if (!dm_config_write_node(cft->root, add_line, &l) || l.len != na ||
		    memcmp(l.buf, a, na) || strncmp(a, head, sizeof(head) - 1))
			d = differ(why, whylen, "not what libdevmapper writes for its tree");
		free(l.buf);
		dm_config_destroy(cft);
	}
	free(a);
	free(b);
	return d;
}

/* ---- for the fast reader's checks (vg_text_ref.h) ---- */

int ref_general_has(const struct dm_config_node *root, const struct vg *vg)
{
	for (const struct dm_config_node *p = root; p; p = p->sib) {
		if (strcmp(p->key, "pool") || p->v)
			continue;
		for (const struct dm_config_node *s = p->child; s; s = s->sib) {
			const struct dm_config_node *e;
			unsigned i = 0;

			if (strcmp(s->key, "volumes") || s->v)
				continue;
			for (e = s->child; e && i < vg->nr_volumes; e = e->sib, i++)
				if (strcmp(e->key, vg->volumes[i].name))
					break;
			if (!e && i == vg->nr_volumes)
				return 1;
		}
	}
	return 0;
}
