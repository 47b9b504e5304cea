/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_cmd: restore (validate, size check, build) and dump end to end on
 * memory engines; bad input and small areas leave the output untouched. */
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_walk.h"
#include "metadata/thin/xml_cmd.h"
#include "metadata/thin/xml_scan.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char good_doc[] =
	"<superblock uuid=\"\" time=\"2\" transaction=\"9\" flags=\"0\" version=\"2\" "
	"data_block_size=\"256\" nr_data_blocks=\"5000\">\n"
	"  <device dev_id=\"0\" mapped_blocks=\"1004\" transaction=\"1\" creation_time=\"0\" "
	"snap_time=\"2\">\n"
	"    <single_mapping origin_block=\"0\" data_block=\"5\" time=\"1\"/>\n"
	"    <range_mapping origin_begin=\"1\" data_begin=\"100\" length=\"1000\" time=\"0\"/>\n"
	"    <range_mapping origin_begin=\"2000\" data_begin=\"7\" length=\"3\" time=\"2\"/>\n"
	"  </device>\n"
	"  <device dev_id=\"4\" mapped_blocks=\"0\" transaction=\"0\" creation_time=\"2\" "
	"snap_time=\"2\">\n"
	"  </device>\n"
	"  <device dev_id=\"9\" mapped_blocks=\"1000\" transaction=\"0\" creation_time=\"2\" "
	"snap_time=\"2\">\n"
	"    <range_mapping origin_begin=\"1\" data_begin=\"100\" length=\"1000\" time=\"0\"/>\n"
	"  </device>\n"
	"</superblock>\n";

/* A file holding TEXT, positioned at its start. */
/* thin_xml_restore_watched without a progress callback */
static int restore(int fd, const char *name, struct io_engine *out, size_t record_max,
		   struct thin_xml_stats *stats)
{
	return thin_xml_restore_watched(fd, name, out, record_max, stats, NULL, NULL);
}

static int text_file(const char *name, const char *text)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tp_test_tmpdir(), name);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd >= 0 && write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	if (fd >= 0)
		lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Dump ENGINE as XML into memory and compare with WANT. */
static void expect_dump(struct io_engine *meta, const char *want)
{
	char path[512];
	char *got;
	off_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/dump.xml", tp_test_tmpdir());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(thin_xml_dump(meta, &(struct thin_dump_opts){ THIN_EMIT_XML, 0, 0, 0 },
				      fd), 0);
	len = lseek(fd, 0, SEEK_END);
	got = calloc(1, (size_t)len + 1);
	CU_ASSERT_FATAL(got != NULL);
	CU_ASSERT_EQUAL(pread(fd, got, (size_t)len, 0), len);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	close(fd);
}

static void fill(struct io_engine *e, unsigned char byte)
{
	memset(io_mem_data(e), byte, e->size);
}

static int untouched(struct io_engine *e, unsigned char byte)
{
	const unsigned char *p = io_mem_data(e);

	for (uint64_t i = 0; i < e->size; i++)
		if (p[i] != byte)
			return 0;
	return 1;
}

static void test_restore_and_dump(void)
{
	struct io_engine *meta;
	int fd = text_file("good.xml", good_doc);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(io_mem_create(4 << 20, "meta", &meta) == 0);
	CU_ASSERT_EQUAL(restore(fd, "good.xml", meta, 0, NULL), 0);
	expect_dump(meta, good_doc);
	/* restoring again over existing metadata replaces it */
	CU_ASSERT_EQUAL(restore(fd, "good.xml", meta, 0, NULL), 0);
	expect_dump(meta, good_doc);
	/* no metadata snapshot in restored metadata */
	CU_ASSERT_EQUAL(thin_xml_dump(meta, &(struct thin_dump_opts){ THIN_EMIT_XML,
								      THIN_WALK_METADATA_SNAP },
				      -1), -ENODATA);
	io_destroy(meta);
	close(fd);
}

