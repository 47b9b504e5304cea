/* tvsnap - snapshot a thin volume (O(1): the snapshot shares its origin's
 * mappings until either is written). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>

struct snapshot {
	const char *name;
	int readonly;
	char pool[POOL_NAME_MAX + 1], origin[POOL_NAME_MAX + 1];
};

static int snapshot_op(struct pool *p, void *arg)
{
	const struct snapshot *s = arg;
	int r = pool_volume_snapshot(p, s->origin, s->name, s->readonly);

	if (!r && tp_log_verbosity() >= 0)
		printf("Snapshot %s/%s of %s created%s.\n", s->pool, s->name, s->origin,
		       s->readonly ? ", read-only" : "");
	return r;
}

int cmd_tvsnap(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct snapshot s = { NULL, 0, "", "" };
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "name", 'n', POPT_ARG_STRING, &s.name, 0, "snapshot name", "NAME" },
		{ "readonly", 'r', POPT_ARG_NONE, &s.readonly, 0,
		  "make the snapshot read-only (activated read-only; tvchange --readonly n undoes it)",
		  NULL },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!s.name)
		rc = cli_usage_error(cmd, "-n NAME is required");
	else if (pool_split_volume_spec(args[0], s.pool, s.origin))
		rc = TP_EXIT_USAGE;
	else
		rc = tool_pool_op(s.pool, devices, snapshot_op, &s);
	cli_end(&cli);
	return rc;
}
