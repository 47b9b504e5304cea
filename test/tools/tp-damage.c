/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-damage - damage thin metadata on purpose (test tool, not installed).
 *
 *   tp-damage IMAGE zero BLOCK            zero a whole block
 *   tp-damage IMAGE flip BLOCK BYTE BIT   flip one bit (checksum left stale)
 *   tp-damage IMAGE csum BLOCK            break the block's checksum only
 *   tp-damage IMAGE leak meta|data        mark a free block as used (count 1)
 *   tp-damage IMAGE count meta|data BLOCK N   set a block's count (0..2), bitmap
 *                                         rewritten with a valid checksum
 *   tp-damage IMAGE index meta|data nr_free|nfb N   set the first bitmap's index
 *                                         entry field (valid checksum)
 *   tp-damage IMAGE mapped DEV N          set DEV's mapped_blocks (valid checksum)
 *   tp-damage IMAGE sb magic|version|mbs  break a superblock field (valid checksum)
 *   tp-damage IMAGE sb needs_check        set the NEEDS_CHECK flag, as the kernel does
 *                                         after a metadata error (valid checksum)
 *   tp-damage IMAGE trans N               set the transaction id (valid checksum)
 *   tp-damage IMAGE find DEV VBLOCK [LEVEL]   print "BLOCK LO HI" of the node at
 *                                         LEVEL above the leaf (0 = the leaf) of
 *                                         DEV's tree on the path to VBLOCK, and
 *                                         the key range [LO, HI) its parent allows
 *   tp-damage IMAGE root details|mapping  print the superblock's tree root
 *   tp-damage IMAGE truncate BYTES
 *
 * --offset BYTES[,LENGTH] before IMAGE: the thin metadata is the area at
 * that offset of IMAGE (a pool device's active or spare area; LENGTH 0 or
 * none: up to the end), block numbers count from the area's start;
 * truncate still cuts the whole file.
 *
 * Only for the first bitmap of each space map (test images are small).
 * Exit 0, or 1 with a message. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/crc32c.h"
#include "lib/base/io.h"
#include "lib/base/io_area.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/thin_sb.h"

static struct io_engine *io;

static void die(const char *msg)
{
	fprintf(stderr, "tp-damage: %s\n", msg);
	exit(1);
}

static void rd(uint64_t b, unsigned char *d)
{
	if (io_read(io, b * 4096, d, 4096))
		die("read failed");
}

static void wr(uint64_t b, const unsigned char *d, uint32_t salt)
{
	unsigned char c[4096];

	memcpy(c, d, 4096);
	if (salt)
		le32_put(c, tp_block_csum(c, 4096, salt));
	if (io_write(io, b * 4096, c, 4096) || io_flush(io))
		die("write failed");
}

static struct thin_sb sb(void)
{
	unsigned char d[4096];
	struct thin_sb s;

	rd(0, d);
	thin_sb_unpack(d, &s);
	return s;
}

/* Block of the first bitmap of the metadata or data space map. */
static uint64_t first_bitmap(int data)
{
	struct thin_sb s = sb();
	unsigned char d[4096];

	if (!data) {
		rd(s.meta_sm.bitmap_root, d);
		return le64_get(d + 16);
	}
	uint64_t b = s.data_sm.bitmap_root;
	for (;;) {
		rd(b, d);
		if (bn_is_leaf(d))
			return le64_get(bn_value(d, 0));
		b = bn_value64(d, 0);
	}
}

static unsigned get_count(const unsigned char *bm, uint64_t i)
{
	uint64_t w = le64_get(bm + 16 + 8 * (i / 32));
	unsigned p = 2 * (i % 32);
	return (unsigned)(((w >> p) & 1) * 2 + ((w >> (p + 1)) & 1));
}

