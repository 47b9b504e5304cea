/* SPDX-License-Identifier: GPL-2.0-or-later */
/* delta_xml.h - thin_delta's output: the ranges where two thin devices'
 * mappings differ, printed exactly as thin_delta 0.9.0 prints them (plain
 * and --verbose), from the delta walker (delta.h).
 *
 * thin_delta's way is reproduced: each side is first cut into runs
 * (consecutive virtual and data blocks, time ignored) and the runs of both
 * sides are merged, so the pieces printed (--verbose) and where plain
 * ranges of one kind join (adjacent virtual blocks, whatever the data
 * blocks) are thin_delta's. With a metadata snapshot the header has the
 * snapshot copy's fields and nr_data_blocks="0", as 0.9.0 prints them.
 *
 * Nothing is written before the walk succeeded. Returns 0 or -errno
 * (walk errors as thin_delta_io; -EIO for a failed write, logged). */
#ifndef TP_THIN_DELTA_XML_H
#define TP_THIN_DELTA_XML_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

struct thin_delta_xml_opts {
	int metadata_snap;		/* read the held metadata snapshot */
	uint64_t metadata_snap_block;	/* its superblock; 0 = the one held */
	uint64_t left, right;		/* thin device ids (--snap1, --snap2) */
	int verbose;			/* --verbose: data blocks, grouped */
};

int thin_delta_xml(struct io_engine *meta, const struct thin_delta_xml_opts *o, int fd)
	TP_MUST_CHECK;

#endif
