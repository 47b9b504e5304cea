/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpreduce - take a data device away from a pool over several
 * (the reverse of tpextend --data), when no chunk of its range is in use;
 * or (--missing) the data devices that are lost for good. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct reduce {
	const char *data;
	int test, missing_mode, force;
	struct pool_reduce_data_result res;
	struct pool_reduce_missing_result missing;
};

static int reduce_op(struct pool *p, void *arg)
{
	struct reduce *x = arg;
	char a[32], b[32];
	int r = pool_reduce_data(p, x->data, x->test, &x->res);

	if (r || tp_log_verbosity() < 0)
		return r;
	tp_size_format(x->res.old_data_size, 'h', a, sizeof(a));
	tp_size_format(x->res.new_data_size, 'h', b, sizeof(b));
	if (x->test)
		printf("Pool %s: data device %u (%s) holds chunks %llu..%llu, none in use: it "
		       "can be taken away; the data area would shrink from %s to %s. Test mode: "
		       "nothing was written.\n", pool_name(p), x->res.index + 1, x->data,
		       (unsigned long long)x->res.first_chunk,
		       (unsigned long long)(x->res.first_chunk + x->res.chunks - 1), a, b);
	else
		printf("Pool %s: data device %s taken away; data area shrunk from %s to %s.\n",
		       pool_name(p), x->data, a, b);
	return 0;
}

/* tpreduce --missing: what was (or would be) taken away, and what the
 * volumes lost. */
static int missing_op(struct pool *p, void *arg)
{
	struct reduce *x = arg;
	struct pool_reduce_missing_result *m = &x->missing;
	char a[32], b[32];
	int r = pool_reduce_missing(p, x->force, x->test, m);

	if (r || tp_log_verbosity() < 0)
		return r;
	tp_size_format(m->old_data_size, 'h', a, sizeof(a));
	tp_size_format(m->new_data_size, 'h', b, sizeof(b));
	for (unsigned k = 0; k < m->nr_devices; k++)
		printf("Pool %s: data device %u (device uuid %s, last seen at %s, %llu chunks) is "
		       "missing%s.\n", pool_name(p), m->dev[k].index + 1, m->dev[k].device_uuid,
		       m->dev[k].last_path[0] ? m->dev[k].last_path : "an unknown path",
		       (unsigned long long)m->dev[k].chunks,
		       x->test ? "" : ": taken away");
	for (unsigned k = 0; k < m->nr_lost; k++) {
		if (m->vol[k].name[0])
			printf("%s volume %s/%s: %llu chunks on it%s\n", x->test ? "would lose:"
			       : "lost:", pool_name(p), m->vol[k].name,
			       (unsigned long long)m->vol[k].blocks,
			       x->test ? "" : ", which now read as zeros");
		else
			printf("%s thin device %llu (no volume): %llu chunks on it\n",
			       x->test ? "would lose:" : "lost:", (unsigned long long)m->vol[k].dev_id,
			       (unsigned long long)m->vol[k].blocks);
	}
	if (m->lost && !x->test)
		printf("next: restore the volumes above from a backup, or run fsck on them\n");
	if (x->test)
		printf("Pool %s: the data area would shrink from %s to %s. Test mode: nothing was "
		       "written.\n", pool_name(p), a, b);
	else
		printf("Pool %s: data area shrunk from %s to %s.\n", pool_name(p), a, b);
	return 0;
}

int cmd_tpreduce(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, **args;
	struct reduce x;
	int rc, nargs;
	struct cli cli;

	memset(&x, 0, sizeof(x));
	const struct poptOption opts[] = {
		{ "data", '\0', POPT_ARG_STRING, &x.data, 0,
		  "the data device to take away (any of the pool's)", "DEV" },
		{ "missing", '\0', POPT_ARG_NONE, &x.missing_mode, 0,
		  "take away every data device of the pool that is missing (lost for good)", NULL },
		{ "force", 'f', POPT_ARG_NONE, &x.force, 0,
		  "with --missing: also when volumes map chunks there (they are lost)", NULL },
		{ "test", 't', POPT_ARG_NONE, &x.test, 0, "say what would be done, write nothing",
		  NULL },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!x.data && !x.missing_mode)
		rc = cli_usage_error(cmd, "--data DEV names the data device to take away, "
					  "--missing takes the missing ones");
	else if (x.data && x.missing_mode)
		rc = cli_usage_error(cmd, "--data DEV and --missing do not go together");
	else if (x.force && !x.missing_mode)
		rc = cli_usage_error(cmd, "--force goes with --missing");
	if (rc == CLI_CONTINUE)
		rc = cli_device_kind(cmd, "--data", x.data);
	if (rc == CLI_CONTINUE && x.missing_mode)
		rc = tool_pool_op_flags(args[0], devices,
					POOL_DATA_MISSING_OK | (x.test ? POOL_RDONLY : 0), missing_op,
					&x);
	else if (rc == CLI_CONTINUE)
		rc = tool_pool_op_flags(args[0], devices, x.test ? POOL_RDONLY : 0, reduce_op, &x);
	cli_end(&cli);
	return rc;
}
