/* tvremove - remove thin volumes (their snapshots stay). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>

struct removal {
	const char *spec;	/* POOL/VOLUME as given */
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
};

static int removal_op(struct pool *p, void *arg)
{
	const struct removal *rm = arg;
	int r = pool_volume_remove(p, rm->vol);

	if (!r && tp_log_verbosity() >= 0)
		printf("Volume %s removed.\n", rm->spec);
	return r;
}

int cmd_tvremove(const struct tp_command *cmd, int argc, const char **argv)
{
	const char **args;
	struct removal rm;
	int rc, nargs, i, code, failed = TP_EXIT_OK;
	struct cli cli;

	if ((rc = cli_parse_devices(&cli, cmd, argc, argv, 1, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	/* Check every argument before changing anything. */
	for (i = 0; i < nargs && rc == CLI_CONTINUE; i++)
		if (pool_split_volume_spec(args[i], rm.pool, rm.vol))
			rc = TP_EXIT_USAGE;
	for (i = 0; i < nargs && rc != TP_EXIT_USAGE; i++) {
		rm.spec = args[i];
		if (!pool_split_volume_spec(args[i], rm.pool, rm.vol) &&
		    (code = tool_pool_op(rm.pool, cli.devices, removal_op, &rm)) != TP_EXIT_OK)
			failed = code;
	}
	cli_end(&cli);
	return rc == TP_EXIT_USAGE ? rc : failed;
}
