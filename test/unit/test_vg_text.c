/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata/vg VG text and model: export/import roundtrip, a hand-written
 * text, the validation-error matrix (every message names its key), the
 * model's volume operations and vg_validate. */
#include "test/unit/test_vg_fixture.h"
#include "metadata/vg/vg_int.h"
#include "test/unit/test_rand.h"

#include <errno.h>
#include <stdlib.h>

static const char good_text[] =
	"# hand-written VG text\n"
	"contents = \"tptools VG metadata\"\n"
	"version = 1\n"
	"pool {\n"
	"  name = \"vault\"\n"
	"  uuid = \"" FX_POOL_UUID "\"\n"
	"  seqno = 12\n"
	"  format_version = 1\n"
	"  creation_time = 1700000000\n"
	"  creation_host = \"host\"\n"
	"  chunk_size = 1024\n"
	"  zero = 1\n"
	"  discards = \"nopassdown\"\n"
	"  when_full = \"error\"\n"
	"  transaction_id = 9\n"
	"  next_dev_id = 5\n"
	"  metadata_area = 1\n"
	"  devices {\n"
	"    data {\n"
	"      uuid = \"" FX_DATA_UUID "\"\n"
	"      path = \"/dev/md0\"\n"
	"      size = 16777216\n"
	"      mda_offset = 4096  mda_size = 1044480\n"
	"      area0_offset = 1048576  area0_size = 15728640\n"
	"      area1_offset = 0  area1_size = 0\n"
	"    }\n"
	"    meta {\n"
	"      uuid = \"" FX_META_UUID "\"\n"
	"      path = \"\"\n"
	"      size = 16777216\n"
	"      mda_offset = 4096  mda_size = 1044480\n"
	"      area0_offset = 1048576  area0_size = 4194304\n"
	"      area1_offset = 5242880  area1_size = 4194304\n"
	"    }\n"
	"  }\n"
	"  volumes {\n"
	"    www { dev_id = 1 size = 1073741824 creation_time = 1 read_only = 0 }\n"
	"    snap { dev_id = 4 size = 1073741824 origin = \"www\" creation_time = 2 read_only = 1 }\n"
	"  }\n"
	"}\n";

static void test_import_handwritten(void)
{
	struct vg *vg;
	struct vg_volume *v;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	CU_ASSERT_STRING_EQUAL(vg->name, "vault");
	CU_ASSERT_EQUAL(vg->seqno, 12);
	CU_ASSERT_EQUAL(vg->chunk_size, 1024);
	CU_ASSERT_EQUAL(vg->zero, 1);
	CU_ASSERT_EQUAL(vg->discards, VG_DISCARDS_NOPASSDOWN);
	CU_ASSERT_EQUAL(vg->when_full, VG_WHEN_FULL_ERROR);
	CU_ASSERT_EQUAL(vg->transaction_id, 9);
	CU_ASSERT_EQUAL(vg->next_dev_id, 5);
	CU_ASSERT_EQUAL(vg->metadata_area, 1);
	CU_ASSERT_STRING_EQUAL(vg->dev[VG_ROLE_DATA].path, "/dev/md0");
	CU_ASSERT_EQUAL(vg->dev[VG_ROLE_META].area[1].offset, 5242880);
	CU_ASSERT_EQUAL(vg->nr_volumes, 2);
	v = vg_find_volume(vg, "snap");
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_STRING_EQUAL(v->origin, "www");
	CU_ASSERT_EQUAL(v->read_only, 1);
	CU_ASSERT_EQUAL(v->dev_id, 4);
	CU_ASSERT_PTR_EQUAL(vg_find_dev_id(vg, 1), vg_find_volume(vg, "www"));
	CU_ASSERT_STRING_EQUAL(vg_find_volume(vg, "www")->origin, "");
	vg_free(vg);
}

static void same_vg(const struct vg *a, const struct vg *b)
{
	CU_ASSERT_EQUAL(a->format_version, b->format_version);
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	CU_ASSERT_STRING_EQUAL(a->uuid, b->uuid);
	CU_ASSERT_EQUAL(a->seqno, b->seqno);
	CU_ASSERT_EQUAL(a->creation_time, b->creation_time);
	CU_ASSERT_STRING_EQUAL(a->creation_host, b->creation_host);
	CU_ASSERT_EQUAL(a->chunk_size, b->chunk_size);
	CU_ASSERT_EQUAL(a->zero, b->zero);
	CU_ASSERT_EQUAL(a->discards, b->discards);
	CU_ASSERT_EQUAL(a->when_full, b->when_full);
	CU_ASSERT_EQUAL(a->transaction_id, b->transaction_id);
	CU_ASSERT_EQUAL(a->next_dev_id, b->next_dev_id);
	CU_ASSERT_EQUAL(a->metadata_area, b->metadata_area);
	CU_ASSERT_EQUAL(a->activation_skip, b->activation_skip);
	CU_ASSERT_EQUAL(a->profile, b->profile);
	CU_ASSERT_EQUAL(a->monitor.warn, b->monitor.warn);
	CU_ASSERT_EQUAL(a->monitor.autoextend_threshold, b->monitor.autoextend_threshold);
	CU_ASSERT_EQUAL(a->monitor.autoextend_percent, b->monitor.autoextend_percent);
	CU_ASSERT_EQUAL(a->monitor.autoextend_size, b->monitor.autoextend_size);
	CU_ASSERT_EQUAL(a->monitor.autoextend_max, b->monitor.autoextend_max);
	CU_ASSERT_EQUAL(a->max_overprovision, b->max_overprovision);
	for (int r = 0; r < VG_NR_ROLES; r++) {
		CU_ASSERT_STRING_EQUAL(a->dev[r].pv_uuid, b->dev[r].pv_uuid);
		CU_ASSERT_STRING_EQUAL(a->dev[r].path, b->dev[r].path);
		CU_ASSERT_EQUAL(a->dev[r].size, b->dev[r].size);
		CU_ASSERT_EQUAL(a->dev[r].mda.offset, b->dev[r].mda.offset);
		CU_ASSERT_EQUAL(a->dev[r].mda.size, b->dev[r].mda.size);
		for (int i = 0; i < 2; i++) {
			CU_ASSERT_EQUAL(a->dev[r].area[i].offset, b->dev[r].area[i].offset);
			CU_ASSERT_EQUAL(a->dev[r].area[i].size, b->dev[r].area[i].size);
		}
	}
	CU_ASSERT_EQUAL_FATAL(a->nr_volumes, b->nr_volumes);
	for (unsigned i = 0; i < a->nr_volumes; i++) {
		const struct vg_volume *x = &a->volumes[i], *y = &b->volumes[i];
		CU_ASSERT_STRING_EQUAL(x->name, y->name);
		CU_ASSERT_EQUAL(x->dev_id, y->dev_id);
		CU_ASSERT_EQUAL(x->size, y->size);
		CU_ASSERT_STRING_EQUAL(x->origin, y->origin);
		CU_ASSERT_EQUAL(x->creation_time, y->creation_time);
		CU_ASSERT_EQUAL(x->read_only, y->read_only);
		CU_ASSERT_EQUAL(x->activation_skip, y->activation_skip);
		CU_ASSERT_STRING_EQUAL(x->content_uuid, y->content_uuid);
		CU_ASSERT_STRING_EQUAL(x->luks_uuid, y->luks_uuid);
	}
}

/* model -> text -> model -> text: equal models, identical texts. */
static void roundtrip(const struct vg *vg)
{
	char *t1, *t2;
	size_t n1, n2;
	struct vg *back;

	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t1, &n1), 0);
	CU_ASSERT_EQUAL(strlen(t1), n1);
	CU_ASSERT_EQUAL_FATAL(vg_import(t1, n1, &back), 0);
	same_vg(vg, back);
	CU_ASSERT_EQUAL_FATAL(vg_export(back, &t2, &n2), 0);
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT_STRING_EQUAL(t1, t2);
	free(t1);
	free(t2);
	vg_free(back);
}

