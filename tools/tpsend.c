/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpsend - a volume's content, read from the pool's devices (offline, or
 * live through a kernel metadata snapshot).
 *
 *   tpsend [--from [POOL/]BASE] [-o FILE] [--devices D,M] POOL/VOLUME
 *   tpsend --format raw [-o FILE] [--devices D,M [--allow-component]] POOL/VOLUME
 *
 * Writes the send stream (man/tp-stream.5: full, or the changes since the
 * volume BASE of the same pool) or, with --format raw, the volume's whole
 * virtual size as a plain image (holes read as zeros; FILE stays sparse)
 * to standard output or FILE. Exit: 0, 3 bad command line, 5 no such pool
 * or volume, a writable volume to stream (or, live, to export), damaged
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

static int send(const struct tp_command *cmd, const char *spec, const char *from, int raw,
		const char *devices, unsigned flags, const char *output,
		enum tp_progress_mode mode)
{
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1], a[32], b[32];
	struct pool_send_stats st;
	struct pool_send_params sp = { tp_progress_cb, NULL };
	struct tp_progress pg;
	struct pool *p;
	int code;

	if (pool_split_volume_spec(spec, pool, vol))
		return TP_EXIT_USAGE;
	/* (as the other commands: a --devices path that is no device is 3) */
	if ((code = pool_open(pool, devices, POOL_RDONLY | flags, &p)))
		return tp_exit_from_errno(code);
	/* on standard error only: the stream may be standard output */
	cli_progress_begin(&pg, cmd, mode, spec, TP_PROGRESS_BYTES, NULL);
	sp.progress_ctx = &pg;
	code = tp_exit_from_errno(raw ? pool_send_raw(p, vol, output, &sp, &st)
				      : pool_send_stream(p, vol, from, output, &sp, &st));
	tp_progress_end(&pg, code == TP_EXIT_OK);
	pool_close(p);
	if (code == TP_EXIT_OK && output && tp_log_verbosity() >= 0)
		printf("Wrote %s/%s to %s: %s, %s of it %s.\n", pool, vol, output,
		       tp_size_format(st.size, 'h', a, sizeof(a)),
		       tp_size_format(st.mapped, 'h', b, sizeof(b)),
		       raw ? "mapped" : from ? "changed data" : "data");
	return code;
}

/* --from POOL/BASE (*FROM): accepted when POOL is the pool of SPEC (the
 * volume sent), *FROM then pointing at BASE within it; a base in another
 * pool is a usage error naming both. Returns CLI_CONTINUE or an exit code. */
static int from_same_pool(const struct tp_command *cmd, const char *spec, const char **from)
{
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	char fpool[POOL_NAME_MAX + 1], fvol[POOL_NAME_MAX + 1];

	if (pool_split_volume_spec(*from, fpool, fvol) || pool_split_volume_spec(spec, pool, vol))
		return TP_EXIT_USAGE;
	if (strcmp(pool, fpool))
		return cli_usage_error(cmd, "--from %s: the base must be a volume of pool %s, the "
					    "pool of %s (an incremental stream is the difference "
					    "between two volumes of one pool); give --from BASE or "
					    "--from %s/BASE", *from, pool, spec, pool);
	*from = strchr(*from, '/') + 1;
	return CLI_CONTINUE;
}

int cmd_tpsend(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *format = NULL, *output = NULL, *devices = NULL, *from = NULL, *base, **args;
	const char *progress = NULL;
	enum tp_progress_mode mode;
	int allow = 0;
	const struct poptOption opts[] = {
		{ "from", '\0', POPT_ARG_STRING, &from, 0,
		  "send only what differs from BASE, a read-only volume of the pool (incremental; "
		  "POOL/BASE names the same pool)", "[POOL/]BASE" },
		{ "format", 'f', POPT_ARG_STRING, &format, 0,
		  "stream (the default: checksummed, for tprecv) or raw (a plain image)",
		  "stream|raw" },
		{ "output", 'o', POPT_ARG_STRING, &output, 0,
		  "write to FILE (sparse) instead of standard output", "FILE" },
		CLI_OPT_DEVICES(devices),
		CLI_OPT_ALLOW_COMPONENT(allow),
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};
	struct cli cli;
	int nargs, code;

	if ((code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return code;
	base = from;	/* popt owns FROM */
	if (format && strcmp(format, "raw") && strcmp(format, "stream"))
		code = cli_usage_error(cmd, "unknown format '%s': use stream or raw", format);
	else if (format && !strcmp(format, "raw") && from)
		code = cli_usage_error(cmd, "--from makes a stream; --format raw is the whole volume");
	else if (from && strchr(from, '/') && (code = from_same_pool(cmd, args[0], &base)) !=
							 CLI_CONTINUE)
		;
	else if (allow && !devices)
		code = cli_usage_error(cmd, "--allow-component goes with --devices DATA,META");
	else if (!output && isatty(STDOUT_FILENO))
		code = cli_usage_error(cmd, "standard output is a terminal: redirect it or use -o FILE");
	else if ((code = cli_progress(cmd, progress, &mode)) == CLI_CONTINUE)
		code = send(cmd, args[0], base, format && !strcmp(format, "raw"), devices,
			    allow ? POOL_ALLOW_COMPONENT : 0, output, mode);
	cli_end(&cli);
	return code;
}
