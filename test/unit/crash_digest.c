/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crash_digest.c - see crash_digest.h. */
#include "test/unit/crash_digest.h"

#include "lib/base/crc32c.h"
#include "metadata/thin/thin_walk.h"

#include <string.h>

void crash_mix(uint32_t *crc, uint64_t v)
{
	*crc = tp_crc32c(*crc, &v, sizeof(v));
}

void crash_mix_str(uint32_t *crc, const char *s)
{
	*crc = tp_crc32c(*crc, s, strlen(s) + 1);
}

static int d_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	crash_mix(ctx, sb->time);
	crash_mix(ctx, sb->transaction);
	crash_mix(ctx, sb->flags);
	crash_mix(ctx, sb->nr_data_blocks);
	crash_mix(ctx, sb->data_block_size);
	crash_mix(ctx, sb->metadata_snap);
	return 0;
}

static int d_dev(void *ctx, const struct thin_ir_device *d)
{
	crash_mix(ctx, d->dev_id);
	crash_mix(ctx, d->mapped_blocks);
	crash_mix(ctx, d->transaction);
	crash_mix(ctx, d->creation_time);
	crash_mix(ctx, d->snap_time);
	return 0;
}

static int d_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < runs[i].length; k++) {
			crash_mix(ctx, runs[i].origin_begin + k);
			crash_mix(ctx, runs[i].data_begin + k);
			crash_mix(ctx, runs[i].time);
		}
	return 0;
}

int crash_digest_thin(struct io_engine *io, uint32_t *crc)
{
	struct thin_ir_visitor v = { crc, d_sb, NULL, d_dev, NULL, d_map };

	return thin_walk_io(io, 0, &v, NULL);
}