static void test_roundtrip(void)
{
	struct vg *vg = fx_vg(), *copy;
	char name[VG_NAME_MAX + 1];

	roundtrip(vg);
	/* every name character, a 64-byte name, quotes and backslashes in
	 * free-text fields, extreme values */
	fx_vol(vg, "A+b_c.d-0", 9, "www-snap");
	memset(name, 'z', VG_NAME_MAX);
	name[VG_NAME_MAX] = '\0';
	fx_vol(vg, name, VG_DEV_ID_MAX, NULL);
	strcpy(vg->creation_host, "a \"quoted\" \\ host");
	strcpy(vg->dev[VG_ROLE_DATA].path, "/dev/disk/by-id/with space \"q\"");
	vg->transaction_id = (uint64_t)INT64_MAX;
	vg->creation_time = -5;
	vg->chunk_size = VG_CHUNK_MAX_SECTORS;
	vg->metadata_area = 1;
	vg->discards = VG_DISCARDS_IGNORE;
	vg->when_full = VG_WHEN_FULL_ERROR;
	vg->zero = 1;
	roundtrip(vg);
	/* an encrypted volume and its snapshot: the LUKS2 header's uuid */
	strcpy(vg->volumes[0].luks_uuid, "6f1c2a3e-9b0d-4c57-8e21-0a4b5c6d7e8f");
	strcpy(vg->volumes[1].luks_uuid, "6f1c2a3e-9b0d-4c57-8e21-0a4b5c6d7e8f");
	roundtrip(vg);
	/* a monitoring policy: by percent, then by size, then the extremes */
	vg->monitor.warn = 0;
	vg->monitor.autoextend_threshold = 50;
	vg->monitor.autoextend_percent = 1000;
	roundtrip(vg);
	vg->monitor.warn = 100;
	vg->monitor.autoextend_percent = 0;
	vg->monitor.autoextend_size = (uint64_t)INT64_MAX - 511;
	roundtrip(vg);
	/* the autoextend cap and the over-provisioning limit */
	vg->monitor.autoextend_max = 1ull << 40;
	vg->max_overprovision = 150;
	roundtrip(vg);
	vg->max_overprovision = VG_OVERPROVISION_MAX;
	roundtrip(vg);
	CU_ASSERT_EQUAL_FATAL(vg_clone(vg, &copy), 0);
	same_vg(vg, copy);
	vg_free(copy);
	/* no volumes at all */
	while (vg->nr_volumes)
		CU_ASSERT_EQUAL_FATAL(vg_remove_volume(vg, vg->volumes[0].name), 0);
	roundtrip(vg);
	vg_free(vg);
}

/* pool/lock: absent in a pool of one host; roundtrips; every bad value
 * refused naming its key (the area clear of the meta device's others). */
static void test_lock(void)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg(), *back;
	char *t;
	size_t n;
	struct {
		uint64_t offset;
		uint32_t io_timeout;
		const char *name, *key;
	} bad[] = {
		{ 8ull << 20, 10, NULL, "pool/lock/offset" },		/* in the spare */
		{ (9ull << 20) + 4096, 10, NULL, "pool/lock/offset" },	/* not aligned */
		{ 0, 10, NULL, "pool/lock/offset" },			/* the label, VG area */
		{ FX_DEV_SIZE - (1ull << 20), 10, NULL, "pool/lock/offset" }, /* past the end */
		{ 9ull << 20, 0, NULL, "pool/lock/io_timeout" },
		{ 9ull << 20, VG_LOCK_IO_TIMEOUT_MAX + 1, NULL, "pool/lock/io_timeout" },
		{ 9ull << 20, 10, "tp-someone-else", "pool/lock/name" },
	};

	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "lock"));
	free(t);
	vg->lock.type = VG_LOCK_SANLOCK;
	vg->lock.offset = 9ull << 20;	/* behind the spare (5..9 MiB) */
	vg->lock.io_timeout = 10;
	vg_lock_name(vg->uuid, vg->lock.name);
	CU_ASSERT_EQUAL(strncmp(vg->lock.name, "tp-", 3), 0);
	CU_ASSERT_EQUAL(strlen(vg->lock.name), 3 + VG_UUID_LEN);
	roundtrip(vg);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "sanlock"));
	CU_ASSERT_EQUAL_FATAL(vg_import(t, n, &back), 0);
	CU_ASSERT_EQUAL(back->lock.type, VG_LOCK_SANLOCK);
	CU_ASSERT_EQUAL(back->lock.offset, 9ull << 20);
	CU_ASSERT_EQUAL(back->lock.io_timeout, 10);
	CU_ASSERT_STRING_EQUAL(back->lock.name, vg->lock.name);
	vg_free(back);
	free(t);
	for (unsigned i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		struct vg_lock keep = vg->lock;

		vg->lock.offset = bad[i].offset;
		vg->lock.io_timeout = bad[i].io_timeout;
		if (bad[i].name)
			snprintf(vg->lock.name, sizeof(vg->lock.name), "%s", bad[i].name);
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, bad[i].key));
		vg->lock = keep;
	}
	vg_free(vg);
}

/* Mirrored thin metadata with dm-integrity under the legs: the meta1 keys
 * integrity_offset and integrity_size roundtrip, are written only when set,
 * go together, and a region that overlaps an area, is too small for its
 * area's tags, is not aligned or lies past a device is refused by name. */
static void test_integrity(void)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg(), *back;
	char *t, *cut;
	size_t n;
	struct {
		uint64_t off, size;
	} bad[] = {
		{ 4ull << 20, 327680 },			/* over area 0 */
		{ 9ull << 20, 65536 },			/* too small for 4 MiB of tags */
		{ (9ull << 20) + 512, 327680 },		/* not 4 KiB aligned */
		{ 9ull << 20, 327680 + 100 },		/* not whole 64 KiB */
		{ FX_DEV_SIZE - 65536, 327680 },	/* past the end */
		{ 9ull << 20, 0 },			/* one without the other */
	};

	vg->meta_mirror = 1;
	vg->dev[VG_ROLE_META].mda.size -= VG_RAID_META_BYTES;
	vg->meta1 = vg->dev[VG_ROLE_META];
	snprintf(vg->meta1.pv_uuid, sizeof(vg->meta1.pv_uuid), "%s",
		 "0f0e0d0c-0b0a-4908-8706-050403020100");
	CU_ASSERT_EQUAL_FATAL(vg_validate(vg), 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "integrity"));	/* none: not written */
	free(t);
	CU_ASSERT_EQUAL(vg_imeta_need(4ull << 20), 327680u);
	CU_ASSERT(vg_imeta_cover(327680) >= 4ull << 20);
	CU_ASSERT(vg_imeta_need(vg_imeta_cover(327680)) <= 327680);
	vg->integrity_offset = 9ull << 20;
	vg->integrity_size = vg_imeta_need(4ull << 20);
	CU_ASSERT_EQUAL(vg_imeta_offset(vg, 1), (9ull << 20) + 327680);
	roundtrip(vg);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "integrity_offset"));
	CU_ASSERT_EQUAL_FATAL(vg_import(t, n, &back), 0);
	CU_ASSERT_EQUAL(back->integrity_offset, 9ull << 20);
	CU_ASSERT_EQUAL(back->integrity_size, 327680u);
	vg_free(back);
	/* the text with one key and not the other */
	cut = strstr(t, "integrity_size");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cut);
	memset(cut, ' ', strcspn(cut, "\n"));
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_import(t, n, &back), -EUCLEAN);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "integrity_offset and integrity_size go together"));
	free(t);
	for (unsigned i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		vg->integrity_offset = bad[i].off;
		vg->integrity_size = bad[i].size;
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "pool/devices/meta1"));
	}
	vg_free(vg);
}

/* Replace the first FROM in good_text by TO; import must fail with
 * -EUCLEAN (or ERR: -EPROTONOSUPPORT for a text a newer tptools wrote,
 * which vg_read refuses rather than fall back past) and a message
 * containing KEY. */
struct mutation {
	const char *from, *to, *key;
	int err;
};