/* A recording too small for the document: the file is parsed again. */
static void test_restore_reparse(void)
{
	struct io_engine *meta;
	int fd = text_file("good.xml", good_doc);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(io_mem_create(4 << 20, "meta", &meta) == 0);
	CU_ASSERT_EQUAL(restore(fd, "good.xml", meta, 1, NULL), 0);
	expect_dump(meta, good_doc);
	io_destroy(meta);
	close(fd);
}

static void test_restore_from_pipe(void)
{
	struct io_engine *meta;
	int p[2];

	CU_ASSERT_FATAL(pipe(p) == 0);
	/* the document fits in the pipe buffer */
	CU_ASSERT_FATAL(write(p[1], good_doc, strlen(good_doc)) == (ssize_t)strlen(good_doc));
	close(p[1]);
	CU_ASSERT_FATAL(io_mem_create(4 << 20, "meta", &meta) == 0);
	CU_ASSERT_EQUAL(restore(p[0], "<pipe>", meta, 0, NULL), 0);
	expect_dump(meta, good_doc);
	close(p[0]);
	/* a pipe cannot be read twice: too large to record is an error */
	CU_ASSERT_FATAL(pipe(p) == 0);
	CU_ASSERT_FATAL(write(p[1], good_doc, strlen(good_doc)) == (ssize_t)strlen(good_doc));
	close(p[1]);
	fill(meta, 0x3c);
	CU_ASSERT_EQUAL(restore(p[0], "<pipe>", meta, 1, NULL), -EFBIG);
	CU_ASSERT(untouched(meta, 0x3c));
	close(p[0]);
	io_destroy(meta);
}

static void test_bad_input_untouched(void)
{
	static const char *bad[] = {
		"<superblock",
		"<superblock uuid=\"\" time=\"0\" transaction=\"0\" data_block_size=\"128\" "
		"nr_data_blocks=\"10\"><device dev_id=\"1\" mapped_blocks=\"1\" transaction=\"0\" "
		"creation_time=\"0\" snap_time=\"0\"><single_mapping origin_block=\"0\" "
		"data_block=\"10\" time=\"0\"/></device></superblock>",
	};
	struct io_engine *meta;

	CU_ASSERT_FATAL(io_mem_create(1 << 20, "meta", &meta) == 0);
	for (size_t i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		int fd = text_file("bad.xml", bad[i]);

		CU_ASSERT_FATAL(fd >= 0);
		fill(meta, 0xa5);
		CU_ASSERT_EQUAL(restore(fd, "bad.xml", meta, 0, NULL), -EBADMSG);
		CU_ASSERT(untouched(meta, 0xa5));
		close(fd);
	}
	io_destroy(meta);
}

static void test_too_small_untouched(void)
{
	struct io_engine *meta;
	int fd = text_file("good.xml", good_doc);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(io_mem_create(8 * 4096, "tiny", &meta) == 0);
	fill(meta, 0x5a);
	CU_ASSERT_EQUAL(restore(fd, "good.xml", meta, 0, NULL), -ENOSPC);
	CU_ASSERT(untouched(meta, 0x5a));
	io_destroy(meta);
	close(fd);
}

/* A growing document (capacity doubles: realloc under ASan always copies). */
struct text {
	char *buf;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) TP_PRINTF(2, 3);
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *p;

		while (t->len + (size_t)n + 1 > cap)
			cap *= 2;
		p = realloc(t->buf, cap);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		t->buf = p;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* NDEV devices of BLOCKS single-block runs; device d maps its block i to
 * data block i * STRIDE when i % SHARE == 0 (named by every device, so
 * counts reach NDEV) and to a block of its own otherwise. */
static char *workload(unsigned ndev, uint64_t blocks, unsigned share)
{
	uint64_t own = blocks;	/* data blocks past the shared ones */
	struct text t = { 0 };

	put(&t, "<superblock time=\"0\" transaction=\"0\" data_block_size=\"128\" "
		"nr_data_blocks=\"%llu\">\n", (unsigned long long)(blocks * (ndev + 1)));
	for (unsigned d = 0; d < ndev; d++) {
		put(&t, "<device dev_id=\"%u\" mapped_blocks=\"%llu\" transaction=\"0\" "
			"creation_time=\"0\" snap_time=\"0\">\n", d * 2, (unsigned long long)blocks);
		for (uint64_t i = 0; i < blocks; i++)
			put(&t, "<single_mapping origin_block=\"%llu\" data_block=\"%llu\" "
				"time=\"0\"/>\n", (unsigned long long)(i * 2),
			    (unsigned long long)(i % share ? own++ : i));
		put(&t, "</device>\n");
	}
	put(&t, "</superblock>\n");
	return t.buf;
}

