/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_parse.c - thin_dump XML -> thin_ir_visitor, with validation.
 * See xml_parse.h. */
#include "metadata/thin/xml_parse.h"
#include "lib/base/compiler.h"
#include "metadata/thin/xml_defs.h"
#include "metadata/thin/xml_parse_int.h"

#include <errno.h>
#include <expat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (1u << 20)
#define MAX_DEV_ID ((1ull << 24) - 1)
#define MAX_TIME ((1ull << 24) - 1)	/* mapping times are 24 bits on disk */
#define MAX_DATA_BLOCKS (1ull << 40)	/* data blocks are 40 bits on disk */
#define MIN_BLOCK_SIZE 128u
#define MAX_BLOCK_SIZE 2097152u

static void set_pos(struct parser *p)
{
	if (!p->xp)
		return;	/* the strict scanner: any error sends the input to expat */
	p->err->line = XML_GetCurrentLineNumber(p->xp);
	p->err->column = XML_GetCurrentColumnNumber(p->xp) + 1;
}

/* Record an input error at the current position and stop the parser. */
static void TP_PRINTF(2, 3) invalid(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->rc)
		return;
	set_pos(p);
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	p->rc = -EBADMSG;
	if (p->xp)
		XML_StopParser(p->xp, XML_FALSE);
}

/* A visitor returned R (non-zero): stop with it. */
static void visitor_failed(struct parser *p, int r, const char *what)
{
	if (p->rc)
		return;
	set_pos(p);
	snprintf(p->err->msg, sizeof(p->err->msg), "%s: %s", what, strerror(-r));
	p->rc = r;
	p->visitor_failed = 1;
	if (p->xp)
		XML_StopParser(p->xp, XML_FALSE);
}

