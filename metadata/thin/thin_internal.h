/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_internal.h - struct thin_md, shared by thin_md.c (open, commit,
 * space, metadata snapshot), thin_dev.c (devices and mappings) and
 * thin_verify.c. Not for use outside metadata/thin. */
#ifndef TP_THIN_INTERNAL_H
#define TP_THIN_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/btree.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/transaction_manager.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#define THIN_MARKED_MAX 16

struct thin_dev {
	uint64_t id;
	uint64_t root;		/* bottom-level tree; always equal to the top-level value */
	struct thin_ir_device d;
	unsigned dirty : 1;	/* details to write at commit */
	unsigned touched : 1;	/* top-level path shadowed in this transaction */
};

struct thin_md {
	struct io_engine *io;
	unsigned flags;
	struct block_manager *bm;
	struct space_map *msm, *dsm;
	struct tm *tm;
	struct thin_sb sb;	/* in-core superblock */
	struct thin_dev *devs;	/* sorted by id */
	size_t nr_devs, cap_devs;
	int changed;		/* uncommitted changes */
	struct btree_info top, bottom, details;
	/* the devices marked dirty or touched in this transaction (a change
	 * marks one or two of 20,000: the commit visits those, not the
	 * table); more than THIN_MARKED_MAX: marked_all, the whole table */
	uint64_t marked[THIN_MARKED_MAX];
	unsigned nr_marked;
	int marked_all;
};

struct thin_dev *thin_find_dev(struct thin_md *md, uint64_t id);
int thin_load_devices(struct thin_md *md);
int thin_write_details(struct thin_md *md);
/* Dirty and touched cleared on every marked device, the marks dropped. */
void thin_clear_marks(struct thin_md *md);

/* -EROFS when MD is read-only, else marks it changed. */
static inline int thin_writable(struct thin_md *md)
{
	if (md->flags & THIN_RDONLY)
		return -EROFS;
	md->changed = 1;
	return 0;
}

#endif
