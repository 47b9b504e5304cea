/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpdump.c - print thin-pool metadata as thin_dump XML or for people.
 *
 *   tpdump [--format xml|human|pack] [--metadata-snap] [--dev-id ID]
 *          [--skip-mappings] [--offset BYTES] [--size BYTES] [-o FILE] METADATA
 *
 * METADATA is a file or block device holding dm-thin metadata, or the
 * area at --offset inside one (a pool device), or the name of a pool
 * (anything that is not an existing path and is a valid pool name): its
 * active thin-metadata area. --format pack writes thin_metadata_pack's file
 * of the whole area instead (metadata/pdata/pack.h). Exit: 0, 3 bad command line, 5 unreadable or
 * corrupt metadata or an output error. */
#include "lib/base/exitcodes.h"
#include "lib/pool/pool_dump.h"
#include "tools/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_format(const struct tp_command *cmd, const char *s, enum pool_dump_format *fmt)
{
	if (!s || !strcmp(s, "xml"))
		*fmt = POOL_DUMP_XML;
	else if (!strcmp(s, "human") || !strcmp(s, "human_readable"))
		*fmt = POOL_DUMP_HUMAN;
	else if (!strcmp(s, "pack"))
		*fmt = POOL_DUMP_PACK;
	else
		return cli_usage_error(cmd, "unknown format '%s': use xml, human or pack", s);
	return CLI_CONTINUE;
}

static int parse_dev_id(const struct tp_command *cmd, const char *s, struct pool_dump_params *d)
{
	char *end;

	errno = 0;
	d->dev_id = strtoull(s, &end, 10);
	if (!*s || *end || *s == '-' || errno || d->dev_id > POOL_MAX_DEV_ID)
		return cli_usage_error(cmd, "invalid --dev-id '%s': a number from 0 to %llu", s,
				       (unsigned long long)POOL_MAX_DEV_ID);
	d->one_device = 1;
	return CLI_CONTINUE;
}

int cmd_tpdump(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_dump_params p = { 0 };
	struct cli_area area = { 0 };
	const char *format = NULL, *dev_id = NULL, *progress = NULL, **args;
	enum tp_progress_mode mode;
	struct tp_progress pg;
	const struct poptOption opts[] = {
		{ "format", 'f', POPT_ARG_STRING, &format, 0,
		  "xml (as thin_dump, the default), human, or pack (as thin_metadata_pack)",
		  "xml|human|pack" },
		{ "metadata-snap", 'm', POPT_ARG_NONE, &p.metadata_snap, 0,
		  "dump the metadata snapshot instead of the live metadata", NULL },
		{ "dev-id", '\0', POPT_ARG_STRING, &dev_id, 0,
		  "print only this thin device", "ID" },
		{ "skip-mappings", '\0', POPT_ARG_NONE, &p.skip_mappings, 0,
		  "print the devices without their mappings", NULL },
		CLI_OPT_AREA(area, "", "METADATA"),
		{ "output", 'o', POPT_ARG_STRING, &p.output, 0,
		  "write to FILE instead of standard output", "FILE" },
		{ "force", '\0', POPT_ARG_NONE, &p.force, 0,
		  "write FILE even if it is a block device or carries a pool's label or another "
		  "signature", NULL },
		{ "devices", '\0', POPT_ARG_STRING, &p.devices, 0,
		  "with a POOL: its devices, instead of the devices file", "DATA,META" },
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};
	struct cli cli;
	int nargs, code;

	code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs);
	if (code != CLI_CONTINUE)
		return code;
	code = parse_format(cmd, format, &p.format);
	if (code == CLI_CONTINUE)
		code = cli_progress(cmd, progress, &mode);
	if (code == CLI_CONTINUE && dev_id)
		code = parse_dev_id(cmd, dev_id, &p);
	if (code == CLI_CONTINUE && p.format == POOL_DUMP_PACK &&
	    (p.metadata_snap || p.one_device || p.skip_mappings))
		code = cli_usage_error(cmd, "--format pack packs every metadata block: "
					    "--metadata-snap, --dev-id and --skip-mappings do not apply");
	if (code == CLI_CONTINUE && p.format == POOL_DUMP_PACK && !p.output && isatty(STDOUT_FILENO))
		code = cli_usage_error(cmd, "--format pack writes a binary file: give -o FILE or "
					    "redirect standard output");
	if (code == CLI_CONTINUE)
		code = cli_area(cmd, &area, !pool_dump_source_is_pool(args[0]),
				"--offset and --size are for a metadata file or device, not a pool");
	if (code == CLI_CONTINUE) {
		p.source = args[0];
		p.offset = area.offset;
		p.size = area.size;
		/* on standard error only: the dump may be standard output */
		cli_progress_begin(&pg, cmd, mode, args[0], TP_PROGRESS_ITEMS,
				   p.format == POOL_DUMP_PACK ? "blocks" : "mappings");
		p.progress = tp_progress_cb;
		p.progress_ctx = &pg;
		code = tp_exit_from_errno(pool_dump(&p));
		tp_progress_end(&pg, code == TP_EXIT_OK);
	}
	cli_end(&cli);
	return code;
}
