/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compiler.h - small portable attributes and helpers used everywhere.
 * Owns nothing; header only. */
#ifndef TP_BASE_COMPILER_H
#define TP_BASE_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#define TP_MUST_CHECK __attribute__((warn_unused_result))
#define TP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TP_UNUSED __attribute__((unused))
#define TP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TP_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TP_DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define TP_CONTAINER_OF(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* The size to allocate for a large buffer of N bytes: N rounded up to an
 * eighth of its highest power of two (N itself under 64 KiB). Texts a few
 * bytes apart (a VG text before and after a change, its copies on several
 * devices) so ask for one size, and the heap hands a freed one out again
 * instead of pages never touched: a command at 20,000 volumes touched
 * 27 MB for texts of 2.2 MB, most of it in page faults. */
static inline size_t tp_alloc_class(size_t n)
{
	size_t g = 1;

	if (n < 65536)
		return n;
	while (g <= n / 2)
		g <<= 1;
	g >>= 3;
	if (n % g && g - n % g > SIZE_MAX - n)
		return n;	/* (no class above it: N itself) */
	return n + (g - n % g) % g;
}

#endif
