/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-metacheck - open thin metadata with the engine and check it (test tool).
 *
 *   tp-metacheck [--snap] [--modify SEED] [--rebuild OUT] IMAGE
 *
 * Opens IMAGE, checks every metadata and data reference count against a
 * full walk (thin_verify_counts), walks the trees (the metadata snapshot
 * with --snap) and prints "devices=N mappings=M". --modify changes it
 * with a few hundred random operations (create, snapshot, map, unmap,
 * delete), commits and checks again. --rebuild writes fresh metadata
 * into the existing file OUT with the builder, from a walk of IMAGE.
 * Exit 0, or 1 with a message. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/test_rand.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_builder.h"
#include "metadata/thin/thin_walk.h"

struct counts {
	uint64_t devices, mappings;
};

static int c_dev(void *ctx, const struct thin_ir_device *d)
{
	(void)d;
	((struct counts *)ctx)->devices++;
	return 0;
}

static int c_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((struct counts *)ctx)->mappings += runs[i].length;
	return 0;
}

static uint64_t rs;

static uint64_t rnd(void)
{
	return tp_test_xorshift64(&rs);
}

static int modify(struct thin_md *md)
{
	uint64_t *ids, db, next = 100000;
	size_t n;
	int r = 0;

	for (int i = 0; i < 300 && !r; i++) {
		if ((r = thin_list_devices(md, &ids, &n)))
			break;
		uint64_t dev = n ? ids[rnd() % n] : 0;
		unsigned op = (unsigned)(rnd() % 20);
		free(ids);
		if (!n || op == 0) {
			r = thin_create_thin(md, next++);
		} else if (op == 1) {
			r = thin_create_snap(md, next++, dev);
		} else if (op == 2 && n > 2) {
			r = thin_delete(md, dev);
		} else if (op < 6) {
			r = thin_remove_mapping(md, dev, rnd() % 2000);
			if (r == -ENODATA)
				r = 0;
		} else {
			r = thin_alloc_data_block(md, &db);
			if (r == -ENOSPC) {
				r = 0;
				continue;
			}
			if (!r)
				r = thin_insert_mapping_alloced(md, dev, rnd() % 2000, db);
		}
		if (!r && i % 50 == 49)
			r = thin_commit(md);
	}
	return r ? r : thin_commit(md);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "snap", 0, NULL, 's' }, { "modify", 1, NULL, 'm' }, { "rebuild", 1, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rebuild = NULL;
	unsigned flags = 0;
	int c, mod = 0, r;
	struct io_engine *io, *out;
	struct thin_md *md;
	struct counts cnt = { 0, 0 };
	struct thin_ir_visitor v = { &cnt, NULL, NULL, c_dev, NULL, c_map };

	tp_log_init("tp-metacheck");
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': flags |= THIN_WALK_METADATA_SNAP; break;
		case 'm': mod = 1; rs = strtoull(optarg, NULL, 0) * 2654435761u + 1; break;
		case 'r': rebuild = optarg; break;
		default: return 1;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: tp-metacheck [--snap] [--modify SEED] [--rebuild OUT] IMAGE\n");
		return 1;
	}
	if ((r = io_fd_open(argv[optind], mod ? 0 : IO_RDONLY, &io)))
		return 1;
	if ((r = thin_open(io, mod ? 0 : THIN_RDONLY, &md)))
		goto fail_io;
	if ((r = thin_verify_counts(md)))
		goto fail;
	if (mod && ((r = modify(md)) || (r = thin_verify_counts(md))))
		goto fail;
	thin_close(md);
	md = NULL;
	if ((r = thin_walk_io(io, flags, &v, NULL)))
		goto fail;
	printf("devices=%" PRIu64 " mappings=%" PRIu64 "\n", cnt.devices, cnt.mappings);
	if (rebuild) {
		struct thin_builder *b;
		if ((r = io_fd_open(rebuild, 0, &out)))
			goto fail;
		if (!(r = thin_builder_create(out, &b))) {
			r = thin_walk_io(io, flags, thin_builder_visitor(b), NULL);
			thin_builder_destroy(b);
		}
		io_destroy(out);
		if (r)
			goto fail;
	}
	io_destroy(io);
	return 0;
fail:
	thin_close(md);
fail_io:
	fprintf(stderr, "tp-metacheck: %s: %s\n", argv[optind], strerror(-r));
	io_destroy(io);
	return 1;
}
