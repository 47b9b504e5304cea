/* fuzz_xml.c - the XML reader (metadata/thin/xml_parse.h) on arbitrary
 * text, validating only and driving a visitor that checks the call order
 * the parser promises. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/base/log.h"
#include "metadata/thin/xml_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct order {
	int state;	/* 0 start, 1 in superblock, 2 in device, 3 ended */
};

static int sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct order *o = ctx;
	(void)sb;
	if (o->state != 0)
		abort();
	o->state = 1;
	return 0;
}

static int sb_end(void *ctx)
{
	struct order *o = ctx;
	if (o->state != 1)
		abort();
	o->state = 3;
	return 0;
}

static int dev_begin(void *ctx, const struct thin_ir_device *d)
{
	struct order *o = ctx;
	(void)d;
	if (o->state != 1)
		abort();
	o->state = 2;
	return 0;
}

static int dev_end(void *ctx)
{
	struct order *o = ctx;
	if (o->state != 2)
		abort();
	o->state = 1;
	return 0;
}

static int maps(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	struct order *o = ctx;
	if (o->state != 2 || !n || !m[0].length)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct order o = { 0 };
	const struct thin_ir_visitor v = { &o, sb_begin, sb_end, dev_begin, dev_end, maps };
	struct thin_xml_error err;

	tp_log_set_verbosity(-2);
	int valid = thin_xml_parse_mem((const char *)data, size, NULL, &err) == 0;
	int r = thin_xml_parse_mem((const char *)data, size, &v, &err);
	if (valid != (r == 0) || (valid && o.state != 3))
		abort();	/* validation and the visiting parse must agree */
	return 0;
}
