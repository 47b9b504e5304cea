/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_parse.h - read thin_dump-style XML (expat) and drive a visitor.
 *
 * Owns: nothing after return (the expat parser, the mapping batch and the
 * defs live for one call). Accepts exactly what thin_dump 0.9.0, 1.x and
 * tpdump write: one <superblock> holding <device> elements holding
 * <single_mapping> and <range_mapping> elements, and 1.x's shared runs:
 * <def name="N"> elements directly inside <superblock> holding mappings
 * and <ref>s, and <ref name="N"/> inside devices and later defs, each
 * expanded into the def's runs (xml_defs.h); whitespace between elements,
 * comments and an XML declaration are allowed; a DTD is not.
 *
 * Validation (every failure is -EBADMSG with ERR filled in, naming the
 * line, column and element): malformed XML, unknown elements or
 * attributes, elements in the wrong place, missing attributes, numbers
 * that are not plain decimal or do not fit their field, data_block_size
 * outside 128..2097152 sectors or not a multiple of 128, nr_data_blocks
 * above 2^40, version other than 1 or 2, dev_id above 2^24-1, duplicate or
 * descending dev_id, zero-length ranges, mappings unsorted or overlapping
 * within a device or a def (a ref's runs included), a def name defined
 * twice or not decimal, a ref to a def not defined before it, data blocks at or beyond nr_data_blocks, mapping times
 * of 2^24 or more. metadata_snap and uuid are accepted and ignored;
 * mapped_blocks is passed on unchecked (the builder writes the real
 * count, as thin_builder.h says).
 *
 * The visitor sees the calls of thin_ir.h in order, with mapping runs in
 * batches as written (not merged). superblock_end comes only after the
 * whole input was read and found valid, so a visitor that commits there
 * (the builder) never commits a bad document; but earlier callbacks have
 * run by the time an error late in the input is found, so a caller that
 * must not touch its output on bad input validates first (V NULL) - see
 * xml_cmd.h. A visitor error stops the parse and is returned as is.
 * The checks are shared with the strict scanner (xml_parse_int.h). */
#ifndef TP_THIN_XML_PARSE_H
#define TP_THIN_XML_PARSE_H

#include <stddef.h>

#include "lib/base/compiler.h"
#include "metadata/thin/thin_ir.h"

struct thin_xml_error {
	unsigned long line;	/* 1-based; 0 when no position applies */
	unsigned long column;	/* 1-based */
	char msg[256];
};

/* Parse from FD's current position to end of file. Returns 0, -EBADMSG
 * (invalid input, ERR set), -errno from read(2), or a visitor's error. */
int thin_xml_parse_fd(int fd, const struct thin_ir_visitor *v, struct thin_xml_error *err)
	TP_MUST_CHECK;
/* The same on a buffer. */
int thin_xml_parse_mem(const char *buf, size_t len, const struct thin_ir_visitor *v,
		       struct thin_xml_error *err) TP_MUST_CHECK;

#endif
