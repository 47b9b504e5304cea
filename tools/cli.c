/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - the option handling every command shares. See cli.h. */
#include "tools/cli.h"

#include "lib/base/devopen.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tp_cli tp_cli;

enum { OPT_VERBOSE = 1000, OPT_QUIET, OPT_VERSION, OPT_HELP, OPT_USAGE };

static const struct poptOption common_options[] = {
	{ "verbose", 'v', POPT_ARG_NONE, NULL, OPT_VERBOSE,
	  "more messages; repeat for more detail", NULL },
	{ "quiet", 'q', POPT_ARG_NONE, NULL, OPT_QUIET, "fewer messages; -qq: errors too", NULL },
	{ "yes", 'y', POPT_ARG_NONE, &tp_cli.yes, 0, "answer yes to every question", NULL },
	{ "version", '\0', POPT_ARG_NONE, NULL, OPT_VERSION, "print the version and exit", NULL },
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "usage", '\0', POPT_ARG_NONE, NULL, OPT_USAGE, "show a short usage message", NULL },
	POPT_TABLEEND
};

void cli_print_version(void)
{
	printf("tptools %s\n", TP_VERSION);
}

int cli_usage_error(const struct tp_command *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s", msg);
	fprintf(stderr, "Try '%s --help' for more information.\n", cmd ? cmd->name : "tp");
	return TP_EXIT_USAGE;
}

/* popt hands string option values over as malloc'd copies: free them. */
static void free_strings(const struct poptOption *o)
{
	for (; o && (o->longName || o->shortName || o->arg); o++) {
		unsigned type = o->argInfo & POPT_ARG_MASK;
		if (type == POPT_ARG_INCLUDE_TABLE)
			free_strings(o->arg);
		else if (type == POPT_ARG_STRING && o->arg) {
			free(*(char **)o->arg);
			*(char **)o->arg = NULL;
		}
	}
}

void cli_end(struct cli *cli)
{
	if (cli->ctx) {
		poptFreeContext(cli->ctx);
		free_strings(cli->table);
	}
	cli->ctx = NULL;
	free(cli->argv);
	cli->argv = NULL;
}

/* Does OPTS have --progress? */
static int has_progress(const struct poptOption *opts)
{
	for (; opts->longName || opts->shortName || opts->argInfo; opts++)
		if (opts->longName && !strcmp(opts->longName, "progress"))
			return 1;
	return 0;
}

/* ARGV for popt: with a --progress option, a bare "--progress" before "--"
 * becomes "--progress=yes", so its optional value never swallows the next
 * argument ("--progress POOL"). NULL on allocation failure. */
static const char **cli_argv(const struct poptOption *opts, int argc, const char **argv)
{
	const char **a = calloc((size_t)argc + 1, sizeof(*a));
	int progress = has_progress(opts), end = 0;

	if (!a)
		return NULL;
	for (int i = 0; i < argc; i++) {
		a[i] = argv[i];
		if (i && !end && !strcmp(argv[i], "--"))
			end = 1;
		else if (i && !end && progress && !strcmp(argv[i], "--progress"))
			a[i] = "--progress=yes";
	}
	return a;
}

int cli_begin(struct cli *cli, const struct tp_command *cmd, const struct poptOption *opts,
	      int argc, const char **argv)
{
	const struct poptOption table[3] = {
		{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, (void *)opts, 0, "Options:", NULL },
		{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, (void *)common_options, 0,
		  "Common options:", NULL },
		POPT_TABLEEND
	};
	char synopsis[256];
	int rc, code = CLI_CONTINUE;

	memset(&tp_cli, 0, sizeof(tp_cli));
	tp_log_set_verbosity(0);
	cli->cmd = cmd;
	memcpy(cli->table, table, sizeof(table));
	cli->argv = cli_argv(opts, argc, argv);
	cli->ctx = cli->argv ? poptGetContext(cmd->name, argc, cli->argv, cli->table, 0) : NULL;
	if (!cli->ctx) {
		free(cli->argv);
		cli->argv = NULL;
		return TP_EXIT_FAILED;
	}
	snprintf(synopsis, sizeof(synopsis), "[OPTION...] %s", cmd->args ? cmd->args : "");
	poptSetOtherOptionHelp(cli->ctx, synopsis);
	while (code == CLI_CONTINUE && (rc = poptGetNextOpt(cli->ctx)) > 0) {
		switch (rc) {
		case OPT_VERBOSE: tp_cli.verbose++; break;
		case OPT_QUIET: tp_cli.quiet++; break;
		case OPT_VERSION:
			cli_print_version();
			code = TP_EXIT_OK;
			break;
		case OPT_HELP:
			printf("%s - %s\n\n", cmd->name, cmd->summary);
			poptPrintHelp(cli->ctx, stdout, 0);
			code = TP_EXIT_OK;
			break;
		case OPT_USAGE:
			poptPrintUsage(cli->ctx, stdout, 0);
			code = TP_EXIT_OK;
			break;
		default:
			break;
		}
	}
	if (code == CLI_CONTINUE && rc < -1)
		code = cli_usage_error(cmd, "%s: %s", poptBadOption(cli->ctx, POPT_BADOPTION_NOALIAS),
				       poptStrerror(rc));
	if (code != CLI_CONTINUE) {
		cli_end(cli);
		return code;
	}
	tp_log_set_verbosity(tp_cli.verbose - tp_cli.quiet);
	return CLI_CONTINUE;
}

