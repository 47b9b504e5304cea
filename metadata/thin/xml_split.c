/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_split.c - the strict scanner on a large file in two halves, one per
 * thread (thin_xml_scan_split in xml_scan.h). The halves meet at the
 * device tag nearest the middle: the first must end between devices, the
 * second reads the superblock's tag and what precedes the first device
 * (the <def>s a 1.x dump writes there, for its <ref>s) and goes on from
 * the middle; they are joined only when both are valid and the second's
 * first device follows the first's last. */
#include "metadata/thin/xml_scan.h"
#include "metadata/thin/xml_scan_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPLIT_WINDOW (1u << 20)
#define TAG "<device"
#define TAG_LEN 7

static int is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* The offset in FD of the first (or LAST) device tag among the SPLIT_WINDOW
 * + TAG_LEN bytes at FROM (a tag is '<' after white space), or 0. W is
 * room for them and a zero. */
static uint64_t tag_in(int fd, char *w, uint64_t from, int last)
{
	uint64_t at = 0;
	ssize_t n = pread(fd, w, SPLIT_WINDOW + TAG_LEN, (off_t)from);
	const char *c;

	if (n <= 0)
		return 0;
	w[n] = '\0';
	for (c = w; (c = memmem(c, (size_t)n - (size_t)(c - w), TAG, TAG_LEN)); c++)
		if (c > w && is_space(c[-1]) && is_space(c[TAG_LEN])) {
			at = from + (uint64_t)(c - w);
			if (!last)
				break;
		}
	return at;
}

/* The device tag nearest the middle of a file of SIZE bytes, within its
 * middle half, or 0; *FIRST: the first device tag (0 if none before the
 * split). The second half reads [0, *FIRST) too, so the middle is that of
 * the rest. */
static uint64_t find_split(int fd, uint64_t size, uint64_t *first)
{
	uint64_t mid, at = 0;
	char *w = malloc(SPLIT_WINDOW + TAG_LEN + 1);

	*first = 0;
	for (uint64_t from = 0; w && !*first && from < size / 2; from += SPLIT_WINDOW)
		*first = tag_in(fd, w, from, 0);
	mid = *first + (size - *first) / 2;
	for (uint64_t d = 0; w && *first && !at && d < size / 4; d += SPLIT_WINDOW) {
		at = tag_in(fd, w, mid + d, 0);
		if (!at && mid >= d + SPLIT_WINDOW)
			at = tag_in(fd, w, mid - d - SPLIT_WINDOW, 1);
	}
	free(w);
	return at < size && *first && *first < at ? at : 0;
}

struct half {
	struct scan s;
	struct thin_xml_error err;
	uint64_t split, first, size;
	int rc;
	int *stop;
};

/* The first half: [0, split) must leave the superblock open between
 * devices. */
static int scan_first(struct scan *s)
{
	int r = xml_scan_head(s);

	if (!r)
		r = xml_scan_loop(s);
	return r ? r : s->p.where == IN_SUPERBLOCK ? 0 : BAD;
}

/* The second half: the superblock's start tag and the defs up to the first
 * device tag at FIRST, then [split, size) with no more defs. */
static int scan_second(struct scan *s, uint64_t split, uint64_t first, uint64_t size)
{
	const char *end;
	int r;

	s->end = first;
	if ((r = xml_scan_head(s)))
		return r;
	if (!(end = xml_scan_element(s, s->buf)) || s->p.where != IN_SUPERBLOCK)
		return s->p.visitor_failed ? s->p.rc : BAD;
	s->pos = (size_t)(end - s->buf);
	if ((r = xml_scan_loop(s)))
		return r;
	if (s->p.where != IN_SUPERBLOCK || s->p.have_dev)
		return BAD;
	s->tail = 1;
	s->end = size;
	s->off = split;
	s->len = s->pos = 0;
	s->eof = 0;
	if ((r = xml_scan_refill(s)))
		return r;
	r = xml_scan_loop(s);
	return r ? r : s->p.where == AT_END ? 0 : BAD;
}

static void *second_main(void *arg)
{
	struct half *h = arg;

	h->rc = scan_second(&h->s, h->split, h->first, h->size);
	if (h->rc)
		__atomic_store_n(h->stop, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Set up H to read [0, end) of FD for V. */
static int half_init(struct half *h, int fd, uint64_t end, int *stop,
		     const struct thin_ir_visitor *v)
{
	memset(h, 0, sizeof(*h));
	h->s.fd = fd;
	h->s.end = end;
	h->s.stop = stop;
	h->stop = stop;
	xml_state_init(&h->s.p, NULL, v, &h->err);
	h->s.buf = malloc(BUF_SIZE + PAD);
	return h->s.buf ? 0 : -ENOMEM;
}

static void half_destroy(struct half *h)
{
	xml_state_destroy(&h->s.p);
	free(h->s.buf);
}

/* Both halves scanned: does the whole hold together? Then finish both. */
static int join(struct half *a, struct half *b)
{
	int r;

	if (a->rc || b->rc)
		return a->rc < 0 ? a->rc : b->rc < 0 ? b->rc : BAD;
	if (a->s.p.have_dev && b->s.p.have_dev && b->s.p.first_dev_id <= a->s.p.last_dev_id)
		return BAD;
	a->s.p.where = AT_END;
	r = xml_scan_finish(&b->s);
	return r ? r : xml_scan_finish(&a->s);
}

int thin_xml_scan_split(int fd, uint64_t size, const struct thin_ir_visitor *v0,
			const struct thin_ir_visitor *v1, struct thin_xml_error *err)
{
	struct half *h = calloc(2, sizeof(*h));
	uint64_t first, split = find_split(fd, size, &first);
	int stop = 0, r;
	pthread_t t;

	memset(err, 0, sizeof(*err));
	if (!h || !split) {
		free(h);
		return BAD;
	}
	r = half_init(&h[0], fd, split, &stop, v0);
	if (!r)
		r = half_init(&h[1], fd, size, &stop, v1);
	h[1].split = split;
	h[1].first = first;
	h[1].size = size;
	if (!r && (r = -pthread_create(&t, NULL, second_main, &h[1])))
		r = BAD;	/* no thread: one scan will do */
	if (!r) {
		h[0].rc = scan_first(&h[0].s);
		if (h[0].rc)
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		pthread_join(t, NULL);
		r = join(&h[0], &h[1]);
	}
	if (r < 0) {
		*err = h[1].s.p.visitor_failed || h[1].rc < 0 ? h[1].err : h[0].err;
		if (!err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "%s", strerror(-r));
	}
	half_destroy(&h[0]);
	half_destroy(&h[1]);
	free(h);
	return r;
}
