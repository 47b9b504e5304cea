/* tpsend - a volume's content, read offline from the pool's devices.
 *
 *   tpsend --format raw [-o FILE] [--devices D,M] POOL/VOLUME
 *
 * Writes the volume's whole virtual size as a plain image to standard
 * output or FILE (holes read as zeros; FILE stays sparse). Exit: 0, 3 bad
 * command line, 5 no such pool or volume, the pool active, damaged
 * metadata, a read or write error. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_send.h"
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int send_raw(const char *spec, const char *devices, const char *output)
{
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1], a[32], b[32];
	struct pool_send_stats st;
	struct pool *p;
	int code;

	if (pool_split_volume_spec(spec, pool, vol))
		return TP_EXIT_USAGE;
	if (pool_open(pool, devices, POOL_RDONLY, &p))
		return TP_EXIT_FAILED;
	code = tp_exit_from_errno(pool_send_raw(p, vol, output, &st));
	pool_close(p);
	if (code == TP_EXIT_OK && output && tp_log_verbosity() >= 0)
		printf("Wrote %s/%s to %s: %s, %s of it mapped.\n", pool, vol, output,
		       tp_size_format(st.size, 'h', a, sizeof(a)),
		       tp_size_format(st.mapped, 'h', b, sizeof(b)));
	return code;
}

int cmd_tpsend(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *format = NULL, *output = NULL, *devices = NULL, **args;
	const struct poptOption opts[] = {
		{ "format", 'f', POPT_ARG_STRING, &format, 0,
		  "raw: the volume's content as a plain image", "FORMAT" },
		{ "output", 'o', POPT_ARG_STRING, &output, 0,
		  "write to FILE (sparse) instead of standard output", "FILE" },
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};
	struct cli cli;
	int nargs, code;

	if ((code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return code;
	if (!format || strcmp(format, "raw"))
		code = cli_usage_error(cmd, "--format raw is required (the volume's content as a "
					    "plain image); the send stream is not available yet");
	else if (!output && isatty(STDOUT_FILENO))
		code = cli_usage_error(cmd, "standard output is a terminal: redirect it or use -o FILE");
	else
		code = send_raw(args[0], devices, output);
	cli_end(&cli);
	return code;
}
