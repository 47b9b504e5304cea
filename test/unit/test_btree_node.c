/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one btree node validator (btree_node_check): each fault triggered by
 * a crafted node, in the order the validator looks, and its name. */
#include "metadata/pdata/btree_node.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <string.h>

#define AT 77u

static unsigned char node[BM_BLOCK_SIZE];

/* A valid leaf at block AT with value size VS and NR ascending keys. */
static void leaf(uint32_t vs, uint32_t nr)
{
	bn_init(node, BTREE_NODE_LEAF, vs);
	for (uint32_t i = 0; i < nr; i++)
		bn_set_key(node, i, 10 * (uint64_t)i);
	bn_set_nr(node, nr);
	btree_node_prepare(node, AT);
}

static enum btree_node_fault fault(uint32_t leaf_vsize, unsigned rules)
{
	enum btree_node_fault f = BTREE_NODE_OK;
	int r = btree_node_check(node, AT, leaf_vsize, rules, &f);

	CU_ASSERT_EQUAL(r, f == BTREE_NODE_OK ? 0 : -EUCLEAN);
	return f;
}

static void test_ok(void)
{
	leaf(8, 5);
	CU_ASSERT_EQUAL(fault(8, BTREE_RULE_NONEMPTY | BTREE_RULE_KEY_ORDER |
				 BTREE_RULE_STD_MAX), BTREE_NODE_OK);
	CU_ASSERT_EQUAL(fault(0, 0), BTREE_NODE_OK);	/* any leaf value size */
	leaf(24, 0);					/* an empty leaf is fine */
	CU_ASSERT_EQUAL(fault(24, BTREE_RULE_NONEMPTY), BTREE_NODE_OK);
	CU_ASSERT_STRING_EQUAL(btree_node_fault_str(BTREE_NODE_OK), "ok");
}

static void test_header(void)
{
	leaf(8, 5);
	CU_ASSERT_EQUAL(btree_node_check(node, AT + 1, 8, 0, NULL), -EUCLEAN);
	{
		enum btree_node_fault f;
		CU_ASSERT_EQUAL(btree_node_check(node, AT + 1, 8, 0, &f), -EUCLEAN);
		CU_ASSERT_EQUAL(f, BTREE_NODE_WRONG_BLOCKNR);
	}
	node[100] ^= 1;	/* keys changed, checksum not updated */
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_BAD_CSUM);
	/* a checked header is skipped on request */
	CU_ASSERT_EQUAL(fault(8, BTREE_RULE_HEADER_DONE), BTREE_NODE_OK);
}

static void test_flags_and_vsize(void)
{
	leaf(8, 5);
	bn_set_flags(node, 3);
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_BAD_FLAGS);
	leaf(8, 5);
	CU_ASSERT_EQUAL(fault(24, 0), BTREE_NODE_WRONG_VSIZE);
	bn_init(node, BTREE_NODE_INTERNAL, 16);	/* internal nodes hold 8-byte values */
	bn_set_nr(node, 1);
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(0, 0), BTREE_NODE_WRONG_VSIZE);
}

static void test_bounds(void)
{
	leaf(8, 5);
	le32_put(node + 20, 0);		/* max_entries 0 */
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_BAD_MAX);
	leaf(8, 5);
	le32_put(node + 20, 1000);	/* (8 + 8) * 1000 > 4064 */
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_BAD_MAX);
	leaf(8, 5);
	le32_put(node + 24, 0);		/* value size 0 with any size allowed */
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(0, 0), BTREE_NODE_BAD_MAX);
	leaf(8, 5);
	bn_set_nr(node, btree_max_entries(8) + 1);
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_NR_ABOVE_MAX);
}

static void test_rules(void)
{
	bn_init(node, BTREE_NODE_INTERNAL, 8);
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_OK);
	CU_ASSERT_EQUAL(fault(8, BTREE_RULE_NONEMPTY), BTREE_NODE_EMPTY_INTERNAL);
	leaf(8, 5);
	bn_set_key(node, 3, 20);	/* equal to key 2: not strictly increasing */
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_OK);
	CU_ASSERT_EQUAL(fault(8, BTREE_RULE_KEY_ORDER), BTREE_NODE_KEY_ORDER);
	leaf(8, 5);
	le32_put(node + 20, btree_max_entries(8) - 3);	/* fits, not what writers use */
	btree_node_prepare(node, AT);
	CU_ASSERT_EQUAL(fault(8, 0), BTREE_NODE_OK);
	CU_ASSERT_EQUAL(fault(8, BTREE_RULE_STD_MAX), BTREE_NODE_NONSTANDARD_MAX);
}

static void test_names(void)
{
	static const char *const want[] = {
		"ok", "wrong block number", "bad checksum", "bad node flags", "wrong value size",
		"impossible max_entries", "nr_entries above max_entries", "empty internal node",
		"keys out of order", "max_entries not the standard one",
	};
	for (unsigned f = 0; f < sizeof(want) / sizeof(want[0]); f++)
		CU_ASSERT_STRING_EQUAL(btree_node_fault_str((enum btree_node_fault)f), want[f]);
	CU_ASSERT_STRING_EQUAL(btree_node_fault_str((enum btree_node_fault)999), "unknown fault");
}

TP_TEST_SUITE(btree_node, NULL, NULL,
	      { "ok", test_ok },
	      { "header", test_header },
	      { "flags_and_vsize", test_flags_and_vsize },
	      { "bounds", test_bounds },
	      { "rules", test_rules },
	      { "names", test_names })
