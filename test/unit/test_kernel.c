/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kernel/: dm names and uuids, table lines, status parsing (the pure
 * parts; the ioctls are tested on the real kernel by test/vm). */
#include "kernel/dm.h"
#include "lib/base/log.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <libdevmapper.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_names(void)
{
	char buf[TP_DM_NAME_MAX];

	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "vault", TP_DM_ROLE_THIN, "www"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-www");
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "vault", TP_DM_ROLE_POOL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-tpool");
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "vault", TP_DM_ROLE_TMETA, "ignored"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-tmeta");
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "vault", TP_DM_ROLE_TDATA, NULL), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-tdata");
	/* '-' doubled inside each part, LVM style */
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "my-pool", TP_DM_ROLE_THIN, "a-b-"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "my--pool-a--b--");
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "my-pool", TP_DM_ROLE_POOL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(buf, "my--pool-tpool");
}

/* libdevmapper's own splitter reads our names back (the udev rules use
 * `dmsetup splitname`, which calls it). */
static void expect_split(const char *pool, const char *vol)
{
	char buf[TP_DM_NAME_MAX];
	struct dm_pool *mem = dm_pool_create("test", 256);
	char *vg = NULL, *lv = NULL, *layer = NULL;

	CU_ASSERT_FATAL(mem != NULL);
	CU_ASSERT_EQUAL_FATAL(tp_dm_name(buf, sizeof(buf), pool, TP_DM_ROLE_THIN, vol), 0);
	CU_ASSERT(dm_split_lvm_name(mem, buf, &vg, &lv, &layer));
	CU_ASSERT_STRING_EQUAL(vg, pool);
	CU_ASSERT_STRING_EQUAL(lv, vol);
	CU_ASSERT_STRING_EQUAL(layer, "");
	dm_pool_destroy(mem);
}

static void test_names_split(void)
{
	expect_split("vault", "www");
	expect_split("my-pool", "vol-1");
	expect_split("a--b", "x-");
	expect_split("a-", "x");
	expect_split("p", "snap.2026-11-30");
}