/* The size check is the builder's layout computed ahead: never below what
 * the builder really allocates, and only the small reserve above it. */
static void test_blocks_needed(void)
{
	static const struct { unsigned ndev; uint64_t blocks; unsigned share; } w[] = {
		{ 0, 0, 1 }, { 1, 1, 1 }, { 3, 300, 2 }, { 130, 20, 3 }, { 2, 70000, 5 },
		{ 5, 9000, 1 },
	};

	for (size_t i = 0; i < TP_ARRAY_SIZE(w); i++) {
		struct thin_xml_stats st;
		struct io_engine *meta;
		struct thin_md *md;
		uint64_t used, total, du, dt, need;
		char *doc = workload(w[i].ndev, w[i].blocks, w[i].share);
		int fd;

		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		fd = text_file("work.xml", doc);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(io_mem_create(16 << 20, "meta", &meta) == 0);
		CU_ASSERT_EQUAL_FATAL(restore(fd, "work.xml", meta, 0, &st), 0);
		CU_ASSERT_EQUAL(st.nr_devices, w[i].ndev);
		CU_ASSERT_EQUAL(st.mapped_blocks, w[i].ndev * w[i].blocks);
		if (w[i].ndev >= 3)
			CU_ASSERT_EQUAL(st.overflow_blocks, TP_DIV_ROUND_UP(w[i].blocks, w[i].share));
		CU_ASSERT_FATAL(thin_open(meta, THIN_RDONLY, &md) == 0);
		CU_ASSERT_FATAL(thin_usage(md, &used, &total, &du, &dt) == 0);
		need = thin_xml_blocks_needed(&st, total);
		if (need < used || need > used + 8)
			fprintf(stderr, "\nworkload %zu: needed %llu, builder used %llu\n", i,
				(unsigned long long)need, (unsigned long long)used);
		CU_ASSERT(need >= used);
		CU_ASSERT(need <= used + 8);
		thin_close(md);
		io_destroy(meta);
		close(fd);
		free(doc);
	}
}

/* A file large for its recording limit is validated and counted in two
 * halves at once (xml_scan.h): the same counts, reference counts summed
 * across the halves included, and the same metadata, byte for byte. */
static void test_restore_split(void)
{
	static const struct { unsigned ndev; uint64_t blocks; unsigned share; } w[] = {
		{ 3, 300, 2 }, { 130, 20, 3 }, { 5, 9000, 1 }, { 4, 5000, 7 },
	};
	enum { SIZE = 16 << 20 };
	char *one = malloc(SIZE), *two = malloc(SIZE);

	CU_ASSERT_FATAL(one && two);
	for (size_t i = 0; i < TP_ARRAY_SIZE(w); i++) {
		struct thin_xml_stats st1, st2;
		struct io_engine *m1, *m2;
		char *doc = workload(w[i].ndev, w[i].blocks, w[i].share);
		int fd;

		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		fd = text_file("work.xml", doc);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(io_mem_create(SIZE, "meta", &m1) == 0);
		CU_ASSERT_FATAL(io_mem_create(SIZE, "meta", &m2) == 0);
		CU_ASSERT_EQUAL_FATAL(restore(fd, "work.xml", m1, 0, &st1), 0);
		CU_ASSERT_EQUAL_FATAL(restore(fd, "work.xml", m2, 1, &st2), 0);
		CU_ASSERT(!memcmp(&st1, &st2, sizeof(st1)));
		CU_ASSERT_FATAL(io_read(m1, 0, one, SIZE) == 0);
		CU_ASSERT_FATAL(io_read(m2, 0, two, SIZE) == 0);
		CU_ASSERT(!memcmp(one, two, SIZE));
		io_destroy(m1);
		io_destroy(m2);
		close(fd);
		free(doc);
	}
	free(one);
	free(two);
}


