/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_pipe: a stream produced in another thread arrives whole and in
 * order (batches larger than a slot cut, never reordered); the producer's
 * result comes back; a consumer error stops the producer. */
#include "metadata/thin/xml_pipe.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <string.h>

enum { DEVICES = 7, RUNS = 5000 };

struct prod {
	int ret;		/* what produce returns when the stream went through */
	int got_error;		/* a visitor call failed */
};

static int produce(void *arg, const struct thin_ir_visitor *v)
{
	struct prod *pr = arg;
	struct thin_ir_superblock sb = { .nr_data_blocks = 1 << 20, .time = 3 };
	static struct thin_ir_mapping m[RUNS];
	int r;

	if ((r = v->superblock_begin(v->ctx, &sb)))
		goto failed;
	for (unsigned d = 0; d < DEVICES; d++) {
		struct thin_ir_device dev = { .dev_id = d * 3 };

		if ((r = v->device_begin(v->ctx, &dev)))
			goto failed;
		for (size_t i = 0; i < RUNS; i++)
			m[i] = (struct thin_ir_mapping){ i * 2, d * RUNS + i, 1, (uint32_t)d };
		/* one call larger than a slot, then small ones */
		if ((r = v->mappings(v->ctx, m, RUNS - 10)))
			goto failed;
		for (size_t i = RUNS - 10; i < RUNS; i++)
			if ((r = v->mappings(v->ctx, &m[i], 1)))
				goto failed;
		if ((r = v->device_end(v->ctx)))
			goto failed;
	}
	if ((r = v->superblock_end(v->ctx)))
		goto failed;
	return pr->ret;
failed:
	pr->got_error = r;
	return r;
}

struct cons {
	int sb, sb_end, dev_end;
	unsigned devices;
	uint64_t runs, next_origin, dev;
	int order_ok;
	uint64_t fail_after_runs;	/* 0: never fail */
};

static int c_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	struct cons *c = ctx;

	c->sb++;
	c->order_ok &= sb->time == 3 && sb->nr_data_blocks == 1 << 20;
	return 0;
}

static int c_sb_end(void *ctx)
{
	((struct cons *)ctx)->sb_end++;
	return 0;
}

static int c_dev(void *ctx, const struct thin_ir_device *d)
{
	struct cons *c = ctx;

	c->order_ok &= d->dev_id == c->devices * 3;
	c->dev = d->dev_id / 3;
	c->devices++;
	c->next_origin = 0;
	return 0;
}

static int c_dev_end(void *ctx)
{
	((struct cons *)ctx)->dev_end++;
	return 0;
}

static int c_maps(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	struct cons *c = ctx;

	for (size_t i = 0; i < n; i++) {
		c->order_ok &= m[i].origin_begin == c->next_origin &&
			       m[i].data_begin == c->dev * RUNS + c->next_origin / 2 &&
			       m[i].time == c->dev;
		c->next_origin += 2;
	}
	c->runs += n;
	if (c->fail_after_runs && c->runs >= c->fail_after_runs)
		return -ENOSPC;
	return 0;
}

static void test_stream_in_order(void)
{
	struct prod pr = { 0, 0 };
	struct cons c = { .order_ok = 1 };
	const struct thin_ir_visitor v = { &c, c_sb, c_sb_end, c_dev, c_dev_end, c_maps };

	CU_ASSERT_EQUAL(thin_ir_pipe(produce, &pr, &v), 0);
	CU_ASSERT_EQUAL(c.sb, 1);
	CU_ASSERT_EQUAL(c.sb_end, 1);
	CU_ASSERT_EQUAL(c.devices, DEVICES);
	CU_ASSERT_EQUAL(c.dev_end, DEVICES);
	CU_ASSERT_EQUAL(c.runs, (uint64_t)DEVICES * RUNS);
	CU_ASSERT(c.order_ok);
	CU_ASSERT_EQUAL(pr.got_error, 0);

	/* the producer's result, a positive one included, comes back */
	memset(&c, 0, sizeof(c));
	pr.ret = 1;
	CU_ASSERT_EQUAL(thin_ir_pipe(produce, &pr, &v), 1);
}

static void test_consumer_error_stops(void)
{
	struct prod pr = { 0, 0 };
	struct cons c = { .order_ok = 1, .fail_after_runs = RUNS + 3 };
	const struct thin_ir_visitor v = { &c, c_sb, c_sb_end, c_dev, c_dev_end, c_maps };

	CU_ASSERT_EQUAL(thin_ir_pipe(produce, &pr, &v), -ENOSPC);
	CU_ASSERT_EQUAL(pr.got_error, -ECANCELED);
	CU_ASSERT_EQUAL(c.sb_end, 0);
	CU_ASSERT(c.runs < (uint64_t)DEVICES * RUNS);
	CU_ASSERT(c.order_ok);
}

TP_TEST_SUITE(xml_pipe, NULL, NULL,
	      { "stream_in_order", test_stream_in_order },
	      { "consumer_error_stops", test_consumer_error_stops })
