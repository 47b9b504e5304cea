/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_check_run.c - the check and repair entry points of the tools
 * (pool_check.h): a pool (pool_check.c, pool_repair.c) or a bare area
 * (pool_area.c), with the results copied into lib/pool's own types. */
#include "lib/pool/check/pool_check_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)POOL_CLEAN == (int)THIN_CHECK_CLEAN &&
	       (int)POOL_NONFATAL == (int)THIN_CHECK_NONFATAL &&
	       (int)POOL_FATAL == (int)THIN_CHECK_FATAL,
	       "enum pool_verdict differs from enum thin_check_verdict");
_Static_assert(sizeof(((struct pool_finding *)0)->msg) ==
	       sizeof(((struct thin_check_problem *)0)->msg), "finding texts differ in size");

static int copy_findings(const struct thin_check_findings *f, struct pool_findings *out)
{
	out->verdict = (enum pool_verdict)f->verdict;
	out->nr_fatal = f->nr_fatal;
	out->nr_nonfatal = f->nr_nonfatal;
	if (!f->nr_problems)
		return 0;
	out->kept = calloc(f->nr_problems, sizeof(*out->kept));
	if (!out->kept)
		return -ENOMEM;
	out->nr_kept = f->nr_problems;
	for (size_t i = 0; i < f->nr_problems; i++) {
		out->kept[i].fatal = f->problems[i].fatal;
		memcpy(out->kept[i].msg, f->problems[i].msg, sizeof(out->kept[i].msg));
	}
	return 0;
}

static void copy_summary(const struct thin_check_report *t, struct pool_thin_summary *s)
{
	s->sb_ok = t->sb_ok;
	s->transaction_id = t->transaction_id;
	s->time = t->time;
	s->data_block_size = t->data_block_size;
	s->nr_meta_blocks = t->nr_meta_blocks;
	s->meta_used = t->meta_used;
	s->nr_data_blocks = t->nr_data_blocks;
	s->data_used = t->data_used;
	s->nr_devices = t->nr_devices;
	s->nr_mappings = t->nr_mappings;
	s->metadata_snap = t->metadata_snap;
}

int pool_check_run(const struct pool_check_params *p, struct pool_check_result *res)
{
	struct thin_check_opts o = { 0, p->progress, p->progress_ctx };
	struct pool_check_report prep;
	struct thin_check_report thin;
	int r;

	memset(res, 0, sizeof(*res));
	memset(&prep, 0, sizeof(prep));
	memset(&thin, 0, sizeof(thin));
	o.flags = (p->flags & POOL_CHECK_FAST) ? THIN_CHECK_FAST : 0;
	if ((p->flags & POOL_CHECK_SCRUB) && p->pool) {
		int live;

		r = pool_check_scrub_live(p->pool, p->devices, &prep, &res->scrub, &live);
		if (r || live) {
			if (!r && prep.f.nr_problems)
				snprintf(res->next, sizeof(res->next), "run 'tpstatus %s' to watch "
					 "the legs; a failed one is replaced with 'tpchange "
					 "--meta-replace DEV %s'", p->pool, p->pool);
			goto done;
		}
		pool_check_report_free(&prep);
		memset(&prep, 0, sizeof(prep));
	}
	if (p->metadata)
		r = pool_area_check(p->metadata, p->offset, p->size, &o, &thin);
	else
		r = pool_check(p->pool, p->devices, &o, &prep, &thin, res->next,
			       sizeof(res->next));
	if (!r && thin.scrub.ran) {
		struct pool_scrub_result *s = &res->scrub;

		s->ran = 1;
		s->blocks = thin.scrub.blocks;
		s->mismatched = thin.scrub.mismatched;
		for (unsigned i = 0; i < 2; i++) {
			s->bad[i] = thin.scrub.bad[i];
			s->healed[i] = thin.scrub.healed[i];
		}
	}
done:
	res->newer_format = prep.vg_too_new;
	res->nr_newer_copies = prep.nr_newer_copies;
	memcpy(res->newer_copy, prep.newer_copy, sizeof(res->newer_copy));
	if (!r)
		r = copy_findings(&prep.f, &res->pool);
	if (!r)
		r = copy_findings(&thin.f, &res->thin);
	if (!r)
		copy_summary(&thin, &res->sum);
	else
		pool_check_result_free(res);
	thin_check_report_free(&thin);
	pool_check_report_free(&prep);
	return r;
}

void pool_check_result_free(struct pool_check_result *res)
{
	if (!res)
		return;
	free(res->pool.kept);
	free(res->thin.kept);
	memset(res, 0, sizeof(*res));
}

static int copy_repair(const struct thin_repair_report *t, struct pool_repair_result *res)
{
	res->scanned = t->scanned;
	res->transaction_id = t->transaction_id;
	res->nr_devices = t->nr_devices;
	res->nr_mappings = t->nr_mappings;
	res->snapshot_dropped = t->snapshot_dropped;
	res->snapshot_trees = t->snapshot_trees;
	res->snapshot_transaction_id = t->snapshot_transaction_id;
	res->unmapped_in_use = t->unmapped_in_use;
	res->details_rebuilt = t->details_rebuilt;
	if (!t->nr_lost)
		return 0;
	res->lost = calloc(t->nr_lost, sizeof(*res->lost));
	if (!res->lost)
		return -ENOMEM;
	res->nr_lost = t->nr_lost;
	for (size_t i = 0; i < t->nr_lost; i++) {
		res->lost[i].whole_device = t->lost[i].whole_device;
		res->lost[i].dev_id = t->lost[i].dev_id;
		res->lost[i].begin = t->lost[i].begin;
		res->lost[i].end = t->lost[i].end;
		res->lost[i].block = t->lost[i].block;
		snprintf(res->lost[i].what, sizeof(res->lost[i].what), "%s",
			 t->lost[i].what ? t->lost[i].what : "");
	}
	return 0;
}

int pool_repair_run(const struct pool_repair_params *p, struct pool_repair_result *res)
{
	struct thin_repair_opts o = { p->set_transaction_id, p->transaction_id,
				      p->data_block_size, p->nr_data_blocks, p->progress,
				      p->progress_ctx };
	struct thin_repair_report rep;
	int r;

	memset(res, 0, sizeof(*res));
	memset(&rep, 0, sizeof(rep));
	if (p->metadata)
		r = pool_area_repair(p, &o, &rep);
	else
		r = pool_repair(p, &o, &rep, res);
	if (!r)
		r = copy_repair(&rep, res);
	thin_repair_report_free(&rep);
	return r;
}

void pool_repair_result_free(struct pool_repair_result *res)
{
	if (!res)
		return;
	free(res->lost);
	free(res->volumes);
	memset(res, 0, sizeof(*res));
}
