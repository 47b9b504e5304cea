/* tpchange / tvchange - change the settings a pool or a volume keeps in
 * its VG: the activation flag (--activate y|n) that `tpactivate --all`,
 * the boot unit and udev autoactivation honour, and a volume's read-only
 * flag (tvchange --readonly y|n). Without an option they print the
 * current settings. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct change {
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	int set, on;
	int set_ro, ro;	/* tvchange --readonly */
};

static int change_op(struct pool *p, void *arg)
{
	const struct change *c = arg;
	const char *vol = c->vol[0] ? c->vol : NULL;
	int r = c->set ? pool_set_autoactivate(p, vol, c->on) : 0;

	if (!r && c->set_ro)
		r = pool_volume_set_readonly(p, vol, c->ro);
	if (!r && (c->set || !c->set_ro))
		r = pool_get_autoactivate(p, vol);
	if (r < 0)
		return r;
	if (tp_log_verbosity() >= 0 && (c->set || !c->set_ro)) {
		if (vol)
			printf("Volume %s/%s: activate %s.\n", c->pool, vol, r ? "y" : "n");
		else
			printf("Pool %s: activate %s.\n", c->pool, r ? "y" : "n");
	}
	if (vol && (c->set_ro || !c->set) && (r = pool_volume_get_readonly(p, vol)) < 0)
		return r;
	if (vol && (c->set_ro || !c->set) && tp_log_verbosity() >= 0)
		printf("Volume %s/%s: read-only %s.\n", c->pool, vol, r ? "y" : "n");
	return 0;
}

static int run(const struct tp_command *cmd, int argc, const char **argv, int volume)
{
	const char **args, *devices = NULL, *activate = NULL, *readonly = NULL;
	struct change c = { "", "", 0, 1, 0, 0 };
	int rc, nargs;
	struct cli cli;
	struct poptOption opts[] = {
		{ "activate", 'a', POPT_ARG_STRING, &activate, 0,
		  volume ? "activated with its pool by tpactivate --all and at boot (y) or not (n)"
			 : "activated by tpactivate --all, at boot and by udev (y) or not (n)",
		  "y|n" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND,	/* tvchange: --readonly in its place */
		POPT_TABLEEND
	};

	if (volume)
		opts[2] = (struct poptOption){ "readonly", 'r', POPT_ARG_STRING, &readonly, 0,
					       "read-only: activated read-only, offline writers "
					       "refuse it (y), or writable (n)", "y|n" };
	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	c.set = activate != NULL;
	if (c.set)
		rc = cli_parse_activate(cmd, activate, &c.on);
	c.set_ro = readonly != NULL;
	if (rc == CLI_CONTINUE && c.set_ro) {
		if (strcmp(readonly, "y") && strcmp(readonly, "n"))
			rc = cli_usage_error(cmd, "--readonly takes y or n, not '%s'", readonly);
		c.ro = readonly[0] == 'y';
	}
	if (rc == CLI_CONTINUE) {
		if (volume && pool_split_volume_spec(args[0], c.pool, c.vol))
			rc = TP_EXIT_USAGE;
		else if (!volume && strlen(args[0]) > POOL_NAME_MAX)
			rc = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
		else {
			if (!volume)
				strcpy(c.pool, args[0]);
			rc = tool_pool_op(c.pool, devices, change_op, &c);
		}
	}
	cli_end(&cli);
	return rc;
}

int cmd_tpchange(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 0);
}

int cmd_tvchange(const struct tp_command *cmd, int argc, const char **argv)
{
	return run(cmd, argc, argv, 1);
}
