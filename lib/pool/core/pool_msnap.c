/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_msnap.c - reading an active pool: the kernel owns the thin
 * metadata, so reads go through a metadata snapshot (the kernel's
 * reserve_metadata_snap: a consistent, held copy of the trees that we read
 * from the device with O_DIRECT). Reserve..release is a critical section
 * (lib/base/critical.h) under a per-pool lock, so two tptools commands
 * never fight over the kernel's one snapshot and a killed one's hold is
 * recognised as a leftover and released (pool_leftovers.c). */
#include "lib/pool/core/core_int.h"
#include "lib/pool/core/pool_usage.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading through the kernel's metadata snapshot ---- */

int pool_msnap_lock(const struct pool *p, unsigned flags, struct tp_lock **l)
{
	char name[VG_NAME_MAX + 16];

	/* ':' is no pool-name character: no pool's own lock is named so */
	snprintf(name, sizeof(name), "%s:metadata-snap", p->name);
	return tp_lock_acquire(name, TP_LOCK_EXCL | flags, l);
}

/* Reserve the kernel's metadata snapshot, under the lock: a hold found
 * there is a killed command's (no tptools command holds one without the
 * lock): release it and try again. */
static int reserve(struct pool *p)
{
	int r = tp_dm_reserve_metadata_snap(p->pool_dm);

	if (r == -EBUSY && !tp_dm_release_metadata_snap(p->pool_dm)) {
		log_warn("pool %s: released a metadata snapshot left held by an interrupted "
			 "tptools command", p->name);
		r = tp_dm_reserve_metadata_snap(p->pool_dm);
	}
	if (r == -EBUSY)
		log_error("pool %s: the kernel holds a metadata snapshot that tptools could not "
			  "release (another program's?); release it with 'dmsetup message %s 0 "
			  "release_metadata_snap' when that program is done", p->name, p->pool_dm);
	return r;
}

int pool_msnap_walk(void *arg, const struct thin_ir_visitor *v)
{
	struct pool_msnap *s = arg;
	return thin_walk_io(s->area, THIN_WALK_METADATA_SNAP, v, NULL);
}

int pool_msnap_begin(struct pool *p, struct pool_msnap *s)
{
	const struct vg_area *a = &p->pv[VG_ROLE_META].label.area[p->vg->metadata_area];
	int r;

	memset(s, 0, sizeof(*s));
	s->p = p;
	r = pool_msnap_lock(p, TP_LOCK_BRIEF, &s->lock);
	if (r == -EWOULDBLOCK) {
		log_error("pool %s: another tptools command is reading the kernel's metadata "
			  "snapshot (waited %u s); try again when it has finished", p->name,
			  TP_LOCK_BRIEF_MS / 1000);
		return -EBUSY;
	}
	if (r) {
		log_error("pool %s: cannot take its metadata-snapshot lock: %s", p->name,
			  strerror(-r));
		return r;
	}
	tp_critical_begin();
	r = reserve(p);
	if (r)
		goto fail;
	tp_test_pause("after-reserve");
	r = io_fd_open(pool_meta_dev_name(p), IO_RDONLY | IO_DIRECT, &s->dev);
	if (!r)
		r = io_window_create(s->dev, a->offset, a->size, 0, &s->area);
	if (!r)
		return 0;
	if (tp_dm_release_metadata_snap(p->pool_dm))
		log_warn("pool %s: could not release the metadata snapshot; the next command "
			 "releases it", p->name);
	io_destroy(s->dev);
fail:
	tp_critical_end();
	tp_lock_release(s->lock);
	return r;
}

int pool_msnap_end(struct pool_msnap *s)
{
	int r;

	io_destroy(s->area);
	io_destroy(s->dev);
	tp_test_pause("before-release");
	r = tp_dm_release_metadata_snap(s->p->pool_dm);
	tp_critical_end();
	tp_lock_release(s->lock);
	return r;
}

struct id_list {
	uint64_t *ids;
	size_t n, cap;
};

static int collect_id(void *ctx, const struct thin_ir_device *d)
{
	struct id_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		uint64_t *n = realloc(l->ids, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->ids = n;
		l->cap = cap;
	}
	l->ids[l->n++] = d->dev_id;
	return 0;
}

int pool_live_list_devices(struct pool *p, uint64_t **ids, size_t *n)
{
	struct id_list l = { NULL, 0, 0 };
	struct thin_ir_visitor v = { &l, NULL, NULL, collect_id, NULL, NULL };
	struct pool_msnap s;
	int r = pool_msnap_begin(p, &s), e;

	if (r)
		return r;
	r = thin_walk_io(s.area, THIN_WALK_METADATA_SNAP | THIN_WALK_SKIP_MAPPINGS, &v, NULL);
	e = pool_msnap_end(&s);
	if (!r)
		r = e;
	if (r) {
		free(l.ids);
		return r;
	}
	*ids = l.ids;
	*n = l.n;
	return 0;
}

int pool_live_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		    size_t *n)
{
	struct pool_msnap s;
	int r = pool_msnap_begin(p, &s), e;

	if (r)
		return r;
	r = pool_usage_walk(pool_msnap_walk, &s, nr_data_blocks, pool_usage_expect(p->vg),
			    u, n);
	e = pool_msnap_end(&s);
	return r ? r : e;
}

static int msnap_walk_details(void *arg, const struct thin_ir_visitor *v)
{
	struct pool_msnap *s = arg;
	return thin_walk_io(s->area, THIN_WALK_METADATA_SNAP | THIN_WALK_SKIP_MAPPINGS, v, NULL);
}

int pool_live_details(struct pool *p, struct pool_dev_usage **u, size_t *n)
{
	struct pool_msnap s;
	int r = pool_msnap_begin(p, &s), e;

	if (r)
		return r;
	r = pool_usage_details(msnap_walk_details, &s, pool_usage_expect(p->vg), u, n);
	e = pool_msnap_end(&s);
	if (!r && e) {
		free(*u);
		*u = NULL;
		*n = 0;
	}
	return r ? r : e;
}

