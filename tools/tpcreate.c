/* tpcreate - create a pool on a data device and a metadata device. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>

/* auto|SIZE; a bare number is in UNIT (k for --chunk, m for
 * --metadata-size, as LVM reads --chunksize and --poolmetadatasize). */
static int parse_auto_size(const struct tp_command *cmd, const char *opt, const char *val,
			   char unit, uint64_t *out)
{
	*out = 0;
	if (!val || !strcmp(val, "auto"))
		return CLI_CONTINUE;
	if (cli_size(cmd, opt, val, unit, out) != CLI_CONTINUE)
		return TP_EXIT_USAGE;
	if (!*out)
		return cli_usage_error(cmd, "%s must be greater than 0 (or auto)", opt);
	return CLI_CONTINUE;
}

static void explain(const struct pool_create_params *p, const struct pool_create_plan *plan)
{
	const struct tp_policy_plan *pol = &plan->policy;
	char a[32], b[32], c[32], topo[256];

	printf("Geometry of %s: %s\n", p->data_path,
	       tp_topology_describe(&plan->topo, topo, sizeof(topo)));
	printf("  stripe:      %s\n", plan->stripe_reason);
	printf("  chunk:       %s\n               %s\n",
	       tp_size_format(pol->chunk.chunk, 'h', a, sizeof(a)), pol->chunk.reason);
	printf("  zeroing:     %s\n               %s\n", pol->zero.zero ? "on" : "off",
	       pol->zero.reason);
	printf("  data offset: %s\n               %s\n",
	       tp_size_format(pol->data_offset.offset, 'h', a, sizeof(a)), pol->data_offset.reason);
	printf("  data area:   %s = %llu chunks\n",
	       tp_size_format(plan->data_area_size, 'h', a, sizeof(a)),
	       (unsigned long long)pol->data_blocks);
	printf("  metadata:    %s per area (estimate %s); active area at %s, spare at %s\n"
	       "               %s\n",
	       tp_size_format(pol->meta.size, 'h', a, sizeof(a)),
	       tp_size_format(pol->meta.estimate, 'h', b, sizeof(b)),
	       tp_size_format(pol->meta.active_offset, 'h', c, sizeof(c)),
	       tp_size_format(pol->meta.spare_offset, 'h', topo, sizeof(topo)), pol->meta.reason);
	printf("  snapshots:   the first write to a chunk shared with a snapshot copies the whole "
	       "%s chunk;\n               volumes snapshotted often under small random writes may "
	       "prefer a smaller --chunk\n",
	       tp_size_format(pol->chunk.chunk, 'h', a, sizeof(a)));
	if (p->discards_set)
		printf("  discards:    %s (as given)\n",
		       p->discards == VG_DISCARDS_IGNORE ? "ignore"
		       : p->discards == VG_DISCARDS_PASSDOWN ? "passdown" : "nopassdown");
	else
		printf("  discards:    %s\n               %s\n",
		       pol->discards.passdown ? "passdown" : "nopassdown", pol->discards.reason);
}

