/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata/vg labels, uuids and names: roundtrip, every corruption
 * (magic, checksum, fields with a valid checksum, truncated device),
 * wipe, probing a path. */
#include "lib/base/crc32c.h"
#include "metadata/vg/vg_int.h"
#include "test/unit/test_vg_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void same_label(const struct vg_label *a, const struct vg_label *b)
{
	CU_ASSERT_EQUAL(a->version, b->version);
	CU_ASSERT_EQUAL(a->role, b->role);
	CU_ASSERT_STRING_EQUAL(a->pv_uuid, b->pv_uuid);
	CU_ASSERT_STRING_EQUAL(a->pool_uuid, b->pool_uuid);
	CU_ASSERT_STRING_EQUAL(a->pool_name, b->pool_name);
	CU_ASSERT_EQUAL(a->device_size, b->device_size);
	CU_ASSERT_EQUAL(a->mda.offset, b->mda.offset);
	CU_ASSERT_EQUAL(a->mda.size, b->mda.size);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(a->area[i].offset, b->area[i].offset);
		CU_ASSERT_EQUAL(a->area[i].size, b->area[i].size);
	}
}

static void test_roundtrip(void)
{
	struct io_engine *e;
	struct vg_label w, r;
	int role;

	for (role = 0; role < VG_NR_ROLES; role++) {
		CU_ASSERT_FATAL(io_mem_create(FX_DEV_SIZE, "dev", &e) == 0);
		fx_label((enum vg_role)role, &w);
		CU_ASSERT_EQUAL(vg_label_read(e, &r), VG_LABEL_NONE);
		CU_ASSERT_EQUAL(vg_label_write(e, &w), 0);
		CU_ASSERT_EQUAL(vg_label_read(e, &r), VG_LABEL_FOUND);
		same_label(&w, &r);
		/* only sector 1 was written */
		for (unsigned i = 0; i < 512; i++)
			CU_ASSERT_EQUAL_FATAL(io_mem_data(e)[i], 0);
		CU_ASSERT_EQUAL(memcmp(io_mem_data(e) + 512 + 4, VG_LABEL_MAGIC, 8), 0);
		io_destroy(e);
	}
	/* a 64-byte pool name fills the field without a NUL */
	CU_ASSERT_FATAL(io_mem_create(FX_DEV_SIZE, "dev", &e) == 0);
	fx_label(VG_ROLE_DATA, &w);
	memset(w.pool_name, 'n', VG_NAME_MAX);
	w.pool_name[VG_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(vg_label_write(e, &w), 0);
	CU_ASSERT_EQUAL(vg_label_read(e, &r), VG_LABEL_FOUND);
	CU_ASSERT_STRING_EQUAL(r.pool_name, w.pool_name);
	io_destroy(e);
}

/* Every single-byte flip of the label: magic bytes make it "not ours",
 * any other byte makes it corrupt; never FOUND. */
static void test_every_byte_flip(void)
{
	uint8_t good[VG_LABEL_SIZE], s[VG_LABEL_SIZE];
	struct vg_label l;
	struct tp_log_capture cap;
	unsigned i;

	fx_label(VG_ROLE_META, &l);
	CU_ASSERT_FATAL(vg_label_encode(&l, good) == 0);
	CU_ASSERT_EQUAL(vg_label_decode(good, "x", &l), VG_LABEL_FOUND);
	tp_log_capture(&cap);
	for (i = 0; i < VG_LABEL_SIZE; i++) {
		memcpy(s, good, sizeof(s));
		s[i] ^= 0x40;
		int want = (i >= 4 && i < 12) ? VG_LABEL_NONE : -EUCLEAN;
		CU_ASSERT_EQUAL(vg_label_decode(s, "x", &l), want);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "bad checksum"));
	tp_log_capture(NULL);
}

/* A field made bad with the checksum recomputed: the validator still
 * refuses it, naming the problem. */
static void test_bad_fields_valid_crc(void)
{
	static const struct {
		unsigned off, width;
		uint64_t value;
		const char *msg;
	} cases[] = {
		{ 12, 4, 2, "version" },
		{ 16, 8, 2, "another location" },
		{ 120, 4, 7, "bad role" },
		{ 128, 8, 4ull << 20, "beyond the device size" },	/* device_size shrunk */
		{ 136, 8, 0, "overlaps label" },			/* mda over the label */
		{ 144, 8, 2048, "smaller than 4 KiB" },
		{ 152, 8, 4096, "overlaps" },				/* area0 over the mda */
		{ 160, 8, 1000, "multiple of 512" },
		{ 176, 8, 8ull << 20, "differ in size" },
		{ 24, 8, 0, NULL },	/* half a zero uuid is still a uuid: accepted */
	};
	uint8_t good[VG_LABEL_SIZE], s[VG_LABEL_SIZE];
	struct vg_label l;
	struct tp_log_capture cap;
	unsigned i;

	fx_label(VG_ROLE_META, &l);
	CU_ASSERT_FATAL(vg_label_encode(&l, good) == 0);
	for (i = 0; i < TP_ARRAY_SIZE(cases); i++) {
		memcpy(s, good, sizeof(s));
		if (cases[i].width == 4)
			le32_put(s + cases[i].off, (uint32_t)cases[i].value);
		else
			le64_put(s + cases[i].off, cases[i].value);
		le32_put(s, tp_block_csum(s, VG_LABEL_SIZE, VG_LABEL_CSUM_SALT));
		tp_log_capture(&cap);
		if (cases[i].msg) {
			CU_ASSERT_EQUAL(vg_label_decode(s, "dev", &l), -EUCLEAN);
			CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, cases[i].msg));
			if (!strstr(cap.buf, cases[i].msg))
				fprintf(stderr, "case %u: %s\n", i, cap.buf);
		} else {
			CU_ASSERT_EQUAL(vg_label_decode(s, "dev", &l), VG_LABEL_FOUND);
		}
		tp_log_capture(NULL);
	}
	/* a bad pool name */
	memcpy(s, good, sizeof(s));
	memcpy(s + 56, "a/b", 4);
	le32_put(s, tp_block_csum(s, VG_LABEL_SIZE, VG_LABEL_CSUM_SALT));
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_label_decode(s, "dev", &l), -EUCLEAN);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "bad pool name"));
	tp_log_capture(NULL);
}

static void test_truncated(void)
{
	struct io_engine *e, *w;
	struct vg_label l, r;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(FX_DEV_SIZE, "dev", &e) == 0);
	fx_label(VG_ROLE_DATA, &l);
	CU_ASSERT_EQUAL(vg_label_write(e, &l), 0);
	/* the device shrank below what the label records */
	CU_ASSERT_FATAL(io_window_create(e, 0, FX_DEV_SIZE - 4096, 0, &w) == 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_label_read(w, &r), -EUCLEAN);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "was cut short; grow it back to"));
	tp_log_capture(NULL);
	io_destroy(w);
	/* too small to hold a label at all: not ours */
	CU_ASSERT_FATAL(io_window_create(e, 0, 1000, 0, &w) == 0);
	CU_ASSERT_EQUAL(vg_label_read(w, &r), VG_LABEL_NONE);
	io_destroy(w);
	/* a device that grew is fine */
	CU_ASSERT_FATAL(io_mem_resize(e, FX_DEV_SIZE * 2) == 0);
	CU_ASSERT_EQUAL(vg_label_read(e, &r), VG_LABEL_FOUND);
	/* writing a label larger than the device is refused */
	l.device_size = FX_DEV_SIZE * 4;
	CU_ASSERT_EQUAL(vg_label_write(e, &l), -ENOSPC);
	io_destroy(e);
}

static void test_check_rejects(void)
{
	struct vg_label l;
	struct io_engine *e;
	struct tp_log_capture cap;

	CU_ASSERT_FATAL(io_mem_create(FX_DEV_SIZE, "dev", &e) == 0);
	tp_log_capture(&cap);
	fx_label(VG_ROLE_DATA, &l);
	CU_ASSERT_EQUAL(vg_label_check(&l), 0);
	l.area[1].size = 4096;
	CU_ASSERT_EQUAL(vg_label_check(&l), -EINVAL);
	fx_label(VG_ROLE_DATA, &l);
	strcpy(l.pool_name, "-bad");
	CU_ASSERT_EQUAL(vg_label_write(e, &l), -EINVAL);
	fx_label(VG_ROLE_DATA, &l);
	strcpy(l.pv_uuid, "not-a-uuid");
	CU_ASSERT_EQUAL(vg_label_check(&l), -EINVAL);
	fx_label(VG_ROLE_META, &l);
	l.area[1].offset = l.area[0].offset + 4096;
	CU_ASSERT_EQUAL(vg_label_check(&l), -EINVAL);
	fx_label(VG_ROLE_META, &l);
	l.role = (enum vg_role)5;
	CU_ASSERT_EQUAL(vg_label_check(&l), -EINVAL);
	tp_log_capture(NULL);
	/* nothing was written by the refused writes */
	for (unsigned i = 0; i < 2048; i++)
		CU_ASSERT_EQUAL_FATAL(io_mem_data(e)[i], 0);
	io_destroy(e);
}

static void test_wipe(void)
{
	struct io_engine *e;
	struct vg_label l, r;

	CU_ASSERT_FATAL(io_mem_create(FX_DEV_SIZE, "dev", &e) == 0);
	memset(io_mem_data(e) + 512, 0xaa, 512);	/* someone else's data */
	CU_ASSERT_EQUAL(vg_label_wipe(e, 0), 1);
	CU_ASSERT_EQUAL(io_mem_data(e)[600], 0xaa);
	CU_ASSERT_EQUAL(vg_label_wipe(e, 1), 0);
	CU_ASSERT_EQUAL(io_mem_data(e)[600], 0);
	fx_label(VG_ROLE_META, &l);
	CU_ASSERT_EQUAL(vg_label_write(e, &l), 0);
	io_mem_data(e)[700] ^= 1;	/* corrupt, but ours: still wiped */
	CU_ASSERT_EQUAL(vg_label_wipe(e, 0), 0);
	CU_ASSERT_EQUAL(vg_label_read(e, &r), VG_LABEL_NONE);
	io_destroy(e);
}

static void test_probe_path(void)
{
	char path[512];
	struct io_engine *e;
	struct vg_label l, r;
	int fd;

	snprintf(path, sizeof(path), "%s/label.img", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)FX_DEV_SIZE) == 0);
	close(fd);
	CU_ASSERT_EQUAL(vg_label_probe_path(path, &r), VG_LABEL_NONE);
	CU_ASSERT_FATAL(io_fd_open(path, 0, &e) == 0);
	fx_label(VG_ROLE_META, &l);
	CU_ASSERT_EQUAL(vg_label_write(e, &l), 0);
	io_destroy(e);
	CU_ASSERT_EQUAL(vg_label_probe_path(path, &r), VG_LABEL_FOUND);
	CU_ASSERT_STRING_EQUAL(r.pool_name, "vault");
	CU_ASSERT_STRING_EQUAL(r.pool_uuid, FX_POOL_UUID);
	CU_ASSERT_EQUAL(r.role, VG_ROLE_META);
	CU_ASSERT_EQUAL(vg_label_probe_path("/nonexistent/x", &r), -ENOENT);
	unlink(path);
}

