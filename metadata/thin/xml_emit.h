/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_emit.h - text emitters for thin metadata: a thin_ir_visitor that
 * prints what it is driven with.
 *
 * Owns: the emitter (its output buffer and the run being merged). Formats:
 * THIN_EMIT_XML is byte-identical to thin_dump 0.9.0's XML (no XML
 * declaration, fixed attribute order, 2/4-space indentation, an empty
 * device still closes on its own line, trailing newline, no metadata_snap
 * attribute); THIN_EMIT_HUMAN follows thin_dump -f human_readable, for
 * people only.
 *
 * Mapping runs are merged before printing: consecutive origin and data
 * blocks with equal time become one range, with no length limit, across
 * any batch (leaf) boundary the driver happens to use. Runs of length 1
 * print as single mappings.
 *
 * The emitter trusts its driver to follow thin_ir.h's call order. The
 * output is flushed at superblock_end (and whenever the buffer fills).
 * Functions return 0 or -errno (write errors of the descriptor). */
#ifndef TP_THIN_XML_EMIT_H
#define TP_THIN_XML_EMIT_H

#include <stddef.h>

#include "lib/base/compiler.h"
#include "metadata/thin/thin_ir.h"
#include "metadata/thin/xml_out.h"

enum thin_emit_format {
	THIN_EMIT_XML,
	THIN_EMIT_HUMAN,
};

struct thin_emitter;

/* Print to FD (not closed by the emitter), or into memory when FD < 0. */
int thin_emitter_create(enum thin_emit_format fmt, int fd, struct thin_emitter **out)
	TP_MUST_CHECK;
/* The visitor to drive (ctx points at E). */
void thin_emitter_visitor(struct thin_emitter *e, struct thin_ir_visitor *v);
/* Emit a pending run and write everything buffered to the descriptor. */
int thin_emitter_flush(struct thin_emitter *e) TP_MUST_CHECK;
/* The first output error (sticky), or 0: tells the driver's own errors
 * from the emitter's. */
int thin_emitter_error(struct thin_emitter *e);
/* Memory mode: the text so far (not NUL-terminated), valid until the next
 * call on E. */
const char *thin_emitter_text(struct thin_emitter *e, size_t *len);
void thin_emitter_destroy(struct thin_emitter *e);

/* How one format prints each element; the emitter reserves
 * THIN_EMIT_MAX_LINE bytes before each call. */
#define THIN_EMIT_MAX_LINE 512
struct thin_emit_style {
	void (*superblock_begin)(struct xml_out *o, const struct thin_ir_superblock *sb);
	void (*superblock_end)(struct xml_out *o);
	void (*device_begin)(struct xml_out *o, const struct thin_ir_device *dev);
	void (*device_end)(struct xml_out *o);
	void (*run)(struct xml_out *o, const struct thin_ir_mapping *run);
};

extern const struct thin_emit_style thin_emit_xml_style;

#endif
