/* volume.c - thin volume create, snapshot and remove: one VG commit (the
 * journal, first) and one thin-metadata transaction each. See pool.h. */
#include "lib/pool/pool_int.h"
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

int pool_split_volume_spec(const char *spec, char pool[VG_NAME_MAX + 1],
			   char vol[VG_NAME_MAX + 1])
{
	const char *slash = strchr(spec, '/'), *why;

	if (!slash || slash == spec || !slash[1]) {
		log_error("'%s' is not POOL/VOLUME", spec);
		return -EINVAL;
	}
	if ((size_t)(slash - spec) > VG_NAME_MAX) {
		log_error("invalid pool name in '%s': longer than %d bytes", spec, VG_NAME_MAX);
		return -EINVAL;
	}
	memcpy(pool, spec, (size_t)(slash - spec));
	pool[slash - spec] = '\0';
	if (!vg_name_valid(pool, &why)) {
		log_error("invalid pool name '%s': %s", pool, why);
		return -EINVAL;
	}
	if (!vg_name_valid(slash + 1, &why)) {
		log_error("invalid volume name '%s': %s", slash + 1, why);
		return -EINVAL;
	}
	snprintf(vol, VG_NAME_MAX + 1, "%s", slash + 1);
	return 0;
}

int pool_change(struct pool *p, struct vg *next, pool_apply_fn apply, const void *arg)
{
	uint64_t tid = p->vg->transaction_id;
	struct vg *undo;
	int r;

	r = pool_guard(p, "the change", "nothing was changed", 0);
	if (r) {
		vg_free(next);
		return r;
	}
	r = vg_clone(p->vg, &undo);
	if (r) {
		vg_free(next);
		return r;
	}
	next->transaction_id = tid + 1;
	/* one change is one critical section: a signal waits for its end */
	tp_critical_begin();
	r = pool_commit_vg(p, next);
	if (r) {
		vg_free(undo);
		goto out;
	}
	tp_test_pause("after-vg-commit");
	r = apply(p, arg);
	if (!r) {
		tp_test_pause("after-apply");
		r = pool_op_set_tid(p, tid, tid + 1);
	}
	if (!r)
		r = p->be->commit(p);
	if (!r) {
		vg_free(undo);
		goto out;
	}
	/* offline: undone; live: the kernel may hold the change (a message
	 * commits at once), so it is completed forward or undone */
	r = p->be->settle(p, tid, undo, r);
out:
	tp_critical_end();
	return r;
}

int pool_name_free(struct pool *p, const char *name)
{
	const char *why;
	int r;

	if (!vg_name_valid(name, &why)) {
		log_error("invalid volume name '%s': %s", name, why);
		return -EINVAL;
	}
	if ((r = pool_dm_vol_name_check(p->name, name)))
		return r;
	if (tp_dm_vol_name_reserved(name)) {
		log_error("invalid volume name '%s': tpool, tmeta and tdata name the pool's own "
			  "kernel devices", name);
		return -EINVAL;
	}
	if (vg_find_volume(p->vg, name)) {
		log_error("pool %s already has a volume named %s; choose another name", p->name,
			  name);
		return -EEXIST;
	}
	if (vg_find_receive(p->vg, name)) {
		log_error("pool %s has an unfinished receive of %s: finish it with 'tprecv "
			  "--resume' or drop it with 'tprecv --abort %s %s', or choose another "
			  "name", p->name, name, name, p->name);
		return -EEXIST;
	}
	return 0;
}

static int next_dev_id(struct pool *p, uint32_t *id)
{
	if (p->vg->next_dev_id > VG_DEV_ID_MAX) {
		log_error("pool %s: all %u thin device ids have been used", p->name,
			  VG_DEV_ID_MAX + 1);
		return -ENOSPC;
	}
	*id = p->vg->next_dev_id;
	return 0;
}

