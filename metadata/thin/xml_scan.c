/* xml_scan.c - the strict scanner of thin_dump's XML layout. See
 * xml_scan.h; the rules themselves are xml_parse_int.h's.
 *
 * The text is read in chunks into a buffer followed by zero bytes; a zero
 * stops every loop below (it is never valid here), so an element is
 * scanned without bounds checks while AHEAD bytes or the rest of the
 * input are in the buffer. A large file can be scanned in two halves,
 * one per thread (thin_xml_scan_split). */
#include "metadata/thin/xml_scan.h"
#include "metadata/thin/xml_parse_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_SIZE (1u << 20)
#define PAD 64			/* zeros after the text: longer than any name */
#define BAD 1			/* not the strict layout: start over with expat */

struct scan {
	int fd;
	const char *mem;	/* reading from mem, not fd */
	size_t mem_left;
	uint64_t off, end;	/* end != 0: pread [off, end) of fd */
	const int *stop;	/* set by the other half: give up */
	int tail;		/* the second half: no <def> or <ref> */
	char *buf;
	size_t len, pos;	/* text in buf[0, len), scanned up to pos */
	int eof;
	struct parser p;
};

#define AHEAD 4096		/* text kept in the buffer ahead of the scan */

/* XML white space. */
static const unsigned char space[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };

static int is_space(char c)
{
	return space[(unsigned char)c];
}

/* Does the text at Q start with literal LIT? */
#define AT(q, lit) (!memcmp((q), (lit), sizeof(lit) - 1))

/* Keep buf[pos, len), append more text. 0, BAD (told to stop) or
 * -errno. */
static int refill(struct scan *s)
{
	size_t room;
	ssize_t n;

	memmove(s->buf, s->buf + s->pos, s->len - s->pos);
	s->len -= s->pos;
	s->pos = 0;
	room = BUF_SIZE - s->len;
	if (s->stop && __atomic_load_n(s->stop, __ATOMIC_RELAXED))
		return BAD;
	if (s->mem) {
		n = (ssize_t)(s->mem_left < room ? s->mem_left : room);
		memcpy(s->buf + s->len, s->mem, (size_t)n);
		s->mem += n;
		s->mem_left -= (size_t)n;
	} else if (s->end) {
		if (room > s->end - s->off)
			room = (size_t)(s->end - s->off);
		do
			n = pread(s->fd, s->buf + s->len, room, (off_t)s->off);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		s->off += (uint64_t)n;
	} else {
		do
			n = read(s->fd, s->buf + s->len, room);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
	}
	s->eof = n == 0;
	s->len += (size_t)n;
	memset(s->buf + s->len, 0, PAD);
	return 0;
}

/* Plain decimal at Q up to a '"', one digit at a time. */
static const char *scan_u64_slow(const char *q, uint64_t *out)
{
	const char *d = q;
	uint64_t v = 0;
	unsigned c;

	/* 19 digits cannot overflow */
	while ((c = (unsigned)(unsigned char)*q - '0') <= 9 && q - d < 19) {
		v = v * 10 + c;
		q++;
	}
	if (c <= 9) {
		if (v > (UINT64_MAX - c) / 10)
			return NULL;
		v = v * 10 + c;
		q++;
	}
	if (q == d || *q != '"')
		return NULL;
	*out = v;
	return q;
}

#define ONES 0x0101010101010101ull

/* Plain decimal at Q up to a '"': its end (at the '"'), or NULL when not
 * digits or above 2^64 - 1. Numbers of 1 to 7 digits are read 8 bytes at
 * once (the buffer's zeros make the 8 bytes readable): the leading digits
 * are found by their nibbles and converted by multiply-and-shift. */
static const char *scan_u64(const char *q, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t raw, other, v;
	unsigned n;

	memcpy(&raw, q, 8);
	/* a byte is a digit when it and it + 6 both have high nibble 3 (a
	 * carry out of a byte only reaches bytes after a non-digit) */
	other = ((raw & 0xf0 * ONES) ^ 0x30 * ONES) | (((raw + 6 * ONES) & 0xf0 * ONES) ^ 0x30 * ONES);
	if (!other)
		return scan_u64_slow(q, out);
	n = (unsigned)__builtin_ctzll(other) / 8;
	if (!n || q[n] != '"')
		return NULL;
	/* the n digits to the top bytes, zeros (leading zero digits) below */
	v = ((raw & 0x0f * ONES) << (8 * (8 - n)));
	v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffull;
	v = (v * (1 + (100ull << 16))) >> 16 & 0x0000ffff0000ffffull;
	v = (v * (1 + (10000ull << 32))) >> 32;
	*out = v;
	return q + n;
#else
	return scan_u64_slow(q, out);
#endif
}

/* Is attribute A's name at Q, followed by '="'? */
static int name_at(const char *q, const struct attr_spec *a)
{
	return !memcmp(q, a->name, a->len) && q[a->len] == '=' && q[a->len + 1] == '"';
}

/* The attributes of element ES from Q into VALS (defaults first); returns
 * the position after the tag's '>' with *CLOSED set for "/>", or NULL. */
static const char *scan_attrs(const char *q, const struct elem_spec *es, uint64_t *vals,
			      int *closed)
{
	unsigned seen = 0;
	size_t next = 0;

	memcpy(vals, es->defaults, sizeof(es->defaults));
	for (;;) {
		const struct attr_spec *a;
		size_t i = next;
		int spaced = is_space(*q);

		while (is_space(*q))
			q++;
		if (*q == '>' || *q == '/')
			break;
		if (!spaced)
			return NULL;
		if (i >= es->n || !name_at(q, &es->attrs[i]))
			for (i = 0; i < es->n && !name_at(q, &es->attrs[i]); i++)
				;
		if (i == es->n || (seen & (1u << i)))
			return NULL;
		seen |= 1u << i;
		next = i + 1;
		a = &es->attrs[i];
		q += a->len + 2;
		if (a->max == ATTR_STRING) {
			for (; *q != '"'; q++)
				if (*q < 0x20 || *q > 0x7e || *q == '<' || *q == '&')
					return NULL;
		} else if (!(q = scan_u64(q, &vals[i])) || vals[i] > a->max) {
			return NULL;
		}
		q++;
	}
	*closed = *q == '/';
	if (*closed && *++q != '>')
		return NULL;
	for (size_t i = 0; i < es->n; i++)
		if (es->attrs[i].required && !(seen & (1u << i)))
			return NULL;
	return q + 1;
}

/* The layout of nearly every element of a large dump, at C (after '<'):
 * the position after it, with VALS filled, or NULL to read it the
 * general way. */
static const char *scan_single(const char *c, uint64_t *vals)
{
	if (!AT(c, "single_mapping origin_block=\"") ||
	    !(c = scan_u64(c + 29, &vals[0])) || !AT(c, "\" data_block=\"") ||
	    !(c = scan_u64(c + 14, &vals[1])) || !AT(c, "\" time=\"") ||
	    !(c = scan_u64(c + 8, &vals[2])) || !AT(c, "\"/>") ||
	    vals[2] > xml_elems[XML_SINGLE].attrs[2].max)
		return NULL;
	return c + 3;
}

/* The element whose '<' is at C: the position after it, or NULL. */
static const char *scan_element(struct scan *s, const char *c)
{
	struct parser *p = &s->p;
	static const struct {
		const char *name;
		size_t len;
	} closer[] = {
		[IN_SUPERBLOCK] = { "superblock>", 11 },
		[IN_DEVICE] = { "device>", 7 },
		[IN_DEF] = { "def>", 4 },
	};
	uint64_t vals[XML_MAX_ATTRS];
	const struct elem_spec *es;
	const char *end;
	int e, closed;

	if ((end = scan_single(++c, vals))) {
		xml_single(p, vals[0], vals[1], vals[2]);
		return p->rc ? NULL : end;
	}
	if (*c == '/') {
		if (p->where != IN_SUPERBLOCK && p->where != IN_DEVICE && p->where != IN_DEF)
			return NULL;
		if (memcmp(c + 1, closer[p->where].name, closer[p->where].len))
			return NULL;
		end = c + 1 + closer[p->where].len;
		xml_elem_end(p);
		return p->rc ? NULL : end;
	}
	for (e = 0; e < XML_NR_ELEMS; e++) {
		size_t n = xml_elems[e].len;

		if (!memcmp(c, xml_elems[e].name, n) &&
		    (is_space(c[n]) || c[n] == '/' || c[n] == '>'))
			break;
	}
	if (e == XML_NR_ELEMS || (s->tail && (e == XML_DEF || e == XML_REF)))
		return NULL;
	es = &xml_elems[e];
	end = scan_attrs(c + es->len, es, vals, &closed);
	if (!end || (!closed && (e == XML_SINGLE || e == XML_RANGE || e == XML_REF)))
		return NULL;
	xml_elem_start(p, (enum xml_elem)e, vals);
	if (closed && !p->rc)
		xml_elem_end(p);
	return p->rc ? NULL : end;
}

/* Every element is scanned with at least AHEAD bytes of text (or the
 * rest of the input) in the buffer; one that runs into the zeros after
 * the text is longer than that, or cut short: either way not taken.
 * Scans to the end of the input: 0, BAD or -errno. */
static int scan_loop(struct scan *s)
{
	for (;;) {
		const char *c = s->buf + s->pos, *end;
		int r;

		while (is_space(*c))
			c++;
		s->pos = (size_t)(c - s->buf);
		if (s->len - s->pos < AHEAD && !s->eof) {
			if ((r = refill(s)))
				return r;
			continue;
		}
		if (s->pos == s->len)
			return 0;
		if (*c != '<' || !(end = scan_element(s, c)) || end > s->buf + s->len)
			return s->p.visitor_failed ? s->p.rc : BAD;
		s->pos = (size_t)(end - s->buf);
	}
}