static void test_names_reject(void)
{
	char buf[TP_DM_NAME_MAX], small[8];
	char longname[200], out[200];

	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "", TP_DM_ROLE_POOL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), NULL, TP_DM_ROLE_POOL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "a/b", TP_DM_ROLE_POOL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "a b", TP_DM_ROLE_POOL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "p", TP_DM_ROLE_THIN, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "p", TP_DM_ROLE_THIN, ".."), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "p", TP_DM_ROLE_THIN, "x\ty"), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "p", (enum tp_dm_role)9, "x"), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(small, sizeof(small), "pool", TP_DM_ROLE_THIN, "vo"), 0);
	CU_ASSERT_STRING_EQUAL(small, "pool-vo");
	CU_ASSERT_EQUAL(tp_dm_name(small, sizeof(small), "pool", TP_DM_ROLE_THIN, "vol"),
			-ENAMETOOLONG);
	CU_ASSERT_EQUAL(tp_dm_name(small, sizeof(small), "pool", TP_DM_ROLE_POOL, NULL),
			-ENAMETOOLONG);
	CU_ASSERT_EQUAL(tp_dm_name(small, sizeof(small), "po-l", TP_DM_ROLE_THIN, "vv"),
			-ENAMETOOLONG);
	/* never longer than the kernel's DM_NAME_LEN */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CU_ASSERT_EQUAL(tp_dm_name(out, sizeof(out), "p", TP_DM_ROLE_THIN, longname + 74), 0);
	CU_ASSERT_EQUAL(strlen(out), TP_DM_NAME_MAX - 1);
	CU_ASSERT_EQUAL(tp_dm_name(out, sizeof(out), "p", TP_DM_ROLE_THIN, longname + 73),
			-ENAMETOOLONG);
	/* a leading '-' would make the split ambiguous ("p---v") */
	CU_ASSERT_EQUAL(tp_dm_name(out, sizeof(out), "p", TP_DM_ROLE_THIN, "-v"), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_name(out, sizeof(out), "-p", TP_DM_ROLE_POOL, NULL), -EINVAL);
	CU_ASSERT(tp_dm_vol_name_reserved("tpool"));
	CU_ASSERT(tp_dm_vol_name_reserved("tmeta"));
	CU_ASSERT(tp_dm_vol_name_reserved("tdata"));
	CU_ASSERT(!tp_dm_vol_name_reserved("thin"));
	CU_ASSERT(!tp_dm_vol_name_reserved("www"));
	CU_ASSERT_EQUAL(tp_dm_path(buf, sizeof(buf), "vault-www"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/dev/mapper/vault-www");
}

static void test_uuid(void)
{
	static const char *pu = "0f3a6c2e-9d1b-4c55-8e0a-1b2c3d4e5f60";
	char buf[TP_DM_UUID_MAX], back[TP_DM_UUID_MAX];
	enum tp_dm_role role;
	uint32_t id;

	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), pu, TP_DM_ROLE_THIN, 42), 0);
	CU_ASSERT_STRING_EQUAL(buf, "TPTOOLS-0f3a6c2e-9d1b-4c55-8e0a-1b2c3d4e5f60-thin42");
	CU_ASSERT_EQUAL(tp_dm_uuid_parse(buf, back, sizeof(back), &role, &id), 0);
	CU_ASSERT_STRING_EQUAL(back, pu);
	CU_ASSERT_EQUAL(role, TP_DM_ROLE_THIN);
	CU_ASSERT_EQUAL(id, 42);

	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), pu, TP_DM_ROLE_POOL, 7), 0);
	CU_ASSERT_STRING_EQUAL(buf, "TPTOOLS-0f3a6c2e-9d1b-4c55-8e0a-1b2c3d4e5f60-tpool");
	CU_ASSERT_EQUAL(tp_dm_uuid_parse(buf, back, sizeof(back), &role, &id), 0);
	CU_ASSERT_EQUAL(role, TP_DM_ROLE_POOL);
	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "abc", TP_DM_ROLE_TMETA, 0), 0);
	CU_ASSERT_STRING_EQUAL(buf, "TPTOOLS-abc-tmeta");
	CU_ASSERT_EQUAL(tp_dm_uuid_parse(buf, back, sizeof(back), &role, &id), 0);
	CU_ASSERT_EQUAL(role, TP_DM_ROLE_TMETA);
	CU_ASSERT_STRING_EQUAL(back, "abc");
	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "abc", TP_DM_ROLE_TDATA, 0), 0);
	CU_ASSERT_STRING_EQUAL(buf, "TPTOOLS-abc-tdata");
	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "abc", TP_DM_ROLE_THIN, 16777215), 0);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse(buf, back, sizeof(back), &role, &id), 0);
	CU_ASSERT_EQUAL(id, 16777215);

	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "abc", TP_DM_ROLE_THIN, 16777216), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "", TP_DM_ROLE_POOL, 0), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid(buf, 10, "abc", TP_DM_ROLE_POOL, 0), -ENAMETOOLONG);

	/* not ours, or malformed */
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("LVM-abc-tpool", back, sizeof(back), &role, &id), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc", back, sizeof(back), &role, &id), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS--tpool", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-pool", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-thin", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-thin01", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-thin5x", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-thin16777216", back, sizeof(back), &role,
					 &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abcdef-tpool", back, 4, &role, &id),
			-ENAMETOOLONG);
}

/* An encrypted volume's two devices: the dm-crypt one under the volume's
 * name with uuid crypt<id>, its thin device hidden under the layer "luks"
 * (which `dmsetup splitname` tells from a volume named "...-luks"). */