static void test_uuid(void)
{
	char a[VG_UUID_LEN + 1], b[VG_UUID_LEN + 1];
	uint8_t raw[VG_UUID_BYTES];

	CU_ASSERT_EQUAL(vg_uuid_generate(a), 0);
	CU_ASSERT_EQUAL(vg_uuid_generate(b), 0);
	CU_ASSERT(vg_uuid_valid(a));
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
	CU_ASSERT_EQUAL(a[14], '4');
	CU_ASSERT_EQUAL(vg_uuid_parse(a, raw), 0);
	vg_uuid_format(raw, b);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_EQUAL(vg_uuid_parse("0B1C2D3E-4F50-4617-8293-A4B5C6D7E8F9", raw), 0);
	vg_uuid_format(raw, b);
	CU_ASSERT_STRING_EQUAL(b, FX_POOL_UUID);
	CU_ASSERT(!vg_uuid_valid(""));
	CU_ASSERT(!vg_uuid_valid("0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f"));
	CU_ASSERT(!vg_uuid_valid("0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9a"));
	CU_ASSERT(!vg_uuid_valid("0b1c2d3e04f50-4617-8293-a4b5c6d7e8f9"));
	CU_ASSERT(!vg_uuid_valid("0b1c2d3e-4f50-4617-8293-a4b5c6d7e8fg"));
	CU_ASSERT_EQUAL(vg_uuid_parse("zz", raw), -EINVAL);
}

static void test_names(void)
{
	static const char *const good[] = { "a", "vault", "A-b_c.d+e", "0", "..x", ".a", "x-",
					    "_", "+" };
	static const char *const badn[] = { "", "-a", ".", "..", "a/b", "a b", "a:b", "ä",
					    "a#b", "a\nb", "a\"b" };
	char longname[VG_NAME_MAX + 2];
	const char *why;
	unsigned i;

	for (i = 0; i < TP_ARRAY_SIZE(good); i++) {
		CU_ASSERT(vg_name_valid(good[i], &why));
		CU_ASSERT_PTR_NULL(why);
	}
	for (i = 0; i < TP_ARRAY_SIZE(badn); i++) {
		why = NULL;
		CU_ASSERT(!vg_name_valid(badn[i], &why));
		CU_ASSERT_PTR_NOT_NULL(why);
	}
	memset(longname, 'x', sizeof(longname));
	longname[VG_NAME_MAX] = '\0';
	CU_ASSERT(vg_name_valid(longname, NULL));
	longname[VG_NAME_MAX] = 'x';
	longname[VG_NAME_MAX + 1] = '\0';
	CU_ASSERT(!vg_name_valid(longname, &why));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "64"));
	CU_ASSERT(!vg_name_valid(NULL, NULL));
}

static void test_roles(void)
{
	enum vg_role r;

	CU_ASSERT_STRING_EQUAL(vg_role_name(VG_ROLE_DATA), "data");
	CU_ASSERT_STRING_EQUAL(vg_role_name(VG_ROLE_META), "meta");
	CU_ASSERT_PTR_NULL(vg_role_name((enum vg_role)9));
	CU_ASSERT_EQUAL(vg_role_parse("meta", &r), 0);
	CU_ASSERT_EQUAL(r, VG_ROLE_META);
	CU_ASSERT_EQUAL(vg_role_parse("Meta", &r), -EINVAL);
}

/* The label a VG records for each device is the label that device had. */
static void test_from_vg(void)
{
	struct vg *vg = fx_vg();

	for (int role = 0; role < VG_NR_ROLES; role++) {
		struct vg_label want, got;

		fx_label((enum vg_role)role, &want);
		memset(&got, 0xa5, sizeof(got));
		vg_label_from_vg(vg, (enum vg_role)role, FX_DEV_SIZE, &got);
		CU_ASSERT_EQUAL(vg_label_check(&got), 0);
		CU_ASSERT_EQUAL(memcmp(&got, &want, sizeof(got)), 0);
	}
	vg_free(vg);
}

TP_TEST_SUITE(vg_label, NULL, NULL,
	      { "label from the VG's record of the device", test_from_vg },
	      { "label roundtrip (both roles, 64-byte name)", test_roundtrip },
	      { "every byte flip: not ours or corrupt, never found", test_every_byte_flip },
	      { "bad fields under a valid checksum", test_bad_fields_valid_crc },
	      { "truncated, tiny and grown devices", test_truncated },
	      { "label check refuses bad labels, writes nothing", test_check_rejects },
	      { "wipe only our label unless forced", test_wipe },
	      { "probe a path (scan helper)", test_probe_path },
	      { "uuid generate/parse/format", test_uuid },
	      { "name rules", test_names },
	      { "role names", test_roles })
