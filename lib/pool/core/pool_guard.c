/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_guard.c - no change to a pool whose thin metadata is known to be
 * fatally damaged: activation and every volume change (tvcreate, tvsnap,
 * tvremove) ask pool_guard first. It costs what `tpcheck --fast` costs
 * (metadata/thin/check.h: the superblock, the space-map bitmaps, the
 * device trees and the root of each mapping tree; never the mappings),
 * plus the needs_check flag the kernel sets. A pool the kernel runs is
 * the kernel's to guard: nothing is read. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"
#include "metadata/thin/check.h"

#include <errno.h>
#include <string.h>

int pool_guard(struct pool *p, const char *before, const char *refused, int warn_minor)
{
	struct thin_check_opts o = { THIN_CHECK_FAST, NULL, NULL };
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
