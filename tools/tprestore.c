/* tprestore.c - write thin-pool metadata from thin_dump XML.
 *
 *   tprestore -i XML -o METADATA [--offset BYTES] [--size BYTES]
 *
 * METADATA (an existing file or block device, or the area at --offset of
 * --size bytes inside one) receives fresh metadata whose size is that of
 * the area. The whole XML is validated first: on invalid XML, or an area
 * too small for it, METADATA is not written at all. Exit: 0, 3 bad command
 * line, 5 invalid XML or failure. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "metadata/thin/xml_cmd.h"
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct tprestore_params {
	const char *input;
	const char *output;
	const char *offset;
	const char *size;
};

int cmd_tprestore(const struct tp_command *cmd, int argc, const char **argv)
{
	struct tprestore_params p = { 0 };
	const struct poptOption opts[] = {
		{ "input", 'i', POPT_ARG_STRING, &p.input, 0,
		  "the XML to restore ('-': standard input)", "XML" },
		{ "output", 'o', POPT_ARG_STRING, &p.output, 0,
		  "the metadata file or device to write", "METADATA" },
		{ "offset", '\0', POPT_ARG_STRING, &p.offset, 0,
		  "the metadata area starts this far into METADATA", "BYTES" },
		{ "size", '\0', POPT_ARG_STRING, &p.size, 0,
		  "length of the metadata area (default: to the end)", "BYTES" },
		POPT_TABLEEND
	};
	uint64_t offset = 0, size = 0;
	struct io_engine *out = NULL;
	const char **args;
	struct cli cli;
	int nargs, fd = -1, code, r;

	code = cli_begin(&cli, cmd, opts, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	code = cli_args(&cli, 0, 0, &args, &nargs);
	if (code == CLI_CONTINUE && !p.input)
		code = cli_usage_error(cmd, "missing -i XML");
	if (code == CLI_CONTINUE && !p.output)
		code = cli_usage_error(cmd, "missing -o METADATA");
	if (code == CLI_CONTINUE && p.offset)
		code = cli_size(cmd, "--offset", p.offset, 'b', &offset);
	if (code == CLI_CONTINUE && p.size)
		code = cli_size(cmd, "--size", p.size, 'b', &size);
	if (code != CLI_CONTINUE)
		goto out;
	fd = strcmp(p.input, "-") ? open(p.input, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0) {
		log_error("%s: cannot open: %s", p.input, strerror(errno));
		code = TP_EXIT_FAILED;
		goto out;
	}
	r = thin_area_open(p.output, IO_EXCL, offset, size, &out);
	if (r) {
		code = tp_exit_from_errno(r);
		goto out;
	}
	r = thin_xml_restore(fd, strcmp(p.input, "-") ? p.input : "<stdin>", out, 0, NULL);
	code = r ? TP_EXIT_FAILED : TP_EXIT_OK;
out:
	if (fd > STDIN_FILENO)
		close(fd);
	io_destroy(out);
	cli_end(&cli);
	return code;
}