int cli_args(struct cli *cli, int min, int max, const char ***args, int *nargs)
{
	const char **a = poptGetArgs(cli->ctx);
	int n = 0;

	while (a && a[n])
		n++;
	if (n < min)
		return cli_usage_error(cli->cmd, "missing argument: expected %s",
				       cli->cmd->args ? cli->cmd->args : "more arguments");
	if (max >= 0 && n > max)
		return cli_usage_error(cli->cmd, "unexpected argument '%s'", a[max]);
	*args = a;
	*nargs = n;
	return CLI_CONTINUE;
}

int cli_parse(struct cli *cli, const struct tp_command *cmd, const struct poptOption *opts,
	      int argc, const char **argv, int min, int max, const char ***args, int *nargs)
{
	int code = cli_begin(cli, cmd, opts, argc, argv);

	if (code == CLI_CONTINUE && (code = cli_args(cli, min, max, args, nargs)) != CLI_CONTINUE)
		cli_end(cli);
	return code;
}

int cli_parse_pool_or_area(struct cli *cli, const struct tp_command *cmd,
			   const struct poptOption *opts, int argc, const char **argv,
			   const char *const *metadata, const char *const *devices,
			   const char **pool)
{
	const char **args;
	int nargs, code = cli_begin(cli, cmd, opts, argc, argv);

	*pool = NULL;
	if (code != CLI_CONTINUE)
		return code;
	code = cli_args(cli, *metadata ? 0 : 1, *metadata ? 0 : 1, &args, &nargs);
	if (code == CLI_CONTINUE && *metadata && *devices)
		code = cli_usage_error(cmd, "--devices is for a POOL, not with --metadata");
	if (code != CLI_CONTINUE)
		cli_end(cli);
	else if (!*metadata)
		*pool = args[0];
	return code;
}

int cli_progress(const struct tp_command *cmd, const char *val, enum tp_progress_mode *mode)
{
	*mode = TP_PROGRESS_AUTO;
	if (val && tp_progress_parse(val, mode))
		return cli_usage_error(cmd, "invalid value '%s' for --progress: use yes, no or json",
				       val);
	return CLI_CONTINUE;
}

void cli_progress_begin(struct tp_progress *pg, const struct tp_command *cmd,
			enum tp_progress_mode mode, const char *object, enum tp_progress_unit unit,
			const char *items)
{
	tp_progress_begin(pg, mode, tp_cli.quiet, STDERR_FILENO, cmd->name, object, unit, items);
}

int cli_size(const struct tp_command *cmd, const char *opt, const char *val, char default_unit,
	     uint64_t *bytes)
{
	char why[160];

	if (tp_size_parse(val, default_unit, bytes, why, sizeof(why)))
		return cli_usage_error(cmd, "invalid size '%s' for %s: %s", val ? val : "", opt, why);
	return CLI_CONTINUE;
}

int cli_parse_yes_no(const struct tp_command *cmd, const char *opt, const char *val, int *on)
{
	enum tp_choice c;

	/* the spellings --zero takes (tp_choice_parse), less its auto */
	if (!tp_choice_parse(val, &c) && c != TP_CHOICE_AUTO) {
		*on = c == TP_CHOICE_YES;
		return CLI_CONTINUE;
	}
	return cli_usage_error(cmd, "%s takes y or yes, n or no, not '%s'", opt, val ? val : "");
}

int cli_parse_activate(const struct tp_command *cmd, const char *val, int *on)
{
	return cli_parse_yes_no(cmd, "--activate", val, on);
}

int cli_device_kind(const struct tp_command *cmd, const char *opt, const char *path)
{
	const char *kind = path ? io_dev_wrong_kind(path) : NULL;

	/* one line that names the device, its pattern and what to do;
	 * nothing is opened or probed after it */
	if (path && io_dev_filter_check(path))
		return TP_EXIT_USAGE;
	if (!kind)
		return CLI_CONTINUE;
	return cli_usage_error(cmd, "%s %s is %s, not a block device or image file; name a block "
			       "device or an image file", opt, path, kind);
}

int cli_device_list(const struct tp_command *cmd, const char *opt, const char *list)
{
	char buf[4096], *save = NULL, *dev;
	int rc = CLI_CONTINUE;

	if (!list)
		return CLI_CONTINUE;
	snprintf(buf, sizeof(buf), "%s", list);
	for (dev = strtok_r(buf, ",", &save); dev && rc == CLI_CONTINUE;
	     dev = strtok_r(NULL, ",", &save))
		rc = cli_device_kind(cmd, opt, dev);
	return rc;
}

int cli_area(const struct tp_command *cmd, struct cli_area *a, int allowed, const char *why)
{
	a->offset = a->size = 0;
	if (!allowed && (a->offset_s || a->size_s))
		return cli_usage_error(cmd, "%s", why);
	if (a->offset_s && cli_size(cmd, "--offset", a->offset_s, 'b', &a->offset) != CLI_CONTINUE)
		return TP_EXIT_USAGE;
	if (a->size_s && cli_size(cmd, "--size", a->size_s, 'b', &a->size) != CLI_CONTINUE)
		return TP_EXIT_USAGE;
	/* 0 is the default's "to the end": said only by leaving --size out */
	if (a->size_s && !a->size)
		return cli_usage_error(cmd, "--size 0: an area of no bytes; leave --size out for "
					    "an area that runs to the end of the device");
	return CLI_CONTINUE;
}

int cli_confirm(const char *fmt, ...)
{
	char line[64];
	va_list ap;

	if (tp_cli.yes)
		return 1;
	if (!isatty(STDIN_FILENO)) {
		log_error("refusing to ask a question without a terminal; add --yes to confirm");
		return 0;
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" [y/n]: ", stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

void cli_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}