static void test_names_crypt(void)
{
	char buf[TP_DM_NAME_MAX], back[TP_DM_UUID_MAX];
	enum tp_dm_role role;
	uint32_t id;

	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "vault", TP_DM_ROLE_CRYPT, "www"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-www");
	CU_ASSERT_EQUAL(tp_dm_luks_name(buf, sizeof(buf), "vault", "www"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-www-luks");
	CU_ASSERT(tp_dm_name_is_luks(buf));
	CU_ASSERT_EQUAL(tp_dm_luks_name(buf, sizeof(buf), "my-pool", "a-b"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "my--pool-a--b-luks");
	CU_ASSERT(tp_dm_name_is_luks(buf));
	/* volumes whose own names end in "-luks" are plain names */
	CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "vault", TP_DM_ROLE_THIN, "a-luks"), 0);
	CU_ASSERT_FALSE(tp_dm_name_is_luks(buf));
	CU_ASSERT_EQUAL(tp_dm_luks_name(buf, sizeof(buf), "vault", "x-"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "vault-x---luks");
	CU_ASSERT(tp_dm_name_is_luks(buf));
	CU_ASSERT_FALSE(tp_dm_name_is_luks("vault-luks"));	/* the volume "luks" */
	CU_ASSERT(tp_dm_name_is_luks("vault-luks-luks"));
	CU_ASSERT_FALSE(tp_dm_name_is_luks("luks"));
	CU_ASSERT_FALSE(tp_dm_name_is_luks(NULL));
	/* the five bytes of the layer must fit */
	{
		char vol[128];

		memset(vol, 'v', sizeof(vol));
		vol[123] = '\0';	/* "p-" + vol = 125 bytes: fits, -luks not */
		CU_ASSERT_EQUAL(tp_dm_name(buf, sizeof(buf), "p", TP_DM_ROLE_THIN, vol), 0);
		CU_ASSERT_EQUAL(tp_dm_luks_name(buf, sizeof(buf), "p", vol), -ENAMETOOLONG);
	}

	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "abc", TP_DM_ROLE_CRYPT, 7), 0);
	CU_ASSERT_STRING_EQUAL(buf, "TPTOOLS-abc-crypt7");
	CU_ASSERT_EQUAL(tp_dm_uuid_parse(buf, back, sizeof(back), &role, &id), 0);
	CU_ASSERT_EQUAL(role, TP_DM_ROLE_CRYPT);
	CU_ASSERT_EQUAL(id, 7);
	CU_ASSERT_STRING_EQUAL(back, "abc");
	CU_ASSERT_EQUAL(tp_dm_uuid(buf, sizeof(buf), "abc", TP_DM_ROLE_THIN, 7), 0);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse(buf, back, sizeof(back), &role, &id), 0);
	CU_ASSERT_EQUAL(role, TP_DM_ROLE_THIN);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-crypt", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-crypt07", back, sizeof(back), &role, &id),
			-EINVAL);
	CU_ASSERT_EQUAL(tp_dm_uuid_parse("TPTOOLS-abc-crypto", back, sizeof(back), &role, &id),
			-EINVAL);
}

/* The crypt table: what cryptsetup itself loads for a LUKS2 header
 * (`dmsetup table --showkeys` of a cryptsetup-opened volume: cipher, hex
 * key, iv offset, device, payload offset, then the optional args). */
static void test_table_crypt(void)
{
	static const unsigned char key[4] = { 0x00, 0x1f, 0xa0, 0xff };
	struct tp_dm_crypt c = { "aes-xts-plain64", key, sizeof(key), 0, "253:3", 32768,
				 1000000 - 32768, 512, 0 };
	struct tp_dm_target t;

	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), 0);
	CU_ASSERT_STRING_EQUAL(t.type, "crypt");
	CU_ASSERT_EQUAL(t.start, 0);
	CU_ASSERT_EQUAL(t.length, 1000000 - 32768);
	CU_ASSERT_STRING_EQUAL(t.params, "aes-xts-plain64 001fa0ff 0 253:3 32768");

	c.features = TP_DM_CRYPT_ALLOW_DISCARDS | TP_DM_CRYPT_NO_WRITE_WORKQUEUE;
	c.sector_size = 4096;
	c.length = 8 * 1000;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "aes-xts-plain64 001fa0ff 0 253:3 32768 3 allow_discards "
					 "no_write_workqueue sector_size:4096");
	c.features = TP_DM_CRYPT_ALLOW_DISCARDS;
	c.sector_size = 512;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "aes-xts-plain64 001fa0ff 0 253:3 32768 1 allow_discards");
	/* cipher_null has no key */
	c.key_size = 0;
	c.cipher = "cipher_null-ecb";
	c.features = 0;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "cipher_null-ecb - 0 253:3 32768");

	c.cipher = "aes-xts-plain64";
	c.key_size = sizeof(key);
	/* refused: a length that is no whole number of encryption sectors, a
	 * sector size that is not a power of two in 512..4096, no device, a
	 * cipher with a space, an unknown feature, no length */
	c.sector_size = 4096;
	c.length = 8 * 1000 + 1;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
	c.length = 8 * 1000;
	c.sector_size = 3072;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
	c.sector_size = 8192;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
	c.sector_size = 512;
	c.dev = "";
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
	c.dev = "253:3";
	c.cipher = "aes xts";
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
	c.cipher = "aes-xts-plain64";
	c.features = 1u << 9;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
	c.features = 0;
	c.length = 0;
	CU_ASSERT_EQUAL(tp_dm_crypt_table(&t, &c), -EINVAL);
}

