/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/dev/stack.h: the stack decision over a table of stacks built as fake
 * sysfs trees (md member, multipath path, partition inside a disk we
 * label, dm linear over a device, a plain disk, our own pool's dm device),
 * the RAID facts libblkid gathers from hand-written md superblocks, and
 * the same-backing-storage check over files, links and sysfs fixtures. */
#include "lib/dev/stack.h"
#include "test/unit/dev_fixture.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL_UUID "4f3a2b1c-0000-4000-8000-00000000aaaa"

/* A fake sysfs device directory under the temp dir. */
struct fx_dev {
	const char *dir;			/* relative: "st/vda" */
	const char *holders[3][3];		/* name, dm uuid ("-": none; "md": an md array), dm name */
	const char *self_dm_uuid;
	int partition;
};

static void build(const struct fx_dev *d)
{
	char rel[512];

	fx_mkdir(d->dir);
	snprintf(rel, sizeof(rel), "%s/holders", d->dir);
	fx_mkdir(rel);
	for (int i = 0; i < 3 && d->holders[i][0]; i++) {
		const char *uuid = d->holders[i][1], *name = d->holders[i][2];

		snprintf(rel, sizeof(rel), "%s/holders/%s", d->dir, d->holders[i][0]);
		fx_mkdir(rel);
		if (!strcmp(uuid, "md")) {
			snprintf(rel, sizeof(rel), "%s/holders/%s/md", d->dir, d->holders[i][0]);
			fx_mkdir(rel);
			continue;
		}
		snprintf(rel, sizeof(rel), "%s/holders/%s/dm", d->dir, d->holders[i][0]);
		fx_mkdir(rel);
		snprintf(rel, sizeof(rel), "%s/holders/%s/dm/uuid", d->dir, d->holders[i][0]);
		fx_file(rel, strcmp(uuid, "-") ? uuid : "");
		snprintf(rel, sizeof(rel), "%s/holders/%s/dm/name", d->dir, d->holders[i][0]);
		fx_file(rel, name ? name : "");
	}
	if (d->self_dm_uuid) {
		snprintf(rel, sizeof(rel), "%s/dm", d->dir);
		fx_mkdir(rel);
		snprintf(rel, sizeof(rel), "%s/dm/uuid", d->dir);
		fx_file(rel, d->self_dm_uuid);
	}
	if (d->partition) {
		snprintf(rel, sizeof(rel), "%s/partition", d->dir);
		fx_file(rel, "1\n");
	}
}

static void test_stack_table(void)
{
	static const struct {
		const char *what;
		struct fx_dev dev;
		const char *raid_type, *raid_uuid, *raid_label;
		int mpath_udev, parent_labelled;
		enum tp_stack_kind want;
		const char *top, *says;
	} rows[] = {
		{ "plain disk", { "st/plain", { { NULL } } }, "", "", "", 0, 0, TP_STACK_TOP, "",
		  "not stacked" },
		{ "md member, array assembled", { "st/vda", { { "md1", "md", NULL } } },
		  "linux_raid_member", "1111-2222", "box:1", 0, 0, TP_STACK_MD, "/dev/md1",
		  "a member of md array /dev/md1 (name box:1, uuid 1111-2222)" },
		{ "md member, array not assembled (1.0 at the end)", { "st/vdb", { { NULL } } },
		  "linux_raid_member", "1111-2222", "box:1", 0, 0, TP_STACK_MD, "",
		  "a member of md array box:1 (uuid 1111-2222), which is not assembled" },
		{ "md member, 0.90 (no name)", { "st/vdc", { { NULL } } }, "linux_raid_member",
		  "0102-0304", "", 0, 0, TP_STACK_MD, "", "md array with uuid 0102-0304, which is not "
		  "assembled" },
		{ "multipath path, a holder map", { "st/sdb",
		  { { "dm-2", "mpath-3600a0b80", "mpatha" } } }, "", "", "", 0, 0, TP_STACK_MPATH,
		  "/dev/mapper/mpatha", "a path of multipath device /dev/mapper/mpatha" },
		{ "multipath path, udev only (map not yet built)", { "st/sdc", { { NULL } } }, "",
		  "", "", 1, 0, TP_STACK_MPATH, "", "DM_MULTIPATH_DEVICE_PATH=1" },
		{ "dm linear over a device", { "st/vdd", { { "dm-3", "-", "slice" } } }, "", "", "",
		  0, 0, TP_STACK_DM, "/dev/mapper/slice", "used by device-mapper device "
		  "/dev/mapper/slice" },
		{ "dm holder with a foreign uuid", { "st/vde", { { "dm-5", "LVM-abc", "vg-lv" } } },
		  "", "", "", 0, 0, TP_STACK_DM, "/dev/mapper/vg-lv", "(uuid LVM-abc)" },
		{ "held by our own pool's tdata", { "st/vdf",
		  { { "dm-4", "TPTOOLS-" POOL_UUID "-tdata", "p-tdata" } } }, "", "", "", 0, 0,
		  TP_STACK_TOP, "", "not stacked" },
		{ "held by another pool's tdata", { "st/vdg",
		  { { "dm-6", "TPTOOLS-99999999-0000-4000-8000-000000000000-tdata", "q-tdata" } } },
		  "", "", "", 0, 0, TP_STACK_DM, "/dev/mapper/q-tdata", "device-mapper" },
		{ "our own pool's dm device itself", { "st/dm-7", { { NULL } },
		  "TPTOOLS-" POOL_UUID "-tdata" }, "", "", "", 0, 0, TP_STACK_INTERNAL, "",
		  "internal device of an active pool" },
		{ "partition inside a disk we label", { "st/sda/sda1", { { NULL } }, NULL, 1 }, "",
		  "", "", 0, 1, TP_STACK_PARTITION, "/dev/sda", "a partition of /dev/sda" },
		{ "partition of a disk without our label", { "st/sdz/sdz1", { { NULL } }, NULL, 1 },
		  "", "", "", 0, 0, TP_STACK_TOP, "", "not stacked" },
		{ "LVM physical volume", { "st/vdh", { { NULL } } }, "LVM2_member", "Xq3c", "", 0, 0,
		  TP_STACK_LVM, "", "an LVM physical volume with uuid Xq3c" },
		{ "another RAID's member", { "st/vdi", { { NULL } } }, "ddf_raid_member", "", "", 0,
		  0, TP_STACK_RAID, "", "ddf_raid_member" },
		{ "held by something else (bcache)", { "st/vdj", { { "bcache0", "-", NULL } } }, "",
		  "", "", 0, 0, TP_STACK_HOLDER, "/dev/bcache0", "held by block device /dev/bcache0" },
	};

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tp_stack_facts f;
		struct tp_stack_verdict v;
		int r;

		memset(&f, 0, sizeof(f));
		build(&rows[i].dev);
		CU_ASSERT_EQUAL_FATAL(tp_stack_read_sysfs(fx_path(rows[i].dev.dir), &f), 0);
		snprintf(f.raid_type, sizeof(f.raid_type), "%s", rows[i].raid_type);
		snprintf(f.raid_uuid, sizeof(f.raid_uuid), "%s", rows[i].raid_uuid);
		snprintf(f.raid_label, sizeof(f.raid_label), "%s", rows[i].raid_label);
		f.mpath_path = rows[i].mpath_udev;
		f.parent_labelled = rows[i].parent_labelled;
		r = tp_stack_decide(&f, POOL_UUID, &v);
		if (v.kind != rows[i].want || strcmp(v.top, rows[i].top) ||
		    !strstr(v.what, rows[i].says))
			printf("\n  %s: kind %d top '%s' what '%s'\n", rows[i].what, v.kind, v.top,
			       v.what);
		CU_ASSERT_EQUAL(v.kind, rows[i].want);
		CU_ASSERT_EQUAL(r, rows[i].want != TP_STACK_TOP);
		CU_ASSERT_STRING_EQUAL(v.top, rows[i].top);
		CU_ASSERT_PTR_NOT_NULL(strstr(v.what, rows[i].says));
	}
}

