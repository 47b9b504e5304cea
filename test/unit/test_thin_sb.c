/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one superblock check (thin_sb_check): each rule alone on a valid
 * superblock, its class (unusable / fatal / non-fatal), and the contract
 * between its users: thin_open refuses exactly what tpcheck calls fatal
 * (compat_ro only for writers), thin_sb_read exactly the unusable ones. */
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/thin/check.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <string.h>

#define AREA 1024u	/* blocks (4 MiB) */

static struct thin_sb good(void)
{
	struct thin_sb sb = { 0 };

	sb.version = 2;
	sb.metadata_block_size = 8;
	sb.data_block_size = 128;
	sb.meta_sm.nr_blocks = AREA;
	sb.metadata_nr_blocks = AREA;
	sb.data_sm.nr_blocks = 10000;
	sb.mapping_root = 5;
	sb.details_root = 6;
	return sb;
}

struct rule {
	const char *name;
	void (*damage)(struct thin_sb *sb);
	enum thin_sb_fault fault;
};

static void incompat(struct thin_sb *sb) { sb->incompat = 1; }
static void no_root(struct thin_sb *sb) { sb->details_root = 0; }
static void dbs(struct thin_sb *sb) { sb->data_block_size = 100; }
static void version3(struct thin_sb *sb) { sb->version = 3; }
static void version1(struct thin_sb *sb) { sb->version = 1; }
static void mbs(struct thin_sb *sb) { sb->metadata_block_size = 16; }
static void compat_ro(struct thin_sb *sb) { sb->compat_ro = 2; }
static void meta_size(struct thin_sb *sb) { sb->meta_sm.nr_blocks = AREA + 1; }
static void data_size(struct thin_sb *sb) { sb->data_sm.nr_blocks = (uint64_t)AREA * 16320; }
static void nr_blocks(struct thin_sb *sb) { sb->metadata_nr_blocks = 0; }
static void held(struct thin_sb *sb) { sb->held_root = AREA; }

static const struct rule rules[] = {
	{ "incompat", incompat, THIN_SBF_INCOMPAT },
	{ "no_root", no_root, THIN_SBF_NO_ROOTS },
	{ "dbs", dbs, THIN_SBF_DATA_BLOCK_SIZE },
	{ "version3", version3, THIN_SBF_VERSION },
	{ "version1", version1, THIN_SBF_VERSION_OLD },
	{ "mbs", mbs, THIN_SBF_METADATA_BLOCK_SIZE },
	{ "compat_ro", compat_ro, THIN_SBF_COMPAT_RO },
	{ "meta_size", meta_size, THIN_SBF_META_SIZE },
	{ "data_size", data_size, THIN_SBF_DATA_SIZE },
	{ "nr_blocks", nr_blocks, THIN_SBF_METADATA_NR_BLOCKS },
	{ "held", held, THIN_SBF_HELD_ROOT },
};

#define NR_RULES (sizeof(rules) / sizeof(rules[0]))

static void test_each_rule(void)
{
	struct thin_sb sb = good();

	CU_ASSERT_EQUAL(thin_sb_check(&sb, 0, AREA), 0);
	for (size_t i = 0; i < NR_RULES; i++) {
		sb = good();
		rules[i].damage(&sb);
		CU_ASSERT_EQUAL(thin_sb_check(&sb, 0, AREA), THIN_SB_BIT(rules[i].fault));
		CU_ASSERT(strlen(thin_sb_fault_str(rules[i].fault)) > 0);
	}
	/* the data block size is a rule of block 0 only (snapshot copies) */
	sb = good();
	dbs(&sb);
	CU_ASSERT_EQUAL(thin_sb_check(&sb, 7, AREA), 0);
	/* a bad metadata size hides the rules that depend on it */
	sb = good();
	meta_size(&sb);
	held(&sb);
	nr_blocks(&sb);
	CU_ASSERT_EQUAL(thin_sb_check(&sb, 0, AREA), THIN_SB_BIT(THIN_SBF_META_SIZE));
}

static void test_classes(void)
{
	unsigned nonfatal = THIN_SB_BIT(THIN_SBF_VERSION_OLD) |
			    THIN_SB_BIT(THIN_SBF_METADATA_NR_BLOCKS);

	CU_ASSERT_EQUAL(THIN_SB_NONFATAL, nonfatal);
	CU_ASSERT_EQUAL(THIN_SB_FATAL & THIN_SB_NONFATAL, 0);
	CU_ASSERT_EQUAL(THIN_SB_FATAL | THIN_SB_NONFATAL, (1u << THIN_SBF_NR_FAULTS) - 1);
	CU_ASSERT_EQUAL(THIN_SB_UNUSABLE & ~THIN_SB_FATAL, 0);
	CU_ASSERT(thin_sb_data_size_ok(16320 * 3, 4));
	CU_ASSERT(!thin_sb_data_size_ok(16320 * 4, 4));
	CU_ASSERT(!thin_sb_data_size_ok((1ull << 40) + 1, 1ull << 40));
}

/* A formatted area with rule I applied to its superblock. */
static struct io_engine *damaged(size_t i)
{
	struct io_engine *io;
	struct thin_md *md;
	struct thin_sb sb;
	unsigned char *blk;

	if (io_mem_create((size_t)AREA * 4096, "sb", &io))
		return NULL;
	if (thin_format(io, 128, 10000, &md) || thin_commit(md)) {
		io_destroy(io);
		return NULL;
	}
	thin_close(md);
	if (thin_sb_read(io, 0, &sb)) {
		io_destroy(io);
		return NULL;
	}
	rules[i].damage(&sb);
	blk = io_mem_data(io);
	thin_sb_pack(blk, &sb);
	thin_sb_validator.prepare(blk, 0);
	return io;
}

static void test_open_matches_check(void)
{
	struct tp_log_capture cap;

	tp_log_capture(&cap);
	for (size_t i = 0; i < NR_RULES; i++) {
		struct io_engine *io = damaged(i);
		enum thin_sb_fault f = rules[i].fault;
		int fatal = (THIN_SB_FATAL & THIN_SB_BIT(f)) != 0;
		struct thin_check_report rep;
		struct thin_md *md = NULL;
		struct thin_sb sb;
		int r;

		CU_ASSERT_FATAL(io != NULL);
		CU_ASSERT_EQUAL(thin_sb_read(io, 0, &sb),
				(THIN_SB_UNUSABLE & THIN_SB_BIT(f)) ? -EUCLEAN : 0);
		CU_ASSERT_EQUAL(thin_check_io(io, NULL, &rep), 0);
		CU_ASSERT_EQUAL(rep.f.verdict, fatal ? THIN_CHECK_FATAL : THIN_CHECK_NONFATAL);
		thin_check_report_free(&rep);
		r = thin_open(io, 0, &md);
		if (f == THIN_SBF_COMPAT_RO)
			CU_ASSERT_EQUAL(r, -EROFS)
		else
			CU_ASSERT_EQUAL(r, fatal ? -EUCLEAN : 0)
		thin_close(md);
		md = NULL;
		if (f == THIN_SBF_COMPAT_RO) {	/* readers may go on */
			CU_ASSERT_EQUAL(thin_open(io, THIN_RDONLY, &md), 0);
			thin_close(md);
		}
		io_destroy(io);
	}
	tp_log_capture(NULL);
}

TP_TEST_SUITE(thin_sb, NULL, NULL,
	      { "each_rule", test_each_rule },
	      { "classes", test_classes },
	      { "open_matches_check", test_open_matches_check })
