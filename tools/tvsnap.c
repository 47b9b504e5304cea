/* tvsnap - snapshot a thin volume (O(1): the snapshot shares its origin's
 * mappings until either is written). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>

int cmd_tvsnap(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *name = NULL, *devices = NULL, **args;
	char pool_name[VG_NAME_MAX + 1], vol[VG_NAME_MAX + 1];
	struct pool *pool = NULL;
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "name", 'n', POPT_ARG_STRING, &name, 0, "snapshot name", "NAME" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	if (!name) {
		rc = cli_usage_error(cmd, "-n NAME is required");
		goto out;
	}
	if (pool_split_volume_spec(args[0], pool_name, vol)) {
		rc = TP_EXIT_USAGE;
		goto out;
	}
	rc = pool_open(pool_name, devices, 0, &pool);
	if (!rc)
		rc = pool_volume_snapshot(pool, vol, name);
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (tp_log_verbosity() >= 0)
		printf("Snapshot %s/%s of %s created.\n", pool_name, name, vol);
	rc = TP_EXIT_OK;
out:
	pool_close(pool);
	cli_end(&cli);
	return rc;
}
