/* SPDX-License-Identifier: GPL-2.0-or-later */
/* delta_xml.c - thin_delta 0.9.0's XML from the delta walker. See
 * delta_xml.h. */
#include "metadata/thin/delta_xml.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/log.h"
#include "metadata/thin/delta.h"

struct run {
	uint64_t v, d, len;
};

struct runs {
	struct run *r;
	size_t n, cap;
};

struct collect {
	struct thin_ir_superblock sb;
	struct runs side[2];
};

static int add_run(struct runs *s, uint64_t v, uint64_t d, uint64_t len)
{
	struct run *last = s->n ? &s->r[s->n - 1] : NULL;

	if (last && last->v + last->len == v && last->d + last->len == d) {
		last->len += len;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct run *n = realloc(s->r, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->r = n;
		s->cap = cap;
	}
	s->r[s->n++] = (struct run){ v, d, len };
	return 0;
}

static int on_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	((struct collect *)ctx)->sb = *sb;
	return 0;
}

static int on_range(void *ctx, const struct thin_delta_range *x)
{
	struct collect *c = ctx;
	int r = 0;

	if (x->kind != THIN_DELTA_RIGHT_ONLY)
		r = add_run(&c->side[0], x->begin, x->left_data, x->length);
	if (!r && x->kind != THIN_DELTA_LEFT_ONLY)
		r = add_run(&c->side[1], x->begin,
			    x->kind == THIN_DELTA_SAME ? x->left_data : x->right_data, x->length);
	return r;
}

/* ---- the two emitters ---- */

enum kind { NONE = -1, LEFT_ONLY, RIGHT_ONLY, DIFFERENT, SAME };

static const char *const kind_name[] = { "left_only", "right_only", "different", "same" };

struct out {
	FILE *f;
	int verbose;
	enum kind cur;
	uint64_t vbegin, vend;	/* plain: the range being merged */
};

static void plain_flush(struct out *o)
{
	if (o->cur != NONE)
		fprintf(o->f, "    <%s begin=\"%" PRIu64 "\" length=\"%" PRIu64 "\"/>\n",
			kind_name[o->cur], o->vbegin, o->vend - o->vbegin);
}

/* One piece of the merge: V, LEN; data blocks L and R as the kind has them. */
static void piece(struct out *o, enum kind k, uint64_t v, uint64_t l, uint64_t r, uint64_t len)
{
	if (!o->verbose) {
		if (o->cur == k && v == o->vend) {
			o->vend += len;
			return;
		}
		plain_flush(o);
		o->cur = k;
		o->vbegin = v;
		o->vend = v + len;
		return;
	}
	if (o->cur != k) {
		if (o->cur != NONE)
			fprintf(o->f, "    </%s>\n", kind_name[o->cur]);
		fprintf(o->f, "    <%s>\n", kind_name[k]);
		o->cur = k;
	}
	if (k == DIFFERENT)
		fprintf(o->f,
			"      <range begin=\"%" PRIu64 "\" left_data_begin=\"%" PRIu64
			"\" right_data_begin=\"%" PRIu64 "\" length=\"%" PRIu64 "\"/>\n",
			v, l, r, len);
	else
		fprintf(o->f,
			"      <range begin=\"%" PRIu64 "\" data_begin=\"%" PRIu64
			"\" length=\"%" PRIu64 "\"/>\n",
			v, k == RIGHT_ONLY ? r : l, len);
}

static void complete(struct out *o)
{
	if (!o->verbose)
		plain_flush(o);
	else if (o->cur != NONE)
		fprintf(o->f, "    </%s>\n", kind_name[o->cur]);
}

