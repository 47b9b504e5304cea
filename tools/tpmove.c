/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpmove - move every mapped chunk off one data device of an inactive
 * pool onto free chunks of its other data devices (as pvmove, offline),
 * so that tpreduce --data can take the device away.
 *
 *   tpmove --from DEV [--test] [--progress[=WHEN]] [--devices D,M] POOL
 *
 * Exit: 0, 3 bad command line or DEV is none of the pool's data devices,
 * 5 refused (a live pool, too few free chunks elsewhere) or failed (what
 * was moved stays moved), 128 + signal when a signal stopped it between
 * two steps (run it again to go on). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct move_op {
	const struct tp_command *cmd;
	struct pool_move_params x;
	enum tp_progress_mode mode;
	const char *pool;
};

static int move_op(struct pool *p, void *arg)
{
	struct move_op *o = arg;
	struct pool_move_result res;
	struct tp_progress pg;
	char a[32], b[32];
	int r;

	cli_progress_begin(&pg, o->cmd, o->mode, o->pool, TP_PROGRESS_ITEMS, "chunks");
	o->x.progress = tp_progress_cb;
	o->x.progress_ctx = &pg;
	r = pool_move_data(p, &o->x, &res);
	tp_progress_end(&pg, r == 0);
	if (r || tp_log_verbosity() < 0)
		return r;
	tp_size_format(res.used * res.chunk, 'h', a, sizeof(a));
	tp_size_format(res.free_elsewhere * res.chunk, 'h', b, sizeof(b));
	if (o->x.test)
		printf("Pool %s: data device %u (%s, chunks %llu..%llu): %llu chunk%s in use (%s, "
		       "%llu mapping%s); %llu chunk%s free on the other devices (%s): %s. Test "
		       "mode: nothing was moved.\n", o->pool, res.index + 1, o->x.path,
		       (unsigned long long)res.first_chunk,
		       (unsigned long long)(res.first_chunk + res.chunks - 1),
		       (unsigned long long)res.used, tp_plural(res.used), a,
		       (unsigned long long)res.mappings, tp_plural(res.mappings),
		       (unsigned long long)res.free_elsewhere, tp_plural(res.free_elsewhere), b,
		       !res.used ? "nothing to move" : res.used == 1 ? "it can move" : "they can move");
	else
		printf("Pool %s: moved %llu chunk%s (%s, %llu mapping%s) off %s in %llu step%s; it "
		       "holds no mapped chunk now ('tpreduce --data %s %s' takes it away).\n",
		       o->pool, (unsigned long long)res.moved, tp_plural(res.moved), a,
		       (unsigned long long)res.mappings, tp_plural(res.mappings), o->x.path,
		       (unsigned long long)res.steps, tp_plural(res.steps), o->x.path, o->pool);
	return 0;
}

int cmd_tpmove(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *progress = NULL, *from = NULL, **args;
	struct move_op o;
	int nargs, code, test = 0;
	const struct poptOption opts[] = {
		{ "from", '\0', POPT_ARG_STRING, &from, 0,
		  "the data device whose chunks move to the other data devices", "DEV" },
		{ "test", 't', POPT_ARG_NONE, &test, 0,
		  "count the chunks to move and the free ones elsewhere; move nothing", NULL },
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
	o.x.path = from;
	o.pool = args[0];
	if (!from)
		code = cli_usage_error(cmd, "--from DEV names the data device to empty");
	if (code == CLI_CONTINUE)
		code = cli_device_kind(cmd, "--from", from);
	if (code == CLI_CONTINUE)
		code = cli_progress(cmd, progress, &o.mode);
	if (code == CLI_CONTINUE && strlen(args[0]) > POOL_NAME_MAX)
		code = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
	if (code == CLI_CONTINUE)
		code = tool_pool_op_flags(args[0], devices, test ? POOL_RDONLY : 0, move_op, &o);
	cli_end(&cli);
	return code;
}
