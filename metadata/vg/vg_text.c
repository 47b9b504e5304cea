/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_text.c - struct vg <-> VG text in libdevmapper's config syntax.
 * See vg.h for the layout. Export writes the text straight into one
 * buffer, in the bytes libdevmapper's dm_config_write_node wrote for the
 * same keys (test_vg_text_ref.c holds it to them); import parses with
 * vg_parse.c (libdevmapper's grammar and tree, duplicate keys kept so
 * they are reported, not silently merged), reads every key with its type
 * checked, refuses unknown keys, then runs the model check. Issue 40: both
 * are linear in the text, a volume's keys found in one pass; and the
 * volumes, in the form the export writes them, are read by vg_parse.c
 * straight into the model (vg_text_parse_fast), a text off that form or
 * refused read again by the general path, which words every refusal. */
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

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

/* The text goes straight into one growing buffer, in the bytes
 * libdevmapper's dm_config_write_node wrote for the tree vg_export built
 * before (test_vg_text.c compares the two): one line a key, a tab a
 * level, "key=value" with no spaces, an integer in decimal, a string in
 * double quotes with '"' and '\' escaped by a '\', a section as
 * "key {" ... "}"; a key with '#', '"' or '!' in it is quoted as a
 * string (no key we write has one). Issue 40: a line is written by
 * stores through a pointer into room made once (for a volume's entry,
 * once for all its lines), an integer eight digits at a time. */
struct writer {
	char *buf;
	size_t len, alloc;
	int failed;
	uint32_t *start;	/* NULL, or where each volume's entry begins */
};

/* Room for N more bytes and the closing NUL. */
static int room(struct writer *w, size_t n)
{
	size_t a;
	char *p;

	if (w->len + n + 1 <= w->alloc)
		return 1;
	if (w->failed)
		return 0;
	/* the first room in a size class (lib/base/compiler.h), where the
	 * heap has a text's buffer freed to hand out again; more doubles */
	if (!w->alloc)
		a = tp_alloc_class(n + 1 > 4096 ? n + 1 : 4096);
	else
		for (a = w->alloc * 2; a < w->len + n + 1; a *= 2)
			;
	p = realloc(w->buf, a);
	if (!p) {
		w->failed = 1;
		return 0;
	}
	w->buf = p;
	w->alloc = a;
	return 1;
}

/* The writing end after room was made, and the text up to O kept. */
static inline char *at_end(struct writer *w)
{
	return w->buf + w->len;
}

static inline void done_at(struct writer *w, char *o)
{
	w->len = (size_t)(o - w->buf);
}

/* X (< 10^8) as eight decimal digits, the first in the lowest byte: the
 * two halves of four digits in the two 32-bit lanes, then each lane's
 * halves of two, then each half's two digits, in parallel (a division by
 * 100 or 10 is a multiplication and a shift, exact for these ranges) */
static inline uint64_t digits8(uint32_t x)
{
	uint64_t v = (x / 10000) | ((uint64_t)(x % 10000) << 32), h;

	h = ((v * 10486) >> 20) & 0x0000007F0000007Full;
	v = h | ((v - h * 100) << 16);
	h = ((v * 103) >> 10) & 0x000F000F000F000Full;
	return h | ((v - h * 10) << 8);
}

static inline void store8(char *o, uint64_t v)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(o, &v, 8);
}

static const char two_digits[] = "00010203040506070809101112131415161718192021222324"
				 "25262728293031323334353637383940414243444546474849"
				 "50515253545556575859606162636465666768697071727374"
				 "75767778798081828384858687888990919293949596979899";

/* X (< 10^8) in decimal at O, up to 8 bytes written; the end */
static inline char *out_small(char *o, uint32_t x)
{
	uint64_t v;
	unsigned lead;

	if (x < 100) { /* a flag, a small id, the head of a larger number */
		if (x < 10) {
			*o = (char)('0' + x);
			return o + 1;
		}
		memcpy(o, two_digits + 2 * x, 2);
		return o + 2;
	}
	v = digits8(x);
	lead = (unsigned)__builtin_ctzll(v) >> 3; /* the leading zeros */
	store8(o, (v + 0x3030303030303030ull) >> (8 * lead));
	return o + 8 - lead;
}

/* U in decimal at O (at most 20 bytes; up to 20 written); the end */
static inline char *out_u64(char *o, uint64_t u)
{
	uint64_t hi;

	if (u < 100000000)
		return out_small(o, (uint32_t)u);
	hi = u / 100000000;
	if (hi >= 100000000) {
		o = out_small(o, (uint32_t)(hi / 100000000));
		store8(o, digits8((uint32_t)(hi % 100000000)) + 0x3030303030303030ull);
		o += 8;
	} else {
		o = out_small(o, (uint32_t)hi);
	}
	store8(o, digits8((uint32_t)(u % 100000000)) + 0x3030303030303030ull);
	return o + 8;
}

