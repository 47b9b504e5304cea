/* SPDX-License-Identifier: GPL-2.0-or-later */
/* refcount2.h - a data block's share count as two bits (0, 1, 2 = two or
 * more), packed four to a byte: enough to tell unmapped, exclusive and
 * shared chunks apart for a whole pool in nr_blocks / 4 bytes. Used by
 * the per-volume usage walk and by --wipe's exclusive-chunk walk. */
#ifndef TP_POOL_REFCOUNT2_H
#define TP_POOL_REFCOUNT2_H

#include <stdint.h>

static inline unsigned refcount2_get(const uint8_t *c, uint64_t b)
{
	return (c[b >> 2] >> ((b & 3) * 2)) & 3u;
}

/* One more reference to block B; saturates at 2. */
static inline void refcount2_inc(uint8_t *c, uint64_t b)
{
	unsigned v = refcount2_get(c, b);

	if (v < 2)
		c[b >> 2] = (uint8_t)((c[b >> 2] & ~(3u << ((b & 3) * 2))) |
				      ((v + 1) << ((b & 3) * 2)));
}

#endif