static const struct mutation mutations[] = {
	{ "version = 1\n", "version = 2\n", "version: 2 is newer than this tptools reads", -EPROTONOSUPPORT },
	{ "version = 1\n", "version = 0\n", "version" },
	{ "contents = \"tptools VG metadata\"", "contents = \"LVM2\"", "contents" },
	{ "contents = \"tptools VG metadata\"\n", "", "contents: missing" },
	{ "  seqno = 12\n", "", "pool/seqno: missing" },
	{ "seqno = 12", "seqno = 0", "pool/seqno" },
	{ "seqno = 12", "seqno = \"12\"", "pool/seqno: must be an integer" },
	{ "seqno = 12", "seqno = [1, 2]", "pool/seqno" },
	{ "name = \"vault\"", "name = \"-vault\"", "pool/name" },
	{ "name = \"vault\"", "name = 5", "pool/name: must be a string" },
	{ "name = \"vault\"", "name = \"a/b\"", "pool/name" },
	{ "uuid = \"" FX_POOL_UUID "\"", "uuid = \"nope\"", "pool/uuid" },
	{ "format_version = 1", "format_version = 3", "pool/format_version: 3 is newer", -EPROTONOSUPPORT },
	/* (a newer format's new keys do not make it damage) */
	{ "format_version = 1", "format_version = 3\n  new_key = 1", "pool/format_version: 3 is newer",
	  -EPROTONOSUPPORT },
	{ "format_version = 1", "format_version = 0", "pool/format_version" },
	/* a duplicated version key: one answer whatever the order (any
	 * above what this tptools reads refuses; else a duplicate key) */
	{ "format_version = 1", "format_version = 3\n  format_version = 1",
	  "pool/format_version: 3 is newer", -EPROTONOSUPPORT },
	{ "format_version = 1", "format_version = 1\n  format_version = 3",
	  "pool/format_version: 3 is newer", -EPROTONOSUPPORT },
	{ "format_version = 1", "format_version = 1\n  format_version = 1", "format_version" },
	{ "version = 1\n", "version = 2\nversion = 1\n", "version: 2 is newer", -EPROTONOSUPPORT },
	{ "version = 1\n", "version = 1\nversion = 2\n", "version: 2 is newer", -EPROTONOSUPPORT },
	{ "pool {\n", "pool {\n  format_version = 3\n}\npool {\n", "pool/format_version: 3 is newer",
	  -EPROTONOSUPPORT },
	{ "version = 1\n", "version = 1\nversion = 1\n", "version: duplicate key" },
	/* (a key at the top that a newer format added: not damage either) */
	{ "version = 1\n", "version = 2\nnew_top_key = 1\n", "version: 2 is newer", -EPROTONOSUPPORT },
	{ "chunk_size = 1024", "chunk_size = 1000", "pool/chunk_size" },
	{ "chunk_size = 1024", "chunk_size = 64", "pool/chunk_size" },
	{ "chunk_size = 1024", "chunk_size = 4194304", "pool/chunk_size" },
	{ "chunk_size = 1024", "chunk_size = -128", "pool/chunk_size" },
	{ "zero = 1", "zero = 2", "pool/zero" },
	{ "discards = \"nopassdown\"", "discards = \"sometimes\"", "pool/discards" },
	{ "when_full = \"error\"", "when_full = 1", "pool/when_full" },
	{ "transaction_id = 9", "transaction_id = -1", "pool/transaction_id" },
	{ "next_dev_id = 5", "next_dev_id = 16777217", "pool/next_dev_id" },
	{ "next_dev_id = 5", "next_dev_id = 3", "pool/volumes/snap/dev_id" },
	{ "metadata_area = 1", "metadata_area = 2", "pool/metadata_area" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  colour = \"blue\"\n", "pool/colour: unknown key" },
	{ "  zero = 1\n", "  zero = 1\n  zero = 0\n", "pool/zero: duplicate key" },
	{ "creation_host = \"host\"", "creation_host = \"ho\nst\"", "pool/creation_host" },
	{ "    data {", "    dato {", "pool/devices/dato: unknown key" },
	{ "uuid = \"" FX_DATA_UUID "\"", "uuid = \"" FX_META_UUID "\"", "pool/devices" },
	{ "uuid = \"" FX_DATA_UUID "\"", "uuid = 1", "pool/devices/data/uuid" },
	{ "path = \"/dev/md0\"\n", "", "pool/devices/data/path: missing" },
	{ "area0_offset = 1048576  area0_size = 15728640", "area0_offset = 1048576  area0_size = 16777216", "pool/devices/data: area 0" },
	{ "area0_offset = 1048576  area0_size = 4194304", "area0_offset = 1048576  area0_size = 2097152", "pool/devices/meta: the two" },
	{ "mda_offset = 4096  mda_size = 1044480\n      area0_offset = 1048576  area0_size = 4194304",
	  "mda_offset = 0  mda_size = 1044480\n      area0_offset = 1048576  area0_size = 4194304",
	  "pool/devices/meta: VG metadata area overlaps label" },
	{ "www { dev_id = 1 size = 1073741824 creation_time = 1 read_only = 0 }", "www = 1", "pool/volumes/www: must be a section" },
	{ "  devices {\n", "  devices = 1\n  devs {\n", "pool/devs: unknown key" },
	{ "  volumes {\n", "  vols {\n", "pool/vols: unknown key" },
	{ "www { dev_id = 1", "w/w { dev_id = 1", "pool/volumes/w" },
	{ "www { dev_id = 1", "w:w { dev_id = 1", "pool/volumes/w:w: bad volume name" },
	{ "www { dev_id = 1", "www { dev_id == 1", "(line 37)" },
	{ "www { dev_id = 1", "www { dev_id = = 1", "syntax error" },
	{ "www { dev_id = 1", "-www { dev_id = 1", "pool/volumes/-www: bad volume name" },
	{ "www { dev_id = 1 size", "www { dev_id = 1 colour = 1 size", "pool/volumes/www/colour: unknown key" },
	{ "www { dev_id = 1 size = 1073741824", "www { dev_id = 1", "pool/volumes/www/size: missing" },
	{ "www { dev_id = 1 size = 1073741824", "www { dev_id = 1 size = 0", "pool/volumes/www/size" },
	{ "www { dev_id = 1 size = 1073741824", "www { dev_id = 1 size = 1000", "pool/volumes/www/size" },
	{ "www { dev_id = 1", "www { dev_id = 4", "pool/volumes/snap/dev_id: 4 is also used by volume www" },
	{ "www { dev_id = 1", "www { dev_id = 16777216", "pool/volumes/www/dev_id" },
	{ "snap { dev_id = 4", "www { dev_id = 4", "pool/volumes/www: duplicate key" },
	{ "origin = \"www\"", "origin = \"nowhere\"", "pool/volumes/snap/origin: no volume" },
	{ "origin = \"www\"", "origin = \"snap\"", "pool/volumes/snap/origin: a volume cannot be its own" },
	{ "www { dev_id = 1 size = 1073741824", "www { origin = \"snap\" dev_id = 1 size = 1073741824", "cycle" },
	{ "read_only = 1", "read_only = 3", "pool/volumes/snap/read_only" },
	{ "read_only = 1", "read_only = 1 luks_uuid = \"nope\"", "pool/volumes/snap/luks_uuid: \"nope\" is not a uuid" },
	{ "read_only = 1", "read_only = 1 luks_uuid = 7", "pool/volumes/snap/luks_uuid: must be a string" },
	{ "read_only = 1", "read_only = \"yes\"", "pool/volumes/snap/read_only: must be an integer" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  activation_skip = 2\n", "pool/activation_skip" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  profile = \"fast\"\n", "pool/profile: unknown value 'fast'" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  profile = 1\n", "pool/profile: must be a string" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  profile = \"\"\n", "pool/profile: unknown value ''" },
	{ "read_only = 1", "read_only = 1 activation_skip = \"n\"", "pool/volumes/snap/activation_skip: must be an integer" },
	{ "read_only = 1", "read_only = 1 activation_skip = 0 activation_skip = 1", "pool/volumes/snap/activation_skip: duplicate key" },
	{ "  volumes {\n", "  volumes { x = 1 }\n  volumes {\n", "pool/volumes: duplicate key" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor = 1\n", "pool/monitor: must be a section" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { warn = 101 }\n", "pool/monitor/warn" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { warn = \"80\" }\n", "pool/monitor/warn: must be an integer" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { autoextend_threshold = 49 }\n", "pool/monitor/autoextend_threshold" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { autoextend_percent = 0 }\n", "pool/monitor: exactly one" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { autoextend_percent = 1001 }\n", "pool/monitor/autoextend_percent" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { autoextend_size = 1000 }\n", "pool/monitor/autoextend_size" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { autoextend_size = 512 autoextend_percent = 5 }\n", "both given" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { warn = 1 warn = 2 }\n", "pool/monitor/warn: duplicate key" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { colour = 1 }\n", "pool/monitor/colour: unknown key" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  monitor { autoextend_max = 1000 }\n", "pool/monitor/autoextend_max" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  max_overprovision_percent = 100000001\n", "pool/max_overprovision_percent" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  max_overprovision_percent = \"1.5\"\n", "pool/max_overprovision_percent: must be an integer" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  lock { type = \"dlm\" offset = 9437184 io_timeout = 10 name = \"x\" }\n", "pool/lock/type: unknown value 'dlm'" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  lock { type = \"sanlock\" offset = 9437184 io_timeout = 10 }\n", "pool/lock/name" },
	{ "  metadata_area = 1\n", "  metadata_area = 1\n  lock { type = \"sanlock\" offset = 9437184 io_timeout = 10 name = \"x\" colour = 1 }\n", "pool/lock/colour: unknown key" },
	{ "pool {\n", "pool {\n  name = \"other\"\n", "pool/name: duplicate key" },
	{ "\n}\n", "\n", "syntax error" },
	{ "version = 1\n", "version = 1\npool = 3\n", "duplicate key" },
};

static void test_validation_matrix(void)
{
	struct tp_log_capture cap;
	unsigned i;

	for (i = 0; i < TP_ARRAY_SIZE(mutations); i++) {
		const struct mutation *m = &mutations[i];
		const char *at = strstr(good_text, m->from);
		char *t;
		size_t n;
		struct vg *vg = (struct vg *)1;
		int r;

		CU_ASSERT_PTR_NOT_NULL_FATAL(at);
		n = strlen(good_text) - strlen(m->from) + strlen(m->to);
		t = malloc(n + 1);
		memcpy(t, good_text, (size_t)(at - good_text));
		strcpy(t + (at - good_text), m->to);
		strcat(t, at + strlen(m->from));
		tp_log_capture(&cap);
		r = vg_import(t, n, &vg);
		tp_log_capture(NULL);
		CU_ASSERT_EQUAL(r, m->err ? m->err : -EUCLEAN);
		CU_ASSERT_PTR_NULL(vg);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, m->key));
		if (r != (m->err ? m->err : -EUCLEAN) || !strstr(cap.buf, m->key))
			fprintf(stderr, "\nmutation %u (%s): r=%d log: %s", i, m->key, r, cap.buf);
		if (!r)
			vg_free(vg);
		free(t);
	}
}

static void test_garbage(void)
{
	static const char *const texts[] = { "", "{", "pool", "\"", "a = ", "# only a comment\n",
					     "pool { }", "contents = 5 version = 1 pool { }" };
	struct tp_log_capture cap;
	struct vg *vg;
	unsigned i;

	tp_log_capture(&cap);
	for (i = 0; i < TP_ARRAY_SIZE(texts); i++)
		CU_ASSERT_EQUAL(vg_import(texts[i], strlen(texts[i]), &vg), -EUCLEAN);
	/* a NUL inside the given length */
	CU_ASSERT_EQUAL(vg_import(good_text, sizeof(good_text), &vg), -EUCLEAN);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "NUL"));
	/* a prefix of the good text (a torn copy that passed no crc) */
	/* (every prefix that lacks the final "}") */
	for (i = 0; i < sizeof(good_text) - 3; i += 97)
		CU_ASSERT_EQUAL(vg_import(good_text, i, &vg), -EUCLEAN);
	tp_log_capture(NULL);
}

