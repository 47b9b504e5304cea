/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvrename - rename a thin volume. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_names_dm.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>

struct rename {
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	const char *to;
};

static int rename_op(struct pool *p, void *arg)
{
	const struct rename *n = arg;
	int r = pool_volume_rename(p, n->vol, n->to);

	if (!r && tp_log_verbosity() >= 0)
		printf("Volume %s/%s renamed to %s.\n", n->pool, n->vol, n->to);
	return r;
}

int cmd_tvrename(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct rename n = { "", "", NULL };
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 2, 2, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	n.to = args[1];
	if (pool_split_volume_spec(args[0], n.pool, n.vol) || pool_dm_vol_name_check(n.pool, n.to))
		rc = TP_EXIT_USAGE;
	else
		rc = tool_pool_op(n.pool, devices, rename_op, &n);
	cli_end(&cli);
	return rc;
}
