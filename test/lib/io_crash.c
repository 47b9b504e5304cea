/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_crash.c - the power-cut simulator. See io_crash.h. */
#include "test/lib/io_crash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One cached write, cut at unit boundaries: [off, off + len) lies in one
 * 4 KiB unit. */
struct piece {
	uint64_t off;
	uint32_t len;
	unsigned char *data;
};

/* A medium and the writes to it since its last flush, in order. */
struct disk {
	struct disk *next;
	dev_t dev;
	ino_t ino;
	const struct io_engine *key;	/* non-fd media: the engine itself */
	struct io_engine *medium;
	int own_medium;
	struct piece *p;
	size_t n, cap;
};

struct io_crash {
	uint64_t rng;
	struct disk *disks;
	uint64_t writes, flushes, events;	/* events: writes and flushes */
	uint64_t arm_at, lose_flush;
	enum io_crash_mode mode;
	int cut;
	uint64_t kept, lost;
};

struct crash_engine {
	struct io_engine e;
	struct io_crash *c;
	struct disk *d;
	struct io_engine *inner;
	int own;
};

static uint64_t rnd(struct io_crash *c)
{
	/* xorshift64* */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 2685821657736338717ull;
}

int io_crash_create(uint64_t seed, struct io_crash **out)
{
	struct io_crash *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->rng = seed ^ 0x9e3779b97f4a7c15ull;
	if (!c->rng)
		c->rng = 1;
	c->arm_at = c->lose_flush = UINT64_MAX;
	*out = c;
	return 0;
}

static void drop_cache(struct disk *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->p[i].data);
	d->n = 0;
}

void io_crash_destroy(struct io_crash *c)
{
	if (!c)
		return;
	while (c->disks) {
		struct disk *d = c->disks;
		c->disks = d->next;
		drop_cache(d);
		free(d->p);
		if (d->own_medium)
			io_destroy(d->medium);
		free(d);
	}
	free(c);
}

void io_crash_arm(struct io_crash *c, uint64_t nth, enum io_crash_mode mode)
{
	c->arm_at = nth;
	c->mode = mode;
}

void io_crash_lose_flush(struct io_crash *c, uint64_t nth)
{
	c->lose_flush = nth;
}

int io_crash_is_cut(const struct io_crash *c)
{
	return c->cut;
}

uint64_t io_crash_writes(const struct io_crash *c)
{
	return c->writes;
}

uint64_t io_crash_flushes(const struct io_crash *c)
{
	return c->flushes;
}

uint64_t io_crash_events(const struct io_crash *c)
{
	return c->events;
}

void io_crash_counts(const struct io_crash *c, uint64_t *kept, uint64_t *lost)
{
	*kept = c->kept;
	*lost = c->lost;
}

/* ---- the cut ---- */

static int cmp_unit(const void *a, const void *b)
{
	const struct piece *x = *(struct piece *const *)a, *y = *(struct piece *const *)b;
	uint64_t ux = x->off / IO_CRASH_UNIT, uy = y->off / IO_CRASH_UNIT;

	if (ux != uy)
		return ux < uy ? -1 : 1;
	return x < y ? -1 : x > y;	/* pieces are in write order in the array */
}

/* Each unit keeps the first K of its writes (its content after write K),
 * K chosen by the mode. */
static int cut_disk(struct io_crash *c, struct disk *d)
{
	struct piece **order;
	int r = 0;

	if (!d->n)
		return 0;
	order = malloc(d->n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		order[i] = &d->p[i];
	qsort(order, d->n, sizeof(*order), cmp_unit);
	for (size_t i = 0; i < d->n && !r;) {
		size_t j = i, keep;
		while (j < d->n && order[j]->off / IO_CRASH_UNIT == order[i]->off / IO_CRASH_UNIT)
			j++;
		keep = c->mode == IO_CRASH_ALL ? j - i :
		       c->mode == IO_CRASH_NONE ? 0 : (size_t)(rnd(c) % (j - i + 1));
		if (keep == j - i)
			c->kept++;
		else
			c->lost++;
		for (size_t k = i; k < i + keep && !r; k++)
			r = io_write(d->medium, order[k]->off, order[k]->data, order[k]->len);
		i = j;
	}
	free(order);
	drop_cache(d);
	return r;
}

int io_crash_cut(struct io_crash *c)
{
	int r = 0;

	if (c->cut)
		return 0;
	c->cut = 1;
	for (struct disk *d = c->disks; d; d = d->next) {
		int e = cut_disk(c, d);
		if (e && !r)
			r = e;
	}
	return r;
}

/* ---- the engine ---- */

static int ce_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	struct crash_engine *ce = TP_CONTAINER_OF(e, struct crash_engine, e);
	struct disk *d = ce->d;
	int r = io_read(d->medium, off, buf, len);

	if (r)
		return r;
	for (size_t i = 0; i < d->n; i++) {	/* the cache, oldest first */
		const struct piece *p = &d->p[i];
		uint64_t lo = p->off > off ? p->off : off;
		uint64_t hi = p->off + p->len < off + len ? p->off + p->len : off + len;
		if (lo < hi)
			memcpy((unsigned char *)buf + (lo - off), p->data + (lo - p->off), hi - lo);
	}
	return 0;
}

