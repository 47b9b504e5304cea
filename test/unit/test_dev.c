/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/dev: topology (libblkid + TPTOOLS_TOPOLOGY) and signature probing on
 * image files made with mkfs.ext4 / mkswap and hand-written signatures
 * (an LVM2 label, an md v1.2 superblock, a DOS partition table). */
#include "lib/base/log.h"
#include "lib/dev/probe.h"
#include "lib/dev/scan.h"
#include "lib/dev/topology.h"
#include "lib/dev/udev_mark.h"
#include "test/unit/dev_fixture.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IMG_SIZE (4u << 20)

static int sh(const char *fmt, const char *arg)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	return system(cmd);
}

/* ---- topology ------------------------------------------------------------- */

static void test_topology_parse(void)
{
	struct tp_topology t;
	char why[256];

	CU_ASSERT_EQUAL(tp_topology_parse("min_io=524288,opt_io=2097152,align=0", &t, why,
					  sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.min_io, 524288);
	CU_ASSERT_EQUAL(t.opt_io, 2097152);
	CU_ASSERT_EQUAL(t.align_offset, 0);
	CU_ASSERT_EQUAL(t.logical_sector, 512);
	CU_ASSERT_EQUAL(t.physical_sector, 512);
	CU_ASSERT_EQUAL(t.discard, 0);
	CU_ASSERT_EQUAL(t.source, TP_TOPO_OVERRIDE);

	CU_ASSERT_EQUAL(tp_topology_parse("discard=1,physical=4096,logical=4k,align=8k,"
					  "opt_io=2560k,min_io=512k",
					  &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.min_io, 512 << 10);
	CU_ASSERT_EQUAL(t.opt_io, 2560 << 10);
	CU_ASSERT_EQUAL(t.align_offset, 8192);
	CU_ASSERT_EQUAL(t.logical_sector, 4096);
	CU_ASSERT_EQUAL(t.physical_sector, 4096);
	CU_ASSERT_EQUAL(t.discard, 1);
	/* no stripe at all is a valid geometry too */
	CU_ASSERT_EQUAL(tp_topology_parse("min_io=0,opt_io=0,align=0", &t, NULL, 0), 0);
	CU_ASSERT_EQUAL(t.opt_io, 0);
}

static void test_topology_parse_errors(void)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "", "empty" },
		{ "min_io=512k", "missing key 'opt_io'" },
		{ "opt_io=2m,align=0", "missing key 'min_io'" },
		{ "min_io=512k,opt_io=2m,align=0,stripe=4", "unknown key 'stripe'" },
		{ "min_io=512k,opt_io=2m,align=0,min_io=4k", "given twice" },
		{ "min_io=lots,opt_io=2m,align=0", "bad value for min_io" },
		{ "min_io=-4k,opt_io=2m,align=0", "bad value for min_io" },
		{ "min_io,opt_io=2m,align=0", "not key=value" },
		{ "min_io=512k,opt_io=2m,align=0,logical=1000", "logical must be a power of two" },
		{ "min_io=512k,opt_io=2m,align=0,logical=128k", "logical must be a power of two" },
		{ "min_io=512k,opt_io=2m,align=0,logical=4096,physical=512", "physical must not" },
		{ "min_io=1000,opt_io=2m,align=0", "min_io must be a multiple" },
		{ "min_io=4k,opt_io=6k,align=0,logical=4k", "opt_io must be a multiple" },
		{ "min_io=512k,opt_io=2m,align=2m", "align must be smaller" },
		{ "min_io=512k,opt_io=0,align=1m", "align must be smaller" },
		{ "min_io=512k,opt_io=2m,align=0,discard=2", "discard must be 0 or 1" },
	};

	for (size_t i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		struct tp_topology t = { .min_io = 77 };
		char why[256] = "";

		CU_ASSERT_EQUAL(tp_topology_parse(bad[i].spec, &t, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, TP_TOPOLOGY_ENV));
		if (!strstr(why, bad[i].says))
			fprintf(stderr, "\n'%s': got '%s'\n", bad[i].spec, why);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].says));
		CU_ASSERT_EQUAL(t.min_io, 77);	/* untouched on error */
	}
	CU_ASSERT_EQUAL(tp_topology_parse(NULL, &(struct tp_topology){ 0 }, NULL, 0), -EINVAL);
}

