/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_scan.c - the strict scanner of thin_dump's XML layout. See
 * xml_scan.h; the rules themselves are xml_parse_int.h's.
 *
 * The text is read in chunks into a buffer followed by zero bytes; a zero
 * stops every loop below (it is never valid here), so an element is
 * scanned without bounds checks while AHEAD bytes or the rest of the
 * input are in the buffer. A large file can be scanned in two halves,
 * one per thread (xml_split.c). */
#include "metadata/thin/xml_scan.h"
#include "metadata/thin/xml_parse_int.h"
#include "metadata/thin/xml_scan_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
int xml_scan_refill(struct scan *s)
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

/* The same for the range mappings of a 1.x dump. */
static const char *scan_range(const char *c, uint64_t *vals)
{
#define SKIP(q, lit) ((q) + sizeof(lit) - 1)
	if (!AT(c, "range_mapping origin_begin=\"") ||
	    !(c = scan_u64(SKIP(c, "range_mapping origin_begin=\""), &vals[0])) ||
	    !AT(c, "\" data_begin=\"") ||
	    !(c = scan_u64(SKIP(c, "\" data_begin=\""), &vals[1])) || !AT(c, "\" length=\"") ||
	    !(c = scan_u64(SKIP(c, "\" length=\""), &vals[2])) || !AT(c, "\" time=\"") ||
	    !(c = scan_u64(SKIP(c, "\" time=\""), &vals[3])) || !AT(c, "\"/>") ||
	    vals[3] > xml_elems[XML_RANGE].attrs[3].max)
		return NULL;
#undef SKIP
	return c + 3;
}

/* The element whose '<' is at C: the position after it, or NULL. */
const char *xml_scan_element(struct scan *s, const char *c)
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
	if (*c == 'r' && (end = scan_range(c, vals))) {
		xml_elem_start(p, XML_RANGE, vals);
		if (!p->rc)
			xml_elem_end(p);
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
	if (e == XML_NR_ELEMS || (s->tail && e == XML_DEF))
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
int xml_scan_loop(struct scan *s)
{
	for (;;) {
		const char *c = s->buf + s->pos, *end;
		int r;

		while (is_space(*c))
			c++;
		s->pos = (size_t)(c - s->buf);
		if (s->len - s->pos < AHEAD && !s->eof) {
			if ((r = xml_scan_refill(s)))
				return r;
			continue;
		}
		if (s->pos == s->len)
			return 0;
		if (*c != '<' || !(end = xml_scan_element(s, c)) || end > s->buf + s->len)
			return s->p.visitor_failed ? s->p.rc : BAD;
		s->pos = (size_t)(end - s->buf);
	}
}

/* The document's first bytes into the buffer: 0 when they start it as
 * thin_dump does, BAD or -errno. */
int xml_scan_head(struct scan *s)
{
	int r = xml_scan_refill(s);

	if (r || memcmp(s->buf, "<superblock", 11))
		return r < 0 ? r : BAD;
	return 0;
}

/* After the whole document: 0 with superblock_end called, BAD or -errno. */
int xml_scan_finish(struct scan *s)
{
	int r;

	if (s->p.where != AT_END)
		return BAD;
	r = xml_state_finish(&s->p);
	return r && !s->p.visitor_failed ? BAD : r;
}

static int scan_all(struct scan *s)
{
	int r = xml_scan_head(s);

	if (!r)
		r = xml_scan_loop(s);
	return r ? r : xml_scan_finish(s);
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