/* A 1.x dump: NDEF <def>s of LEN-block runs first (def j at origin
 * 1000000 + 1000 j, data block 100 j), then NDEV devices of BLOCKS
 * single-block runs each with a <ref> to every third def after them. LATE:
 * one more def (named NDEF, origin 5000000) after the first device, which
 * the last device names at its end. */
static char *workload_defs(unsigned ndev, uint64_t blocks, unsigned ndef, unsigned len,
			   int late, uint64_t *mapped)
{
	struct text t = { 0 };
	uint64_t own = 100ull * ndef + len;

	*mapped = 0;
	put(&t, "<superblock uuid=\"\" time=\"1\" transaction=\"2\" version=\"2\" "
		"data_block_size=\"128\" nr_data_blocks=\"%llu\">\n",
	    (unsigned long long)(own + ndev * blocks));
	for (unsigned j = 0; j < ndef; j++)
		put(&t, "  <def name=\"%u\">\n    <range_mapping origin_begin=\"%u\" "
			"data_begin=\"%u\" length=\"%u\" time=\"0\"/>\n  </def>\n",
		    j, 1000000 + 1000 * j, 100 * j, len);
	for (unsigned d = 0; d < ndev; d++) {
		put(&t, "  <device dev_id=\"%u\" mapped_blocks=\"0\" transaction=\"0\" "
			"creation_time=\"0\" snap_time=\"0\">\n", d);
		for (uint64_t i = 0; i < blocks; i++)
			put(&t, "    <single_mapping origin_block=\"%llu\" data_block=\"%llu\" "
				"time=\"1\"/>\n", (unsigned long long)(i * 3),
			    (unsigned long long)own++);
		for (unsigned j = d % 3; j < ndef; j += 3)
			put(&t, "    <ref name=\"%u\"/>\n", j);
		*mapped += blocks + (uint64_t)len * ((ndef - d % 3 + 2) / 3);
		if (late && d == ndev - 1) {
			put(&t, "    <ref name=\"%u\"/>\n", ndef);
			*mapped += len;
		}
		put(&t, "  </device>\n");
		if (late && d == 0)
			put(&t, "  <def name=\"%u\">\n    <range_mapping origin_begin=\"5000000\" "
				"data_begin=\"0\" length=\"%u\" time=\"0\"/>\n  </def>\n",
			    ndef, len);
	}
	put(&t, "</superblock>\n");
	return t.buf;
}

struct seen {
	uint64_t devices, blocks;
	int ended;
};

static int seen_dev(void *ctx, const struct thin_ir_device *dev)
{
	(void)dev;
	((struct seen *)ctx)->devices++;
	return 0;
}

static int seen_end(void *ctx)
{
	((struct seen *)ctx)->ended++;
	return 0;
}

static int seen_runs(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((struct seen *)ctx)->blocks += runs[i].length;
	return 0;
}

/* Restore DOC into META through a pipe (expat, one reader). */
static int restore_piped(const char *doc, struct io_engine *meta)
{
	int p[2], st, r;
	pid_t pid;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid == 0) {
		size_t n = strlen(doc), done = 0;

		close(p[0]);
		while (done < n) {
			ssize_t k = write(p[1], doc + done, n - done);
			if (k <= 0)
				_exit(1);
			done += (size_t)k;
		}
		_exit(0);
	}
	close(p[1]);
	r = pid < 0 ? -errno : restore(p[0], "<pipe>", meta, 0, NULL);
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return r;
}

/* A 1.x dump of at least 16 MiB is scanned in two halves too, the second
 * reading the <def>s before the first device for its <ref>s; each half
 * is recorded and replayed with the counts of both halves added (or, past
 * the limit, the file read again): the same metadata, byte for byte, as
 * one reader through a pipe. */
