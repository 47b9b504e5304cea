/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_stream.c - packing the send stream's header and record heads. See
 * pool_stream.h for the layout. */
#include "lib/pool/stream/pool_stream.h"

#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "lib/base/le.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LUKS_UUID_OFF 169u	/* the header's LUKS uuid field */

/* The LUKS2 binary header (the LUKS2 on-disk format of cryptsetup): its
 * magic and big-endian version, its uuid's place and room */
#define LUKS2_MAGIC "LUKS\xba\xbe"
#define LUKS2_UUID_OFF 168u
#define LUKS2_UUID_LEN 40u

uint32_t stream_version_for(uint32_t flags)
{
	return (flags & STREAM_FLAG_ENCRYPTED) ? 2u : 1u;
}

void stream_header_pack(unsigned char b[STREAM_HEADER_SIZE], const struct stream_header *h)
{
	memset(b, 0, STREAM_HEADER_SIZE);
	memcpy(b, STREAM_MAGIC, 8);
	le32_put(b + 8, h->version);
	le32_put(b + 12, h->flags);
	le64_put(b + 16, h->size);
	le64_put(b + 24, h->chunk);
	memcpy(b + 32, h->uuid, strnlen(h->uuid, 36));
	memcpy(b + 68, h->base_uuid, strnlen(h->base_uuid, 36));
	memcpy(b + 104, h->name, strnlen(h->name, 64));
	if (h->flags & STREAM_FLAG_ENCRYPTED)
		memcpy(b + LUKS_UUID_OFF, h->luks_uuid, strnlen(h->luks_uuid, 36));
	le32_put(b + 252, tp_crc32c(0xffffffffu, b, 252) ^ 0xffffffffu);
}

int stream_header_unpack(const unsigned char b[STREAM_HEADER_SIZE], struct stream_header *h)
{
	unsigned char again[STREAM_HEADER_SIZE];

	if (memcmp(b, STREAM_MAGIC, 8)) {
		log_error("the input is not a tpsend stream (no TPSTREAM magic)");
		return -EBADMSG;
	}
	if ((tp_crc32c(0xffffffffu, b, 252) ^ 0xffffffffu) != le32_get(b + 252)) {
		log_error("the stream's header is damaged (bad checksum)");
		return -EBADMSG;
	}
	memset(h, 0, sizeof(*h));
	h->version = le32_get(b + 8);
	if (h->version < 1 || h->version > STREAM_VERSION_MAX) {
		log_error("stream version %" PRIu32 " is not known to this tprecv (it reads 1 to "
			  "%u); nothing was received: receive it with a tptools as new as the "
			  "sender's", h->version, STREAM_VERSION_MAX);
		return -EPROTO;
	}
	h->flags = le32_get(b + 12);
	h->size = le64_get(b + 16);
	h->chunk = le64_get(b + 24);
	memcpy(h->uuid, b + 32, 36);
	memcpy(h->base_uuid, b + 68, 36);
	memcpy(h->name, b + 104, 64);
	if (h->flags & STREAM_FLAG_ENCRYPTED)
		memcpy(h->luks_uuid, b + LUKS_UUID_OFF, 36);
	/* what packing the fields writes: every byte no field holds zero */
	stream_header_pack(again, h);
	h->canonical = !memcmp(again, b, STREAM_HEADER_SIZE);
	return 0;
}

int stream_luks_header_ok(const unsigned char *data, uint64_t len, const char *uuid,
			  const char **why)
{
	size_t n = strlen(uuid);

	if (len < LUKS2_UUID_OFF + LUKS2_UUID_LEN || memcmp(data, LUKS2_MAGIC, 6)) {
		*why = "no LUKS header";
		return 0;
	}
	if (data[6] != 0 || data[7] != 2) {
		*why = "a LUKS header of another version than 2";
		return 0;
	}
	if (n >= LUKS2_UUID_LEN || memcmp(data + LUKS2_UUID_OFF, uuid, n) ||
	    data[LUKS2_UUID_OFF + n] != '\0') {
		*why = "a LUKS2 header of another uuid";
		return 0;
	}
	return 1;
}

/* CRC (of a record head, stream_crc_begin) taken on over LEN bytes of DATA */
static uint32_t stream_crc_add(uint32_t crc, const void *data, uint64_t len)
{
	return len ? tp_crc32c(crc, data, (size_t)len) : crc;
}

void stream_record_pack(unsigned char b[STREAM_RECORD_SIZE], const struct stream_record *r,
			const void *data, uint64_t len)
{
	memset(b, 0, STREAM_RECORD_SIZE);
	le32_put(b, r->type);
	le64_put(b + 8, r->offset);
	le64_put(b + 16, r->length);
	le32_put(b + 28, stream_crc_add(stream_crc_begin(b), data, len) ^ 0xffffffffu);
}

uint32_t stream_crc_begin(const unsigned char b[STREAM_RECORD_SIZE])
{
	return tp_crc32c(0xffffffffu, b, 28);
}

int stream_crc_ok(const unsigned char b[STREAM_RECORD_SIZE], uint32_t crc)
{
	return (crc ^ 0xffffffffu) == le32_get(b + 28);
}

void stream_record_unpack(const unsigned char b[STREAM_RECORD_SIZE], struct stream_record *r)
{
	r->type = le32_get(b);
	r->offset = le64_get(b + 8);
	r->length = le64_get(b + 16);
}
