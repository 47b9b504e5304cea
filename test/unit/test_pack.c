/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_metadata_pack's format (metadata/pdata/pack.h): every kind of block
 * round-trips (superblock, internal node, leaf of u64 values, leaf of other
 * values, a node whose header does not fit, over a thousand blocks in more
 * than one chunk) and other blocks unpack as absent; the byte code of a
 * node is the one worked out by hand from the format; every kind of damage
 * (header, chunk length, zlib stream, instruction, block number, block
 * content) is -EUCLEAN and a pack cut at any byte is an error unless cut
 * between chunks. */
#include "lib/base/crc32c.h"
#include "lib/base/io.h"
#include "lib/base/le.h"
#include "lib/base/log.h"
#include "metadata/pdata/pack.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BS PACK_BLOCK_SIZE
#define SALT_SB 160774u
#define SALT_NODE 121107u
#define SALT_BITMAP 240779u

static void seal(unsigned char *b, uint32_t salt)
{
	le32_put(b, tp_block_csum(b, BS, salt));
}

/* A btree node: FLAGS (1 internal, 2 leaf), MAX entries, NR used. */
static void node(unsigned char *b, uint64_t at, uint32_t flags, uint32_t max, uint32_t vsize,
		 const uint64_t *keys, const uint64_t *vals, uint32_t nr)
{
	memset(b, 0, BS);
	le32_put(b + 4, flags);
	le64_put(b + 8, at);
	le32_put(b + 16, nr);
	le32_put(b + 20, max);
	le32_put(b + 24, vsize);
	for (uint32_t i = 0; i < nr; i++) {
		le64_put(b + 32 + 8 * i, keys[i]);
		if (vsize == 8)
			le64_put(b + 32 + 8 * (size_t)max + 8 * i, vals[i]);
	}
}

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static int buf_out(void *ctx, const void *p, size_t n)
{
	struct buf *b = ctx;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			return -ENOMEM;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int to_engine(void *ctx, uint64_t b, const unsigned char *block)
{
	return io_write(ctx, b * BS, block, BS);
}

static uint64_t rs = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* SRC's metadata blocks must come back, its other blocks as zeros. */
static void round_trip(struct io_engine *src, uint64_t nr, uint64_t want_packed)
{
	struct buf out = { 0 };
	struct io_engine *dst;
	uint64_t got_nr = 0, packed = 0;
	unsigned char *s, *d;

	CU_ASSERT_FATAL(!pack_write(src, nr, buf_out, &out, NULL, NULL));
	CU_ASSERT_FATAL(!io_mem_create(nr * BS, "dst", &dst));
	CU_ASSERT_EQUAL(pack_read(out.p, out.len, "p", nr, to_engine, dst, &got_nr, &packed), 0);
	CU_ASSERT_EQUAL(got_nr, nr);
	CU_ASSERT_EQUAL(packed, want_packed);
	s = io_mem_data(src);
	d = io_mem_data(dst);
	for (uint64_t b = 0; b < nr; b++) {
		static const unsigned char zero[BS];
		uint32_t c = le32_get(s + b * BS);
		int meta = c == tp_block_csum(s + b * BS, BS, SALT_SB) ||
			   c == tp_block_csum(s + b * BS, BS, SALT_NODE) ||
			   c == tp_block_csum(s + b * BS, BS, SALT_BITMAP);

		CU_ASSERT(!memcmp(d + b * BS, meta ? s + b * BS : zero, BS));
	}
	/* too small a target: -ENOSPC, nothing handed on */
	CU_ASSERT_EQUAL(pack_read(out.p, out.len, "p", nr - 1, NULL, NULL, NULL, NULL), -ENOSPC);
	io_destroy(dst);
	free(out.p);
}

static void test_round_trip_kinds(void)
{
	enum { NR = 1300 };
	struct io_engine *src;
	unsigned char *m;
	uint64_t keys[508], vals[508], packed = 0;

	CU_ASSERT_FATAL(!io_mem_create((uint64_t)NR * BS, "src", &src));
	m = io_mem_data(src);
	for (uint64_t b = 0; b < NR; b++) {
		unsigned char *blk = m + b * BS;
		uint32_t nr = (uint32_t)(rnd() % 255);

		switch (b % 9) {
		case 0:	/* a superblock-like literal of random bytes */
			for (unsigned i = 4; i < BS; i++)
				blk[i] = (unsigned char)rnd();
			seal(blk, b % 2 ? SALT_SB : SALT_BITMAP);
			break;
		case 1:	/* leaf: ascending keys, mapping values (high and low halves) */
			for (uint32_t i = 0; i < nr; i++) {
				keys[i] = 1000 + i * (1 + b % 3);
				vals[i] = (b + i) << 24 | ((i * 7) & 0xffffff);
			}
			node(blk, b, 2, 254, 8, keys, vals, nr);
			seal(blk, SALT_NODE);
			break;
		case 2:	/* internal: keys with every kind of step, wide values */
			for (uint32_t i = 0; i < nr; i++) {
				keys[i] = i < 20 ? 50 - i : i < 40 ? 7 : i < 60 ? rnd() : ~0ull - i;
				vals[i] = rnd() >> (rnd() % 64);
			}
			node(blk, b, 1, 254, 8, keys, vals, nr);
			seal(blk, SALT_NODE);
			break;
		case 3:	/* leaf of 16-byte values: keys coded, the rest literal */
			for (uint32_t i = 0; i < nr; i++)
				keys[i] = i * i;
			node(blk, b, 2, 126, 16, keys, vals, nr);
			for (unsigned i = 32 + 8 * 126; i < BS; i++)
				blk[i] = (unsigned char)rnd();
			seal(blk, SALT_NODE);
			break;
		case 4:	/* max_entries past the block: goes as a literal */
			node(blk, b, 1, 300 + (uint32_t)(rnd() % 1000), 8, keys, vals, 0);
			seal(blk, SALT_NODE);
			break;
		case 5:	/* leaf of u64 values with no room left (max 254) and tails */
			for (uint32_t i = 0; i < 254; i++) {
				keys[i] = rnd() % 5;
				vals[i] = rnd() % 3 ? vals[i ? i - 1 : 0] : rnd();
			}
			node(blk, b, 2, (uint32_t)(200 + b % 55), 8, keys, vals, 200);
			seal(blk, SALT_NODE);
			break;
		case 6:	/* a node with a bad checksum: not metadata */
			node(blk, b, 1, 254, 8, keys, vals, 3);
			seal(blk, SALT_NODE);
			blk[100] ^= 1;
			break;
		default:	/* random or zero: not metadata */
			if (b % 2)
				for (unsigned i = 0; i < BS; i++)
					blk[i] = (unsigned char)rnd();
			break;
		}
	}
	for (uint64_t b = 0; b < NR; b++)
		packed += b % 9 < 6;
	round_trip(src, NR, packed);
	/* one block only, and a pack of nothing but zeros */
	round_trip(src, 1, 1);
	memset(m, 0, (size_t)NR * BS);
	round_trip(src, 5, 0);
	io_destroy(src);
}

/* The first record of a pack of one block: its block number and code. */
static size_t first_record(const unsigned char *blk, unsigned char *raw, size_t cap)
{
	struct io_engine *src;
	struct buf out = { 0 };
	uLongf n = cap;

	CU_ASSERT_FATAL(!io_mem_create(BS, "one", &src));
	memcpy(io_mem_data(src), blk, BS);
	CU_ASSERT_FATAL(!pack_write(src, 1, buf_out, &out, NULL, NULL));
	CU_ASSERT_FATAL(out.len > 40);
	CU_ASSERT_EQUAL(le64_get(out.p), PACK_MAGIC);
	CU_ASSERT_EQUAL(le64_get(out.p + 8), 3);
	CU_ASSERT_EQUAL(le64_get(out.p + 16), 4096);
	CU_ASSERT_EQUAL(le64_get(out.p + 24), 1);
	CU_ASSERT_EQUAL(le64_get(out.p + 32), out.len - 40);
	CU_ASSERT_EQUAL(uncompress(raw, &n, out.p + 40, out.len - 40), Z_OK);
	io_destroy(src);
	free(out.p);
	return n;
}

static void test_byte_code(void)
{
	/* internal node, 3 of 3 entries: keys 10 9 8, values 5 5 5 */
	static const uint64_t keys[] = { 10, 9, 8 }, vals[] = { 5, 5, 5 };
	static const unsigned char lkeys[] = { 0x01, 10, 0x72, 0x31 }, lvals[] = { 0x01, 5, 0x52 };
	/* leaf 2 of 2: keys 0x100 0x300, values (7 << 24 | 1), (7 << 24 | 2):
	 * shifted run of 2, high 7 7, low 1 2 */
	static const uint64_t lk[] = { 0x100, 0x300 }, lv[] = { 7u << 24 | 1, 7u << 24 | 2 };
	static const unsigned char leaf[] = { 0x02, 0x00, 0x01, 0x22, 0x00, 0x02,
					      0xb0, 2, 0x01, 7, 0x51, 0x01, 1, 0x11 };
	unsigned char blk[BS], raw[16384];
	size_t n, at;

	node(blk, 0, 1, 3, 8, keys, vals, 3);
	seal(blk, SALT_NODE);
	n = first_record(blk, raw, sizeof(raw));
	CU_ASSERT_EQUAL(le64_get(raw), 0);
	CU_ASSERT_EQUAL(raw[8], 0xa1);	/* literal, 1-byte length 32: the header */
	CU_ASSERT_EQUAL(raw[9], 32);
	CU_ASSERT(!memcmp(raw + 10, blk, 32));
	at = 42;
	CU_ASSERT(!memcmp(raw + at, lkeys, sizeof(lkeys)));
	at += sizeof(lkeys);
	CU_ASSERT(!memcmp(raw + at, lvals, sizeof(lvals)));
	at += sizeof(lvals);
	/* the rest (4096 - 32 - 48 = 4016 bytes) as a 2-byte-length literal */
	CU_ASSERT_EQUAL(raw[at], 0xa2);
	CU_ASSERT_EQUAL(le32_get(raw + at + 1) & 0xffff, 4016);
	CU_ASSERT_EQUAL(n, at + 3 + 4016);

	node(blk, 0, 2, 2, 8, lk, lv, 2);
	seal(blk, SALT_NODE);
	n = first_record(blk, raw, sizeof(raw));
	CU_ASSERT(!memcmp(raw + 42, leaf, sizeof(leaf)));
	CU_ASSERT_EQUAL(n, 42 + sizeof(leaf) + 3 + (BS - 32 - 32));

	/* a superblock: one literal of 4096 bytes */
	memset(blk, 0x5a, BS);
	seal(blk, SALT_SB);
	n = first_record(blk, raw, sizeof(raw));
	CU_ASSERT_EQUAL(n, 8 + 3 + BS);
	CU_ASSERT_EQUAL(raw[8], 0xa2);
	CU_ASSERT(!memcmp(raw + 11, blk, BS));
}

/* A pack of NR blocks with one chunk holding RAW (LEN bytes). */
static size_t mkpack(unsigned char *p, size_t cap, uint64_t nr, const void *raw, size_t len)
{
	uLongf n = cap - 40;

	le64_put(p, PACK_MAGIC);
	le64_put(p + 8, 3);
	le64_put(p + 16, 4096);
	le64_put(p + 24, nr);
	CU_ASSERT_FATAL(compress(p + 40, &n, raw, len) == Z_OK);
	le64_put(p + 32, n);
	return 40 + n;
}

/* A record: block number B, then CODE (CLEN bytes). */
static size_t rec(unsigned char *raw, uint64_t b, const void *code, size_t clen)
{
	le64_put(raw, b);
	memcpy(raw + 8, code, clen);
	return 8 + clen;
}

/* The code of a whole valid superblock as a literal. */
static size_t sb_code(unsigned char *code)
{
	code[0] = 0xa2;
	code[1] = 0x00;
	code[2] = 0x10;
	memset(code + 3, 0x11, BS);
	seal(code + 3, SALT_SB);
	return 3 + BS;
}

static int count_blocks(void *ctx, uint64_t b, const unsigned char *block)
{
	(void)b;
	(void)block;
	++*(int *)ctx;
	return 0;
}

static void test_damage(void)
{
	static unsigned char p[65536], raw[32768], code[8192];
	size_t len, rl, cl = sb_code(code);
	int calls = 0;

	/* a valid pack of two records first */
	rl = rec(raw, 0, code, cl);
	rl += rec(raw + rl, 3, code, cl);
	len = mkpack(p, sizeof(p), 4, raw, rl);
	CU_ASSERT_EQUAL(pack_read(p, len, "ok", 4, count_blocks, &calls, NULL, NULL), 0);
	CU_ASSERT_EQUAL(calls, 2);

	/* header */
	CU_ASSERT_EQUAL(pack_read(p, 31, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	p[0] ^= 1;
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	p[0] ^= 1;
	p[8] = 2;
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	p[8] = 3;
	p[17] = 0x20;
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	p[17] = 0x10;
	le64_put(p + 24, 0);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	/* implausibly many blocks: a damaged header, whatever the target */
	le64_put(p + 24, ~0ull);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", ~0ull, NULL, NULL, NULL, NULL), -EUCLEAN);
	le64_put(p + 24, 1ull << 62);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 1ull << 22, NULL, NULL, NULL, NULL), -EUCLEAN);
	le64_put(p + 24, PACK_MAX_BLOCKS + 1);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", ~0ull, NULL, NULL, NULL, NULL), -EUCLEAN);
	/* plausible, more than the target: no room */
	le64_put(p + 24, (1ull << 22) + 1);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 1ull << 22, NULL, NULL, NULL, NULL), -ENOSPC);
	le64_put(p + 24, 4);
	{
		uint64_t nr = 0;

		CU_ASSERT_EQUAL(pack_header(p, "x", 4, &nr), 0);
		CU_ASSERT_EQUAL(nr, 4);
		CU_ASSERT_EQUAL(pack_header(p, "x", 3, &nr), -ENOSPC);
		CU_ASSERT(pack_is_pack(p, 8));
		CU_ASSERT(!pack_is_pack(p, 7));
		CU_ASSERT(!pack_is_pack("<superblock uuid=\"\"", 8));
	}

	/* chunk length: zero, past the end, huge, a partial length after */
	le64_put(p + 32, 0);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	le64_put(p + 32, len - 40 + 1);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	le64_put(p + 32, ~0ull);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	le64_put(p + 32, len - 40);
	CU_ASSERT_EQUAL(pack_read(p, len + 5, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);

	/* zlib stream: damaged, cut short (every length), bytes after its end */
	p[45] ^= 0xff;
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	p[45] ^= 0xff;
	for (size_t cut = 41; cut < len; cut++) {
		le64_put(p + 32, cut - 40);
		CU_ASSERT_EQUAL(pack_read(p, cut, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	}
	le64_put(p + 32, len - 40 + 2);
	p[len] = p[len + 1] = 0;
	CU_ASSERT_EQUAL(pack_read(p, len + 2, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);

	/* records: past the area, twice, not metadata, cut short */
	rl = rec(raw, 4, code, cl);
	len = mkpack(p, sizeof(p), 4, raw, rl);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	rl = rec(raw, 2, code, cl);
	rl += rec(raw + rl, 2, code, cl);
	len = mkpack(p, sizeof(p), 4, raw, rl);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	code[100] ^= 1;
	rl = rec(raw, 1, code, cl);
	len = mkpack(p, sizeof(p), 4, raw, rl);
	CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	code[100] ^= 1;
	for (size_t cut = 1; cut < cl + 8; cut += cut < 20 ? 1 : 500) {
		len = mkpack(p, sizeof(p), 4, raw, cut);
		CU_ASSERT_EQUAL(pack_read(p, len, "x", 4, NULL, NULL, NULL, NULL), -EUCLEAN);
	}
}

/* Bad instructions, each at the start of block 0's code. */
static void test_bad_code(void)
{
	static const struct {
		unsigned char code[8];
		size_t len;
	} bad[] = {
		{ { 0xc0 }, 1 },		/* unknown tag */
		{ { 0xf3 }, 1 },		/* unknown tag */
		{ { 0x03, 1, 2, 3 }, 4 },	/* width 3 */
		{ { 0x20, 1 }, 2 },		/* width 0 */
		{ { 0xa2, 0x01, 0x10 }, 3 },	/* literal of 4097 */
		{ { 0xa8, 0, 0, 0, 0, 0, 0, 0 }, 8 },	/* literal of 2^56 (cut) */
		{ { 0x73, 0x91, 0 }, 3 },	/* repeat before a literal */
		{ { 0x72, 0x53 }, 2 },		/* repeat before a constant run */
		{ { 0x01, 1, 0x6f, 0xff }, 4 },	/* constant run of 4095 */
		{ { 0x8f, 0xff, 0x11 }, 3 },	/* 4095 steps */
		{ { 0xb2, 0x01 }, 2 },		/* shifted run of 513 */
		{ { 0xb0, 1, 0xb0, 1 }, 4 },	/* nested shifted run */
	};
	static unsigned char p[65536], raw[16384];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t rl = rec(raw, 0, bad[i].code, bad[i].len), len;

		/* pad with literals of zeros, so that only the instruction is wrong */
		for (int k = 0; k < 300; k++) {
			raw[rl++] = 0x9f;
			memset(raw + rl, 0, 15);
			rl += 15;
		}
		len = mkpack(p, sizeof(p), 1, raw, rl);
		CU_ASSERT_EQUAL(pack_read(p, len, "x", 1, NULL, NULL, NULL, NULL), -EUCLEAN);
	}
}

/* A pack cut at any byte: an error, unless between chunks (then the
 * blocks before the cut). */
static void test_cut_anywhere(void)
{
	enum { NR = 2100 };
	struct io_engine *src;
	struct buf out = { 0 };
	unsigned char *m;
	size_t bound[8], nb = 0;

	CU_ASSERT_FATAL(!io_mem_create((uint64_t)NR * BS, "src", &src));
	m = io_mem_data(src);
	for (uint64_t b = 0; b < NR; b++) {
		le64_put(m + b * BS + 8, b);
		seal(m + b * BS, SALT_BITMAP);
	}
	CU_ASSERT_FATAL(!pack_write(src, NR, buf_out, &out, NULL, NULL));
	/* 2100 blocks: chunks of 1024, 1024, 52 */
	for (size_t at = 32; at < out.len && nb < 8; at += 8 + le64_get(out.p + at))
		bound[nb++] = at;
	CU_ASSERT_EQUAL(nb, 3);
	for (size_t cut = 0; cut < out.len; cut += cut < 200 ? 1 : 97) {
		uint64_t packed = 0;
		int r = pack_read(out.p, cut, "cut", NR, NULL, NULL, NULL, &packed), edge = 0;

		for (size_t i = 0; i < nb; i++)
			edge |= cut == bound[i];
		if (edge) {
			CU_ASSERT_EQUAL(r, 0);
			CU_ASSERT_EQUAL(packed, cut == bound[0] ? 0 : cut == bound[1] ? 1024 : 2048);
		} else {
			CU_ASSERT_EQUAL(r, -EUCLEAN);
		}
	}
	io_destroy(src);
	free(out.p);
}

/* The damage tests log an error each: quiet while the suite runs, the
 * verbosity put back after (suites that read the log follow). */
static int saved_verbosity;

static int quiet(void)
{
	saved_verbosity = tp_log_verbosity();
	tp_log_set_verbosity(-2);
	return 0;
}

static int unquiet(void)
{
	tp_log_set_verbosity(saved_verbosity);
	return 0;
}

TP_TEST_SUITE(pack, quiet, unquiet,
	      { "round trip of every kind of block", test_round_trip_kinds },
	      { "byte code worked out by hand", test_byte_code },
	      { "damaged header, chunks, stream and records", test_damage },
	      { "bad instructions", test_bad_code },
	      { "a pack cut at any byte", test_cut_anywhere })