/* A partition's disk, read from sysfs, and a holder without dm or md. */
static void test_stack_sysfs_facts(void)
{
	const struct fx_dev part = { "sf/sdq/sdq2", { { NULL } }, NULL, 1 };
	const struct fx_dev held = { "sf/vdq", { { "bcache0", "-", NULL }, { "md9", "md", NULL } } };
	struct tp_stack_facts f;

	build(&part);
	memset(&f, 0, sizeof(f));
	CU_ASSERT_EQUAL(tp_stack_read_sysfs(fx_path(part.dir), &f), 0);
	CU_ASSERT_STRING_EQUAL(f.parent, "sdq");
	CU_ASSERT_EQUAL(f.nr_holders, 0);
	build(&held);
	memset(&f, 0, sizeof(f));
	CU_ASSERT_EQUAL(tp_stack_read_sysfs(fx_path(held.dir), &f), 0);
	CU_ASSERT_EQUAL(f.nr_holders, 2);
	CU_ASSERT_STRING_EQUAL(f.parent, "");
	/* not sysfs at all: nothing there */
	memset(&f, 0, sizeof(f));
	CU_ASSERT_EQUAL(tp_stack_read_sysfs(fx_path("sf/nosuch"), &f), 0);
	CU_ASSERT_EQUAL(f.nr_holders, 0);
}

