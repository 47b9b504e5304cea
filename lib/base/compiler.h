/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compiler.h - small portable attributes and helpers used everywhere.
 * Owns nothing; header only. */
#ifndef TP_BASE_COMPILER_H
#define TP_BASE_COMPILER_H

#include <stddef.h>

#define TP_MUST_CHECK __attribute__((warn_unused_result))
#define TP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TP_UNUSED __attribute__((unused))
#define TP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TP_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TP_DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define TP_CONTAINER_OF(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif
