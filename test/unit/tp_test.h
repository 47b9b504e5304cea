/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp_test.h - CUnit glue: each test file declares its suite with
 * TP_TEST_SUITE(name, init, cleanup, {"case", fn}, ...) and is linked into
 * the one runner (test/unit/runner.c) without editing a central list. */
#ifndef TP_TEST_H
#define TP_TEST_H

#include <CUnit/CUnit.h>

struct tp_test_case {
	const char *name;
	CU_TestFunc fn;
};

struct tp_test_suite {
	const char *name;
	CU_InitializeFunc init;
	CU_CleanupFunc cleanup;
	const struct tp_test_case *cases;
	struct tp_test_suite *next;
};

void tp_test_register(struct tp_test_suite *s);

/* A temporary directory for the running test (created on first use,
 * removed by the runner at exit). */
const char *tp_test_tmpdir(void);

#define TP_TEST_SUITE(sname, init, cleanup, ...)                                  \
	static const struct tp_test_case sname##_cases[] = { __VA_ARGS__,          \
							     { NULL, NULL } };     \
	static struct tp_test_suite sname##_suite = { #sname, init, cleanup,      \
						      sname##_cases, NULL };       \
	__attribute__((constructor)) static void sname##_register(void)           \
	{                                                                          \
		tp_test_register(&sname##_suite);                                  \
	}

#endif
