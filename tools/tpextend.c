/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpextend - grow a pool's data area to its last data device's current
 * size (an md array grown, a LUN resized, an image file made larger), by
 * another data device (--data), or its thin-metadata areas
 * (--metadata-size). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_admin.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct extend {
	int explain, test, force;
	const char *data;
	struct pool_extend_data_params dparams;
	struct pool_extend_data_result dres;
	struct pool_extend_params params;
	struct pool_extend_result res;
};

static void explain(const char *pool, const struct pool_extend_result *res)
{
	char a[32], b[32];

	printf("Geometry of pool %s's data device: %s\n", pool,
	       res->topo_desc[0] ? res->topo_desc : "unknown");
	printf("  device:      %s\n", tp_size_format(res->data_dev_size, 'h', a, sizeof(a)));
	printf("  chunk:       %s; the data area ends on a whole chunk\n",
	       tp_size_format(res->chunk, 'h', b, sizeof(b)));
	printf("  stripe:      %s\n",
	       res->stripe_changed ? res->stripe : "the chunk is still a whole number of stripes "
						   "(or the device reports none)");
}

static int extend_op(struct pool *p, void *arg)
{
	struct extend *x = arg;
	char a[32], b[32];
	int r = pool_extend(p, &x->params, &x->res);

	if (x->explain)
		explain(pool_name(p), &x->res);
	else if (x->res.stripe_changed)
		log_warn("pool %s: the array's stripe changed; 'tpextend --explain %s' says what "
			 "it costs", pool_name(p), pool_name(p));
	if (r || tp_log_verbosity() < 0)
		return r;
	if (x->res.new_data_size != x->res.old_data_size)
		printf("Pool %s: data area grown from %s to %s (%llu chunks).\n", pool_name(p),
		       tp_size_format(x->res.old_data_size, 'h', a, sizeof(a)),
		       tp_size_format(x->res.new_data_size, 'h', b, sizeof(b)),
		       (unsigned long long)(x->res.new_data_size / x->res.chunk));
	if (x->res.new_meta_size != x->res.old_meta_size)
		printf("Pool %s: thin-metadata area grown from %s to %s (and its spare).\n",
		       pool_name(p), tp_size_format(x->res.old_meta_size, 'h', a, sizeof(a)),
		       tp_size_format(x->res.new_meta_size, 'h', b, sizeof(b)));
	return 0;
}

/* --data: every decision about the new device (--explain, --test) */
static void explain_data(const char *pool, const struct pool_extend_data_result *d)
{
	char a[32], b[32], c[32], m[32];

	printf("Pool %s: the new device becomes data device %u:\n", pool, d->index + 1);
	printf("  geometry:    %s\n", d->topo_desc[0] ? d->topo_desc : "unknown");
	printf("  device:      %s\n", tp_size_format_exact(d->dev_size, a, sizeof(a)));
	printf("  stripe:      %s%s\n", d->stripe_reason,
	       d->fits ? "" : " (refused without --force)");
	printf("  data area:   from byte %llu (%s; aligned to %s)\n",
	       (unsigned long long)d->offset, d->offset_reason,
	       tp_size_format(d->grid, 'h', b, sizeof(b)));
	printf("  range:       chunks %llu..%llu (%llu chunk%s of %s)\n",
	       (unsigned long long)d->first_chunk,
	       (unsigned long long)(d->first_chunk + d->chunks - (d->chunks ? 1 : 0)),
	       (unsigned long long)d->chunks, tp_plural(d->chunks),
	       tp_size_format(d->chunk, 'h', c, sizeof(c)));
	printf("  data area:   %s -> %s\n", tp_size_format(d->old_data_size, 'h', a, sizeof(a)),
	       tp_size_format(d->new_data_size, 'h', b, sizeof(b)));
	printf("  metadata:    %s estimated for %s of data in %s chunks; the active area has "
	       "%s%s\n", tp_size_format(d->meta_estimate, 'h', a, sizeof(a)),
	       tp_size_format(d->new_data_size, 'h', b, sizeof(b)),
	       tp_size_format(d->chunk, 'h', c, sizeof(c)),
	       tp_size_format(d->meta_size, 'h', m, sizeof(m)),
	       d->meta_estimate > d->meta_size ? " (grow it with --metadata-size)" : "");
}

static int extend_data_op(struct pool *p, void *arg)
{
	struct extend *x = arg;
	char a[32], b[32];
	int r = pool_extend_data(p, &x->dparams, &x->dres);

	if ((x->explain || x->test) && x->dres.chunk)
		explain_data(pool_name(p), &x->dres);
	if (r)
		return r;
	if (x->test) {
		printf("Test mode: nothing was written.\n");
		return 0;
	}
	if (tp_log_verbosity() >= 0)
		printf("Pool %s: data device %s added (data device %u, %llu chunk%s); data area "
		       "grown from %s to %s.\n", pool_name(p), x->data, x->dres.index + 1,
		       (unsigned long long)x->dres.chunks, tp_plural(x->dres.chunks),
		       tp_size_format(x->dres.old_data_size, 'h', a, sizeof(a)),
		       tp_size_format(x->dres.new_data_size, 'h', b, sizeof(b)));
	return 0;
}

int cmd_tpextend(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *meta = NULL, **args;
	struct extend x;
	int rc, nargs;
	struct cli cli;

	memset(&x, 0, sizeof(x));
	const struct poptOption opts[] = {
		{ "metadata-size", '\0', POPT_ARG_STRING, &meta, 0,
		  "grow the thin-metadata area and its spare to SIZE each (default unit MiB), or "
		  "to all the metadata device offers", "SIZE|auto" },
		{ "explain", 'e', POPT_ARG_NONE, &x.explain, 0,
		  "print the data device's geometry and what the chunk costs on it", NULL },
		{ "data", '\0', POPT_ARG_STRING, &x.data, 0,
		  "add DEV to the pool's data area, behind its last data device", "DEV" },
		{ "test", 't', POPT_ARG_NONE, &x.test, 0,
		  "print every decision (with --data) and write nothing", NULL },
		{ "force", 'f', POPT_ARG_NONE, &x.force, 0,
		  "with --data: take a device whose stripe the pool's chunk does not fit", NULL },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (meta) {
		x.params.metadata = 1;
		if (strcmp(meta, "auto") &&
		    cli_size(cmd, "--metadata-size", meta, 'm', &x.params.metadata_size) !=
			    CLI_CONTINUE)
			rc = TP_EXIT_USAGE;
		else if (strcmp(meta, "auto") && !x.params.metadata_size)
			rc = cli_usage_error(cmd, "--metadata-size must be greater than 0 (or auto)");
	}
	if (rc == CLI_CONTINUE && x.data && meta)
		rc = cli_usage_error(cmd, "--data and --metadata-size are separate steps: add the "
				     "device first, then grow the metadata");
	if (rc == CLI_CONTINUE && (x.test || x.force) && !x.data)
		rc = cli_usage_error(cmd, "--test and --force go with --data DEV");
	if (rc == CLI_CONTINUE)
		rc = cli_device_kind(cmd, "--data", x.data);
	if (rc == CLI_CONTINUE && x.data) {
		x.dparams.path = x.data;
		x.dparams.force = x.force;
		x.dparams.test = x.test;
		rc = tool_pool_op_flags(args[0], devices, x.test ? POOL_RDONLY : 0,
					extend_data_op, &x);
	} else if (rc == CLI_CONTINUE)
		rc = tool_pool_op(args[0], devices, extend_op, &x);
	cli_end(&cli);
	return rc;
}
