/* tpreduce - take a data device away from a pool over several
 * (the reverse of tpextend --data), when no chunk of its range is in use. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct reduce {
	const char *data;
	int test;
	struct pool_reduce_data_result res;
};

static int reduce_op(struct pool *p, void *arg)
{
	struct reduce *x = arg;
	char a[32], b[32];
	int r = pool_reduce_data(p, x->data, x->test, &x->res);

	if (r || tp_log_verbosity() < 0)
		return r;
	tp_size_format(x->res.old_data_size, 'h', a, sizeof(a));
	tp_size_format(x->res.new_data_size, 'h', b, sizeof(b));
	if (x->test)
		printf("Pool %s: data device %u (%s) holds chunks %llu..%llu, none in use: it "
		       "can be taken away; the data area would shrink from %s to %s. Test mode: "
		       "nothing was written.\n", pool_name(p), x->res.index + 1, x->data,
		       (unsigned long long)x->res.first_chunk,
		       (unsigned long long)(x->res.first_chunk + x->res.chunks - 1), a, b);
	else
		printf("Pool %s: data device %s taken away; data area shrunk from %s to %s.\n",
		       pool_name(p), x->data, a, b);
	return 0;
}

int cmd_tpreduce(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct reduce x;
	int rc, nargs;
	struct cli cli;

	memset(&x, 0, sizeof(x));
	const struct poptOption opts[] = {
		{ "data", '\0', POPT_ARG_STRING, &x.data, 0,
		  "the data device to take away (any of the pool's)", "DEV" },
		{ "test", 't', POPT_ARG_NONE, &x.test, 0, "say what would be done, write nothing",
		  NULL },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!x.data)
		rc = cli_usage_error(cmd, "--data DEV names the data device to take away");
	if (rc == CLI_CONTINUE)
		rc = tool_pool_op_flags(args[0], devices, x.test ? POOL_RDONLY : 0, reduce_op, &x);
	cli_end(&cli);
	return rc;
}
