/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io.c - engine dispatch, window, concat and mirror engines, copies. See io.h.
 * (The memory and fault-injecting engines, for tests only, are
 * test/lib/io_test.c.) */
#include "lib/base/io.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bounds(struct io_engine *e, uint64_t off, size_t len)
{
	if (off > e->size || len > e->size - off)
		return -ENXIO;
	return 0;
}

int io_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	int r = bounds(e, off, len);
	return r ? r : e->ops->read(e, off, buf, len);
}

static int all_writes_failed;

void io_fail_all_writes(void) { all_writes_failed = 1; }

int io_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	int r;
	if (e->read_only || all_writes_failed)
		return -EROFS;
	r = bounds(e, off, len);
	return r ? r : e->ops->write(e, off, buf, len);
}

int io_flush(struct io_engine *e)
{
	return e->ops->flush ? e->ops->flush(e) : 0;
}

void io_destroy(struct io_engine *e)
{
	if (e)
		e->ops->destroy(e);
}

/* ---- window engine ---- */

struct io_window {
	struct io_engine e;
	struct io_engine *inner;
	uint64_t offset;
	int own;
};

static int win_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	struct io_window *w = TP_CONTAINER_OF(e, struct io_window, e);
	return io_read(w->inner, w->offset + off, buf, len);
}

static int win_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	struct io_window *w = TP_CONTAINER_OF(e, struct io_window, e);
	return io_write(w->inner, w->offset + off, buf, len);
}

static int win_flush(struct io_engine *e)
{
	return io_flush(TP_CONTAINER_OF(e, struct io_window, e)->inner);
}

static void win_destroy(struct io_engine *e)
{
	struct io_window *w = TP_CONTAINER_OF(e, struct io_window, e);
	if (w->own)
		io_destroy(w->inner);
	free(e->name);
	free(w);
}

static struct io_engine *win_under(struct io_engine *e, uint64_t *off)
{
	struct io_window *w = TP_CONTAINER_OF(e, struct io_window, e);
	*off += w->offset;
	return w->inner;
}

static const struct io_ops window_ops = { win_read, win_write, win_flush, win_destroy, win_under };

int io_window_create(struct io_engine *inner, uint64_t offset, uint64_t len, int own,
		     struct io_engine **out)
{
	struct io_window *w;
	size_t n;

	if (offset > inner->size || len > inner->size - offset)
		return -ENXIO;
	w = calloc(1, sizeof(*w));
	n = strlen(inner->name) + 48;
	if (!w || !(w->e.name = malloc(n))) {
		free(w);
		return -ENOMEM;
	}
	snprintf(w->e.name, n, "%s@%llu", inner->name, (unsigned long long)offset);
	w->e.ops = &window_ops;
	w->e.size = len;
	w->e.read_only = inner->read_only;
	w->inner = inner;
	w->offset = offset;
	w->own = own;
	*out = &w->e;
	return 0;
}

/* ---- concat engine ---- */

struct io_concat {
	struct io_engine e;
	unsigned n;
	int own;
	struct io_concat_seg seg[];
};

/* Each byte range of the concatenation, in pieces that each lie on one
 * segment: FN(segment, its offset, buffer position, length). */
static int cat_each(struct io_concat *c, uint64_t off, size_t len,
		    int (*fn)(const struct io_concat_seg *s, uint64_t o, size_t pos, size_t n,
			      void *arg),
		    void *arg)
{
	uint64_t start = 0;
	size_t pos = 0;

	for (unsigned i = 0; i < c->n && pos < len; i++) {
		const struct io_concat_seg *s = &c->seg[i];
		uint64_t end = start + s->length;

		if (off + pos < end) {
			uint64_t in = off + pos - start;
			size_t n = (size_t)TP_MIN((uint64_t)(len - pos), s->length - in);
			int r = fn(s, s->offset + in, pos, n, arg);

			if (r)
				return r;
			pos += n;
		}
		start = end;
	}
	return pos == len ? 0 : -ENXIO;
}

static int seg_read(const struct io_concat_seg *s, uint64_t o, size_t pos, size_t n, void *arg)
{
	return io_read(s->io, o, (char *)arg + pos, n);
}

