/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume_int.h - what only lib/pool/volume sees of its own files. */
#ifndef TP_POOL_VOLUME_INT_H
#define TP_POOL_VOLUME_INT_H

#include <stdint.h>

#include "lib/base/compiler.h"

struct pool;

/* ---- volume_live.c ---- */

/* After the VG commit that grew volume NAME (thin id DEV_ID) to SIZE
 * bytes: when the kernel has it loaded, reload its table with the new
 * size (0 too when not live or not loaded); -errno, logged, with the
 * way to finish it. */
int pool_volume_live_grow(struct pool *p, const char *name, uint32_t dev_id, uint64_t size)
	TP_MUST_CHECK;

#endif