static void set_count(unsigned char *bm, uint64_t i, unsigned v)
{
	uint64_t w = le64_get(bm + 16 + 8 * (i / 32));
	unsigned p = 2 * (i % 32);
	w &= ~(3ull << p);
	if (v & 2)
		w |= 1ull << p;
	if (v & 1)
		w |= 1ull << (p + 1);
	le64_put(bm + 16 + 8 * (i / 32), w);
}

/* Descend TREE from ROOT towards KEY; returns the node at HEIGHT above
 * the leaf with the allowed range. */
static uint64_t descend(uint64_t root, uint64_t key, unsigned height, uint64_t *lo, uint64_t *hi)
{
	uint64_t path[BTREE_MAX_DEPTH], plo[BTREE_MAX_DEPTH], phi[BTREE_MAX_DEPTH];
	unsigned char d[4096];
	unsigned n = 0;
	uint64_t b = root, l = 0, h = UINT64_MAX;

	for (;;) {
		if (n == BTREE_MAX_DEPTH)
			die("tree too deep");
		path[n] = b;
		plo[n] = l;
		phi[n++] = h;
		rd(b, d);
		if (bn_is_leaf(d))
			break;
		int i = bn_lower_bound(d, key);
		if (i < 0)
			die("key below the tree");
		l = i ? bn_key(d, (uint32_t)i) : l;
		h = (uint32_t)i + 1 < bn_nr(d) ? bn_key(d, (uint32_t)i + 1) : h;
		b = bn_value64(d, (uint32_t)i);
	}
	if (height >= n)
		die("tree is not that high");
	*lo = plo[n - 1 - height];
	*hi = phi[n - 1 - height];
	return path[n - 1 - height];
}

/* DEV's entry in the top-level tree ROOT (details or mappings): its leaf
 * read into D, *LEAF its block; the entry's index, or die. */
static uint32_t dev_entry(uint64_t root, uint64_t dev, unsigned char *d, uint64_t *leaf)
{
	uint64_t lo, hi;
	int i;

	*leaf = descend(root, dev, 0, &lo, &hi);
	rd(*leaf, d);
	i = bn_lower_bound(d, dev);
	if (i < 0 || bn_key(d, (uint32_t)i) != dev)
		die("no such device");
	return (uint32_t)i;
}