static int seg_write(const struct io_concat_seg *s, uint64_t o, size_t pos, size_t n, void *arg)
{
	return io_write(s->io, o, (const char *)arg + pos, n);
}

static int cat_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	return cat_each(TP_CONTAINER_OF(e, struct io_concat, e), off, len, seg_read, buf);
}

static int cat_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	return cat_each(TP_CONTAINER_OF(e, struct io_concat, e), off, len, seg_write,
			(void *)buf);
}

static int cat_flush(struct io_engine *e)
{
	struct io_concat *c = TP_CONTAINER_OF(e, struct io_concat, e);
	int r = 0;

	for (unsigned i = 0; i < c->n; i++) {
		int f = 1;

		for (unsigned j = 0; j < i; j++)
			f &= c->seg[j].io != c->seg[i].io;
		if (f) {
			int e2 = io_flush(c->seg[i].io);
			if (e2 && !r)
				r = e2;
		}
	}
	return r;
}

static void cat_destroy(struct io_engine *e)
{
	struct io_concat *c = TP_CONTAINER_OF(e, struct io_concat, e);

	for (unsigned i = 0; c->own && i < c->n; i++)
		io_destroy(c->seg[i].io);
	free(e->name);
	free(c);
}

static const struct io_ops concat_ops = { cat_read, cat_write, cat_flush, cat_destroy };

int io_concat_create(const struct io_concat_seg *seg, unsigned n, const char *name, int own,
		     struct io_engine **out)
{
	struct io_concat *c;

	*out = NULL;
	if (!n)
		return -EINVAL;
	c = calloc(1, sizeof(*c) + n * sizeof(*seg));
	if (!c || !(c->e.name = strdup(name))) {
		free(c);
		return -ENOMEM;
	}
	c->e.ops = &concat_ops;
	c->n = n;
	c->own = own;
	memcpy(c->seg, seg, n * sizeof(*seg));
	for (unsigned i = 0; i < n; i++) {
		c->e.size += seg[i].length;
		c->e.read_only |= seg[i].io->read_only;
	}
	*out = &c->e;
	return 0;
}

/* ---- mirror engine ---- */

static int keep_bad_legs;	/* the test seam io_mirror_set_keep_bad_legs */

struct io_mirror {
	struct io_engine e;
	struct io_engine *leg[2];
	unsigned primary;
	unsigned in_use;	/* bit I: leg I takes writes and may be read */
	int err[2];		/* the error that took leg I out, or 0 */
	int own;
	/* blocks a validating reader found bad on leg I (io_read_valid),
	 * from any thread: under LOCK */
	pthread_mutex_t lock;
	struct io_mirror_bad bad[2];
	uint64_t *seen[2];	/* the offsets counted in BAD[I], each once */
	size_t nr_seen[2];
	/* good copies of blocks found bad on a leg, rewritten there at the
	 * next flush (a command that never flushes changes no byte); a
	 * write to the same bytes meanwhile drops one */
	struct mir_heal {
		unsigned leg;
		uint64_t at;
		size_t len;
		unsigned char *data;
	} *heal;
	size_t nr_heal;
};

#define MIR_HEAL_MAX 1024	/* blocks kept for rewriting; more are counted, not kept */
#define MIR_BLOCK 4096u		/* what a read error is counted in: a metadata block */
#define MIR_MAX_READ_ERRORS 20	/* unreadable blocks a leg may have (md's default) */

static void mir_drop(struct io_mirror *m, unsigned i, int err)
{
	m->in_use &= ~(1u << i);
	if (!m->err[i])
		m->err[i] = err;
	if (m->primary == i && (m->in_use & (1u << (1 - i))))
		m->primary = 1 - i;
}

static void note_bad(struct io_mirror *m, unsigned k, uint64_t at, const void *good, size_t len,
		     int heal, int unreadable);

/* Which blocks of OFF..OFF+LEN leg K cannot read, the other leg having
 * read them all into GOOD: each is counted bad there (unreadable) and its
 * good copy kept for rewriting at the next flush (as md's raid1 rewrites a
 * sector that failed a read), the leg staying in use; a leg with more
 * than MIR_MAX_READ_ERRORS such blocks drops out (md fails a device after
 * its max_read_errors). A read not made of whole blocks counts as one. */