static void test_topology_file(void)
{
	const char *p = img("topo.img", IMG_SIZE);
	struct tp_topology t;
	char d[200];

	unsetenv(TP_TOPOLOGY_ENV);
	CU_ASSERT_EQUAL(tp_topology_get(p, &t), 0);
	CU_ASSERT_EQUAL(t.source, TP_TOPO_NONE);
	CU_ASSERT_EQUAL(t.opt_io, 0);
	CU_ASSERT_EQUAL(t.align_offset, 0);
	CU_ASSERT_EQUAL(t.logical_sector, 512);
	CU_ASSERT_EQUAL(t.discard, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(tp_topology_describe(&t, d, sizeof(d)), "from none"));

	/* the override replaces what the file reports */
	setenv(TP_TOPOLOGY_ENV, "min_io=64k,opt_io=192k,align=4k", 1);
	CU_ASSERT_EQUAL(tp_topology_get(p, &t), 0);
	CU_ASSERT_EQUAL(t.source, TP_TOPO_OVERRIDE);
	CU_ASSERT_EQUAL(t.opt_io, 192 << 10);
	CU_ASSERT_EQUAL(t.align_offset, 4096);
	CU_ASSERT_PTR_NOT_NULL(strstr(tp_topology_describe(&t, d, sizeof(d)), TP_TOPOLOGY_ENV));
	/* an empty override is "not set" */
	setenv(TP_TOPOLOGY_ENV, "", 1);
	CU_ASSERT_EQUAL(tp_topology_get(p, &t), 0);
	CU_ASSERT_EQUAL(t.source, TP_TOPO_NONE);
	unsetenv(TP_TOPOLOGY_ENV);
}

static void test_topology_errors(void)
{
	struct tp_log_capture cap;
	struct tp_topology t;
	const char *p = img("topo-err.img", IMG_SIZE);
	char missing[600];

	snprintf(missing, sizeof(missing), "%s/no-such-device", tp_test_tmpdir());
	tp_log_capture(&cap);
	setenv(TP_TOPOLOGY_ENV, "min_io=512k,opt_io=2m", 1);
	CU_ASSERT_EQUAL(tp_topology_get(p, &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, TP_TOPOLOGY_ENV));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "align"));
	/* the path must exist even with an override */
	setenv(TP_TOPOLOGY_ENV, "min_io=512k,opt_io=2m,align=0", 1);
	CU_ASSERT_EQUAL(tp_topology_get(missing, &t), -ENOENT);
	unsetenv(TP_TOPOLOGY_ENV);
	cap.len = 0;
	cap.buf[0] = '\0';
	CU_ASSERT_EQUAL(tp_topology_get(missing, &t), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "no-such-device"));
	CU_ASSERT_EQUAL(tp_topology_get("/dev/null", &t), -ENOTBLK);
	CU_ASSERT_EQUAL(tp_topology_get(tp_test_tmpdir(), &t), -ENOTBLK);
	tp_log_capture(NULL);
}

/* ---- probe ------------------------------------------------------------------ */

static const struct tp_signature *find(const struct tp_probe_result *r, const char *type)
{
	for (unsigned i = 0; i < r->count; i++)
		if (!strcmp(r->sig[i].type, type))
			return &r->sig[i];
	return NULL;
}

/* Probe PATH (no hook), demand "found" and a TYPE signature of KIND. */
static const struct tp_signature *expect_sig(const char *path, const char *type,
					     enum tp_sig_kind kind, struct tp_probe_result *r)
{
	const struct tp_signature *s;

	CU_ASSERT_EQUAL(tp_dev_probe(path, NULL, r), 1);
	s = find(r, type);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->kind, kind);
	return s;
}

