/* check_util.h - helpers of the checker and the salvage. check_node_usable:
 * is a 4 KiB block a usable btree node at block B? Own
 * block number, checksum (node salt), flags exactly internal or leaf,
 * value size (8 in internal nodes; LEAF_VSIZE in leaves, or 8 or 24 when
 * LEAF_VSIZE is 0), max_entries non-zero and within the block, nr_entries
 * <= max_entries. Shared by the checker's counting pass and the salvage
 * (which reads nodes the walker has not vouched for). */
#ifndef TP_THIN_CHECK_UTIL_H
#define TP_THIN_CHECK_UTIL_H

#include <stddef.h>
#include <stdint.h>

int check_node_usable(const unsigned char *n, uint64_t b, uint32_t leaf_vsize);
/* Append X to the malloc'd array *V of *N entries (grown to the next power
 * of two). 0 or -ENOMEM (then *V and *N are unchanged). */
int check_push_u64(uint64_t **v, size_t *n, uint64_t x);

#endif
