/* tpcreate - create a pool on a data device and a metadata device. */
#include "lib/base/config.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"
#include "tools/monitor_opts.h"

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
	char a[32], b[32], c[32], d[32];

	printf("Geometry of %s: %s\n", p->data_path, plan->topo_desc);
	printf("  profile:     %s%s\n               %s\n", tp_profile_name(p->profile),
	       p->chunk ? " (for zeroing; --chunk sets the chunk: recorded as custom)" : "",
	       "Criterion: of the chunk and zeroing configurations measured (fresh writes, and "
	       "writes into chunks still shared with a snapshot), the default is the one whose "
	       "worst ratio to the best configuration of each workload is highest (README "
	       "\"Geometry policy\").");
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
	       tp_size_format(pol->meta.spare_offset, 'h', d, sizeof(d)), pol->meta.reason);
	printf("  snapshots:   the first write to a chunk shared with a snapshot copies the whole "
	       "%s chunk\n",
	       tp_size_format(pol->chunk.chunk, 'h', a, sizeof(a)));
	if (p->discards_set)
		printf("  discards:    %s (as given)\n",
		       p->discards == POOL_DISCARDS_IGNORE ? "ignore"
		       : p->discards == POOL_DISCARDS_PASSDOWN ? "passdown" : "nopassdown");
	else
		printf("  discards:    %s\n               %s\n",
		       pol->discards.passdown ? "passdown" : "nopassdown", pol->discards.reason);
}

/* The option values as given, before parsing. */
struct tpcreate_args {
	const char *chunk, *profile, *zero, *msize, *discards, *when_full, *activate;
	struct monitor_args monitor;
};

static int parse_args(const struct tp_command *cmd, const struct tpcreate_args *a,
		      struct pool_create_params *p, struct pool_monitor_policy *m)
{
	static const char *const discards[] = { "ignore", "nopassdown", "passdown" };
	int rc, given;

	if (!p->data_path || !p->meta_path)
		return cli_usage_error(cmd, "both --data DEV and --meta DEV are required");
	if ((rc = parse_auto_size(cmd, "--chunk", a->chunk, 'k', &p->chunk)) != CLI_CONTINUE ||
	    (rc = parse_auto_size(cmd, "--metadata-size", a->msize, 'm', &p->metadata_size)) !=
		    CLI_CONTINUE)
		return rc;
	if (a->profile && tp_profile_parse(a->profile, &p->profile))
		return cli_usage_error(cmd, "--profile takes balanced, throughput or snapshots, "
					    "not '%s'", a->profile);
	if (a->zero && tp_choice_parse(a->zero, &p->zero))
		return cli_usage_error(cmd, "--zero takes auto, y or n, not '%s'", a->zero);
	for (unsigned i = 0; a->discards && !p->discards_set && i < 3; i++)
		if (!strcmp(a->discards, discards[i])) {
			p->discards = (enum pool_discards)i;
			p->discards_set = 1;
		}
	if (a->discards && !p->discards_set)
		return cli_usage_error(cmd, "--discards takes ignore, nopassdown or passdown");
	if (a->when_full && strcmp(a->when_full, "queue") && strcmp(a->when_full, "error"))
		return cli_usage_error(cmd, "--when-full takes queue or error, not '%s'",
				       a->when_full);
	p->when_full = a->when_full && !strcmp(a->when_full, "error") ? POOL_WHEN_FULL_ERROR
								      : POOL_WHEN_FULL_QUEUE;
	if (a->activate) {
		int on;
		if ((rc = cli_parse_activate(cmd, a->activate, &on)) != CLI_CONTINUE)
			return rc;
		p->no_autoactivate = !on;
	}
	pool_monitor_policy_default(m);
	if ((rc = monitor_args_apply(cmd, &a->monitor, m, &given)) != CLI_CONTINUE)
		return rc;
	p->monitor = m;
	return CLI_CONTINUE;
}

/* The tpcreate defaults tptools.conf sets (create/...), for the options
 * not given: said with -v and by --explain, naming the file's line. */
static void config_defaults(struct tpcreate_args *a, int explain)
{
	struct {
		const char *key, *opt, **val;
	} map[] = {
		{ "create/chunk", "--chunk", &a->chunk },
		{ "create/profile", "--profile", &a->profile },
		{ "create/zero", "--zero", &a->zero },
		{ "create/metadata_size", "--metadata-size", &a->msize },
		{ "create/discards", "--discards", &a->discards },
		{ "create/when_full", "--when-full", &a->when_full },
		{ "create/activate", "--activate", &a->activate },
		{ "create/warn", "--warn", &a->monitor.warn },
		{ "create/autoextend_threshold", "--autoextend-threshold", &a->monitor.threshold },
		{ "create/autoextend_by", "--autoextend-by", &a->monitor.by },
	};
	char where[4096];

	for (unsigned i = 0; i < TP_ARRAY_SIZE(map); i++) {
		if (*map[i].val || !tp_config_is_set(map[i].key))
			continue;
		*map[i].val = tp_config_str(map[i].key);
		tp_config_where(map[i].key, where, sizeof(where));
		if (explain)
			printf("Default %s %s from %s (%s)\n", map[i].opt, *map[i].val, map[i].key,
			       where);
		else
			log_info("%s %s: %s in %s", map[i].opt, *map[i].val, map[i].key, where);
	}
}

