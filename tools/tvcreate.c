/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvcreate - create a thin volume in a pool. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_names_dm.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct creation {
	const char *pool, *name;
	uint64_t size;
	int no_autoactivate;	/* --activate n */
};

static int creation_op(struct pool *p, void *arg)
{
	const struct creation *c = arg;
	struct pool_info info;
	uint64_t over;
	char a[32], b[32];
	/* the volume and its activation flag: one commit */
	int r = pool_volume_create_as(p, c->name, c->size,
				      c->no_autoactivate ? POOL_VOLUME_NO_AUTOACTIVATE : 0, &over);

	if (!r)
		r = pool_get_info(p, 0, &info);
	if (r)
		return r;
	if (over) {
		tp_size_format_pair(over, info.data_size, a, b, sizeof(a));
		log_warn("the sum of all thin volume sizes (%s) exceeds the size of pool %s (%s): "
			 "writes fail or queue once the pool is full; watch 'tpstatus %s'", a,
			 c->pool, b, c->pool);
	}
	(void)pool_warn_if_full(p);
	if (tp_log_verbosity() >= 0)
		printf("Volume %s/%s created (%s).\n", c->pool, c->name,
		       tp_size_format(info.volumes[info.nr_volumes - 1].size, 'h', a, sizeof(a)));
	pool_info_free(&info);
	return 0;
}

int cmd_tvcreate(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *vsize = NULL, *devices = NULL, *activate = NULL, **args;
	struct creation c = { NULL, NULL, 0, 0 };
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "virtualsize", 'V', POPT_ARG_STRING, &vsize, 0,
		  "virtual size (may exceed the pool: over-provisioning); default unit M", "SIZE" },
		{ "name", 'n', POPT_ARG_STRING, &c.name, 0, "volume name", "NAME" },
		{ "activate", 'a', POPT_ARG_STRING, &activate, 0,
		  "activated with its pool by tpactivate --all and at boot (default y)", "y|n" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!vsize || !c.name)
		rc = cli_usage_error(cmd, "both -V SIZE and -n NAME are required");
	if (rc == CLI_CONTINUE)
		rc = cli_size(cmd, "-V", vsize, 'm', &c.size);
	if (rc == CLI_CONTINUE && !c.size)
		rc = cli_usage_error(cmd, "-V must be greater than 0");
	if (rc == CLI_CONTINUE && activate) {
		int on;
		if ((rc = cli_parse_activate(cmd, activate, &on)) == CLI_CONTINUE)
			c.no_autoactivate = !on;
	}
	if (rc == CLI_CONTINUE && pool_dm_vol_name_check(args[0], c.name))
		rc = TP_EXIT_USAGE;
	if (rc == CLI_CONTINUE) {
		c.pool = args[0];
		rc = tool_pool_op(args[0], devices, creation_op, &c);
	}
	cli_end(&cli);
	return rc;
}