/* Call the visitor's FN (if any) with ARGS; on failure stop with WHAT. */
#define VISIT(p, what, fn, ...)                                            \
	do {                                                               \
		if ((p)->v && (p)->v->fn) {                                \
			int r_ = (p)->v->fn((p)->v->ctx, ##__VA_ARGS__);   \
			if (r_)                                            \
				visitor_failed((p), r_, (what));           \
		}                                                          \
	} while (0)

/* ---- attributes ---- */

/* Plain decimal: digits only, no sign or space, value <= MAX. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

#define NAME(s) s, sizeof(s) - 1
#define ATTR(name, max, required) { NAME(name), max, required }

static const struct attr_spec superblock_attrs[] = {
	ATTR("uuid", ATTR_STRING, 0),
	ATTR("time", UINT32_MAX, 1),
	ATTR("transaction", UINT64_MAX, 1),
	ATTR("flags", UINT32_MAX, 0),
	ATTR("version", UINT32_MAX, 0),
	ATTR("data_block_size", UINT32_MAX, 1),
	ATTR("nr_data_blocks", MAX_DATA_BLOCKS, 1),
	ATTR("metadata_snap", UINT64_MAX, 0),
};

static const struct attr_spec device_attrs[] = {
	ATTR("dev_id", MAX_DEV_ID, 1),
	ATTR("mapped_blocks", UINT64_MAX, 1),
	ATTR("transaction", UINT64_MAX, 1),
	ATTR("creation_time", UINT32_MAX, 1),
	ATTR("snap_time", UINT32_MAX, 1),
};

static const struct attr_spec single_attrs[] = {
	ATTR("origin_block", UINT64_MAX, 1),
	ATTR("data_block", UINT64_MAX, 1),
	ATTR("time", MAX_TIME, 1),
};

static const struct attr_spec range_attrs[] = {
	ATTR("origin_begin", UINT64_MAX, 1),
	ATTR("data_begin", UINT64_MAX, 1),
	ATTR("length", UINT64_MAX, 1),
	ATTR("time", MAX_TIME, 1),
};

static const struct attr_spec def_name_attrs[] = { ATTR("name", UINT64_MAX, 1) };

const struct elem_spec xml_elems[XML_NR_ELEMS] = {
	[XML_SINGLE] = { NAME("single_mapping"), single_attrs, 3, { 0 } },
	[XML_RANGE] = { NAME("range_mapping"), range_attrs, 4, { 0 } },
	[XML_DEVICE] = { NAME("device"), device_attrs, 5, { 0 } },
	[XML_REF] = { NAME("ref"), def_name_attrs, 1, { 0 } },
	[XML_DEF] = { NAME("def"), def_name_attrs, 1, { 0 } },
	[XML_SUPERBLOCK] = { NAME("superblock"), superblock_attrs, 8, { 0, 0, 0, 0, 2, 0, 0, 0 } },
};

/* Fill VALS[i] for SPEC[i] from expat's ATTS; unset optional values keep
 * what the caller put there. Returns 0 or -1 (error recorded). */
static int get_attrs(struct parser *p, const char *elem, const char **atts,
		     const struct attr_spec *spec, size_t n, uint64_t *vals)
{
	unsigned seen = 0;

	for (size_t a = 0; atts[a]; a += 2) {
		size_t i;
		int r;

		for (i = 0; i < n; i++)
			if (!strcmp(atts[a], spec[i].name))
				break;
		if (i == n) {
			invalid(p, "<%s>: unknown attribute '%s'", elem, atts[a]);
			return -1;
		}
		seen |= 1u << i;
		if (spec[i].max == ATTR_STRING)
			continue;
		r = parse_u64(atts[a + 1], spec[i].max, &vals[i]);
		if (r == -ERANGE) {
			invalid(p, "<%s>: %s=\"%s\" is too large (at most %llu)", elem, spec[i].name,
				atts[a + 1], (unsigned long long)spec[i].max);
			return -1;
		}
		if (r) {
			invalid(p, "<%s>: %s=\"%s\" is not a decimal number", elem, spec[i].name,
				atts[a + 1]);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (spec[i].required && !(seen & (1u << i))) {
			invalid(p, "<%s>: missing attribute '%s'", elem, spec[i].name);
			return -1;
		}
	return 0;
}

/* ---- elements ---- */

/* ---- elements ---- */

static void flush_batch(struct parser *p)
{
	if (!p->nbatch)
		return;
	VISIT(p, "storing mappings", mappings, p->batch, p->nbatch);
	p->nbatch = 0;
}

static void start_superblock(struct parser *p, const uint64_t *val)
{
	struct thin_ir_superblock sb;

	if (p->where != AT_TOP) {
		invalid(p, "<superblock>: only one superblock is allowed");
		return;
	}
	if (val[4] < 1 || val[4] > 2) {
		invalid(p, "<superblock>: version=\"%llu\" is not supported (1 or 2)",
			(unsigned long long)val[4]);
		return;
	}
	if (val[5] < MIN_BLOCK_SIZE || val[5] > MAX_BLOCK_SIZE || val[5] % MIN_BLOCK_SIZE) {
		invalid(p, "<superblock>: data_block_size=\"%llu\" must be a multiple of 128 "
			   "between 128 and 2097152 sectors", (unsigned long long)val[5]);
		return;
	}
	memset(&sb, 0, sizeof(sb));
	sb.time = (uint32_t)val[1];
	sb.transaction = val[2];
	sb.flags = (uint32_t)val[3];
	sb.version = (uint32_t)val[4];
	sb.data_block_size = (uint32_t)val[5];
	sb.nr_data_blocks = val[6];
	sb.metadata_snap = 0;	/* restored metadata never has a metadata snapshot */
	p->nr_data_blocks = sb.nr_data_blocks;
	p->where = IN_SUPERBLOCK;
	VISIT(p, "starting the superblock", superblock_begin, &sb);
}

static void start_device(struct parser *p, const uint64_t *val)
{
	if (p->where != IN_SUPERBLOCK) {
		invalid(p, "<device>: only allowed directly inside <superblock>");
		return;
	}
	if (p->have_dev && val[0] == p->last_dev_id) {
		invalid(p, "<device>: duplicate dev_id %llu", (unsigned long long)val[0]);
		return;
	}
	if (p->have_dev && val[0] < p->last_dev_id) {
		invalid(p, "<device>: dev_id %llu follows dev_id %llu; devices must be in "
			   "ascending dev_id order", (unsigned long long)val[0],
			(unsigned long long)p->last_dev_id);
		return;
	}
	if (!p->have_dev)
		p->first_dev_id = val[0];
	p->have_dev = 1;
	p->last_dev_id = val[0];
	p->dev.dev_id = val[0];
	p->dev.mapped_blocks = val[1];
	p->dev.transaction = val[2];
	p->dev.creation_time = (uint32_t)val[3];
	p->dev.snap_time = (uint32_t)val[4];
	p->next_origin = 0;
	p->origin_full = 0;
	p->where = IN_DEVICE;
	VISIT(p, "starting a device", device_begin, &p->dev);
}

/* Is [ORIGIN, ORIGIN + LEN) -> DATA a valid run after *NEXT / *FULL (the
 * device's order so far, or IN_DEF's def's)? Records the error and returns
 * -1 if not, else moves *NEXT past it. */
static int check_run(struct parser *p, const char *elem, int in_def, uint64_t origin,
		     uint64_t data, uint64_t len, uint64_t *next, int *full)
{
	if (!len) {
		invalid(p, "<%s>: length must be at least 1", elem);
		return -1;
	}
	if (*full || origin < *next) {
		char owner[48];

		if (in_def)
			snprintf(owner, sizeof(owner), "its <def>");
		else
			snprintf(owner, sizeof(owner), "device %llu",
				 (unsigned long long)p->dev.dev_id);
		invalid(p, "<%s>: origin block %llu overlaps or precedes the previous mapping of "
			   "%s; mappings must be sorted and disjoint",
			elem, (unsigned long long)origin, owner);
		return -1;
	}
	if (origin + len - 1 < origin) {
		invalid(p, "<%s>: origin blocks run past 2^64", elem);
		return -1;
	}
	if (data >= p->nr_data_blocks || len > p->nr_data_blocks - data) {
		if (len == 1)
			invalid(p, "<%s>: data block %llu is beyond nr_data_blocks (%llu)", elem,
				(unsigned long long)data, (unsigned long long)p->nr_data_blocks);
		else
			invalid(p, "<%s>: data blocks %llu..%llu are beyond nr_data_blocks (%llu)",
				elem, (unsigned long long)data, (unsigned long long)(data + len - 1),
				(unsigned long long)p->nr_data_blocks);
		return -1;
	}
	*next = origin + len;
	*full = *next == 0;
	return 0;
}

/* One run, into the device being read (batched for the visitor) or into
 * the def being read. */
static void put_run(struct parser *p, const char *elem, uint64_t origin, uint64_t data,
		    uint64_t len, uint64_t time)
{
	struct thin_ir_mapping *m;

	if (p->where == IN_DEF) {
		struct xml_def *d = xml_defs_at(&p->defs, p->cur_def);
		struct thin_ir_mapping run = { origin, data, len, (uint32_t)time };

		if (check_run(p, elem, 1, origin, data, len, &d->next_origin, &d->origin_full))
			return;
		if (xml_def_append(d, &run))
			visitor_failed(p, -ENOMEM, "keeping a <def>");
		return;
	}
	if (check_run(p, elem, 0, origin, data, len, &p->next_origin, &p->origin_full))
		return;
	if (!p->v || !p->v->mappings)
		return;
	m = &p->batch[p->nbatch++];
	m->origin_begin = origin;
	m->data_begin = data;
	m->length = len;
	m->time = (uint32_t)time;
	if (p->nbatch == XML_BATCH)
		flush_batch(p);
}

/* A mapping element at the current position: it has no children. */
static void add_mapping(struct parser *p, const char *elem, uint64_t origin, uint64_t data,
			uint64_t len, uint64_t time)
{
	if (p->where != IN_DEVICE && p->where != IN_DEF) {
		invalid(p, "<%s>: only allowed inside <device> or <def>", elem);
		return;
	}
	put_run(p, elem, origin, data, len, time);
	if (!p->rc) {
		p->parent = p->where;
		p->where = IN_MAPPING;
	}
}

static void start_def(struct parser *p, uint64_t name)
{
	int r;

	if (p->where != IN_SUPERBLOCK) {
		invalid(p, "<def>: only allowed directly inside <superblock>");
		return;
	}
	r = xml_defs_begin(&p->defs, name, &p->cur_def);
	if (r == -EEXIST)
		invalid(p, "<def>: name \"%llu\" is defined twice", (unsigned long long)name);
	else if (r)
		visitor_failed(p, r, "keeping a <def>");
	else
		p->where = IN_DEF;
}

/* <ref name="N"/>: def N's runs, here. */
static void start_ref(struct parser *p, uint64_t name)
{
	const struct xml_def *d;
	enum where at = p->where;

	if (at != IN_DEVICE && at != IN_DEF) {
		invalid(p, "<ref>: only allowed inside <device> or <def>");
		return;
	}
	d = xml_defs_find(&p->defs, name);
	if (!d || (at == IN_DEF && d == xml_defs_at(&p->defs, p->cur_def))) {
		invalid(p, "<ref>: no <def name=\"%llu\"> before it", (unsigned long long)name);
		return;
	}
	/* D is not the def being filled, so appending never moves it */
	for (size_t i = 0; i < d->n && !p->rc; i++)
		put_run(p, "ref", d->m[i].origin_begin, d->m[i].data_begin, d->m[i].length,
			d->m[i].time);
	if (!p->rc) {
		p->parent = at;
		p->where = IN_MAPPING;
	}
}

void xml_elem_start(struct parser *p, enum xml_elem e, const uint64_t *vals)
{
	switch (e) {
	case XML_SINGLE:
		add_mapping(p, "single_mapping", vals[0], vals[1], 1, vals[2]);
		break;
	case XML_RANGE:
		add_mapping(p, "range_mapping", vals[0], vals[1], vals[2], vals[3]);
		break;
	case XML_DEVICE:
		start_device(p, vals);
		break;
	case XML_REF:
		start_ref(p, vals[0]);
		break;
	case XML_DEF:
		start_def(p, vals[0]);
		break;
	default:
		start_superblock(p, vals);
		break;
	}
}

void xml_single(struct parser *p, uint64_t origin, uint64_t data, uint64_t time)
{
	struct thin_ir_mapping *m;

	/* the common case in full: a device's next mapping, all in range */
	if (p->where != IN_DEVICE || p->origin_full || origin < p->next_origin ||
	    origin == UINT64_MAX || data >= p->nr_data_blocks ||
	    !p->v || !p->v->mappings || p->rc) {
		uint64_t vals[3] = { origin, data, time };

		xml_elem_start(p, XML_SINGLE, vals);
		if (!p->rc)
			xml_elem_end(p);
		return;
	}
	p->next_origin = origin + 1;
	m = &p->batch[p->nbatch++];
	m->origin_begin = origin;
	m->data_begin = data;
	m->length = 1;
	m->time = (uint32_t)time;
	if (p->nbatch == XML_BATCH)
		flush_batch(p);
}

static void end_device(struct parser *p)
{
	flush_batch(p);
	if (p->rc)
		return;
	p->where = IN_SUPERBLOCK;
	VISIT(p, "finishing a device", device_end);
}

void xml_elem_end(struct parser *p)
{
	switch (p->where) {
	case IN_MAPPING:
		p->where = p->parent;
		break;
	case IN_DEF:
		p->where = IN_SUPERBLOCK;
		break;
	case IN_DEVICE:
		end_device(p);
		break;
	case IN_SUPERBLOCK:
		/* superblock_end waits for the end of input: junk after the
		 * root element must still fail the document */
		p->where = AT_END;
		break;
	default:
		break;
	}
}

void xml_state_init(struct parser *p, XML_Parser xp, const struct thin_ir_visitor *v,
		    struct thin_xml_error *err)
{
	xml_defs_init(&p->defs);
	memset(err, 0, sizeof(*err));
	p->xp = xp;
	p->v = v;
	p->err = err;
	p->rc = 0;
	p->visitor_failed = 0;
	p->where = AT_TOP;
	p->have_dev = 0;
	p->nbatch = 0;
}

void xml_state_destroy(struct parser *p)
{
	xml_defs_destroy(&p->defs);
}

int xml_state_finish(struct parser *p)
{
	int r;

	if (p->rc)
		return p->rc;
	if (p->where != AT_END) {
		set_pos(p);
		snprintf(p->err->msg, sizeof(p->err->msg), "the document has no <superblock>");
		return p->rc = -EBADMSG;
	}
	if (p->v && p->v->superblock_end) {
		r = p->v->superblock_end(p->v->ctx);
		if (r) {
			snprintf(p->err->msg, sizeof(p->err->msg), "finishing the superblock: %s",
				 strerror(-r));
			p->visitor_failed = 1;
			return p->rc = r;
		}
	}
	return 0;
}

/* ---- expat ---- */

/* The checks that come before the attributes for element E (so that the
 * message names the misplacement, as it always did): 0 to go on. */
static int placement_ok(struct parser *p, enum xml_elem e)
{
	switch (e) {
	case XML_SUPERBLOCK:
		if (p->where != AT_TOP)
			invalid(p, "<superblock>: only one superblock is allowed");
		break;
	case XML_DEVICE:
		if (p->where != IN_SUPERBLOCK)
			invalid(p, "<device>: only allowed directly inside <superblock>");
		break;
	case XML_DEF:
		if (p->where != IN_SUPERBLOCK)
			invalid(p, "<def>: only allowed directly inside <superblock>");
		break;
	case XML_REF:
		if (p->where != IN_DEVICE && p->where != IN_DEF)
			invalid(p, "<ref>: only allowed inside <device> or <def>");
		break;
	default:
		break;
	}
	return !p->rc;
}

static void XMLCALL on_start(void *ctx, const XML_Char *name, const XML_Char **atts)
{
	struct parser *p = ctx;
	const struct elem_spec *es;
	uint64_t vals[XML_MAX_ATTRS];
	int e;

	if (p->rc)
		return;
	if (p->where == IN_MAPPING) {
		invalid(p, "<%s>: mapping elements have no children", name);
		return;
	}
	for (e = 0; e < XML_NR_ELEMS; e++)
		if (!strcmp(name, xml_elems[e].name))
			break;
	if (e == XML_NR_ELEMS) {
		invalid(p, "<%s>: unknown element", name);
		return;
	}
	es = &xml_elems[e];
	if (!placement_ok(p, (enum xml_elem)e))
		return;
	memcpy(vals, es->defaults, sizeof(vals));
	if (!get_attrs(p, es->name, atts, es->attrs, es->n, vals))
		xml_elem_start(p, (enum xml_elem)e, vals);
}

static void XMLCALL on_end(void *ctx, const XML_Char *name)
{
	struct parser *p = ctx;

	(void)name;	/* expat guarantees it matches the open element */
	if (!p->rc)
		xml_elem_end(p);
}

static void XMLCALL on_text(void *ctx, const XML_Char *s, int len)
{
	struct parser *p = ctx;

	if (p->rc)
		return;
	for (int i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') {
			invalid(p, "unexpected text '%.*s' between elements", len - i > 20 ? 20 : len - i,
				s + i);
			return;
		}
}

static void XMLCALL on_doctype(void *ctx, const XML_Char *name, const XML_Char *sysid,
			       const XML_Char *pubid, int has_internal)
{
	(void)name, (void)sysid, (void)pubid, (void)has_internal;
	invalid(ctx, "a DOCTYPE is not accepted");
}

static int parser_init(struct parser *p, const struct thin_ir_visitor *v,
		       struct thin_xml_error *err)
{
	XML_Parser xp = XML_ParserCreate("UTF-8");

	xml_state_init(p, xp, v, err);
	if (!xp)
		return -ENOMEM;
	XML_SetUserData(xp, p);
	XML_SetElementHandler(xp, on_start, on_end);
	XML_SetCharacterDataHandler(xp, on_text);
	XML_SetStartDoctypeDeclHandler(xp, on_doctype);
	return 0;
}

/* After XML_Parse* returned STATUS: the result of the whole call so far. */
static int parser_status(struct parser *p, enum XML_Status status)
{
	if (p->rc)
		return p->rc;
	if (status == XML_STATUS_ERROR) {
		set_pos(p);
		snprintf(p->err->msg, sizeof(p->err->msg), "malformed XML: %s",
			 XML_ErrorString(XML_GetErrorCode(p->xp)));
		return p->rc = -EBADMSG;
	}
	return 0;
}

static void parser_free(struct parser *p)
{
	if (p->xp)
		XML_ParserFree(p->xp);
	xml_state_destroy(p);
	free(p);
}

int thin_xml_parse_fd(int fd, const struct thin_ir_visitor *v, struct thin_xml_error *err)
{
	struct parser *p = malloc(sizeof(*p));
	int r, last = 0;

	if (!p)
		return -ENOMEM;
	r = parser_init(p, v, err);
	while (!r && !last) {
		void *buf = XML_GetBuffer(p->xp, READ_CHUNK);
		ssize_t n;

		if (!buf) {
			r = -ENOMEM;
			break;
		}
		do
			n = read(fd, buf, READ_CHUNK);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			r = -errno;
			snprintf(err->msg, sizeof(err->msg), "read: %s", strerror(errno));
			break;
		}
		last = n == 0;
		r = parser_status(p, XML_ParseBuffer(p->xp, (int)n, last));
	}
	if (!r)
		r = xml_state_finish(p);
	parser_free(p);
	return r;
}

int thin_xml_parse_mem(const char *buf, size_t len, const struct thin_ir_visitor *v,
		       struct thin_xml_error *err)
{
	struct parser *p = malloc(sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	r = parser_init(p, v, err);
	while (!r) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;

		r = parser_status(p, XML_Parse(p->xp, buf, (int)n, n == len));
		buf += n;
		len -= n;
		if (!len)
			break;
	}
	if (!r)
		r = xml_state_finish(p);
	parser_free(p);
	return r;
}