static void mir_read_errors(struct io_mirror *m, unsigned k, uint64_t off, const void *good,
			    size_t len, int err, int heal)
{
	size_t bs = !(off % MIR_BLOCK) && !(len % MIR_BLOCK) ? MIR_BLOCK : len;
	unsigned char *tmp = malloc(bs);

	for (size_t at = 0; at < len; at += bs)
		if (!tmp || io_read(m->leg[k], off + at, tmp, bs))
			note_bad(m, k, off + at, (const unsigned char *)good + at, bs, heal, 1);
	free(tmp);
	pthread_mutex_lock(&m->lock);
	if (m->bad[k].unreadable > MIR_MAX_READ_ERRORS && (m->in_use & (1u << (1 - k))))
		mir_drop(m, k, err);
	pthread_mutex_unlock(&m->lock);
}

/* Both legs failed a read of OFF..OFF+LEN: block by block, each from the
 * first leg that reads it; -EIO when a block reads on neither. */
static int mir_read_blocks(struct io_mirror *m, unsigned first, uint64_t off, void *buf,
			   size_t len, int heal)
{
	size_t bs = !(off % MIR_BLOCK) && !(len % MIR_BLOCK) ? MIR_BLOCK : len;
	int r = 0;

	for (size_t at = 0; at < len && len > bs; at += bs) {
		unsigned char *b = (unsigned char *)buf + at;
		int e0 = io_read(m->leg[first], off + at, b, bs);

		if (!e0)
			continue;
		if (io_read(m->leg[1 - first], off + at, b, bs)) {
			r = -EIO;	/* on neither: the block is lost */
			continue;
		}
		note_bad(m, first, off + at, b, bs, heal, 1);
	}
	return len > bs ? r : -EIO;
}

static int mir_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	struct io_mirror *m = TP_CONTAINER_OF(e, struct io_mirror, e);
	unsigned first = m->primary, other = 1 - first;
	int heal = !e->read_only, r, r2;

	if (!(m->in_use & (1u << first)))
		return (m->in_use & (1u << other)) ? io_read(m->leg[other], off, buf, len) : -EIO;
	r = io_read(m->leg[first], off, buf, len);
	if (!r || r == -ENXIO || !(m->in_use & (1u << other)))
		return r;	/* (one leg: its error is the read's) */
	r2 = io_read(m->leg[other], off, buf, len);
	if (r2 == -ENXIO)
		return r2;
	if (!r2) {
		mir_read_errors(m, first, off, buf, len, r, heal);
		return 0;
	}
	return mir_read_blocks(m, first, off, buf, len, heal);
}

/* Heals that bytes OFF..OFF+LEN now written supersede are dropped. */
static void heal_drop(struct io_mirror *m, uint64_t off, size_t len)
{
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nr_heal;) {
		struct mir_heal *h = &m->heal[i];

		if (h->at < off + len && off < h->at + h->len) {
			free(h->data);
			*h = m->heal[--m->nr_heal];
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&m->lock);
}

/* Rewrite the bad copies kept, before the legs' flush. A leg that fails
 * it drops out. */
static void heal_apply(struct io_mirror *m)
{
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nr_heal; i++) {
		struct mir_heal *h = &m->heal[i];

		if ((m->in_use & (1u << h->leg)) && !all_writes_failed) {
			int r = io_write(m->leg[h->leg], h->at, h->data, h->len);
			if (r)
				mir_drop(m, h->leg, r);
			else if (m->bad[h->leg].healed < m->bad[h->leg].bad)
				m->bad[h->leg].healed++;
		}
		free(h->data);
	}
	m->nr_heal = 0;
	pthread_mutex_unlock(&m->lock);
}

static int mir_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	struct io_mirror *m = TP_CONTAINER_OF(e, struct io_mirror, e);
	int r = -EIO;

	if (m->nr_heal)
		heal_drop(m, off, len);

	for (unsigned i = 0; i < 2; i++) {
		int w;

		if (!(m->in_use & (1u << i)))
			continue;
		w = io_write(m->leg[i], off, buf, len);
		if (w == -ENXIO || w == -EROFS)
			return w;
		if (w)
			mir_drop(m, i, w);
		else
			r = 0;
	}
	return r;
}