static uint64_t data_size(const struct pool *p)
{
	return p->pv[VG_ROLE_DATA].label.area[0].size / ((uint64_t)p->vg->chunk_size * 512) *
	       ((uint64_t)p->vg->chunk_size * 512);
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
		log_error("pool %s: cannot create thin device %u: %s", p->name, v->dev_id,
			  strerror(-r));
	return r;
}

static int add_volume(struct pool *p, struct vg_volume *v, pool_apply_fn apply)
{
	struct vg *next;
	int r = vg_clone(p->vg, &next);

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

int pool_volume_create(struct pool *p, const char *name, uint64_t size, uint64_t *over)
{
	struct vg_volume v;
	char b[32];
	int r;

	*over = 0;
	if ((r = pool_name_free(p, name)))
		return r;
	if (!size) {
		log_error("volume %s: the size must be greater than 0", name);
		return -EINVAL;
	}
	if (size > POOL_VOLUME_MAX_BYTES) {
		log_error("volume %s: the size %s is too large: a volume must be smaller than "
			  "8 EiB (at most %llu bytes)", name, tp_size_format(size, 'h', b, sizeof(b)),
			  (unsigned long long)POOL_VOLUME_MAX_BYTES);
		return -ERANGE;
	}
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.size = (size + 511) / 512 * 512;
	v.creation_time = (int64_t)time(NULL);
	if ((r = next_dev_id(p, &v.dev_id)))
		return r;
	r = add_volume(p, &v, apply_create);
	if (!r && p->be->live)
		r = pool_activate(p, (const char *const[]){ v.name }, 1);
	if (!r && virtual_total(p->vg) > data_size(p))
		*over = virtual_total(p->vg);
	return r;
}

static int apply_snap(struct pool *p, const void *arg)
{
	const struct vg_volume *v = arg;
	const struct vg_volume *o = vg_find_volume(p->vg, v->origin);
	int r = pool_op_snap(p, v->dev_id, o);
	if (r)
		log_error("pool %s: cannot snapshot thin device %u: %s", p->name, o->dev_id,
			  strerror(-r));
	return r;
}

int pool_volume_snapshot(struct pool *p, const char *origin, const char *name, int read_only)
{
	const struct vg_volume *o = vg_find_volume(p->vg, origin);
	struct vg_volume v;
	int r;

	if (!o) {
		log_error("pool %s has no volume %s to snapshot; 'tpstatus %s' lists them", p->name,
			  origin, p->name);
		return -ENOENT;
	}
	if ((r = pool_name_free(p, name)))
		return r;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	snprintf(v.origin, sizeof(v.origin), "%s", origin);
	v.size = o->size;
	v.read_only = !!read_only;
	if (read_only && (r = vg_uuid_generate(v.content_uuid)))
		return r;
	v.creation_time = (int64_t)time(NULL);
	if ((r = next_dev_id(p, &v.dev_id)))
		return r;
	return add_volume(p, &v, apply_snap);
}

struct removal {
	uint32_t dev_id;
	char name[VG_NAME_MAX + 1];
};

static int apply_remove(struct pool *p, const void *arg)
{
	const struct removal *rm = arg;
	int r = pool_op_delete(p, rm->dev_id, rm->name);
	if (r && r != -EBUSY)
		log_error("pool %s: cannot delete thin device %u: %s", p->name, rm->dev_id,
			  strerror(-r));
	return r;
}

int pool_volume_remove(struct pool *p, const char *name)
{
	const struct vg_volume *v = vg_find_volume(p->vg, name);
	struct vg *next;
	struct removal rm;
	int r;

	if (!v) {
		log_error("pool %s has no volume %s; 'tpstatus %s' lists them", p->name, name,
			  p->name);
		return -ENOENT;
	}
	rm.dev_id = v->dev_id;
	snprintf(rm.name, sizeof(rm.name), "%s", name);
	r = vg_clone(p->vg, &next);
	if (r)
		return r;
	r = vg_remove_volume(next, name);
	if (r) {
		vg_free(next);
		return r;
	}
	return pool_change(p, next, apply_remove, &rm);
}
