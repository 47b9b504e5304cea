/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.h - CRC-32C (Castagnoli), as the dm persistent-data format uses it.
 *
 * tp_crc32c() is the raw register update: seed in, register out, no final
 * inversion (the kernel's crc32c()). The standard CRC-32C of a buffer is
 * tp_crc32c(0xffffffff, buf, len) ^ 0xffffffff (check value of "123456789"
 * is 0xe3069283). The SSE4.2 instruction is used when the CPU has it; the
 * table version is always available and both are exported for tests.
 *
 * tp_block_csum() is dm_bm_checksum(): raw crc over bytes 4..len-1 of a
 * block, XOR the block type's salt. */
#ifndef TP_BASE_CRC32C_H
#define TP_BASE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t tp_crc32c(uint32_t seed, const void *buf, size_t len);
uint32_t tp_crc32c_sw(uint32_t seed, const void *buf, size_t len);
/* Only call when tp_crc32c_hw_available() is true. */
uint32_t tp_crc32c_hw(uint32_t seed, const void *buf, size_t len);
int tp_crc32c_hw_available(void);

/* The register CRC after LEN more bytes of zeros, to join the sums of two
 * pieces: tp_crc32c(c, A then B) equals
 * tp_crc32c_shift(tp_crc32c(c, A), len(B)) ^ tp_crc32c(0, B). */
uint32_t tp_crc32c_shift(uint32_t crc, uint64_t len);

/* A helper thread that sums the second half of a large buffer while the
 * caller sums the first (two cores: twice the speed on memory the cache
 * does not hold). _pair is tp_crc32c; buffers below TP_CRC32C_PAIR_MIN,
 * or a NULL pair, are summed by the caller alone. The helper blocks every
 * signal. One caller thread per pair. start: 0 or -errno. */
#define TP_CRC32C_PAIR_MIN (256u << 10)
struct tp_crc32c_pair;
int tp_crc32c_pair_start(struct tp_crc32c_pair **out);
uint32_t tp_crc32c_pair(struct tp_crc32c_pair *p, uint32_t crc, const void *buf, size_t len);
void tp_crc32c_pair_end(struct tp_crc32c_pair *p);

/* Checksum of a metadata block: crc over BLOCK[4..LEN), xor SALT. */
uint32_t tp_block_csum(const void *block, size_t len, uint32_t salt);

#endif
