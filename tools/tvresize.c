/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvresize - change a thin volume's virtual size (-V SIZE, +SIZE, -SIZE);
 * a shrink over mapped data needs --force, which unmaps it after asking. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>

struct resize {
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	int relative, force;
	uint64_t size;
};

static int resize_op(struct pool *p, void *arg)
{
	const struct resize *z = arg;
	uint64_t old, now, unmapped;
	char a[48], b[48];
	/* an encrypted volume keeps a size its header's sectors fit */
	int r = pool_crypt_resize_check(p, z->vol, z->relative, z->size);

	if (!r)
		r = pool_volume_resize(p, z->vol, z->relative, z->size, z->force, &old, &now,
				       &unmapped);

	if (r || tp_log_verbosity() < 0)
		return r;
	if (old == now) {
		printf("Volume %s/%s is already %s; nothing changed.\n", z->pool, z->vol,
		       tp_size_format_exact(old, a, sizeof(a)));
		return 0;
	}
	printf("Volume %s/%s resized from %s to %s", z->pool, z->vol,
	       tp_size_format(old, 'h', a, sizeof(a)), tp_size_format(now, 'h', b, sizeof(b)));
	if (unmapped)
		printf("; %s of data beyond the new end dropped",
		       tp_size_format(unmapped, 'h', a, sizeof(a)));
	printf(".\n");
	return 0;
}

int cmd_tvresize(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *vsize = NULL, **args;
	struct resize z = { "", "", 0, 0, 0 };
	int rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "size", 'V', POPT_ARG_STRING, &vsize, 0,
		  "new virtual size, or +SIZE / -SIZE to add or take away (default unit MiB)",
		  "[+|-]SIZE" },
		{ "force", 'f', POPT_ARG_NONE, &z.force, 0,
		  "shrink over mapped data: unmap it (the data is lost)", NULL },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!vsize) {
		rc = cli_usage_error(cmd, "-V SIZE is required");
		goto out;
	}
	if (*vsize == '+' || *vsize == '-')
		z.relative = *vsize == '+' ? 1 : -1;
	if (cli_size(cmd, "-V", vsize + (z.relative != 0), 'm', &z.size) != CLI_CONTINUE)
		rc = TP_EXIT_USAGE;
	else if (!z.size)
		rc = cli_usage_error(cmd, "-V must be greater than 0");
	else if (pool_split_volume_spec(args[0], z.pool, z.vol))
		rc = TP_EXIT_USAGE;
	else if (z.force && z.relative <= 0 &&
		 !cli_confirm("Shrinking %s/%s unmaps the data beyond its new end; it is lost. "
			      "Go on?", z.pool, z.vol))
		rc = TP_EXIT_FAILED;
	else
		rc = tool_pool_op(z.pool, devices, resize_op, &z);
out:
	cli_end(&cli);
	return rc;
}
