/* tprecv - receive a send stream (tpsend) into a pool.
 *
 *   tprecv [-n NAME] [-i FILE] [--devices D,M] POOL
 *
 * The whole stream is checked before the pool is touched; the pool may be
 * active. Exit: 0, 3 bad command line, 5 a truncated or damaged stream, no
 * base, a full pool, the name taken, a live receive that failed: the pool
 * unchanged. */
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
	const char *name;
	char pool[POOL_NAME_MAX + 1];
};

static int recv_op(struct pool *p, void *arg)
{
	struct recv_op *o = arg;
	struct pool_recv_result res;
	char a[32], b[32];
	int r = pool_recv_apply(p, o->stream, o->name, &res);

	if (!r && tp_log_verbosity() >= 0)
		printf("Volume %s/%s received%s%s (%s, %s of data), read-only.\n", o->pool, res.name,
		       res.base[0] ? " as changes to " : "", res.base,
		       tp_size_format(res.size, 'h', a, sizeof(a)),
		       tp_size_format(res.data_bytes, 'h', b, sizeof(b)));
	return r;
}

int cmd_tprecv(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *input = NULL, **args;
	struct recv_op o = { NULL, NULL, "" };
	const struct poptOption opts[] = {
		{ "name", 'n', POPT_ARG_STRING, &o.name, 0,
		  "the received volume's name (default: the sent volume's)", "NAME" },
		{ "input", 'i', POPT_ARG_STRING, &input, 0,
		  "read the stream from FILE instead of standard input", "FILE" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};
	struct cli cli;
	int nargs, code;

	if ((code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return code;
	if (strlen(args[0]) > POOL_NAME_MAX)
		code = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
	else if (!input && isatty(STDIN_FILENO))
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
