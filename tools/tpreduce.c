/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpreduce - take a data device away from a pool over several
 * (the reverse of tpextend --data), when no chunk of its range is in use;
 * or (--missing) the data devices that are lost for good; or (--size)
 * shrink the pool's data area by its last device's range. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct reduce {
	const struct tp_command *cmd;
	const char *data, *size, *pool;
	int test, missing_mode, force;
	enum tp_progress_mode mode;
	struct pool_shrink_params shrink;
	struct pool_reduce_data_result res;
	struct pool_reduce_missing_result missing;
};

/* tpreduce --size: the data area shrunk (or what would be done). */
static int shrink_op(struct pool *p, void *arg)
{
	struct reduce *x = arg;
	struct pool_shrink_result res;
	struct tp_progress pg;
	char a[32], b[32], c[32], d[32];
	int r;

	cli_progress_begin(&pg, x->cmd, x->mode, x->pool, TP_PROGRESS_ITEMS, "chunks");
	x->shrink.progress = x->test ? NULL : tp_progress_cb;
	x->shrink.progress_ctx = &pg;
	r = pool_shrink_data(p, &x->shrink, &res);
	tp_progress_end(&pg, r == 0);
	if (r == -EFBIG)	/* a size above the area's: the command line's */
		r = -EINVAL;
	if (r || tp_log_verbosity() < 0)
		return r;
	tp_size_format(res.old_chunks * res.chunk, 'h', a, sizeof(a));
	tp_size_format(res.new_chunks * res.chunk, 'h', b, sizeof(b));
	tp_size_format(res.freed_bytes, 'h', c, sizeof(c));	/* the bytes follow */
	if (res.already) {
		printf("Pool %s: its data area is %s (%llu chunk%s) already; nothing to do.\n",
		       pool_name(p), a, (unsigned long long)res.old_chunks,
		       tp_plural(res.old_chunks));
	} else if (x->test) {
		tp_size_format(res.to_move * res.chunk, 'h', d, sizeof(d));
		printf("Pool %s: the data area would shrink from %s to %s (%llu chunks to %llu, "
		       "%llu in use); %llu chunk%s (%s, %llu mapping%s) at or beyond the new end "
		       "would move to the %llu free below it: %s. Test mode: nothing was "
		       "written.\n", pool_name(p), a, b, (unsigned long long)res.old_chunks,
		       (unsigned long long)res.new_chunks, (unsigned long long)res.used,
		       (unsigned long long)res.to_move, tp_plural(res.to_move), d,
		       (unsigned long long)res.mappings, tp_plural(res.mappings),
		       (unsigned long long)res.free_below,
		       !res.to_move ? "nothing to move" : "they fit");
	} else {
		tp_size_format(res.moved * res.chunk, 'h', d, sizeof(d));
		if (res.moved)
			printf("Pool %s: data area shrunk from %s to %s (%llu chunk%s); %llu chunk%s "
			       "(%s) moved below the new end in %llu step%s.\n", pool_name(p), a, b,
			       (unsigned long long)res.new_chunks, tp_plural(res.new_chunks),
			       (unsigned long long)res.moved,
			       tp_plural(res.moved), d, (unsigned long long)res.steps,
			       tp_plural(res.steps));
		else
			printf("Pool %s: data area shrunk from %s to %s (%llu chunk%s); no chunk had "
			       "to move.\n", pool_name(p), a, b, (unsigned long long)res.new_chunks,
			       tp_plural(res.new_chunks));
	}
	if (res.label_lags)	/* the warning says what to do: no advice to cut */
		printf("Pool %s: the label of %s lags; run 'tpreduce --size %lluK %s' again before "
		       "shrinking that device.\n", pool_name(p), res.path,
		       (unsigned long long)(res.new_chunks * res.chunk / 1024), pool_name(p));
	else if (!x->test && res.freed_bytes)
		printf("Pool %s: %s (%llu bytes) at the end of %s, from byte %llu on, %s no longer "
		       "used by the pool: the device can be shrunk to %llu bytes (a partition or "
		       "LV resized, an image file truncated with 'truncate -s %llu %s'); while "
		       "it is there, 'tpextend %s' or the monitor's autoextend takes it back.\n",
		       pool_name(p), c, (unsigned long long)res.freed_bytes, res.path,
		       (unsigned long long)res.freed_offset, res.already ? "are" : "are now",
		       (unsigned long long)res.freed_offset, (unsigned long long)res.freed_offset,
		       res.path, pool_name(p));
	return 0;
}

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
	const char *devices = NULL, *progress = NULL, **args;
	struct reduce x;
	int rc, nargs;
	struct cli cli;

	memset(&x, 0, sizeof(x));
	const struct poptOption opts[] = {
		{ "data", '\0', POPT_ARG_STRING, &x.data, 0,
		  "the data device to take away (any of the pool's)", "DEV" },
		{ "size", '\0', POPT_ARG_STRING, &x.size, 0,
		  "shrink the pool's data area to SIZE (its last data device's range shorter)",
		  "SIZE" },
		{ "missing", '\0', POPT_ARG_NONE, &x.missing_mode, 0,
		  "take away every data device of the pool that is missing (lost for good)", NULL },
		{ "force", 'f', POPT_ARG_NONE, &x.force, 0,
		  "with --missing: also when volumes map chunks there (they are lost)", NULL },
		{ "test", 't', POPT_ARG_NONE, &x.test, 0, "say what would be done, write nothing",
		  NULL },
		CLI_OPT_PROGRESS(progress),
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	x.cmd = cmd;
	x.pool = args[0];
	if (!x.data && !x.missing_mode && !x.size)
		rc = cli_usage_error(cmd, "--data DEV names the data device to take away, "
					  "--missing takes the missing ones, --size SIZE shrinks the "
					  "data area");
	else if (!!x.data + !!x.missing_mode + !!x.size > 1)
		rc = cli_usage_error(cmd, "--data DEV, --missing and --size SIZE do not go "
					  "together");
	else if (x.force && !x.missing_mode)
		rc = cli_usage_error(cmd, "--force goes with --missing");
	else if (progress && !x.size)
		rc = cli_usage_error(cmd, "--progress goes with --size");
	if (rc == CLI_CONTINUE)
		rc = cli_device_kind(cmd, "--data", x.data);
	if (rc == CLI_CONTINUE && x.size) {
		rc = cli_size(cmd, "--size", x.size, 'm', &x.shrink.size);
		if (rc == CLI_CONTINUE && !x.shrink.size)
			rc = cli_usage_error(cmd, "--size must be above 0");
		if (rc == CLI_CONTINUE)
			rc = cli_progress(cmd, progress, &x.mode);
		x.shrink.test = x.test;
	}
	if (rc == CLI_CONTINUE && x.size)
		rc = tool_pool_op_flags(args[0], devices, x.test ? POOL_RDONLY : 0, shrink_op, &x);
	else if (rc == CLI_CONTINUE && x.missing_mode)
		rc = tool_pool_op_flags(args[0], devices,
					POOL_DATA_MISSING_OK | (x.test ? POOL_RDONLY : 0), missing_op,
					&x);
	else if (rc == CLI_CONTINUE)
		rc = tool_pool_op_flags(args[0], devices, x.test ? POOL_RDONLY : 0, reduce_op, &x);
	cli_end(&cli);
	return rc;
}
