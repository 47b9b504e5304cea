/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tprmap.c - which thin volume and virtual block map each data block of a
 * range (thin_rmap's output).
 *
 *   tprmap --region BEGIN..END [--region ...] [--metadata-snap] [--shared-once]
 *          [--names] [--offset BYTES] [--size BYTES] [--devices DATA,META] METADATA
 *
 * METADATA as tpdump's: a metadata file or device (the area at --offset in
 * it), or a pool's name (its active thin metadata, offline). One line per
 * run: "data B..E -> thin(ID) V..W", as thin_rmap prints it; --names adds
 * a pool volume's name. Exit: 0, 3 bad command line, 5 unreadable or
 * damaged metadata, no metadata snapshot, or an output error. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool_dump.h"
#include "lib/pool/pool_rmap.h"
#include "tools/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "BEGIN..END", decimal, END > BEGIN (thin_rmap's block range). */
static int parse_region(const struct tp_command *cmd, const char *s, struct pool_rmap_region *r)
{
	const char *dots = strstr(s, "..");
	char *end;

	if (!dots || dots == s || !dots[2] || strchr(s, '-') || strchr(s, '+') || strchr(s, ' '))
		goto bad;
	errno = 0;
	r->begin = strtoull(s, &end, 10);
	if (errno || end != dots)
		goto bad;
	r->end = strtoull(dots + 2, &end, 10);
	if (errno || *end)
		goto bad;
	if (r->end <= r->begin)
		return cli_usage_error(cmd, "invalid --region '%s': the end must be above the "
					    "beginning (BEGIN..END, END not included)", s);
	return CLI_CONTINUE;
bad:
	return cli_usage_error(cmd, "invalid --region '%s': use BEGIN..END, data blocks from "
				    "BEGIN up to END (not included), e.g. 5..45", s);
}

static int print_runs(const struct pool_rmap *m, int names)
{
	int bad;

	for (size_t i = 0; i < m->nr; i++) {
		const struct pool_rmap_run *r = &m->runs[i];
		printf("data %" PRIu64 "..%" PRIu64 " -> thin(%" PRIu64 ") %" PRIu64 "..%" PRIu64,
		       r->data_begin, r->data_end, r->dev_id, r->thin_begin,
		       r->thin_begin + (r->data_end - r->data_begin));
		if (names)
			printf(" %s", r->volume ? r->volume : "-");
		putchar('\n');
	}
	bad = ferror(stdout);
	if (fflush(stdout) || bad) {
		log_error("writing the output failed");
		return TP_EXIT_FAILED;
	}
	return TP_EXIT_OK;
}

static void free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int cmd_tprmap(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_rmap_params p = { 0 };
	struct pool_rmap_region *regions = NULL;
	struct cli_area area = { 0 };
	struct pool_rmap m = { 0 };
	char **region_s = NULL;
	const char *devices = NULL, **args;
	int names = 0;
	const struct poptOption opts[] = {
		{ "region", '\0', POPT_ARG_ARGV, &region_s, 0,
		  "data blocks BEGIN up to END (not included); may be given more than once",
		  "BEGIN..END" },
		{ "metadata-snap", 'm', POPT_ARG_NONE, &p.metadata_snap, 0,
		  "read the held metadata snapshot instead of the live metadata", NULL },
		{ "shared-once", '\0', POPT_ARG_NONE, &p.shared_once, 0,
		  "read each shared mapping-tree node once, as thin_rmap does (a block shared "
		  "through it is listed for the first volume only)", NULL },
		{ "names", '\0', POPT_ARG_NONE, &names, 0,
		  "with a POOL: add each volume's name to its lines", NULL },
		CLI_OPT_AREA(area, "", "METADATA"),
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};
	struct cli cli;
	size_t n = 0;
	int nargs, code, pool;

	code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs);
	if (code != CLI_CONTINUE) {
		free_strings(region_s);
		return code;
	}
	pool = pool_dump_source_is_pool(args[0]);
	while (region_s && region_s[n])
		n++;
	if (!n)
		code = cli_usage_error(cmd, "name the data blocks with --region BEGIN..END");
	else if (!(regions = calloc(n, sizeof(*regions))))
		code = TP_EXIT_FAILED;
	for (size_t i = 0; code == CLI_CONTINUE && i < n; i++)
		code = parse_region(cmd, region_s[i], &regions[i]);
	if (code == CLI_CONTINUE)
		code = cli_area(cmd, &area, !pool,
				"--offset and --size are for a metadata file or device, not a pool");
	if (code == CLI_CONTINUE && !pool && devices)
		code = cli_usage_error(cmd, "--devices is for a POOL, not a metadata file or device");
	if (code == CLI_CONTINUE && !pool && names)
		code = cli_usage_error(cmd, "--names is for a POOL: a metadata file or device "
					    "knows thin device ids only");
	if (code == CLI_CONTINUE) {
		p.source = args[0];
		p.devices = devices;
		p.offset = area.offset;
		p.size = area.size;
		p.regions = regions;
		p.nr_regions = n;
		code = tp_exit_from_errno(pool_rmap(&p, &m));
		if (code == TP_EXIT_OK)
			code = print_runs(&m, names);
		pool_rmap_free(&m);
	}
	free(regions);
	free_strings(region_s);
	cli_end(&cli);
	return code;
}