static int cache_piece(struct disk *d, uint64_t off, const unsigned char *buf, uint32_t len)
{
	struct piece *p;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct piece *n = realloc(d->p, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->p = n;
		d->cap = cap;
	}
	p = &d->p[d->n];
	if (!(p->data = malloc(len)))
		return -ENOMEM;
	memcpy(p->data, buf, len);
	p->off = off;
	p->len = len;
	d->n++;
	return 0;
}

static int ce_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	struct crash_engine *ce = TP_CONTAINER_OF(e, struct crash_engine, e);
	struct io_crash *c = ce->c;
	const unsigned char *b = buf;
	int r;

	if (c->cut)
		return -EIO;
	if (c->events++ == c->arm_at)
		return (r = io_crash_cut(c)) ? r : -EIO;
	c->writes++;
	while (len) {
		uint32_t n = IO_CRASH_UNIT - (uint32_t)(off % IO_CRASH_UNIT);
		if (n > len)
			n = (uint32_t)len;
		if ((r = cache_piece(ce->d, off, b, n)))
			return r;
		off += n;
		b += n;
		len -= n;
	}
	return 0;
}

static int ce_flush(struct io_engine *e)
{
	struct crash_engine *ce = TP_CONTAINER_OF(e, struct crash_engine, e);
	struct io_crash *c = ce->c;
	struct disk *d = ce->d;
	int r = 0;

	if (c->cut)
		return -EIO;
	if (c->events++ == c->arm_at)
		return (r = io_crash_cut(c)) ? r : -EIO;
	if (c->flushes++ == c->lose_flush)
		return 0;
	for (size_t i = 0; i < d->n && !r; i++)
		r = io_write(d->medium, d->p[i].off, d->p[i].data, d->p[i].len);
	drop_cache(d);
	return r;
}

static void ce_destroy(struct io_engine *e)
{
	struct crash_engine *ce = TP_CONTAINER_OF(e, struct crash_engine, e);

	if (ce->own)
		io_destroy(ce->inner);
	free(e->name);
	free(ce);
}

static const struct io_ops crash_ops = { ce_read, ce_write, ce_flush, ce_destroy };

/* The disk of INNER: found, or made (for a file: opened again). */
static int find_disk(struct io_crash *c, struct io_engine *inner, int own, struct disk **out)
{
	int fd = io_fd_get(inner);
	struct stat st;
	struct disk *d;
	int r;

	if (fd < 0 && own)
		return -EINVAL;
	if (fd >= 0 && fstat(fd, &st))
		return -errno;
	for (d = c->disks; d; d = d->next)
		if (fd >= 0 ? (!d->key && d->dev == st.st_dev && d->ino == st.st_ino) :
			      d->key == inner) {
			/* a file grown since (tpextend): the medium's size follows */
			if (d->own_medium && inner->size > d->medium->size)
				d->medium->size = inner->size;
			*out = d;
			return 0;
		}
	if (!(d = calloc(1, sizeof(*d))))
		return -ENOMEM;
	if (fd >= 0) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
		d->own_medium = 1;
		if ((r = io_fd_open(inner->name, 0, &d->medium))) {
			free(d);
			return r;
		}
	} else {
		d->key = inner;
		d->medium = inner;
	}
	d->next = c->disks;
	c->disks = d;
	*out = d;
	return 0;
}

int io_crash_wrap(struct io_crash *c, struct io_engine *inner, int own, struct io_engine **out)
{
	struct crash_engine *ce = calloc(1, sizeof(*ce));
	size_t n = strlen(inner->name) + 1;
	int r;

	if (!ce || !(ce->e.name = malloc(n))) {
		free(ce);
		return -ENOMEM;
	}
	if ((r = find_disk(c, inner, own, &ce->d))) {
		free(ce->e.name);
		free(ce);
		return r;
	}
	memcpy(ce->e.name, inner->name, n);	/* messages name the device, not us */
	ce->e.ops = &crash_ops;
	ce->e.size = inner->size;
	ce->e.read_only = inner->read_only;
	ce->c = c;
	ce->inner = inner;
	ce->own = own;
	*out = &ce->e;
	return 0;
}

static int hook_wrap(void *ctx, struct io_engine *e, struct io_engine **out)
{
	int r = io_crash_wrap(ctx, e, 1, out);

	if (r)
		io_destroy(e);
	return r;
}

void io_crash_hook(struct io_crash *c)
{
	io_fd_set_wrap(c ? hook_wrap : NULL, c);
}
