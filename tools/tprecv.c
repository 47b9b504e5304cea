/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tprecv - receive a send stream (tpsend) into a pool, or import a plain
 * image into an inactive one.
 *
 *   tprecv [-n NAME] [-i FILE] [--resume] [--require-encrypted y|n]
 *          [--devices D,M] POOL
 *   tprecv --format raw -n NAME [-V SIZE] [-i FILE] [--require-encrypted n]
 *          [--devices D,M] POOL
 *   tprecv --abort NAME [--devices D,M] POOL
 *
 * The whole stream is checked before the pool is touched; the pool may be
 * active. A raw image is read once (a pipe streamed) into a new writable
 * volume, whole or not at all. An encrypted volume's stream is received
 * as it came (ciphertext, no key needed) into an encrypted volume; the
 * policy recv/require_encrypted (tptools.conf), or --require-encrypted
 * for one run, refuses everything else before the pool is opened. Exit:
 * 0, 3 bad command line, 5 a truncated or damaged stream, an image longer
 * than -V, no base, a base not encrypted as the stream, a stream or raw
 * import the policy refuses, a full pool, the
 * name taken, a receive that failed: no volume changed (a stream's
 * receive stopped part-way is kept as an unfinished receive, said in its
 * last line; a raw import is dropped). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_names_dm.h"
#include "lib/pool/pool_recv.h"
#include "lib/base/config.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct recv_op {
	struct pool_recv *stream;
	const char *name, *abort;
	unsigned flags;
	int raw;	/* --format raw: STREAM is the image */
	char pool[POOL_NAME_MAX + 1];
	const struct tp_command *cmd;
	enum tp_progress_mode mode;	/* --progress */
};

/* The apply of O->stream, watched as --progress asks (the display on
 * standard error). */
static int watched(struct recv_op *o, struct pool *p, struct pool_recv_result *res)
{
	struct tp_progress pg;
	int r;

	cli_progress_begin(&pg, o->cmd, o->mode, o->pool, TP_PROGRESS_BYTES, NULL);
	pool_recv_watch(o->stream, tp_progress_cb, &pg);
	r = o->raw ? pool_recv_raw_apply(p, o->stream, res)
		   : pool_recv_apply(p, o->stream, o->name, o->flags, res);
	pool_recv_watch(o->stream, NULL, NULL);
	tp_progress_end(&pg, r == 0);
	return r;
}

/* After a raw import: the over-provisioning warning of tvcreate. */
static void warn_over(struct pool *p, const char *pool)
{
	struct pool_info info;
	char a[32], b[32];

	if (pool_get_info(p, 0, &info))
		return;
	if (info.virtual_total > info.data_size) {
		tp_size_format_pair(info.virtual_total, info.data_size, a, b, sizeof(a));
		log_warn("the sum of all thin volume sizes (%s) exceeds the size of pool %s (%s): "
			 "writes fail or queue once the pool is full; watch 'tpstatus %s'", a, pool, b,
			 pool);
	}
	pool_info_free(&info);
}

static int raw_op(struct recv_op *o, struct pool *p)
{
	struct pool_recv_result res;
	char a[32], b[32];
	int r = watched(o, p, &res);

	if (r)
		return r;
	warn_over(p, o->pool);
	if (tp_log_verbosity() >= 0)
		printf("Volume %s/%s imported (%s, %s of data), writable.\n", o->pool, res.name,
		       tp_size_format(res.size, 'h', a, sizeof(a)),
		       tp_size_format(res.data_bytes, 'h', b, sizeof(b)));
	(void)pool_warn_if_full(p);
	return 0;
}

static int recv_op(struct pool *p, void *arg)
{
	struct recv_op *o = arg;
	struct pool_recv_result res;
	char a[32], b[32];
	int r;

	if (o->raw)
		return raw_op(o, p);
	if (o->abort) {
		if (!(r = pool_recv_abort(p, o->abort)) && tp_log_verbosity() >= 0)
			printf("Unfinished receive %s/%s dropped.\n", o->pool, o->abort);
		return r;
	}
	r = watched(o, p, &res);
	if (r)
		return r;
	if (tp_log_verbosity() >= 0) {
		printf("Volume %s/%s received%s%s (%s, %s of data), read-only%s", o->pool, res.name,
		       res.base[0] ? " as changes to " : "", res.base,
		       tp_size_format(res.size, 'h', a, sizeof(a)),
		       tp_size_format(res.data_bytes, 'h', b, sizeof(b)),
		       pool_recv_luks_uuid(o->stream)[0] ? ", encrypted" : "");
		if (o->flags & POOL_RECV_RESUME)
			printf("; resumed at %s", tp_size_format(res.resumed_at, 'h', a, sizeof(a)));
		printf(".\n");
	}
	(void)pool_warn_if_full(p);
	return 0;
}