/* libblkid's facts from images: md 1.0 and 0.90 at the end, 1.2 at 4 KiB,
 * and a plain image. */
static void test_stack_gather_md(void)
{
	const unsigned size = 8u << 20;
	struct tp_stack_verdict v;
	const char *p;

	p = img("m10.img", size);
	write_md1_super(p, md_v10_offset(size), "box:10");
	CU_ASSERT_EQUAL(tp_stack_check(p, NULL, NULL, NULL, &v), 1);
	CU_ASSERT_EQUAL(v.kind, TP_STACK_MD);
	CU_ASSERT_STRING_EQUAL(v.md_name, "box:10");
	CU_ASSERT_STRING_EQUAL(v.md_uuid, "11223344-5566-7788-99aa-bbccddeeff10");
	CU_ASSERT_PTR_NOT_NULL(strstr(v.what, "not assembled"));

	p = img("m090.img", size);
	write_md090_super(p, size);
	CU_ASSERT_EQUAL(tp_stack_check(p, NULL, NULL, NULL, &v), 1);
	CU_ASSERT_EQUAL(v.kind, TP_STACK_MD);
	CU_ASSERT_STRING_EQUAL(v.md_name, "");
	CU_ASSERT_NOT_EQUAL(v.md_uuid[0], '\0');

	p = img("m12.img", size);
	write_md1_super(p, 4096, "box:12");
	CU_ASSERT_EQUAL(tp_stack_check(p, NULL, NULL, NULL, &v), 1);
	CU_ASSERT_STRING_EQUAL(v.md_name, "box:12");

	p = img("plain.img", size);
	CU_ASSERT_EQUAL(tp_stack_check(p, NULL, NULL, NULL, &v), 0);
	CU_ASSERT_EQUAL(v.kind, TP_STACK_TOP);
	CU_ASSERT_EQUAL(tp_stack_check(fx_path("nosuch.img"), NULL, NULL, NULL, &v), -ENOENT);
}

/* ---- the same backing storage ------------------------------------------- */

static void file_backing(const char *path, struct tp_backing *b)
{
	struct stat st;

	memset(b, 0, sizeof(*b));
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	b->nr = b->nr_own = 1;
	b->id[0].kind = 'f';
	b->id[0].a = (uint64_t)st.st_dev;
	b->id[0].b = (uint64_t)st.st_ino;
}

static void sysfs_backing(const char *rel, struct tp_backing *b)
{
	memset(b, 0, sizeof(*b));
	tp_backing_read_sysfs(fx_path(rel), b);
}

