/* xml_scan.c - the strict scanner of thin_dump's XML layout. See
 * xml_scan.h; the rules themselves are xml_parse_int.h's.
 *
 * The text is read in chunks into a buffer followed by zero bytes; a zero
 * stops every loop below (it is never valid here), so one element is
 * scanned without bounds checks once a '>' shows it is in the buffer. */
#include "metadata/thin/xml_scan.h"
#include "metadata/thin/xml_parse_int.h"

#include <errno.h>
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
	char *buf;
	size_t len, pos;	/* text in buf[0, len), scanned up to pos */
	int eof;
	struct parser p;
};

static int is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* Keep buf[pos, len), append more text. 0, BAD (an element longer than
 * the buffer) or -errno. */
static int refill(struct scan *s)
{
	size_t room;
	ssize_t n;

	memmove(s->buf, s->buf + s->pos, s->len - s->pos);
	s->len -= s->pos;
	s->pos = 0;
	room = BUF_SIZE - s->len;
	if (!room)
		return BAD;
	if (s->mem) {
		n = (ssize_t)(s->mem_left < room ? s->mem_left : room);
		memcpy(s->buf + s->len, s->mem, (size_t)n);
		s->mem += n;
		s->mem_left -= (size_t)n;
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

/* Attribute NAME written at Q, followed by '='? */
static int name_at(const char *q, const char *name, size_t *n)
{
	size_t len = strlen(name);

	if (memcmp(q, name, len) || q[len] != '=')
		return 0;
	*n = len;
	return 1;
}

/* The attributes of element E from Q into VALS (defaults first); returns
 * the position after the tag's '>' with *CLOSED set for "/>", or NULL. */
static const char *scan_attrs(const char *q, const struct elem_spec *es, uint64_t *vals,
			      int *closed)
{
	unsigned seen = 0;
	size_t next = 0;

	memcpy(vals, es->defaults, sizeof(es->defaults));
	for (;;) {
		const struct attr_spec *a;
		size_t i = next, n;
		int spaced = is_space(*q);

		while (is_space(*q))
			q++;
		if (*q == '>' || *q == '/')
			break;
		if (!spaced)
			return NULL;
		if (i >= es->n || !name_at(q, es->attrs[i].name, &n))
			for (i = 0; i < es->n && !name_at(q, es->attrs[i].name, &n); i++)
				;
		if (i == es->n || (seen & (1u << i)) || q[n + 1] != '"')
			return NULL;
		seen |= 1u << i;
		next = i + 1;
		q += n + 2;
		a = &es->attrs[i];
		if (a->max == ATTR_STRING) {
			for (; *q != '"'; q++)
				if (*q < 0x20 || *q > 0x7e || *q == '<' || *q == '&')
					return NULL;
		} else {
			const char *d = q;
			uint64_t v = 0;
			unsigned c;

			for (; (c = (unsigned)(*q - '0')) <= 9; q++) {
				if (v > (UINT64_MAX - c) / 10)
					return NULL;
				v = v * 10 + c;
			}
			if (q == d || *q != '"' || v > a->max)
				return NULL;
			vals[i] = v;
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

/* The element whose '<' is at C: the position after it, or NULL. */
static const char *scan_element(struct parser *p, const char *c)
{
	static const char *const closer[] = {
		[IN_SUPERBLOCK] = "superblock", [IN_DEVICE] = "device", [IN_DEF] = "def",
	};
	uint64_t vals[XML_MAX_ATTRS];
	const struct elem_spec *es;
	int e, closed;
	size_t n;

	if (*++c == '/') {
		const char *name;

		if (p->where != IN_SUPERBLOCK && p->where != IN_DEVICE && p->where != IN_DEF)
			return NULL;
		name = closer[p->where];
		n = strlen(name);
		if (memcmp(c + 1, name, n) || c[1 + n] != '>')
			return NULL;
		xml_elem_end(p);
		return c + 2 + n;
	}
	for (e = 0; e < XML_NR_ELEMS; e++) {
		n = strlen(xml_elems[e].name);
		if (!memcmp(c, xml_elems[e].name, n) &&
		    (is_space(c[n]) || c[n] == '/' || c[n] == '>'))
			break;
	}
	if (e == XML_NR_ELEMS)
		return NULL;
	es = &xml_elems[e];
	c = scan_attrs(c + n, es, vals, &closed);
	if (!c || (!closed && (e == XML_SINGLE || e == XML_RANGE || e == XML_REF)))
		return NULL;
	xml_elem_start(p, (enum xml_elem)e, vals);
	if (closed && !p->rc)
		xml_elem_end(p);
	return p->rc ? NULL : c;
}

static int scan_all(struct scan *s)
{
	int r = refill(s);

	if (r || s->buf[0] != '<' || memcmp(s->buf, "<superblock", 11))
		return r < 0 ? r : BAD;
	for (;;) {
		const char *c = s->buf + s->pos, *end;

		while (is_space(*c))
			c++;
		s->pos = (size_t)(c - s->buf);
		if (s->pos == s->len || !memchr(c, '>', s->len - s->pos)) {
			if (s->eof)
				break;
			if ((r = refill(s)))
				return r;
			continue;
		}
		if (*c != '<' || !(end = scan_element(&s->p, c)))
			return s->p.visitor_failed ? s->p.rc : BAD;
		s->pos = (size_t)(end - s->buf);
	}
	if (s->pos != s->len || s->p.where != AT_END)
		return BAD;
	r = xml_state_finish(&s->p);
	return r && !s->p.visitor_failed ? BAD : r;
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
	struct scan *s = malloc(sizeof(*s));

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
