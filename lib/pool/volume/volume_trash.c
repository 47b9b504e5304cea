/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume_trash.c - the trash's face for the tools (pool_volume.h) over the
 * removal module's steps (lib/pool/removal/pool_trash.c). */
#include "lib/pool/pool_volume.h"

#include "lib/pool/core/core.h"
#include "lib/pool/removal/removal.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned pool_volume_trash_count(const struct pool *p)
{
	return pool_vg(p)->nr_trash;
}

uint64_t pool_volume_trash_retention(const struct pool *p)
{
	return pool_vg(p)->trash_retention;
}

int pool_volume_set_trash_retention(struct pool *p, uint64_t seconds)
{
	struct vg *next;
	int r;

	if (seconds > VG_TRASH_RETENTION_MAX) {
		log_error("pool %s: a trash retention is at most ten years", pool_name(p));
		return -EINVAL;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	next->trash_retention = seconds;
	return pool_commit_vg(p, next);
}

int pool_volume_remove_or_trash(struct pool *p, const char *name, int now, int wiped,
				int *trashed, tp_progress_fn *fn, void *ctx)
{
	int r;

	*trashed = 0;
	/* a tvremove cut after its change, run again */
	if (!vg_find_volume(pool_vg(p), name) && !vg_find_removal(pool_vg(p), name) &&
	    pool_trash_was_last(p, name) == POOL_TRASH_LAST_PUT) {
		*trashed = 1;
		return 1;
	}
	/* a removal under way of NAME goes on as it began */
	if (now || !pool_vg(p)->trash_retention || !vg_find_volume(pool_vg(p), name))
		return wiped ? pool_volume_remove_wiped(p, name, fn, ctx)
			     : pool_volume_remove_progress(p, name, fn, ctx);
	r = pool_trash_put(p, name, (int64_t)time(NULL));
	if (r == 1)	/* its thin device was lost: its removal says so */
		return pool_volume_remove_progress(p, name, fn, ctx);
	*trashed = !r;
	return r;
}

int pool_volume_trashed_only(struct pool *p, const char *name)
{
	const struct vg *vg = pool_vg(p);

	if (vg_find_volume(vg, name) || vg_find_removal(vg, name))
		return 0;
	if (vg_find_trash(vg, name))
		return 1;
	return pool_trash_finished(p, name) ||
	       pool_trash_was_last(p, name) == POOL_TRASH_LAST_PURGED ? 2 : 0;
}

int pool_volume_untrash(struct pool *p, const char *name, const char *as)
{
	uint32_t id;

	/* an undo cut after its change, run again */
	if (!vg_find_trash(pool_vg(p), name) && pool_trash_was_last(p, name) == POOL_TRASH_LAST_UNDONE)
		return 1;
	return pool_trash_undo(p, name, as, &id);
}

int pool_volume_trash_list(struct pool *p, int sharing, struct pool_trash_entry **out,
			   unsigned *nr)
{
	return pool_trash_usage(p, sharing, out, nr);
}

/* The thin ids of the entries named NAME (NULL: all), the oldest first. */
static int entries(struct pool *p, const char *name, uint32_t **ids, unsigned *n)
{
	const struct vg *vg = pool_vg(p);
	unsigned *order;

	*n = 0;
	*ids = NULL;
	if (!vg->nr_trash)
		return 0;
	if (!(order = calloc(vg->nr_trash, sizeof(*order))) ||
	    !(*ids = calloc(vg->nr_trash, sizeof(**ids)))) {
		free(order);
		return -ENOMEM;
	}
	vg_trash_order(vg, order);
	for (unsigned i = 0; i < vg->nr_trash; i++)
		if (!name || !strcmp(vg->trash[order[i]].name, name))
			(*ids)[(*n)++] = vg->trash[order[i]].dev_id;
	free(order);
	return 0;
}

int pool_volume_trash_purge(struct pool *p, const char *name, unsigned *nr, tp_progress_fn *fn,
			    void *ctx)
{
	uint32_t *ids;
	unsigned n;
	int r = entries(p, name, &ids, &n);

	*nr = 0;
	if (r)
		return r;
	if (name && !n && (pool_trash_finished(p, name) ||
			   pool_trash_was_last(p, name) == POOL_TRASH_LAST_PURGED)) {
		free(ids);
		return 1;	/* a purge cut at its end, run again */
	}
	if (name && !n) {
		log_error("pool %s has no volume named %s in its trash (see 'tpstatus --trash %s')",
			  pool_name(p), name, pool_name(p));
		free(ids);
		return -ENOENT;
	}
	for (unsigned i = 0; i < n && !r; i++)
		if (!(r = pool_trash_purge(p, ids[i], fn, ctx)))
			(*nr)++;
	free(ids);
	return r;
}

/* The entry of thin device ID as the listing has it (without its usage). */
static void describe(const struct pool *p, uint32_t id, struct pool_trash_entry *e)
{
	const struct vg_volume *t = vg_find_trash_id(pool_vg(p), id);

	memset(e, 0, sizeof(*e));
	if (!t)
		return;
	snprintf(e->name, sizeof(e->name), "%s", t->name);
	e->dev_id = id;
	e->size = t->size;
	e->trashed_at = t->trashed_at;
	e->expires = vg_trash_expiry(pool_vg(p), t);
	e->purging = t->purging;
	e->read_only = t->read_only;
}

/* The data area's use in percent, rounded down. */
static int data_percent(struct pool *p, unsigned *pct)
{
	uint64_t mu, mt, du, dt;
	int r = pool_fill_blocks(p, &mu, &mt, &du, &dt);

	if (r)
		return r;
	*pct = dt ? (unsigned)(du * 100 / dt) : 0;
	return 0;
}

int pool_volume_trash_due(struct pool *p, int64_t now, unsigned threshold)
{
	const struct vg *vg = pool_vg(p);
	unsigned pct;
	int r;

	for (unsigned i = 0; i < vg->nr_trash; i++)
		if (vg->trash[i].purging || vg_trash_expiry(vg, &vg->trash[i]) <= now)
			return 1;
	if (!vg->nr_trash || !threshold)
		return 0;
	if ((r = data_percent(p, &pct)))
		return r;
	return pct >= threshold;
}

/* Does the entry of thin device ID map bytes no other device maps? 0
 * yes, 1 no (its purge would free nothing: the pressure purge skips it),
 * -errno. */
static int holds_own(struct pool *p, uint32_t id)
{
	struct pool_trash_entry *l = NULL;
	unsigned n = 0;
	int r = pool_trash_usage(p, 1, &l, &n), none = 0;

	if (r)
		return r;
	for (unsigned i = 0; i < n; i++)
		if (l[i].dev_id == id)
			none = !l[i].exclusive;
	free(l);
	return none;
}

int pool_volume_trash_expire(struct pool *p, int64_t now, unsigned threshold,
			     pool_trash_purged_fn *log_fn, void *ctx, unsigned *nr)
{
	uint32_t *ids;
	unsigned n, pct = 0;
	int r = entries(p, NULL, &ids, &n);

	*nr = 0;
	if (r)
		return r;
	for (unsigned i = 0; i < n && !r; i++) {
		struct pool_trash_entry e;
		const char *why = NULL;

		describe(p, ids[i], &e);
		if (e.expires <= now)
			why = "expired";
		else if (threshold && !(r = data_percent(p, &pct)) && pct >= threshold &&
			 !(r = holds_own(p, ids[i])))
			why = "the pool is at its threshold";
		if (r == 1)
			r = 0;	/* nothing of its own: its purge would free nothing */
		if (r || !why)
			continue;
		if (!(r = pool_trash_purge(p, ids[i], NULL, NULL))) {
			(*nr)++;
			if (log_fn)
				log_fn(ctx, &e, why);
		}
	}
	free(ids);
	return r;
}
