/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_emit: thin_dump 0.9.0's exact XML, the human layout, run merging
 * across batches, fd output and write errors. */
#include "metadata/thin/xml_emit.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct thin_ir_superblock sb_b = {
	.time = 1, .transaction = 5, .flags = 0, .version = 2,
	.data_block_size = 128, .nr_data_blocks = 1024, .metadata_snap = 7,
};

/* Kernel fixture B, mappings delivered one block per run and split into
 * batches at awkward places. */
static int drive_b(const struct thin_ir_visitor *v)
{
	static const struct thin_ir_device d0 = { 0, 5, 0, 0, 1 }, d1 = { 1, 5, 0, 1, 1 };
	static const struct thin_ir_mapping m0[] = {
		{ 0, 5, 1, 1 }, { 1, 1, 1, 0 }, { 2, 6, 1, 1 }, { 3, 3, 1, 0 }, { 100, 4, 1, 0 },
	};
	static const struct thin_ir_mapping m1[] = {
		{ 0, 0, 1, 0 }, { 1, 1, 1, 0 }, { 2, 2, 2, 0 }, { 100, 4, 1, 0 },
	};
	int r = v->superblock_begin(v->ctx, &sb_b);

	r = r ? r : v->device_begin(v->ctx, &d0);
	r = r ? r : v->mappings(v->ctx, m0, 2);
	r = r ? r : v->mappings(v->ctx, m0 + 2, 3);
	r = r ? r : v->device_end(v->ctx);
	r = r ? r : v->device_begin(v->ctx, &d1);
	r = r ? r : v->mappings(v->ctx, m1, 1);
	r = r ? r : v->mappings(v->ctx, m1 + 1, 0);
	r = r ? r : v->mappings(v->ctx, m1 + 1, 2);
	r = r ? r : v->mappings(v->ctx, m1 + 3, 1);
	r = r ? r : v->device_end(v->ctx);
	return r ? r : v->superblock_end(v->ctx);
}

static const char xml_b[] =
	"<superblock uuid=\"\" time=\"1\" transaction=\"5\" flags=\"0\" version=\"2\" "
	"data_block_size=\"128\" nr_data_blocks=\"1024\">\n"
	"  <device dev_id=\"0\" mapped_blocks=\"5\" transaction=\"0\" creation_time=\"0\" "
	"snap_time=\"1\">\n"
	"    <single_mapping origin_block=\"0\" data_block=\"5\" time=\"1\"/>\n"
	"    <single_mapping origin_block=\"1\" data_block=\"1\" time=\"0\"/>\n"
	"    <single_mapping origin_block=\"2\" data_block=\"6\" time=\"1\"/>\n"
	"    <single_mapping origin_block=\"3\" data_block=\"3\" time=\"0\"/>\n"
	"    <single_mapping origin_block=\"100\" data_block=\"4\" time=\"0\"/>\n"
	"  </device>\n"
	"  <device dev_id=\"1\" mapped_blocks=\"5\" transaction=\"0\" creation_time=\"1\" "
	"snap_time=\"1\">\n"
	"    <range_mapping origin_begin=\"0\" data_begin=\"0\" length=\"4\" time=\"0\"/>\n"
	"    <single_mapping origin_block=\"100\" data_block=\"4\" time=\"0\"/>\n"
	"  </device>\n"
	"</superblock>\n";

static void expect_text(struct thin_emitter *e, const char *want)
{
	size_t len;
	const char *got = thin_emitter_text(e, &len);

	CU_ASSERT_EQUAL(len, strlen(want));
	if (len != strlen(want) || memcmp(got, want, len))
		fprintf(stderr, "\n--- got:\n%.*s--- want:\n%s", (int)len, got, want);
	CU_ASSERT(len == strlen(want) && !memcmp(got, want, len));
}

static void test_xml_fixture_b(void)
{
	struct thin_emitter *e;
	struct thin_ir_visitor v;

	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, -1, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(drive_b(&v), 0);
	expect_text(e, xml_b);
	thin_emitter_destroy(e);
	thin_emitter_destroy(NULL);
}

static void test_human_fixture_b(void)
{
	static const char want[] =
		"begin superblock: \"\", 1, 5, 0, 2, 128, 1024\n"
		"device: 0\nmapped_blocks: 5\ntransaction: 0\ncreation time: 0\nsnap time: 1\n"
		"    0 -> 5, 1\n    1 -> 1, 0\n    2 -> 6, 1\n    3 -> 3, 0\n    100 -> 4, 0\n\n"
		"device: 1\nmapped_blocks: 5\ntransaction: 0\ncreation time: 1\nsnap time: 1\n"
		"    (0..3) -> (0..3), 0\n    100 -> 4, 0\n\n"
		"end superblock\n";
	struct thin_emitter *e;
	struct thin_ir_visitor v;

	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_HUMAN, -1, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(drive_b(&v), 0);
	expect_text(e, want);
	thin_emitter_destroy(e);
}

