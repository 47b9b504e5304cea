/* cli.h - the command table and the option handling every command shares.
 *
 * Owns: tp_commands[] (generated from commands.def: one row per
 * implemented command), the common options (-v, -q, -y, --help,
 * --version) and their values in tp_cli. Commands only parse and print:
 * each fills a params struct with popt, calls one lib/pool function and
 * maps the result to an exit code (lib/base/exitcodes.h). */
#ifndef TP_TOOLS_CLI_H
#define TP_TOOLS_CLI_H

#include <popt.h>
#include <stdint.h>

enum tp_cmd_flags {
	TP_CMD_MUTATES = 1 << 0,	/* changes on-disk state; takes the pool lock */
	TP_CMD_OFFLINE = 1 << 1,	/* refuses an active pool */
};

struct tp_command {
	const char *name;	/* tpcreate: also the symlink name */
	const char *alias;	/* create: for `tp create` */
	const char *summary;
	const char *args;	/* synopsis of the non-option arguments */
	int (*run)(const struct tp_command *cmd, int argc, const char **argv);
	unsigned flags;
};

#define TP_COMMAND(name, alias, summary, args, fn, flags) \
	int fn(const struct tp_command *cmd, int argc, const char **argv);
#include "tools/commands.def"
#undef TP_COMMAND

extern const struct tp_command tp_commands[];
extern const unsigned tp_ncommands;

/* Values of the common options, reset by cli_begin(). */
struct tp_cli {
	int verbose;
	int quiet;
	int yes;
};
extern struct tp_cli tp_cli;

/* Find by full name or alias; NULL if unknown. */
const struct tp_command *tp_command_find(const char *name);

/* Dispatch on basename(argv[0]), or on argv[1] when invoked as `tp`.
 * Returns the exit code. */
int tp_main(int argc, const char **argv);

/* The --devices DATA,META option every pool command takes: the pool's
 * devices, instead of the devices file (image files need it once). */
#define CLI_OPT_DEVICES(var)                                                   \
	{ "devices", '\0', POPT_ARG_STRING, &(var), 0,                          \
	  "the pool's devices, instead of the devices file", "DATA,META" }

/* One command line being parsed; lives on the command's stack. */
struct cli {
	const struct tp_command *cmd;
	poptContext ctx;
	struct poptOption table[3];
};

/* Start parsing a command line with OPTS (a table ending in POPT_TABLEEND;
 * the common options are appended). Options of OPTS must store through
 * their arg pointer (val 0). Returns CLI_CONTINUE with CLI ready, or an
 * exit code: 0 after --help/--version, 3 after a bad option (CLI is then
 * already released). */
#define CLI_CONTINUE (-1)
int cli_begin(struct cli *cli, const struct tp_command *cmd, const struct poptOption *opts,
	      int argc, const char **argv);
void cli_end(struct cli *cli);

/* Collect the remaining arguments; checks MIN..MAX (MAX < 0: unbounded).
 * Returns CLI_CONTINUE or 3 with a message. *ARGS is owned by CLI. */
int cli_args(struct cli *cli, int min, int max, const char ***args, int *nargs);

/* Parse a size option value (K/M/G/T/P/s); returns CLI_CONTINUE or 3. */
int cli_size(const struct tp_command *cmd, const char *opt, const char *val, char default_unit,
	     uint64_t *bytes);

/* Print a usage error naming the command, and return 3. */
int cli_usage_error(const struct tp_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ask "question [y/n]" on the terminal unless -y was given; 1 = yes. */
int cli_confirm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