/* The check of the stream from INPUT into O->stream, watched as
 * --progress asks ("POOL (check)"): an exit code. */
static int check(struct recv_op *o, const char *input, const char *pool)
{
	char what[POOL_NAME_MAX + 16];
	struct tp_progress pg;
	int r;

	snprintf(what, sizeof(what), "%s (check)", pool);
	cli_progress_begin(&pg, o->cmd, o->mode, what, TP_PROGRESS_BYTES, NULL);
	r = pool_recv_check(input, tp_progress_cb, &pg, &o->stream);
	tp_progress_end(&pg, r == 0);
	return tp_exit_from_errno(r);
}

/* The receive policy: a host that keeps only encrypted volumes
 * (--require-encrypted, else recv/require_encrypted) refuses a plain
 * volume's stream, checked already, and a raw import (which makes a plain
 * volume) before its input is opened. CLI_CONTINUE, or 5 with one line
 * naming the setting, what came and the way past it. */
static int policy(const struct recv_op *o, const char *pool, int required, const char *set_by)
{
	if (!required || (!o->raw && pool_recv_luks_uuid(o->stream)[0]))
		return CLI_CONTINUE;
	if (o->raw)
		log_error("pool %s: a raw import makes a plain volume, and %s requires encrypted "
			  "ones; nothing was imported (send the volume as a stream of an encrypted "
			  "volume, or give --require-encrypted n for this import)", pool, set_by);
	else
		log_error("pool %s: the stream is of a plain volume, not an encrypted one, and %s "
			  "requires encrypted volumes; nothing was received (give "
			  "--require-encrypted n to receive it all the same)", pool, set_by);
	return TP_EXIT_FAILED;
}

/* --format raw: open the image, take its size (-V, else the file's or
 * device's), refuse a known longer one; CLI_CONTINUE or an exit code. */
static int raw_input(const struct tp_command *cmd, const char *input, const char *vsize,
		     struct recv_op *o)
{
	uint64_t size = 0, known;
	int code = CLI_CONTINUE, sized;

	if (vsize && (code = cli_size(cmd, "-V", vsize, 'm', &size)) != CLI_CONTINUE)
		return code;
	if (vsize && !size)
		return cli_usage_error(cmd, "-V must be greater than 0");
	if ((code = tp_exit_from_errno(pool_recv_raw_open(input, &o->stream))) != TP_EXIT_OK)
		return code;
	sized = pool_recv_raw_known(o->stream, &known);
	if (!vsize && !sized)
		return cli_usage_error(cmd, "--format raw needs -V SIZE when the image comes "
					    "through a pipe (its size is known only at its end); "
					    "with a file or block device, -V defaults to its size");
	if (!vsize && !known)
		return cli_usage_error(cmd, "%s is empty: give -V SIZE to import it as a volume "
					    "of zeros", input ? input : "standard input");
	code = tp_exit_from_errno(pool_recv_raw_size(o->stream, o->name, vsize ? size : known));
	return code == TP_EXIT_OK ? CLI_CONTINUE : code;
}

