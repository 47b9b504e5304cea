/* tpactivate / tpdeactivate - load a pool and its volumes into the
 * kernel's dm thin-pool/thin targets, or unload them. */
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>

struct activation {
	const char *pool;
	const char *const *vols;	/* none: the pool and all its volumes */
	unsigned n;
	int activate;
};

static int activation_op(struct pool *p, void *arg)
{
	const struct activation *a = arg;
	const char *state = a->activate ? "active" : "inactive";
	int r = a->activate ? pool_activate(p, a->vols, a->n) : pool_deactivate(p, a->vols, a->n);

	if (r || tp_log_verbosity() < 0)
		return r;
	if (a->n)
		printf("Pool %s: %u volume(s) %s.\n", a->pool, a->n, state);
	else
		printf("Pool %s %s.\n", a->pool, state);
	return 0;
}

static int run(const struct tp_command *cmd, int argc, const char **argv, int activate)
{
	const char **args;
	int rc, nargs;
	struct cli cli;

	if ((rc = cli_parse_devices(&cli, cmd, argc, argv, 1, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	struct activation a = { args[0], args + 1, (unsigned)nargs - 1, activate };
	rc = tool_pool_op(args[0], cli.devices, activation_op, &a);
	cli_end(&cli);
	return rc;
}

int cmd_tpactivate(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 1);
}

int cmd_tpdeactivate(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 0);
}