/* Plan, explain, ask about signatures, create, print. */
static int create(const struct pool_create_params *p, int do_explain)
{
	struct pool_create_plan plan;
	char a[32], b[32];
	int r = pool_plan(p, &plan);

	if (r)
		return tp_exit_from_errno(r);
	if (plan.policy.chunk.warning)
		log_warn("%s", plan.policy.chunk.reason);
	if (plan.policy.meta.warning)
		log_warn("%s", plan.policy.meta.reason);
	if (do_explain)
		explain(p, &plan);
	if (plan.nr_signatures &&
	    !cli_confirm("Overwrite %s%s%s%s%s (all data on them is lost)?",
			 plan.signatures[0][0] ? p->data_path : "",
			 plan.signatures[0][0] ? " (" : "", plan.signatures[0],
			 plan.signatures[0][0] ? ") " : "", plan.signatures[1][0] ? p->meta_path : "")) {
		log_error("pool %s not created", p->name);
		return TP_EXIT_FAILED;
	}
	r = pool_create(p, &plan);
	if (r)
		return tp_exit_from_errno(r);
	if (tp_log_verbosity() >= 0)
		printf("Pool %s created: %s of data in %llu chunks of %s on %s, zeroing %s "
		       "(profile %s); metadata on %s.\n",
		       p->name, tp_size_format(plan.data_area_size, 'h', a, sizeof(a)),
		       (unsigned long long)plan.policy.data_blocks,
		       tp_size_format(plan.policy.chunk.chunk, 'h', b, sizeof(b)), p->data_path,
		       plan.policy.zero.zero ? "on" : "off",
		       p->chunk ? "custom" : tp_profile_name(p->profile), p->meta_path);
	return TP_EXIT_OK;
}

int cmd_tpcreate(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_create_params p = { 0 };
	struct tpcreate_args a = { 0 };
	struct pool_monitor_policy monitor;
	int do_explain = 0, rc, nargs;
	const char **args;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "data", 'd', POPT_ARG_STRING, &p.data_path, 0, "data device (e.g. /dev/md0)", "DEV" },
		{ "meta", 'm', POPT_ARG_STRING, &p.meta_path, 0, "metadata device", "DEV" },
		{ "chunk", 'c', POPT_ARG_STRING, &a.chunk, 0,
		  "data chunk size: auto (chosen by --profile within the RAID geometry) or SIZE "
		  "(default auto)",
		  "auto|SIZE" },
		{ "profile", 'P', POPT_ARG_STRING, &a.profile, 0,
		  "what auto chunk and zeroing aim at (default balanced)",
		  "balanced|throughput|snapshots" },
		{ "zero", 'Z', POPT_ARG_STRING, &a.zero, 0,
		  "zero newly provisioned chunks (default auto: on for --profile snapshots only)",
		  "auto|y|n" },
		{ "metadata-size", '\0', POPT_ARG_STRING, &a.msize, 0,
		  "size of one thin-metadata area (default auto)", "auto|SIZE" },
		{ "discards", '\0', POPT_ARG_STRING, &a.discards, 0,
		  "discard handling (default: passdown when the device supports it)",
		  "ignore|nopassdown|passdown" },
		{ "when-full", '\0', POPT_ARG_STRING, &a.when_full, 0,
		  "when the pool is full: queue writes or fail them (default queue)", "queue|error" },
		{ "activate", 'a', POPT_ARG_STRING, &a.activate, 0,
		  "activated at boot, by udev and by tpactivate --all (default y)", "y|n" },
		CLI_OPT_MONITOR(a.monitor),
		{ "explain", 'e', POPT_ARG_NONE, &do_explain, 0,
		  "print every geometry decision and its reason", NULL },
		{ "force", 'f', POPT_ARG_NONE, &p.force, 0,
		  "overwrite devices that carry a filesystem, RAID, LVM or tptools signature", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	p.name = args[0];
	config_defaults(&a, do_explain);
	rc = parse_args(cmd, &a, &p, &monitor);
	if (rc == CLI_CONTINUE)
		rc = create(&p, do_explain);
	cli_end(&cli);
	return rc;
}