/* Bad models are refused by vg_validate and vg_export with -EINVAL and a
 * message naming the key. */
static void test_validate_model(void)
{
	struct tp_log_capture cap;
	struct vg *vg;
	char *t;
	size_t n;
	int i;

	for (i = 0; i < 12; i++) {
		const char *key = NULL;
		vg = fx_vg();
		CU_ASSERT_EQUAL(vg_validate(vg), 0);
		switch (i) {
		case 0: vg->seqno = 0; key = "pool/seqno"; break;
		case 1: strcpy(vg->name, ".."); key = "pool/name"; break;
		case 2: vg->chunk_size = 100; key = "pool/chunk_size"; break;
		case 3: vg->zero = 3; key = "pool/zero"; break;
		case 4: vg->discards = (enum vg_discards)9; key = "pool/discards"; break;
		case 5: vg->next_dev_id = 2; key = "pool/volumes/db/dev_id"; break;
		case 6: vg->volumes[1].dev_id = 1; key = "pool/volumes/db/dev_id"; break;
		case 7: strcpy(vg->volumes[1].name, "www"); key = "pool/volumes/www: duplicate"; break;
		case 8: strcpy(vg->volumes[2].origin, "gone"); key = "pool/volumes/www-snap/origin"; break;
		case 9: vg->dev[VG_ROLE_META].area[0].size = 0; key = "pool/devices/meta"; break;
		case 10: strcpy(vg->dev[VG_ROLE_DATA].path, "a\nb"); key = "pool/devices/data/path"; break;
		case 11: vg->transaction_id = UINT64_MAX; key = "pool/transaction_id"; break;
		}
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
		CU_ASSERT_EQUAL(vg_export(vg, &t, &n), -EINVAL);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, key));
		if (!strstr(cap.buf, key))
			fprintf(stderr, "\ncase %d: %s", i, cap.buf);
		vg_free(vg);
	}
}

/* An unfinished receive: kept apart from the volumes, found by dev id,
 * holds its name, roundtrips, ends as a volume; bad ones are refused. */
static void test_receives(void)
{
	struct vg *vg, *back;
	struct vg_volume r, *x;
	char *text, *bad;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "k9");
	r.dev_id = 3;
	r.size = 1 << 20;
	strcpy(r.origin, "snap");
	r.read_only = 1;
	strcpy(r.content_uuid, "0b2d2b7c-52a8-4f0e-9d27-2d1f4a5e6c70");
	r.received = 65536;
	CU_ASSERT_EQUAL_FATAL(vg_add_receive(vg, &r), 0);
	CU_ASSERT_EQUAL(vg->nr_volumes, 2);
	CU_ASSERT_EQUAL(vg->nr_receives, 1);
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, "k9"));
	CU_ASSERT_PTR_EQUAL(vg_find_dev_id(vg, 3), vg_find_receive(vg, "k9"));
	CU_ASSERT(vg_name_used(vg, "k9"));
	/* the name and the dev id are held */
	r.dev_id = 2;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &r), -EEXIST);
	strcpy(r.name, "k10");
	r.dev_id = 1;
	CU_ASSERT_EQUAL(vg_add_receive(vg, &r), -EEXIST);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "receiving"));
	CU_ASSERT_EQUAL_FATAL(vg_import(text, len, &back), 0);
	x = vg_find_receive(back, "k9");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(x->received, 65536);
	CU_ASSERT_STRING_EQUAL(x->origin, "snap");
	CU_ASSERT_EQUAL(back->nr_volumes, 2);
	/* a text whose receive holds a volume's dev id, or has no uuid */
	bad = strdup(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
	{
		char *d = strstr(strstr(bad, "receiving"), "dev_id");
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		d = strchr(d, '3');
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		*d = '4';
		struct vg *no;
		CU_ASSERT_EQUAL(vg_import(bad, len, &no), -EUCLEAN);
	}
	free(bad);
	free(text);
	/* removing the base clears the origin; the end makes it a volume */
	CU_ASSERT_EQUAL(vg_remove_volume(back, "snap"), 0);
	CU_ASSERT_STRING_EQUAL(vg_find_receive(back, "k9")->origin, "");
	CU_ASSERT_EQUAL(vg_finish_receive(back, "k9"), 0);
	CU_ASSERT_EQUAL(back->nr_receives, 0);
	x = vg_find_volume(back, "k9");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(x->received, 0);
	CU_ASSERT_STRING_EQUAL(x->content_uuid, "0b2d2b7c-52a8-4f0e-9d27-2d1f4a5e6c70");
	CU_ASSERT_EQUAL(vg_finish_receive(back, "k9"), -ENOENT);
	CU_ASSERT_EQUAL(vg_remove_receive(back, "k9"), -ENOENT);
	CU_ASSERT_EQUAL(vg_validate(back), 0);
	vg_free(back);
	vg_free(vg);
}

/* A removal under way: the volume leaves the volumes (its snapshot's
 * origin cleared), its name and dev id stay held, only dev_id and size
 * are written and read back, a bad one is refused, the end frees both. */
