/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/pool/core/pool_hold.c: a live tpsend's hold on its volumes refuses
 * the VG changes that would remove, thaw or re-point them, and only
 * those, and only while it is held. */
#include "lib/base/log.h"
#include "lib/pool/core/core_int.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(struct vg *vg, const char *name, uint32_t dev_id, int ro)
{
	struct vg_volume v;

	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.dev_id = dev_id;
	v.size = 1 << 20;
	v.read_only = ro;
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
}

/* NEXT: P's VG changed by FN; pool_holds_check_change's answer. */
static int check(struct pool *p, void (*fn)(struct vg *), struct tp_log_capture *cap)
{
	struct vg *next;
	int r;

	CU_ASSERT_EQUAL_FATAL(vg_clone(p->vg, &next), 0);
	fn(next);
	tp_log_capture(cap);
	r = pool_holds_check_change(p, next);
	tp_log_capture(NULL);
	vg_free(next);
	return r;
}

static void remove_s1(struct vg *vg) { CU_ASSERT_EQUAL(vg_remove_volume(vg, "s1"), 0); }
static void remove_www(struct vg *vg) { CU_ASSERT_EQUAL(vg_remove_volume(vg, "www"), 0); }
static void thaw_s1(struct vg *vg) { vg_find_volume(vg, "s1")->read_only = 0; }
static void thaw_s2(struct vg *vg) { vg_find_volume(vg, "s2")->read_only = 0; }
static void repoint_s1(struct vg *vg) { vg_find_volume(vg, "s1")->dev_id = 7; }
static void rename_s1(struct vg *vg) { snprintf(vg_find_volume(vg, "s1")->name, VG_NAME_MAX + 1, "old"); }
static void add_vol(struct vg *vg) { add(vg, "new", 9, 1); }

static void test_hold(void)
{
	struct pool *p = calloc(1, sizeof(*p));
	struct tp_log_capture cap;
	struct tp_lock *hold = NULL;

	CU_ASSERT_FATAL(p != NULL);
	setenv("TPTOOLS_DIR", tp_test_tmpdir(), 1);
	snprintf(p->name, sizeof(p->name), "vault");
	p->vg = vg_alloc();
	CU_ASSERT_FATAL(p->vg != NULL);
	snprintf(p->vg->name, sizeof(p->vg->name), "vault");
	p->vg->next_dev_id = 16;
	add(p->vg, "www", 0, 0);
	add(p->vg, "s1", 1, 1);
	add(p->vg, "s2", 2, 1);

	/* nothing held: every change goes */
	CU_ASSERT_EQUAL(check(p, remove_s1, &cap), 0);
	CU_ASSERT_EQUAL(check(p, thaw_s1, &cap), 0);

	CU_ASSERT_EQUAL_FATAL(pool_hold_volume(p, vg_find_volume(p->vg, "s1"), &hold), 0);
	CU_ASSERT_EQUAL(check(p, remove_s1, &cap), -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "volume s1 is being read by tpsend"));
	CU_ASSERT_EQUAL(check(p, thaw_s1, &cap), -EBUSY);
	CU_ASSERT_EQUAL(check(p, repoint_s1, &cap), -EBUSY);
	/* what leaves s1's chunks where they are goes on */
	CU_ASSERT_EQUAL(check(p, rename_s1, &cap), 0);
	CU_ASSERT_EQUAL(check(p, thaw_s2, &cap), 0);
	CU_ASSERT_EQUAL(check(p, remove_www, &cap), 0);
	CU_ASSERT_EQUAL(check(p, add_vol, &cap), 0);
	/* a second send holds it too; the hold ends with the last */
	{
		struct tp_lock *h2 = NULL;
		CU_ASSERT_EQUAL_FATAL(pool_hold_volume(p, vg_find_volume(p->vg, "s1"), &h2), 0);
		tp_lock_release(hold);
		CU_ASSERT_EQUAL(check(p, remove_s1, &cap), -EBUSY);
		tp_lock_release(h2);
	}
	CU_ASSERT_EQUAL(check(p, remove_s1, &cap), 0);
	vg_free(p->vg);
	free(p);
	unsetenv("TPTOOLS_DIR");
}

TP_TEST_SUITE(send_hold, NULL, NULL,
	{ "a live send's hold refuses removing, thawing, re-pointing", test_hold })
