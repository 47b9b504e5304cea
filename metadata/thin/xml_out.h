/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_out.h - the output buffer behind the text emitters (XML, human).
 *
 * Owns: one large buffer, flushed with write(2) to a file descriptor when
 * full, or grown without limit when there is no descriptor (memory mode,
 * for tests and callers that want a string). Decimal formatting of
 * integers is hand-rolled: the emitters print tens of millions of numbers.
 *
 * Functions return 0 or -errno; the first write error sticks in ERR and is
 * returned by every later call. Callers reserve room, then append with the
 * inline helpers, which never check space themselves. */
#ifndef TP_THIN_XML_OUT_H
#define TP_THIN_XML_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/base/compiler.h"

struct xml_out {
	char *buf;
	size_t len;	/* bytes waiting in buf */
	size_t cap;
	int fd;		/* < 0: memory mode */
	int err;	/* first error, sticky */
};

/* FD >= 0: flush to it; FD < 0: keep everything in memory. */
int xml_out_init(struct xml_out *o, int fd) TP_MUST_CHECK;
void xml_out_release(struct xml_out *o);
/* Make room for N more bytes (flushing or growing). */
int xml_out_reserve(struct xml_out *o, size_t n) TP_MUST_CHECK;
/* Write everything buffered to the descriptor (no-op in memory mode). */
int xml_out_flush(struct xml_out *o) TP_MUST_CHECK;

/* Longest decimal uint64_t. */
#define XML_OUT_U64_MAX 20

static inline void xml_out_mem(struct xml_out *o, const char *s, size_t n)
{
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* Append a string literal. */
#define xml_out_lit(o, s) xml_out_mem((o), (s), sizeof(s) - 1)

void xml_out_u64(struct xml_out *o, uint64_t v);

#endif
