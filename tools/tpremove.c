/* tpremove - remove a pool: wipe its labels and VG metadata. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <errno.h>
#include <stdio.h>

int cmd_tpremove(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct pool *pool = NULL;
	int rc, nargs, force = 0;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		{ "force", 'f', POPT_ARG_NONE, &force, 0,
		  "forget a pool whose devices are lost: wipe what is left of it", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	rc = pool_open(args[0], devices, 0, &pool);
	if (rc == -ENOENT && force && !devices) {
		if (!cli_confirm("Forget pool %s and wipe the labels left on its reachable devices?",
				 args[0])) {
			rc = TP_EXIT_FAILED;
			goto out;
		}
		rc = pool_forget(args[0]);
		if (!rc && tp_log_verbosity() >= 0)
			printf("Pool %s forgotten.\n", args[0]);
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (!cli_confirm("Remove pool %s with its %u volume(s)? Their data is lost", args[0],
			 pool_vg(pool)->nr_volumes)) {
		log_error("pool %s not removed", args[0]);
		rc = TP_EXIT_FAILED;
		goto out;
	}
	rc = pool_remove(pool);
	pool = NULL;
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (tp_log_verbosity() >= 0)
		printf("Pool %s removed.\n", args[0]);
	rc = TP_EXIT_OK;
out:
	pool_close(pool);
	cli_end(&cli);
	return rc;
}
