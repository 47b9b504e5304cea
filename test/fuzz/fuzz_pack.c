/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_pack.c - the thin_metadata_pack reader (metadata/pdata/pack.h) on
 * arbitrary bytes: the input is a pack file, read for a target of at most
 * 1024 blocks. Whatever it is, pack_read must not crash, hang, leak or
 * trip a sanitizer; and a pack it accepts must unpack to an image that
 * packs again (pack_write) into a pack it accepts, holding the same blocks
 * with the same content. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/pdata/pack.h"
#include "test/lib/io_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BLOCKS 1024u

struct sink {
	unsigned char *p;
	size_t len, cap;
};

static int to_sink(void *ctx, const void *buf, size_t len)
{
	struct sink *s = ctx;

	if (s->len + len > s->cap) {
		unsigned char *np = realloc(s->p, (s->len + len) * 2);

		if (!np)
			return -1;
		s->p = np;
		s->cap = (s->len + len) * 2;
	}
	memcpy(s->p + s->len, buf, len);
	s->len += len;
	return 0;
}

static int to_engine(void *ctx, uint64_t b, const unsigned char *block)
{
	return io_write(ctx, b * PACK_BLOCK_SIZE, block, PACK_BLOCK_SIZE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct io_engine *img = NULL, *again = NULL;
	struct sink s = { 0 };
	uint64_t nr = 0, packed = 0, nr2 = 0, packed2 = 0;

	tp_log_set_verbosity(-2);
	if (pack_read(data, size, "fuzz", MAX_BLOCKS, NULL, NULL, &nr, &packed))
		return 0;
	if (io_mem_create(nr * PACK_BLOCK_SIZE, "img", &img) ||
	    io_mem_create(nr * PACK_BLOCK_SIZE, "again", &again))
		abort();
	if (pack_read(data, size, "fuzz", MAX_BLOCKS, to_engine, img, NULL, NULL))
		abort();	/* a second reading must agree with the first */
	if (pack_write(img, nr, to_sink, &s, NULL, NULL))
		abort();
	if (pack_read(s.p, s.len, "again", MAX_BLOCKS, to_engine, again, &nr2, &packed2) ||
	    nr2 != nr || packed2 != packed ||
	    memcmp(io_mem_data(img), io_mem_data(again), nr * PACK_BLOCK_SIZE))
		abort();	/* what we pack must read back the same */
	free(s.p);
	io_destroy(img);
	io_destroy(again);
	return 0;
}
