/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c: check value, table vs instruction, block checksum examples. */
#include "lib/base/crc32c.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <stdlib.h>
#include <string.h>

static void test_check_value(void)
{
	const char *s = "123456789";
	CU_ASSERT_EQUAL(tp_crc32c_sw(0xffffffffu, s, 9) ^ 0xffffffffu, 0xe3069283u);
	CU_ASSERT_EQUAL(tp_crc32c(0xffffffffu, s, 9) ^ 0xffffffffu, 0xe3069283u);
	if (tp_crc32c_hw_available())
		CU_ASSERT_EQUAL(tp_crc32c_hw(0xffffffffu, s, 9) ^ 0xffffffffu, 0xe3069283u);
	CU_ASSERT_EQUAL(tp_crc32c_sw(0xffffffffu, s, 0), 0xffffffffu);
}

static void test_hw_matches_sw(void)
{
	unsigned char buf[8200];
	unsigned seed = 12345;

	if (!tp_crc32c_hw_available()) {
		CU_PASS("no SSE4.2 on this CPU; table version only");
		return;
	}
	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
	/* every alignment and many lengths, including odd tails */
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; len + off <= sizeof(buf); len += 37)
			CU_ASSERT_EQUAL(tp_crc32c_hw(0x1234u, buf + off, len),
					tp_crc32c_sw(0x1234u, buf + off, len));
	/* around one and two rounds of three lanes (4080 bytes; a metadata
	 * block checksums 4092) */
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 4070; len + off <= sizeof(buf); len += len < 4110 ? 1 : 19)
			CU_ASSERT_EQUAL(tp_crc32c_hw(0x1234u, buf + off, len),
					tp_crc32c_sw(0x1234u, buf + off, len));
}

/* The instruction's path against the table on random buffers, lengths
 * (up to several rounds of three lanes, with and without the prefetch of
 * the next round) and alignments, from random seeds; and a byte changed
 * anywhere changes the sum the same way in both. */
static void test_hw_random(void)
{
	size_t max = 64u << 10;
	unsigned char *buf = malloc(max + 16);
	uint64_t st = 0x9e3779b97f4a7c15ull;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	if (!tp_crc32c_hw_available()) {
		CU_PASS("no SSE4.2 on this CPU; table version only");
		free(buf);
		return;
	}
	for (size_t i = 0; i < max + 16; i++)
		buf[i] = (unsigned char)tp_test_xorshift64(&st);
	for (unsigned n = 0; n < 400; n++) {
		size_t off = tp_test_xorshift64(&st) % 16;
		size_t len = tp_test_xorshift64(&st) % (n < 200 ? 13000 : max + 1);
		uint32_t seed = (uint32_t)tp_test_xorshift64(&st);
		uint32_t sw = tp_crc32c_sw(seed, buf + off, len);

		CU_ASSERT_EQUAL(tp_crc32c_hw(seed, buf + off, len), sw);
		if (len) {
			size_t at = off + tp_test_xorshift64(&st) % len;

			buf[at] ^= 0x10;
			CU_ASSERT_EQUAL(tp_crc32c_hw(seed, buf + off, len),
					tp_crc32c_sw(seed, buf + off, len));
			CU_ASSERT_NOT_EQUAL(tp_crc32c_hw(seed, buf + off, len), sw);
			buf[at] ^= 0x10;
		}
	}
	free(buf);
}

static void test_block_examples(void)
{
	/* an empty btree leaf at block 8 and its checksum, as the kernel
	 * writes them */
	unsigned char b[4096];
	memset(b, 0, sizeof(b));
	b[4] = 2;		/* flags = LEAF */
	b[8] = 8;		/* blocknr */
	b[20] = 252;		/* max_entries */
	b[24] = 8;		/* value_size */
	CU_ASSERT_EQUAL(tp_block_csum(b, 4096, 121107), 0xcb6f3068u);
	/* all-zero block as a superblock: thin_check's "wanted 1490015127" */
	memset(b, 0, sizeof(b));
	CU_ASSERT_EQUAL(tp_block_csum(b, 4096, 160774), 1490015127u);
	/* empty bitmap at block 10 */
	b[8] = 10;
	CU_ASSERT_EQUAL(tp_block_csum(b, 4096, 240779), 0x58a67d79u);
}

/* The sum of A then B joined from the sums of A and of B alone; and the
 * two-thread sum equal to the one-thread sum, around its threshold. */
static void test_join_and_pair(void)
{
	size_t n = TP_CRC32C_PAIR_MIN * 2 + 4099;
	unsigned char *buf = malloc(n);
	struct tp_crc32c_pair *pair = NULL;
	unsigned seed = 777;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
	for (size_t a = 0; a < 5000; a += 613) {
		size_t b = 9000 - a;
		uint32_t whole = tp_crc32c_sw(0xffffffffu, buf, a + b);
		uint32_t first = tp_crc32c_sw(0xffffffffu, buf, a);
		CU_ASSERT_EQUAL(tp_crc32c_shift(first, b) ^ tp_crc32c_sw(0, buf + a, b), whole);
	}
	CU_ASSERT_EQUAL(tp_crc32c_shift(0x1234u, 0), 0x1234u);
	CU_ASSERT_EQUAL(tp_crc32c_pair_start(&pair), 0);
	for (size_t len = TP_CRC32C_PAIR_MIN - 3; len <= n; len += 65537)
		for (size_t off = 0; off < 3; off++)
			CU_ASSERT_EQUAL(tp_crc32c_pair(pair, 0xffffffffu, buf + off, len - off),
					tp_crc32c(0xffffffffu, buf + off, len - off));
	CU_ASSERT_EQUAL(tp_crc32c_pair(NULL, 7u, buf, n), tp_crc32c(7u, buf, n));
	tp_crc32c_pair_end(pair);
	tp_crc32c_pair_end(NULL);
	free(buf);
}

TP_TEST_SUITE(crc32c, NULL, NULL,
	      { "the sums of two pieces joined; two threads", test_join_and_pair },
	      { "standard check value", test_check_value },
	      { "instruction equals table", test_hw_matches_sw },
	      { "instruction equals table: random lengths and alignments", test_hw_random },
	      { "dm block checksum examples", test_block_examples })
