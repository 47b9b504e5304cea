/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-smbench - one offline pool operation on thin metadata, at engine level
 * (test tool: scripts/bench-scale.sh measures its time and peak RSS).
 *
 *   tp-smbench IMAGE create|snap|remove|usage DEV
 *
 * Opens IMAGE, then: create: a new thin device (id = the largest + 1);
 * snap: a snapshot of DEV (id = the largest + 1); remove: deletes DEV;
 * usage: reads the pool's and DEV's usage (what tpstatus reports).
 * Each writing operation is committed, as tvcreate, tvsnap and tvremove do
 * offline. Prints what it did. Exit 0, or 1 with a message. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/thin/thin.h"

static int next_id(struct thin_md *md, uint64_t *id)
{
	uint64_t *ids;
	size_t n;
	int r = thin_list_devices(md, &ids, &n);

	if (r)
		return r;
	*id = 0;
	for (size_t i = 0; i < n; i++)
		if (ids[i] + 1 > *id)
			*id = ids[i] + 1;
	free(ids);
	return 0;
}

static int run(struct thin_md *md, const char *op, uint64_t dev)
{
	uint64_t id, mapped, excl, shared, a, b, c, d;
	int r;

	if (!strcmp(op, "usage")) {
		if ((r = thin_usage(md, &a, &b, &c, &d)) ||
		    (r = thin_device_usage(md, dev, &mapped, &excl, &shared)))
			return r;
		printf("metadata %" PRIu64 "/%" PRIu64 " data %" PRIu64 "/%" PRIu64
		       " device %" PRIu64 ": %" PRIu64 " mapped, %" PRIu64 " shared\n", a, b, c, d,
		       dev, mapped, shared);
		return 0;
	}
	if ((r = next_id(md, &id)))
		return r;
	if (!strcmp(op, "create"))
		r = thin_create_thin(md, id);
	else if (!strcmp(op, "snap"))
		r = thin_create_snap(md, id, dev);
	else if (!strcmp(op, "remove"))
		r = thin_delete(md, dev);
	else
		return -EINVAL;
	if (!r)
		r = thin_commit(md);
	if (!r)
		printf("%s %" PRIu64 ": committed\n", op, !strcmp(op, "remove") ? dev : id);
	return r;
}

int main(int argc, char **argv)
{
	struct io_engine *io;
	struct thin_md *md;
	int r;

	tp_log_init("tp-smbench");
	if (argc != 4) {
		fprintf(stderr, "usage: tp-smbench IMAGE create|snap|remove|usage DEV\n");
		return 1;
	}
	if ((r = io_fd_open(argv[1], 0, &io))) {
		fprintf(stderr, "tp-smbench: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	if ((r = thin_open(io, 0, &md)) == 0) {
		r = run(md, argv[2], strtoull(argv[3], NULL, 0));
		thin_close(md);
	}
	io_destroy(io);
	if (r) {
		fprintf(stderr, "tp-smbench: %s: %s\n", argv[2], strerror(-r));
		return 1;
	}
	return 0;
}