/* Reflected CRC-32 (polynomial 0xEDB88320) from SEED, no final inversion:
 * LVM seeds it with 0xf597a6cf; GPT (zlib's crc32) with ~0 and inverts. */
static uint32_t crc32_raw(uint32_t crc, const unsigned char *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xEDB88320u : 0);
	}
	return crc;
}

static uint32_t lvm_crc(const unsigned char *p, size_t n)
{
	return crc32_raw(0xf597a6cfu, p, n);
}

static uint32_t gpt_crc(const unsigned char *p, size_t n)
{
	return ~crc32_raw(~0u, p, n);
}

/* An LVM2 PV label in sector 1, as pvcreate writes it. */
static void write_lvm_label(const char *path)
{
	unsigned char s[512] = { 0 };

	memcpy(s, "LABELONE", 8);
	le64(s + 8, 1);				/* sector of this label */
	le32(s + 20, 32);			/* offset of the pv_header */
	memcpy(s + 24, "LVM2 001", 8);
	memcpy(s + 32, "Xq3cD0f1AbCdEfGhIjKlMnOpQrStUvWx", 32);	/* pv uuid */
	le64(s + 64, IMG_SIZE);			/* device size */
	le32(s + 16, lvm_crc(s + 20, 512 - 20));
	put(path, 512, s, sizeof(s));
}

/* A DOS partition table with one Linux partition. */
static void write_dos_table(const char *path)
{
	unsigned char mbr[512] = { 0 };

	le32(mbr + 440, 0x5ca1ab1e);		/* disk id */
	mbr[446 + 4] = 0x83;			/* type: Linux */
	le32(mbr + 446 + 8, 2048);		/* first LBA */
	le32(mbr + 446 + 12, 4096);		/* sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	put(path, 0, mbr, sizeof(mbr));
}

/* A GPT: protective MBR, primary header in LBA 1, 128 empty entries. */
static void write_gpt(const char *path)
{
	static unsigned char entries[128 * 128];
	unsigned char mbr[512] = { 0 }, h[512] = { 0 };
	uint64_t last = IMG_SIZE / 512 - 1;

	mbr[446 + 4] = 0xee;			/* protective partition */
	le32(mbr + 446 + 8, 1);
	le32(mbr + 446 + 12, (uint32_t)last);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	memcpy(h, "EFI PART", 8);
	le32(h + 8, 0x00010000);		/* revision 1.0 */
	le32(h + 12, 92);			/* header size */
	le64(h + 24, 1);			/* this LBA */
	le64(h + 32, last);			/* backup header LBA */
	le64(h + 40, 34);			/* first usable */
	le64(h + 48, last - 33);		/* last usable */
	for (int i = 0; i < 16; i++)
		h[56 + i] = (unsigned char)(0xa0 + i);	/* disk GUID */
	le64(h + 72, 2);			/* entries LBA */
	le32(h + 80, 128);			/* number of entries */
	le32(h + 84, 128);			/* entry size */
	le32(h + 88, gpt_crc(entries, sizeof(entries)));
	le32(h + 16, gpt_crc(h, 92));
	put(path, 0, mbr, sizeof(mbr));
	put(path, 512, h, sizeof(h));
	put(path, 1024, entries, sizeof(entries));
}

static void test_probe_nothing(void)
{
	struct tp_probe_result r;
	const char *p = img("zero.img", IMG_SIZE);

	CU_ASSERT_EQUAL(tp_dev_probe(p, NULL, &r), 0);
	CU_ASSERT_EQUAL(r.count, 0);
	p = img("empty.img", 0);
	CU_ASSERT_EQUAL(tp_dev_probe(p, NULL, &r), 0);
	CU_ASSERT_EQUAL(r.count, 0);
}

static void test_probe_errors(void)
{
	struct tp_log_capture cap;
	struct tp_probe_result r;
	char missing[600];

	snprintf(missing, sizeof(missing), "%s/missing.img", tp_test_tmpdir());
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tp_dev_probe(missing, NULL, &r), -ENOENT);
	CU_ASSERT_EQUAL(r.count, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "missing.img"));
	CU_ASSERT_EQUAL(tp_dev_probe("/dev/null", NULL, &r), -ENOTBLK);
	tp_log_capture(NULL);
}

