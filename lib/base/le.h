/* SPDX-License-Identifier: GPL-2.0-or-later */
/* le.h - little-endian loads and stores for on-disk structures (the
 * persistent-data format and our labels are little-endian everywhere).
 * Header only. */
#ifndef TP_BASE_LE_H
#define TP_BASE_LE_H

#include <stdint.h>
#include <string.h>

static inline uint32_t le32_get(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t le64_get(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void le32_put(void *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}

static inline void le64_put(void *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

#endif