static void test_table_linear(void)
{
	struct tp_dm_target t;

	CU_ASSERT_EQUAL(tp_dm_linear(&t, 0, "8:16", 1048576, 16 << 20), 0);
	CU_ASSERT_STRING_EQUAL(t.type, "linear");
	CU_ASSERT_EQUAL(t.start, 0);
	CU_ASSERT_EQUAL(t.length, 32768);
	CU_ASSERT_STRING_EQUAL(t.params, "8:16 2048");
	CU_ASSERT_EQUAL(tp_dm_linear(&t, 32768, "/dev/vdb", 0, 512), 0);
	CU_ASSERT_EQUAL(t.start, 32768);
	CU_ASSERT_EQUAL(t.length, 1);
	CU_ASSERT_STRING_EQUAL(t.params, "/dev/vdb 0");

	CU_ASSERT_EQUAL(tp_dm_linear(&t, 0, "8:16", 100, 4096), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_linear(&t, 0, "8:16", 0, 4000), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_linear(&t, 0, "8:16", 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_linear(&t, 0, "", 0, 512), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_linear(&t, 0, "/dev/a b", 0, 512), -EINVAL);
}

static void test_table_pool(void)
{
	struct tp_dm_pool_params p = { "253:0", "253:1", 128, 16, 0 };
	struct tp_dm_target t;
	char path[TP_DM_PARAMS_MAX + 8];

	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 131072, &p), 0);
	CU_ASSERT_STRING_EQUAL(t.type, "thin-pool");
	CU_ASSERT_EQUAL(t.length, 131072);
	CU_ASSERT_STRING_EQUAL(t.params, "253:0 253:1 128 16 0");

	p.features = TP_DM_SKIP_BLOCK_ZEROING | TP_DM_ERROR_IF_NO_SPACE;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 131072, &p), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "253:0 253:1 128 16 2 skip_block_zeroing error_if_no_space");

	p.features = TP_DM_SKIP_BLOCK_ZEROING | TP_DM_NO_DISCARD_PASSDOWN | TP_DM_POOL_READ_ONLY |
		     TP_DM_ERROR_IF_NO_SPACE;
	p.block_sectors = 4096;
	p.low_water_blocks = 0;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 4096 * 10, &p), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "253:0 253:1 4096 0 4 skip_block_zeroing "
					 "no_discard_passdown read_only error_if_no_space");

	p.features = TP_DM_IGNORE_DISCARD;
	p.block_sectors = 384;	/* 192 KiB: a multiple of 64 KiB, not a power of two */
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 384 * 3, &p), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "253:0 253:1 384 0 1 ignore_discard");

	/* rejected: the kernel's block size limits, partial blocks, feature clash */
	p.features = 0;
	p.block_sectors = 64;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 6400, &p), -EINVAL);
	p.block_sectors = 192;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1920, &p), -EINVAL);
	p.block_sectors = TP_DM_POOL_BLOCK_MAX + 128;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, (uint64_t)p.block_sectors * 2, &p), -EINVAL);
	p.block_sectors = TP_DM_POOL_BLOCK_MAX;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, (uint64_t)p.block_sectors * 2, &p), 0);
	p.block_sectors = 128;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1000, &p), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 0, &p), -EINVAL);
	p.features = TP_DM_IGNORE_DISCARD | TP_DM_NO_DISCARD_PASSDOWN;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1280, &p), -EINVAL);
	p.features = 1u << 7;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1280, &p), -EINVAL);
	p.features = 0;
	p.data_dev = "253:0";
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1280, &p), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1280, NULL), -EINVAL);
	/* a path too long for the params buffer */
	memset(path, 'd', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	p.data_dev = path;
	CU_ASSERT_EQUAL(tp_dm_thin_pool(&t, 1280, &p), -ENAMETOOLONG);
}

