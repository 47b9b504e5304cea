/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_text_ref.h - the VG text's reader and writer held to libdevmapper and
 * to the code of vg_text.c before its own (vg_text_ref.c), for the unit
 * tests and the fuzz harness. */
#ifndef TP_TEST_VG_TEXT_REF_H
#define TP_TEST_VG_TEXT_REF_H

#include <stddef.h>

#include "metadata/vg/vg.h"

struct dm_config_node;

/* The old vg_export and vg_import_why (libdevmapper's tree, writer and
 * parser, and the key walk of that time). */
int ref_vg_export(const struct vg *vg, char **text, size_t *len);
int ref_vg_import_why(const char *text, size_t len, struct vg **out, char *why, size_t whylen);

/* Each: 0 when ours and the reference agree; 1 with what differs in WHY
 * (WHYLEN bytes) when not. */

/* vg_text_parse and libdevmapper's dm_config_parse_without_dup_node_check
 * on TEXT (a text with a NUL byte is not compared: 0): both refuse with
 * the same message, or both accept and build the same tree (keys, order,
 * sections, value types and values). */
int ref_parse_diff(const char *text, size_t len, char *why, size_t whylen);
/* vg_import_why and ref_vg_import_why on TEXT: the same return, the same
 * message, and the same struct vg (every field, every list). */
int ref_import_diff(const char *text, size_t len, char *why, size_t whylen);
/* vg_export and ref_vg_export of VG: the same return and bytes, which are
 * also the header comment and what dm_config_write_node writes for the
 * tree dm_config_from_string reads from them. */
int ref_export_diff(const struct vg *vg, char *why, size_t whylen);

/* Whether a section pool/volumes of the general tree ROOT (a text may
 * have several, or a "pool" made by a path: the fast reader takes the
 * first it meets as a section in a section) holds VG's volumes as its
 * entries, in their order. */
int ref_general_has(const struct dm_config_node *root, const struct vg *vg);

#endif
