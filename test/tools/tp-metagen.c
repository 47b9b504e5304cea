/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-metagen - generate thin metadata workloads through the thin API
 * (test tool: interop and benchmark scripts).
 *
 *   tp-metagen --out FILE --meta-size SIZE [--devices N] [--mappings M]
 *              [--snapshots S] [--deletes D] [--seed X] [--block-size SECTORS]
 *              [--data-blocks N] [--writes-after-snap W] [--metadata-snap]
 *              [--transaction-id T] [--unmaps U]
 *
 * FILE is created (or truncated) to SIZE (K/M/G suffixes). N devices get M
 * mappings each (runs of consecutive blocks with random gaps; data blocks
 * from the allocator, so data runs too). Then S snapshots, each of a random
 * existing device (snapshots of snapshots happen), each followed by W
 * overwrites (default M/20, at most 1000) split between origin and snapshot
 * to break sharing partly; then D random deletes. --metadata-snap leaves a
 * metadata snapshot held (taken before the last round of overwrites).
 * Finally U random unmaps (discards) spread over the remaining devices,
 * which make the trees merge and rebalance.
 * Exit 0, or 1 with a message. Deterministic for a given seed. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/io.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/thin/thin.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;	/* xorshift64* */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#define CHECK(expr)                                                                 \
	do {                                                                        \
		int r_ = (expr);                                                    \
		if (r_) {                                                           \
			fprintf(stderr, "tp-metagen: %s failed: %s\n", #expr,       \
				strerror(-r_));                                     \
			goto fail;                                                  \
		}                                                                   \
	} while (0)

static int map_new(struct thin_md *md, uint64_t dev, uint64_t v)
{
	uint64_t d;
	int r = thin_alloc_data_block(md, &d);
	return r ? r : thin_insert_mapping_alloced(md, dev, v, d);
}

