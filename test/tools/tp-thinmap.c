/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-thinmap - write to a thin device the way the kernel does, through
 * the thin API (test tool: tpdiff, tpsend and tprecv scenarios).
 *
 *   tp-thinmap [--create] FILE DEV VBLOCK [COUNT]
 *   tp-thinmap --reserve-snap FILE
 *
 * FILE holds thin metadata (a saved pool area). Virtual blocks VBLOCK ..
 * VBLOCK+COUNT-1 (COUNT 1 by default) of thin device DEV get freshly
 * allocated data blocks (a snapshot's shared subtrees are broken only
 * along the way, as a kernel write breaks them), then the transaction is
 * committed. Prints the data blocks, one "vblock dblock" line each.
 * --create makes DEV first, an empty thin device (as a live tprecv's
 * create_thin message does before the VG lists the volume).
 * --reserve-snap holds a metadata snapshot of FILE's committed state (the
 * kernel's reserve_metadata_snap), committed.
 * Exit 0, or 1 with a message. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/io.h"
#include "metadata/thin/thin.h"

int main(int argc, char **argv)
{
	struct io_engine *io = NULL;
	struct thin_md *md = NULL;
	uint64_t dev, v, n = 1;
	int r, create = argc > 1 && !strcmp(argv[1], "--create");

	if (argc == 3 && !strcmp(argv[1], "--reserve-snap")) {
		if ((r = io_fd_open(argv[2], 0, &io)) || (r = thin_open(io, 0, &md)) ||
		    (r = thin_reserve_metadata_snap(md)) || (r = thin_commit(md))) {
			fprintf(stderr, "tp-thinmap: %s: %s\n", argv[2], strerror(-r));
			thin_close(md);
			io_destroy(io);
			return 1;
		}
		thin_close(md);
		io_destroy(io);
		return 0;
	}
	argc -= create;
	argv += create;
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: tp-thinmap [--create] FILE DEV VBLOCK [COUNT]\n");
		return 1;
	}
	dev = strtoull(argv[2], NULL, 10);
	v = strtoull(argv[3], NULL, 10);
	if (argc == 5)
		n = strtoull(argv[4], NULL, 10);
	if ((r = io_fd_open(argv[1], 0, &io)) || (r = thin_open(io, 0, &md)) ||
	    (create && (r = thin_create_thin(md, dev))))
		goto fail;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d;
		if ((r = thin_alloc_data_block(md, &d)) ||
		    (r = thin_insert_mapping_alloced(md, dev, v + i, d)))
			goto fail;
		printf("%" PRIu64 " %" PRIu64 "\n", v + i, d);
	}
	if ((r = thin_commit(md)))
		goto fail;
	thin_close(md);
	io_destroy(io);
	return 0;
fail:
	fprintf(stderr, "tp-thinmap: %s: %s\n", argv[1], strerror(-r));
	thin_close(md);
	io_destroy(io);
	return 1;
}
