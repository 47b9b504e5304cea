/* check_node.h - is a 4 KiB block a usable btree node at block B? Own
 * block number, checksum (node salt), flags exactly internal or leaf,
 * value size (8 in internal nodes; LEAF_VSIZE in leaves, or 8 or 24 when
 * LEAF_VSIZE is 0), max_entries non-zero and within the block, nr_entries
 * <= max_entries. Shared by the checker's counting pass and the salvage
 * (which reads nodes the walker has not vouched for). */
#ifndef TP_THIN_CHECK_NODE_H
#define TP_THIN_CHECK_NODE_H

#include <stdint.h>

int check_node_usable(const unsigned char *n, uint64_t b, uint32_t leaf_vsize);

#endif
