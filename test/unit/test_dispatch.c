/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Command dispatch: argv[0] basename, `tp <cmd>`, aliases, help, errors. */
#include "lib/base/exitcodes.h"
#include "tools/cli.h"
#include "test/unit/tp_test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int quiet_main(int argc, const char **argv)
{
	int out = dup(1), err = dup(2), r;
	FILE *n1 = freopen("/dev/null", "w", stdout);
	FILE *n2 = freopen("/dev/null", "w", stderr);
	(void)n1;
	(void)n2;
	r = tp_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	return r;
}

static void test_table(void)
{
	for (unsigned i = 0; i < tp_ncommands; i++) {
		const struct tp_command *c = &tp_commands[i];
		CU_ASSERT_PTR_NOT_NULL(c->run);
		CU_ASSERT(strlen(c->summary) > 5);
		CU_ASSERT_PTR_EQUAL(tp_command_find(c->name), c);
		if (c->alias)
			CU_ASSERT_PTR_EQUAL(tp_command_find(c->alias), c);
		/* names unique */
		for (unsigned j = i + 1; j < tp_ncommands; j++)
			CU_ASSERT(strcmp(c->name, tp_commands[j].name) != 0);
	}
	CU_ASSERT_PTR_NULL(tp_command_find("nosuchcommand"));
}

static void test_tp_itself(void)
{
	const char *help[] = { "tp", "--help", NULL };
	const char *ver[] = { "/usr/sbin/tp", "--version", NULL };
	const char *none[] = { "tp", NULL };
	const char *bad[] = { "tp", "frobnicate", NULL };
	CU_ASSERT_EQUAL(quiet_main(2, help), TP_EXIT_OK);
	CU_ASSERT_EQUAL(quiet_main(2, ver), TP_EXIT_OK);
	CU_ASSERT_EQUAL(quiet_main(1, none), TP_EXIT_USAGE);
	CU_ASSERT_EQUAL(quiet_main(2, bad), TP_EXIT_USAGE);
}

static void test_every_command_help(void)
{
	for (unsigned i = 0; i < tp_ncommands; i++) {
		char path[64];
		const char *by_link[] = { path, "--help", NULL };
		const char *by_tp[] = { "tp", tp_commands[i].name, "--help", NULL };
		const char *bad_opt[] = { tp_commands[i].name, "--no-such-option", NULL };
		const char *ver[] = { "tp", tp_commands[i].name, "--version", NULL };
		snprintf(path, sizeof(path), "/sbin/%s", tp_commands[i].name);
		CU_ASSERT_EQUAL(quiet_main(2, by_link), TP_EXIT_OK);
		CU_ASSERT_EQUAL(quiet_main(3, by_tp), TP_EXIT_OK);
		CU_ASSERT_EQUAL(quiet_main(2, bad_opt), TP_EXIT_USAGE);
		CU_ASSERT_EQUAL(quiet_main(3, ver), TP_EXIT_OK);
		if (tp_commands[i].alias) {
			const char *by_alias[] = { "tp", tp_commands[i].alias, "--help", NULL };
			CU_ASSERT_EQUAL(quiet_main(3, by_alias), TP_EXIT_OK);
		}
	}
}

TP_TEST_SUITE(dispatch, NULL, NULL,
	      { "command table well-formed", test_table },
	      { "tp --help/--version/unknown", test_tp_itself },
	      { "every command: --help by link and by tp, bad option", test_every_command_help })