static void test_removals(void)
{
	struct vg *vg, *back, *no;
	struct vg_volume v, *x;
	char *text, *bad, *d;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	CU_ASSERT_EQUAL(vg_begin_removal(vg, "nope"), -ENOENT);
	CU_ASSERT_EQUAL_FATAL(vg_begin_removal(vg, "www"), 0);
	CU_ASSERT_EQUAL(vg->nr_volumes, 1);
	CU_ASSERT_EQUAL(vg->nr_removals, 1);
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, "www"));
	CU_ASSERT_STRING_EQUAL(vg_find_volume(vg, "snap")->origin, "");
	CU_ASSERT_PTR_EQUAL(vg_find_dev_id(vg, 1), vg_find_removal(vg, "www"));
	CU_ASSERT(vg_name_used(vg, "www"));
	memset(&v, 0, sizeof(v));
	strcpy(v.name, "www");
	v.dev_id = 2;
	v.size = 1 << 20;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EEXIST);	/* the name is held */
	strcpy(v.name, "new");
	v.dev_id = 1;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EEXIST);	/* and the dev id */
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(text, "removing"));
	CU_ASSERT_EQUAL_FATAL(vg_import(text, len, &back), 0);
	x = vg_find_removal(back, "www");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(x->dev_id, 1);
	CU_ASSERT_EQUAL(x->size, 1073741824);
	CU_ASSERT_EQUAL(x->wiped, 0);
	CU_ASSERT_PTR_NULL(strstr(text, "wiped"));	/* written only when 1 */
	CU_ASSERT_PTR_NULL(vg_find_volume(back, "www"));
	{	/* tvremove --wipe's removal keeps that its chunks were zeroed */
		struct vg *w;
		char *wt;
		size_t wl;

		vg_find_removal(vg, "www")->wiped = 1;
		CU_ASSERT_EQUAL_FATAL(vg_export(vg, &wt, &wl), 0);
		CU_ASSERT_EQUAL_FATAL(vg_import(wt, wl, &w), 0);
		CU_ASSERT_EQUAL(vg_find_removal(w, "www")->wiped, 1);
		vg_free(w);
		free(wt);
		vg_find_removal(vg, "www")->wiped = 0;
	}
	/* a removal holding a volume's dev id is refused */
	bad = strdup(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
	d = strstr(strstr(bad, "removing"), "dev_id");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	d = strchr(d, '1');
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	*d = '4';
	CU_ASSERT_EQUAL(vg_import(bad, len, &no), -EUCLEAN);
	free(bad);
	/* a removal with an unknown key is refused */
	bad = malloc(len + 32);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
	d = strstr(strstr(text, "removing"), "size");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	memcpy(bad, text, (size_t)(d - text));
	strcpy(bad + (d - text), "origin = \"snap\"\n");
	strcat(bad, d);
	CU_ASSERT_EQUAL(vg_import(bad, strlen(bad), &no), -EUCLEAN);
	free(bad);
	free(text);
	CU_ASSERT_EQUAL(vg_end_removal(back, "www"), 0);
	CU_ASSERT_EQUAL(vg_end_removal(back, "www"), -ENOENT);
	CU_ASSERT(!vg_name_used(back, "www"));
	CU_ASSERT_PTR_NULL(vg_find_dev_id(back, 1));
	CU_ASSERT_EQUAL(vg_validate(back), 0);
	vg_free(back);
	vg_free(vg);
}

/* Replace the first FROM after AFTER in TEXT by TO (a copy the caller
 * frees). */
static char *text_edit(const char *text, const char *after, const char *from, const char *to)
{
	const char *a = strstr(text, after), *d = a ? strstr(a, from) : NULL;
	char *out;

	if (!d || !(out = malloc(strlen(text) + strlen(to) + 1)))
		return NULL;
	memcpy(out, text, (size_t)(d - text));
	strcpy(out + (d - text), to);
	strcat(out, d + strlen(from));
	return out;
}

/* The trash: a trashed volume leaves the volumes (its snapshot's origin
 * cleared), keeps its dev id but frees its name (a new volume may take
 * it, and a second entry of that name then lives beside the first), its
 * record roundtrips keyed by dev id, undo needs a free name, a purge
 * that began cannot be undone, and bad records are refused. */
static void test_trash(void)
{
	struct vg *vg, *back, *no;
	struct vg_volume v, *x;
	unsigned order[3];
	char *text, *bad;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	CU_ASSERT_EQUAL(vg_trash_volume(vg, "nope", 100), -ENOENT);
	CU_ASSERT_EQUAL_FATAL(vg_trash_volume(vg, "www", 100), 0);
	CU_ASSERT_EQUAL(vg->nr_volumes, 1);
	CU_ASSERT_EQUAL(vg->nr_trash, 1);
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, "www"));
	CU_ASSERT_STRING_EQUAL(vg_find_volume(vg, "snap")->origin, "");
	CU_ASSERT_PTR_EQUAL(vg_find_dev_id(vg, 1), vg_find_trash(vg, "www"));
	CU_ASSERT(!vg_name_used(vg, "www"));	/* the name is free */
	memset(&v, 0, sizeof(v));
	strcpy(v.name, "www");
	v.dev_id = 1;
	v.size = 1 << 20;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EEXIST);	/* the dev id is not */
	v.dev_id = 7;
	vg->next_dev_id = 8;
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
	CU_ASSERT_EQUAL_FATAL(vg_trash_volume(vg, "www", 50), 0);	/* an older clock */
	CU_ASSERT_EQUAL(vg->nr_trash, 2);
	CU_ASSERT_EQUAL(vg_find_trash(vg, "www")->dev_id, 1);	/* the newest */
	vg_trash_order(vg, order);
	CU_ASSERT_EQUAL(vg->trash[order[0]].dev_id, 7);	/* the oldest first */
	CU_ASSERT_EQUAL(vg->trash[order[1]].dev_id, 1);
	CU_ASSERT_EQUAL(vg_trash_expiry(vg, vg_find_trash_id(vg, 7)), INT64_MAX);
	vg->trash_retention = 3600;
	CU_ASSERT_EQUAL(vg_trash_expiry(vg, vg_find_trash_id(vg, 7)), 3650);
	vg_find_trash_id(vg, 7)->purging = 1;
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "trash_retention=3600"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "t1 {"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "t7 {"));
	CU_ASSERT_EQUAL_FATAL(vg_import(text, len, &back), 0);
	CU_ASSERT_EQUAL(back->trash_retention, 3600);
	CU_ASSERT_EQUAL(back->nr_trash, 2);
	x = vg_find_trash_id(back, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_STRING_EQUAL(x->name, "www");
	CU_ASSERT_EQUAL(x->size, 1073741824);
	CU_ASSERT_EQUAL(x->trashed_at, 100);
	CU_ASSERT_EQUAL(x->purging, 0);
	CU_ASSERT_EQUAL(vg_find_trash_id(back, 7)->purging, 1);
	/* undo: a purge under way never comes back, a taken name is refused */
	CU_ASSERT_EQUAL(vg_untrash(back, 7, "w2"), -EBUSY);
	CU_ASSERT_EQUAL(vg_untrash(back, 9, "w2"), -ENOENT);
	CU_ASSERT_EQUAL(vg_untrash(back, 1, "snap"), -EEXIST);
	CU_ASSERT_EQUAL(vg_untrash(back, 1, "a/b"), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(vg_untrash(back, 1, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(vg_find_volume(back, "www"));
	CU_ASSERT_EQUAL(vg_find_volume(back, "www")->trashed_at, 0);
	CU_ASSERT_EQUAL(vg_validate(back), 0);
	CU_ASSERT_EQUAL(vg_drop_trash(back, 7), 0);
	CU_ASSERT_EQUAL(vg_drop_trash(back, 7), -ENOENT);
	CU_ASSERT_EQUAL(back->nr_trash, 0);
	vg_free(back);
	/* no trash, no retention: the text is as before */
	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &back), 0);
	{
		char *t0;
		size_t l0;

		CU_ASSERT_EQUAL_FATAL(vg_export(back, &t0, &l0), 0);
		CU_ASSERT_PTR_NULL(strstr(t0, "trash"));
		free(t0);
	}
	vg_free(back);
	/* refused: a key that is not t<dev_id>, an entry holding a volume's dev
	 * id, an unknown key, an origin, a retention of 0 or beyond ten years */
	bad = text_edit(text, "trash {", "t1 {", "t9 {");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	bad = text_edit(text, "t1 {", "dev_id=1", "dev_id=2");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	bad = text_edit(text, "t1 {", "size", "origin = \"snap\"\nsize");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	bad = text_edit(text, "t1 {", "purging", "purging = 2\n#");
	bad = bad ? bad : text_edit(text, "t1 {", "trashed_at", "purging = 2\ntrashed_at");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	bad = text_edit(text, "pool", "trash_retention=3600", "trash_retention=0");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	bad = text_edit(text, "pool", "trash_retention=3600", "trash_retention=999999999");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	bad = text_edit(text, "t1 {", "trashed_at", "wiped = 1\ntrashed_at");
	CU_ASSERT_EQUAL(bad ? vg_import(bad, strlen(bad), &no) : -1, -EUCLEAN);
	free(bad);
	free(text);
	vg_free(vg);
}

/* A raw import's receive: its flag roundtrips (written only when set),
 * it has no origin, and it ends as a writable volume without a content
 * uuid; a volume never carries the flag. */
static void test_raw_receive(void)
{
	struct vg *vg, *back, *no;
	struct vg_volume r, *x;
	char *text, *bad;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "img");
	r.dev_id = 3;
	r.size = 3 << 20;
	r.read_only = 1;
	strcpy(r.content_uuid, "0b2d2b7c-52a8-4f0e-9d27-2d1f4a5e6c70");
	r.raw = 1;
	CU_ASSERT_EQUAL_FATAL(vg_add_receive(vg, &r), 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "raw=1"));
	CU_ASSERT_EQUAL_FATAL(vg_import(text, len, &back), 0);
	x = vg_find_receive(back, "img");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(x->raw, 1);
	/* raw=2 is refused */
	bad = strdup(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
	*(strstr(bad, "raw=1") + 4) = '2';
	CU_ASSERT_EQUAL(vg_import(bad, len, &no), -EUCLEAN);
	free(bad);
	free(text);
	/* a stream's receive writes no raw key */
	x->raw = 0;
	CU_ASSERT_EQUAL_FATAL(vg_export(back, &text, &len), 0);
	CU_ASSERT_PTR_NULL(strstr(text, "raw="));
	free(text);
	x->raw = 1;
	/* a raw import with an origin, or a volume with the flag: refused */
	strcpy(x->origin, "snap");
	CU_ASSERT_EQUAL(vg_validate(back), -EINVAL);
	x->origin[0] = '\0';
	vg_find_volume(back, "snap")->raw = 1;
	CU_ASSERT_EQUAL(vg_validate(back), -EINVAL);
	vg_find_volume(back, "snap")->raw = 0;
	CU_ASSERT_EQUAL(vg_validate(back), 0);
	/* the end: an ordinary writable volume */
	CU_ASSERT_EQUAL(vg_finish_receive(back, "img"), 0);
	x = vg_find_volume(back, "img");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(x->read_only, 0);
	CU_ASSERT_EQUAL(x->raw, 0);
	CU_ASSERT_STRING_EQUAL(x->content_uuid, "");
	CU_ASSERT_EQUAL(vg_validate(back), 0);
	vg_free(back);
	vg_free(vg);
}

