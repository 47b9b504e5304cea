/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_guard.c - no change to a pool whose thin metadata is known to be
 * fatally damaged: activation and every volume change (tvcreate, tvsnap,
 * tvremove) ask pool_guard first. It costs what `tpcheck --fast` costs
 * (metadata/thin/check.h: the superblock, the space-map bitmaps, the
 * device trees and the root of each mapping tree; never the mappings),
 * plus the needs_check flag the kernel sets; a volume change reads the
 * roots of only the trees it relies on (pool_guard_change), so that it
 * costs the same in a pool of 100,000 volumes as in one of three. A pool
 * the kernel runs is the kernel's to guard: nothing is read. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"
#include "metadata/thin/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The thin devices a change from OLD to NEXT relies on: those of the
 * entries it adds, drops or alters (in any of the four lists), and the
 * origins of the volumes it adds, found by one walk of each pair of
 * lists (vg_pair_step, metadata/vg/vg.h); an entry it cannot match only costs a root
 * read more. More than TOUCH_MAX of them: 0, every root is read. */
#define TOUCH_MAX 64u

struct touched {
	uint64_t id[TOUCH_MAX];
	size_t n;
	int all;
};

static void touch(struct touched *t, uint64_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->id[i] == id)
			return;
	if (t->n == TOUCH_MAX)
		t->all = 1;
	else
		t->id[t->n++] = id;
}

static void touch_entry(struct touched *t, const struct vg *vg, const struct vg_volume *v)
{
	const struct vg_volume *o;

	touch(t, v->dev_id);
	if (v->origin[0] && (o = vg_find_volume(vg, v->origin)))
		touch(t, o->dev_id);
}

static void touch_list(struct touched *t, const struct vg *old, const struct vg_volume *a,
		       unsigned na, const struct vg *next, const struct vg_volume *b, unsigned nb)
{
	struct vg_pair_step s;
	unsigned i = 0, j = 0;

	while (!t->all && vg_pair_step(a, na, b, nb, &i, &j, &s)) {
		if (s.gone)
			touch_entry(t, old, s.gone);
		if (s.came)
			touch_entry(t, next, s.came);
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static int guard(struct pool *p, const char *before, const char *refused, int warn_minor,
		 const struct touched *t);

int pool_guard(struct pool *p, const char *before, const char *refused, int warn_minor)
{
	return guard(p, before, refused, warn_minor, NULL);
}

int pool_guard_change(struct pool *p, const struct vg *next)
{
	struct touched t = { .n = 0 };

	touch_list(&t, p->vg, p->vg->volumes, p->vg->nr_volumes, next, next->volumes,
		   next->nr_volumes);
	touch_list(&t, p->vg, p->vg->receives, p->vg->nr_receives, next, next->receives,
		   next->nr_receives);
	touch_list(&t, p->vg, p->vg->removals, p->vg->nr_removals, next, next->removals,
		   next->nr_removals);
	touch_list(&t, p->vg, p->vg->trash, p->vg->nr_trash, next, next->trash, next->nr_trash);
	qsort(t.id, t.n, sizeof(t.id[0]), cmp_u64);
	return guard(p, "the change", "nothing was changed", 0, t.all ? NULL : &t);
}

static int guard(struct pool *p, const char *before, const char *refused, int warn_minor,
		 const struct touched *t)
{
	struct thin_check_opts o = { THIN_CHECK_FAST, NULL, NULL, t ? t->id : NULL,
				     t ? t->n : 0 };
	struct thin_check_report rep;
	int r;

	if (p->be->live || !p->md)
		return 0;
	if (thin_needs_check(p->md)) {
		log_error("pool %s: its thin metadata is flagged needs_check (the kernel sets it "
			  "after a metadata I/O error or a failed commit); run 'tpcheck %s', then "
			  "'tprepair %s', which checks it and rewrites it without the flag",
			  p->name, p->name, p->name);
		return -EUCLEAN;
	}
	r = thin_check_io(p->thin_io, &o, &rep);
	if (r) {
		log_error("pool %s: the check before %s could not run: %s", p->name, before,
			  strerror(-r));
		return r;
	}
	if (rep.f.verdict == THIN_CHECK_FATAL) {
		log_error("pool %s: its thin metadata is damaged%s%s; %s. Run "
			  "'tpcheck %s' for details and 'tprepair %s' to salvage it", p->name,
			  rep.f.nr_problems ? ": " : "",
			  rep.f.nr_problems ? rep.f.problems[0].msg : "", refused, p->name, p->name);
		r = -EUCLEAN;
	} else if (rep.f.verdict == THIN_CHECK_NONFATAL && warn_minor) {
		log_warn("pool %s: the thin metadata has minor problems (%s); 'tpcheck %s' "
			 "lists them", p->name,
			 rep.f.nr_problems ? rep.f.problems[0].msg : "non-fatal", p->name);
	}
	thin_check_report_free(&rep);
	return r;
}