int main(int argc, char **argv)
{
	unsigned char d[4096];
	uint64_t area_off = 0, area_len = 0;

	if (argc > 2 && !strcmp(argv[1], "--offset")) {
		char *end;
		area_off = strtoull(argv[2], &end, 0);
		if (*end == ',')
			area_len = strtoull(end + 1, &end, 0);
		if (*end)
			die("--offset BYTES[,LENGTH]");
		argc -= 2;
		argv += 2;
	}
	if (argc < 3)
		die("usage: tp-damage [--offset BYTES[,LENGTH]] IMAGE ACTION ARGS (see the source "
		    "header)");
	if (area_off || area_len ? io_open_area(argv[1], 0, area_off, area_len, &io)
				 : io_fd_open(argv[1], 0, &io))
		die("cannot open the image");
	const char *a = argv[2];
	if (!strcmp(a, "zero") && argc == 4) {
		memset(d, 0, sizeof(d));
		wr(strtoull(argv[3], NULL, 0), d, 0);
	} else if (!strcmp(a, "flip") && argc == 6) {
		uint64_t b = strtoull(argv[3], NULL, 0);
		rd(b, d);
		d[strtoul(argv[4], NULL, 0) % 4096] ^= (unsigned char)(1u << (atoi(argv[5]) & 7));
		wr(b, d, 0);
	} else if (!strcmp(a, "csum") && argc == 4) {
		uint64_t b = strtoull(argv[3], NULL, 0);
		rd(b, d);
		d[0] ^= 0x5a;
		wr(b, d, 0);
	} else if (!strcmp(a, "leak") && argc == 4) {
		int data = !strcmp(argv[3], "data");
		uint64_t bm = first_bitmap(data), i;
		struct thin_sb s = sb();
		uint64_t nr = data ? s.data_sm.nr_blocks : s.meta_sm.nr_blocks;
		rd(bm, d);
		for (i = nr < SM_ENTRIES_PER_BITMAP ? nr : SM_ENTRIES_PER_BITMAP; i-- > 0;)
			if (!get_count(d, i))
				break;
		if (i == UINT64_MAX)
			die("no free block to leak");
		set_count(d, i, 1);
		wr(bm, d, SM_BITMAP_CSUM_XOR);
		printf("%" PRIu64 "\n", i);
	} else if (!strcmp(a, "count") && argc == 6) {
		uint64_t bm = first_bitmap(!strcmp(argv[3], "data"));
		rd(bm, d);
		set_count(d, strtoull(argv[4], NULL, 0), (unsigned)atoi(argv[5]) & 3);
		wr(bm, d, SM_BITMAP_CSUM_XOR);
	} else if (!strcmp(a, "index") && argc == 6) {
		struct thin_sb s = sb();
		int data = !strcmp(argv[3], "data");
		unsigned off = !strcmp(argv[4], "nfb") ? 12 : 8;
		uint64_t b = data ? s.data_sm.bitmap_root : s.meta_sm.bitmap_root;
		rd(b, d);
		if (data) {
			while (!bn_is_leaf(d)) {
				b = bn_value64(d, 0);
				rd(b, d);
			}
			le32_put(bn_value(d, 0) + off, (uint32_t)strtoul(argv[5], NULL, 0));
			wr(b, d, BTREE_CSUM_XOR);
		} else {
			le32_put(d + 16 + off, (uint32_t)strtoul(argv[5], NULL, 0));
			wr(b, d, SM_INDEX_CSUM_XOR);
		}
	} else if (!strcmp(a, "mapped") && argc == 5) {
		uint64_t b;
		uint32_t i = dev_entry(sb().details_root, strtoull(argv[3], NULL, 0), d, &b);
		le64_put(bn_value(d, i), strtoull(argv[4], NULL, 0));
		wr(b, d, BTREE_CSUM_XOR);
	} else if (!strcmp(a, "sb") && argc == 4) {
		rd(0, d);
		if (!strcmp(argv[3], "magic"))
			le64_put(d + 0x20, 12345);
		else if (!strcmp(argv[3], "version"))
			le32_put(d + 0x28, 7);
		else if (!strcmp(argv[3], "mbs"))
			le32_put(d + 0x154, 16);
		else if (!strcmp(argv[3], "needs_check"))
			le32_put(d + 0x04, le32_get(d + 0x04) | 1u);
		else
			die("sb magic|version|mbs|needs_check");
		wr(0, d, THIN_SB_CSUM_XOR);
	} else if (!strcmp(a, "trans") && argc == 4) {
		rd(0, d);
		le64_put(d + 0x30, strtoull(argv[3], NULL, 0));
		wr(0, d, THIN_SB_CSUM_XOR);
	} else if (!strcmp(a, "find") && (argc == 5 || argc == 6)) {
		uint64_t lo, hi, top;
		uint32_t i = dev_entry(sb().mapping_root, strtoull(argv[3], NULL, 0), d, &top);
		uint64_t b = descend(bn_value64(d, i), strtoull(argv[4], NULL, 0),
				     argc == 6 ? (unsigned)atoi(argv[5]) : 0, &lo, &hi);
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", b, lo, hi);
	} else if (!strcmp(a, "root") && argc == 4) {
		struct thin_sb s = sb();
		printf("%" PRIu64 "\n", strcmp(argv[3], "details") ? s.mapping_root : s.details_root);
	} else if (!strcmp(a, "truncate") && argc == 4) {
		if (truncate(argv[1], (off_t)strtoull(argv[3], NULL, 0)))
			die("truncate failed");
	} else {
		die("unknown action or wrong arguments");
	}
	io_destroy(io);
	return 0;
}