static int mir_flush(struct io_engine *e)
{
	struct io_mirror *m = TP_CONTAINER_OF(e, struct io_mirror, e);
	int r = -EIO;

	if (m->nr_heal)
		heal_apply(m);
	for (unsigned i = 0; i < 2; i++) {
		int f;

		if (!(m->in_use & (1u << i)))
			continue;
		f = io_flush(m->leg[i]);
		if (f)
			mir_drop(m, i, f);
		else
			r = 0;
	}
	return r;
}

static void mir_destroy(struct io_engine *e)
{
	struct io_mirror *m = TP_CONTAINER_OF(e, struct io_mirror, e);

	for (unsigned i = 0; m->own && i < 2; i++)
		io_destroy(m->leg[i]);
	for (size_t i = 0; i < m->nr_heal; i++)
		free(m->heal[i].data);
	free(m->heal);
	free(m->seen[0]);
	free(m->seen[1]);
	pthread_mutex_destroy(&m->lock);
	free(e->name);
	free(m);
}

static const struct io_ops mirror_ops = { mir_read, mir_write, mir_flush, mir_destroy };

int io_mirror_create(struct io_engine *leg0, struct io_engine *leg1, unsigned primary,
		     const char *name, int own, struct io_engine **out)
{
	struct io_mirror *m;

	*out = NULL;
	if ((!leg0 && !leg1) || primary > 1)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->e.name = strdup(name))) {
		free(m);
		return -ENOMEM;
	}
	if (pthread_mutex_init(&m->lock, NULL)) {
		free(m->e.name);
		free(m);
		return -ENOMEM;
	}
	m->e.ops = &mirror_ops;
	m->leg[0] = leg0;
	m->leg[1] = leg1;
	m->own = own;
	for (unsigned i = 0; i < 2; i++) {
		if (m->leg[i]) {
			if (!m->in_use || m->leg[i]->size < m->e.size)
				m->e.size = m->leg[i]->size;	/* the smaller leg's */
			m->in_use |= 1u << i;
			m->e.read_only |= m->leg[i]->read_only;
		} else {
			m->err[i] = -ENODEV;
		}
	}
	m->primary = (m->in_use & (1u << primary)) ? primary : 1 - primary;
	*out = &m->e;
	return 0;
}

unsigned io_mirror_in_use(struct io_engine *e)
{
	return e->ops == &mirror_ops ? TP_CONTAINER_OF(e, struct io_mirror, e)->in_use : 0;
}

int io_mirror_error(struct io_engine *e, unsigned leg)
{
	return e->ops == &mirror_ops && leg < 2 ? TP_CONTAINER_OF(e, struct io_mirror, e)->err[leg]
						: 0;
}

unsigned io_mirror_primary(struct io_engine *e)
{
	return e->ops == &mirror_ops ? TP_CONTAINER_OF(e, struct io_mirror, e)->primary : 0;
}


void io_mirror_set_keep_bad_legs(int keep)
{
	keep_bad_legs = keep;
}

void io_mirror_take_out(struct io_engine *e, unsigned leg, int err)
{
	struct io_mirror *m = TP_CONTAINER_OF(e, struct io_mirror, e);

	if (keep_bad_legs || e->ops != &mirror_ops || leg > 1)
		return;
	if (!(m->in_use & (1u << leg)) && err)
		m->err[leg] = err;	/* out already (missing): now why is known */
	else if (m->in_use & ~(1u << leg))
		mir_drop(m, leg, err);
}

