/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tprestore.c - write thin-pool metadata from thin_dump XML or from
 * thin_metadata_pack's file (--format pack).
 *
 *   tprestore -i XML -o METADATA [--format xml|pack] [--offset BYTES] [--size BYTES]
 *             [--force]
 *
 * METADATA (an existing file or block device, or the area at --offset of
 * --size bytes inside one) receives fresh metadata whose size is that of
 * the area. The whole XML is validated first: on invalid XML, or an area
 * too small for it, METADATA is not written at all. A pool's device is
 * refused unless the area starts past its label (--offset) or --force.
 * Exit: 0, 3 bad command line, 5 invalid XML or pack, refused or failure. The
 * work is lib/pool/pool_dump.h. */
#include "lib/base/exitcodes.h"
#include "lib/pool/pool_dump.h"
#include "tools/cli.h"

#include <string.h>

int cmd_tprestore(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_restore_params p = { 0 };
	const char *progress = NULL, *format = NULL;
	struct cli_area area = { 0 };
	const struct poptOption opts[] = {
		{ "input", 'i', POPT_ARG_STRING, &p.input, 0,
		  "the XML or pack to restore ('-': standard input)", "INPUT" },
		{ "output", 'o', POPT_ARG_STRING, &p.output, 0,
		  "the metadata file or device to write", "METADATA" },
		{ "format", '\0', POPT_ARG_STRING, &format, 0,
		  "what INPUT is: xml (the default) or pack (thin_metadata_pack's file)",
		  "xml|pack" },
		CLI_OPT_AREA(area, "", "METADATA"),
		{ "force", 'f', POPT_ARG_NONE, &p.force, 0,
		  "write METADATA even if it is a pool's device", NULL },
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};
	const char **args;
	enum tp_progress_mode mode;
	struct tp_progress pg;
	struct cli cli;
	int nargs, code;

	code = cli_parse(&cli, cmd, opts, argc, argv, 0, 0, &args, &nargs);
	if (code != CLI_CONTINUE)
		return code;
	if (!p.input)
		code = cli_usage_error(cmd, "missing -i XML");
	if (code == CLI_CONTINUE && format && strcmp(format, "xml")) {
		if (!strcmp(format, "pack"))
			p.pack = 1;
		else
			code = cli_usage_error(cmd, "unknown format '%s': use xml or pack", format);
	}
	if (code == CLI_CONTINUE && !p.output)
		code = cli_usage_error(cmd, "missing -o METADATA");
	if (code == CLI_CONTINUE)
		code = cli_area(cmd, &area, 1, NULL);
	if (code == CLI_CONTINUE)
		code = cli_progress(cmd, progress, &mode);
	if (code == CLI_CONTINUE) {
		p.offset = area.offset;
		p.size = area.size;
		cli_progress_begin(&pg, cmd, mode, p.output, TP_PROGRESS_ITEMS,
				   p.pack ? "blocks" : "mappings");
		p.progress = tp_progress_cb;
		p.progress_ctx = &pg;
		code = tp_exit_from_errno(pool_restore(&p));
		tp_progress_end(&pg, code == TP_EXIT_OK);
	}
	cli_end(&cli);
	return code;
}
