/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpremove - remove a pool: wipe its labels and VG metadata; or, with
 * --label, the label a device carries that no pool's VG names. */
#include "lib/base/devopen.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/pool_volume.h"
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
	if (pool_volume_trash_count(p))
		yes = cli_confirm("Remove pool %s with its %u volume(s) and the %u in its trash? "
				  "Their data is lost", name, info.nr_volumes,
				  pool_volume_trash_count(p));
	else
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

/* tpremove --label DEV: wipe DEV's label when no pool's VG names it
 * (pool.h: pool_label_remove), after a question. */
static int remove_label(const char *dev, int force)
{
	struct pool_label_verdict v;
	int r;

	/* a device the filter refuses: one line, nothing opened */
	if (io_dev_filter_check(dev))
		return TP_EXIT_USAGE;
	if ((r = pool_label_inspect(dev, &v)))
		return tp_exit_from_errno(r);
	/* refused before asking: a member, or no label at all */
	if (v.kind == POOL_LABEL_NONE || v.kind == POOL_LABEL_MEMBER || v.kind == POOL_LABEL_AHEAD ||
	    (!force && (v.kind == POOL_LABEL_DAMAGED || v.kind == POOL_LABEL_UNKNOWN)))
		return tp_exit_from_errno(pool_label_remove(dev, force, &v));
	if (!cli_confirm("%s carries %s. Wipe its tptools label%s?", dev, v.what,
			 v.kind == POOL_LABEL_DAMAGED ? "" : " and VG metadata area")) {
		log_error("%s: label not wiped", dev);
		return TP_EXIT_FAILED;
	}
	r = pool_label_remove(dev, force, &v);
	if (!r && tp_log_verbosity() >= 0)
		printf("Label %s%s%s wiped on %s.\n", v.pool[0] ? "of pool " : "", v.pool,
		       v.kind == POOL_LABEL_DAMAGED ? "(damaged)" : "", dev);
	return tp_exit_from_errno(r);
}

int cmd_tpremove(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct pool *pool = NULL;
	int rc, nargs, force = 0, label = 0;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		{ "force", 'f', POPT_ARG_NONE, &force, 0,
		  "forget a pool whose devices are lost: wipe what is left of it; with --label, "
		  "also a damaged label or one whose pool cannot be read whole", NULL },
		{ "label", '\0', POPT_ARG_NONE, &label, 0,
		  "wipe the tptools label of each DEVICE that no pool's VG names (an orphan, or "
		  "the label of a pool that is gone); a pool's device is refused", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 1, label ? -1 : 1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	if (label && devices) {
		rc = cli_usage_error(cmd, "--label DEVICE... names the devices itself: not with "
					  "--devices");
		goto out;
	}
	if (label) {
		rc = TP_EXIT_OK;
		for (int i = 0; i < nargs; i++) {
			int one = remove_label(args[i], force);

			if (one != TP_EXIT_OK && (rc == TP_EXIT_OK || one == TP_EXIT_USAGE))
				rc = one;
		}
		goto out;
	}
	rc = pool_open(args[0], devices, 0, &pool);
	if (rc == -ENOENT && force && !devices)
		rc = forget(args[0]);
	else if (rc)
		rc = tp_exit_from_errno(rc);
	else
		rc = remove_pool(args[0], pool);
out:
	cli_end(&cli);
	return rc;
}
