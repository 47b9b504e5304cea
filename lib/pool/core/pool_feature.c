/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_feature.c - the lifecycle table feature modules register into
 * (core.h). The core calls no feature: each registers one struct
 * pool_feature once at start (pool_init, lib/pool/pool_init.c), and the
 * core runs every registered hook at its step of a pool's life: after
 * the VG is read, at a live pool's leftovers, once open, at detach; and
 * where the pool's devices are concerned (the devices the VG lists
 * beyond the first two opened, a view built over them, the thin
 * metadata's devices, the kernel's table). A feature's state of an open
 * pool lives in its slot of struct pool. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdlib.h>

static struct pool_feature *features[POOL_FEATURES_MAX];
static unsigned nr_features;
static int ready;

void pool_feature_register(struct pool_feature *f)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i] == f)
			return;
	if (nr_features < POOL_FEATURES_MAX) {
		f->slot = nr_features;
		features[nr_features++] = f;
	} else {	/* a hook left out would be a step silently skipped */
		TP_BUG("feature %s: more than %d features", f->name, POOL_FEATURES_MAX);
	}
}

void pool_features_ready(void)
{
	ready = 1;
}

static int registered(const struct pool_feature *f)
{
	return f->slot < nr_features && features[f->slot] == f;
}

void **pool_feature_state(struct pool *p, const struct pool_feature *f)
{
	if (!registered(f)) {
		TP_BUG("feature %s: its state asked for before it registered", f->name);
		return NULL;
	}
	return &p->feature_state[f->slot];
}

void *pool_feature_state_get(const struct pool *p, const struct pool_feature *f)
{
	return registered(f) ? p->feature_state[f->slot] : NULL;
}

/* A program that never called pool_init would skip every feature's
 * step: an internal error, said once per step that needs them. */
static int not_ready(const struct pool *p)
{
	if (ready)
		return 0;
	return TP_BUG("pool %s: no features registered (pool_init not called)", p->name);
}

int pool_features_vg_read(struct pool *p)
{
	int r, again = 0;

	if ((r = not_ready(p)))
		return r;
	for (unsigned i = 0; i < nr_features; i++) {
		if (!features[i]->vg_read)
			continue;
		if ((r = features[i]->vg_read(p)) < 0)
			return r;
		again |= r > 0;
	}
	return again;
}

int pool_features_live_leftovers(struct pool *p, int write)
{
	int r;

	if ((r = not_ready(p)))
		return r;
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->live_leftovers && (r = features[i]->live_leftovers(p, write)))
			return r;
	return 0;
}

void pool_features_opened(struct pool *p, int write)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->opened)
			features[i]->opened(p, write);
}

void pool_features_detach(struct pool *p)
{
	/* in the reverse order of the attach: a later feature may use what
	 * an earlier one holds (a removal's device under the lease) */
	for (unsigned i = nr_features; i-- > 0;)
		if (features[i]->detach)
			features[i]->detach(p);
	/* a feature's state is one allocation (malloc): freed here */
	for (unsigned i = 0; i < POOL_FEATURES_MAX; i++) {
		free(p->feature_state[i]);
		p->feature_state[i] = NULL;
	}
}

/* ---- the pool's devices and the views over them (core.h) ---- */

int pool_features_open_devices(struct pool *p, unsigned claim, struct pool_check_report *rep)
{
	int r;

	if ((r = not_ready(p)))
		return r;
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->open_devices && (r = features[i]->open_devices(p, claim, rep)))
			return r;
	return 0;
}

int pool_features_vg_changed(struct pool *p)
{
	int r;

	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->vg_changed && (r = features[i]->vg_changed(p)))
			return r;
	return 0;
}

int pool_features_view_open(struct pool *p, enum vg_role role, unsigned flags,
			    struct io_engine **out)
{
	int r;

	*out = NULL;
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->view_open && (r = features[i]->view_open(p, role, flags, out)) <= 0)
			return r;
	return 1;
}

int pool_features_incomplete(const struct pool *p)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->incomplete && features[i]->incomplete(p))
			return 1;
	return 0;
}

/* ---- the steps of the thin metadata's devices ---- */

int pool_features_meta_attach(struct pool *p, unsigned claim, struct pool_check_report *rep)
{
	int r;

	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->meta_attach && (r = features[i]->meta_attach(p, claim, rep)))
			return r < 0 ? r : 0;
	/* no feature's: the one metadata device */
	if (p->pv[VG_ROLE_META].io)
		return 0;
	log_error("pool %s: its metadata device (device uuid %s) is missing", p->name,
		  p->vg->dev[VG_ROLE_META].pv_uuid);
	return -ENODEV;
}

int pool_features_vg_same(const struct pool *p, const struct vg *vg)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->vg_same && !features[i]->vg_same(p, vg))
			return 0;
	return 1;
}

int pool_features_open_check(struct pool *p)
{
	int r;

	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->open_check && (r = features[i]->open_check(p)))
			return r;
	return 0;
}

void pool_features_open_thin(struct pool *p, int write)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->open_thin)
			features[i]->open_thin(p, write);
}

int pool_features_sync_labels(struct pool *p, int *changed)
{
	int r;

	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->sync_labels && (r = features[i]->sync_labels(p, changed)))
			return r;
	return 0;
}

void pool_features_labels_behind(const struct pool *p, const char *names[], unsigned *n,
				 unsigned max)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->labels_behind)
			features[i]->labels_behind(p, names, n, max);
}

void pool_features_commit_targets(struct pool *p, struct vg *next, struct vg_pv *pvs,
				  unsigned *n)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->commit_targets)
			features[i]->commit_targets(p, next, pvs, n);
}

int pool_features_devices_shared(struct pool *p)
{
	int r;

	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->devices_shared && (r = features[i]->devices_shared(p)))
			return r;
	return 0;
}

void pool_features_kernel_table(const struct pool *p, struct tp_dm_pool_layout *l)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->kernel_table)
			features[i]->kernel_table(p, l);
}

void pool_features_activated(const struct pool *p, const struct tp_dm_pool_layout *l)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->activated)
			features[i]->activated(p, l);
}

int pool_features_load_volume(struct pool *p, const struct vg_volume *v)
{
	for (unsigned i = 0; i < nr_features; i++) {
		int r = features[i]->load_volume ? features[i]->load_volume(p, v) : 0;

		if (r)
			return r;
	}
	return 0;
}
