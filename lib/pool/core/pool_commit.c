/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_commit.c - a VG commit of an open pool (core.h): both
 * devices' VG areas, as one critical section, then the backup. A commit
 * that would remove, thaw or re-point a volume a live tpsend reads is
 * refused first (pool_hold.c), and so is one that would raise the
 * volumes' virtual sizes above the pool's over-provisioning limit
 * (pool_provision.c). Between pool_settings_begin and pool_settings_commit
 * a commit only stages the VG in memory, and the settings' preparatory
 * writes run just before the one real commit (pool.h). */
#include "lib/pool/core/core_int.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* OLD: NULL, the replaced VG is freed; else it goes there. */
static int commit(struct pool *p, struct vg *next, int backup, struct vg **old)
{
	struct vg_pv pvs[POOL_MAX_PVS];
	unsigned n = pool_nr_pvs(p);
	int r, staged = p->stage_base != NULL;
	char *text = NULL;
	size_t len = 0;

	/* only the devices NEXT lists: a device being added or taken away
	 * gets no copy of a VG without it */
	if (n > VG_NR_ROLES + next->nr_xdata)
		n = VG_NR_ROLES + next->nr_xdata;

	memcpy(pvs, p->pv, sizeof(pvs));

	if ((r = pool_refuse_latched(p)) || (r = pool_holds_check_change(p, next)) ||
	    (r = pool_provision_check(p, next))) {
		vg_free(next);
		return r;
	}
	if (staged && p->staging) {
		/* staged: P's VG in memory only, the durable one kept */
		next->seqno = p->vg->seqno;
		if (old)
			*old = p->vg;
		else
			vg_free(p->vg);
		p->vg = next;
		p->staged++;
		return pool_features_vg_changed(p);
	}
	/* the one real commit of staged settings: their preparatory writes
	 * first (a failure commits nothing) */
	for (unsigned i = 0; staged && i < 2 && p->stage_prep[i]; i++)
		if ((r = p->stage_prep[i](p, next))) {
			log_error("pool %s: nothing was changed", p->name);
			vg_free(next);
			return r;
		}
	if (staged)
		tp_test_pause("settings-prepared");
	if (staged && tp_test_fail("settings-commit")) {
		log_error("pool %s: VG metadata commit failed: %s; nothing was changed", p->name,
			  strerror(EIO));
		vg_free(next);
		return -EIO;
	}
	/* each device's path as opened, absolute (a repair opens the names
	 * given, maybe relative), its links kept */
	for (int i = 0; i < VG_NR_ROLES; i++)
		if (p->pv[i].io)
			tp_path_absolute_to(next->dev[i].path, sizeof(next->dev[i].path),
					    p->pv[i].io->name);
	for (unsigned i = 1; i < vg_nr_data(next) && POOL_DATA_PV(i) < n; i++)
		tp_path_absolute_to(vg_data_dev(next, i)->path, sizeof(next->dev[0].path),
			    p->pv[POOL_DATA_PV(i)].io->name);
	/* the features' devices that get a copy (the second metadata
	 * device), and what a writer does before its first commit (a stale
	 * copy of the thin metadata resynced) */
	pool_features_commit_targets(p, next, pvs, &n);
	/* a lost first metadata device gets no copy (pool_attach.c) */
	if (!pvs[VG_ROLE_META].io) {
		memmove(&pvs[VG_ROLE_META], &pvs[VG_ROLE_META + 1],
			(n - VG_ROLE_META - 1) * sizeof(pvs[0]));
		n--;
	}
	/* a new first data device (tpreduce --data of the first): the
	 * metadata device's copy first, which names the first data device
	 * to the next command that looks for the pool (host/pool_find.c);
	 * the new first one gets its copy only after it */
	if (pvs[VG_ROLE_META].io && p->pv[VG_ROLE_DATA].io &&
	    strcmp(next->dev[VG_ROLE_DATA].pv_uuid, p->vg->dev[VG_ROLE_DATA].pv_uuid)) {
		struct vg_pv t = pvs[VG_ROLE_DATA];

		pvs[VG_ROLE_DATA] = pvs[VG_ROLE_META];
		pvs[VG_ROLE_META] = t;
	}
	next->seqno = p->vg->seqno;
	tp_critical_begin();
	r = vg_commit_change(pvs, n, p->vg, next, &text, &len);
	tp_critical_end();
	if (r) {
		log_error("pool %s: VG metadata commit failed: %s; nothing was changed",
			  p->name, strerror(-r));
		vg_free(next);
		return r;
	}
	p->commits++;
	if (backup)
		pool_backup_commit_text(next, text, len);
	vg_source_text(next, text);	/* (the next commit's source, or freed) */
	if (old)
		*old = p->vg;
	else
		vg_free(p->vg);
	p->vg = next;
	if (staged) {
		/* committed: the staged settings are the pool's */
		vg_free(p->stage_base);
		p->stage_base = NULL;
		p->staged = 0;
		memset(p->stage_prep, 0, sizeof(p->stage_prep));
		tp_test_pause("settings-committed");
	}
	return pool_features_vg_changed(p);
}

int pool_commit_vg(struct pool *p, struct vg *next)
{
	return commit(p, next, 1, NULL);
}

int pool_commit_vg_progress(struct pool *p, struct vg *next)
{
	return commit(p, next, 0, NULL);
}

int pool_commit_vg_keep(struct pool *p, struct vg *next, struct vg **old)
{
	*old = NULL;
	return commit(p, next, 1, old);
}

int pool_settings_begin(struct pool *p)
{
	struct vg *s;
	int r;

	if (p->stage_base) {
		log_error("pool %s: internal error: settings staged twice", p->name);
		return -EALREADY;
	}
	if ((r = pool_refuse_latched(p)) || (r = vg_clone(p->vg, &s)))
		return r;
	p->stage_base = p->vg;
	p->vg = s;
	p->staging = 1;
	p->staged = 0;
	memset(p->stage_prep, 0, sizeof(p->stage_prep));
	return 0;
}

void pool_settings_last(struct pool *p)
{
	p->staging = 0;
}

int pool_settings_staging(const struct pool *p)
{
	return p->stage_base && p->staging;
}

void pool_settings_abort(struct pool *p)
{
	if (!p->stage_base)
		return;
	vg_free(p->vg);
	p->vg = p->stage_base;
	p->stage_base = NULL;
	p->staging = 0;
	p->staged = 0;
	memset(p->stage_prep, 0, sizeof(p->stage_prep));
	if (pool_features_vg_changed(p))
		log_warn("pool %s: cannot rebuild its data view after dropping the staged "
			 "settings", p->name);
}

int pool_settings_commit(struct pool *p)
{
	struct vg *next;
	int r;

	if (!p->stage_base)
		return 0;	/* nothing begun, or the last commit wrote it all */
	p->staging = 0;
	if (!p->staged) {
		pool_settings_abort(p);	/* no setting changed anything */
		return 0;
	}
	if ((r = vg_clone(p->vg, &next))) {
		pool_settings_abort(p);
		return r;
	}
	if ((r = commit(p, next, 1, NULL)))
		pool_settings_abort(p);
	return r;
}

int pool_stage_prep(struct pool *p, pool_stage_prep_fn *fn, const struct vg *next)
{
	unsigned i;

	if (!pool_settings_staging(p))
		return fn(p, next);
	for (i = 0; i < 2 && p->stage_prep[i] && p->stage_prep[i] != fn; i++)
		;
	if (i == 2) {
		log_error("pool %s: internal error: too many preparatory writes staged", p->name);
		return -ENOSPC;
	}
	p->stage_prep[i] = fn;
	return 0;
}
