/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_record: a recorded thin_ir stream replays exactly (deltas in both
 * directions, extreme values, batching); the byte limit drops the
 * recording without failing the stream. */
#include "metadata/thin/xml_emit.h"
#include "metadata/thin/xml_parse.h"
#include "metadata/thin/xml_record.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct thin_ir_superblock sb = {
	.time = 7, .transaction = UINT64_MAX, .flags = 1, .version = 2,
	.data_block_size = 2097152, .nr_data_blocks = 1ull << 40,
};
static const struct thin_ir_device devs[] = {
	{ 0, 3, 0, 0, 0 },
	{ 16777215, UINT64_MAX, UINT64_MAX, UINT32_MAX, 5 },
	{ 17, 0, 1, 2, 3 },
};
/* data going forwards, backwards and far; origins at both ends */
static const struct thin_ir_mapping runs[] = {
	{ 0, (1ull << 40) - 1, 1, 0 },
	{ 1, 0, 1, 16777215 },
	{ 5, 3, 2, 1 },
	{ 1000000, (1ull << 39), 700, 2 },
	{ UINT64_MAX - 1, 12, 2, 3 },
};

/* Drive V: device 0 gets RUNS in odd batches, device 16777215 gets N
 * generated single runs (several replay batches), device 17 none. */
static int drive(const struct thin_ir_visitor *v, size_t n)
{
	struct thin_ir_mapping m;
	int r = v->superblock_begin(v->ctx, &sb);

	r = r ? r : v->device_begin(v->ctx, &devs[0]);
	r = r ? r : v->mappings(v->ctx, runs, 2);
	r = r ? r : v->mappings(v->ctx, runs + 2, 3);
	r = r ? r : v->device_end(v->ctx);
	r = r ? r : v->device_begin(v->ctx, &devs[1]);
	for (size_t i = 0; i < n && !r; i++) {
		m.origin_begin = i * 3;
		m.data_begin = (i * 7919) % 100000;
		m.length = 1 + i % 5;
		m.time = (uint32_t)(i % 4);
		r = v->mappings(v->ctx, &m, 1);
	}
	r = r ? r : v->device_end(v->ctx);
	r = r ? r : v->device_begin(v->ctx, &devs[2]);
	r = r ? r : v->device_end(v->ctx);
	return r ? r : v->superblock_end(v->ctx);
}

static char *text_of(struct thin_emitter *e)
{
	size_t len;
	const char *t = thin_emitter_text(e, &len);
	char *copy = malloc(len + 1);

	if (copy) {
		memcpy(copy, t, len);
		copy[len] = '\0';
	}
	return copy;
}

static void test_replay_exact(void)
{
	struct thin_emitter *direct, *replayed;
	struct thin_ir_visitor vd, vr, vrec;
	struct thin_ir_record *rec;
	char *a, *b;

	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_HUMAN, -1, &direct) == 0);
	CU_ASSERT_FATAL(thin_emitter_create(THIN_EMIT_HUMAN, -1, &replayed) == 0);
	CU_ASSERT_FATAL(thin_ir_record_create(64 << 20, &rec) == 0);
	thin_emitter_visitor(direct, &vd);
	thin_emitter_visitor(replayed, &vr);
	thin_ir_record_visitor(rec, &vrec);
	CU_ASSERT_EQUAL(drive(&vd, 5000), 0);
	CU_ASSERT_EQUAL(thin_ir_record_replay(rec, &vr), -EINVAL);	/* nothing yet */
	CU_ASSERT_EQUAL(drive(&vrec, 5000), 0);
	CU_ASSERT_EQUAL(thin_ir_record_complete(rec), 1);
	CU_ASSERT_EQUAL(thin_ir_record_replay(rec, &vr), 0);
	a = text_of(direct);
	b = text_of(replayed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_PTR_NOT_NULL(strstr(a, "(18446744073709551614..18446744073709551615) -> (12..13), 3"));
	free(a);
	free(b);
	thin_emitter_destroy(direct);
	thin_emitter_destroy(replayed);
	thin_ir_record_destroy(rec);
	thin_ir_record_destroy(NULL);
}

static int fail_mappings(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	(void)ctx, (void)m, (void)n;
	return -ENOSPC;
}

/* Over the limit: the stream goes on, the recording is dropped. A
 * visitor error during replay comes back. */
static void test_limit_and_errors(void)
{
	struct thin_ir_visitor vrec, vfail = { 0 };
	struct thin_ir_record *rec;

	CU_ASSERT_FATAL(thin_ir_record_create(2 << 20, &rec) == 0);
	thin_ir_record_visitor(rec, &vrec);
	CU_ASSERT_EQUAL(drive(&vrec, 600000), 0);
	CU_ASSERT_EQUAL(thin_ir_record_complete(rec), 0);
	CU_ASSERT_EQUAL(thin_ir_record_replay(rec, &vrec), -EINVAL);
	thin_ir_record_destroy(rec);

	CU_ASSERT_FATAL(thin_ir_record_create(2 << 20, &rec) == 0);
	thin_ir_record_visitor(rec, &vrec);
	CU_ASSERT_EQUAL(drive(&vrec, 10), 0);
	vfail.mappings = fail_mappings;
	CU_ASSERT_EQUAL(thin_ir_record_replay(rec, &vfail), -ENOSPC);
	thin_ir_record_destroy(rec);
}

TP_TEST_SUITE(xml_record, NULL, NULL,
	      { "replay_exact", test_replay_exact },
	      { "limit_and_errors", test_limit_and_errors })
