/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_emit.c - the text emitter and thin_dump 0.9.0's XML layout.
 * See xml_emit.h. */
#include "metadata/thin/xml_emit.h"
#include "metadata/thin/human.h"

#include <errno.h>
#include <stdlib.h>

struct thin_emitter {
	struct xml_out out;
	const struct thin_emit_style *style;
	struct thin_ir_mapping run;	/* being merged; valid when have_run */
	int have_run;
};

/* ---- thin_dump's XML ---- */

static void xml_superblock_begin(struct xml_out *o, const struct thin_ir_superblock *sb)
{
	xml_out_lit(o, "<superblock uuid=\"\" time=\"");
	xml_out_u64(o, sb->time);
	xml_out_lit(o, "\" transaction=\"");
	xml_out_u64(o, sb->transaction);
	xml_out_lit(o, "\" flags=\"");
	xml_out_u64(o, sb->flags);
	xml_out_lit(o, "\" version=\"");
	xml_out_u64(o, sb->version);
	xml_out_lit(o, "\" data_block_size=\"");
	xml_out_u64(o, sb->data_block_size);
	xml_out_lit(o, "\" nr_data_blocks=\"");
	xml_out_u64(o, sb->nr_data_blocks);
	xml_out_lit(o, "\">\n");
}

static void xml_superblock_end(struct xml_out *o)
{
	xml_out_lit(o, "</superblock>\n");
}

static void xml_device_begin(struct xml_out *o, const struct thin_ir_device *dev)
{
	xml_out_lit(o, "  <device dev_id=\"");
	xml_out_u64(o, dev->dev_id);
	xml_out_lit(o, "\" mapped_blocks=\"");
	xml_out_u64(o, dev->mapped_blocks);
	xml_out_lit(o, "\" transaction=\"");
	xml_out_u64(o, dev->transaction);
	xml_out_lit(o, "\" creation_time=\"");
	xml_out_u64(o, dev->creation_time);
	xml_out_lit(o, "\" snap_time=\"");
	xml_out_u64(o, dev->snap_time);
	xml_out_lit(o, "\">\n");
}

static void xml_device_end(struct xml_out *o)
{
	xml_out_lit(o, "  </device>\n");
}

static void xml_run(struct xml_out *o, const struct thin_ir_mapping *run)
{
	if (run->length == 1) {
		xml_out_lit(o, "    <single_mapping origin_block=\"");
		xml_out_u64(o, run->origin_begin);
		xml_out_lit(o, "\" data_block=\"");
		xml_out_u64(o, run->data_begin);
	} else {
		xml_out_lit(o, "    <range_mapping origin_begin=\"");
		xml_out_u64(o, run->origin_begin);
		xml_out_lit(o, "\" data_begin=\"");
		xml_out_u64(o, run->data_begin);
		xml_out_lit(o, "\" length=\"");
		xml_out_u64(o, run->length);
	}
	xml_out_lit(o, "\" time=\"");
	xml_out_u64(o, run->time);
	xml_out_lit(o, "\"/>\n");
}

const struct thin_emit_style thin_emit_xml_style = {
	.superblock_begin = xml_superblock_begin,
	.superblock_end = xml_superblock_end,
	.device_begin = xml_device_begin,
	.device_end = xml_device_end,
	.run = xml_run,
};

/* ---- the visitor ---- */

static int emit_pending(struct thin_emitter *e)
{
	int r;

	if (!e->have_run)
		return 0;
	r = xml_out_reserve(&e->out, THIN_EMIT_MAX_LINE);
	if (r)
		return r;
	e->style->run(&e->out, &e->run);
	e->have_run = 0;
	return 0;
}

/* Print what is pending, then make room for one more line. */
static int next_line(struct thin_emitter *e)
{
	int r = emit_pending(e);

	return r ? r : xml_out_reserve(&e->out, THIN_EMIT_MAX_LINE);
}

static int on_superblock_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct thin_emitter *e = ctx;
	int r;

	e->have_run = 0;
	r = next_line(e);
	if (!r)
		e->style->superblock_begin(&e->out, sb);
	return r;
}

static int on_superblock_end(void *ctx)
{
	struct thin_emitter *e = ctx;
	int r = next_line(e);

	if (r)
		return r;
	e->style->superblock_end(&e->out);
	return xml_out_flush(&e->out);
}

static int on_device_begin(void *ctx, const struct thin_ir_device *dev)
{
	struct thin_emitter *e = ctx;
	int r = next_line(e);

	if (!r)
		e->style->device_begin(&e->out, dev);
	return r;
}

static int on_device_end(void *ctx)
{
	struct thin_emitter *e = ctx;
	int r = next_line(e);

	if (!r)
		e->style->device_end(&e->out);
	return r;
}

static int on_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct thin_emitter *e = ctx;
	struct thin_ir_mapping *cur = &e->run;
	int r;

	for (size_t i = 0; i < n; i++) {
		const struct thin_ir_mapping *m = &runs[i];

		if (e->have_run && m->time == cur->time &&
		    m->origin_begin == cur->origin_begin + cur->length &&
		    m->data_begin == cur->data_begin + cur->length) {
			cur->length += m->length;
			continue;
		}
		r = emit_pending(e);
		if (r)
			return r;
		*cur = *m;
		e->have_run = 1;
	}
	return 0;
}

int thin_emitter_create(enum thin_emit_format fmt, int fd, struct thin_emitter **out)
{
	struct thin_emitter *e;
	int r;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	switch (fmt) {
	case THIN_EMIT_XML: e->style = &thin_emit_xml_style; break;
	case THIN_EMIT_HUMAN: e->style = &thin_emit_human_style; break;
	default:
		free(e);
		return -EINVAL;
	}
	r = xml_out_init(&e->out, fd);
	if (r) {
		free(e);
		return r;
	}
	*out = e;
	return 0;
}

void thin_emitter_visitor(struct thin_emitter *e, struct thin_ir_visitor *v)
{
	v->ctx = e;
	v->superblock_begin = on_superblock_begin;
	v->superblock_end = on_superblock_end;
	v->device_begin = on_device_begin;
	v->device_end = on_device_end;
	v->mappings = on_mappings;
}

int thin_emitter_flush(struct thin_emitter *e)
{
	int r = emit_pending(e);

	return r ? r : xml_out_flush(&e->out);
}

int thin_emitter_error(struct thin_emitter *e)
{
	return e->out.err;
}

const char *thin_emitter_text(struct thin_emitter *e, size_t *len)
{
	*len = e->out.len;
	return e->out.buf;
}

void thin_emitter_destroy(struct thin_emitter *e)
{
	if (!e)
		return;
	xml_out_release(&e->out);
	free(e);
}
