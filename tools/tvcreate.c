/* tvcreate - create a thin volume in a pool. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>

int cmd_tvcreate(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *vsize = NULL, *name = NULL, *devices = NULL, **args;
	struct pool *pool = NULL;
	uint64_t size, over;
	int rc, nargs;
	char a[32], b[32];
	struct cli cli;
	const struct poptOption opts[] = {
		{ "virtualsize", 'V', POPT_ARG_STRING, &vsize, 0,
		  "virtual size (may exceed the pool: over-provisioning); default unit M", "SIZE" },
		{ "name", 'n', POPT_ARG_STRING, &name, 0, "volume name", "NAME" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_args(&cli, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		goto out;
	if (!vsize || !name) {
		rc = cli_usage_error(cmd, "both -V SIZE and -n NAME are required");
		goto out;
	}
	if ((rc = cli_size(cmd, "-V", vsize, 'm', &size)) != CLI_CONTINUE)
		goto out;
	if (!size) {
		rc = cli_usage_error(cmd, "-V must be greater than 0");
		goto out;
	}
	rc = pool_open(args[0], devices, 0, &pool);
	if (!rc)
		rc = pool_volume_create(pool, name, size, &over);
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (over) {
		const struct vg *vg = pool_vg(pool);
		uint64_t psize = (uint64_t)vg->chunk_size * 512 *
				 (vg->dev[VG_ROLE_DATA].area[0].size / ((uint64_t)vg->chunk_size * 512));
		log_warn("the sum of all thin volume sizes (%s) exceeds the size of pool %s (%s): "
			 "writes fail or queue once the pool is full; watch 'tpstatus %s'",
			 tp_size_format(over, 'h', a, sizeof(a)), args[0],
			 tp_size_format(psize, 'h', b, sizeof(b)), args[0]);
	}
	if (tp_log_verbosity() >= 0)
		printf("Volume %s/%s created (%s).\n", args[0], name,
		       tp_size_format(pool_vg(pool)->volumes[pool_vg(pool)->nr_volumes - 1].size, 'h',
				      a, sizeof(a)));
	rc = TP_EXIT_OK;
out:
	pool_close(pool);
	cli_end(&cli);
	return rc;
}
