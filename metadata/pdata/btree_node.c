/* btree_node.c - btree node validator. See btree_node.h. */
#include "metadata/pdata/btree_node.h"

#include <errno.h>
#include <inttypes.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"

void btree_node_prepare(void *n, uint64_t b)
{
	bm_header_prepare(n, b, BTREE_CSUM_XOR);
}

static int node_check(const void *n, uint64_t b)
{
	uint32_t vs = bn_vsize(n), max = bn_max(n), flags = bn_flags(n);

	if (bm_header_check(n, b, BTREE_CSUM_XOR, "btree node"))
		return -EUCLEAN;
	if (vs == 0 || vs > BM_BLOCK_SIZE || max == 0 ||
	    BTREE_HEADER_SIZE + (uint64_t)(8 + vs) * max > BM_BLOCK_SIZE) {
		log_error("btree node %" PRIu64 ": impossible max_entries %" PRIu32
			  " for value size %" PRIu32, b, max, vs);
		return -EUCLEAN;
	}
	if (bn_nr(n) > max) {
		log_error("btree node %" PRIu64 ": nr_entries %" PRIu32 " > max_entries %" PRIu32,
			  b, bn_nr(n), max);
		return -EUCLEAN;
	}
	if (flags != BTREE_NODE_INTERNAL && flags != BTREE_NODE_LEAF) {
		log_error("btree node %" PRIu64 ": bad flags %#" PRIx32, b, flags);
		return -EUCLEAN;
	}
	if (flags == BTREE_NODE_INTERNAL && vs != 8) {
		log_error("btree node %" PRIu64 ": internal node with value size %" PRIu32, b, vs);
		return -EUCLEAN;
	}
	return 0;
}

const struct bm_validator btree_node_validator = { "btree node", btree_node_prepare, node_check };

int btree_node_check_shape(const void *n, uint64_t b, uint32_t leaf_vsize)
{
	uint32_t nr = bn_nr(n);

	if (bn_is_leaf(n) && leaf_vsize && bn_vsize(n) != leaf_vsize) {
		log_error("btree node %" PRIu64 ": value size %" PRIu32 ", expected %" PRIu32, b,
			  bn_vsize(n), leaf_vsize);
		return -EUCLEAN;
	}
	for (uint32_t i = 1; i < nr; i++) {
		if (bn_key(n, i) <= bn_key(n, i - 1)) {
			log_error("btree node %" PRIu64 ": keys out of order at entry %" PRIu32, b, i);
			return -EUCLEAN;
		}
	}
	return 0;
}