static void test_restore_split_defs(void)
{
	enum { SIZE = 48 << 20 };
	uint64_t mapped;
	/* 800 devices: each def is named by about 267 of them, past what a
	 * byte of count holds (257), about 133 in each half */
	char *doc = workload_defs(800, 330, 300, 20, 0, &mapped);
	char *one = malloc(SIZE), *two = malloc(SIZE);
	struct seen s0 = { 0 }, s1 = { 0 };
	const struct thin_ir_visitor v0 = { &s0, NULL, seen_end, seen_dev, NULL, seen_runs };
	const struct thin_ir_visitor v1 = { &s1, NULL, seen_end, seen_dev, NULL, seen_runs };
	struct thin_xml_error err;
	struct thin_xml_stats st;
	struct io_engine *m1, *m2, *m3;
	int fd;

	CU_ASSERT_FATAL(doc && one && two);
	CU_ASSERT_FATAL(strlen(doc) >= (16u << 20));
	fd = text_file("defs.xml", doc);
	CU_ASSERT_FATAL(fd >= 0);
	/* the split is taken: each half sees devices, together all mappings */
	CU_ASSERT_EQUAL_FATAL(thin_xml_scan_split(fd, strlen(doc), &v0, &v1, &err), 0);
	CU_ASSERT(s0.devices > 0 && s1.devices > 0);
	CU_ASSERT_EQUAL(s0.devices + s1.devices, 800);
	CU_ASSERT_EQUAL(s0.blocks + s1.blocks, mapped);
	CU_ASSERT(s0.ended == 1 && s1.ended == 1);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "meta", &m1) == 0);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "meta", &m2) == 0);
	CU_ASSERT_FATAL(io_mem_create(SIZE, "meta", &m3) == 0);
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_EQUAL_FATAL(restore(fd, "defs.xml", m1, 0, &st), 0);
	CU_ASSERT_EQUAL(st.mapped_blocks, mapped);
	CU_ASSERT_EQUAL(st.nr_devices, 800);
	CU_ASSERT_EQUAL(st.overflow_blocks, 300 * 20);
	CU_ASSERT_EQUAL_FATAL(restore_piped(doc, m2), 0);
	CU_ASSERT_FATAL(io_read(m1, 0, one, SIZE) == 0);
	CU_ASSERT_FATAL(io_read(m2, 0, two, SIZE) == 0);
	CU_ASSERT(!memcmp(one, two, SIZE));
	/* halves not recorded (limit 1 byte): pass 2 reads the file again */
	CU_ASSERT_EQUAL_FATAL(restore(fd, "defs.xml", m3, 1, NULL), 0);
	CU_ASSERT_FATAL(io_read(m3, 0, one, SIZE) == 0);
	CU_ASSERT(!memcmp(one, two, SIZE));
	close(fd);
	free(doc);
	/* a <ref> past the middle to a <def> written between devices: the
	 * halves cannot take it, one reader does: the same metadata */
	doc = workload_defs(40, 7000, 300, 20, 1, &mapped);
	CU_ASSERT_FATAL(doc != NULL);
	fd = text_file("defs.xml", doc);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(thin_xml_scan_split(fd, strlen(doc), &v0, &v1, &err), 1);
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_EQUAL_FATAL(restore(fd, "defs.xml", m1, 0, &st), 0);
	CU_ASSERT_EQUAL(st.mapped_blocks, mapped);
	CU_ASSERT_EQUAL_FATAL(restore_piped(doc, m2), 0);
	CU_ASSERT_FATAL(io_read(m1, 0, one, SIZE) == 0);
	CU_ASSERT_FATAL(io_read(m2, 0, two, SIZE) == 0);
	CU_ASSERT(!memcmp(one, two, SIZE));
	io_destroy(m1);
	io_destroy(m2);
	io_destroy(m3);
	close(fd);
	free(doc);
	free(one);
	free(two);
}

TP_TEST_SUITE(xml_cmd, NULL, NULL,
	      { "restore_and_dump", test_restore_and_dump },
	      { "restore_reparse", test_restore_reparse },
	      { "restore_from_pipe", test_restore_from_pipe },
	      { "bad_input_untouched", test_bad_input_untouched },
	      { "too_small_untouched", test_too_small_untouched },
	      { "blocks_needed", test_blocks_needed },
	      { "restore_split", test_restore_split },
	      { "restore_split_defs", test_restore_split_defs })
