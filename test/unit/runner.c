/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.c - the CUnit runner: every registered suite, or those named on
 * the command line. Prints CUnit's summary and a final
 * "unit: N passed, N failed" line; writes "N M" and the failed tests to
 * $TP_RESULTS if set. */
#include "lib/pool/pool.h"
#include "test/unit/tp_test.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct tp_test_suite *suites;
static char tmpdir[256];

void tp_test_register(struct tp_test_suite *s)
{
	struct tp_test_suite **p = &suites;
	while (*p && strcmp((*p)->name, s->name) < 0)
		p = &(*p)->next;
	s->next = *p;
	*p = s;
}

const char *tp_test_tmpdir(void)
{
	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/tp-unit-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tmpdir;
}

static int wanted(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

/* TP_RESULTS: "passed failed", then each failed test as "suite: test",
 * once however many of its assertions failed (test/run-all.sh lists them) */
static void write_results(const char *path, unsigned passed, unsigned failed)
{
	FILE *f = fopen(path, "w");
	const CU_FailureRecord *r, *q;

	if (!f)
		return;
	fprintf(f, "%u %u\n", passed, failed);
	for (r = CU_get_failure_list(); r; r = r->pNext) {
		for (q = CU_get_failure_list(); q != r; q = q->pNext)
			if (q->pSuite == r->pSuite && q->pTest == r->pTest)
				break;
		if (q != r)
			continue;
		fprintf(f, "%s: %s\n", r->pSuite ? r->pSuite->pName : "?",
			r->pTest ? r->pTest->pName : "(suite set-up or clean-up)");
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	unsigned run, failed;
	const char *results = getenv("TP_RESULTS");

	pool_init();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (struct tp_test_suite *s = suites; s; s = s->next) {
		CU_pSuite cs;
		if (!wanted(s->name, argc, argv))
			continue;
		cs = CU_add_suite(s->name, s->init, s->cleanup);
		for (const struct tp_test_case *c = s->cases; c->name; c++)
			CU_add_test(cs, c->name, c->fn);
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	run = CU_get_number_of_tests_run();
	failed = CU_get_number_of_tests_failed();
	if (CU_get_number_of_suites_failed())
		failed += CU_get_number_of_suites_failed();
	if (results)
		write_results(results, run - (failed > run ? run : failed), failed);
	CU_cleanup_registry();
	if (tmpdir[0]) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	printf("\nunit: %u passed, %u failed\n", run - (failed > run ? run : failed), failed);
	return failed ? 1 : 0;
}
