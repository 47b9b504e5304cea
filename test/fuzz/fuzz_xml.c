/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_xml.c - the XML readers on arbitrary text: expat's
 * (metadata/thin/xml_parse.h), validating only and driving a visitor that
 * checks the call order the parser promises; and the strict scanner
 * (xml_scan.h), which may pass a document on to expat but, when it takes
 * one, must find it valid and make exactly expat's calls (compared as a
 * hash of every call and argument). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/base/log.h"
#include "metadata/thin/xml_parse.h"
#include "metadata/thin/xml_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct order {
	int state;	/* 0 start, 1 in superblock, 2 in device, 3 ended */
	uint64_t hash;	/* of every call and its arguments */
	uint64_t devices, runs;
};

static void mix(struct order *o, uint64_t v)
{
	o->hash = (o->hash ^ v) * 0x100000001b3ull;
}

static int sb_begin(void *ctx, const struct thin_ir_superblock *sb)
{
	struct order *o = ctx;
	if (o->state != 0)
		abort();
	mix(o, 1);
	mix(o, sb->time);
	mix(o, sb->transaction);
	mix(o, sb->flags);
	mix(o, sb->version);
	mix(o, sb->data_block_size);
	mix(o, sb->nr_data_blocks);
	mix(o, sb->metadata_snap);
	o->state = 1;
	return 0;
}

static int sb_end(void *ctx)
{
	struct order *o = ctx;
	if (o->state != 1)
		abort();
	mix(o, 2);
	o->state = 3;
	return 0;
}

static int dev_begin(void *ctx, const struct thin_ir_device *d)
{
	struct order *o = ctx;
	if (o->state != 1)
		abort();
	mix(o, 3);
	o->devices++;
	mix(o, d->dev_id);
	mix(o, d->mapped_blocks);
	mix(o, d->transaction);
	mix(o, d->creation_time);
	mix(o, d->snap_time);
	o->state = 2;
	return 0;
}

static int dev_end(void *ctx)
{
	struct order *o = ctx;
	if (o->state != 2)
		abort();
	mix(o, 4);
	o->state = 1;
	return 0;
}

static int maps(void *ctx, const struct thin_ir_mapping *m, size_t n)
{
	struct order *o = ctx;
	if (o->state != 2 || !n || !m[0].length)
		abort();
	mix(o, 5);
	o->runs += n;
	for (size_t i = 0; i < n; i++) {
		mix(o, m[i].origin_begin);
		mix(o, m[i].data_begin);
		mix(o, m[i].length);
		mix(o, m[i].time);
	}
	return 0;
}

/* The scanner's two halves at once, on the same text in a file: when
 * they take it, together they saw what expat saw. */
static void split_agrees(const uint8_t *data, size_t size, const struct order *x)
{
	struct order a = { 0 }, b = { 0 };
	const struct thin_ir_visitor va = { &a, sb_begin, sb_end, dev_begin, dev_end, maps };
	const struct thin_ir_visitor vb = { &b, sb_begin, sb_end, dev_begin, dev_end, maps };
	struct thin_xml_error err;
	int fd = memfd_create("fuzz_xml", 0), r;

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		r = thin_xml_scan_split(fd, size, &va, &vb, &err);
		if (r < 0 || (r == 0 && (a.state != 3 || b.state != 3 ||
					 a.devices + b.devices != x->devices ||
					 a.runs + b.runs != x->runs)))
			abort();
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct order o = { 0 }, so = { 0 };
	const struct thin_ir_visitor v = { &o, sb_begin, sb_end, dev_begin, dev_end, maps };
	const struct thin_ir_visitor sv = { &so, sb_begin, sb_end, dev_begin, dev_end, maps };
	struct thin_xml_error err;
	int s;

	tp_log_set_verbosity(-2);
	int valid = thin_xml_parse_mem((const char *)data, size, NULL, &err) == 0;
	int r = thin_xml_parse_mem((const char *)data, size, &v, &err);
	if (valid != (r == 0) || (valid && o.state != 3))
		abort();	/* validation and the visiting parse must agree */
	s = thin_xml_scan_mem((const char *)data, size, &sv, &err);
	if (s < 0 || (s == 0 && (!valid || so.state != 3 || so.hash != o.hash)))
		abort();	/* what the scanner takes, expat takes the same way */
	if (s == 0)
		split_agrees(data, size, &o);
	return 0;
}
