/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume.c - thin volume create, snapshot and remove: one VG commit (the
 * journal, first) and one thin-metadata transaction each; a new volume's
 * settings (read-only, activate n) are in that one commit. See pool.h. */
#include "lib/pool/core/core.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/removal/removal.h"
#include "lib/pool/pool_names_dm.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t data_size(const struct pool *p)
{
	return vg_data_chunks(pool_vg(p)) * ((uint64_t)pool_vg(p)->chunk_size * 512);
}

static uint64_t virtual_total(const struct vg *vg)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		sum = vg->volumes[i].size > UINT64_MAX - sum ? UINT64_MAX : sum + vg->volumes[i].size;
	return sum;
}

static int apply_create(struct pool *p, const void *arg)
{
	const struct vg_volume *v = arg;
	int r = pool_op_create(p, v->dev_id);
	if (r)
		log_error("pool %s: cannot create thin device %u: %s", pool_name(p), v->dev_id,
			  strerror(-r));
	return r;
}

static int add_volume(struct pool *p, struct vg_volume *v, pool_apply_fn apply)
{
	struct vg *next;
	int r = vg_clone(pool_vg(p), &next);

	if (r)
		return r;
	next->next_dev_id = v->dev_id + 1;
	r = vg_add_volume(next, v);
	if (r) {
		vg_free(next);
		return r;
	}
	return pool_change(p, next, apply, v);
}

int pool_volume_create_as(struct pool *p, const char *name, uint64_t size, unsigned flags,
			  uint64_t *over)
{
	struct vg_volume v;
	int r;

	*over = 0;
	if ((r = pool_name_free(p, name)))
		return r;
	memset(&v, 0, sizeof(v));
	if ((r = pool_volume_size_check(name, size, &v.size)))
		return r;
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.creation_time = (int64_t)time(NULL);
	v.activation_skip = !!(flags & POOL_VOLUME_NO_AUTOACTIVATE);
	if ((r = pool_next_dev_id(p, &v.dev_id)))
		return r;
	r = add_volume(p, &v, apply_create);
	if (!r)
		r = pool_op_publish(p, v.name);
	if (!r && virtual_total(pool_vg(p)) > data_size(p))
		*over = virtual_total(pool_vg(p));
	return r;
}

static int apply_snap(struct pool *p, const void *arg)
{
	const struct vg_volume *v = arg;
	const struct vg_volume *o = vg_find_volume(pool_vg(p), v->origin);
	int r = pool_op_snap(p, v->dev_id, o);
	if (r)
		log_error("pool %s: cannot snapshot thin device %u: %s", pool_name(p), o->dev_id,
			  strerror(-r));
	return r;
}

int pool_volume_snapshot(struct pool *p, const char *origin, const char *name, unsigned flags)
{
	int read_only = !!(flags & POOL_VOLUME_READONLY);
	const struct vg_volume *o = vg_find_volume(pool_vg(p), origin);
	struct vg_volume v;
	int r;

	if (!o)
		return pool_volume_missing(p, origin);
	if ((r = pool_name_free(p, name)))
		return r;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	snprintf(v.origin, sizeof(v.origin), "%s", origin);
	v.size = o->size;
	snprintf(v.luks_uuid, sizeof(v.luks_uuid), "%s", o->luks_uuid);	/* its header too */
	v.read_only = read_only;
	v.activation_skip = !!(flags & POOL_VOLUME_NO_AUTOACTIVATE);
	if (read_only && (r = vg_uuid_generate(v.content_uuid)))
		return r;
	v.creation_time = (int64_t)time(NULL);
	if ((r = pool_next_dev_id(p, &v.dev_id)))
		return r;
	return add_volume(p, &v, apply_snap);
}

/* The removal in bounded steps (removal/pool_removal.c): the volume becomes
 * a removal under way, its mappings go a step at a time, its emptied thin
 * device last. A removal an earlier command left is gone on with. */
static int remove_progress(struct pool *p, const char *name, int wiped, tp_progress_fn *fn,
			   void *ctx)
{
	int r;

	if (!vg_find_volume(pool_vg(p), name) && !vg_find_removal(pool_vg(p), name)) {
		if (pool_removal_finished(p, name))
			return 0;	/* the open finished what an earlier one began */
		if (pool_removal_was_last(p, name))
			return 1;	/* an earlier one's last change removed it */
		return pool_volume_missing(p, name);
	}
	if (vg_find_volume(pool_vg(p), name) && (r = pool_removal_begin(p, name, wiped)))
		return r < 0 ? r : 0;	/* 1: it mapped nothing, removed at once */
	return pool_removal_run(p, name, fn, ctx);
}

int pool_volume_remove_progress(struct pool *p, const char *name, tp_progress_fn *fn,
				void *ctx)
{
	return remove_progress(p, name, 0, fn, ctx);
}

int pool_volume_remove_wiped(struct pool *p, const char *name, tp_progress_fn *fn, void *ctx)
{
	return remove_progress(p, name, 1, fn, ctx);
}

enum pool_volume_removal pool_volume_removal_begun(struct pool *p, const char *name)
{
	const struct vg_volume *rv;
	int how;

	if (vg_find_volume(pool_vg(p), name))
		return POOL_VOLUME_NOT_REMOVING;
	if ((rv = vg_find_removal(pool_vg(p), name)))
		how = rv->wiped ? POOL_REMOVAL_WIPED : POOL_REMOVAL_UNWIPED;
	else if (!(how = pool_removal_finished_wiped(p, name)))
		how = pool_removal_was_last_wiped(p, name);
	switch (how) {
	case POOL_REMOVAL_WIPED:
		return POOL_VOLUME_REMOVING_WIPED;
	case POOL_REMOVAL_UNWIPED:
		return POOL_VOLUME_REMOVING_UNWIPED;
	case POOL_REMOVAL_EMPTY:
		return POOL_VOLUME_REMOVING_EMPTY;
	default:
		return POOL_VOLUME_NOT_REMOVING;
	}
}

unsigned pool_volume_snapshots(const struct pool *p, const char *origin, char *buf, size_t len)
{
	const struct vg *vg = pool_vg(p);
	unsigned n = 0;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; vg && i < vg->nr_volumes; i++) {
		const struct vg_volume *v = &vg->volumes[i];
		int w;

		if (origin ? strcmp(v->origin, origin) : !v->origin[0])
			continue;
		if (used < len) {
			w = snprintf(buf + used, len - used, "%s%s", n ? ", " : "", v->name);
			used += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	return n;
}
