/* tpdump.c - print thin-pool metadata as thin_dump XML or for people.
 *
 *   tpdump [--format xml|human] [--metadata-snap] [--dev-id ID]
 *          [--skip-mappings] [--offset BYTES] [--size BYTES] [-o FILE] METADATA
 *
 * METADATA is a file or block device holding dm-thin metadata, or the
 * area at --offset inside one (a pool device), or the name of a pool
 * (anything that is not an existing path and is a valid pool name): its
 * active thin-metadata area. Exit: 0, 3 bad command line, 5 unreadable or
 * corrupt metadata or an output error. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_walk.h"
#include "metadata/thin/xml_cmd.h"
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tpdump_params {
	const char *format;
	const char *output;
	const char *offset;
	const char *size;
	const char *dev_id;
	const char *devices;
	int metadata_snap;
	int skip_mappings;
};

static int parse_format(const struct tp_command *cmd, const char *s, enum thin_emit_format *fmt)
{
	if (!s || !strcmp(s, "xml"))
		*fmt = THIN_EMIT_XML;
	else if (!strcmp(s, "human") || !strcmp(s, "human_readable"))
		*fmt = THIN_EMIT_HUMAN;
	else
		return cli_usage_error(cmd, "unknown format '%s': use xml or human", s);
	return CLI_CONTINUE;
}

static int parse_dev_id(const struct tp_command *cmd, const char *s, struct thin_dump_opts *d)
{
	char *end;

	errno = 0;
	d->dev_id = strtoull(s, &end, 10);
	if (!*s || *end || *s == '-' || errno || d->dev_id > THIN_MAX_DEV_ID)
		return cli_usage_error(cmd, "invalid --dev-id '%s': a number from 0 to %llu", s,
				       (unsigned long long)THIN_MAX_DEV_ID);
	d->one_device = 1;
	return CLI_CONTINUE;
}

int cmd_tpdump(const struct tp_command *cmd, int argc, const char **argv)
{
	struct tpdump_params p = { 0 };
	const struct poptOption opts[] = {
		{ "format", 'f', POPT_ARG_STRING, &p.format, 0,
		  "xml (as thin_dump, the default) or human", "FORMAT" },
		{ "metadata-snap", 'm', POPT_ARG_NONE, &p.metadata_snap, 0,
		  "dump the metadata snapshot instead of the live metadata", NULL },
		{ "dev-id", '\0', POPT_ARG_STRING, &p.dev_id, 0,
		  "print only this thin device", "ID" },
		{ "skip-mappings", '\0', POPT_ARG_NONE, &p.skip_mappings, 0,
		  "print the devices without their mappings", NULL },
		{ "offset", '\0', POPT_ARG_STRING, &p.offset, 0,
		  "the metadata area starts this far into METADATA", "BYTES" },
		{ "size", '\0', POPT_ARG_STRING, &p.size, 0,
		  "length of the metadata area (default: to the end)", "BYTES" },
		{ "output", 'o', POPT_ARG_STRING, &p.output, 0,
		  "write to FILE instead of standard output", "FILE" },
		{ "devices", '\0', POPT_ARG_STRING, &p.devices, 0,
		  "with a POOL: its devices, instead of the devices file", "DATA,META" },
		POPT_TABLEEND
	};
	struct thin_dump_opts dump = { THIN_EMIT_XML, 0, 0, 0 };
	uint64_t offset = 0, size = 0;
	struct io_engine *meta = NULL;
	const char **args;
	struct cli cli;
	int nargs, fd = STDOUT_FILENO, code, r;

	code = cli_begin(&cli, cmd, opts, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	code = cli_args(&cli, 1, 1, &args, &nargs);
	if (code == CLI_CONTINUE)
		code = parse_format(cmd, p.format, &dump.format);
	if (code == CLI_CONTINUE && p.dev_id)
		code = parse_dev_id(cmd, p.dev_id, &dump);
	if (code == CLI_CONTINUE && p.offset)
		code = cli_size(cmd, "--offset", p.offset, 'b', &offset);
	if (code == CLI_CONTINUE && p.size)
		code = cli_size(cmd, "--size", p.size, 'b', &size);
	if (code != CLI_CONTINUE)
		goto out;
	if (access(args[0], F_OK) && vg_name_valid(args[0], NULL)) {
		/* a pool name: its active metadata area */
		char *path = NULL;
		if (p.offset || p.size) {
			code = cli_usage_error(cmd, "--offset and --size are for a metadata file or "
						    "device, not a pool");
			goto out;
		}
		r = pool_locate_metadata(args[0], p.devices, &path, &offset, &size);
		if (!r)
			r = thin_area_open(path, IO_RDONLY, offset, size, &meta);
		free(path);
	} else {
		r = thin_area_open(args[0], IO_RDONLY, offset, size, &meta);
	}
	if (r) {
		code = tp_exit_from_errno(r);
		goto out;
	}
	if (p.output) {
		fd = open(p.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			log_error("%s: cannot create: %s", p.output, strerror(errno));
			code = TP_EXIT_FAILED;
			goto out;
		}
	}
	dump.walk_flags = (p.metadata_snap ? THIN_WALK_METADATA_SNAP : 0) |
			  (p.skip_mappings ? THIN_WALK_SKIP_MAPPINGS : 0);
	r = thin_xml_dump(meta, &dump, fd);
	code = r ? TP_EXIT_FAILED : TP_EXIT_OK;
	if (p.output && close(fd) && !r) {
		log_error("%s: %s", p.output, strerror(errno));
		code = TP_EXIT_FAILED;
	}
out:
	io_destroy(meta);
	cli_end(&cli);
	return code;
}
