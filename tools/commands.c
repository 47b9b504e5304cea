/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.c - the command table, expanded from commands.def, and the
 * dispatch on the name a command was run by. */
#include "tools/cli.h"
#include "tools/config_keys.h"
#include "lib/base/exitcodes.h"
#include "lib/base/compiler.h"
#include "lib/base/critical.h"
#include "lib/base/dmlog.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const struct tp_command tp_commands[] = {
#define TP_COMMAND(name, alias, summary, args, fn, pauses) \
	{ #name, alias, summary, args, fn },
#include "tools/commands.def"
#undef TP_COMMAND
	{ NULL, NULL, NULL, NULL, NULL },
};

const unsigned tp_ncommands = sizeof(tp_commands) / sizeof(tp_commands[0]) - 1;

/* Not listed by `tp --help`; `tp NAME` only. */
static const struct tp_command internal_commands[] = {
#define TP_COMMAND(name, alias, summary, args, fn, pauses)
#define TP_INTERNAL(name, summary, args, fn) { name, NULL, summary, args, fn },
#include "tools/commands.def"
#undef TP_INTERNAL
#undef TP_COMMAND
};

const struct tp_command *tp_command_find(const char *name)
{
	for (unsigned i = 0; i < tp_ncommands; i++)
		if (!strcmp(tp_commands[i].name, name) ||
		    (tp_commands[i].alias && !strcmp(tp_commands[i].alias, name)))
			return &tp_commands[i];
	for (unsigned i = 0; i < TP_ARRAY_SIZE(internal_commands); i++)
		if (!strcmp(internal_commands[i].name, name))
			return &internal_commands[i];
	return NULL;
}

static void print_commands(FILE *f)
{
	fprintf(f, "Usage: tp COMMAND [OPTION...] [ARG...]   (or run a command by its own name)\n\n"
		   "tptools %s - thin-provisioned pools and volumes\n\nCommands:\n",
		TP_VERSION);
	for (unsigned i = 0; i < tp_ncommands; i++)
		fprintf(f, "  %-14s %-11s %s\n", tp_commands[i].name,
			tp_commands[i].alias ? tp_commands[i].alias : "", tp_commands[i].summary);
	if (!tp_ncommands)
		fprintf(f, "  (none yet)\n");
	fprintf(f, "\n'tp COMMAND --help' or 'COMMAND --help' shows a command's options.\n"
		   "Exit codes: 0 ok, 3 bad command line, 5 failed (see tptools(7)).\n");
}

/* The heap past its first HEAP_SMALL bytes in 2 MiB pages where the
 * kernel has them (transparent huge pages, "madvise" or "always"): a
 * command at 20,000 volumes touches 26 MB of heap (the VG text, its
 * model and the changed copy), 6,000 first-touch faults of 4 KiB, 17 to
 * 26 ms on the 2-CPU test machines, against 4-5 ms as 13 faults of
 * 2 MiB. A command on a small pool stays within the first HEAP_SMALL
 * bytes, in 4 KiB pages. The room is taken from the kernel and given
 * back to the heap at once (untouched, it costs no memory), and kept
 * there (M_TRIM_THRESHOLD above). */
#define HEAP_SMALL (1u << 20)
#define HEAP_ROOM (96u << 20)
#define HUGE_PAGE (2u << 20)
static void heap_huge_pages(void)
{
#ifdef __SANITIZE_ADDRESS__
	/* (ASan's allocator is not glibc's heap: the room would be a block
	 * of its own, its 12 MiB of shadow poisoned at each command) */
#else
	char *p = malloc(HEAP_ROOM);
	uintptr_t from, to;

	if (!p)
		return;
	from = ((uintptr_t)p + HEAP_SMALL + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	to = ((uintptr_t)p + HEAP_ROOM) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (to > from && madvise((void *)from, to - from, MADV_HUGEPAGE))
		log_debug(TP_DBG_POOL, "madvise(MADV_HUGEPAGE): %s", strerror(errno));
	free(p);
#endif
}

int tp_main(int argc, const char **argv)
{
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
	const struct tp_command *cmd;

	base = base ? base + 1 : (argc > 0 ? argv[0] : "tp");
	tp_log_init(base);
	pool_init();
	if (tp_test_fail("mirror-keep-bad-leg"))	/* t-damage-matrix's broken fallback */
		io_mirror_set_keep_bad_legs(1);
	cmd = tp_command_find(base);
	if (!cmd) {
		/* Invoked as tp (or an unknown name): the command is argv[1]. */
		if (argc < 2) {
			print_commands(stderr);
			return TP_EXIT_USAGE;
		}
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
		    !strcmp(argv[1], "help")) {
			print_commands(stdout);
			return TP_EXIT_OK;
		}
		if (!strcmp(argv[1], "--version")) {
			cli_print_version();
			return TP_EXIT_OK;
		}
		cmd = tp_command_find(argv[1]);
		if (!cmd) {
			log_error("unknown command '%s'; 'tp --help' lists the commands", argv[1]);
			return TP_EXIT_USAGE;
		}
		argc--;
		argv++;
		tp_log_init(cmd->name);
	}
	/* A command reads a pool's whole VG text and model and copies them
	 * (a change keeps the old model to undo): at 100,000 volumes tens of
	 * MB allocated and freed a few times. glibc gives blocks that large
	 * back to the kernel on free and takes fresh zeroed pages for the
	 * next, a page fault per 4 KiB: at 20,000 volumes a third of a
	 * tvcreate's time. Kept in the heap instead, the next copy reuses
	 * them. A command ends within a second; the daemon keeps glibc's
	 * default, not to hold its largest pool's memory between looks. */
	if (strcmp(cmd->name, "monitor")) {
		mallopt(M_MMAP_THRESHOLD, 256 << 20);
		mallopt(M_TRIM_THRESHOLD, 512 << 20);
		heap_huge_pages();
	}
	/* libdevmapper's messages go through tptools' log from the start
	 * (lib/base/dmlog.h), so a library that resets them when done
	 * (libcryptsetup) finds ours to put back (tp_dmlog_reclaim) */
	tp_dmlog_install();
	/* tptools.conf applies to every command; tpconfig reads it itself
	 * (to report on it, or on another file with --file) */
	if (cmd->run != cmd_tpconfig) {
		int rc = config_keys_load(NULL);
		if (rc) {
			log_error("not run, for the configuration file above; 'tpconfig' "
				  "checks it (tptools.conf(5))");
			return rc;
		}
	}
	/* what the VG backups of this command say made them: the command
	 * line, under the command's own name */
	if (argc > 0) {
		const char **words = malloc((size_t)argc * sizeof(*words));

		if (words) {
			words[0] = cmd->name;
			for (int i = 1; i < argc; i++)
				words[i] = argv[i];
			tp_log_set_command(argc, words);
			free(words);
		}
	}
	return cmd->run(cmd, argc, argv);
}