int cmd_tpcreate(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *data = NULL, *meta = NULL, *chunk = NULL, *zero = NULL, *msize = NULL;
	const char *discards = NULL, *when_full = NULL;
	int do_explain = 0, force = 0, rc, nargs;
	const char **args;
	struct pool_create_params p;
	struct pool_create_plan plan;
	char a[32], b[32];
	struct cli cli;
	const struct poptOption opts[] = {
		{ "data", 'd', POPT_ARG_STRING, &data, 0, "data device (e.g. /dev/md0)", "DEV" },
		{ "meta", 'm', POPT_ARG_STRING, &meta, 0, "metadata device", "DEV" },
		{ "chunk", 'c', POPT_ARG_STRING, &chunk, 0,
		  "data chunk size: auto (fitted to the RAID stripe) or SIZE (default auto)",
		  "auto|SIZE" },
		{ "zero", 'Z', POPT_ARG_STRING, &zero, 0,
		  "zero newly provisioned chunks (default auto: off for chunks >= 512K)", "auto|y|n" },
		{ "metadata-size", '\0', POPT_ARG_STRING, &msize, 0,
		  "size of one thin-metadata area (default auto)", "auto|SIZE" },
		{ "discards", '\0', POPT_ARG_STRING, &discards, 0,
		  "discard handling (default: passdown when the device supports it)",
		  "ignore|nopassdown|passdown" },
		{ "when-full", '\0', POPT_ARG_STRING, &when_full, 0,
		  "when the pool is full: queue writes or fail them (default queue)", "queue|error" },
		{ "explain", 'e', POPT_ARG_NONE, &do_explain, 0,
		  "print every geometry decision and its reason", NULL },
		{ "force", 'f', POPT_ARG_NONE, &force, 0,
		  "overwrite devices that carry a filesystem, RAID, LVM or tptools signature", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_begin(&cli, cmd, opts, argc, argv)) != CLI_CONTINUE)
		return rc;
	rc = cli_args(&cli, 1, 1, &args, &nargs);
	if (rc != CLI_CONTINUE)
		goto out;
	memset(&p, 0, sizeof(p));
	p.name = args[0];
	p.data_path = data;
	p.meta_path = meta;
	p.force = force;
	if (!data || !meta) {
		rc = cli_usage_error(cmd, "both --data DEV and --meta DEV are required");
		goto out;
	}
	if ((rc = parse_auto_size(cmd, "--chunk", chunk, 'k', &p.chunk)) != CLI_CONTINUE ||
	    (rc = parse_auto_size(cmd, "--metadata-size", msize, 'm', &p.metadata_size)) != CLI_CONTINUE)
		goto out;
	if (zero && tp_choice_parse(zero, &p.zero)) {
		rc = cli_usage_error(cmd, "--zero takes auto, y or n, not '%s'", zero);
		goto out;
	}
	if (discards) {
		p.discards_set = 1;
		if (!strcmp(discards, "ignore"))
			p.discards = VG_DISCARDS_IGNORE;
		else if (!strcmp(discards, "nopassdown"))
			p.discards = VG_DISCARDS_NOPASSDOWN;
		else if (!strcmp(discards, "passdown"))
			p.discards = VG_DISCARDS_PASSDOWN;
		else {
			rc = cli_usage_error(cmd, "--discards takes ignore, nopassdown or passdown");
			goto out;
		}
	}
	if (when_full && strcmp(when_full, "queue") && strcmp(when_full, "error")) {
		rc = cli_usage_error(cmd, "--when-full takes queue or error, not '%s'", when_full);
		goto out;
	}
	p.when_full = when_full && !strcmp(when_full, "error") ? VG_WHEN_FULL_ERROR
							       : VG_WHEN_FULL_QUEUE;
	rc = pool_plan(&p, &plan);
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (plan.policy.chunk.warning)
		log_warn("%s", plan.policy.chunk.reason);
	if (plan.policy.meta.warning)
		log_warn("%s", plan.policy.meta.reason);
	if (do_explain)
		explain(&p, &plan);
	if (plan.nr_signatures &&
	    !cli_confirm("Overwrite %s%s%s%s%s (all data on them is lost)?",
			 plan.signatures[0][0] ? p.data_path : "",
			 plan.signatures[0][0] ? " (" : "", plan.signatures[0],
			 plan.signatures[0][0] ? ") " : "", plan.signatures[1][0] ? p.meta_path : "")) {
		log_error("pool %s not created", p.name);
		rc = TP_EXIT_FAILED;
		goto out;
	}
	rc = pool_create(&p, &plan);
	if (rc) {
		rc = tp_exit_from_errno(rc);
		goto out;
	}
	if (tp_log_verbosity() >= 0)
		printf("Pool %s created: %s of data in %llu chunks of %s on %s, zeroing %s; "
		       "metadata on %s.\n",
		       p.name, tp_size_format(plan.data_area_size, 'h', a, sizeof(a)),
		       (unsigned long long)plan.policy.data_blocks,
		       tp_size_format(plan.policy.chunk.chunk, 'h', b, sizeof(b)), p.data_path,
		       plan.policy.zero.zero ? "on" : "off", p.meta_path);
	rc = TP_EXIT_OK;
out:
	cli_end(&cli);
	return rc;
}
