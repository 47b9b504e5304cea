/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u64map.h - an open-addressing hash map from u64 keys to u64 values
 * (also used as a set). Owns its table; destroy frees it. Not thread safe.
 * Any key is allowed (UINT64_MAX included). Iteration order is arbitrary;
 * removing during iteration is not allowed. u64_push grows a plain
 * malloc'd array of u64 (the lists of device ids). */
#ifndef TP_PDATA_U64MAP_H
#define TP_PDATA_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	unsigned char *used;	/* 0 empty, 1 used, 2 deleted */
	size_t cap;		/* power of two or 0 */
	size_t nr;		/* live entries */
	size_t tomb;		/* deleted slots */
};

void u64map_init(struct u64map *m);
void u64map_destroy(struct u64map *m);
void u64map_clear(struct u64map *m);
/* 0, or -ENOMEM. Overwrites an existing value. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val) TP_MUST_CHECK;
/* 1 and *val set when present, else 0. VAL may be NULL. */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);
/* 1 if removed, 0 if absent. */
int u64map_del(struct u64map *m, uint64_t key);
/* Iterate: start with *pos = 0; returns 1 with key/val set, 0 at the end. */
int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

/* Append X to the malloc'd array *V of *N entries (grown to the next power
 * of two). 0 or -ENOMEM (then *V and *N are unchanged). */
int u64_push(uint64_t **v, size_t *n, uint64_t x) TP_MUST_CHECK;

#endif
