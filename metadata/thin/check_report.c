/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_report.c - the checker's findings: thin_check_vadd() and
 * thin_chk_problem() record a problem and the verdict it adds up to.
 * See check.h and check_int.h. */
#include "metadata/thin/check.h"
#include "metadata/thin/check_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void thin_check_vadd(struct thin_check_findings *f, int fatal, uint64_t block, const char *fmt,
		     va_list ap)
{
	struct thin_check_problem *p;

	if (fatal) {
		f->nr_fatal++;
		f->verdict = THIN_CHECK_FATAL;
	} else {
		f->nr_nonfatal++;
		if (f->verdict == THIN_CHECK_CLEAN)
			f->verdict = THIN_CHECK_NONFATAL;
	}
	if (f->nr_problems >= THIN_CHECK_MAX_PROBLEMS)
		return;
	if (!f->problems && !(f->problems = calloc(THIN_CHECK_MAX_PROBLEMS, sizeof(*p))))
		return;
	p = &f->problems[f->nr_problems++];
	p->fatal = fatal;
	p->block = block;
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
}

void thin_check_findings_free(struct thin_check_findings *f)
{
	free(f->problems);
	memset(f, 0, sizeof(*f));
}

void thin_chk_problem(struct chk *c, int fatal, uint64_t block, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	thin_check_vadd(&c->rep->f, fatal, block, fmt, ap);
	va_end(ap);
}
