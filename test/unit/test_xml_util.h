/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_xml_util.h - for the XML reader tests: what a reader makes of a
 * text, as the XML emitter prints it. Header-only (static functions). */
#ifndef TP_TEST_XML_UTIL_H
#define TP_TEST_XML_UTIL_H

#include "metadata/thin/xml_emit.h"
#include "metadata/thin/xml_parse.h"

#include <stdlib.h>
#include <string.h>

typedef int (*xml_reader_fn)(const char *buf, size_t len, const struct thin_ir_visitor *v,
			     struct thin_xml_error *err);

/* Feed TEXT through READ into a fresh XML emitter; *RC is READ's return,
 * ERR its error. Returns the emitted text (malloc'd) or NULL. */
static inline char *xml_reemit(xml_reader_fn read, const char *text, size_t len, int *rc,
			       struct thin_xml_error *err)
{
	struct thin_emitter *e;
	struct thin_ir_visitor v;
	const char *out;
	char *copy;
	size_t n;

	if (thin_emitter_create(THIN_EMIT_XML, -1, &e))
		return NULL;
	thin_emitter_visitor(e, &v);
	*rc = read(text, len, &v, err);
	out = thin_emitter_text(e, &n);
	copy = malloc(n + 1);
	if (copy) {
		memcpy(copy, out, n);
		copy[n] = '\0';
	}
	thin_emitter_destroy(e);
	return copy;
}

#endif
