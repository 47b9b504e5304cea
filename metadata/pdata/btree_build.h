/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_build.h - write a btree bottom-up from keys in ascending order.
 *
 * Nodes are filled completely; when a level ends, its last two nodes are
 * balanced so that every non-root node is at least half full. Each node
 * is written once, finished (block number and checksum set), through the
 * caller's alloc and write callbacks, so the same code serves the
 * from-scratch builder (sequential blocks) and space-map commits (blocks
 * from a space map). An empty input gives a single empty leaf.
 * Owns: one or two node buffers per level. */
#ifndef TP_PDATA_BTREE_BUILD_H
#define TP_PDATA_BTREE_BUILD_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/pdata/btree_node.h"

struct btree_build_level {
	unsigned char *prev, *cur;	/* prev: full node held back for balancing */
	uint64_t written;		/* nodes emitted at this level */
};

struct btree_build {
	uint32_t vsize;
	int (*alloc)(void *ctx, uint64_t *b);
	/* DATA is a finished node for block B (may be reused after return). */
	int (*write)(void *ctx, uint64_t b, const void *data);
	void *ctx;
	struct btree_build_level lv[BTREE_MAX_DEPTH];
	uint64_t entries;
	uint64_t last_key;
};

void btree_build_init(struct btree_build *bb, uint32_t vsize,
		      int (*alloc)(void *ctx, uint64_t *b),
		      int (*write)(void *ctx, uint64_t b, const void *data), void *ctx);
/* Keys must be strictly ascending (else -EINVAL). */
int btree_build_add(struct btree_build *bb, uint64_t key, const void *value) TP_MUST_CHECK;
/* Of a tree of 8-byte values (else -EINVAL): the N entries KEY, KEY+1, ...
 * with the values VALUE, VALUE+STEP, ... (as 64-bit little-endian), as N
 * calls of btree_build_add would add them, filling the leaf in place. */
int btree_build_add_seq64(struct btree_build *bb, uint64_t key, uint64_t n, uint64_t value,
			  uint64_t step) TP_MUST_CHECK;
int btree_build_finish(struct btree_build *bb, uint64_t *root) TP_MUST_CHECK;
void btree_build_destroy(struct btree_build *bb);
/* Nodes a build of NR entries writes. */
uint64_t btree_build_nr_nodes(uint64_t nr, uint32_t vsize);

#endif
