/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_parse: thin_dump XML -> visitor. Round trips through the emitter,
 * batching, every validation error (with its position), visitor errors. */
#include "metadata/thin/xml_emit.h"
#include "metadata/thin/xml_parse.h"
#include "test/unit/test_xml_util.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SB "<superblock uuid=\"\" time=\"1\" transaction=\"5\" flags=\"0\" version=\"2\" " \
	   "data_block_size=\"128\" nr_data_blocks=\"1024\">\n"
#define DEV(id) "  <device dev_id=\"" #id "\" mapped_blocks=\"0\" transaction=\"0\" " \
		"creation_time=\"0\" snap_time=\"0\">\n"
#define SINGLE(o, d) "    <single_mapping origin_block=\"" #o "\" data_block=\"" #d "\" time=\"0\"/>\n"
#define RANGE(o, d, l) "    <range_mapping origin_begin=\"" #o "\" data_begin=\"" #d \
		       "\" length=\"" #l "\" time=\"0\"/>\n"
#define END_DEV "  </device>\n"
#define DEF(n) "  <def name=\"" #n "\">\n"
#define END_DEF "  </def>\n"
#define REF(n) "    <ref name=\"" #n "\"/>\n"
#define END_SB "</superblock>\n"

static const char doc_b[] =
	SB
	"  <device dev_id=\"0\" mapped_blocks=\"5\" transaction=\"0\" creation_time=\"0\" "
	"snap_time=\"1\">\n"
	"    <single_mapping origin_block=\"0\" data_block=\"5\" time=\"1\"/>\n"
	"    <single_mapping origin_block=\"1\" data_block=\"1\" time=\"0\"/>\n"
	"    <single_mapping origin_block=\"2\" data_block=\"6\" time=\"1\"/>\n"
	"    <single_mapping origin_block=\"3\" data_block=\"3\" time=\"0\"/>\n"
	"    <single_mapping origin_block=\"100\" data_block=\"4\" time=\"0\"/>\n"
	END_DEV
	"  <device dev_id=\"1\" mapped_blocks=\"5\" transaction=\"0\" creation_time=\"1\" "
	"snap_time=\"1\">\n"
	"    <range_mapping origin_begin=\"0\" data_begin=\"0\" length=\"4\" time=\"0\"/>\n"
	"    <single_mapping origin_block=\"100\" data_block=\"4\" time=\"0\"/>\n"
	END_DEV
	"  <device dev_id=\"7\" mapped_blocks=\"0\" transaction=\"3\" creation_time=\"0\" "
	"snap_time=\"0\">\n"
	END_DEV
	END_SB;

/* Parse TEXT into a fresh XML emitter and return what it printed. */
static char *reemit(const char *text, size_t len, int *rc, struct thin_xml_error *err)
{
	return xml_reemit(thin_xml_parse_mem, text, len, rc, err);
}

static void test_roundtrip(void)
{
	struct thin_xml_error err;
	int rc = -1;
	char *out = reemit(doc_b, strlen(doc_b), &rc, &err);

	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, doc_b);
	free(out);
	/* validation only */
	CU_ASSERT_EQUAL(thin_xml_parse_mem(doc_b, strlen(doc_b), NULL, &err), 0);
}

/* Other spellings thin_dump's readers accept: XML declaration, comments,
 * CRLF, single quotes, attributes in any order, optional attributes
 * (uuid, flags, version, metadata_snap) absent or present. */
static void test_accepted_variants(void)
{
	static const char in[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<!-- dumped by hand -->\r\n"
		"<superblock nr_data_blocks='1024' data_block_size='256' transaction='5' time='1'"
		" metadata_snap='9'>\r\n"
		"<device snap_time='0' creation_time='0' transaction='0' mapped_blocks='99' "
		"dev_id='3'><!-- c --><single_mapping time='0' data_block='1' "
		"origin_block='0'></single_mapping>"
		"<range_mapping time='0' length='2' data_begin='2' origin_begin='1'/></device>"
		"</superblock>";
	static const char want[] =
		"<superblock uuid=\"\" time=\"1\" transaction=\"5\" flags=\"0\" version=\"2\" "
		"data_block_size=\"256\" nr_data_blocks=\"1024\">\n"
		"  <device dev_id=\"3\" mapped_blocks=\"99\" transaction=\"0\" creation_time=\"0\" "
		"snap_time=\"0\">\n"
		"    <range_mapping origin_begin=\"0\" data_begin=\"1\" length=\"3\" time=\"0\"/>\n"
		"  </device>\n</superblock>\n";
	struct thin_xml_error err;
	int rc = -1;
	char *out = reemit(in, strlen(in), &rc, &err);

	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "%lu:%lu: %s\n", err.line, err.column, err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
}

/* A visitor that records what it is given. */
struct rec {
	int sb_begin, sb_end, dev_begin, dev_end, batches;
	size_t runs, max_batch;
	uint64_t blocks, last_origin;
	struct thin_ir_superblock sb;
	int fail_at_batch;	/* return -ENOSPC from this batch (1-based), 0 = never */
};

static int rec_sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct rec *r = ctx;

	r->sb = *sb;
	r->sb_begin++;
	return 0;
}

