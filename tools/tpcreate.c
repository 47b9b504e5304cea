/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * --metadata-size, as LVM reads --chunksize and --poolmetadatasize), in
 * the range the policy takes (the same checks refuse create/chunk and
 * create/metadata_size in tptools.conf: config_keys.c). */
static int parse_auto_size(const struct tp_command *cmd, const char *opt, const char *val,
			   char unit, uint64_t *out)
{
	char why[256];

	*out = 0;
	if (!val || !strcmp(val, "auto"))
		return CLI_CONTINUE;
	if (cli_size(cmd, opt, val, unit, out) != CLI_CONTINUE)
		return TP_EXIT_USAGE;
	if (!*out)
		return cli_usage_error(cmd, "%s must be greater than 0 (or auto)", opt);
	if (unit == 'k' ? tp_policy_chunk_valid(opt, *out, why, sizeof(why))
			: tp_policy_meta_size_valid(opt, *out, why, sizeof(why)))
		return cli_usage_error(cmd, "%s", why);
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
	printf("  VG area:     %s at the start of every device (label and VG metadata): "
	       "%s of VG text per copy: %llu volumes of the largest text, about %llu of the "
	       "average\n               %s\n",
	       tp_size_format(plan->vg_area, 'h', a, sizeof(a)),
	       tp_size_format(plan->vg_area_text, 'h', b, sizeof(b)),
	       (unsigned long long)pool_vg_area_volumes(plan->vg_area_text, 1),
	       (unsigned long long)pool_vg_area_volumes(plan->vg_area_text, 0),
	       plan->vg_area_reason);
	printf("  data offset: %s\n               %s\n",
	       tp_size_format(pol->data_offset.offset, 'h', a, sizeof(a)), pol->data_offset.reason);
	printf("  data area:   %s = %llu chunk%s\n",
	       tp_size_format(plan->data_area_size, 'h', a, sizeof(a)),
	       (unsigned long long)pol->data_blocks, tp_plural(pol->data_blocks));
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

/* tpcreate --test: what a create would write, in exact figures (each the
 * value tpstatus then reports: pool_chunk, pool_data_offset, pool_size,
 * pool_meta_offset, pool_meta_length, pool_spare_offset), and the
 * metadata-size arithmetic; nothing is written. */
static void test_report(const struct pool_create_params *p, const struct pool_create_plan *plan,
			const char *monitor)
{
	const struct tp_policy_plan *pol = &plan->policy;
	uint64_t chunk = pol->chunk.chunk, n = (plan->data_area_size + chunk - 1) / chunk;
	uint64_t raw = n * TP_META_BYTES_PER_CHUNK + TP_META_FIXED;
	uint64_t rounded = (raw + TP_META_BLOCK - 1) / TP_META_BLOCK * TP_META_BLOCK;
	char a[32];

	printf("Test mode: nothing was written. Without --test, tpcreate would write:\n");
	printf("  pool:            %s, profile %s, zeroing %s, discards %s, when full %s, "
	       "activate %s\n", p->name, p->chunk ? "custom" : tp_profile_name(p->profile),
	       pol->zero.zero ? "on" : "off",
	       p->discards_set ? (p->discards == POOL_DISCARDS_IGNORE ? "ignore"
				  : p->discards == POOL_DISCARDS_PASSDOWN ? "passdown" : "nopassdown")
			       : pol->discards.passdown ? "passdown" : "nopassdown",
	       p->when_full == POOL_WHEN_FULL_ERROR ? "error" : "queue",
	       p->no_autoactivate ? "n" : "y");
	printf("  chunk:           %llu bytes\n", (unsigned long long)chunk);
	printf("  VG area:         %llu bytes at the start of every device (--vg-area): two "
	       "copies of up to %llu bytes of VG text\n", (unsigned long long)plan->vg_area,
	       (unsigned long long)plan->vg_area_text);
	printf("  data device:     %s, %llu bytes; label and VG area at %llu (%llu bytes)\n",
	       p->data_path, (unsigned long long)plan->data_dev_size,
	       (unsigned long long)plan->mda_offset, (unsigned long long)plan->mda_size);
	printf("  data area:       offset %llu, %llu bytes = %llu chunks (%llu bytes of the "
	       "device after it unused)\n", (unsigned long long)pol->data_offset.offset,
	       (unsigned long long)plan->data_area_size, (unsigned long long)pol->data_blocks,
	       (unsigned long long)(plan->data_dev_size - pol->data_offset.offset -
				    plan->data_area_size));
	printf("  metadata device: %s, %llu bytes; label and VG area at %llu (%llu bytes)\n",
	       p->meta_path, (unsigned long long)plan->meta_dev_size,
	       (unsigned long long)plan->mda_offset, (unsigned long long)plan->mda_size);
	printf("  metadata areas:  active at %llu, spare at %llu, %llu bytes each\n",
	       (unsigned long long)pol->meta.active_offset,
	       (unsigned long long)pol->meta.spare_offset, (unsigned long long)pol->meta.size);
	printf("  metadata size:   estimate = %llu chunks x %llu bytes + %llu = %llu bytes, "
	       "rounded up to %llu-byte blocks = %llu, at least %llu: %llu bytes (%s); area %s\n",
	       (unsigned long long)n, (unsigned long long)TP_META_BYTES_PER_CHUNK,
	       (unsigned long long)TP_META_FIXED, (unsigned long long)raw,
	       (unsigned long long)TP_META_BLOCK, (unsigned long long)rounded,
	       (unsigned long long)TP_META_MIN, (unsigned long long)pol->meta.estimate,
	       tp_size_format(pol->meta.estimate, 'h', a, sizeof(a)),
	       p->metadata_size ? "as --metadata-size asked"
				: "all the metadata device offers for two areas");
	printf("  thin metadata:   formatted in the active area (%llu data blocks), the first "
	       "block of the spare area zeroed\n", (unsigned long long)pol->data_blocks);
	if (p->meta1_path)
		printf("  mirror:          the areas alike on %s; the raid metadata behind the VG "
		       "area%s\n", p->meta1_path,
		       plan->integrity_size ? "" : "; no integrity (--meta-integrity n)");
	if (plan->integrity_size)
		printf("  integrity:       dm-integrity metadata at %llu on both metadata devices, "
		       "2 regions of %llu bytes (thin-metadata areas up to %llu bytes)\n",
		       (unsigned long long)plan->integrity_offset,
		       (unsigned long long)plan->integrity_size,
		       (unsigned long long)plan->integrity_cover);
	if (p->shared)
		printf("  lease area:      sanlock, at %llu on the metadata device (%u bytes), "
		       "io_timeout %u s: written through this host's sanlock daemon\n",
		       (unsigned long long)plan->lease_offset, POOL_LEASE_AREA_BYTES, p->io_timeout);
	printf("  monitoring:      %s\n", monitor);
	if (p->max_overprovision)
		printf("  over-provision:  at most %u.%02u x the data size = %llu bytes of volumes\n",
		       p->max_overprovision / 100, p->max_overprovision % 100,
		       (unsigned long long)((unsigned __int128)plan->data_area_size *
					    p->max_overprovision / 100));
	else
		printf("  over-provision:  unlimited\n");
	{
		char keep[24];

		printf("  trash retention: %s\n",
		       tp_duration_format(p->trash_retention, keep, sizeof(keep)));
	}
	if (plan->nr_signatures)
		printf("  signatures:      erased first (--force): %s%s%s%s%s\n", plan->signatures[0],
		       plan->signatures[0][0] && plan->signatures[1][0] ? "; " : "",
		       plan->signatures[1],
		       (plan->signatures[0][0] || plan->signatures[1][0]) && plan->signatures[2][0]
			       ? "; " : "", plan->signatures[2]);
	printf("  devices file:    %s and %s recorded as pool %s; a VG backup written\n",
	       p->data_path, p->meta_path, p->name);
}

/* A default tptools.conf gave (an option not given). */
struct from_config {
	const char *opt, *key, *val;
	char where[4096];
};

/* The option values as given, before parsing, and which of them are the
 * configuration file's. */
struct tpcreate_args {
	const char *chunk, *profile, *zero, *msize, *discards, *when_full, *activate;
	const char *overprovision, *integrity, *trash, *vg_area;
	struct monitor_args monitor;
	struct from_config conf[13];
	unsigned nconf;
};

static int parse_args(const struct tp_command *cmd, const struct tpcreate_args *a,
		      struct pool_create_params *p, struct pool_monitor_policy *m)
{
	static const char *const discards[] = { "ignore", "nopassdown", "passdown" };
	int rc, given;

	if (!p->data_path || !p->meta_path)
		return cli_usage_error(cmd, "both --data DEV and --meta DEV are required");
	/* --meta DEV1,DEV2: mirrored thin metadata (the option's own string
	 * is split in place: popt's, freed as it was given) */
	if (strchr(p->meta_path, ',')) {
		char *comma = strchr(p->meta_path, ',');

		if (comma == p->meta_path || !comma[1] || strchr(comma + 1, ','))
			return cli_usage_error(cmd, "--meta takes DEV or DEV1,DEV2 (a mirror), not "
						    "'%s'", p->meta_path);
		*comma = '\0';
		p->meta1_path = comma + 1;
	}
	/* a device the filter refuses: one line, before any probe */
	if ((rc = cli_device_kind(cmd, "--data", p->data_path)) != CLI_CONTINUE ||
	    (rc = cli_device_kind(cmd, "--meta", p->meta_path)) != CLI_CONTINUE ||
	    (rc = cli_device_kind(cmd, "--meta", p->meta1_path)) != CLI_CONTINUE)
		return rc;
	p->meta_integrity = 1;
	if (a->integrity &&
	    (rc = cli_parse_yes_no(cmd, "--meta-integrity", a->integrity, &p->meta_integrity)) !=
		    CLI_CONTINUE)
		return rc;
	if (a->integrity && p->meta_integrity && !p->meta1_path)
		return cli_usage_error(cmd, "--meta-integrity y goes with mirrored thin metadata "
					    "(--meta DEV1,DEV2)");
	if ((rc = parse_auto_size(cmd, "--chunk", a->chunk, 'k', &p->chunk)) != CLI_CONTINUE ||
	    (rc = parse_auto_size(cmd, "--metadata-size", a->msize, 'm', &p->metadata_size)) !=
		    CLI_CONTINUE)
		return rc;
	/* --vg-area: its bounds are checked by pool_plan (they depend on a
	 * mirror) */
	if (a->vg_area && strcmp(a->vg_area, "auto") &&
	    ((rc = cli_size(cmd, "--vg-area", a->vg_area, 'm', &p->vg_area)) != CLI_CONTINUE ||
	     (!p->vg_area && (rc = cli_usage_error(cmd, "--vg-area must be greater than 0 (or "
							 "auto)")) != CLI_CONTINUE)))
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
	if (a->overprovision && overprovision_parse(a->overprovision, &p->max_overprovision))
		return cli_usage_error(cmd, "--max-overprovision takes a ratio greater than 0 with "
					    "at most two decimals (1 = no over-provisioning) or none, "
					    "not '%s'", a->overprovision);
	if (a->trash) {
		char why[128];

		if (tp_duration_parse(a->trash, &p->trash_retention, why, sizeof(why)))
			return cli_usage_error(cmd, "--trash-retention takes a duration (12h, 7d: s, "
						    "m, h, d or w) or off, not '%s': %s", a->trash,
					       why);
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
		{ "create/autoextend_max", "--autoextend-max", &a->monitor.max },
		{ "create/max_overprovision", "--max-overprovision", &a->overprovision },
		{ "create/trash_retention", "--trash-retention", &a->trash },
	};

	for (unsigned i = 0; i < TP_ARRAY_SIZE(map) && a->nconf < TP_ARRAY_SIZE(a->conf); i++) {
		struct from_config *c = &a->conf[a->nconf];

		if (*map[i].val || !tp_config_is_set(map[i].key))
			continue;
		*map[i].val = tp_config_str(map[i].key);
		*c = (struct from_config){ map[i].opt, map[i].key, *map[i].val, "" };
		tp_config_where(map[i].key, c->where, sizeof(c->where));
		a->nconf++;
		if (explain)
			printf("Default %s %s from %s (%s)\n", map[i].opt, *map[i].val, map[i].key,
			       c->where);
		else
			log_info("%s %s: %s in %s", map[i].opt, *map[i].val, map[i].key, c->where);
	}
}

/* After a refused plan: the geometry defaults the file gave, which the
 * message named as options the command line did not give. */
static void blame_config(const struct tpcreate_args *a)
{
	static const char *const geometry[] = { "--chunk", "--metadata-size", "--profile",
						"--zero" };

	for (unsigned i = 0; i < a->nconf; i++)
		for (unsigned j = 0; j < TP_ARRAY_SIZE(geometry); j++)
			if (!strcmp(a->conf[i].opt, geometry[j]))
				log_error("%s %s was not given: it is %s in %s, the default of "
					  "tptools.conf(5); mend it there or give %s", a->conf[i].opt,
					  a->conf[i].val, a->conf[i].key, a->conf[i].where,
					  a->conf[i].opt);
}

/* Plan, explain, ask about signatures, create, print; with TEST, plan,
 * explain and say what would be written, and stop. */
static int create(const struct pool_create_params *p, const struct tpcreate_args *args,
		  int do_explain, int test)
{
	struct pool_create_plan plan;
	char a[32], b[32];
	int r = pool_plan(p, &plan);

	if (r) {
		blame_config(args);
		return tp_exit_from_errno(r);
	}
	if (plan.policy.chunk.warning)
		log_warn("%s", plan.policy.chunk.reason);
	if (plan.policy.meta.warning)
		log_warn("%s", plan.policy.meta.reason);
	if (do_explain || test)
		explain(p, &plan);
	if (test) {
		char policy[200];
		struct pool_monitor_policy m;

		if (p->monitor)
			m = *p->monitor;
		else
			pool_monitor_policy_default(&m);
		monitor_policy_format(&m, policy, sizeof(policy));
		test_report(p, &plan, policy);
		return TP_EXIT_OK;
	}
	if (plan.nr_signatures &&
	    !cli_confirm("Overwrite %s%s%s%s%s%s%s (all data on them is lost)?",
			 plan.signatures[0][0] ? p->data_path : "",
			 plan.signatures[0][0] ? " (" : "", plan.signatures[0],
			 plan.signatures[0][0] ? ") " : "", plan.signatures[1][0] ? p->meta_path : "",
			 plan.signatures[1][0] && plan.signatures[2][0] ? " " : "",
			 plan.signatures[2][0] && p->meta1_path ? p->meta1_path : "")) {
		log_error("pool %s not created", p->name);
		return TP_EXIT_FAILED;
	}
	r = pool_create(p, &plan);
	if (r)
		return tp_exit_from_errno(r);
	if (tp_log_verbosity() >= 0)
		printf("Pool %s created: %s of data in %llu chunk%s of %s on %s, zeroing %s "
		       "(profile %s); metadata on %s%s%s.\n",
		       p->name, tp_size_format(plan.data_area_size, 'h', a, sizeof(a)),
		       (unsigned long long)plan.policy.data_blocks,
		       tp_plural(plan.policy.data_blocks),
		       tp_size_format(plan.policy.chunk.chunk, 'h', b, sizeof(b)), p->data_path,
		       plan.policy.zero.zero ? "on" : "off",
		       p->chunk ? "custom" : tp_profile_name(p->profile), p->meta_path,
		       p->meta1_path ? ", mirrored on " : "", p->meta1_path ? p->meta1_path : "");
	return TP_EXIT_OK;
}

int cmd_tpcreate(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_create_params p = { 0 };
	struct tpcreate_args a = { 0 };
	struct pool_monitor_policy monitor;
	int do_explain = 0, test = 0, rc, nargs;
	const char **args, *lock_type = NULL;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "data", 'd', POPT_ARG_STRING, &p.data_path, 0, "data device (e.g. /dev/md0)", "DEV" },
		{ "meta", 'm', POPT_ARG_STRING, &p.meta_path, 0,
		  "metadata device, or two: the thin metadata mirrored onto both", "DEV[,DEV2]" },
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
		{ "max-overprovision", '\0', POPT_ARG_STRING, &a.overprovision, 0,
		  OVERPROVISION_HELP, "RATIO|none" },
		{ "trash-retention", '\0', POPT_ARG_STRING, &a.trash, 0,
		  "how long tvremove keeps a removed volume in the pool's trash (default off: it "
		  "removes at once)", "DURATION|off" },
		{ "vg-area", '\0', POPT_ARG_STRING, &a.vg_area, 0,
		  "room for the label and VG metadata at the start of every device: auto (1 MiB "
		  "on devices up to 1 GiB, above 1/64 of the smallest, up to 71 MiB: 100000 "
		  "volumes) or SIZE (default auto)", "auto|SIZE" },
		{ "meta-integrity", '\0', POPT_ARG_STRING, &a.integrity, 0,
		  "with --meta DEV1,DEV2: dm-integrity under each leg of the kernel's raid1, so a "
		  "leg's bit flip is read from the other (default y)", "y|n" },
		{ "lock-type", '\0', POPT_ARG_STRING, &lock_type, 0,
		  "sanlock: a pool on shared storage, written by one host at a time (a sanlock "
		  "lease on the metadata device; default none)", "none|sanlock" },
		{ "explain", 'e', POPT_ARG_NONE, &do_explain, 0,
		  "print every geometry decision and its reason", NULL },
		{ "test", 't', POPT_ARG_NONE, &test, 0,
		  "dry run: check the devices, print every decision (as --explain) and what would "
		  "be written, write nothing", NULL },
		{ "force", 'f', POPT_ARG_NONE, &p.force, 0,
		  "overwrite devices that carry a filesystem, RAID, LVM or tptools signature", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	p.name = args[0];
	config_defaults(&a, do_explain || test);
	rc = parse_args(cmd, &a, &p, &monitor);
	if (rc == CLI_CONTINUE && lock_type && strcmp(lock_type, "none") &&
	    strcmp(lock_type, "sanlock"))
		rc = cli_usage_error(cmd, "--lock-type takes none or sanlock, not '%s'", lock_type);
	p.shared = lock_type && !strcmp(lock_type, "sanlock");
	p.io_timeout = (unsigned)tp_config_int("global/sanlock_io_timeout");
	if (rc == CLI_CONTINUE)
		rc = create(&p, &a, do_explain, test);
	cli_end(&cli);
	return rc;
}
