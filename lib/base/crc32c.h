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

/* Checksum of a metadata block: crc over BLOCK[4..LEN), xor SALT. */
uint32_t tp_block_csum(const void *block, size_t len, uint32_t salt);

#endif