static int rec_sb_end(void *ctx)
{
	((struct rec *)ctx)->sb_end++;
	return 0;
}

static int rec_dev_begin(void *ctx, const struct thin_ir_device *dev)
{
	(void)dev;
	((struct rec *)ctx)->dev_begin++;
	return 0;
}

static int rec_dev_end(void *ctx)
{
	((struct rec *)ctx)->dev_end++;
	return 0;
}

static int rec_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct rec *r = ctx;

	r->batches++;
	if (r->fail_at_batch && r->batches == r->fail_at_batch)
		return -ENOSPC;
	r->runs += n;
	if (n > r->max_batch)
		r->max_batch = n;
	for (size_t i = 0; i < n; i++) {
		r->blocks += runs[i].length;
		r->last_origin = runs[i].origin_begin;
	}
	return 0;
}

static void rec_visitor(struct rec *r, struct thin_ir_visitor *v)
{
	memset(v, 0, sizeof(*v));
	v->ctx = r;
	v->superblock_begin = rec_sb_begin;
	v->superblock_end = rec_sb_end;
	v->device_begin = rec_dev_begin;
	v->device_end = rec_dev_end;
	v->mappings = rec_mappings;
}

/* Build a document with N single mappings in one device. */
static char *many_mappings(size_t n, size_t *len)
{
	size_t cap = 256 + n * 80, off;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	off = (size_t)snprintf(buf, cap,
			       "<superblock uuid=\"\" time=\"0\" transaction=\"0\" flags=\"0\" "
			       "version=\"2\" data_block_size=\"128\" nr_data_blocks=\"%zu\">\n"
			       DEV(0), n);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, cap - off,
					"    <single_mapping origin_block=\"%zu\" data_block=\"%zu\" "
					"time=\"0\"/>\n", i * 2, i);
	off += (size_t)snprintf(buf + off, cap - off, END_DEV END_SB);
	*len = off;
	return buf;
}

static void test_batches_and_fd(void)
{
	enum { N = 5000 };
	struct thin_xml_error err;
	struct thin_ir_visitor v;
	struct rec r = { 0 }, rf = { 0 };
	char path[512];
	size_t len = 0;
	char *doc = many_mappings(N, &len);
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	rec_visitor(&r, &v);
	CU_ASSERT_EQUAL(thin_xml_parse_mem(doc, len, &v, &err), 0);
	CU_ASSERT_EQUAL(r.sb_begin, 1);
	CU_ASSERT_EQUAL(r.sb_end, 1);
	CU_ASSERT_EQUAL(r.dev_begin, 1);
	CU_ASSERT_EQUAL(r.dev_end, 1);
	CU_ASSERT_EQUAL(r.runs, N);
	CU_ASSERT_EQUAL(r.blocks, N);
	CU_ASSERT_EQUAL(r.last_origin, (N - 1) * 2);
	CU_ASSERT(r.batches > 1);
	CU_ASSERT(r.max_batch > 1);
	CU_ASSERT_EQUAL(r.sb.nr_data_blocks, N);
	CU_ASSERT_EQUAL(r.sb.metadata_snap, 0);

	/* the same from a file descriptor */
	snprintf(path, sizeof(path), "%s/parse.xml", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, doc, len) == (ssize_t)len);
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	rec_visitor(&rf, &v);
	CU_ASSERT_EQUAL(thin_xml_parse_fd(fd, &v, &err), 0);
	CU_ASSERT_EQUAL(rf.runs, r.runs);
	CU_ASSERT_EQUAL(rf.batches, r.batches);
	CU_ASSERT_EQUAL(rf.last_origin, r.last_origin);

	/* a visitor error stops the parse and comes back unchanged */
	memset(&rf, 0, sizeof(rf));
	rf.fail_at_batch = 2;
	rec_visitor(&rf, &v);
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_EQUAL(thin_xml_parse_fd(fd, &v, &err), -ENOSPC);
	CU_ASSERT_EQUAL(rf.sb_end, 0);
	CU_ASSERT(strstr(err.msg, "mappings") != NULL);
	close(fd);

	/* unreadable descriptor */
	CU_ASSERT_EQUAL(thin_xml_parse_fd(-1, &v, &err), -EBADF);
	free(doc);
}

