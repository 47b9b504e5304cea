/* check_util.c - see check_util.h. */
#include "metadata/thin/check_util.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/base/crc32c.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/le.h"
#include "metadata/thin/thin_sb.h"

int check_node_usable(const unsigned char *n, uint64_t b, uint32_t leaf_vsize)
{
	uint32_t flags = bn_flags(n), vs = bn_vsize(n), max = bn_max(n);

	if (le64_get(n + 8) != b || (flags != BTREE_NODE_LEAF && flags != BTREE_NODE_INTERNAL))
		return 0;
	if (flags == BTREE_NODE_INTERNAL ? vs != 8 :
	    leaf_vsize ? vs != leaf_vsize : vs != 8 && vs != THIN_DETAILS_SIZE)
		return 0;
	if (!max || BTREE_HEADER_SIZE + (uint64_t)(8 + vs) * max > BM_BLOCK_SIZE || bn_nr(n) > max)
		return 0;
	return le32_get(n) == tp_block_csum(n, BM_BLOCK_SIZE, BTREE_CSUM_XOR);
}

int check_push_u64(uint64_t **v, size_t *n, uint64_t x)
{
	if (!*n || !(*n & (*n - 1))) {
		uint64_t *nv = realloc(*v, (*n ? *n * 2 : 16) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = x;
	return 0;
}
