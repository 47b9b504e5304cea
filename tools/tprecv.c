/* tprecv - receive a send stream (tpsend) into a pool.
 *
 *   tprecv [-n NAME] [-i FILE] [--resume] [--devices D,M] POOL
 *   tprecv --abort NAME [--devices D,M] POOL
 *
 * The whole stream is checked before the pool is touched; the pool may be
 * active. Exit: 0, 3 bad command line, 5 a truncated or damaged stream, no
 * base, a full pool, the name taken, a receive that failed: no volume
 * changed (one stopped part-way is kept as an unfinished receive, said in
 * its last line). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_recv.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct recv_op {
	struct pool_recv *stream;
	const char *name, *abort;
	unsigned flags;
	char pool[POOL_NAME_MAX + 1];
};

static int recv_op(struct pool *p, void *arg)
{
	struct recv_op *o = arg;
	struct pool_recv_result res;
	char a[32], b[32];
	int r;

	if (o->abort) {
		if (!(r = pool_recv_abort(p, o->abort)) && tp_log_verbosity() >= 0)
			printf("Unfinished receive %s/%s dropped.\n", o->pool, o->abort);
		return r;
	}
	r = pool_recv_apply(p, o->stream, o->name, o->flags, &res);
	if (r)
		return r;
	if (tp_log_verbosity() >= 0) {
		printf("Volume %s/%s received%s%s (%s, %s of data), read-only", o->pool, res.name,
		       res.base[0] ? " as changes to " : "", res.base,
		       tp_size_format(res.size, 'h', a, sizeof(a)),
		       tp_size_format(res.data_bytes, 'h', b, sizeof(b)));
		if (o->flags & POOL_RECV_RESUME)
			printf("; resumed at %s", tp_size_format(res.resumed_at, 'h', a, sizeof(a)));
		printf(".\n");
	}
	(void)pool_warn_if_full(p);
	return 0;
}

int cmd_tprecv(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *input = NULL, **args;
	struct recv_op o = { NULL, NULL, NULL, 0, "" };
	int resume = 0;
	const struct poptOption opts[] = {
		{ "name", 'n', POPT_ARG_STRING, &o.name, 0,
		  "the received volume's name (default: the sent volume's)", "NAME" },
		{ "input", 'i', POPT_ARG_STRING, &input, 0,
		  "read the stream from FILE instead of standard input", "FILE" },
		{ "resume", 0, POPT_ARG_NONE, &resume, 0,
		  "go on with the unfinished receive of this stream from its last commit", NULL },
		{ "abort", 0, POPT_ARG_STRING, &o.abort, 0,
		  "drop the unfinished receive NAME and what it received", "NAME" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};
	struct cli cli;
	int nargs, code;

	if ((code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return code;
	o.flags = resume ? POOL_RECV_RESUME : 0;
	if (strlen(args[0]) > POOL_NAME_MAX)
		code = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
	else if (o.abort && (resume || input || o.name))
		code = cli_usage_error(cmd, "--abort NAME takes no stream: not with --resume, "
					    "-i or -n");
	else if (o.abort) {
		strcpy(o.pool, args[0]);
		code = tool_pool_op(o.pool, devices, recv_op, &o);
	} else if (!input && isatty(STDIN_FILENO))
		code = cli_usage_error(cmd, "standard input is a terminal: pipe a stream in "
					    "(tpsend ... | tprecv POOL) or use -i FILE");
	else if ((code = tp_exit_from_errno(pool_recv_check(input, &o.stream))) == TP_EXIT_OK) {
		strcpy(o.pool, args[0]);
		code = tool_pool_op(o.pool, devices, recv_op, &o);
	}
	pool_recv_free(o.stream);
	cli_end(&cli);
	return code;
}