struct bad_case {
	const char *xml;
	const char *msg;	/* substring of the error message */
	unsigned long line;	/* where it must be reported */
};

static const struct bad_case bad_cases[] = {
	/* malformed XML */
	{ "", "malformed XML", 1 },
	{ SB DEV(0) END_SB, "malformed XML", 3 },
	{ SB DEV(0) "    <single_mapping origin_block=\"0\"", "malformed XML", 3 },
	{ SB END_SB "<superblock/>", "malformed XML", 3 },
	{ SB "<device dev_id=\"1\" dev_id=\"2\"/>" END_SB, "malformed XML", 2 },
	{ "<!DOCTYPE superblock [<!ENTITY a \"b\">]>" SB END_SB, "DOCTYPE", 1 },
	{ SB "  text\n" END_SB, "unexpected text", 2 },
	{ "<?xml version=\"1.0\"?>\n<!-- nothing -->\n", "malformed XML", 3 },
	/* unknown or misplaced elements */
	{ "<metadata/>\n", "<metadata>: unknown element", 1 },
	/* 1.x's shared runs: <def> at superblock level, <ref> to an earlier def */
	{ SB "  <def name=\"x\"/>\n" END_SB, "name=\"x\" is not a decimal number", 2 },
	{ SB "  <def/>\n" END_SB, "<def>: missing attribute 'name'", 2 },
	{ SB DEF(3) END_DEF DEF(3) END_DEF END_SB, "name \"3\" is defined twice", 4 },
	{ SB DEV(0) DEF(3) END_DEF END_DEV END_SB, "<def>: only allowed directly inside", 3 },
	{ SB DEV(0) REF(3) END_DEV END_SB, "<ref>: no <def name=\"3\"> before it", 3 },
	{ SB DEF(3) REF(3) END_DEF END_SB, "<ref>: no <def name=\"3\"> before it", 3 },
	{ SB DEV(0) END_DEV DEF(2) END_DEF DEV(1) REF(4) END_DEV END_SB, "no <def name=\"4\">", 7 },
	{ SB REF(3) END_SB, "<ref>: only allowed inside <device> or <def>", 2 },
	{ SB DEF(1) SINGLE(4, 0) SINGLE(2, 1) END_DEF END_SB,
	  "origin block 2 overlaps or precedes the previous mapping of its <def>", 4 },
	{ SB DEF(1) SINGLE(4, 0) END_DEF DEV(0) SINGLE(5, 1) REF(1) END_DEV END_SB,
	  "<ref>: origin block 4 overlaps or precedes the previous mapping of device 0", 7 },
	{ SB DEF(1) SINGLE(0, 1024) END_DEF END_SB, "data block 1024 is beyond", 3 },
	{ SB DEV(0) "<ref name=\"1\"><device/></ref>" END_DEV END_SB, "no <def", 3 },
	{ SB DEV(0) DEV(1) END_DEV END_DEV END_SB, "<device>: only allowed directly inside", 3 },
	{ DEV(0) END_DEV, "<device>: only allowed directly inside", 1 },
	{ SB SINGLE(0, 0) END_SB, "<single_mapping>: only allowed inside <device> or <def>", 2 },
	{ SB RANGE(0, 0, 2) END_SB, "<range_mapping>: only allowed inside <device> or <def>", 2 },
	{ SB "<superblock/>" END_SB, "only one superblock", 2 },
	{ SB DEV(0) "<single_mapping origin_block=\"0\" data_block=\"0\" time=\"0\">"
	  "<device/></single_mapping>" END_DEV END_SB, "mapping elements have no children", 3 },
	/* unknown and missing attributes */
	{ "<superblock time=\"1\" transaction=\"5\" data_block_size=\"128\" "
	  "nr_data_blocks=\"1\" colour=\"red\"/>", "unknown attribute 'colour'", 1 },
	{ "<superblock time=\"1\" transaction=\"5\" data_block_size=\"128\"/>",
	  "missing attribute 'nr_data_blocks'", 1 },
	{ "<superblock transaction=\"5\" data_block_size=\"128\" nr_data_blocks=\"1\"/>",
	  "missing attribute 'time'", 1 },
	{ SB "  <device dev_id=\"0\" mapped_blocks=\"0\" transaction=\"0\" creation_time=\"0\"/>\n"
	  END_SB, "<device>: missing attribute 'snap_time'", 2 },
	{ SB DEV(0) "    <single_mapping origin_block=\"0\" data_block=\"0\"/>\n" END_DEV END_SB,
	  "<single_mapping>: missing attribute 'time'", 3 },
	{ SB DEV(0) "    <range_mapping origin_begin=\"0\" data_begin=\"0\" time=\"0\"/>\n"
	  END_DEV END_SB, "<range_mapping>: missing attribute 'length'", 3 },
	{ SB DEV(0) "    <single_mapping origin_block=\"0\" data_block=\"0\" time=\"0\" "
	  "length=\"3\"/>\n" END_DEV END_SB, "<single_mapping>: unknown attribute 'length'", 3 },
	/* numbers */
	{ SB DEV(0) "    <single_mapping origin_block=\"x1\" data_block=\"0\" time=\"0\"/>\n"
	  END_DEV END_SB, "origin_block=\"x1\" is not a decimal number", 3 },
	{ SB DEV(0) "    <single_mapping origin_block=\"-1\" data_block=\"0\" time=\"0\"/>\n"
	  END_DEV END_SB, "is not a decimal number", 3 },
	{ SB DEV(0) "    <single_mapping origin_block=\" 1\" data_block=\"0\" time=\"0\"/>\n"
	  END_DEV END_SB, "is not a decimal number", 3 },
	{ SB DEV(0) "    <single_mapping origin_block=\"\" data_block=\"0\" time=\"0\"/>\n"
	  END_DEV END_SB, "is not a decimal number", 3 },
	{ SB DEV(0) "    <single_mapping origin_block=\"18446744073709551616\" data_block=\"0\" "
	  "time=\"0\"/>\n" END_DEV END_SB, "is too large", 3 },
	{ "<superblock time=\"4294967296\" transaction=\"0\" data_block_size=\"128\" "
	  "nr_data_blocks=\"1\"/>", "time=\"4294967296\" is too large", 1 },
	{ SB DEV(0) "    <single_mapping origin_block=\"0\" data_block=\"0\" time=\"16777216\"/>\n"
	  END_DEV END_SB, "time=\"16777216\" is too large", 3 },
	{ SB DEV(16777216) END_DEV END_SB, "dev_id=\"16777216\" is too large", 2 },
	{ "<superblock time=\"0\" transaction=\"0\" data_block_size=\"128\" "
	  "nr_data_blocks=\"1099511627777\"/>", "nr_data_blocks=\"1099511627777\" is too large", 1 },
	/* superblock values */
	{ "<superblock time=\"0\" transaction=\"0\" data_block_size=\"64\" nr_data_blocks=\"1\"/>",
	  "data_block_size=\"64\" must be a multiple of 128", 1 },
	{ "<superblock time=\"0\" transaction=\"0\" data_block_size=\"200\" nr_data_blocks=\"1\"/>",
	  "data_block_size=\"200\"", 1 },
	{ "<superblock time=\"0\" transaction=\"0\" data_block_size=\"2097280\" "
	  "nr_data_blocks=\"1\"/>", "data_block_size=\"2097280\"", 1 },
	{ "<superblock time=\"0\" transaction=\"0\" data_block_size=\"128\" nr_data_blocks=\"1\" "
	  "version=\"3\"/>", "version=\"3\" is not supported", 1 },
	/* devices */
	{ SB DEV(4) END_DEV DEV(4) END_DEV END_SB, "duplicate dev_id 4", 4 },
	{ SB DEV(4) END_DEV DEV(2) END_DEV END_SB, "dev_id 2 follows dev_id 4", 4 },
	/* mappings */
	{ SB DEV(0) RANGE(0, 0, 0) END_DEV END_SB, "length must be at least 1", 3 },
	{ SB DEV(0) SINGLE(5, 0) SINGLE(5, 1) END_DEV END_SB,
	  "origin block 5 overlaps or precedes", 4 },
	{ SB DEV(0) SINGLE(5, 0) SINGLE(4, 1) END_DEV END_SB,
	  "origin block 4 overlaps or precedes", 4 },
	{ SB DEV(0) RANGE(5, 0, 10) SINGLE(14, 100) END_DEV END_SB,
	  "origin block 14 overlaps", 4 },
	{ SB DEV(0) RANGE(18446744073709551615, 0, 2) END_DEV END_SB, "run past 2^64", 3 },
	{ SB DEV(0) RANGE(18446744073709551614, 0, 2) SINGLE(18446744073709551615, 9)
	  END_DEV END_SB, "overlaps or precedes", 4 },
	{ SB DEV(0) SINGLE(0, 1024) END_DEV END_SB,
	  "data block 1024 is beyond nr_data_blocks (1024)", 3 },
	{ SB DEV(0) RANGE(0, 1000, 25) END_DEV END_SB, "data blocks 1000..1024 are beyond", 3 },
	{ SB DEV(0) RANGE(0, 18446744073709551615, 2) END_DEV END_SB, "beyond nr_data_blocks", 3 },
};