/* No devices; an empty device; flags and big numbers. */
static void test_xml_empty_and_limits(void)
{
	static const struct thin_ir_superblock sb = {
		.time = UINT32_MAX, .transaction = UINT64_MAX, .flags = 1, .version = 2,
		.data_block_size = 2097152, .nr_data_blocks = 1ull << 40,
	};
	static const struct thin_ir_device dev = { 16777215, 0, 9, 10, 99 };
	static const struct thin_ir_mapping m = { UINT64_MAX - 1, (1ull << 40) - 2, 2, 16777215 };
	struct thin_emitter *e;
	struct thin_ir_visitor v;

	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, -1, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(v.superblock_begin(v.ctx, &sb), 0);
	CU_ASSERT_EQUAL(v.superblock_end(v.ctx), 0);
	expect_text(e, "<superblock uuid=\"\" time=\"4294967295\" transaction=\"18446744073709551615\" "
		       "flags=\"1\" version=\"2\" data_block_size=\"2097152\" "
		       "nr_data_blocks=\"1099511627776\">\n</superblock>\n");
	thin_emitter_destroy(e);

	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, -1, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(v.superblock_begin(v.ctx, &sb_b), 0);
	CU_ASSERT_EQUAL(v.device_begin(v.ctx, &dev), 0);
	CU_ASSERT_EQUAL(v.device_end(v.ctx), 0);
	CU_ASSERT_EQUAL(v.device_begin(v.ctx, &dev), 0);
	CU_ASSERT_EQUAL(v.mappings(v.ctx, &m, 1), 0);
	CU_ASSERT_EQUAL(v.device_end(v.ctx), 0);
	CU_ASSERT_EQUAL(v.superblock_end(v.ctx), 0);
	expect_text(e, "<superblock uuid=\"\" time=\"1\" transaction=\"5\" flags=\"0\" version=\"2\" "
		       "data_block_size=\"128\" nr_data_blocks=\"1024\">\n"
		       "  <device dev_id=\"16777215\" mapped_blocks=\"0\" transaction=\"9\" "
		       "creation_time=\"10\" snap_time=\"99\">\n"
		       "  </device>\n"
		       "  <device dev_id=\"16777215\" mapped_blocks=\"0\" transaction=\"9\" "
		       "creation_time=\"10\" snap_time=\"99\">\n"
		       "    <range_mapping origin_begin=\"18446744073709551614\" "
		       "data_begin=\"1099511627774\" length=\"2\" time=\"16777215\"/>\n"
		       "  </device>\n</superblock>\n");
	thin_emitter_destroy(e);
}

/* Merging: contiguous runs with equal time merge whatever the batching;
 * a change of time, an origin gap or a data gap ends the run; nothing
 * merges across devices. */
static void test_merge_rules(void)
{
	static const struct thin_ir_device d0 = { 0, 0, 0, 0, 0 }, d1 = { 1, 0, 0, 0, 0 };
	static const struct thin_ir_mapping m[] = {
		{ 10, 20, 3, 4 }, { 13, 23, 2, 4 },	/* merge: 10..14 -> 20..24 */
		{ 15, 25, 1, 5 },			/* time differs */
		{ 17, 26, 1, 5 },			/* origin gap */
		{ 18, 28, 1, 5 },			/* data gap */
		{ 19, 29, 1, 5 },			/* merges with the previous */
	};
	static const struct thin_ir_mapping next_dev = { 20, 30, 1, 5 };
	struct thin_emitter *e;
	struct thin_ir_visitor v;

	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, -1, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(v.superblock_begin(v.ctx, &sb_b), 0);
	CU_ASSERT_EQUAL(v.device_begin(v.ctx, &d0), 0);
	for (size_t i = 0; i < TP_ARRAY_SIZE(m); i++)
		CU_ASSERT_EQUAL(v.mappings(v.ctx, &m[i], 1), 0);
	CU_ASSERT_EQUAL(v.device_end(v.ctx), 0);
	CU_ASSERT_EQUAL(v.device_begin(v.ctx, &d1), 0);
	CU_ASSERT_EQUAL(v.mappings(v.ctx, &next_dev, 1), 0);
	CU_ASSERT_EQUAL(v.device_end(v.ctx), 0);
	CU_ASSERT_EQUAL(v.superblock_end(v.ctx), 0);
	expect_text(e,
		    "<superblock uuid=\"\" time=\"1\" transaction=\"5\" flags=\"0\" version=\"2\" "
		    "data_block_size=\"128\" nr_data_blocks=\"1024\">\n"
		    "  <device dev_id=\"0\" mapped_blocks=\"0\" transaction=\"0\" creation_time=\"0\" "
		    "snap_time=\"0\">\n"
		    "    <range_mapping origin_begin=\"10\" data_begin=\"20\" length=\"5\" time=\"4\"/>\n"
		    "    <single_mapping origin_block=\"15\" data_block=\"25\" time=\"5\"/>\n"
		    "    <single_mapping origin_block=\"17\" data_block=\"26\" time=\"5\"/>\n"
		    "    <range_mapping origin_begin=\"18\" data_begin=\"28\" length=\"2\" time=\"5\"/>\n"
		    "  </device>\n"
		    "  <device dev_id=\"1\" mapped_blocks=\"0\" transaction=\"0\" creation_time=\"0\" "
		    "snap_time=\"0\">\n"
		    "    <single_mapping origin_block=\"20\" data_block=\"30\" time=\"5\"/>\n"
		    "  </device>\n</superblock>\n");
	thin_emitter_destroy(e);
}

