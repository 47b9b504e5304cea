/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_scan: the strict scanner takes thin_dump's exact layout and makes
 * the calls expat's reader makes (compared through the XML emitter); it
 * passes anything else, valid or not, back (1) without a word; large
 * inputs across its buffer, from a descriptor; visitor errors. */
#include "metadata/thin/xml_emit.h"
#include "metadata/thin/xml_parse.h"
#include "metadata/thin/xml_scan.h"
#include "test/unit/test_xml_util.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SB "<superblock uuid=\"x\" time=\"1\" transaction=\"5\" flags=\"0\" version=\"2\" " \
	   "data_block_size=\"128\" nr_data_blocks=\"1024\">\n"
#define DEV(id) "  <device dev_id=\"" #id "\" mapped_blocks=\"0\" transaction=\"0\" " \
		"creation_time=\"0\" snap_time=\"0\">\n"
#define SINGLE(o, d) "    <single_mapping origin_block=\"" #o "\" data_block=\"" #d "\" time=\"0\"/>\n"
#define END_DEV "  </device>\n"
#define END_SB "</superblock>\n"

/* What reader SCAN (1) or expat (0) makes of TEXT, as the emitter prints
 * it; *RC its return. */
static char *emit(int scan, const char *text, size_t len, int *rc)
{
	struct thin_xml_error err;

	return xml_reemit(scan ? thin_xml_scan_mem : thin_xml_parse_mem, text, len, rc, &err);
}

/* The scanner takes TEXT and makes exactly expat's calls. */
static void assert_same(const char *text)
{
	int rs = -1, rx = -1;
	char *s = emit(1, text, strlen(text), &rs);
	char *x = emit(0, text, strlen(text), &rx);

	CU_ASSERT_EQUAL(rs, 0);
	CU_ASSERT_EQUAL(rx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_STRING_EQUAL(s, x);
	free(s);
	free(x);
}

static void test_takes_thin_dump_layout(void)
{
	assert_same(SB DEV(0) SINGLE(0, 5) SINGLE(1, 1)
		    "    <range_mapping origin_begin=\"2\" data_begin=\"10\" length=\"4\" "
		    "time=\"7\"/>\n" END_DEV DEV(3) END_DEV END_SB);
	/* attributes in another order, CR LF, tabs, optional ones, "/>"
	 * devices, space before "/>", 1.x defs and refs */
	assert_same("<superblock nr_data_blocks=\"100\" data_block_size=\"256\" time=\"0\" "
		    "transaction=\"1\" metadata_snap=\"3\" version=\"1\" uuid=\"a>b\">\r\n"
		    "\t<def name=\"9\">\n" SINGLE(4, 4) "\t</def>\n"
		    "<device snap_time=\"0\" creation_time=\"0\" transaction=\"0\" "
		    "mapped_blocks=\"0\" dev_id=\"1\"/>\n" DEV(2)
		    "<single_mapping origin_block=\"0\" data_block=\"1\" time=\"16777215\" />"
		    "<ref name=\"9\"/>" END_DEV END_SB "\n\n");
	assert_same(SB END_SB);
}

/* Valid XML outside the strict layout, and invalid documents: 1, no
 * message needed; expat decides. */
static void test_passes_on(void)
{
	static const char *const other[] = {
		"<?xml version=\"1.0\"?>\n" SB END_SB,
		"\n" SB END_SB,
		"<!-- c -->" SB END_SB,
		SB "<!-- c -->" END_SB,
		SB END_SB "<!-- c -->",
		SB DEV(0) "<single_mapping origin_block='0' data_block=\"1\" time=\"0\"/>" END_DEV
			END_SB,
		SB DEV(0) "<single_mapping origin_block = \"0\" data_block=\"1\" time=\"0\"/>"
			END_DEV END_SB,
		SB DEV(0) "<single_mapping origin_block=\"0\" data_block=\"1\" time=\"0\">"
			"</single_mapping>" END_DEV END_SB,
		SB DEV(0) END_DEV "</superblock >",
		"<superblock uuid=\"&amp;\" time=\"1\" transaction=\"5\" data_block_size=\"128\" "
			"nr_data_blocks=\"1024\">" END_SB,
		"<superblock uuid=\"\xc3\xa9\" time=\"1\" transaction=\"5\" data_block_size=\"128\" "
			"nr_data_blocks=\"1024\">" END_SB,
		/* invalid: expat must say why */
		SB DEV(0) SINGLE(5, 1) SINGLE(5, 2) END_DEV END_SB,
		SB DEV(0) SINGLE(0, 1024) END_DEV END_SB,
		SB DEV(2) END_DEV DEV(1) END_DEV END_SB,
		SB DEV(0) "<single_mapping origin_block=\"0\"data_block=\"1\" time=\"0\"/>" END_DEV
			END_SB,
		SB DEV(0) "<single_mapping origin_block=\"0\" origin_block=\"0\" data_block=\"1\" "
			  "time=\"0\"/>" END_DEV END_SB,
		SB DEV(0) "<single_mapping origin_block=\"0\" data_block=\"1\"/>" END_DEV END_SB,
		SB DEV(0) "<single_mapping origin_block=\"+1\" data_block=\"1\" time=\"0\"/>"
			END_DEV END_SB,
		SB DEV(0) "<single_mapping origin_block=\"99999999999999999999\" data_block=\"1\" "
			  "time=\"0\"/>" END_DEV END_SB,
		SB DEV(0) "<single_mapping origin_block=\"0\" data_block=\"1\" time=\"16777216\"/>"
			END_DEV END_SB,
		SB DEV(0) "x" END_DEV END_SB,
		SB DEV(0) END_SB,
		SB DEV(0) END_DEV END_SB SB END_SB,
		SB DEV(0) END_DEV,
		SB DEV(0) "<ref name=\"1\"/>" END_DEV END_SB,
		"",
	};
	struct thin_xml_error err;

	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		int r = thin_xml_scan_mem(other[i], strlen(other[i]), NULL, &err);

		if (r != 1)
			fprintf(stderr, "case %zu: %d\n", i, r);
		CU_ASSERT_EQUAL(r, 1);
	}
	/* a zero byte is never taken */
	CU_ASSERT_EQUAL(thin_xml_scan_mem(SB "\0" END_SB, sizeof(SB END_SB), NULL, &err), 1);
}

