/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvsnap - snapshot a thin volume (O(1): the snapshot shares its origin's
 * mappings until either is written). On a pool's first snapshot with
 * large chunks it says what the first write to a shared chunk costs. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_names_dm.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>

/* Chunks from this size on make copies after a snapshot expensive: small
 * writes into still-shared chunks ran at 0.01-0.02 of raw with 512 KiB-
 * 2.5 MiB chunks, 0.13 with 64 KiB (README "Geometry policy"). */
#define COPY_NOTICE_FROM (512 * TP_KiB)

struct snapshot {
	const char *name;
	int readonly;
	int no_autoactivate;	/* --activate n */
	char pool[POOL_NAME_MAX + 1], origin[POOL_NAME_MAX + 1];
};

/* The chunk of P when this is its first snapshot (no volume records an
 * origin yet) and the chunk is large enough to say what copies cost; else 0. */
static uint64_t first_large_snapshot(struct pool *p)
{
	struct pool_info info;
	uint64_t chunk;

	if (pool_get_info(p, POOL_INFO_NO_VOLUMES, &info))
		return 0;
	chunk = info.chunk >= COPY_NOTICE_FROM ? info.chunk : 0;
	if (chunk && pool_volume_snapshots(p, NULL, NULL, 0))
		chunk = 0;
	pool_info_free(&info);
	return chunk;
}

static int snapshot_op(struct pool *p, void *arg)
{
	const struct snapshot *s = arg;
	uint64_t notice = tp_log_verbosity() >= 0 ? first_large_snapshot(p) : 0;
	/* the snapshot and its settings: one commit */
	int r = pool_volume_snapshot(p, s->origin, s->name,
				     (s->readonly ? POOL_VOLUME_READONLY : 0) |
					     (s->no_autoactivate ? POOL_VOLUME_NO_AUTOACTIVATE : 0));
	char c[32];

	if (r)
		return r;
	(void)pool_warn_if_full(p);
	if (tp_log_verbosity() < 0)
		return r;
	printf("Snapshot %s/%s of %s created%s%s.\n", s->pool, s->name, s->origin,
	       s->readonly ? ", read-only" : "", s->no_autoactivate ? ", activate n" : "");
	if (notice)
		printf("Note: pool %s has %s chunks: the first write to each chunk %s and %s share "
		       "copies the whole %s first, so small writes run 10-100x slower than raw "
		       "until the chunks are copied (64 KiB chunks: about 8x). Pools created with "
		       "--profile balanced (the default) get 64 KiB-class chunks. This note is "
		       "shown on a pool's first snapshot.\n",
		       s->pool, tp_size_format(notice, 'h', c, sizeof(c)), s->origin, s->name,
		       c);
	return r;
}

int cmd_tvsnap(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *activate = NULL, **args;
	struct snapshot s = { NULL, 0, 0, "", "" };
	int rc, nargs, on = 1;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "name", 'n', POPT_ARG_STRING, &s.name, 0, "snapshot name", "NAME" },
		{ "readonly", 'r', POPT_ARG_NONE, &s.readonly, 0,
		  "make the snapshot read-only (activated read-only; tvchange --readonly n undoes it)",
		  NULL },
		{ "activate", 'a', POPT_ARG_STRING, &activate, 0,
		  "activated with its pool by tpactivate --all and at boot (default y)", "y|n" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!s.name)
		rc = cli_usage_error(cmd, "-n NAME is required");
	else if (activate && cli_parse_activate(cmd, activate, &on) != CLI_CONTINUE)
		rc = TP_EXIT_USAGE;
	else if (pool_split_volume_spec(args[0], s.pool, s.origin) ||
		 pool_dm_vol_name_check(s.pool, s.name))
		rc = TP_EXIT_USAGE;
	else {
		s.no_autoactivate = !on;
		rc = tool_pool_op(s.pool, devices, snapshot_op, &s);
	}
	cli_end(&cli);
	return rc;
}
