/* tpremove - remove a pool: wipe its labels and VG metadata. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <errno.h>
#include <stdio.h>

/* --force on a pool that cannot be opened: forget it. */
static int forget(const char *name)
{
	int r;

	if (!cli_confirm("Forget pool %s and wipe the labels left on its reachable devices?", name))
		return TP_EXIT_FAILED;
	r = pool_forget(name);
	if (!r && tp_log_verbosity() >= 0)
		printf("Pool %s forgotten.\n", name);
	return tp_exit_from_errno(r);
}

/* Remove the open pool P (closed either way) after asking. */
static int remove_pool(const char *name, struct pool *p)
{
	struct pool_info info;
	int r, yes;

	/* refused before asking: the kernel runs the pool */
	if (pool_is_live(p))
		return tp_exit_from_errno(pool_remove(p));
	r = pool_get_info(p, 0, &info);
	if (r) {
		pool_close(p);
		return tp_exit_from_errno(r);
	}
	yes = cli_confirm("Remove pool %s with its %u volume(s)? Their data is lost", name,
			  info.nr_volumes);
	pool_info_free(&info);
	if (!yes) {
		log_error("pool %s not removed", name);
		pool_close(p);
		return TP_EXIT_FAILED;
	}
	r = pool_remove(p);
	if (!r && tp_log_verbosity() >= 0)
		printf("Pool %s removed.\n", name);
	return tp_exit_from_errno(r);
}

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

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	rc = pool_open(args[0], devices, 0, &pool);
	if (rc == -ENOENT && force && !devices)
		rc = forget(args[0]);
	else if (rc)
		rc = tp_exit_from_errno(rc);
	else
		rc = remove_pool(args[0], pool);
	cli_end(&cli);
	return rc;
}