static int fail_mappings(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	(void)ctx, (void)m, (void)n;
	return -ENOSPC;
}

/* Many mappings from a descriptor (elements across the scanner's 1 MiB
 * buffer) give expat's stream; a visitor error comes back with a message. */
static void test_large_fd_and_errors(void)
{
	enum { N = 40000 };
	size_t cap = (size_t)N * 80 + 1024, len = 0;
	char *doc = malloc(cap), path[512];
	struct thin_xml_error err;
	struct thin_ir_visitor v = { 0 };
	struct thin_emitter *e;
	const char *out;
	char *x;
	int rx, fd;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	len += (size_t)snprintf(doc + len, cap - len,
				"<superblock uuid=\"\" time=\"1\" transaction=\"1\" flags=\"0\" "
				"version=\"2\" data_block_size=\"128\" nr_data_blocks=\"%d\">\n"
				"  <device dev_id=\"0\" mapped_blocks=\"%d\" transaction=\"0\" "
				"creation_time=\"0\" snap_time=\"0\">\n", N * 3, N);
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(doc + len, cap - len,
					"    <single_mapping origin_block=\"%d\" data_block=\"%d\" "
					"time=\"%d\"/>\n", i * 3, (i * 7919) % (N * 3), i % 5);
	len += (size_t)snprintf(doc + len, cap - len, "  </device>\n</superblock>\n");
	CU_ASSERT_FATAL(len > (1u << 20) + 4096);
	x = emit(0, doc, len, &rx);
	CU_ASSERT_EQUAL(rx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);

	snprintf(path, sizeof(path), "%s/scan.xml", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, doc, len) == (ssize_t)len);
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_XML, -1, &e) == 0);
	thin_emitter_visitor(e, &v);
	CU_ASSERT_EQUAL(thin_xml_scan_fd(fd, &v, &err), 0);
	out = thin_emitter_text(e, &n);
	CU_ASSERT_EQUAL(n, strlen(x));
	CU_ASSERT(n == strlen(x) && !memcmp(out, x, n));
	thin_emitter_destroy(e);

	memset(&v, 0, sizeof(v));
	v.mappings = fail_mappings;
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_EQUAL(thin_xml_scan_fd(fd, &v, &err), -ENOSPC);
	CU_ASSERT(strstr(err.msg, "mappings") != NULL);
	close(fd);
	CU_ASSERT_EQUAL(thin_xml_scan_fd(-1, NULL, &err), -EBADF);
	free(x);
	free(doc);
}

/* Counts what one half saw. */
struct tally {
	int begins, ends;
	uint64_t devices, runs, first_dev, last_dev;
};

static int t_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	struct tally *t = ctx;

	CU_ASSERT_EQUAL(sb->nr_data_blocks, 1024);
	t->begins++;
	return 0;
}

static int t_sb_end(void *ctx)
{
	((struct tally *)ctx)->ends++;
	return 0;
}

static int t_dev(void *ctx, const struct thin_ir_device *d)
{
	struct tally *t = ctx;

	if (!t->devices++)
		t->first_dev = d->dev_id;
	t->last_dev = d->dev_id;
	return 0;
}

static int t_dev_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static int t_maps(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	(void)m;
	((struct tally *)ctx)->runs += n;
	return 0;
}