static void test_table_thin(void)
{
	struct tp_dm_target t;

	CU_ASSERT_EQUAL(tp_dm_thin(&t, 204800, "253:2", 0, NULL), 0);
	CU_ASSERT_STRING_EQUAL(t.type, "thin");
	CU_ASSERT_EQUAL(t.length, 204800);
	CU_ASSERT_STRING_EQUAL(t.params, "253:2 0");
	CU_ASSERT_EQUAL(tp_dm_thin(&t, 8, "/dev/mapper/p-tpool", 16777215, "8:32"), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "/dev/mapper/p-tpool 16777215 8:32");
	CU_ASSERT_EQUAL(tp_dm_thin(&t, 8, "253:2", 16777216, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_thin(&t, 0, "253:2", 1, NULL), -EINVAL);
	CU_ASSERT_EQUAL(tp_dm_thin(&t, 8, "253:2", 1, ""), -EINVAL);
}

static void test_pool_status(void)
{
	struct tp_dm_pool_status st;

	/* 6.1, fresh */
	CU_ASSERT_EQUAL(tp_dm_parse_pool_status(
				"0 418/4096 0/1024 - rw discard_passdown error_if_no_space - 1024 ",
				&st),
			0);
	CU_ASSERT_EQUAL(st.nfields, 9);
	CU_ASSERT_EQUAL(st.transaction_id, 0);
	CU_ASSERT_EQUAL(st.used_meta_blocks, 418);
	CU_ASSERT_EQUAL(st.total_meta_blocks, 4096);
	CU_ASSERT_EQUAL(st.used_data_blocks, 0);
	CU_ASSERT_EQUAL(st.total_data_blocks, 1024);
	CU_ASSERT(!st.has_held_root);
	CU_ASSERT_EQUAL(st.mode, TP_DM_MODE_RW);
	CU_ASSERT_EQUAL(st.discard, TP_DM_DISCARD_PASSDOWN);
	CU_ASSERT(st.error_if_no_space);
	CU_ASSERT(!st.needs_check);
	CU_ASSERT(st.has_meta_low_water);
	CU_ASSERT_EQUAL(st.meta_low_water, 1024);
	CU_ASSERT(!st.fail && !st.error);

	/* held metadata snapshot, read-only, needs_check */
	CU_ASSERT_EQUAL(tp_dm_parse_pool_status("18446744073709551615 421/4096 6/1024 52 ro "
						"no_discard_passdown queue_if_no_space needs_check 1024",
						&st),
			0);
	CU_ASSERT_EQUAL(st.transaction_id, UINT64_MAX);
	CU_ASSERT(st.has_held_root);
	CU_ASSERT_EQUAL(st.held_root, 52);
	CU_ASSERT_EQUAL(st.mode, TP_DM_MODE_RO);
	CU_ASSERT_EQUAL(st.discard, TP_DM_DISCARD_NO_PASSDOWN);
	CU_ASSERT(!st.error_if_no_space);
	CU_ASSERT(st.needs_check);

	CU_ASSERT_EQUAL(tp_dm_parse_pool_status("3 10/100 100/100 - out_of_data_space "
						"ignore_discard queue_if_no_space - 25 future 7",
						&st),
			0);
	CU_ASSERT_EQUAL(st.mode, TP_DM_MODE_OUT_OF_DATA);
	CU_ASSERT_EQUAL(st.discard, TP_DM_DISCARD_IGNORE);
	CU_ASSERT_EQUAL(st.meta_low_water, 25);

	/* older kernels: shorter lines */
	CU_ASSERT_EQUAL(tp_dm_parse_pool_status("5 20/400 7/64 -", &st), 0);
	CU_ASSERT_EQUAL(st.nfields, 4);
	CU_ASSERT_EQUAL(st.transaction_id, 5);
	CU_ASSERT_EQUAL(st.used_data_blocks, 7);
	CU_ASSERT_EQUAL(st.mode, TP_DM_MODE_UNKNOWN);
	CU_ASSERT_EQUAL(st.discard, TP_DM_DISCARD_UNKNOWN);
	CU_ASSERT(!st.has_meta_low_water);
	CU_ASSERT_EQUAL(tp_dm_parse_pool_status("5 20/400 7/64 - rw discard_passdown", &st), 0);
	CU_ASSERT_EQUAL(st.nfields, 6);
	CU_ASSERT_EQUAL(st.mode, TP_DM_MODE_RW);

	CU_ASSERT_EQUAL(tp_dm_parse_pool_status("Fail", &st), 0);
	CU_ASSERT(st.fail);
	CU_ASSERT_EQUAL(tp_dm_parse_pool_status("Error", &st), 0);
	CU_ASSERT(st.error);
}

static void test_pool_status_garbage(void)
{
	static const char *const bad[] = {
		"",
		"x",
		"0 418/4096",
		"0 418 0/1024",
		"0 418/4096 0/1024/3",
		"0 5000/4096 0/1024",
		"-1 418/4096 0/1024",
		"0 418/4096 0/1024 x",
		"0 418/4096 0/1024 - rX",
		"0 418/4096 0/1024 - rw passdown",
		"0 418/4096 0/1024 - rw discard_passdown maybe",
		"0 418/4096 0/1024 - rw discard_passdown error_if_no_space yes",
		"0 418/4096 0/1024 - rw discard_passdown error_if_no_space - lots",
		"99999999999999999999 1/2 0/1",
		"0 1/2 0/1 0123456789012345678901234567890123456789012345678901234567890123456789",
		"Fail Fail",
	};
	struct tp_log_capture cap;
	struct tp_dm_pool_status st;
	size_t i;

	tp_log_capture(&cap);
	for (i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		cap.len = 0;
		CU_ASSERT_EQUAL(tp_dm_parse_pool_status(bad[i], &st), -EPROTO);
		CU_ASSERT(strstr(cap.buf, "thin-pool status") != NULL);
	}
	tp_log_capture(NULL);
}

static void test_thin_status(void)
{
	static const char *const bad[] = { "", "x", "640", "640 12927 3", "a 1", "640 x", "-1 5" };
	struct tp_log_capture cap;
	struct tp_dm_thin_status st;
	size_t i;

	CU_ASSERT_EQUAL(tp_dm_parse_thin_status("640 12927", &st), 0);
	CU_ASSERT_EQUAL(st.mapped_sectors, 640);
	CU_ASSERT(st.has_highest);
	CU_ASSERT_EQUAL(st.highest_sector, 12927);
	CU_ASSERT(!st.fail && !st.inactive);
	CU_ASSERT_EQUAL(tp_dm_parse_thin_status("0 -", &st), 0);
	CU_ASSERT_EQUAL(st.mapped_sectors, 0);
	CU_ASSERT(!st.has_highest);
	CU_ASSERT_EQUAL(tp_dm_parse_thin_status("Fail", &st), 0);
	CU_ASSERT(st.fail);
	CU_ASSERT_EQUAL(tp_dm_parse_thin_status("-", &st), 0);
	CU_ASSERT(st.inactive);

	tp_log_capture(&cap);
	for (i = 0; i < TP_ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(tp_dm_parse_thin_status(bad[i], &st), -EPROTO);
	CU_ASSERT(strstr(cap.buf, "thin status") != NULL);
	tp_log_capture(NULL);
}

static int count_dev(const char *name, const char *uuid, void *arg)
{
	(void)name;
	(void)uuid;
	(*(int *)arg)++;
	return 0;
}

/* This host has no device-mapper: the check must say so, in words. */
static void test_available(void)
{
	char why[256] = "";
	int n = 0;
	int r = tp_dm_check_available(why, sizeof(why));

	if (access("/dev/mapper/control", F_OK) && access("/sys/class/misc/device-mapper", F_OK)) {
		struct tp_dm_pool_layout l = { "vault", "abc", "/dev/null", 0, 4096, "/dev/zero",
					       0, 65536, 128, 0, 0 };
		struct tp_log_capture cap;

		CU_ASSERT_EQUAL(r, -ENODEV);
		CU_ASSERT(strstr(why, "no device-mapper") != NULL);
		/* activation says so, naming the pool, and touches nothing */
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(tp_dm_pool_activate(&l), -ENODEV);
		tp_log_capture(NULL);
		CU_ASSERT(strstr(cap.buf, "cannot activate pool vault") != NULL);
		CU_ASSERT(strstr(cap.buf, "no device-mapper") != NULL);
		/* offline commands ask quietly: nothing is active, nothing listed */
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(tp_dm_pool_is_active("vault"), 0);
		CU_ASSERT_EQUAL(tp_dm_list("TPTOOLS-", count_dev, &n), 0);
		tp_log_capture(NULL);
		CU_ASSERT_EQUAL(n, 0);
		CU_ASSERT_EQUAL(cap.len, 0);
	} else {
		CU_ASSERT(r == 0 || (r < 0 && strlen(why) > 20));
	}
}

/* Mirrored thin metadata: the raid1 table over both legs with their raid
 * metadata, a missing leg as "- -", a rebuild; the raid status line. */
static void test_raid1(void)
{
	struct tp_dm_pool_layout l = { .meta_length = 4u << 20 };
	const char m[2][TP_DM_NAME_MAX] = { "253:4", "253:6" };
	const char d[2][TP_DM_NAME_MAX] = { "253:5", "253:7" };
	const char gone[2][TP_DM_NAME_MAX] = { "253:5", "" };
	const char none[2][TP_DM_NAME_MAX] = { "", "" };
	struct tp_dm_raid_status st;
	struct tp_dm_target t;

	CU_ASSERT_EQUAL(tp_dm_raid1_table(&l, m, d, -1, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.type, "raid");
	CU_ASSERT_EQUAL(t.length, 8192u);
	CU_ASSERT_STRING_EQUAL(t.params, "raid1 1 0 2 253:4 253:5 253:6 253:7");
	CU_ASSERT_EQUAL(tp_dm_raid1_table(&l, m, gone, -1, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "raid1 1 0 2 253:4 253:5 - -");
	CU_ASSERT_EQUAL(tp_dm_raid1_table(&l, m, d, 1, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.params, "raid1 3 0 rebuild 1 2 253:4 253:5 253:6 253:7");
	CU_ASSERT_EQUAL(tp_dm_raid1_table(&l, m, none, -1, &t), -EINVAL);
	l.meta_length = 1000;
	CU_ASSERT_EQUAL(tp_dm_raid1_table(&l, m, d, -1, &t), -EINVAL);

	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("raid1 2 AD 8192/8192 idle 0 0 -", &st), 0);
	CU_ASSERT_EQUAL(st.nr_devs, 2u);
	CU_ASSERT_EQUAL(memcmp(st.health, "AD", 2), 0);
	CU_ASSERT_EQUAL(st.sync_done, 8192u);
	CU_ASSERT_STRING_EQUAL(st.action, "idle");
	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("raid1 2 Aa 1024/8192 recover 0 0 -", &st), 0);
	CU_ASSERT(st.sync_done < st.sync_total);
	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("raid1 2 A 1/2 idle", &st), -EPROTO);
	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("raid5_ls 3 AAA 1/2 idle", &st), -EPROTO);
	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("garbage", &st), -EPROTO);
	/* after a check: md's mismatch_cnt */
	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("raid1 2 AA 8192/8192 idle 24 0 -", &st), 0);
	CU_ASSERT_EQUAL(st.mismatches, 24u);
	CU_ASSERT_EQUAL(tp_dm_parse_raid_status("raid1 2 AA 8192/8192 check", &st), 0);
	CU_ASSERT_EQUAL(st.mismatches, 0u);

	/* a leg's integrity status: mismatches, provided sectors, recalc */
	struct tp_dm_integrity_status is;
	CU_ASSERT_EQUAL(tp_dm_parse_integrity_status("3 16384 -", &is), 0);
	CU_ASSERT_EQUAL(is.mismatches, 3u);
	CU_ASSERT_EQUAL(is.provided, 16384u);
	CU_ASSERT_EQUAL(is.recalc, 16384u);
	CU_ASSERT_EQUAL(tp_dm_parse_integrity_status("0 16384 4096", &is), 0);
	CU_ASSERT_EQUAL(is.recalc, 4096u);
	CU_ASSERT_EQUAL(tp_dm_parse_integrity_status("0 16384", &is), -EPROTO);
	CU_ASSERT_EQUAL(tp_dm_parse_integrity_status("0 16384 x", &is), -EPROTO);
}

TP_TEST_SUITE(kernel, NULL, NULL, { "names", test_names }, { "names_split", test_names_split },
	      { "names_reject", test_names_reject }, { "uuid", test_uuid },
	      { "table_linear", test_table_linear }, { "table_pool", test_table_pool },
	      { "table_thin", test_table_thin }, { "pool_status", test_pool_status },
	      { "pool_status_garbage", test_pool_status_garbage },
	      { "thin_status", test_thin_status }, { "available", test_available },
	      { "raid1 of mirrored thin metadata", test_raid1 },
	      { "names of encrypted volumes", test_names_crypt },
	      { "table_crypt", test_table_crypt })
