/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h - the command table and the option handling every command shares.
 *
 * Owns: tp_commands[] (generated from commands.def: one row per
 * implemented command; the internal ones, run by udev, are found by
 * tp_command_find but not listed), the common options (-v, -q, -y, --help,
 * --version) and their values in tp_cli. Commands only parse and print:
 * each reads its options with popt into lib/pool's params structs, leaves
 * every read and change of a pool to lib/pool's functions (as many as the
 * command needs: tpchange one for each setting, tprecv a check before the
 * receive) and maps the result to an exit code (lib/base/exitcodes.h).
 * Tools include only lib/pool's public headers, lib/base and tools
 * headers (scripts/check-layers.sh). */
#ifndef TP_TOOLS_CLI_H
#define TP_TOOLS_CLI_H

#include <popt.h>
#include "lib/base/progress.h"
#include <stdint.h>

struct tp_command {
	const char *name;	/* tpcreate: also the symlink name */
	const char *alias;	/* create: for `tp create` */
	const char *summary;
	const char *args;	/* synopsis of the non-option arguments */
	int (*run)(const struct tp_command *cmd, int argc, const char **argv);
};

#define TP_COMMAND(name, alias, summary, args, fn, pauses) \
	int fn(const struct tp_command *cmd, int argc, const char **argv);
#define TP_INTERNAL(name, summary, args, fn) TP_COMMAND(name, NULL, summary, args, fn, "")
#include "tools/commands.def"
#undef TP_INTERNAL
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

/* --allow-component: --devices may name a component of another block
 * device (an md member, a multipath path); for recovery only
 * (POOL_ALLOW_COMPONENT, STACKED DEVICES in tptools(7)). */
#define CLI_OPT_ALLOW_COMPONENT(var)                                           \
	{ "allow-component", '\0', POPT_ARG_NONE, &(var), 0,                    \
	  "with --devices: take a component of another device (an md member, a " \
	  "multipath path); for recovery only", NULL }

/* --progress[=WHEN] of a command that can run long (tptools(7) PROGRESS,
 * lib/base/progress.h): VAR is a const char * (NULL when not given; a bare
 * --progress reads as "yes", so it never takes the next argument). Parse
 * it with cli_progress, then show with cli_progress_begin. */
#define CLI_OPT_PROGRESS(var)                                                  \
	{ "progress", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &(var), 0,   \
	  "progress on standard error: shown on a terminal unless -q; WHEN: yes "  \
	  "(also when not a terminal), no, json (one JSON object per line)",      \
	  "WHEN" }

/* The --offset/--size options of a bare metadata area (tpcheck --metadata,
 * tpdump, tprepair --metadata, tprestore): PREFIX starts each help text
 * ("with --metadata: " or ""), FILE names the argument the area is in. */
struct cli_area {
	const char *offset_s, *size_s;	/* as given; NULL if not */
	uint64_t offset, size;		/* bytes, after cli_area() */
};
#define CLI_OPT_AREA(a, prefix, file)                                          \
	{ "offset", '\0', POPT_ARG_STRING, &(a).offset_s, 0,                     \
	  prefix "the metadata area starts this far into " file, "BYTES" },       \
	{ "size", '\0', POPT_ARG_STRING, &(a).size_s, 0,                         \
	  prefix "length of the metadata area (default: to the end)", "BYTES" }

/* One command line being parsed; lives on the command's stack. */
struct cli {
	const struct tp_command *cmd;
	poptContext ctx;
	struct poptOption table[3];
	const char **argv;	/* the command line popt reads (see CLI_OPT_PROGRESS) */
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

/* cli_begin, then cli_args: the start of most commands. Returns
 * CLI_CONTINUE, or an exit code with CLI released. */
int cli_parse(struct cli *cli, const struct tp_command *cmd, const struct poptOption *opts,
	      int argc, const char **argv, int min, int max, const char ***args, int *nargs);

/* cli_parse for the commands that take a POOL or --metadata FILE
 * (tpcheck, tprepair): one POOL argument, or none when *METADATA was
 * given, and *DEVICES (--devices) refused with it. *POOL: the argument or
 * NULL. Returns CLI_CONTINUE, or an exit code with CLI released. */
int cli_parse_pool_or_area(struct cli *cli, const struct tp_command *cmd,
			   const struct poptOption *opts, int argc, const char **argv,
			   const char *const *metadata, const char *const *devices,
			   const char **pool);

/* Parse the value of CLI_OPT_PROGRESS (NULL: not given, AUTO) into *MODE.
 * Returns CLI_CONTINUE or 3 with a message. */
int cli_progress(const struct tp_command *cmd, const char *val, enum tp_progress_mode *mode);

/* tp_progress_begin on standard error for CMD, honouring -q. */
void cli_progress_begin(struct tp_progress *pg, const struct tp_command *cmd,
			enum tp_progress_mode mode, const char *object, enum tp_progress_unit unit,
			const char *items);

/* Parse a size option value (K/M/G/T/P/s); returns CLI_CONTINUE or 3. */
int cli_size(const struct tp_command *cmd, const char *opt, const char *val, char default_unit,
	     uint64_t *bytes);

/* Parse the values of CLI_OPT_AREA into A. When !ALLOWED (the command
 * line names a pool, not a metadata area) and either option was given,
 * fails with the usage error WHY. Returns CLI_CONTINUE or 3. */
int cli_area(const struct tp_command *cmd, struct cli_area *a, int allowed, const char *why);

/* Parse the y|n value VAL of option OPT (e.g. "--readonly") into *ON:
 * y, yes, n, no in any case, as --zero takes them (tp_choice_parse)
 * without auto. Returns CLI_CONTINUE or 3 naming OPT. */
int cli_parse_yes_no(const struct tp_command *cmd, const char *opt, const char *val, int *on);

/* cli_parse_yes_no for --activate (tpcreate, tvcreate, tpchange,
 * tvchange). */
int cli_parse_activate(const struct tp_command *cmd, const char *val, int *on);

/* A device path option OPT (e.g. "--data") names PATH: when it exists and
 * is neither a block device nor a regular file (a FIFO, a directory,
 * /dev/null), a usage error naming it (3), before anything is opened; a
 * block device the devices filter rejects, the same exit 3 with one line
 * (naming it, the pattern and what to do: lib/base/devopen.h); else
 * CLI_CONTINUE (a missing path is the open's to report). */
int cli_device_kind(const struct tp_command *cmd, const char *opt, const char *path);
/* The same for each device of the comma-separated LIST (--devices
 * DATA,META, tpcreate --meta DEV1,DEV2); NULL is CLI_CONTINUE. */
int cli_device_list(const struct tp_command *cmd, const char *opt, const char *list);

/* Print "tptools VERSION" on stdout (--version). */
void cli_print_version(void);

/* Print a usage error naming the command, and return 3. */
int cli_usage_error(const struct tp_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ask "question [y/n]" on the terminal unless -y was given; 1 = yes. */
int cli_confirm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* S as a JSON string, quoted and escaped, on standard output. */
void cli_json_string(const char *s);

#endif