/* Overwrite W random mapped-or-not blocks below SPAN of DEV. */
static int overwrite(struct thin_md *md, uint64_t dev, uint64_t span, uint64_t w)
{
	int r;

	for (uint64_t i = 0; i < w; i++)
		if ((r = map_new(md, dev, rnd_below(span ? span : 1))))
			return r;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", 1, NULL, 'o' },	  { "meta-size", 1, NULL, 's' },
		{ "devices", 1, NULL, 'n' },	  { "mappings", 1, NULL, 'm' },
		{ "snapshots", 1, NULL, 'S' },	  { "deletes", 1, NULL, 'D' },
		{ "seed", 1, NULL, 'x' },	  { "block-size", 1, NULL, 'b' },
		{ "data-blocks", 1, NULL, 'd' },  { "writes-after-snap", 1, NULL, 'w' },
		{ "metadata-snap", 0, NULL, 'M' }, { "transaction-id", 1, NULL, 't' },
		{ "unmaps", 1, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	uint64_t meta_size = 0, devices = 1, mappings = 1000, snaps = 0, deletes = 0, seed = 1;
	uint64_t block_size = 128, data_blocks = 0, writes = UINT64_MAX, trans = 1, unmaps = 0;
	int held = 0, c, fd;
	struct io_engine *io = NULL;
	struct thin_md *md = NULL;
	uint64_t *ids = NULL, nr_ids = 0, next_id = 0, *span = NULL;

	tp_log_init("tp-metagen");
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's':
			if (tp_size_parse_arg("--meta-size", optarg, 'b', &meta_size))
				return 1;
			break;
		case 'n': devices = strtoull(optarg, NULL, 0); break;
		case 'm': mappings = strtoull(optarg, NULL, 0); break;
		case 'S': snaps = strtoull(optarg, NULL, 0); break;
		case 'D': deletes = strtoull(optarg, NULL, 0); break;
		case 'x': seed = strtoull(optarg, NULL, 0); break;
		case 'b': block_size = strtoull(optarg, NULL, 0); break;
		case 'd': data_blocks = strtoull(optarg, NULL, 0); break;
		case 'w': writes = strtoull(optarg, NULL, 0); break;
		case 'M': held = 1; break;
		case 't': trans = strtoull(optarg, NULL, 0); break;
		case 'u': unmaps = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: tp-metagen --out FILE --meta-size SIZE [--devices N] "
				"[--mappings M] [--snapshots S] [--deletes D] [--seed X] "
				"[--block-size SECTORS] [--data-blocks N] [--writes-after-snap W] "
				"[--metadata-snap] [--transaction-id T] [--unmaps U]\n");
			return 1;
		}
	}
	if (!out || !meta_size) {
		fprintf(stderr, "tp-metagen: --out and --meta-size are required\n");
		return 1;
	}
	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	if (writes == UINT64_MAX)
		writes = TP_MIN(mappings / 20, 1000);
	if (!data_blocks)
		data_blocks = devices * mappings + (snaps + 1) * writes * 2 + 1024;
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)meta_size) || close(fd)) {
		fprintf(stderr, "tp-metagen: %s: %s\n", out, strerror(errno));
		return 1;
	}
	CHECK(io_fd_open(out, 0, &io));
	CHECK(thin_format(io, (uint32_t)block_size, data_blocks, &md));
	ids = calloc(devices + snaps + 1, sizeof(*ids));
	span = calloc(devices + snaps + 1, sizeof(*span));
	if (!ids || !span)
		goto fail;
	for (uint64_t d = 0; d < devices; d++) {
		uint64_t v = rnd_below(1000);
		CHECK(thin_create_thin(md, next_id));
		for (uint64_t m = 0; m < mappings; m++) {
			CHECK(map_new(md, next_id, v));
			v += rnd_below(8) ? 1 : 2 + rnd_below(100);
		}
		span[next_id] = v;
		ids[nr_ids++] = next_id++;
		CHECK(thin_commit(md));
	}
	for (uint64_t s = 0; s < snaps && nr_ids; s++) {
		uint64_t origin = ids[rnd_below(nr_ids)];
		CHECK(thin_create_snap(md, next_id, origin));
		span[next_id] = span[origin];
		ids[nr_ids++] = next_id++;
		if (held && s + 1 == snaps)
			CHECK(thin_reserve_metadata_snap(md));
		CHECK(overwrite(md, origin, span[origin], writes / 2));
		CHECK(overwrite(md, next_id - 1, span[origin], writes - writes / 2));
		CHECK(thin_commit(md));
	}
	if (held && !snaps)
		CHECK(thin_reserve_metadata_snap(md));
	for (uint64_t i = 0; i < deletes && nr_ids > 1; i++) {
		uint64_t k = rnd_below(nr_ids);
		CHECK(thin_delete(md, ids[k]));
		ids[k] = ids[--nr_ids];
		CHECK(thin_commit(md));
	}
	for (uint64_t i = 0; i < unmaps && nr_ids; i++) {
		uint64_t dev = ids[rnd_below(nr_ids)];
		int r = thin_remove_mapping(md, dev, rnd_below(span[dev] ? span[dev] : 1));
		if (r && r != -ENODATA)
			CHECK(r);
		if (i % 20000 == 19999)
			CHECK(thin_commit(md));
	}
	CHECK(thin_set_transaction_id(md, 0, trans));
	CHECK(thin_commit(md));
	{
		uint64_t mu, mt, du, dt;
		thin_usage(md, &mu, &mt, &du, &dt);
		fprintf(stderr, "tp-metagen: %s: %" PRIu64 " devices, metadata %" PRIu64 "/%" PRIu64
			" blocks, data %" PRIu64 "/%" PRIu64 " blocks\n", out, nr_ids, mu, mt, du, dt);
	}
	thin_close(md);
	io_destroy(io);
	free(ids);
	free(span);
	return 0;
fail:
	thin_close(md);
	io_destroy(io);
	free(ids);
	free(span);
	return 1;
}
