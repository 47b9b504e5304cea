/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_out.c - buffered text output for the emitters. See xml_out.h. */
#include "metadata/thin/xml_out.h"
#include "lib/base/fileio.h"

#include <errno.h>
#include <stdlib.h>

#define XML_OUT_CAP (1u << 20)

int xml_out_init(struct xml_out *o, int fd)
{
	o->len = 0;
	o->cap = XML_OUT_CAP;
	o->fd = fd;
	o->err = 0;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

void xml_out_release(struct xml_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

int xml_out_flush(struct xml_out *o)
{
	if (o->err || o->fd < 0)
		return o->err;
	if ((o->err = tp_write_all(o->fd, o->buf, o->len)))
		return o->err;
	o->len = 0;
	return 0;
}

int xml_out_reserve(struct xml_out *o, size_t n)
{
	char *p;
	size_t cap;

	if (o->err)
		return o->err;
	if (o->cap - o->len >= n)
		return 0;
	if (o->fd >= 0) {
		if (xml_out_flush(o))
			return o->err;
		if (o->cap >= n)
			return 0;
	}
	cap = o->cap;
	while (cap - o->len < n)
		cap *= 2;
	p = realloc(o->buf, cap);
	if (!p)
		return o->err = -ENOMEM;
	o->buf = p;
	o->cap = cap;
	return 0;
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void xml_out_u64(struct xml_out *o, uint64_t v)
{
	char tmp[XML_OUT_U64_MAX];
	char *p = tmp + sizeof(tmp);

	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;

		v /= 100;
		p -= 2;
		p[0] = digit_pairs[i];
		p[1] = digit_pairs[i + 1];
	}
	if (v >= 10) {
		p -= 2;
		p[0] = digit_pairs[v * 2];
		p[1] = digit_pairs[v * 2 + 1];
	} else {
		*--p = (char)('0' + v);
	}
	xml_out_mem(o, p, (size_t)(tmp + sizeof(tmp) - p));
}