/* Many runs: to a file (several buffer flushes) and to memory give the
 * same bytes; a range far longer than any leaf stays one line. */
static void test_fd_output(void)
{
	static const struct thin_ir_device d0 = { 0, 0, 0, 0, 0 };
	enum { N = 200000 };
	struct thin_ir_mapping *m = calloc(N, sizeof(*m));
	struct thin_emitter *e, *mem;
	struct thin_ir_visitor v, vm;
	char path[512];
	const char *text;
	char *file;
	size_t len;
	int fd;

	CU_ASSERT_FATAL(m != NULL);
	for (size_t i = 0; i < N; i++) {
		m[i].origin_begin = i * 2;	/* never contiguous: one line each */
		m[i].data_begin = i;
		m[i].length = 1;
		m[i].time = (uint32_t)(i % 3);
	}
	snprintf(path, sizeof(path), "%s/emit.xml", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, fd, &e) == 0);
	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, -1, &mem) == 0);
	thin_emitter_visitor(e, &v);
	thin_emitter_visitor(mem, &vm);
	for (int k = 0; k < 2; k++) {
		const struct thin_ir_visitor *p = k ? &vm : &v;

		CU_ASSERT_EQUAL(p->superblock_begin(p->ctx, &sb_b), 0);
		CU_ASSERT_EQUAL(p->device_begin(p->ctx, &d0), 0);
		for (size_t i = 0; i < N; i += 1000)
			CU_ASSERT_EQUAL(p->mappings(p->ctx, m + i, 1000), 0);
		CU_ASSERT_EQUAL(p->device_end(p->ctx), 0);
		CU_ASSERT_EQUAL(p->superblock_end(p->ctx), 0);
	}
	text = thin_emitter_text(mem, &len);
	CU_ASSERT(len > (4u << 20));
	CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_END), (off_t)len);
	file = malloc(len);
	CU_ASSERT_FATAL(file != NULL);
	CU_ASSERT_EQUAL(pread(fd, file, len, 0), (ssize_t)len);
	CU_ASSERT(!memcmp(file, text, len));
	free(file);
	thin_emitter_destroy(e);
	thin_emitter_destroy(mem);
	close(fd);

	/* one run of N blocks delivered in 1000-block batches */
	for (size_t i = 0; i < N; i++) {
		m[i].origin_begin = 5 + i;
		m[i].data_begin = 7 + i;
		m[i].time = 2;
	}
	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_HUMAN, -1, &mem) == 0);
	thin_emitter_visitor(mem, &vm);
	CU_ASSERT_EQUAL(vm.superblock_begin(vm.ctx, &sb_b), 0);
	CU_ASSERT_EQUAL(vm.device_begin(vm.ctx, &d0), 0);
	for (size_t i = 0; i < N; i += 1000)
		CU_ASSERT_EQUAL(vm.mappings(vm.ctx, m + i, 1000), 0);
	CU_ASSERT_EQUAL(vm.device_end(vm.ctx), 0);
	CU_ASSERT_EQUAL(vm.superblock_end(vm.ctx), 0);
	expect_text(mem, "begin superblock: \"\", 1, 5, 0, 2, 128, 1024\n"
			 "device: 0\nmapped_blocks: 0\ntransaction: 0\ncreation time: 0\n"
			 "snap time: 0\n    (5..200004) -> (7..200006), 2\n\nend superblock\n");
	thin_emitter_destroy(mem);
	free(m);
}

/* A descriptor that cannot be written: the error comes back and sticks. */
static void test_write_error(void)
{
	struct thin_emitter *e;
	struct thin_ir_visitor v;
	int fd = open("/dev/null", O_RDONLY);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, fd, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(v.superblock_begin(v.ctx, &sb_b), 0);
	CU_ASSERT_EQUAL(thin_emitter_error(e), 0);
	CU_ASSERT_EQUAL(v.superblock_end(v.ctx), -EBADF);
	CU_ASSERT_EQUAL(thin_emitter_flush(e), -EBADF);
	CU_ASSERT_EQUAL(thin_emitter_error(e), -EBADF);
	thin_emitter_destroy(e);
	close(fd);
	CU_ASSERT_EQUAL(thin_emitter_create((enum thin_emit_format)42, -1, &e), -EINVAL);
	CU_ASSERT_PTR_NULL(e);
}

TP_TEST_SUITE(xml_emit, NULL, NULL,
	      { "xml_fixture_b", test_xml_fixture_b },
	      { "human_fixture_b", test_human_fixture_b },
	      { "xml_empty_and_limits", test_xml_empty_and_limits },
	      { "merge_rules", test_merge_rules },
	      { "fd_output", test_fd_output },
	      { "write_error", test_write_error })
