/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btree_node.c - the one btree node validator. See btree_node.h. */
#include "metadata/pdata/btree_node.h"

#include <errno.h>
#include <inttypes.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"

void btree_node_prepare(void *n, uint64_t b)
{
	bm_header_prepare(n, b, BTREE_CSUM_XOR);
}

static enum btree_node_fault fault_of(const void *n, uint64_t b, uint32_t leaf_vsize,
				      unsigned rules)
{
	uint32_t nr = bn_nr(n), max = bn_max(n), vs = bn_vsize(n), flags = bn_flags(n);

	if (!(rules & BTREE_RULE_HEADER_DONE)) {
		if (le64_get((const char *)n + 8) != b)
			return BTREE_NODE_WRONG_BLOCKNR;
		if (le32_get(n) != tp_block_csum(n, BM_BLOCK_SIZE, BTREE_CSUM_XOR))
			return BTREE_NODE_BAD_CSUM;
	}
	if (flags != BTREE_NODE_INTERNAL && flags != BTREE_NODE_LEAF)
		return BTREE_NODE_BAD_FLAGS;
	if (flags == BTREE_NODE_INTERNAL ? vs != 8 : leaf_vsize && vs != leaf_vsize)
		return BTREE_NODE_WRONG_VSIZE;
	if (!vs || !max || BTREE_HEADER_SIZE + (uint64_t)(8 + vs) * max > BM_BLOCK_SIZE)
		return BTREE_NODE_BAD_MAX;
	if (nr > max)
		return BTREE_NODE_NR_ABOVE_MAX;
	if ((rules & BTREE_RULE_NONEMPTY) && flags == BTREE_NODE_INTERNAL && !nr)
		return BTREE_NODE_EMPTY_INTERNAL;
	if (rules & BTREE_RULE_KEY_ORDER)
		for (uint32_t i = 1; i < nr; i++)
			if (bn_key(n, i) <= bn_key(n, i - 1))
				return BTREE_NODE_KEY_ORDER;
	if ((rules & BTREE_RULE_STD_MAX) && max != btree_max_entries(vs))
		return BTREE_NODE_NONSTANDARD_MAX;
	return BTREE_NODE_OK;
}

int btree_node_check(const void *n, uint64_t b, uint32_t leaf_vsize, unsigned rules,
		     enum btree_node_fault *fault)
{
	enum btree_node_fault f = fault_of(n, b, leaf_vsize, rules);

	if (fault)
		*fault = f;
	return f == BTREE_NODE_OK ? 0 : -EUCLEAN;
}

const char *btree_node_fault_str(enum btree_node_fault f)
{
	static const char *const str[] = {
		[BTREE_NODE_OK] = "ok",
		[BTREE_NODE_WRONG_BLOCKNR] = "wrong block number",
		[BTREE_NODE_BAD_CSUM] = "bad checksum",
		[BTREE_NODE_BAD_FLAGS] = "bad node flags",
		[BTREE_NODE_WRONG_VSIZE] = "wrong value size",
		[BTREE_NODE_BAD_MAX] = "impossible max_entries",
		[BTREE_NODE_NR_ABOVE_MAX] = "nr_entries above max_entries",
		[BTREE_NODE_EMPTY_INTERNAL] = "empty internal node",
		[BTREE_NODE_KEY_ORDER] = "keys out of order",
		[BTREE_NODE_NONSTANDARD_MAX] = "max_entries not the standard one",
	};
	return (unsigned)f < sizeof(str) / sizeof(str[0]) && str[f] ? str[f] : "unknown fault";
}

int btree_node_check_log(const void *n, uint64_t b, uint32_t leaf_vsize, unsigned rules)
{
	enum btree_node_fault f;
	int r = btree_node_check(n, b, leaf_vsize, rules, &f);

	switch (f) {
	case BTREE_NODE_OK:
		break;
	case BTREE_NODE_WRONG_BLOCKNR:
		log_error("btree node %" PRIu64 ": wrong block number %" PRIu64, b,
			  le64_get((const char *)n + 8));
		break;
	case BTREE_NODE_WRONG_VSIZE:
		if (!bn_is_leaf(n)) {
			log_error("btree node %" PRIu64 ": internal node with value size %" PRIu32,
				  b, bn_vsize(n));
			break;
		}
		log_error("btree node %" PRIu64 ": value size %" PRIu32 ", expected %" PRIu32, b,
			  bn_vsize(n), leaf_vsize);
		break;
	case BTREE_NODE_BAD_MAX:
		log_error("btree node %" PRIu64 ": impossible max_entries %" PRIu32
			  " for value size %" PRIu32, b, bn_max(n), bn_vsize(n));
		break;
	case BTREE_NODE_NR_ABOVE_MAX:
		log_error("btree node %" PRIu64 ": nr_entries %" PRIu32 " > max_entries %" PRIu32,
			  b, bn_nr(n), bn_max(n));
		break;
	case BTREE_NODE_BAD_FLAGS:
		log_error("btree node %" PRIu64 ": bad flags %#" PRIx32, b, bn_flags(n));
		break;
	default:
		log_error("btree node %" PRIu64 ": %s", b, btree_node_fault_str(f));
		break;
	}
	return r;
}

static int node_check(const void *n, uint64_t b)
{
	return btree_node_check_log(n, b, 0, 0);
}

static int node_valid(const void *n, uint64_t b)
{
	enum btree_node_fault f;
	return !btree_node_check(n, b, 0, 0, &f);
}

const struct bm_validator btree_node_validator = { "btree node", btree_node_prepare, node_check,
						   node_valid };
