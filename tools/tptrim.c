/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tptrim - discard the data chunks no volume of an inactive pool maps
 * (as thin_trim): BLKDISCARD on a block device, holes in an image file.
 *
 *   tptrim [--test] [--batch SIZE] [--progress[=WHEN]] [--devices D,M] POOL
 *
 * Changes no metadata; a live pool is refused (it passes its volumes'
 * discards down itself). Exit: 0, 3 bad command line, 5 refused or a
 * discard failed (nothing else changed), 128 + signal when a signal
 * stopped it between two discards. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct trim_op {
	const struct tp_command *cmd;
	struct pool_trim_params x;
	enum tp_progress_mode mode;
	const char *pool;
};

static void say_range(void *ctx, uint64_t chunk, uint64_t nr, const char *dev, uint64_t off,
		      uint64_t bytes)
{
	(void)ctx;
	printf("would discard chunks %llu..%llu: %llu bytes at byte %llu of %s\n",
	       (unsigned long long)chunk, (unsigned long long)(chunk + nr - 1),
	       (unsigned long long)bytes, (unsigned long long)off, dev);
}

static int trim_op(struct pool *p, void *arg)
{
	struct trim_op *o = arg;
	struct pool_trim_result res;
	struct tp_progress pg;
	char a[32], b[32];
	int r;

	cli_progress_begin(&pg, o->cmd, o->mode, o->pool, TP_PROGRESS_ITEMS, "chunks");
	o->x.progress = tp_progress_cb;
	o->x.progress_ctx = &pg;
	r = pool_trim(p, &o->x, &res);
	tp_progress_end(&pg, r == 0);
	if (r)
		return r;
	if (tp_log_verbosity() >= 0)
		printf("Pool %s: %llu of %llu chunk%s (%s) mapped by no volume, in %llu run%s: %s%s "
		       "in %llu discard%s%s.\n", o->pool, (unsigned long long)res.free,
		       (unsigned long long)res.chunks, tp_plural(res.chunks),
		       tp_size_format(res.free * res.chunk, 'h', a, sizeof(a)),
		       (unsigned long long)res.runs, tp_plural(res.runs),
		       o->x.test ? "would discard " : "discarded ",
		       tp_size_format(res.bytes, 'h', b, sizeof(b)), (unsigned long long)res.discards,
		       tp_plural(res.discards),
		       o->x.test ? " (--test: nothing was discarded)"
		       : res.punch ? " (holes punched into the image file)" : "");
	return 0;
}

int cmd_tptrim(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *progress = NULL, *batch = NULL, **args;
	struct trim_op o;
	int nargs, code, test = 0;
	const struct poptOption opts[] = {
		{ "test", 't', POPT_ARG_NONE, &test, 0,
		  "print the ranges that would be discarded and their bytes; discard nothing",
		  NULL },
		{ "batch", '\0', POPT_ARG_STRING, &batch, 0,
		  "the most one discard covers (default 1G; default unit M)", "SIZE" },
		CLI_OPT_PROGRESS(progress),
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};
	struct cli cli;

	memset(&o, 0, sizeof(o));
	o.cmd = cmd;
	if ((code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return code;
	o.x.test = test;
	o.pool = args[0];
	if (test)
		o.x.range = say_range;
	code = cli_progress(cmd, progress, &o.mode);
	if (code == CLI_CONTINUE && batch) {
		code = cli_size(cmd, "--batch", batch, 'm', &o.x.max_batch);
		if (code == CLI_CONTINUE && !o.x.max_batch)
			code = cli_usage_error(cmd, "--batch must be greater than 0");
	}
	if (code == CLI_CONTINUE && strlen(args[0]) > POOL_NAME_MAX)
		code = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
	if (code == CLI_CONTINUE)
		code = tool_pool_op(args[0], devices, trim_op, &o);
	cli_end(&cli);
	return code;
}
