/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_change.c - the change protocol (core.h): one VG commit, the
 * thin-side change, the transaction id, the thin commit, and settling a
 * change that failed after its VG commit; and the rules every new volume
 * name and thin device id obey, whatever feature makes it. */
#include "lib/pool/core/core_int.h"
#include "lib/pool/pool_names_dm.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

	r = pool_refuse_latched(p);
	if (!r)
		r = pool_guard_change(p, next);
	if (r) {
		vg_free(next);
		return r;
	}
	next->transaction_id = tid + 1;
	/* one change is one critical section: a signal waits for its end */
	tp_critical_begin();
	/* the VG before the change (the undo) is the one the commit replaces */
	r = pool_commit_vg_keep(p, next, &undo);
	if (r)
		goto out;
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

int pool_volume_size_check(const char *name, uint64_t size, uint64_t *rounded)
{
	char b[32];

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
	*rounded = (size + 511) / 512 * 512;
	return 0;
}

int pool_no_volume(const char *pool, const char *name)
{
	log_error("pool %s has no volume %s; 'tpstatus %s' lists them", pool, name, pool);
	return -ENOENT;
}

int pool_volume_missing(const struct pool *p, const char *name)
{
	if (p->vg && vg_find_trash(p->vg, name)) {
		log_error("pool %s has no volume %s: a volume of that name is in its trash "
			  "('tvremove --undo %s/%s' brings it back)", p->name, name, p->name, name);
		return -ENOENT;
	}
	return pool_no_volume(p->name, name);
}

const struct vg_volume *pool_find_volume(const struct pool *p, const char *name)
{
	const struct vg_volume *v = vg_find_volume(p->vg, name);

	if (!v)
		pool_volume_missing(p, name);
	return v;
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
	if (vg_find_receive(p->vg, name) && vg_find_receive(p->vg, name)->raw) {
		log_error("pool %s has an unfinished receive of %s, a raw import cut short: "
			  "drop it with 'tprecv --abort %s %s', or choose another name", p->name,
			  name, name, p->name);
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

int pool_next_dev_id(const struct pool *p, uint32_t *id)
{
	if (p->vg->next_dev_id > VG_DEV_ID_MAX) {
		log_error("pool %s: all %u thin device ids have been used", p->name,
			  VG_DEV_ID_MAX + 1);
		return -ENOSPC;
	}
	*id = p->vg->next_dev_id;
	return 0;
}
