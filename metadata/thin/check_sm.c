/* check_sm.c - the space-map index entries (format doc 4.2), which neither
 * the kernel nor thin_check 0.9.0 validates: every bitmap's nr_free must
 * equal its free entries (the kernel counts all 16320, thin_restore 0.9.0
 * stops at the end of the device and, in the metadata map, counts one
 * freed scratch block as used: all three are accepted) and
 * none_free_before must not hide a free entry. Wrong values are non-fatal
 * (they only steer allocation), reported per bitmap. thin_restore's
 * none_free_before may hide its one scratch block in the metadata map. */
#include "metadata/thin/check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lib/base/crc32c.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/le.h"

struct entry {
	uint32_t nr_free, nfb;
	int present;
};

static int read_block(struct chk *c, uint64_t b, unsigned char *n)
{
	return b < c->nr_meta ? io_read(c->io, b * BM_BLOCK_SIZE, n, BM_BLOCK_SIZE) : -EUCLEAN;
}

static int data_entries(struct chk *c, uint64_t b, struct entry *e, uint64_t nb, int depth)
{
	unsigned char n[BM_BLOCK_SIZE];
	int r;

	if (depth > BTREE_MAX_DEPTH || (r = read_block(c, b, n)) ||
	    le32_get(n) != tp_block_csum(n, BM_BLOCK_SIZE, BTREE_CSUM_XOR) ||
	    bn_max(n) > btree_max_entries(8) || bn_nr(n) > bn_max(n))
		return -EUCLEAN;	/* sm_open read it: not reached on a stable image */
	for (uint32_t i = 0; i < bn_nr(n); i++) {
		if (bn_flags(n) == BTREE_NODE_INTERNAL) {
			if ((r = data_entries(c, bn_value64(n, i), e, nb, depth + 1)))
				return r;
			continue;
		}
		uint64_t k = bn_key(n, i);
		if (bn_vsize(n) != SM_INDEX_ENTRY_SIZE || bn_max(n) > btree_max_entries(16))
			return -EUCLEAN;
		if (k < nb) {
			const unsigned char *v = (const unsigned char *)bn_value(n, i);
			e[k] = (struct entry){ le32_get(v + 8), le32_get(v + 12), 1 };
		}
	}
	return 0;
}

static int read_entries(struct chk *c, int data, struct entry *e, uint64_t nb)
{
	unsigned char n[BM_BLOCK_SIZE];
	int r;

	if (data)
		return data_entries(c, c->sb.data_sm.bitmap_root, e, nb, 0);
	if ((r = read_block(c, c->sb.meta_sm.bitmap_root, n)))
		return r;
	for (uint64_t i = 0; i < nb && i < SM_MAX_METADATA_BITMAPS; i++) {
		const unsigned char *v = n + 16 + i * SM_INDEX_ENTRY_SIZE;
		e[i] = (struct entry){ le32_get(v + 8), le32_get(v + 12), 1 };
	}
	return 0;
}

int check_index_entries(struct chk *c, int data, const uint32_t *free_in_dev,
			const uint32_t *first_free, const uint32_t *second_free, uint64_t nb)
{
	const char *what = data ? "data" : "metadata";
	uint64_t nr = data ? c->nr_data : c->nr_meta;
	struct entry *e = calloc(nb ? nb : 1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	if ((r = read_entries(c, data, e, nb))) {
		free(e);
		return r == -ENOMEM ? r : 0;	/* the open already reported it */
	}
	for (uint64_t i = 0; i < nb; i++) {
		uint64_t covered = TP_MIN((uint64_t)SM_ENTRIES_PER_BITMAP,
					  nr - i * SM_ENTRIES_PER_BITMAP);
		uint32_t kernel = free_in_dev[i] + (uint32_t)(SM_ENTRIES_PER_BITMAP - covered);
		uint32_t got = e[i].nr_free;
		if (!e[i].present)
			continue;	/* a missing entry fails the open */
		if (got != kernel && got != free_in_dev[i] &&
		    (data || (got + 1 != kernel && got + 1 != free_in_dev[i])))
			check_problem(c, 0, UINT64_MAX, "%s space map: bitmap %" PRIu64 " says %"
				      PRIu32 " free entries, it has %" PRIu32, what, i, got,
				      free_in_dev[i]);
		/* thin_restore 0.9.0 hides its one freed scratch block */
		if (e[i].nfb > (data ? first_free[i] : second_free[i]))
			check_problem(c, 0, UINT64_MAX, "%s space map: bitmap %" PRIu64
				      " none_free_before %" PRIu32 " hides free entry %" PRIu32,
				      what, i, e[i].nfb, first_free[i]);
	}
	free(e);
	return 0;
}