int cmd_tprecv(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *devices = NULL, *input = NULL, *format = NULL, *vsize = NULL, **args;
	struct recv_op o = { NULL, NULL, NULL, 0, 0, "", cmd, TP_PROGRESS_AUTO };
	const char *progress = NULL, *require = NULL;
	char set_by[PATH_MAX + 64];
	int resume = 0, required = 0;
	const struct poptOption opts[] = {
		{ "name", 'n', POPT_ARG_STRING, &o.name, 0,
		  "the received volume's name (default: the sent volume's; --format raw needs it)",
		  "NAME" },
		{ "format", 'f', POPT_ARG_STRING, &format, 0,
		  "stream (the default: a send stream of tpsend) or raw (a plain image, imported "
		  "into an inactive pool)", "stream|raw" },
		{ "virtualsize", 'V', POPT_ARG_STRING, &vsize, 0,
		  "with --format raw: the new volume's size (default: the image file's or "
		  "device's; a pipe needs it); default unit M", "SIZE" },
		{ "input", 'i', POPT_ARG_STRING, &input, 0,
		  "read the stream (or the raw image) from FILE instead of standard input", "FILE" },
		{ "resume", 0, POPT_ARG_NONE, &resume, 0,
		  "go on with the unfinished receive of this stream from its last commit", NULL },
		{ "abort", 0, POPT_ARG_STRING, &o.abort, 0,
		  "drop the unfinished receive NAME and what it received", "NAME" },
		{ "require-encrypted", 0, POPT_ARG_STRING, &require, 0,
		  "y: refuse a plain volume's stream and raw imports; n: take them (default: "
		  "recv/require_encrypted of tptools.conf, else n)", "y|n" },
		CLI_OPT_DEVICES(devices),
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};
	struct cli cli;
	int nargs, code;

	if ((code = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return code;
	if ((code = cli_progress(cmd, progress, &o.mode)) != CLI_CONTINUE) {
		cli_end(&cli);
		return code;
	}
	o.flags = resume ? POOL_RECV_RESUME : 0;
	o.raw = format && !strcmp(format, "raw");
	if (require) {
		snprintf(set_by, sizeof(set_by), "--require-encrypted %s", require);
		code = cli_parse_yes_no(cmd, "--require-encrypted", require, &required);
	} else {
		char where[PATH_MAX + 32];
		required = !strcmp(tp_config_str("recv/require_encrypted"), "y");
		snprintf(set_by, sizeof(set_by), "recv/require_encrypted (%s)",
			 tp_config_where("recv/require_encrypted", where, sizeof(where)));
	}
	if (code != CLI_CONTINUE) {
		/* (--require-encrypted's value, said) */
	} else if (strlen(args[0]) > POOL_NAME_MAX)
		code = cli_usage_error(cmd, "pool name '%s' is too long", args[0]);
	else if (format && strcmp(format, "raw") && strcmp(format, "stream"))
		code = cli_usage_error(cmd, "unknown format '%s': use stream or raw", format);
	else if (o.abort && (resume || input || o.name || format || vsize || require))
		code = cli_usage_error(cmd, "--abort NAME takes no stream: not with --resume, "
					    "-i, -n, --format, -V or --require-encrypted");
	else if (o.raw && resume)
		code = cli_usage_error(cmd, "--resume goes on with a stream; a raw import cannot "
					    "go on (its input is read once): drop it with --abort "
					    "NAME and import again");
	else if (vsize && !o.raw)
		code = cli_usage_error(cmd, "-V goes with --format raw: a stream carries its "
					    "volume's size");
	else if (o.raw && !o.name)
		code = cli_usage_error(cmd, "--format raw needs -n NAME: a plain image carries "
					    "no name");
	else if (o.raw && pool_dm_vol_name_check(args[0], o.name))
		code = TP_EXIT_USAGE;
	else if (o.abort) {
		strcpy(o.pool, args[0]);
		code = tool_pool_op(o.pool, devices, recv_op, &o);
	} else if (!input && isatty(STDIN_FILENO))
		code = cli_usage_error(cmd, o.raw ? "standard input is a terminal: pipe an image in "
						    "(... | tprecv --format raw -V SIZE -n NAME "
						    "POOL) or use -i FILE"
						  : "standard input is a terminal: pipe a stream in "
						    "(tpsend ... | tprecv POOL) or use -i FILE");
	else if (o.raw) {
		if ((code = policy(&o, args[0], required, set_by)) == CLI_CONTINUE &&
		    (code = raw_input(cmd, input, vsize, &o)) == CLI_CONTINUE) {
			strcpy(o.pool, args[0]);
			code = tool_pool_op(o.pool, devices, recv_op, &o);
		}
	} else if ((code = check(&o, input, args[0])) == TP_EXIT_OK &&
		   (code = policy(&o, args[0], required, set_by)) == CLI_CONTINUE) {
		strcpy(o.pool, args[0]);
		code = tool_pool_op(o.pool, devices, recv_op, &o);
	}
	pool_recv_free(o.stream);
	cli_end(&cli);
	return code;
}
