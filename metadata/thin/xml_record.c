/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_record.c - record and replay a thin_ir stream. See xml_record.h.
 *
 * Encoding, one event after another (numbers are LEB128 varints):
 *   'D' dev_id mapped_blocks transaction creation_time snap_time
 *   'M' origin_gap data_delta length time   (origin_gap = origin - end of
 *        the previous run of the device; data_delta = zigzag(data - data
 *        end of the previous run))
 *   'E'                                      (device_end)
 * The superblock is kept as a struct; superblock_end marks completion. */
#include "metadata/thin/xml_record.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (1u << 20)
#define MAX_EVENT 48		/* tag + five varints of at most 10 bytes < 64 */
#define REPLAY_BATCH 1024

struct chunk {
	struct chunk *next;
	size_t len;
	unsigned char data[CHUNK_SIZE];
};

struct thin_ir_record {
	size_t max_bytes, bytes;
	int dropped;		/* passed the limit: nothing is kept */
	int complete;
	struct thin_ir_superblock sb;
	struct chunk *head, *tail;
	uint64_t prev_end, prev_data_end;	/* of the previous run in the device */
};

static void drop(struct thin_ir_record *r)
{
	while (r->head) {
		struct chunk *c = r->head;

		r->head = c->next;
		free(c);
	}
	r->tail = NULL;
	r->dropped = 1;
}

/* Room for one event; NULL when recording stopped (limit or memory). */
static unsigned char *reserve(struct thin_ir_record *r)
{
	struct chunk *c;

	if (r->dropped)
		return NULL;
	if (r->tail && CHUNK_SIZE - r->tail->len >= MAX_EVENT)
		return r->tail->data + r->tail->len;
	if (r->bytes + CHUNK_SIZE > r->max_bytes || !(c = malloc(sizeof(*c)))) {
		drop(r);
		return NULL;
	}
	c->next = NULL;
	c->len = 0;
	if (r->tail)
		r->tail->next = c;
	else
		r->head = c;
	r->tail = c;
	r->bytes += CHUNK_SIZE;
	return c->data;
}

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static void commit(struct thin_ir_record *r, const unsigned char *end)
{
	r->tail->len = (size_t)(end - r->tail->data);
}

static int rec_superblock_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct thin_ir_record *r = ctx;

	r->sb = *sb;
	return 0;
}

static int rec_superblock_end(void *ctx)
{
	struct thin_ir_record *r = ctx;

	r->complete = !r->dropped;
	return 0;
}

static int rec_device_begin(void *ctx, const struct thin_ir_device *dev)
{
	struct thin_ir_record *r = ctx;
	unsigned char *p = reserve(r);

	r->prev_end = r->prev_data_end = 0;
	if (!p)
		return 0;
	*p++ = 'D';
	p = put_varint(p, dev->dev_id);
	p = put_varint(p, dev->mapped_blocks);
	p = put_varint(p, dev->transaction);
	p = put_varint(p, dev->creation_time);
	p = put_varint(p, dev->snap_time);
	commit(r, p);
	return 0;
}

static int rec_device_end(void *ctx)
{
	struct thin_ir_record *r = ctx;
	unsigned char *p = reserve(r);

	if (p) {
		*p++ = 'E';
		commit(r, p);
	}
	return 0;
}

static int rec_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct thin_ir_record *r = ctx;

	for (size_t i = 0; i < n; i++) {
		const struct thin_ir_mapping *m = &runs[i];
		unsigned char *p = reserve(r);
		int64_t delta;

		if (!p)
			return 0;
		delta = (int64_t)(m->data_begin - r->prev_data_end);
		*p++ = 'M';
		p = put_varint(p, m->origin_begin - r->prev_end);
		p = put_varint(p, ((uint64_t)delta << 1) ^ (uint64_t)(delta >> 63));
		p = put_varint(p, m->length);
		p = put_varint(p, m->time);
		commit(r, p);
		r->prev_end = m->origin_begin + m->length;
		r->prev_data_end = m->data_begin + m->length;
	}
	return 0;
}

int thin_ir_record_create(size_t max_bytes, struct thin_ir_record **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->max_bytes = max_bytes;
	return 0;
}

void thin_ir_record_visitor(struct thin_ir_record *r, struct thin_ir_visitor *v)
{
	v->ctx = r;
	v->superblock_begin = rec_superblock_begin;
	v->superblock_end = rec_superblock_end;
	v->device_begin = rec_device_begin;
	v->device_end = rec_device_end;
	v->mappings = rec_mappings;
}

int thin_ir_record_complete(const struct thin_ir_record *r)
{
	return r->complete;
}

static const unsigned char *get_varint(const unsigned char *p, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	do {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p++ & 0x80);
	return p;
}

struct replay {
	const struct thin_ir_visitor *v;
	struct thin_ir_mapping batch[REPLAY_BATCH];
	size_t n;
};

static int flush(struct replay *rp)
{
	int r = 0;

	if (rp->n && rp->v->mappings)
		r = rp->v->mappings(rp->v->ctx, rp->batch, rp->n);
	rp->n = 0;
	return r;
}

static int replay_event(struct replay *rp, const unsigned char **pp, uint64_t *prev_end,
			uint64_t *prev_data_end)
{
	const struct thin_ir_visitor *v = rp->v;
	const unsigned char *p = *pp;
	struct thin_ir_device dev;
	struct thin_ir_mapping *m;
	uint64_t x[5];
	int r = 0;

	switch (*p++) {
	case 'D':
		for (int i = 0; i < 5; i++)
			p = get_varint(p, &x[i]);
		dev.dev_id = x[0];
		dev.mapped_blocks = x[1];
		dev.transaction = x[2];
		dev.creation_time = (uint32_t)x[3];
		dev.snap_time = (uint32_t)x[4];
		*prev_end = *prev_data_end = 0;
		if (v->device_begin)
			r = v->device_begin(v->ctx, &dev);
		break;
	case 'M':
		for (int i = 0; i < 4; i++)
			p = get_varint(p, &x[i]);
		m = &rp->batch[rp->n++];
		m->origin_begin = *prev_end + x[0];
		m->data_begin = *prev_data_end + (uint64_t)((int64_t)(x[1] >> 1) ^ -(int64_t)(x[1] & 1));
		m->length = x[2];
		m->time = (uint32_t)x[3];
		*prev_end = m->origin_begin + m->length;
		*prev_data_end = m->data_begin + m->length;
		if (rp->n == REPLAY_BATCH)
			r = flush(rp);
		break;
	default:	/* 'E' */
		r = flush(rp);
		if (!r && v->device_end)
			r = v->device_end(v->ctx);
		break;
	}
	*pp = p;
	return r;
}

int thin_ir_record_replay(const struct thin_ir_record *rec, const struct thin_ir_visitor *v)
{
	struct replay *rp;
	uint64_t prev_end = 0, prev_data_end = 0;
	int r = 0;

	if (!rec->complete)
		return -EINVAL;
	rp = malloc(sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->v = v;
	rp->n = 0;
	if (v->superblock_begin)
		r = v->superblock_begin(v->ctx, &rec->sb);
	for (const struct chunk *c = rec->head; c && !r; c = c->next) {
		const unsigned char *p = c->data, *end = c->data + c->len;

		while (p < end && !r)
			r = replay_event(rp, &p, &prev_end, &prev_data_end);
	}
	if (!r && v->superblock_end)
		r = v->superblock_end(v->ctx);
	free(rp);
	return r;
}

void thin_ir_record_destroy(struct thin_ir_record *r)
{
	if (!r)
		return;
	drop(r);
	free(r);
}
