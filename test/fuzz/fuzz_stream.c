/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_stream.c - tprecv's check of a send stream (lib/pool/pool_recv.h,
 * man/tp-stream.5) on arbitrary bytes, the input being the stream file.
 * Whatever it is, pool_recv_check must not crash, hang, leak or trip a
 * sanitizer. A stream it accepts must hold to what the receive relies on:
 * its header is what packing its fields writes (version 1 plain, 2
 * encrypted, with a LUKS uuid exactly then); an encrypted stream's first
 * chunk, where it carries it, begins with that uuid's LUKS2 header (a
 * full one always does); and it replays (the receive's second reading)
 * into whole chunks inside the volume, as many as the check counted. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/pool/pool_recv.h"
#include "lib/pool/stream/pool_recv_int.h"
#include "lib/pool/stream/pool_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct count {
	const struct pool_recv *r;
	uint64_t chunk, chunks, next;	/* NEXT: the chunk after the last seen */
	int first_seen;			/* chunk 0 came as data */
};

static int on_chunks(void *ctx, uint64_t vb, const void *buf, uint64_t n)
{
	struct count *c = ctx;
	const char *why;

	if (vb < c->next || vb + n > (c->r->h.size + c->chunk - 1) / c->chunk)
		abort();	/* out of order, or past the volume */
	if (!vb && pool_recv_luks_uuid(c->r)[0]) {
		if (!stream_luks_header_ok(buf, c->chunk, c->r->h.luks_uuid, &why))
			abort();	/* an encrypted stream without its header */
		c->first_seen = 1;
	}
	c->chunks += n;
	c->next = vb + n;
	return 0;
}

static int on_hole(void *ctx, uint64_t first, uint64_t n)
{
	struct count *c = ctx;

	if (!n || (!first && pool_recv_luks_uuid(c->r)[0]))
		abort();	/* an encrypted volume's header unmapped */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char again[STREAM_HEADER_SIZE];
	struct pool_recv *r = NULL;
	char path[64];
	int fd, luks;

	tp_log_set_verbosity(-2);
	if ((fd = memfd_create("stream", MFD_CLOEXEC)) < 0 || tp_write_all(fd, data, size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (pool_recv_check(path, NULL, NULL, &r)) {
		close(fd);
		return 0;
	}
	close(fd);
	luks = pool_recv_luks_uuid(r)[0] != '\0';
	stream_header_pack(again, &r->h);
	if (memcmp(again, data, STREAM_HEADER_SIZE) ||
	    r->h.version != (luks ? 2u : 1u) || !(r->h.flags & STREAM_FLAG_ENCRYPTED) != !luks)
		abort();	/* an accepted header is the one its fields make */
	if (r->h.chunk <= (4u << 20)) {	/* (the replay's buffer is a chunk) */
		struct count c = { r, r->h.chunk, 0, 0, 0 };
		struct recv_sink s = { &c, on_chunks, on_hole, NULL };
		if (pool_recv_replay(r, r->h.chunk, 0, &s) || c.chunks != r->chunks)
			abort();	/* a checked stream replays as counted */
		if (luks && !(r->h.flags & STREAM_FLAG_INCREMENTAL) && !c.first_seen)
			abort();	/* a full encrypted stream carries its header */
	}
	pool_recv_free(r);
	return 0;
}
