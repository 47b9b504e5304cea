/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_scan.h - a strict, fast reader of the exact XML layout thin_dump
 * (0.9.0 and 1.x) and tpdump write, for tprestore's large inputs.
 *
 * Owns: nothing after return (a read buffer and the parser state live for
 * one call). Accepts a subset of what xml_parse.h accepts: the document
 * starts with "<superblock", every attribute is written name="value"
 * after white space, numbers are plain decimal, mapping and <ref>
 * elements close themselves ("/>"), end tags are "</name>", text between
 * elements is white space, and the document is valid by every rule of
 * xml_parse.h (the same checks, xml_parse_int.h). Anything else - another
 * layout, a comment, an XML declaration, a byte outside printable ASCII
 * in a value, an invalid document - ends the scan with 1 and no message: the caller starts over with thin_xml_parse_fd, which
 * accepts or rejects it with the reference messages and positions. On a
 * document the scanner accepts, the visitor sees exactly the calls
 * thin_xml_parse_* would make (the fuzz target fuzz_xml holds them to it).
 *
 * Returns 0 (valid, superblock_end called), 1 (start over with expat; V
 * may have seen a prefix of the stream), or -errno: read(2)'s, or a
 * visitor's error or no memory, with ERR's message set (line 0). */
#ifndef TP_THIN_XML_SCAN_H
#define TP_THIN_XML_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/thin/thin_ir.h"
#include "metadata/thin/xml_parse.h"

/* From FD's current position to end of file. */
int thin_xml_scan_fd(int fd, const struct thin_ir_visitor *v, struct thin_xml_error *err)
	TP_MUST_CHECK;
/* The same on a buffer. */
int thin_xml_scan_mem(const char *buf, size_t len, const struct thin_ir_visitor *v,
		      struct thin_xml_error *err) TP_MUST_CHECK;

/* The same on a regular file of SIZE bytes (FD's position unused) in
 * two halves at once, split at a device tag after the middle: V0 sees the
 * superblock, the devices of the first half and superblock_end; V1, in
 * another thread, the same superblock, the other devices and
 * superblock_end (both ends only once the whole was found valid). The
 * second half's 1.x <ref>s name <def>s written before the first device
 * (as 1.x writes them), and it holds no <def>. 1 also when the file
 * cannot be split. */
int thin_xml_scan_split(int fd, uint64_t size, const struct thin_ir_visitor *v0,
			const struct thin_ir_visitor *v1, struct thin_xml_error *err)
	TP_MUST_CHECK;

#endif
