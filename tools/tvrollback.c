/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvrollback - roll a thin volume back to one of its snapshots: the
 * volume's content and virtual size become the snapshot's, the snapshot
 * is kept (lib/pool/volume/volume_rollback.c does the change). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct rollback {
	const char *snap;
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
};

static int rollback_op(struct pool *p, void *arg)
{
	const struct rollback *rb = arg;
	uint64_t old_size = 0;
	int r = pool_volume_rollback(p, rb->vol, rb->snap, &old_size);
	struct pool_info info;
	char a[32], b[32];

	if (r || tp_log_verbosity() < 0)
		return r;
	printf("Volume %s/%s rolled back to snapshot %s.\n", rb->pool, rb->vol, rb->snap);
	if (pool_get_info(p, 0, &info))
		return 0;
	for (unsigned i = 0; i < info.nr_volumes; i++)
		if (!strcmp(info.volumes[i].name, rb->vol) && info.volumes[i].size != old_size)
			printf("Its size changed from %s to %s, the snapshot's.\n",
			       tp_size_format(old_size, 'h', a, sizeof(a)),
			       tp_size_format(info.volumes[i].size, 'h', b, sizeof(b)));
	pool_info_free(&info);
	return 0;
}

int cmd_tvrollback(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct rollback rb = { NULL, "", "" };
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		/* no -t: it is --test wherever a command has one */
		{ "to", '\0', POPT_ARG_STRING, &rb.snap, 0,
		  "the snapshot to roll back to (a volume of the same pool, of VOLUME's snapshot family)", "SNAP" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!rb.snap)
		rc = cli_usage_error(cmd, "--to SNAP is required");
	else if (pool_split_volume_spec(args[0], rb.pool, rb.vol))
		rc = TP_EXIT_USAGE;
	else
		rc = tool_pool_op(rb.pool, devices, rollback_op, &rb);
	cli_end(&cli);
	return rc;
}