int io_mirror_readmit(struct io_engine *e, unsigned leg)
{
	struct io_mirror *m;

	if (e->ops != &mirror_ops || leg > 1)
		return -EINVAL;
	m = TP_CONTAINER_OF(e, struct io_mirror, e);
	if (!m->leg[leg] || m->leg[leg]->size < m->e.size)
		return -ENODEV;
	pthread_mutex_lock(&m->lock);
	m->in_use |= 1u << leg;
	m->err[leg] = 0;
	memset(&m->bad[leg], 0, sizeof(m->bad[leg]));
	m->nr_seen[leg] = 0;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* ---- copies ---- */

/* The mirror under E (through windows and other wrappers: io_ops.under), with *OFF
 * turned into its offset there; NULL when there is none. */
static struct io_mirror *mirror_under(struct io_engine *e, uint64_t *off)
{
	for (;;) {
		if (e->ops == &mirror_ops)
			return TP_CONTAINER_OF(e, struct io_mirror, e);
		if (!e->ops->under)
			return NULL;
		e = e->ops->under(e, off);
	}
}

unsigned io_copies(struct io_engine *e)
{
	uint64_t off = 0;
	return mirror_under(e, &off) ? 2 : 1;
}

unsigned io_copy_first(struct io_engine *e)
{
	uint64_t off = 0;
	struct io_mirror *m = mirror_under(e, &off);
	return m ? m->primary : 0;
}

int io_copy_in_use(struct io_engine *e, unsigned k)
{
	uint64_t off = 0;
	struct io_mirror *m = mirror_under(e, &off);

	if (!m)
		return k == 0;
	return k < 2 && (m->in_use & (1u << k));
}

int io_read_copy(struct io_engine *e, unsigned k, uint64_t off, void *buf, size_t len)
{
	uint64_t at = off;
	struct io_mirror *m;
	int r = bounds(e, off, len);

	if (r)
		return r;
	if (!(m = mirror_under(e, &at)))
		return k ? -ENODEV : io_read(e, off, buf, len);
	if (k > 1 || !(m->in_use & (1u << k)))
		return -ENODEV;
	return io_read(m->leg[k], at, buf, len);
}

int io_write_copy(struct io_engine *e, unsigned k, uint64_t off, const void *buf, size_t len)
{
	uint64_t at = off;
	struct io_mirror *m;
	int r;

	if (e->read_only || all_writes_failed)
		return -EROFS;
	if ((r = bounds(e, off, len)))
		return r;
	if (!(m = mirror_under(e, &at)))
		return k ? -ENODEV : io_write(e, off, buf, len);
	if (k > 1 || !(m->in_use & (1u << k)))
		return -ENODEV;
	if (!(r = io_write(m->leg[k], at, buf, len)))
		r = io_flush(m->leg[k]);
	if (r && r != -EROFS) {
		pthread_mutex_lock(&m->lock);
		mir_drop(m, k, r);	/* a leg that fails a write is not trusted again */
		pthread_mutex_unlock(&m->lock);
	}
	return r;
}

void io_mirror_bad(struct io_engine *e, unsigned leg, struct io_mirror_bad *out)
{
	uint64_t off = 0;
	struct io_mirror *m = mirror_under(e, &off);

	memset(out, 0, sizeof(*out));
	if (!m || leg > 1)
		return;
	pthread_mutex_lock(&m->lock);
	*out = m->bad[leg];
	pthread_mutex_unlock(&m->lock);
}

/* Count block AT of leg K as bad there; with HEAL keep GOOD (LEN bytes)
 * to rewrite it at the next flush. */
static void note_bad(struct io_mirror *m, unsigned k, uint64_t at, const void *good, size_t len,
		     int heal, int unreadable)
{
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->nr_seen[k]; i++)
		if (m->seen[k][i] == at)
			goto counted;	/* read again: one bad block */
	if (m->nr_seen[k] < MIR_HEAL_MAX) {
		uint64_t *v = realloc(m->seen[k], (m->nr_seen[k] + 1) * sizeof(*v));
		if (v) {
			m->seen[k] = v;
			v[m->nr_seen[k]++] = at;
		}
	}
	if (!m->bad[k].bad)
		m->bad[k].first_off = at;
	m->bad[k].bad++;
	m->bad[k].unreadable += unreadable != 0;
counted:
	for (size_t i = 0; heal && i < m->nr_heal; i++)
		if (m->heal[i].leg == k && m->heal[i].at == at)
			heal = 0;	/* kept already */
	if (heal && m->nr_heal < MIR_HEAL_MAX) {
		struct mir_heal *h = realloc(m->heal, (m->nr_heal + 1) * sizeof(*h));
		unsigned char *d = malloc(len);

		if (h)
			m->heal = h;
		if (h && d) {
			memcpy(d, good, len);
			m->heal[m->nr_heal++] = (struct mir_heal){ k, at, len, d };
		} else {
			free(d);
		}
	}
	pthread_mutex_unlock(&m->lock);
}