static void test_same_storage_files(void)
{
	const char *a = img("sa.img", 1 << 20), *b = img("sb.img", 1 << 20);
	char why[512], link_[1024], hard[1024];

	snprintf(link_, sizeof(link_), "%s", fx_path("sa.link"));
	snprintf(hard, sizeof(hard), "%s", fx_path("sa.hard"));
	unlink(link_);
	unlink(hard);
	CU_ASSERT_FATAL(symlink(a, link_) == 0);
	CU_ASSERT_FATAL(link(a, hard) == 0);
	CU_ASSERT_EQUAL(tp_dev_same_storage(a, b, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_dev_same_storage(a, a, why, sizeof(why)), 1);
	CU_ASSERT_EQUAL(tp_dev_same_storage(a, link_, why, sizeof(why)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "the same file"));
	CU_ASSERT_EQUAL(tp_dev_same_storage(hard, a, why, sizeof(why)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "hard link"));
	CU_ASSERT_EQUAL(tp_dev_same_storage(a, fx_path("nosuch"), why, sizeof(why)), -ENOENT);
}

static void test_same_storage_sysfs(void)
{
	char m[1024];
	struct tp_backing loop0, loop1, file, dm, vdb, vdc, sda, sda1, sda2, dmx, dmy;
	char why[512];

	snprintf(m, sizeof(m), "%s", img("bk-m.img", 1 << 20));
	/* loop0 and loop1 over bk-m.img */
	fx_mkdir("bk/loop0/loop");
	fx_file("bk/loop0/dev", "7:0\n");
	fx_file("bk/loop0/loop/backing_file", m);
	fx_mkdir("bk/loop1/loop");
	fx_file("bk/loop1/dev", "7:1\n");
	fx_file("bk/loop1/loop/backing_file", m);
	/* dm-3 on vdb; vdc apart */
	fx_mkdir("bk/dm-3/slaves/vdb");
	fx_file("bk/dm-3/dev", "254:3\n");
	fx_file("bk/dm-3/slaves/vdb/dev", "252:16\n");
	fx_mkdir("bk/vdb");
	fx_file("bk/vdb/dev", "252:16\n");
	fx_mkdir("bk/vdc");
	fx_file("bk/vdc/dev", "252:32\n");
	/* sda with two partitions */
	fx_mkdir("bk/sda/sda1");
	fx_mkdir("bk/sda/sda2");
	fx_file("bk/sda/dev", "8:0\n");
	fx_file("bk/sda/sda1/dev", "8:1\n");
	fx_file("bk/sda/sda1/partition", "1\n");
	fx_file("bk/sda/sda2/dev", "8:2\n");
	fx_file("bk/sda/sda2/partition", "2\n");
	/* two dm slices of one disk (vdc): separate storage */
	fx_mkdir("bk/dm-8/slaves/vdc");
	fx_file("bk/dm-8/dev", "254:8\n");
	fx_file("bk/dm-8/slaves/vdc/dev", "252:32\n");
	fx_mkdir("bk/dm-9/slaves/vdc");
	fx_file("bk/dm-9/dev", "254:9\n");
	fx_file("bk/dm-9/slaves/vdc/dev", "252:32\n");

	sysfs_backing("bk/loop0", &loop0);
	sysfs_backing("bk/loop1", &loop1);
	file_backing(m, &file);
	sysfs_backing("bk/dm-3", &dm);
	sysfs_backing("bk/vdb", &vdb);
	sysfs_backing("bk/vdc", &vdc);
	sysfs_backing("bk/sda", &sda);
	sysfs_backing("bk/sda/sda1", &sda1);
	sysfs_backing("bk/sda/sda2", &sda2);
	sysfs_backing("bk/dm-8", &dmx);
	sysfs_backing("bk/dm-9", &dmy);
	CU_ASSERT_EQUAL(loop0.nr_own, 2);

	CU_ASSERT_EQUAL(tp_backing_overlap(&loop0, "/dev/loop0", &file, "m.img", why, sizeof(why)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "/dev/loop0 is a loop device over "));
	CU_ASSERT_EQUAL(tp_backing_overlap(&file, "m.img", &loop0, "/dev/loop0", why, sizeof(why)), 1);
	CU_ASSERT_EQUAL(tp_backing_overlap(&loop0, "/dev/loop0", &loop1, "/dev/loop1", why,
					   sizeof(why)), 1);
	CU_ASSERT_EQUAL(tp_backing_overlap(&dm, "/dev/dm-3", &vdb, "/dev/vdb", why, sizeof(why)), 1);
	CU_ASSERT_STRING_EQUAL(why, "/dev/dm-3 is built on /dev/vdb");
	CU_ASSERT_EQUAL(tp_backing_overlap(&vdb, "/dev/vdb", &dm, "/dev/dm-3", why, sizeof(why)), 1);
	CU_ASSERT_EQUAL(tp_backing_overlap(&dm, "/dev/dm-3", &vdc, "/dev/vdc", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_backing_overlap(&sda1, "/dev/sda1", &sda, "/dev/sda", why, sizeof(why)), 1);
	CU_ASSERT_STRING_EQUAL(why, "/dev/sda1 is a partition of /dev/sda");
	CU_ASSERT_EQUAL(tp_backing_overlap(&sda1, "/dev/sda1", &sda2, "/dev/sda2", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_backing_overlap(&dmx, "/dev/dm-8", &dmy, "/dev/dm-9", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_backing_overlap(&dmx, "/dev/dm-8", &vdc, "/dev/vdc", why, sizeof(why)), 1);
}

TP_TEST_SUITE(stack, NULL, NULL,
	      { "decision: a table of stacks from sysfs fixtures", test_stack_table },
	      { "sysfs facts: partitions, holders, no sysfs", test_stack_sysfs_facts },
	      { "libblkid facts: md 1.0, 0.90, 1.2 superblocks, a plain image",
		test_stack_gather_md },
	      { "same storage: files, symlinks, hard links", test_same_storage_files },
	      { "same storage: loop, dm, partitions from sysfs fixtures",
		test_same_storage_sysfs })
