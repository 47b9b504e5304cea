/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_scan_int.h - the strict scanner's state and steps, shared by the
 * one-pass reader (xml_scan.c) and the two-halves reader (xml_split.c).
 *
 * Owns: the read buffer of one scan (BUF_SIZE bytes of text and PAD zero
 * bytes after it) and the parser state (xml_parse_int.h). The steps
 * return 0, BAD (not the strict layout or not valid: the caller starts
 * over with expat) or -errno (a read's, a visitor's). */
#ifndef TP_THIN_XML_SCAN_INT_H
#define TP_THIN_XML_SCAN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "metadata/thin/xml_parse_int.h"

#define BUF_SIZE (1u << 20)
#define PAD 64			/* zeros after the text: longer than any name */
#define BAD 1			/* not the strict layout: start over with expat */

struct scan {
	int fd;
	const char *mem;	/* reading from mem, not fd */
	size_t mem_left;
	uint64_t off, end;	/* end != 0: pread [off, end) of fd */
	const int *stop;	/* set by the other half: give up */
	int tail;		/* the second half past the middle: no <def> */
	char *buf;
	size_t len, pos;	/* text in buf[0, len), scanned up to pos */
	int eof;
	struct parser p;
};

/* Keep buf[pos, len), append more text (or BAD when told to stop). */
int xml_scan_refill(struct scan *s);
/* The document's first bytes into the buffer: 0 when they start it as
 * thin_dump does. */
int xml_scan_head(struct scan *s);
/* The element whose '<' is at C: the position after it, or NULL. */
const char *xml_scan_element(struct scan *s, const char *c);
/* Elements to the end of the input. */
int xml_scan_loop(struct scan *s);
/* After the whole document: 0 with superblock_end called. */
int xml_scan_finish(struct scan *s);

#endif