/* V in decimal at O (at most 20 bytes); the end */
static inline char *out_i64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		return out_u64(o, -(uint64_t)v);
	}
	return out_u64(o, (uint64_t)v);
}

/* S (N bytes) at O in double quotes, '"' and '\' escaped (at most 2 N + 2
 * bytes); the end */
static char *out_quoted(char *o, const char *s, size_t n)
{
	size_t plain = strcspn(s, "\"\\");

	*o++ = '"';
	memcpy(o, s, plain);
	o += plain;
	for (size_t i = plain; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			*o++ = '\\';
		*o++ = s[i];
	}
	*o++ = '"';
	return o;
}

/* LEVEL tabs (at most 3 here) at O; the end */
static inline char *out_tabs(char *o, unsigned level)
{
	for (unsigned i = 0; i < level; i++)
		*o++ = '\t';
	return o;
}

/* N bytes of S at O; the end */
static inline char *out_bytes(char *o, const char *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

/* a literal at O (a key we write: no '#', '"' nor '!'); the end */
#define OUT_LIT(o, s) out_bytes((o), "" s "", sizeof(s) - 1)

/* the bytes a name or a string stops at: its end; those escaped in a
 * string; those that make a key quoted */
#define Q_END 1
#define Q_ESC 2
#define Q_KEY 4
static const unsigned char qclass[256] = {
	[0] = Q_END, ['"'] = Q_ESC | Q_KEY, ['\\'] = Q_ESC, ['#'] = Q_KEY, ['!'] = Q_KEY,
};

/* S in double quotes at O, '"' and '\' escaped (at most 2 strlen(S) + 2
 * bytes), a byte a step: for the short strings of a volume's entry (its
 * origin), where the calls of out_quoted cost more; the end */
static inline char *out_short(char *o, const char *s)
{
	unsigned char c;

	*o++ = '"';
	for (;; s++) {
		c = (unsigned char)*s;
		if (qclass[c] & (Q_END | Q_ESC)) {
			if (!c)
				break;
			*o++ = '\\';
		}
		*o++ = (char)c;
	}
	*o++ = '"';
	return o;
}

/* a section named NAME opened at O after LEVEL tabs (at most 2 strlen(NAME)
 * + 8 bytes): quoted if it has '#', '"' or '!', as libdevmapper does
 * (vg_validate lets no volume name by with one); the end */
static inline char *out_open_name(char *o, unsigned level, const char *name)
{
	char *b;
	size_t i;

	o = out_tabs(o, level);
	for (b = o, i = 0; !(qclass[(unsigned char)name[i]] & (Q_END | Q_KEY)); i++)
		*o++ = name[i];
	if (name[i])
		o = out_quoted(b, name, strlen(name));
	return OUT_LIT(o, " {\n");
}

static inline void put(struct writer *w, const char *s, size_t n)
{
	if (!room(w, n))
		return;
	memcpy(at_end(w), s, n);
	w->len += n;
}

/* A literal key and its length (a key we write: no '#', '"' nor '!') */
#define LIT(s) "" s "", sizeof("" s "") - 1

static inline void put_int(struct writer *w, unsigned level, const char *key, size_t klen,
			   int64_t v)
{
	char *o;

	if (!room(w, level + klen + 23))
		return;
	o = out_tabs(at_end(w), level);
	memcpy(o, key, klen);
	o += klen;
	*o++ = '=';
	o = out_i64(o, v);
	*o++ = '\n';
	done_at(w, o);
}

static inline void put_str(struct writer *w, unsigned level, const char *key, size_t klen,
			   const char *s)
{
	size_t n = strlen(s);
	char *o;

	if (!room(w, level + klen + 2 * n + 4))
		return;
	o = out_tabs(at_end(w), level);
	memcpy(o, key, klen);
	o += klen;
	*o++ = '=';
	o = out_quoted(o, s, n);
	*o++ = '\n';
	done_at(w, o);
}

static inline void put_open(struct writer *w, unsigned level, const char *key, size_t klen)
{
	char *o;

	if (!room(w, level + klen + 3))
		return;
	o = out_tabs(at_end(w), level);
	memcpy(o, key, klen);
	done_at(w, OUT_LIT(o + klen, " {\n"));
}

/* a section named NAME (a device's, a removal's, a trash entry's) */
static void put_open_name(struct writer *w, unsigned level, const char *name)
{
	if (room(w, level + 2 * strlen(name) + 8))
		done_at(w, out_open_name(at_end(w), level, name));
}

static inline void put_close(struct writer *w, unsigned level)
{
	char *o;

	if (!room(w, level + 2))
		return;
	o = out_tabs(at_end(w), level);
	done_at(w, OUT_LIT(o, "}\n"));
}

/* a device's keys at LEVEL (its section left open) */
static void export_one(struct writer *w, const struct vg_device *d, const char *key)
{
	put_open_name(w, 2, key);
	put_str(w, 3, LIT("uuid"), d->pv_uuid);
	put_str(w, 3, LIT("path"), d->path);
	put_int(w, 3, LIT("size"), (int64_t)d->size);
	put_int(w, 3, LIT("mda_offset"), (int64_t)d->mda.offset);
	put_int(w, 3, LIT("mda_size"), (int64_t)d->mda.size);
	put_int(w, 3, LIT("area0_offset"), (int64_t)d->area[0].offset);
	put_int(w, 3, LIT("area0_size"), (int64_t)d->area[0].size);
	put_int(w, 3, LIT("area1_offset"), (int64_t)d->area[1].offset);
	put_int(w, 3, LIT("area1_size"), (int64_t)d->area[1].size);
}

static void export_device(struct writer *w, const struct vg *vg, enum vg_role role)
{
	export_one(w, &vg->dev[role], vg_role_name(role));
	put_close(w, 2);
}

/* data1..: the added data devices, with the range of chunks each holds */
static void export_xdata(struct writer *w, const struct vg *vg)
{
	char key[16];

	for (unsigned i = 1; i < vg_nr_data(vg); i++) {
		snprintf(key, sizeof(key), "data%u", i);
		export_one(w, vg_data_dev(vg, i), key);
		put_int(w, 3, LIT("first_chunk"), (int64_t)vg_data_first_chunk(vg, i));
		put_int(w, 3, LIT("chunks"), (int64_t)vg_data_dev_chunks(vg, i));
		put_close(w, 2);
	}
}

/* The most an entry of a volume list takes: its strings each at most
 * twice their field (escapes) and quotes, and up to 12 lines of three tabs,
 * a key of at most 15 bytes, '=', a sign, an integer of up to 20 digits
 * (and as many bytes written) and a newline. */
#define ENTRY_MAX                                                                         \
	(2 * (sizeof(((struct vg_volume *)0)->name) + sizeof(((struct vg_volume *)0)->origin) + \
	      sizeof(((struct vg_volume *)0)->content_uuid) +                                 \
	      sizeof(((struct vg_volume *)0)->luks_uuid) + 8) +                               \
	 12 * (3 + 15 + 1 + 1 + 20 + 1))

/* "\t\t\tKEY=" and an integer, a line at O; the end */
#define OUT_INT(o, key, v) (o = out_i64(OUT_LIT(o, "\t\t\t" key "="), (v)), *o++ = '\n')
/* the same with a string */
#define OUT_STR(o, key, s) \
	(o = out_quoted(OUT_LIT(o, "\t\t\t" key "="), (s), strlen(s)), *o++ = '\n')

static void export_volume(struct writer *w, const struct vg_volume *v, int receiving)
{
	char *o;

	if (!room(w, ENTRY_MAX))
		return;
	o = out_open_name(at_end(w), 2, v->name);
	OUT_INT(o, "dev_id", v->dev_id);
	OUT_INT(o, "size", (int64_t)v->size);
	o = out_short(OUT_LIT(o, "\t\t\torigin="), v->origin);
	*o++ = '\n';
	OUT_INT(o, "creation_time", v->creation_time);
	OUT_INT(o, "read_only", v->read_only);
	if (v->activation_skip)
		o = OUT_LIT(o, "\t\t\tactivation_skip=1\n");
	if (v->content_uuid[0])
		OUT_STR(o, "content_uuid", v->content_uuid);
	if (v->luks_uuid[0])
		OUT_STR(o, "luks_uuid", v->luks_uuid);
	if (receiving)
		OUT_INT(o, "received", (int64_t)v->received);
	if (receiving && v->raw)
		o = OUT_LIT(o, "\t\t\traw=1\n");
	done_at(w, OUT_LIT(o, "\t\t}\n"));
}

static void export_removal(struct writer *w, const struct vg_volume *v)
{
	char *o;

	if (!room(w, ENTRY_MAX))
		return;
	o = out_open_name(at_end(w), 2, v->name);
	OUT_INT(o, "dev_id", v->dev_id);
	OUT_INT(o, "size", (int64_t)v->size);
	if (v->wiped)
		o = OUT_LIT(o, "\t\t\twiped=1\n");
	done_at(w, OUT_LIT(o, "\t\t}\n"));
}

static void export_trash(struct writer *w, const struct vg_volume *t)
{
	char *o;

	if (!room(w, ENTRY_MAX))
		return;
	/* keyed t<dev_id> */
	o = OUT_LIT(at_end(w), "\t\tt");
	o = OUT_LIT(out_u64(o, t->dev_id), " {\n");
	OUT_STR(o, "name", t->name);
	OUT_INT(o, "dev_id", t->dev_id);
	OUT_INT(o, "size", (int64_t)t->size);
	OUT_INT(o, "creation_time", t->creation_time);
	OUT_INT(o, "read_only", t->read_only);
	if (t->activation_skip)
		o = OUT_LIT(o, "\t\t\tactivation_skip=1\n");
	if (t->content_uuid[0])
		OUT_STR(o, "content_uuid", t->content_uuid);
	if (t->luks_uuid[0])
		OUT_STR(o, "luks_uuid", t->luks_uuid);
	OUT_INT(o, "trashed_at", t->trashed_at);
	if (t->purging)
		o = OUT_LIT(o, "\t\t\tpurging=1\n");
	done_at(w, OUT_LIT(o, "\t\t}\n"));
}

static const char header[] = "# tptools VG metadata: written by tptools, read back with checks.\n"
			     "# Edit a backup copy only, never the device.\n";

int vg_export(const struct vg *vg, char **text, size_t *len)
{
	int r = vg_validate(vg);

	return r ? r : vg_export_checked(NULL, vg, text, len, NULL);
}

/* NEXT's volumes, each it has as BASE has it copied from BASE's source
 * (the entries of a run at once: they lie one after another there), the
 * others written; paired by vg_pair_step. */
static void export_volumes_from(struct writer *w, const struct vg *base, const struct vg *next)
{
	const struct vg_source *src = base->source;
	struct vg_pair_step s;
	unsigned i = 0, j = 0;

	while (!w->failed && j < next->nr_volumes &&
	       vg_pair_step(base->volumes, base->nr_volumes, next->volumes, next->nr_volumes, &i,
			    &j, &s)) {
		if (s.same) {
			const uint32_t *st = src->start + s.i;

			for (unsigned m = 0; w->start && m < s.same; m++)
				w->start[s.j + m] = (uint32_t)(w->len + st[m] - st[0]);
			put(w, src->text + st[0], st[s.same] - st[0]);
		} else if (s.came) {
			if (w->start)
				w->start[s.j] = (uint32_t)w->len;
			export_volume(w, s.came, 0);
		}
	}
}

int vg_export_checked(const struct vg *base, const struct vg *vg, char **text, size_t *len,
		      uint32_t **start)
{
	struct writer w = { 0 };
	unsigned i;

	if (start && !(w.start = *start = malloc(((size_t)vg->nr_volumes + 1) * sizeof(uint32_t))))
		return -ENOMEM;
	/* about 110 bytes a volume: one allocation for most VGs; a VG read
	 * from a text comes to about as many bytes as that text, a change
	 * later (the first room, in the text's size class: a buffer the
	 * read freed serves, not pages never touched) */
	room(&w, vg->text_len ? vg->text_len + 16384
			      : 2048 + 128 * ((size_t)vg->nr_volumes + vg->nr_receives +
					      vg->nr_removals + vg->nr_trash));
	put(&w, header, sizeof(header) - 1);
	put_str(&w, 0, LIT("contents"), VG_TEXT_CONTENTS);
	put_int(&w, 0, LIT("version"), VG_TEXT_VERSION);
	put_open(&w, 0, LIT("pool"));
	put_str(&w, 1, LIT("name"), vg->name);
	put_str(&w, 1, LIT("uuid"), vg->uuid);
	put_int(&w, 1, LIT("seqno"), (int64_t)vg->seqno);
	put_int(&w, 1, LIT("format_version"), vg->format_version);
	put_int(&w, 1, LIT("creation_time"), vg->creation_time);
	put_str(&w, 1, LIT("creation_host"), vg->creation_host);
	if (vg->system_id[0])
		put_str(&w, 1, LIT("system_id"), vg->system_id);
	put_int(&w, 1, LIT("chunk_size"), vg->chunk_size);
	put_int(&w, 1, LIT("zero"), vg->zero);
	put_str(&w, 1, LIT("discards"), discards_names[vg->discards]);
	put_str(&w, 1, LIT("when_full"), when_full_names[vg->when_full]);
	put_int(&w, 1, LIT("transaction_id"), (int64_t)vg->transaction_id);
	put_int(&w, 1, LIT("next_dev_id"), vg->next_dev_id);
	put_int(&w, 1, LIT("metadata_area"), vg->metadata_area);
	if (vg->activation_skip)
		put_int(&w, 1, LIT("activation_skip"), 1);
	if (vg->profile != VG_PROFILE_NONE)
		put_str(&w, 1, LIT("profile"), profile_names[vg->profile]);
	if (!vg_monitor_is_default(&vg->monitor)) {
		put_open(&w, 1, LIT("monitor"));
		put_int(&w, 2, LIT("warn"), vg->monitor.warn);
		put_int(&w, 2, LIT("autoextend_threshold"), vg->monitor.autoextend_threshold);
		if (vg->monitor.autoextend_size)
			put_int(&w, 2, LIT("autoextend_size"), (int64_t)vg->monitor.autoextend_size);
		else
			put_int(&w, 2, LIT("autoextend_percent"), vg->monitor.autoextend_percent);
		if (vg->monitor.autoextend_max)
			put_int(&w, 2, LIT("autoextend_max"), (int64_t)vg->monitor.autoextend_max);
		if (vg->monitor.autoextend_device[0])
			put_str(&w, 2, LIT("autoextend_device"), vg->monitor.autoextend_device);
		put_close(&w, 1);
	}
	if (vg->max_overprovision)
		put_int(&w, 1, LIT("max_overprovision_percent"), vg->max_overprovision);
	if (vg->trash_retention)
		put_int(&w, 1, LIT("trash_retention"), (int64_t)vg->trash_retention);
	if (vg->lock.type != VG_LOCK_NONE) {
		put_open(&w, 1, LIT("lock"));
		put_str(&w, 2, LIT("type"), lock_type_names[vg->lock.type]);
		put_int(&w, 2, LIT("offset"), (int64_t)vg->lock.offset);
		put_int(&w, 2, LIT("io_timeout"), vg->lock.io_timeout);
		put_str(&w, 2, LIT("name"), vg->lock.name);
		put_close(&w, 1);
	}
	put_open(&w, 1, LIT("devices"));
	export_device(&w, vg, VG_ROLE_DATA);
	export_device(&w, vg, VG_ROLE_META);
	export_xdata(&w, vg);
	if (vg->meta_mirror) {
		export_one(&w, &vg->meta1, "meta1");
		if (vg->raid_meta_offset)
			put_int(&w, 3, LIT("raid_meta_offset"), (int64_t)vg->raid_meta_offset);
		if (vg->integrity_offset) {
			put_int(&w, 3, LIT("integrity_offset"), (int64_t)vg->integrity_offset);
			put_int(&w, 3, LIT("integrity_size"), (int64_t)vg->integrity_size);
		}
		put_close(&w, 2);
	}
	put_close(&w, 1);
	put_open(&w, 1, LIT("volumes"));
	if (base && base->source && base->source->text &&
	    base->format_version == vg->format_version)
		export_volumes_from(&w, base, vg);
	else
		for (i = 0; i < vg->nr_volumes && !w.failed; i++) {
			if (w.start)
				w.start[i] = (uint32_t)w.len;
			export_volume(&w, &vg->volumes[i], 0);
		}
	if (w.start)
		w.start[vg->nr_volumes] = (uint32_t)w.len;
	put_close(&w, 1);
	/* an old tptools refuses the unknown section rather than taking an
	 * unfinished receive for a volume */
	if (vg->nr_receives) {
		put_open(&w, 1, LIT("receiving"));
		for (i = 0; i < vg->nr_receives && !w.failed; i++)
			export_volume(&w, &vg->receives[i], 1);
		put_close(&w, 1);
	}
	/* the same for a removal under way: an old tptools must not take it
	 * for a thin device no volume owns, nor reuse its name */
	if (vg->nr_removals) {
		put_open(&w, 1, LIT("removing"));
		for (i = 0; i < vg->nr_removals && !w.failed; i++)
			export_removal(&w, &vg->removals[i]);
		put_close(&w, 1);
	}
	/* and for the trash: an old tptools must neither take a trashed
	 * volume for a live one nor its thin device for one no volume owns */
	if (vg->nr_trash) {
		put_open(&w, 1, LIT("trash"));
		for (i = 0; i < vg->nr_trash && !w.failed; i++)
			export_trash(&w, &vg->trash[i]);
		put_close(&w, 1);
	}
	put_close(&w, 0);
	if (w.failed) {
		free(w.buf);
		if (start) {
			free(*start);
			*start = NULL;
		}
		return -ENOMEM;
	}
	w.buf[w.len] = '\0';
	*text = w.buf;
	*len = w.len;
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

/* check_keys for a section of a known key set: every key of SECTION is
 * one of KEYS (NR of them) and none repeats, the first key in order that
 * breaks a rule reported alike; SLOT[i] gets the node of KEYS[i] (NULL:
 * missing). One pass: the keys are looked for from the one after the key
 * before (the order they are written in), so each is mostly found at the
 * first compare. */
static int slots_of(struct reader *rd, const struct dm_config_node *section, const char *path,
		    const char *const *keys, unsigned nr, const struct dm_config_node **slot)
{
	const struct dm_config_node *a;
	unsigned next = 0, j = 0, k;

	memset(slot, 0, nr * sizeof(*slot));
	for (a = section->child; a; a = a->sib) {
		for (k = 0, j = next; k < nr; k++, j = j + 1 == nr ? 0 : j + 1)
			if (keys[j][0] == a->key[0] && !strcmp(keys[j], a->key))
				break;
		if (k == nr)
			return bad(rd, "%s/%s: unknown key", path, a->key);
		if (slot[j])
			return bad(rd, "%s/%s: duplicate key", path, a->key);
		slot[j] = a;
		next = j + 1 == nr ? 0 : j + 1;
	}
	return 0;
}

/* check_keys for a list section (any key, none twice): a hash of the keys
 * seen, so the first key in order that repeats an earlier one is found in
 * one pass (issue 40: a pool of many volumes). */
static int check_unique(struct reader *rd, const struct dm_config_node *section, const char *path)
{
	const struct dm_config_node *a;
	const char **seen;
	size_t n = 0, size = 16;
	int r = 0;

	for (a = section->child; a; a = a->sib)
		n++;
	while (size < 2 * n)
		size *= 2;
	seen = calloc(size, sizeof(*seen));
	if (!seen)
		return bad(rd, "%s: out of memory", path);
	for (a = section->child; a && !r; a = a->sib) {
		uint32_t h = 2166136261u;
		size_t i;

		for (const unsigned char *c = (const unsigned char *)a->key; *c; c++)
			h = (h ^ *c) * 16777619u;
		for (i = h & (size - 1); seen[i]; i = (i + 1) & (size - 1))
			if (!strcmp(seen[i], a->key)) {
				r = bad(rd, "%s/%s: duplicate key", path, a->key);
				break;
			}
		seen[i] = a->key;
	}
	free(seen);
	return r;
}

/* PREFIX "/" and at most 64 bytes of KEY into OUT (PREFIX_LEN + 66 bytes) */
static void join_path(char *out, const char *prefix, size_t prefix_len, const char *key)
{
	size_t n = strnlen(key, 64);

	memcpy(out, prefix, prefix_len);
	out[prefix_len] = '/';
	memcpy(out + prefix_len + 1, key, n);
	out[prefix_len + 1 + n] = '\0';
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

/* The getters take the node of KEY (NULL: missing) found by the caller;
 * the get_* forms below them look it up under PARENT. */
static int int_of(struct reader *rd, const struct dm_config_node *n, const char *path,
		  const char *key, int64_t min, int64_t max, int64_t *out)
{
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
static int flag_of(struct reader *rd, const struct dm_config_node *n, const char *path,
		   const char *key, int *out)
{
	int64_t v;

	*out = 0;
	if (!n)
		return 0;
	if (int_of(rd, n, path, key, 0, 1, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int u64_of(struct reader *rd, const struct dm_config_node *n, const char *path,
		  const char *key, uint64_t *out)
{
	int64_t v;

	if (int_of(rd, n, path, key, 0, INT64_MAX, &v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int u32_of(struct reader *rd, const struct dm_config_node *n, const char *path,
		  const char *key, uint32_t max, uint32_t *out)
{
	int64_t v;

	if (int_of(rd, n, path, key, 0, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A string into BUF (SIZE bytes including the NUL); too long is an error.
 * OPTIONAL: a missing key gives "". */
static int str_of(struct reader *rd, const struct dm_config_node *n, const char *path,
		  const char *key, char *buf, size_t size, int optional)
{
	size_t len;

	if (!n && optional) {
		buf[0] = '\0';
		return 0;
	}
	if (!n)
		return bad(rd, "%s/%s: missing", path, key);
	if (!n->v || n->v->type != DM_CFG_STRING || n->v->next)
		return bad(rd, "%s/%s: must be a string", path, key);
	len = strlen(n->v->v.str);
	if (len >= size)
		return bad(rd, "%s/%s: longer than %zu bytes", path, key, size - 1);
	memcpy(buf, n->v->v.str, len + 1);
	return 0;
}

static int get_int(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, int64_t min, int64_t max, int64_t *out)
{
	return int_of(rd, child(parent, key), path, key, min, max, out);
}

static int get_flag(struct reader *rd, const struct dm_config_node *parent, const char *path,
		    const char *key, int *out)
{
	return flag_of(rd, child(parent, key), path, key, out);
}

static int get_u64(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, uint64_t *out)
{
	return u64_of(rd, child(parent, key), path, key, out);
}

static int get_u32(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, uint32_t max, uint32_t *out)
{
	return u32_of(rd, child(parent, key), path, key, max, out);
}

static int get_str(struct reader *rd, const struct dm_config_node *parent, const char *path,
		   const char *key, char *buf, size_t size, int optional)
{
	return str_of(rd, child(parent, key), path, key, buf, size, optional);
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
	const struct dm_config_node *k[TP_ARRAY_SIZE(receive_keys) - 1];
	struct vg_volume v;
	char path[128];
	const char *why;
	int64_t i;

	memset(&v, 0, sizeof(v));
	join_path(path, sect, receiving ? 14 : 12, n->key);
	if (!vg_name_valid(n->key, &why))
		return bad(rd, "%s/%.64s: bad volume name: %s", sect, n->key, why);
	if (n->v)
		return bad(rd, "%s: must be a section", path);
	strcpy(v.name, n->key);
	/* the keys' places in volume_keys and receive_keys */
	if (slots_of(rd, n, path, receiving ? receive_keys : volume_keys,
		     receiving ? TP_ARRAY_SIZE(receive_keys) - 1 : TP_ARRAY_SIZE(volume_keys) - 1,
		     k) ||
	    u32_of(rd, k[0], path, "dev_id", VG_DEV_ID_MAX, &v.dev_id) ||
	    u64_of(rd, k[1], path, "size", &v.size) ||
	    str_of(rd, k[2], path, "origin", v.origin, sizeof(v.origin), 1) ||
	    int_of(rd, k[3], path, "creation_time", INT64_MIN, INT64_MAX, &v.creation_time) ||
	    int_of(rd, k[4], path, "read_only", 0, 1, &i) ||
	    flag_of(rd, k[5], path, "activation_skip", &v.activation_skip) ||
	    str_of(rd, k[6], path, "content_uuid", v.content_uuid, sizeof(v.content_uuid), 1) ||
	    str_of(rd, k[7], path, "luks_uuid", v.luks_uuid, sizeof(v.luks_uuid), 1) ||
	    (receiving && u64_of(rd, k[8], path, "received", &v.received)) ||
	    (receiving && flag_of(rd, k[9], path, "raw", &v.raw)))
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
	const struct dm_config_node *k[TP_ARRAY_SIZE(removal_keys) - 1];
	struct vg_volume v;
	char path[128];
	const char *why;

	memset(&v, 0, sizeof(v));
	join_path(path, "pool/removing", 13, n->key);
	if (!vg_name_valid(n->key, &why))
		return bad(rd, "pool/removing/%.64s: bad volume name: %s", n->key, why);
	if (n->v)
		return bad(rd, "%s: must be a section", path);
	strcpy(v.name, n->key);
	if (slots_of(rd, n, path, removal_keys, TP_ARRAY_SIZE(removal_keys) - 1, k) ||
	    u32_of(rd, k[0], path, "dev_id", VG_DEV_ID_MAX, &v.dev_id) ||
	    u64_of(rd, k[1], path, "size", &v.size) ||
	    flag_of(rd, k[2], path, "wiped", &v.wiped))
		return -1;
	return vg_append_removal(vg, &v);
}

static const char *const trash_keys[] = { "name", "dev_id", "size", "creation_time",
					  "read_only", "activation_skip", "content_uuid",
					  "luks_uuid", "trashed_at", "purging", NULL };

/* One trash entry of pool/trash, keyed t<dev_id>. */
static int import_trash(struct reader *rd, const struct dm_config_node *n, struct vg *vg)
{
	const struct dm_config_node *k[TP_ARRAY_SIZE(trash_keys) - 1];
	struct vg_volume v;
	char path[128], want[16];
	const char *why;
	int64_t i;

	memset(&v, 0, sizeof(v));
	join_path(path, "pool/trash", 10, n->key);
	if (n->v)
		return bad(rd, "%s: must be a section", path);
	if (slots_of(rd, n, path, trash_keys, TP_ARRAY_SIZE(trash_keys) - 1, k) ||
	    str_of(rd, k[0], path, "name", v.name, sizeof(v.name), 0) ||
	    u32_of(rd, k[1], path, "dev_id", VG_DEV_ID_MAX, &v.dev_id) ||
	    u64_of(rd, k[2], path, "size", &v.size) ||
	    int_of(rd, k[3], path, "creation_time", INT64_MIN, INT64_MAX, &v.creation_time) ||
	    int_of(rd, k[4], path, "read_only", 0, 1, &i) ||
	    flag_of(rd, k[5], path, "activation_skip", &v.activation_skip) ||
	    str_of(rd, k[6], path, "content_uuid", v.content_uuid, sizeof(v.content_uuid), 1) ||
	    str_of(rd, k[7], path, "luks_uuid", v.luks_uuid, sizeof(v.luks_uuid), 1) ||
	    int_of(rd, k[8], path, "trashed_at", INT64_MIN, INT64_MAX, &v.trashed_at) ||
	    flag_of(rd, k[9], path, "purging", &v.purging))
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

/* A text that a newer tptools wrote (its version or its pool's
 * format_version above what this one reads): 1, said in RD. It is looked
 * at before the keys, which such a text may have new ones of: the import
 * refuses it as too new (-EPROTONOSUPPORT), never as damage, so that
 * vg_read does not fall back past it to an older copy, whose next commit
 * would undo what that tptools wrote. */
static int too_new(struct reader *rd, const struct dm_config_node *top)
{
	const struct dm_config_node *n, *pool, *f;
	struct reader quiet;
	uint32_t v;

	/* every occurrence of a key, not the first alone: a duplicate is one
	 * answer whatever its order (any above what this tptools reads
	 * refuses; below, check_keys calls the duplicate damage) */
	for (n = top->child; n; n = n->sib)
		if (!strcmp(n->key, "version") &&
		    !u32_of(&quiet, n, "", "version", UINT32_MAX, &v) && v > VG_TEXT_VERSION) {
			bad(rd, "version: %" PRIu32 " is newer than this tptools reads (%u): the pool "
			    "was written by a newer tptools; use that one", v, VG_TEXT_VERSION);
			return 1;
		}
	for (pool = top->child; pool; pool = pool->sib) {
		if (strcmp(pool->key, "pool") || pool->v)
			continue;
		for (f = pool->child; f; f = f->sib)
			if (!strcmp(f->key, "format_version") &&
			    !u32_of(&quiet, f, "pool", "format_version", UINT32_MAX, &v) &&
			    v > VG_FORMAT_VERSION) {
				bad(rd, "pool/format_version: %" PRIu32 " is newer than this tptools "
				    "reads (%u to %u): the pool was written by a newer tptools; use "
				    "that one", v, VG_FORMAT_VERSION_MIN, VG_FORMAT_VERSION);
				return 1;
			}
	}
	return 0;
}

static int import_tree(struct reader *rd, struct dm_config_node *root, struct vg *vg)
{
	struct dm_config_node top = { .key = "", .child = root };
	const struct dm_config_node *pool, *devs, *vols, *n;
	struct reader quiet;
	char contents[64];
	int64_t i, retention = 0;
	unsigned e = 0;
	int r;

	/* the versions of a text that says it is tptools VG metadata before
	 * any key is checked, the top's too: a newer format's new keys, or a
	 * version key repeated, are not damage (any other text is refused
	 * as before, in the same words) */
	if (!str_of(&quiet, child(&top, "contents"), "", "contents", contents, sizeof(contents),
		    0) &&
	    !strcmp(contents, VG_TEXT_CONTENTS) && too_new(rd, &top))
		return -2;
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
	    check_unique(rd, vols, "pool/volumes"))
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
		    check_unique(rd, vols, "pool/receiving"))
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
		    check_unique(rd, vols, "pool/removing"))
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
		    check_unique(rd, vols, "pool/trash"))
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

int vg_import(const char *text, size_t len, struct vg **out)
{
	char why[512];
	int r = vg_import_why(text, len, out, why, sizeof(why));

	if (r == -EUCLEAN || r == -EPROTONOSUPPORT)
		log_error("VG text: %s", why);
	return r;
}

/* TEXT into VG (fresh from vg_alloc): 0, -1 with the message in RD,
 * -ENOMEM. FAST: the canonical volumes read straight into VG first
 * (vg_text_parse_fast); 1 when the text is not all canonical or does not
 * import so, with nothing said: the general path reads it again from a
 * fresh VG and says why (every refusal is its own, in its words). */
static int import_text(struct reader *rd, const char *text, size_t len, struct vg *vg, int fast)
{
	struct vg_text_tree tree = { 0 };
	char parse_msg[256];
	int r;

	if (fast) {
		r = vg_text_parse_fast(text, len, &tree, vg);
		if (r == 1)
			r = import_tree(rd, tree.root, vg) ? 1 : 0;
		else if (!r)
			r = 1;
		if (!r && vg->source && vg->source->n == vg->nr_volumes) {
			/* the parser's copy, whose volumes' bytes it left as
			 * they were, becomes the VG's source */
			vg->source->text = tree.text;
			tree.text = NULL;
		} else if (vg->source) {
			vg_source_free(vg->source);
			vg->source = NULL;
		}
	} else if ((r = vg_text_parse(text, len, &tree, parse_msg, sizeof(parse_msg)))) {
		if (r == -EINVAL) {
			bad(rd, "syntax error%s%s", parse_msg[0] ? ": " : "", parse_msg);
			r = -1;
		}
	} else {
		r = import_tree(rd, tree.root, vg);
	}
	vg_text_tree_free(&tree);
	return r;
}

int vg_import_why(const char *text, size_t len, struct vg **out, char *why, size_t whylen)
{
	struct reader rd = { { 0 } };
	struct vg *vg;
	int r;

	*out = NULL;
	vg = vg_alloc();
	if (!vg) {
		r = -ENOMEM;
		goto out;
	}
	if (memchr(text, '\0', len)) {
		bad(&rd, "text contains a NUL byte");
		r = -1;
	} else if ((r = import_text(&rd, text, len, vg, 1)) == 1) {
		vg_free(vg);
		rd.msg[0] = '\0';
		vg = vg_alloc();
		r = vg ? import_text(&rd, text, len, vg, 0) : -ENOMEM;
	}
	if (whylen)
		why[0] = '\0';
	if (r == -1 || r == -2) {
		snprintf(why, whylen, "%s", rd.msg);
		r = r == -2 ? -EPROTONOSUPPORT : -EUCLEAN;
	}
	if (!r) {
		vg->checked = 1;	/* (import_tree ends in vg_check_model) */
		*out = vg;
		vg = NULL;
	}
out:
	vg_free(vg);
	return r;
}
