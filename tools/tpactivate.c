/* tpactivate / tpdeactivate - load a pool and its volumes into the
 * kernel's dm thin-pool/thin targets, or unload them. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>

static int run(const struct tp_command *cmd, int argc, const char **argv, int activate)
{
	const char *devices = NULL, **args;
	struct pool *pool = NULL;
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 1, -1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	rc = pool_open(args[0], devices, 0, &pool);
	if (!rc)
		rc = activate ? pool_activate(pool, args + 1, (unsigned)nargs - 1)
			      : pool_deactivate(pool, args + 1, (unsigned)nargs - 1);
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (tp_log_verbosity() >= 0) {
		if (nargs > 1)
			printf("Pool %s: %d volume(s) %s.\n", args[0], nargs - 1,
			       activate ? "active" : "inactive");
		else
			printf("Pool %s %s.\n", args[0], activate ? "active" : "inactive");
	}
	rc = TP_EXIT_OK;
out:
	pool_close(pool);
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