static void test_probe_ext4(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	const char *p = img("ext4.img", IMG_SIZE);
	char d[256];

	CU_ASSERT_FATAL(sh("mkfs.ext4 -q -F -L home '%s' >/dev/null 2>&1", p) == 0);
	s = expect_sig(p, "ext4", TP_SIG_FILESYSTEM, &r);
	CU_ASSERT_STRING_EQUAL(s->label, "home");
	CU_ASSERT_EQUAL(strlen(s->uuid), 36);
	CU_ASSERT_EQUAL(s->offset, 1080);	/* the ext magic */
	tp_signature_describe(s, d, sizeof(d));
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "ext4 filesystem"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "\"home\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(d, s->uuid));

	/* a second signature on the same device is listed too */
	write_lvm_label(p);
	CU_ASSERT_EQUAL(tp_dev_probe(p, NULL, &r), 1);
	CU_ASSERT_PTR_NOT_NULL(find(&r, "ext4"));
	CU_ASSERT_PTR_NOT_NULL(find(&r, "LVM2_member"));
	CU_ASSERT_EQUAL(r.count, 2);
}

static void test_probe_swap(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	const char *p = img("swap.img", IMG_SIZE);
	char d[256];

	CU_ASSERT_FATAL(sh("mkswap -L sw '%s' >/dev/null 2>&1", p) == 0);
	s = expect_sig(p, "swap", TP_SIG_SWAP, &r);
	CU_ASSERT_STRING_EQUAL(s->label, "sw");
	CU_ASSERT_PTR_NOT_NULL(strstr(tp_signature_describe(s, d, sizeof(d)), "swap space"));
}

static void test_probe_lvm(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	const char *p = img("pv.img", IMG_SIZE);

	write_lvm_label(p);
	s = expect_sig(p, "LVM2_member", TP_SIG_LVM, &r);
	CU_ASSERT_EQUAL(r.count, 1);
	/* libblkid prints the PV uuid in LVM's 6-4-4-4-4-4-6 form */
	CU_ASSERT_STRING_EQUAL(s->uuid, "Xq3cD0-f1Ab-CdEf-GhIj-KlMn-OpQr-StUvWx");
	CU_ASSERT_STRING_EQUAL(tp_sig_kind_name(s->kind), "LVM physical volume");
}

static void test_probe_md(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	const char *p = img("md.img", IMG_SIZE);

	write_md1_super(p, 4096, "tpbox:7");
	s = expect_sig(p, "linux_raid_member", TP_SIG_RAID, &r);
	CU_ASSERT_STRING_EQUAL(s->label, "tpbox:7");
	CU_ASSERT_EQUAL(s->offset, 4096);
}

static void test_probe_ptable(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	const char *p = img("dos.img", IMG_SIZE);
	char d[256];

	write_dos_table(p);
	s = expect_sig(p, "dos", TP_SIG_PTABLE, &r);
	CU_ASSERT_STRING_EQUAL(s->uuid, "5ca1ab1e");
	CU_ASSERT_EQUAL(s->offset, 510);
	CU_ASSERT_PTR_NOT_NULL(strstr(tp_signature_describe(s, d, sizeof(d)),
				      "dos partition table"));
}

static void test_probe_gpt(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	const char *p = img("gpt.img", IMG_SIZE);

	write_gpt(p);
	s = expect_sig(p, "gpt", TP_SIG_PTABLE, &r);
	CU_ASSERT_EQUAL(s->offset, 512);
	/* the GUID, mixed-endian as GPT stores it */
	CU_ASSERT_STRING_EQUAL(s->uuid, "a3a2a1a0-a5a4-a7a6-a8a9-aaabacadaeaf");
	CU_ASSERT_PTR_NULL(find(&r, "dos"));	/* the protective MBR is not a dos table */
}