static void test_volume_ops(void)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg();
	struct vg_volume v;

	memset(&v, 0, sizeof(v));
	strcpy(v.name, "www");
	v.dev_id = vg->next_dev_id++;
	v.size = 4096;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EEXIST);	/* name taken */
	strcpy(v.name, "new");
	v.dev_id = 2;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EEXIST);	/* dev_id taken */
	v.dev_id = vg->next_dev_id;			/* not allocated yet */
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EINVAL);
	v.dev_id = vg->next_dev_id++;
	strcpy(v.origin, "missing");
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EINVAL);
	strcpy(v.origin, "");
	strcpy(v.name, "bad name");
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EINVAL);
	strcpy(v.name, "new");
	v.size = 0;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), -EINVAL);
	tp_log_capture(NULL);
	v.size = 4096;
	CU_ASSERT_EQUAL(vg_add_volume(vg, &v), 0);
	CU_ASSERT_EQUAL(vg->nr_volumes, 4);
	/* snapshot of a snapshot; removing the middle clears the child's origin */
	fx_vol(vg, "snap2", vg->next_dev_id, "www-snap");
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	CU_ASSERT_EQUAL(vg_remove_volume(vg, "www-snap"), 0);
	CU_ASSERT_EQUAL(vg_remove_volume(vg, "www-snap"), -ENOENT);
	CU_ASSERT_STRING_EQUAL(vg_find_volume(vg, "snap2")->origin, "");
	CU_ASSERT_PTR_NULL(vg_find_volume(vg, "www-snap"));
	CU_ASSERT_PTR_NULL(vg_find_dev_id(vg, 3));
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	roundtrip(vg);
	vg_free(vg);
	vg_free(NULL);
}

/* Thousands of volumes export, import and fit one slot of the default area. */
static void test_many_volumes(void)
{
	struct vg *vg = fx_vg(), *back;
	struct vg_label l;
	char name[32], *t;
	size_t n;
	unsigned i;

	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "volume-%05u.snapshot", i);
		fx_vol(vg, name, vg->next_dev_id, i % 2 ? "www" : NULL);
	}
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	fx_label(VG_ROLE_META, &l);
	CU_ASSERT(n < vg_mda_capacity(&l));
	CU_ASSERT_EQUAL_FATAL(vg_import(t, n, &back), 0);
	CU_ASSERT_EQUAL(back->nr_volumes, vg->nr_volumes);
	vg_free(back);
	free(t);
	vg_free(vg);
}

/* The model check among many volumes (sorted once, issue 40) finds what a
 * walk in order finds: the first duplicate name or thin id (named with the
 * earliest volume it repeats), a missing origin at the end of a long chain
 * of snapshots, a cycle; and a long chain that is sound passes. Through the
 * text, a repeated key among many volumes is named too. */
static void test_many_volumes_checked(void)
{
	struct vg *vg = fx_vg();
	char name[32], prev[32], msg[512], *t, *at;
	size_t n;
	unsigned i;

	/* a chain of 2000 snapshots, each of the one before */
	strcpy(prev, "www");
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "s%04u", i);
		fx_vol(vg, name, vg->next_dev_id, prev);
		strcpy(prev, name);
	}
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), 0);
	/* the chain's root gets a missing origin: named at the root */
	strcpy(vg_find_volume(vg, "www")->origin, "gone");
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "pool/volumes/www/origin: no volume named 'gone'");
	/* ... or the chain's last: a cycle, named at the first volume on it */
	strcpy(vg_find_volume(vg, "www")->origin, prev);
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "pool/volumes/www/origin: origins form a cycle");
	vg_find_volume(vg, "www")->origin[0] = '\0';
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), 0);
	/* two late volumes repeat an early thin id and an early name: the
	 * first in order is named, with the volume it repeats */
	vg->volumes[1500].dev_id = vg->volumes[700].dev_id;
	strcpy(prev, vg->volumes[1800].name);
	strcpy(vg->volumes[1800].name, vg->volumes[20].name);
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, vg->volumes[1500].name));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, vg->volumes[700].name));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "/dev_id: "));
	vg->volumes[1500].dev_id = vg->next_dev_id++;
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "duplicate volume name"));
	strcpy(vg->volumes[1800].name, prev);
	CU_ASSERT_EQUAL(vg_check_model(vg, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	/* a repeated key in the text's volumes section, among 2000 others */
	at = strstr(t, "s1999 {");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	memcpy(at, "s0005", 5);
	{
		struct vg *back = NULL;
		char why[512];
		CU_ASSERT_NOT_EQUAL(vg_import_why(t, n, &back, why, sizeof(why)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "pool/volumes/s0005: duplicate key"));
		vg_free(back);
	}
	free(t);
	vg_free(vg);
}

/* Random byte damage to an exported text: import either refuses it with
 * -EUCLEAN or returns a model that validates; never anything else. A
 * fixed-seed generator keeps the run reproducible. */
static void test_random_damage(void)
{
	struct tp_log_capture cap;
	struct vg *vg = fx_vg(), *back;
	uint32_t x = 12345;
	char *t, *d;
	size_t n;
	unsigned i, j, ok = 0;
	static const char alphabet[] = "{}=\"#\n 0123456789-azAZ/.[],\\";

	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	d = malloc(n);
	for (i = 0; i < 3000; i++) {
		int r;
		memcpy(d, t, n);
		for (j = 0; j <= i % 3; j++) {
			x = x * 1103515245u + 12345u;
			d[(x >> 8) % n] = alphabet[(x >> 20) % (sizeof(alphabet) - 1)];
		}
		tp_log_capture(&cap);
		r = vg_import(d, n, &back);
		tp_log_capture(NULL);
		CU_ASSERT(r == 0 || r == -EUCLEAN || r == -EPROTONOSUPPORT);
		if (!r) {
			ok++;
			CU_ASSERT_EQUAL(vg_validate(back), 0);
			vg_free(back);
		}
	}
	CU_ASSERT(ok < 3000);	/* the damage did bite */
	free(d);
	free(t);
	vg_free(vg);
}

/* The activation flags: a text without them (every VG written before
 * they existed) reads as "activate"; they are written only when set, so
 * such VGs export byte for byte as before; set, they survive a roundtrip. */
static void test_activation_skip(void)
{
	const char *set_vol = "read_only = 1";
	struct vg *vg, *back;
	char *t, *u;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	CU_ASSERT_EQUAL(vg->activation_skip, 0);
	CU_ASSERT_EQUAL(vg_find_volume(vg, "snap")->activation_skip, 0);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "activation_skip"));
	free(t);
	vg->activation_skip = 1;
	vg_find_volume(vg, "snap")->activation_skip = 1;
	roundtrip(vg);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_EQUAL_FATAL(vg_import(t, n, &back), 0);
	CU_ASSERT_EQUAL(back->activation_skip, 1);
	CU_ASSERT_EQUAL(vg_find_volume(back, "snap")->activation_skip, 1);
	CU_ASSERT_EQUAL(vg_find_volume(back, "www")->activation_skip, 0);
	vg_free(back);
	free(t);
	/* hand-written "= 0" is accepted too */
	{
		const char *at = strstr(good_text, set_vol);
		size_t pre;

		CU_ASSERT_PTR_NOT_NULL_FATAL(at);
		pre = (size_t)(at - good_text);
		u = malloc(strlen(good_text) + 64);
		memcpy(u, good_text, pre);
		sprintf(u + pre, "%s activation_skip = 0%s", set_vol, at + strlen(set_vol));
		CU_ASSERT_EQUAL_FATAL(vg_import(u, strlen(u), &back), 0);
		CU_ASSERT_EQUAL(vg_find_volume(back, "snap")->activation_skip, 0);
		vg_free(back);
		free(u);
	}
	vg->activation_skip = 2;
	CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
	vg_free(vg);
}