int io_read_valid(struct io_engine *e, uint64_t off, void *buf, size_t nb, size_t bs,
		  int (*valid)(const void *blk, uint64_t idx, void *ctx), void *ctx,
		  unsigned flags)
{
	uint64_t at = off;
	struct io_mirror *m = mirror_under(e, &at);
	unsigned char *alt = NULL;
	size_t from = 0;	/* ALT holds blocks FROM.. of the other leg */
	unsigned first, other;
	int r = io_read(e, off, buf, nb * bs), tried = 0, alt_whole = 0;

	if (r || !m || !bs || keep_bad_legs)	/* (the seam: no copy is checked) */
		return r;
	first = m->primary;	/* after the read: the leg that served it */
	other = 1 - first;
	for (size_t i = 0; i < nb; i++) {
		unsigned char *blk = (unsigned char *)buf + i * bs;
		uint64_t idx = off / bs + i;

		if (valid(blk, idx, ctx))
			continue;
		if (!(m->in_use & (1u << other)))
			break;	/* one leg: the caller's check reports the damage */
		if (!tried) {
			/* the other leg's copy of the rest of the run, in one read
			 * (one that fails is read block by block below) */
			tried = 1;
			from = i;
			if (posix_memalign((void **)&alt, 4096, (nb - i) * bs))
				alt = NULL;
			else if (io_read(m->leg[other], at + i * bs, alt, (nb - i) * bs))
				alt_whole = 0;
			else
				alt_whole = 1;
		}
		if (alt && !alt_whole &&
		    io_read(m->leg[other], at + i * bs, alt + (i - from) * bs, bs))
			continue;	/* unreadable there too */
		if (!alt || !valid(alt + (i - from) * bs, idx, ctx))
			continue;	/* no copy validates: damage, not a bad leg */
		memcpy(blk, alt + (i - from) * bs, bs);
		note_bad(m, first, at + i * bs, blk, bs, (flags & IO_HEAL) && !e->read_only, 0);
	}
	free(alt);
	return 0;
}

void io_mirror_carry(struct io_engine *to, struct io_engine *from)
{
	uint64_t a = 0, b = 0;
	struct io_mirror *t = mirror_under(to, &a), *f = mirror_under(from, &b);

	if (!t || !f || t == f)
		return;
	pthread_mutex_lock(&f->lock);
	for (unsigned i = 0; i < 2; i++) {
		/* the blocks F counted, each once (T may have seen some) */
		for (size_t k = 0; k < f->nr_seen[i]; k++)
			note_bad(t, i, f->seen[i][k], NULL, 0, 0, 0);
		pthread_mutex_lock(&t->lock);
		t->bad[i].healed += f->bad[i].healed;
		t->bad[i].unreadable = TP_MIN(t->bad[i].bad, t->bad[i].unreadable + f->bad[i].unreadable);
		pthread_mutex_unlock(&t->lock);
		f->nr_seen[i] = 0;
	}
	for (size_t i = 0; i < f->nr_heal; i++)
		free(f->heal[i].data);
	f->nr_heal = 0;	/* the legs are reopened: the next read finds them again */
	memset(f->bad, 0, sizeof(f->bad));
	pthread_mutex_unlock(&f->lock);
}

void io_mirror_bad_clear(struct io_engine *e)
{
	uint64_t off = 0;
	struct io_mirror *m = mirror_under(e, &off);

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	memset(m->bad, 0, sizeof(m->bad));
	m->nr_seen[0] = m->nr_seen[1] = 0;
	for (size_t i = 0; i < m->nr_heal; i++)	/* the scrub rewrote them, or says */
		free(m->heal[i].data);
	m->nr_heal = 0;
	pthread_mutex_unlock(&m->lock);
}