/* DOC into a file: the descriptor. */
static int doc_file(const char *doc)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/split.xml", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd >= 0 && write(fd, doc, strlen(doc)) != (ssize_t)strlen(doc)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int split(const char *doc, struct tally *a, struct tally *b)
{
	const struct thin_ir_visitor va = { a, t_sb, t_sb_end, t_dev, t_dev_end, t_maps };
	const struct thin_ir_visitor vb = { b, t_sb, t_sb_end, t_dev, t_dev_end, t_maps };
	struct thin_xml_error err;
	int fd = doc_file(doc), r;

	CU_ASSERT_FATAL(fd >= 0);
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	r = thin_xml_scan_split(fd, strlen(doc), &va, &vb, &err);
	close(fd);
	return r;
}

/* Two halves at once: each sees the superblock, the devices are shared
 * out at the device tag nearest the middle, ends only when both are
 * valid; what spans the split is checked across it; anything else is
 * passed on (1). */
static void test_split(void)
{
	struct tally a, b;

	CU_ASSERT_EQUAL(split(SB DEV(1) SINGLE(0, 1) SINGLE(1, 2) END_DEV DEV(2) SINGLE(0, 3)
			      END_DEV DEV(3) SINGLE(5, 4) END_DEV DEV(4) SINGLE(0, 3) END_DEV
			      END_SB, &a, &b), 0);
	CU_ASSERT_EQUAL(a.begins + b.begins, 2);
	CU_ASSERT_EQUAL(a.ends + b.ends, 2);
	CU_ASSERT_EQUAL(a.devices + b.devices, 4);
	CU_ASSERT(a.devices > 0 && b.devices > 0);
	CU_ASSERT_EQUAL(a.runs + b.runs, 5);
	CU_ASSERT(a.last_dev < b.first_dev);

	/* dev_id order across the split */
	CU_ASSERT_EQUAL(split(SB DEV(1) END_DEV DEV(7) SINGLE(0, 1) END_DEV DEV(3) END_DEV DEV(4)
			      SINGLE(0, 3) END_DEV END_SB, &a, &b), 1);
	CU_ASSERT_EQUAL(a.ends + b.ends, 0);
	/* an error in either half */
	CU_ASSERT_EQUAL(split(SB DEV(1) SINGLE(0, 1) SINGLE(0, 2) END_DEV DEV(2) END_DEV DEV(3)
			      END_DEV END_SB, &a, &b), 1);
	CU_ASSERT_EQUAL(split(SB DEV(1) END_DEV DEV(2) END_DEV DEV(3) SINGLE(0, 1) SINGLE(0, 2)
			      END_DEV END_SB, &a, &b), 1);
	CU_ASSERT_EQUAL(a.ends + b.ends, 0);
	/* 1.x refs in the second half name the defs before the first device,
	 * which the second half reads too */
	CU_ASSERT_EQUAL(split(SB "<def name=\"1\">" SINGLE(0, 1) SINGLE(1, 2) "</def>\n" DEV(1)
			      "<ref name=\"1\"/>" END_DEV DEV(2) "<ref name=\"1\"/>" END_DEV
			      DEV(3) "<ref name=\"1\"/>" END_DEV DEV(4) "<ref name=\"1\"/>" END_DEV
			      END_SB, &a, &b), 0);
	CU_ASSERT(a.devices > 0 && b.devices > 0);
	CU_ASSERT_EQUAL(a.devices + b.devices, 4);
	CU_ASSERT(a.runs > 0 && b.runs > 0);
	CU_ASSERT_EQUAL(a.ends + b.ends, 2);
	/* ... but not a def written between devices (one reader takes it) */
	CU_ASSERT_EQUAL(split(SB DEV(1) END_DEV "<def name=\"1\">" SINGLE(0, 1) "</def>\n"
			      DEV(2) END_DEV DEV(3) "<ref name=\"1\"/>" END_DEV END_SB, &a, &b), 1);
	/* nor a def past the middle */
	CU_ASSERT_EQUAL(split(SB DEV(1) END_DEV DEV(2) END_DEV "<def name=\"1\">" SINGLE(0, 1)
			      "</def>\n" DEV(3) "<ref name=\"1\"/>" END_DEV END_SB, &a, &b), 1);
	CU_ASSERT_EQUAL(a.ends + b.ends, 0);
	/* no device tag near the middle */
	CU_ASSERT_EQUAL(split(SB DEV(1) SINGLE(0, 1) SINGLE(1, 2) SINGLE(2, 2) SINGLE(3, 2)
			      SINGLE(4, 2) SINGLE(5, 2) SINGLE(6, 2) END_DEV END_SB, &a, &b), 1);
	/* the second half cut short */
	CU_ASSERT_EQUAL(split(SB DEV(1) END_DEV DEV(2) END_DEV DEV(3) END_DEV, &a, &b), 1);
}

TP_TEST_SUITE(xml_scan, NULL, NULL,
	      { "takes_thin_dump_layout", test_takes_thin_dump_layout },
	      { "passes_on", test_passes_on },
	      { "large_fd_and_errors", test_large_fd_and_errors },
	      { "split", test_split })
