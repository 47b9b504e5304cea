/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_defs.h - the shared subtrees of a thin-provisioning-tools 1.x dump.
 *
 * thin_dump 1.x writes a run of mappings that several devices share once,
 * as <def name="N"> ... </def> directly inside <superblock>, and puts
 * <ref name="N"/> where it belongs in each <device> (or inside a later
 * def). The parser (xml_parse.c) keeps every def's mappings here, in the
 * order written, and expands a ref into them, so the visitor sees plain
 * mapping runs whichever generation wrote the XML.
 *
 * Owns: the defs and their mapping arrays (memory: 32 bytes per run held
 * in defs). Names are decimal numbers, as 1.x writes them. Returns 0 or
 * -errno. */
#ifndef TP_THIN_XML_DEFS_H
#define TP_THIN_XML_DEFS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/thin_ir.h"

struct xml_def {
	struct thin_ir_mapping *m;	/* runs in the order written */
	size_t n, cap;
	uint64_t next_origin;		/* the next run must start here or later */
	int origin_full;		/* a run ended at 2^64 */
};

struct xml_defs {
	struct u64map index;		/* name -> position in defs */
	struct xml_def *defs;
	size_t n, cap;
};

void xml_defs_init(struct xml_defs *d);
void xml_defs_destroy(struct xml_defs *d);
/* Start def NAME; *POS is its position (stable; pointers are not, across
 * begin). -EEXIST: NAME is defined already. -ENOMEM. */
int xml_defs_begin(struct xml_defs *d, uint64_t name, size_t *pos) TP_MUST_CHECK;
/* Def NAME, or NULL when not (yet) defined. */
const struct xml_def *xml_defs_find(const struct xml_defs *d, uint64_t name);
static inline struct xml_def *xml_defs_at(struct xml_defs *d, size_t pos)
{
	return &d->defs[pos];
}
/* Append run M to DEF. -ENOMEM. */
int xml_def_append(struct xml_def *def, const struct thin_ir_mapping *m) TP_MUST_CHECK;

#endif