static void test_bad_input(void)
{
	for (size_t i = 0; i < TP_ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct thin_xml_error err;
		struct thin_ir_visitor v;
		struct rec r = { 0 };
		int rc;

		rec_visitor(&r, &v);
		rc = thin_xml_parse_mem(c->xml, strlen(c->xml), &v, &err);
		if (rc != -EBADMSG || !strstr(err.msg, c->msg) || err.line != c->line)
			fprintf(stderr, "\ncase %zu: rc %d, %lu:%lu: %s (want '%s' on line %lu)\n", i,
				rc, err.line, err.column, err.msg, c->msg, c->line);
		CU_ASSERT_EQUAL(rc, -EBADMSG);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, c->msg));
		CU_ASSERT_EQUAL(err.line, c->line);
		CU_ASSERT(err.column >= 1);
		/* the visitor never saw the end of a document that failed */
		CU_ASSERT_EQUAL(r.sb_end, 0);
		/* validation-only parsing finds the same error */
		CU_ASSERT_EQUAL(thin_xml_parse_mem(c->xml, strlen(c->xml), NULL, &err), -EBADMSG);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, c->msg));
	}
}

/* thin_dump 1.x's shared runs: <def>s before the devices, <ref>s in
 * devices and in later defs; the visitor sees the plain runs, and the
 * emitter writes them as thin_dump 0.9.0 would (joined across a ref). */
