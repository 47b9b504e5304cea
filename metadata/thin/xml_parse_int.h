/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_parse_int.h - the rules of thin_dump XML shared by the two readers:
 * expat's (xml_parse.c, the reference: every message and position) and
 * the strict scanner of thin_dump's exact layout (xml_scan.c).
 *
 * Owns: the parser state, the table of elements and their attributes,
 * and the checks that follow once an element's attributes are numbers
 * (xml_elem_start, xml_elem_end). A front end turns the text into those
 * calls; the checks record the first error in rc (with the position when
 * the front end is expat) and drive the visitor. */
#ifndef TP_THIN_XML_PARSE_INT_H
#define TP_THIN_XML_PARSE_INT_H

#include <expat.h>
#include <stddef.h>
#include <stdint.h>

#include "metadata/thin/thin_ir.h"
#include "metadata/thin/xml_defs.h"
#include "metadata/thin/xml_parse.h"

#define XML_BATCH 1024		/* mapping runs per visitor call */

enum where {
	AT_TOP,		/* before <superblock> */
	IN_SUPERBLOCK,
	IN_DEVICE,
	IN_DEF,		/* inside a 1.x <def> (a shared run of mappings) */
	IN_MAPPING,	/* inside a mapping or <ref>: no children allowed */
	AT_END,		/* after </superblock> */
};

enum xml_elem {
	XML_SINGLE,
	XML_RANGE,
	XML_DEVICE,
	XML_REF,
	XML_DEF,
	XML_SUPERBLOCK,
	XML_NR_ELEMS,
};

enum { ATTR_STRING = 0 };	/* max == 0: any string, ignored */

struct attr_spec {
	const char *name;
	size_t len;		/* strlen(name) */
	uint64_t max;		/* largest value allowed; ATTR_STRING for text */
	int required;
};

#define XML_MAX_ATTRS 8

struct elem_spec {
	const char *name;
	size_t len;		/* strlen(name) */
	const struct attr_spec *attrs;	/* in the order thin_dump writes them */
	size_t n;
	uint64_t defaults[XML_MAX_ATTRS];	/* of attributes not given */
};

extern const struct elem_spec xml_elems[XML_NR_ELEMS];

struct parser {
	XML_Parser xp;		/* NULL under the strict scanner */
	const struct thin_ir_visitor *v;
	struct thin_xml_error *err;
	int rc;			/* first error: -EBADMSG or a visitor's */
	int visitor_failed;	/* rc is a visitor's (or memory) */
	enum where where;
	uint64_t nr_data_blocks;
	int have_dev;		/* a device was seen: *_dev_id are valid */
	uint64_t first_dev_id, last_dev_id;
	struct thin_ir_device dev;
	uint64_t next_origin;	/* first origin block the next mapping may use */
	int origin_full;	/* the previous mapping ended at 2^64 */
	struct xml_defs defs;	/* 1.x <def>s seen so far */
	size_t cur_def;		/* IN_DEF: the def being read */
	enum where parent;	/* IN_MAPPING: where its end returns to */
	size_t nbatch;
	struct thin_ir_mapping batch[XML_BATCH];
};

/* Set up P for visitor V (may be NULL) and error record ERR, with expat
 * parser XP or NULL for the scanner. */
void xml_state_init(struct parser *p, XML_Parser xp, const struct thin_ir_visitor *v,
		    struct thin_xml_error *err);
void xml_state_destroy(struct parser *p);
/* Element E starts, its attributes VALS (xml_elems[E] order, defaults
 * filled in) parsed and in range. */
void xml_elem_start(struct parser *p, enum xml_elem e, const uint64_t *vals);
/* <single_mapping/> with its attributes in range: xml_elem_start then
 * xml_elem_end, short. */
void xml_single(struct parser *p, uint64_t origin, uint64_t data, uint64_t time);
/* The element open last ends. */
void xml_elem_end(struct parser *p);
/* The input ended and was well-formed: 0 after superblock_end, or the
 * error (recorded in rc and err). */
int xml_state_finish(struct parser *p);

#endif