/* The document's first bytes into the buffer: 0 when they start it as
 * thin_dump does, BAD or -errno. */
static int scan_head(struct scan *s)
{
	int r = refill(s);

	if (r || memcmp(s->buf, "<superblock", 11))
		return r < 0 ? r : BAD;
	return 0;
}

/* After the whole document: 0 with superblock_end called, BAD or -errno. */
static int scan_finish(struct scan *s)
{
	int r;

	if (s->p.where != AT_END)
		return BAD;
	r = xml_state_finish(&s->p);
	return r && !s->p.visitor_failed ? BAD : r;
}

static int scan_all(struct scan *s)
{
	int r = scan_head(s);

	if (!r)
		r = scan_loop(s);
	return r ? r : scan_finish(s);
}

static int scan_run(struct scan *s, const struct thin_ir_visitor *v, struct thin_xml_error *err)
{
	int r;

	xml_state_init(&s->p, NULL, v, err);
	s->buf = malloc(BUF_SIZE + PAD);
	if (!s->buf) {
		xml_state_destroy(&s->p);
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	s->len = s->pos = 0;
	s->eof = 0;
	r = scan_all(s);
	if (r < 0 && !s->p.visitor_failed)
		snprintf(err->msg, sizeof(err->msg), "read: %s", strerror(-r));
	xml_state_destroy(&s->p);
	free(s->buf);
	return r;
}

/* The scan state with no buffer yet, or NULL (ERR says so). */
static struct scan *scan_new(struct thin_xml_error *err)
{
	struct scan *s = calloc(1, sizeof(*s));

	if (!s) {
		memset(err, 0, sizeof(*err));
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(ENOMEM));
	}
	return s;
}

int thin_xml_scan_fd(int fd, const struct thin_ir_visitor *v, struct thin_xml_error *err)
{
	struct scan *s = scan_new(err);
	int r;

	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->mem = NULL;
	r = scan_run(s, v, err);
	free(s);
	return r;
}

int thin_xml_scan_mem(const char *buf, size_t len, const struct thin_ir_visitor *v,
		      struct thin_xml_error *err)
{
	struct scan *s = scan_new(err);
	int r;

	if (!s)
		return -ENOMEM;
	s->fd = -1;
	s->mem = buf ? buf : "";
	s->mem_left = buf ? len : 0;
	r = scan_run(s, v, err);
	free(s);
	return r;
}

/* ---- two halves at once ---- */

#define SPLIT_WINDOW (1u << 20)
#define TAG "<device"
#define TAG_LEN 7

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
 * middle half, or 0. */
static uint64_t find_split(int fd, uint64_t size)
{
	uint64_t mid = size / 2, at = 0;
	char *w = malloc(SPLIT_WINDOW + TAG_LEN + 1);

	for (uint64_t d = 0; w && !at && d < size / 4; d += SPLIT_WINDOW) {
		at = tag_in(fd, w, mid + d, 0);
		if (!at && mid >= d + SPLIT_WINDOW)
			at = tag_in(fd, w, mid - d - SPLIT_WINDOW, 1);
	}
	free(w);
	return at < size ? at : 0;
}

struct half {
	struct scan s;
	struct thin_xml_error err;
	uint64_t split;
	int rc;
	int *stop;
};

/* The first half: [0, split) must leave the superblock open between
 * devices. */
static int scan_first(struct scan *s)
{
	int r = scan_head(s);

	if (!r)
		r = scan_loop(s);
	return r ? r : s->p.where == IN_SUPERBLOCK ? 0 : BAD;
}

/* The second half: the superblock's start tag, then [split, size). */
static int scan_second(struct scan *s, uint64_t split)
{
	const char *end;
	int r = scan_head(s);

	if (r)
		return r;
	if (!(end = scan_element(s, s->buf)) || s->p.where != IN_SUPERBLOCK)
		return s->p.visitor_failed ? s->p.rc : BAD;
	s->off = split;
	s->len = s->pos = 0;
	s->eof = 0;
	if ((r = refill(s)))
		return r;
	r = scan_loop(s);
	return r ? r : s->p.where == AT_END ? 0 : BAD;
}

static void *second_main(void *arg)
{
	struct half *h = arg;

	h->rc = scan_second(&h->s, h->split);
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
	r = scan_finish(&b->s);
	return r ? r : scan_finish(&a->s);
}

int thin_xml_scan_split(int fd, uint64_t size, const struct thin_ir_visitor *v0,
			const struct thin_ir_visitor *v1, struct thin_xml_error *err)
{
	struct half *h = calloc(2, sizeof(*h));
	uint64_t split = find_split(fd, size);
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
	h[1].s.tail = 1;
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