static void test_def_ref(void)
{
	static const char in[] =
		SB
		DEF(7) RANGE(10, 20, 5) SINGLE(16, 40) END_DEF
		DEF(8) SINGLE(1, 3) REF(7) SINGLE(30, 50) END_DEF
		"  <!-- a def may come after a device too -->\n"
		DEV(0) SINGLE(0, 9) REF(7) SINGLE(17, 41) END_DEV
		DEF(9) END_DEF
		DEV(1) REF(8) REF(9) END_DEV
		DEV(2) REF(9) END_DEV
		END_SB;
	static const char want[] =
		SB
		DEV(0) SINGLE(0, 9) RANGE(10, 20, 5) RANGE(16, 40, 2) END_DEV
		DEV(1) SINGLE(1, 3) RANGE(10, 20, 5) SINGLE(16, 40) SINGLE(30, 50) END_DEV
		DEV(2) END_DEV
		END_SB;
	struct thin_xml_error err;
	int rc = -1;
	char *out = reemit(in, strlen(in), &rc, &err);

	if (rc)
		fprintf(stderr, "\n%lu:%lu: %s\n", err.line, err.column, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (strcmp(out, want))
		fprintf(stderr, "\n%s", out);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	CU_ASSERT_EQUAL(thin_xml_parse_mem(in, strlen(in), NULL, &err), 0);
}

/* The column points at the offending element. */
static void test_error_position(void)
{
	static const char doc[] = SB DEV(0) "    " "<bogus/>\n" END_DEV END_SB;
	struct thin_xml_error err;

	CU_ASSERT_EQUAL(thin_xml_parse_mem(doc, strlen(doc), NULL, &err), -EBADMSG);
	CU_ASSERT_EQUAL(err.line, 3);
	CU_ASSERT_EQUAL(err.column, 5);
	CU_ASSERT_STRING_EQUAL(err.msg, "<bogus>: unknown element");
}

TP_TEST_SUITE(xml_parse, NULL, NULL,
	      { "roundtrip", test_roundtrip },
	      { "accepted_variants", test_accepted_variants },
	      { "batches_and_fd", test_batches_and_fd },
	      { "bad_input", test_bad_input },
	      { "def_ref", test_def_ref },
	      { "error_position", test_error_position })
