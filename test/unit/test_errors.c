/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The error classes: an internal error (TP_BUG) names its call site,
 * maps to exit 70 and fails every later write of the process; a pool
 * whose rollback failed is latched read-only for the rest of the command
 * (lib/pool/core/pool_access.c), so neither a change nor a VG commit
 * writes to it again. */
#include "lib/base/exitcodes.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "lib/pool/core/core_int.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The internal error, in a child process: it stops every write of the
 * process for good (there is no way back, not even for a test), so the
 * runner's own process must not meet it. 0 when all held, else which
 * check failed. */
static int bug_child(void)
{
	static struct tp_log_capture cap;
	struct io_engine *e, *later;
	char line[16];
	int r;

	if (io_mem_create(4096, "mem", &e) || io_write(e, 0, "ok", 2))
		return 1;
	tp_log_capture(&cap);
	r = TP_BUG("the %s broke", "invariant");
	tp_log_capture(NULL);
	snprintf(line, sizeof(line), ":%d:", __LINE__ - 2);
	if (r != -ENOTRECOVERABLE || tp_exit_from_errno(r) != TP_EXIT_BUG)
		return 2;
	if (!strstr(cap.buf, "internal error at test/unit/test_errors.c") || !strstr(cap.buf, line) ||
	    !strstr(cap.buf, "the invariant broke; this is a bug in tptools"))
		return 3;
	/* nothing more is written, through any engine, an old one or a new one */
	if (io_write(e, 0, "no", 2) != -EROFS)
		return 4;
	if (io_mem_create(4096, "later", &later) || io_write(later, 0, "no", 2) != -EROFS)
		return 5;
	io_destroy(later);
	io_destroy(e);
	return 0;
}

static void test_bug(void)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(bug_child());
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	CU_ASSERT_EQUAL(TP_EXIT_BUG, 70);
	/* the classes stay apart: bad input 3, failure 5 */
	CU_ASSERT_EQUAL(tp_exit_from_errno(-EINVAL), TP_EXIT_USAGE);
	CU_ASSERT_EQUAL(tp_exit_from_errno(-EIO), TP_EXIT_FAILED);
	CU_ASSERT_EQUAL(tp_exit_from_errno(-EFAULT), TP_EXIT_FAILED);
}

static int noop_apply(struct pool *p, const void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

static void test_latch(void)
{
	struct pool *p = pool_alloc();
	struct tp_log_capture cap;
	struct vg *next;
	uint8_t before[512], after[512];

	CU_ASSERT_FATAL(p != NULL);
	snprintf(p->name, sizeof(p->name), "vault");
	p->vg = vg_alloc();
	CU_ASSERT_FATAL(p->vg != NULL);
	for (int i = 0; i < VG_NR_ROLES; i++)
		CU_ASSERT_EQUAL_FATAL(io_mem_create(1 << 20, i ? "meta" : "data", &p->pv[i].io), 0);
	CU_ASSERT_EQUAL_FATAL(io_read(p->pv[VG_ROLE_META].io, 0, before, sizeof(before)), 0);
	CU_ASSERT_EQUAL(pool_refuse_latched(p), 0);

	tp_log_capture(&cap);
	pool_latch_read_only(p, "could not undo the VG metadata of the failed change");
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "pool vault: could not undo the VG metadata"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "writes nothing more to it"));
	/* the devices' engines refuse writes */
	for (int i = 0; i < VG_NR_ROLES; i++)
		CU_ASSERT_EQUAL(io_write(p->pv[i].io, 0, "x", 1), -EROFS);
	/* a VG commit and a change are refused before they write */
	CU_ASSERT_EQUAL_FATAL(vg_clone(p->vg, &next), 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_commit_vg(p, next), -EROFS);
	CU_ASSERT_EQUAL_FATAL(vg_clone(p->vg, &next), 0);
	CU_ASSERT_EQUAL(pool_change(p, next, noop_apply, NULL), -EROFS);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "made it read-only for the rest of the command"));
	CU_ASSERT_EQUAL(io_read(p->pv[VG_ROLE_META].io, 0, after, sizeof(after)), 0);
	CU_ASSERT_EQUAL(memcmp(before, after, sizeof(after)), 0);
	pool_close(p);
}

/* A critical message (the fencer's, lib/pool/lease): its tag, and not
 * silenced by -q as warnings and notices are. */
static void test_crit(void)
{
	struct tp_log_capture cap;
	int v = tp_log_verbosity();

	tp_log_set_verbosity(-2);
	tp_log_capture(&cap);
	log_notice("a notice");
	log_crit("pool %s lost its lease", "p");
	tp_log_capture(NULL);
	tp_log_set_verbosity(v);
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "a notice"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "critical: pool p lost its lease\n"));
}

TP_TEST_SUITE(errors, NULL, NULL,
	{ "a critical message has its tag and is never silenced", test_crit },
	{ "an internal error names its site, exits 70 and stops all writes", test_bug },
	{ "a failed rollback latches the pool read-only for the command", test_latch })