/* A hook standing in for lib/pool's recogniser of our own label. */
static int fake_label(const void *buf, size_t len, struct tp_signature *sig, void *arg)
{
	const unsigned char *b = buf;

	(*(int *)arg)++;
	if (len < 520 || memcmp(b + 512, "TPFAKELB", 8))
		return 0;
	snprintf(sig->type, sizeof(sig->type), "tptools");
	snprintf(sig->label, sizeof(sig->label), "pool vault");
	sig->offset = 512;
	return 1;
}

static int failing_hook(const void *buf, size_t len, struct tp_signature *sig, void *arg)
{
	(void)buf, (void)len, (void)sig, (void)arg;
	return -EIO;
}

static void test_probe_hook(void)
{
	struct tp_probe_result r;
	const struct tp_signature *s;
	int calls = 0;
	struct tp_probe_hook hook = { fake_label, &calls };
	struct tp_probe_hook bad = { failing_hook, NULL };
	struct tp_log_capture cap;
	const char *p = img("ours.img", IMG_SIZE);

	CU_ASSERT_EQUAL(tp_dev_probe(p, &hook, &r), 0);
	CU_ASSERT_EQUAL(calls, 1);
	put(p, 512, "TPFAKELB", 8);
	CU_ASSERT_EQUAL(tp_dev_probe(p, &hook, &r), 1);
	s = find(&r, "tptools");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->kind, TP_SIG_TPTOOLS);
	CU_ASSERT_EQUAL(s->offset, 512);
	/* a hook's error is the probe's error */
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(tp_dev_probe(p, &bad, &r), -EIO);
	CU_ASSERT_EQUAL(r.count, 0);
	tp_log_capture(NULL);
	/* a tiny file: the hook sees only what exists */
	p = img("tiny.img", 100);
	calls = 0;
	CU_ASSERT_EQUAL(tp_dev_probe(p, &hook, &r), 0);
	CU_ASSERT_EQUAL(calls, 1);
}

/* The probe only reads: the image is byte-for-byte unchanged. */
static void test_probe_read_only(void)
{
	const char *p = img("ro.img", IMG_SIZE);
	struct tp_probe_result r;
	char before[4096], after[4096];
	int fd;

	write_lvm_label(p);
	write_dos_table(p);
	fd = open(p, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pread(fd, before, sizeof(before), 0) == (ssize_t)sizeof(before));
	CU_ASSERT_EQUAL(tp_dev_probe(p, NULL, &r), 1);
	CU_ASSERT(r.count >= 1);
	CU_ASSERT_FATAL(pread(fd, after, sizeof(after), 0) == (ssize_t)sizeof(after));
	close(fd);
	CU_ASSERT_EQUAL(memcmp(before, after, sizeof(before)), 0);
}

/* ---- scan ------------------------------------------------------------------- */

/* Whatever this machine has: every entry is a non-empty block device
 * (where its node exists here), the list is sorted, and the dm-uuid
 * filter only removes. */
static void test_scan(void)
{
	struct tp_dev_list all, ours;
	struct stat st;

	CU_ASSERT_EQUAL_FATAL(tp_dev_scan_skip(NULL, NULL, 0, &all), 0);
	for (unsigned i = 0; i < all.count; i++) {
		if (stat(all.dev[i].path, &st) == 0)
			CU_ASSERT(S_ISBLK(st.st_mode));
		CU_ASSERT(all.dev[i].size > 0);
		CU_ASSERT_EQUAL(all.dev[i].size % 512, 0);
		CU_ASSERT(all.dev[i].partition == 0 || all.dev[i].partition == 1);
		if (i)
			CU_ASSERT(strcmp(all.dev[i - 1].path, all.dev[i].path) < 0);
	}
	CU_ASSERT_EQUAL_FATAL(tp_dev_scan_skip("TPTOOLS-", NULL, 0, &ours), 0);
	CU_ASSERT(ours.count <= all.count);
	tp_dev_list_free(&ours);
	tp_dev_list_free(&ours);	/* idempotent */
	CU_ASSERT_EQUAL(ours.count, 0);
	CU_ASSERT_PTR_NULL(ours.dev);
	tp_dev_list_free(&all);
	tp_dev_list_free(NULL);
}

