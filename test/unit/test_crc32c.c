/* crc32c: check value, table vs instruction, block checksum examples. */
#include "lib/base/crc32c.h"
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

static void test_block_examples(void)
{
	/* THIN-METADATA-FORMAT.md 2.3: empty btree leaf at block 8. */
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

TP_TEST_SUITE(crc32c, NULL, NULL,
	      { "standard check value", test_check_value },
	      { "instruction equals table", test_hw_matches_sw },
	      { "dm block checksum examples", test_block_examples })