/* The geometry profile: optional (VGs before profiles read as NONE and
 * export without it), every recorded value survives a roundtrip. */
static void test_profile(void)
{
	struct vg *vg, *back;
	char *t;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	CU_ASSERT_EQUAL(vg->profile, VG_PROFILE_NONE);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "profile"));
	free(t);
	for (int p = VG_PROFILE_BALANCED; p <= VG_PROFILE_CUSTOM; p++) {
		vg->profile = (enum vg_profile)p;
		CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(t, "profile"));
		CU_ASSERT_EQUAL_FATAL(vg_import(t, n, &back), 0);
		CU_ASSERT_EQUAL(back->profile, p);
		vg_free(back);
		free(t);
	}
	vg->profile = (enum vg_profile)(VG_PROFILE_CUSTOM + 1);
	CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
	vg_free(vg);
}

/* GOOD_TEXT with EXTRA inserted after "metadata_area = 1\n", imported. */
static struct vg *import_with(const char *extra)
{
	const char *key = "metadata_area = 1\n", *at = strstr(good_text, key);
	struct vg *vg = NULL;
	size_t pre;
	char *u;

	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	pre = (size_t)(at - good_text) + strlen(key);
	u = malloc(strlen(good_text) + strlen(extra) + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	memcpy(u, good_text, pre);
	strcpy(u + pre, extra);
	strcat(u, good_text + pre);
	CU_ASSERT_EQUAL(vg_import(u, strlen(u), &vg), 0);
	free(u);
	return vg;
}

static void test_monitor_policy(void)
{
	struct vg *vg;
	char *t;
	size_t n;

	/* no section: the defaults, and none written back */
	CU_ASSERT_EQUAL_FATAL(vg_import(good_text, strlen(good_text), &vg), 0);
	CU_ASSERT_EQUAL(vg->monitor.warn, VG_MONITOR_WARN_DEFAULT);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_threshold, VG_MONITOR_THRESHOLD_OFF);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_percent, VG_MONITOR_PERCENT_DEFAULT);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_size, 0);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_max, 0);
	CU_ASSERT_EQUAL(vg->max_overprovision, 0);
	CU_ASSERT_TRUE(vg_monitor_is_default(&vg->monitor));
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "monitor"));
	CU_ASSERT_PTR_NULL(strstr(t, "overprovision"));
	free(t);
	/* one key changed: the section is written, with every key */
	vg->monitor.autoextend_threshold = 75;
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "autoextend_threshold=75"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "warn=80"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "autoextend_percent=20"));
	free(t);
	vg_free(vg);
	/* missing keys read as the defaults; a size replaces the percentage */
	vg = import_with("  monitor { autoextend_size = 1048576 }\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(vg);
	CU_ASSERT_EQUAL(vg->monitor.warn, VG_MONITOR_WARN_DEFAULT);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_threshold, VG_MONITOR_THRESHOLD_OFF);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_percent, 0);
	CU_ASSERT_EQUAL(vg->monitor.autoextend_size, 1048576);
	vg_free(vg);
	vg = import_with("  monitor { }\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(vg);
	CU_ASSERT_TRUE(vg_monitor_is_default(&vg->monitor));
	/* the model check refuses what the text would */
	vg->monitor.autoextend_size = 4096;
	CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
	vg->monitor.autoextend_percent = 0;
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	vg->monitor.autoextend_threshold = 101;
	CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
	vg_free(vg);
}

/* Several data devices: a pool on one writes no data1.. (its text as
 * before), the added ones roundtrip with their ranges, the ranges must
 * agree with the areas, and chunks are located on the right device. */
static void test_data_devices(void)
{
	struct vg *vg = fx_vg(), *back;
	struct vg_label l;
	uint64_t chunk = 2ull << 20, off, run;
	unsigned dev;
	char *t, *bad;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "data1"));
	CU_ASSERT_PTR_NULL(strstr(t, "first_chunk"));
	free(t);
	CU_ASSERT_EQUAL(vg_nr_data(vg), 1);
	CU_ASSERT_EQUAL(vg_data_chunks(vg), (FX_DEV_SIZE - (1ull << 20)) / chunk);
	/* a second device: 7 chunks each (the first's area cut to whole chunks) */
	vg->dev[VG_ROLE_DATA].area[0].size = 7 * chunk;
	vg->nr_xdata = 1;
	vg->xdata[0] = vg->dev[VG_ROLE_DATA];
	strcpy(vg->xdata[0].pv_uuid, "77777777-7777-4777-8777-777777777777");
	strcpy(vg->xdata[0].path, "/dev/test-data2");
	CU_ASSERT_EQUAL(vg_validate(vg), 0);
	CU_ASSERT_EQUAL(vg_data_chunks(vg), 14);
	CU_ASSERT_EQUAL(vg_data_first_chunk(vg, 1), 7);
	CU_ASSERT_EQUAL(vg_data_locate(vg, 9, &dev, &off, &run), 0);
	CU_ASSERT_EQUAL(dev, 1);
	CU_ASSERT_EQUAL(off, (1ull << 20) + 2 * chunk);
	CU_ASSERT_EQUAL(run, 5);
	CU_ASSERT_EQUAL(vg_data_locate(vg, 6, &dev, &off, &run), 0);
	CU_ASSERT_EQUAL(dev, 0);
	CU_ASSERT_EQUAL(run, 1);
	CU_ASSERT_EQUAL(vg_data_locate(vg, 14, &dev, &off, &run), -ERANGE);
	CU_ASSERT_EQUAL(vg_data_index(vg, "77777777-7777-4777-8777-777777777777"), 1);
	roundtrip(vg);
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "first_chunk=7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\tchunks=7"));
	/* a range that disagrees with the areas is refused, naming the key */
	bad = strdup(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(bad, "first_chunk=7"));
	memcpy(strstr(bad, "first_chunk=7"), "first_chunk=6", 13);
	CU_ASSERT_EQUAL(vg_import(bad, n, &back), -EUCLEAN);
	free(bad);
	free(t);
	/* the added device's label carries its place */
	vg_label_from_vg_data(vg, 1, FX_DEV_SIZE, &l);
	CU_ASSERT_EQUAL(l.data_index, 1);
	CU_ASSERT_STRING_EQUAL(l.pv_uuid, "77777777-7777-4777-8777-777777777777");
	{
		uint8_t s[VG_LABEL_SIZE];
		struct vg_label got;

		CU_ASSERT_EQUAL_FATAL(vg_label_encode(&l, s), 0);
		CU_ASSERT_EQUAL(vg_label_decode(s, "t", &got), VG_LABEL_FOUND);
		CU_ASSERT_EQUAL(got.data_index, 1);
		l.role = VG_ROLE_META;
		CU_ASSERT_EQUAL(vg_label_check(&l), -EINVAL);
	}
	/* a device uuid twice, and a first area of a partial chunk before another */
	strcpy(vg->xdata[0].pv_uuid, vg->dev[VG_ROLE_META].pv_uuid);
	CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
	strcpy(vg->xdata[0].pv_uuid, "77777777-7777-4777-8777-777777777777");
	vg->dev[VG_ROLE_DATA].area[0].size = 7 * chunk + 512;
	CU_ASSERT_EQUAL(vg_validate(vg), -EINVAL);
	vg_free(vg);
}

/* A commit copies the text of each volume it did not change from the
 * text the pool's VG was read from (vg.source, kept for a writer): after
 * random changes of a VG read so (volumes added, snapshots, removed,
 * renamed, resized, flags set, removals and trash entries begun,
 * volumes reordered), the text written that way is the text vg_export
 * writes, byte for byte. A source in a form vg_export does not write
 * (a key it leaves out, 0) still reads back as the VG. Without
 * vg_keep_source no source is kept. */
