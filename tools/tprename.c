/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tprename - rename a pool (offline; lib/pool/admin/pool_rename.c). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "tools/cli.h"

#include <stdio.h>

int cmd_tprename(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	int rc, nargs, r;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 2, 2, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	r = pool_rename(args[0], args[1], devices);
	if (!r && tp_log_verbosity() >= 0)
		printf("Pool %s renamed to %s.\n", args[0], args[1]);
	rc = tp_exit_from_errno(r);
	cli_end(&cli);
	return rc;
}