/* udev marks: a NULL-terminated key=value list stands in for the database */
static const char *fake_prop(void *ctx, const char *key)
{
	size_t n = strlen(key);

	for (const char *const *kv = ctx; *kv; kv++)
		if (!strncmp(*kv, key, n) && (*kv)[n] == '=')
			return *kv + n + 1;
	return NULL;
}

static int marked(const char *const *props, const char *want)
{
	char why[256] = "";
	int r = tp_udev_props_marked(fake_prop, (void *)props, why, sizeof(why));

	if (r && want && !strstr(why, want))
		fprintf(stderr, "\nwhy: %s (want %s)\n", why, want);
	return r && (!want || strstr(why, want));
}

static void test_udev_marks(void)
{
	static const char *const none[] = { "DEVTYPE=disk", "ID_SERIAL=x", NULL };
	static const char *const mpath[] = { "DM_MULTIPATH_DEVICE_PATH=1", NULL };
	static const char *const mpath0[] = { "DM_MULTIPATH_DEVICE_PATH=0", NULL };
	static const char *const notready[] = { "SYSTEMD_READY=0", NULL };
	static const char *const ready[] = { "SYSTEMD_READY=1", NULL };
	static const char *const raid[] = { "ID_FS_TYPE=linux_raid_member", "ID_FS_USAGE=raid",
					    NULL };
	static const char *const ours[] = { "ID_FS_TYPE=tptools_member", "ID_FS_USAGE=raid",
					    NULL };
	static const char *const empty[] = { "ID_FS_TYPE=", NULL };

	CU_ASSERT_FALSE(marked(none, NULL));
	CU_ASSERT(marked(mpath, "multipath"));
	CU_ASSERT_FALSE(marked(mpath0, NULL));
	CU_ASSERT(marked(notready, "SYSTEMD_READY=0"));
	CU_ASSERT_FALSE(marked(ready, NULL));
	CU_ASSERT(marked(raid, "ID_FS_TYPE=linux_raid_member, ID_FS_USAGE=raid"));
	CU_ASSERT_FALSE(marked(ours, NULL));	/* our own label: the label check's business */
	CU_ASSERT_FALSE(marked(empty, NULL));
}

/* An image file has no udev entry: nothing known, not an error. */
static void test_udev_mark_file(void)
{
	char why[64];
	char path[] = "/tmp/tp-udevmark.XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(tp_udev_marked(path, why, sizeof(why)), 0);
	unlink(path);
	CU_ASSERT_EQUAL(tp_udev_marked(path, why, sizeof(why)), -ENOENT);
}

TP_TEST_SUITE(dev, NULL, NULL,
	      { "udev marks: multipath path, not ready, a signature udev saw", test_udev_marks },
	      { "udev marks: an image file is unmarked", test_udev_mark_file },
	      { "TPTOOLS_TOPOLOGY syntax", test_topology_parse },
	      { "TPTOOLS_TOPOLOGY errors name the key", test_topology_parse_errors },
	      { "image file topology and override", test_topology_file },
	      { "topology errors", test_topology_errors },
	      { "probe: nothing on zeroed and empty images", test_probe_nothing },
	      { "probe: errors", test_probe_errors },
	      { "probe: ext4 (mkfs.ext4), plus a second signature", test_probe_ext4 },
	      { "probe: swap (mkswap)", test_probe_swap },
	      { "probe: hand-written LVM2 label", test_probe_lvm },
	      { "probe: hand-written md v1.2 superblock", test_probe_md },
	      { "probe: hand-written DOS partition table", test_probe_ptable },
	      { "probe: hand-written GPT", test_probe_gpt },
	      { "probe: caller's hook for our own label", test_probe_hook },
	      { "probe: never writes", test_probe_read_only },
	      { "scan: block devices via libudev", test_scan })
