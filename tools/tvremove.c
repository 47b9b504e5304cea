/* tvremove - remove thin volumes (their snapshots stay). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>

int cmd_tvremove(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct pool *pool = NULL;
	int rc, nargs, i;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 1, -1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	/* Check every argument before changing anything. */
	for (i = 0; i < nargs; i++) {
		char p[VG_NAME_MAX + 1], v[VG_NAME_MAX + 1];
		if (pool_split_volume_spec(args[i], p, v)) {
			rc = TP_EXIT_USAGE;
			goto out;
		}
	}
	rc = TP_EXIT_OK;
	for (i = 0; i < nargs; i++) {
		char p[VG_NAME_MAX + 1], v[VG_NAME_MAX + 1];
		int r = pool_split_volume_spec(args[i], p, v);

		if (!r && (!pool || strcmp(pool_name(pool), p))) {
			pool_close(pool);
			pool = NULL;
			r = pool_open(p, devices, 0, &pool);
		}
		if (!r)
			r = pool_volume_remove(pool, v);
		if (r) {
			rc = tp_exit_from_errno(r);
			continue;
		}
		if (tp_log_verbosity() >= 0)
			printf("Volume %s removed.\n", args[i]);
	}
out:
	pool_close(pool);
	cli_end(&cli);
	return rc;
}