/* One random change of NEXT (the N-th, K-th of it) for the commit's
 * copied text: a volume added or a snapshot, removed, renamed, resized,
 * flags set, a removal or trash entry begun, two volumes swapped. */
static void source_change(struct vg *next, uint64_t *st, unsigned n, unsigned k)
{
	uint64_t r = tp_test_xorshift64(st);
	struct vg_volume *v = &next->volumes[(r >> 8) % next->nr_volumes], nv;

	switch (r % 9) {
	case 0:	/* a new volume or a snapshot, at the end */
		memset(&nv, 0, sizeof(nv));
		snprintf(nv.name, sizeof(nv.name), "new%u.%u", n, k);
		nv.dev_id = next->next_dev_id++;
		nv.size = 1ull << 30;
		if (r & 0x10000)
			snprintf(nv.origin, sizeof(nv.origin), "%s", v->name);
		CU_ASSERT_EQUAL_FATAL(vg_append_volume(next, &nv), 0);
		break;
	case 1:
		if (!vg_name_used(next, "x") && vg_remove_volume(next, v->name))
			CU_FAIL("remove");
		break;
	case 2:
		snprintf(v->name, sizeof(v->name), "ren%u.%u", n, k);
		break;
	case 3:
		v->size += 1ull << 20;
		break;
	case 4:
		v->read_only = !v->read_only;
		v->activation_skip = !v->activation_skip;
		break;
	case 5:
		strcpy(v->content_uuid, r & 0x10000 ? FX_POOL_UUID : "");
		strcpy(v->luks_uuid, r & 0x20000 ? FX_META_UUID : "");
		break;
	case 6:
		if (vg_begin_removal(next, v->name))
			CU_FAIL("removal");
		break;
	case 7:
		if (vg_trash_volume(next, v->name, 1700000000))
			CU_FAIL("trash");
		break;
	default:	/* two volumes change places */
		if (v + 1 < next->volumes + next->nr_volumes) {
			nv = *v;
			*v = v[1];
			v[1] = nv;
		}
		break;
	}
}

static void test_export_from_source(void)
{
	struct vg *vg = fx_vg(), *base, *next, *back, *again;
	uint32_t *start;
	char name[32], *t0, *t1, *t2, *odd;
	size_t n0, n1, n2;
	uint64_t st = 5;
	unsigned spliced = 0, again_ok = 0;

	for (unsigned i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "v%03u", i);
		fx_vol(vg, name, vg->next_dev_id, i % 3 ? NULL : (i ? "v000" : NULL));
	}
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &t0, &n0), 0);
	CU_ASSERT_EQUAL_FATAL(vg_import(t0, n0, &base), 0);
	CU_ASSERT_PTR_NULL(base->source);
	vg_free(base);
	vg_keep_source(1);
	CU_ASSERT_EQUAL_FATAL(vg_import(t0, n0, &base), 0);
	vg_keep_source(0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(base->source);
	CU_ASSERT_EQUAL(base->source->n, base->nr_volumes);
	for (unsigned n = 0; n < 3000; n++) {
		CU_ASSERT_EQUAL_FATAL(vg_clone(base, &next), 0);
		CU_ASSERT_PTR_NULL(next->source);
		for (unsigned k = 0, m = 1 + n % 4; k < m; k++)
			source_change(next, &st, n, k);
		/* (an origin dropped or renamed: not a VG to write) */
		for (unsigned i = 0; i < next->nr_volumes; i++)
			if (next->volumes[i].origin[0] &&
			    !vg_find_volume(next, next->volumes[i].origin))
				next->volumes[i].origin[0] = '\0';
		if (vg_validate(next)) {
			vg_free(next);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(vg_export(next, &t1, &n1), 0);
		CU_ASSERT_EQUAL_FATAL(vg_export_checked(base, next, &t2, &n2, &start), 0);
		CU_ASSERT_EQUAL(n1, n2);
		CU_ASSERT(n1 == n2 && !memcmp(t1, t2, n1));
		spliced++;
		free(t1);
		/* each entry begins where START says, the section closes
		 * at its last */
		for (unsigned i = 0; i < next->nr_volumes; i++) {
			char head[VG_NAME_MAX + 8];

			snprintf(head, sizeof(head), "\t\t%s {\n", next->volumes[i].name);
			CU_ASSERT(start[i] < n2 && !strncmp(t2 + start[i], head, strlen(head)));
		}
		CU_ASSERT(!strncmp(t2 + start[next->nr_volumes], "\t}\n", 3));
		/* the text written, with where each entry begins, is the
		 * source of the next commit (a command's second): the same */
		next->source = calloc(1, sizeof(*next->source));
		CU_ASSERT_PTR_NOT_NULL_FATAL(next->source);
		next->source->text = t2;
		next->source->start = start;
		next->source->n = next->nr_volumes;
		CU_ASSERT_EQUAL_FATAL(vg_clone(next, &again), 0);
		source_change(again, &st, n, 9);
		for (unsigned i = 0; i < again->nr_volumes; i++)
			if (again->volumes[i].origin[0] &&
			    !vg_find_volume(again, again->volumes[i].origin))
				again->volumes[i].origin[0] = '\0';
		if (!vg_validate(again)) {
			CU_ASSERT_EQUAL_FATAL(vg_export(again, &t1, &n1), 0);
			CU_ASSERT_EQUAL_FATAL(vg_export_checked(next, again, &t2, &n2, NULL), 0);
			CU_ASSERT(n1 == n2 && !memcmp(t1, t2, n1));
			again_ok++;
			free(t1);
			free(t2);
		}
		vg_free(again);
		vg_free(next);
	}
	CU_ASSERT(spliced > 2000);
	CU_ASSERT(again_ok > 1500);
	vg_free(base);
	/* a source with a key vg_export leaves out when 0: read back alike */
	odd = malloc(n0 + 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(odd);
	{
		const char *at = strstr(t0, "\t\t\tread_only=0\n");
		size_t head;

		CU_ASSERT_PTR_NOT_NULL_FATAL(at);
		head = (size_t)(at - t0) + strlen("\t\t\tread_only=0\n");
		memcpy(odd, t0, head);
		strcpy(odd + head, "\t\t\tactivation_skip=0\n");
		memcpy(odd + head + 21, t0 + head, n0 - head);
		vg_keep_source(1);
		CU_ASSERT_EQUAL_FATAL(vg_import(odd, n0 + 21, &base), 0);
		vg_keep_source(0);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(base->source);
	CU_ASSERT_EQUAL_FATAL(vg_clone(base, &next), 0);
	next->volumes[7].size += 1ull << 20;
	CU_ASSERT_EQUAL_FATAL(vg_export_checked(base, next, &t2, &n2, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t2, "activation_skip=0"));
	CU_ASSERT_EQUAL_FATAL(vg_import(t2, n2, &back), 0);
	same_vg(next, back);
	free(t2);
	free(odd);
	free(t0);
	vg_free(back);
	vg_free(next);
	vg_free(base);
	vg_free(vg);
}

TP_TEST_SUITE(vg_text, NULL, NULL,
	      { "several data devices: ranges, roundtrip, one device as before", test_data_devices },
	      { "geometry profile: optional, every value roundtrips", test_profile },
	      { "import a hand-written text", test_import_handwritten },
	      { "export/import roundtrip", test_roundtrip },
	      { "a shared pool's lock: optional, roundtrips, bad values named", test_lock },
	      { "integrity under a mirror's legs: roundtrips, bad regions named", test_integrity },
	      { "validation matrix: each error names its key", test_validation_matrix },
	      { "garbage and truncated text", test_garbage },
	      { "vg_validate/vg_export refuse bad models", test_validate_model },
	      { "activation flags: optional, written only when set", test_activation_skip },
	      { "monitor policy: optional section, defaults, checks", test_monitor_policy },
	      { "volume add/remove/find", test_volume_ops },
	      { "unfinished receives: apart, held, roundtrip, end", test_receives },
	      { "a raw import's receive: flag, no origin, ends writable", test_raw_receive },
	      { "a removal under way: apart, held, roundtrip, end", test_removals },
	      { "the trash: name free, dev id held, roundtrip, undo, order, refusals",
		test_trash },
	      { "3000 volumes fit a slot", test_many_volumes },
	      { "many volumes: duplicates, origins and cycles found as in order",
		test_many_volumes_checked },
	      { "random damage: refused or valid", test_random_damage },
	      { "a commit's text copied from the source: what vg_export writes",
		test_export_from_source })
