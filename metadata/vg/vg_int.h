/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_int.h - helpers shared by the metadata/vg sources only. Not for
 * callers outside metadata/vg. (Little-endian fields: lib/base/le.h.) */
#ifndef TP_VG_INT_H
#define TP_VG_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/base/le.h"
#include "metadata/vg/label.h"

struct vg;

/* What is wrong with label L (a static string or BUF), or NULL. */
const char *vg_label_problem(const struct vg_label *l, char *buf, size_t buflen);

/* Append a copy of V to VG's volumes without any check: 0 or -ENOMEM. */
struct vg_volume;
int vg_append_volume(struct vg *vg, const struct vg_volume *v);
/* Room for N volumes in VG (more than it has: appends up to N move
 * nothing); 0 or -ENOMEM. Room not used is never touched, so a reader
 * may ask for a bound, not a count. */
int vg_reserve_volumes(struct vg *vg, unsigned n);
int vg_append_receive(struct vg *vg, const struct vg_volume *v);
int vg_append_removal(struct vg *vg, const struct vg_volume *v);
int vg_append_trash(struct vg *vg, const struct vg_volume *v);

/* 1 for the bytes a pool's or a volume's name may hold (vg_name_valid's
 * set: letters, digits and '+_.-'), 0 for the others and NUL. */
extern const unsigned char vg_name_byte[256];

/* Check every field of VG; on a problem write "key: problem" (the key as
 * a path such as "pool/volumes/www/dev_id") into MSG and return -1. */
int vg_check_model(const struct vg *vg, char *msg, size_t msglen);
/* vg_check_model of NEXT, a VG changed from BASE: where BASE passed it as
 * it is (BASE->checked) and NEXT differs from it in a few entries, only
 * what the change can break is looked at (the pool's own keys, the
 * entries added or altered, the names dropped); the whole check
 * otherwise, and for the message of any problem. BASE may be NULL. */
int vg_check_change(const struct vg *base, const struct vg *next, char *msg,
		    size_t len) TP_MUST_CHECK;
/* vg_export of a VG already checked (vg_check_change): the text only.
 * With BASE (a VG that NEXT was changed from, or NULL) holding its
 * source, each volume NEXT has as BASE has it (paired as
 * vg_check_change pairs them) is copied from BASE's text. With START,
 * where each volume's entry begins in *TEXT into *START (malloc'd, as
 * vg_source.start). */
int vg_export_checked(const struct vg *base, const struct vg *vg, char **text, size_t *len,
		      uint32_t **start);

/* vg.source: the parser's copy of the text (TEXT, owned) and where each
 * volume's entry begins in it, START[i] for vg.volumes[i] (N of them;
 * START[N]: the end of the last, where the section closes). */
struct vg_source {
	char *text;
	uint32_t *start;
	unsigned n;
};
void vg_source_free(struct vg_source *s);
/* vg_keep_source's switch */
int vg_source_kept(void);

/* vg_label_read and vg_label_cut_short (label.c) with OWN_SIZE, the size
 * the device's own VG copy records for it (vg_io.c: the label code calls
 * no VG read of its own); a label larger than its device but no larger
 * than its own VG copy's size is a lagging label, read as found. */
int vg_label_load(struct io_engine *io, struct vg_label *l,
		  uint64_t (*own_size)(struct io_engine *, const struct vg_label *));
uint64_t vg_label_cut_short_by(struct io_engine *io,
			       uint64_t (*own_size)(struct io_engine *, const struct vg_label *));

/* The VG text's config syntax (vg_parse.c): TEXT (LEN bytes, no NUL)
 * into TREE, a tree of libdevmapper's public node and value structs in an
 * arena, as libdevmapper's dm_config_parse_without_dup_node_check builds
 * it. 0; -EINVAL for a syntax error, whose message (libdevmapper's words,
 * "" where it has none) goes into ERR (ERRLEN bytes); -ENOMEM. The tree
 * is freed with vg_text_tree_free (also after a failure: a no-op). */
struct dm_config_node;
struct vg_text_tree {
	struct dm_config_node *root;
	struct chunk *chunks;
	char *text; /* a copy of the text: the tree's strings */
};
int vg_text_parse(const char *text, size_t len, struct vg_text_tree *tree, char *err,
		  size_t errlen);
void vg_text_tree_free(struct vg_text_tree *tree);

/* vg_text_parse for vg_import (issue 40: a pool of many volumes), with
 * the entries of pool/volumes, when each is in the form vg_export writes
 * (its keys in their order, tabs, plain decimals, strings with nothing
 * to unescape) and passes import's checks of an entry, read straight
 * into VG's volumes (vg_append_volume; VG has none before) and left out
 * of TREE. 1: TREE holds the rest (or all of the text, where pool/volumes
 * is not written so) and VG the volumes; a name given twice is left to
 * vg_check_model, which refuses it. 0 at the first byte off that form, or
 * a syntax error: nothing kept, VG's volumes none again, and the caller
 * reads the text with vg_text_parse (which words every refusal).
 * -ENOMEM. */
int vg_text_parse_fast(const char *text, size_t len, struct vg_text_tree *tree, struct vg *vg);

#endif
