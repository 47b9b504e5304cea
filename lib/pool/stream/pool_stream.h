/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_stream.h - the send stream's layout (tpsend writes it, tprecv reads
 * it; the format is documented for users in man/tp-stream.5). lib/pool
 * internal. All integers little-endian; every crc is the standard
 * CRC-32C (lib/base/crc32c.h, seeded 0xffffffff, inverted).
 *
 * Header, 256 bytes:
 *     0  8  magic "TPSTREAM"
 *     8  4  version: 1, or 2 for a stream with the ENCRYPTED flag (the
 *           lowest that holds the stream, so a reader of 1 takes every
 *           plain stream and refuses, by its version, an encrypted one)
 *    12  4  flags: bit 0 incremental (BASE_UUID names the base); version
 *           2 also bit 1 encrypted (LUKS_UUID names the volume's header)
 *    16  8  volume size, bytes
 *    24  8  chunk size, bytes (the sending pool's)
 *    32 36  volume uuid (text)
 *    68 36  base uuid (text; zeros in a full stream)
 *   104 65  the volume's name (NUL-terminated)
 *   169 36  encrypted: the uuid of the volume's LUKS2 header (text); else
 *           zero
 *   205 47  zero
 *   252  4  crc of bytes 0..251
 * Records, each a 32-byte head then, for DATA, LENGTH bytes of data:
 *     0  4  type: 1 DATA, 2 HOLE (unmapped: no data follows), 3 END
 *     4  4  zero
 *     8  8  offset, bytes (a multiple of the chunk size)
 *    16  8  length, bytes (DATA and HOLE: > 0, whole chunks except at the
 *           volume's end; END: the number of DATA and HOLE records)
 *    24  4  END: zero; else zero
 *    28  4  crc of bytes 0..27 and the data
 * Records come in ascending offset order, never overlapping, within the
 * volume; END carries in OFFSET the sum of DATA lengths. A full stream
 * covers the whole volume with DATA and HOLE records; an incremental one
 * only what differs from the base. An encrypted stream's first chunk,
 * whenever it carries it (a full stream always does), is DATA that
 * begins with a LUKS2 header of LUKS_UUID (stream_luks_header_ok). */
#ifndef TP_POOL_POOL_STREAM_H
#define TP_POOL_POOL_STREAM_H

#include <stdint.h>

#define STREAM_MAGIC "TPSTREAM"
#define STREAM_VERSION_MAX 2u		/* the newest this reads (stream_version_for) */
#define STREAM_HEADER_SIZE 256u
#define STREAM_RECORD_SIZE 32u
#define STREAM_FLAG_INCREMENTAL 1u
#define STREAM_FLAG_ENCRYPTED 2u	/* version 2 */
#define STREAM_MAX_DATA (4u << 20)	/* bytes of data in one record */

enum stream_record_type {
	STREAM_DATA = 1,
	STREAM_HOLE = 2,
	STREAM_END = 3,
};

struct stream_header {
	uint32_t version, flags;
	uint64_t size, chunk;
	char uuid[37], base_uuid[37];
	char name[65];
	char luks_uuid[37];	/* ENCRYPTED: the LUKS2 header's uuid; else "" */
	/* unpacked: the header is what packing its fields writes (every byte
	 * past a text's NUL, of a field its flags leave out, or of no field,
	 * zero) */
	int canonical;
};

struct stream_record {
	uint32_t type;
	uint64_t offset, length;
};

/* The version a header of FLAGS is written with: the lowest that knows
 * them. */
uint32_t stream_version_for(uint32_t flags);
void stream_header_pack(unsigned char b[STREAM_HEADER_SIZE], const struct stream_header *h);
/* 0, or -EBADMSG (not a stream, bad crc) / -EPROTO (unknown version),
 * logged. The fields' values are the caller's to check. */
int stream_header_unpack(const unsigned char b[STREAM_HEADER_SIZE], struct stream_header *h);
/* 1 when the LEN bytes of DATA (a volume's first bytes) begin with a LUKS2
 * binary header whose uuid is UUID, else 0 (*WHY says what differs). Only
 * the header's fixed fields are read: its checksum and keyslots are
 * libcryptsetup's to check where a key is used. */
int stream_luks_header_ok(const unsigned char *data, uint64_t len, const char *uuid,
			  const char **why);
/* The head of R, its crc taken over the head and DATA (LEN bytes). */
void stream_record_pack(unsigned char b[STREAM_RECORD_SIZE], const struct stream_record *r,
			const void *data, uint64_t len);
/* The crc of a record head's first 28 bytes and its data, in pieces:
 * begin with the head, add the data (tp_crc32c over it), compare with the
 * stored crc. */
uint32_t stream_crc_begin(const unsigned char b[STREAM_RECORD_SIZE]);
int stream_crc_ok(const unsigned char b[STREAM_RECORD_SIZE], uint32_t crc);
void stream_record_unpack(const unsigned char b[STREAM_RECORD_SIZE], struct stream_record *r);

#endif
