/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_pipe.c - a thin_ir stream across two threads. See xml_pipe.h. */
#include "metadata/thin/xml_pipe.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_SLOTS 16
#define PIPE_SLOT_RUNS 1024

enum event { EV_SB_BEGIN, EV_SB_END, EV_DEV_BEGIN, EV_DEV_END, EV_MAPPINGS };

struct slot {
	enum event ev;
	struct thin_ir_superblock sb;
	struct thin_ir_device dev;
	size_t n;
	struct thin_ir_mapping runs[PIPE_SLOT_RUNS];
};

struct pipe {
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* a slot filled or freed, or the end */
	size_t head, tail;		/* slots filled: [tail, head), mod PIPE_SLOTS */
	int done;			/* the producer returned */
	int cancel;			/* the consumer failed */
	int produced;			/* what it returned */
	thin_ir_producer produce;
	void *arg;
	struct slot slots[PIPE_SLOTS];
};

/* A free slot to fill (NULL: the consumer failed). */
static struct slot *claim(struct pipe *p)
{
	struct slot *s = NULL;

	pthread_mutex_lock(&p->lock);
	while (!p->cancel && p->head - p->tail == PIPE_SLOTS)
		pthread_cond_wait(&p->changed, &p->lock);
	if (!p->cancel)
		s = &p->slots[p->head % PIPE_SLOTS];
	pthread_mutex_unlock(&p->lock);
	return s;
}

static void publish(struct pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->head++;
	pthread_cond_signal(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

static int put(struct pipe *p, enum event ev, const struct thin_ir_superblock *sb,
	       const struct thin_ir_device *dev, const struct thin_ir_mapping *runs, size_t n)
{
	struct slot *s = claim(p);

	if (!s)
		return -ECANCELED;
	s->ev = ev;
	if (sb)
		s->sb = *sb;
	if (dev)
		s->dev = *dev;
	s->n = n;
	if (n)
		memcpy(s->runs, runs, n * sizeof(*runs));
	publish(p);
	return 0;
}

static int q_sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	return put(ctx, EV_SB_BEGIN, sb, NULL, NULL, 0);
}

static int q_sb_end(void *ctx)
{
	return put(ctx, EV_SB_END, NULL, NULL, NULL, 0);
}

static int q_dev_begin(void *ctx, const struct thin_ir_device *dev)
{
	return put(ctx, EV_DEV_BEGIN, NULL, dev, NULL, 0);
}

static int q_dev_end(void *ctx)
{
	return put(ctx, EV_DEV_END, NULL, NULL, NULL, 0);
}

static int q_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	int r = 0;

	while (n && !r) {
		size_t k = n < PIPE_SLOT_RUNS ? n : PIPE_SLOT_RUNS;

		r = put(ctx, EV_MAPPINGS, NULL, NULL, runs, k);
		runs += k;
		n -= k;
	}
	return r;
}

static void *producer_main(void *arg)
{
	struct pipe *p = arg;
	const struct thin_ir_visitor v = {
		.ctx = p,
		.superblock_begin = q_sb_begin,
		.superblock_end = q_sb_end,
		.device_begin = q_dev_begin,
		.device_end = q_dev_end,
		.mappings = q_mappings,
	};
	int r = p->produce(p->arg, &v);

	pthread_mutex_lock(&p->lock);
	p->produced = r;
	p->done = 1;
	pthread_cond_signal(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Make slot S's call on V. */
static int deliver(const struct slot *s, const struct thin_ir_visitor *v)
{
	switch (s->ev) {
	case EV_SB_BEGIN:
		return v->superblock_begin ? v->superblock_begin(v->ctx, &s->sb) : 0;
	case EV_SB_END:
		return v->superblock_end ? v->superblock_end(v->ctx) : 0;
	case EV_DEV_BEGIN:
		return v->device_begin ? v->device_begin(v->ctx, &s->dev) : 0;
	case EV_DEV_END:
		return v->device_end ? v->device_end(v->ctx) : 0;
	default:
		return v->mappings ? v->mappings(v->ctx, s->runs, s->n) : 0;
	}
}

/* Take every slot as it fills until the producer is done: the consumer's
 * first error, or 0. */
static int consume(struct pipe *p, const struct thin_ir_visitor *v)
{
	int r = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->head == p->tail && !p->done)
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->head == p->tail)
			break;
		pthread_mutex_unlock(&p->lock);
		r = deliver(&p->slots[p->tail % PIPE_SLOTS], v);
		pthread_mutex_lock(&p->lock);
		p->tail++;
		if (r) {
			p->cancel = 1;
			pthread_cond_signal(&p->changed);
			break;
		}
		pthread_cond_signal(&p->changed);
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

int thin_ir_pipe(thin_ir_producer produce, void *arg, const struct thin_ir_visitor *consumer)
{
	struct pipe *p = calloc(1, sizeof(*p));
	pthread_t t;
	int r;

	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	p->produce = produce;
	p->arg = arg;
	r = -pthread_create(&t, NULL, producer_main, p);
	if (!r) {
		r = consume(p, consumer);
		pthread_join(t, NULL);
		if (!r)
			r = p->produced;
	}
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	free(p);
	return r;
}
