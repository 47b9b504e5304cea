/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_record.h - a compact in-memory recording of one thin_ir stream
 * (thin_ir.h), replayed later into another visitor. tprestore records
 * while it validates the XML, then feeds the builder from the recording
 * instead of parsing the XML a second time.
 *
 * Owns: the recording (chunks of varint-coded events: mapping runs are
 * stored as deltas from the previous run, typically 4-6 bytes each). When
 * the recording would pass its byte limit it is dropped and the recorder
 * stops recording (it never fails the stream for that); the caller then
 * falls back to reading its source again.
 *
 * Functions return 0 or -errno. */
#ifndef TP_THIN_XML_RECORD_H
#define TP_THIN_XML_RECORD_H

#include <stddef.h>

#include "lib/base/compiler.h"
#include "metadata/thin/thin_ir.h"

struct thin_ir_record;

int thin_ir_record_create(size_t max_bytes, struct thin_ir_record **out) TP_MUST_CHECK;
/* The visitor that records (ctx points at R). */
void thin_ir_record_visitor(struct thin_ir_record *r, struct thin_ir_visitor *v);
/* 1 when a whole stream (through superblock_end) was recorded within the
 * limit, else 0. */
int thin_ir_record_complete(const struct thin_ir_record *r);
/* Drive V with the recorded stream (mappings in batches); -EINVAL if the
 * recording is not complete. Returns V's first error. */
int thin_ir_record_replay(const struct thin_ir_record *r, const struct thin_ir_visitor *v)
	TP_MUST_CHECK;
void thin_ir_record_destroy(struct thin_ir_record *r);

#endif
