/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_cmd.h - the library side of tpdump and tprestore: dump a metadata
 * area (an io_engine; lib/base/io_area.h opens one of a path) as text,
 * restore it from XML.
 *
 * Owns nothing beyond each call. Errors are logged here, once, naming the
 * file or the XML position; callers map the returned -errno to an exit
 * code. */
#ifndef TP_THIN_XML_CMD_H
#define TP_THIN_XML_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/thin/xml_emit.h"
#include "metadata/thin/xml_parse.h"

struct thin_dump_opts {
	enum thin_emit_format format;
	unsigned walk_flags;	/* THIN_WALK_*: metadata snapshot, skip mappings */
	int one_device;		/* print only device DEV_ID (thin_dump --dev-id) */
	uint64_t dev_id;
	/* Called after each batch of mappings printed, with the mapped
	 * blocks done so far (total 0: not known before the walk); may be
	 * NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

/* Walk the committed metadata on META as OPTS says and print it to FD.
 * Returns 0, the walker's error (-EUCLEAN corrupt, -ENODATA no metadata
 * or no metadata snapshot; logged by the walker) or a write error. */
int thin_xml_dump(struct io_engine *meta, const struct thin_dump_opts *opts, int fd)
	TP_MUST_CHECK;

/* What a validating pass over the XML found. */
struct thin_xml_stats {
	uint64_t nr_devices;
	uint64_t mapped_blocks;		/* over all devices */
	uint64_t nr_data_blocks;
	uint64_t tree_blocks;		/* nodes of all bottom-level trees */
	uint64_t overflow_blocks;	/* data blocks named by 3 or more mappings */
};

/* Metadata blocks the builder (thin_builder.h) writes for ST in an area of
 * NR_META blocks, plus a small reserve: its layout computed ahead. */
uint64_t thin_xml_blocks_needed(const struct thin_xml_stats *st, uint64_t nr_meta);

/* The recording of pass 1 (xml_record.h) is kept up to this many bytes
 * (about 5 bytes per mapping run); beyond it a file is parsed again. A
 * pipe cannot be read again, so its limit is higher. When pass 1 recorded
 * the whole document in one piece, the builder takes the data reference
 * counts it made too (thin_builder_take_counts). */
#define THIN_XML_RECORD_MAX (16u << 20)
#define THIN_XML_RECORD_MAX_PIPE (256u << 20)

/* Restore the XML read from XML_FD (a file or a pipe) over OUT. Pass 1
 * validates the whole document, counts what the builder will need and
 * records it compactly, writing nothing; then OUT's size is checked; pass
 * 2 drives the builder from the recording (or, if the recording passed
 * RECORD_MAX bytes - 0: the default above - from the file again). A file
 * is read by the strict scanner (xml_scan.h) when it has thin_dump's exact
 * layout - one of at least 16 MiB in two halves at once (one thread each),
 * each recorded within half of RECORD_MAX unless the file is 16 x
 * RECORD_MAX bytes or more, which no recording holds; a smaller one in a
 * thread of its own while the caller's thread counts and records - else
 * by expat
 * (xml_parse.h), whose messages are the ones given for any invalid
 * document. NAME
 * labels messages ("FILE:LINE:COL: ..."). STATS (may be NULL) receives
 * what pass 1 counted.
 * Returns 0; -EBADMSG (invalid XML), -ENOSPC (OUT too small) or -EFBIG (a
 * pipe too large to record) with OUT untouched; or the builder's error
 * (OUT's superblock is then zeroed). PROGRESS (may be NULL) is called
 * with CTX as the metadata is written (pass 2): mapped blocks done of
 * those pass 1 counted. */
int thin_xml_restore_watched(int xml_fd, const char *name, struct io_engine *out,
			     size_t record_max, struct thin_xml_stats *stats,
			     void (*progress)(void *ctx, uint64_t done, uint64_t total),
			     void *ctx) TP_MUST_CHECK;

#endif