/* Consume N blocks of X; returns what is left of it. */
static uint64_t take(struct run *x, uint64_t n)
{
	x->v += n;
	x->d += n;
	x->len -= n;
	return x->len;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* thin_delta 0.9.0's merge of the two run lists: the lower run goes
 * first, as far as the other side's next run; runs starting together go
 * as far as the shorter one, SAME or DIFFERENT by their first data
 * blocks; when one side is exhausted, the other's rest is its own. */
static void merge(struct out *o, const struct runs *ls, const struct runs *rs)
{
	struct run l = ls->n ? ls->r[0] : (struct run){ 0 };
	struct run r = rs->n ? rs->r[0] : (struct run){ 0 };
	size_t li = 0, ri = 0;

	while (li < ls->n && ri < rs->n) {
		uint64_t n, lt = 0, rt = 0;
		if (l.v < r.v) {
			n = lt = min64(l.len, r.v - l.v);
			piece(o, LEFT_ONLY, l.v, l.d, 0, n);
		} else if (l.v > r.v) {
			n = rt = min64(r.len, l.v - r.v);
			piece(o, RIGHT_ONLY, r.v, 0, r.d, n);
		} else {
			n = lt = rt = min64(l.len, r.len);
			piece(o, l.d == r.d ? SAME : DIFFERENT, l.v, l.d, r.d, n);
		}
		if (lt && !take(&l, lt) && ++li < ls->n)
			l = ls->r[li];
		if (rt && !take(&r, rt) && ++ri < rs->n)
			r = rs->r[ri];
	}
	if (li < ls->n)		/* the rest of the run in hand, then the others */
		piece(o, LEFT_ONLY, l.v, l.d, 0, l.len);
	while (li < ls->n && ++li < ls->n)
		piece(o, LEFT_ONLY, ls->r[li].v, ls->r[li].d, 0, ls->r[li].len);
	if (ri < rs->n)
		piece(o, RIGHT_ONLY, r.v, 0, r.d, r.len);
	while (ri < rs->n && ++ri < rs->n)
		piece(o, RIGHT_ONLY, rs->r[ri].v, 0, rs->r[ri].d, rs->r[ri].len);
	complete(o);
}

static int print(const struct thin_delta_xml_opts *opt, const struct collect *c, int fd)
{
	struct out o = { NULL, opt->verbose, NONE, 0, 0 };
	int dfd = dup(fd), r = 0;

	if (dfd < 0 || !(o.f = fdopen(dfd, "w"))) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		log_error("writing the output: %s", strerror(-r));
		return r;
	}
	fprintf(o.f, "<superblock uuid=\"\" time=\"%" PRIu32 "\" transaction=\"%" PRIu64
		     "\" data_block_size=\"%" PRIu32 "\" nr_data_blocks=\"%" PRIu64 "\"",
		c->sb.time, c->sb.transaction, c->sb.data_block_size,
		opt->metadata_snap ? 0 : c->sb.nr_data_blocks);
	if (c->sb.metadata_snap)
		fprintf(o.f, " metadata_snap=\"%" PRIu64 "\"", c->sb.metadata_snap);
	fprintf(o.f, ">\n  <diff left=\"%" PRIu64 "\" right=\"%" PRIu64 "\">\n", opt->left,
		opt->right);
	merge(&o, &c->side[0], &c->side[1]);
	fputs("  </diff>\n</superblock>\n", o.f);
	if (ferror(o.f))
		r = -EIO;
	if (fclose(o.f) && !r)
		r = -errno;
	if (r)
		log_error("writing the output: %s", strerror(-r));
	return r;
}

int thin_delta_xml(struct io_engine *meta, const struct thin_delta_xml_opts *o, int fd)
{
	struct collect c = { 0 };
	struct thin_delta_visitor v = { &c, on_sb, on_range };
	int r = thin_delta_io(meta, o->metadata_snap ? THIN_DELTA_METADATA_SNAP : 0,
			      o->metadata_snap_block, o->left, o->right, &v, NULL);

	if (!r)
		r = print(o, &c, fd);
	free(c.side[0].r);
	free(c.side[1].r);
	return r;
}
