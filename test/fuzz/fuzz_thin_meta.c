/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_thin_meta.c - the thin metadata reader on arbitrary images: check
 * (full and --fast), the walker, and a repair into a scratch area. Input:
 * the image (padded to whole 4 KiB blocks, at most 4 MiB). None of them
 * may crash, hang, leak or trip a sanitizer, whatever the bytes. */
#include <stdint.h>
#include <string.h>

#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/thin/check.h"
#include "metadata/thin/repair.h"
#include "metadata/thin/thin_walk.h"
#include "test/lib/io_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_dev(void *ctx, const struct thin_ir_device *d)
{
	(void)d;
	++*(uint64_t *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct io_engine *in = NULL, *out = NULL;
	uint64_t len = (size + 4095) / 4096 * 4096, devs = 0;

	if (!size || size > (4u << 20))
		return 0;
	tp_log_set_verbosity(-2);
	if (io_mem_create(len, "fuzz-in", &in) || io_mem_create(len, "fuzz-out", &out))
		goto out;
	memcpy(io_mem_data(in), data, size);
	in->read_only = 1;
	for (unsigned fast = 0; fast < 2; fast++) {
		struct thin_check_opts o = { fast ? THIN_CHECK_FAST : 0, NULL, NULL };
		struct thin_check_report rep;
		if (!thin_check_io(in, &o, &rep))
			thin_check_report_free(&rep);
	}
	const struct thin_ir_visitor v = { &devs, NULL, NULL, count_dev, NULL, NULL };
	(void)thin_walk_io(in, 0, &v, NULL);
	(void)thin_walk_io(in, THIN_WALK_METADATA_SNAP, &v, NULL);
	struct thin_repair_opts ro = { 0, 0, 128, 0 };
	struct thin_repair_report rr;
	if (!thin_repair_io(in, out, &ro, &rr))
		thin_repair_report_free(&rr);
	else
		thin_repair_report_free(&rr);
out:
	io_destroy(in);
	io_destroy(out);
	return 0;
}
