/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_rename.c - rename a pool (pool.h: pool_rename; tprename).
 *
 * A pool's name is in three places: its VG metadata (authoritative), the
 * label of each device (a hint for scans) and the devices file; its
 * backups lie in the directory of its uuid (host.h), which the rename
 * leaves alone. The rename writes them in that order, so that at every
 * cut point the pool is found and the rename is finished by running it
 * again:
 *   1. the VG commit with the new name (its backup, which records the new
 *      name, goes where the others are): from here on the pool IS the new
 *      name; a command on the old name finds the devices through the
 *      devices file, sees the VG name the new one and says to run the
 *      rename again;
 *   2. the labels, rewritten from the VG (pool_sync_labels);
 *   3. backups of the first layout, in a directory of the old name, moved
 *      to the directories of their uuids (pool_backup_migrate);
 *   4. the devices-file entries, under the new name: the rename is done.
 * A rename run again (the same OLD and NEW) accepts labels and a VG that
 * name either, and does the steps still to do. Nothing else changes: the
 * pool's uuid, its devices, its thin metadata.
 *
 * Offline only: the kernel's device names contain the pool name
 * (<pool>-tpool, <pool>-<vol>), and a mounted volume's name cannot change
 * under its users; an active pool is refused (-EBUSY, logged). */
#include "lib/pool/core/core.h"
#include "lib/pool/pool_admin.h"

#include "kernel/dm.h"
#include "lib/base/lock.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "lib/pool/host/host.h"
#include "lib/pool/pool_names_dm.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Is NAME taken by another pool (devices file, a label of a block device,
 * the kernel)? -EEXIST (logged), 0, or -errno. */
static int name_taken(const char *name)
{
	char **names = NULL;
	unsigned n = 0;
	int r = pool_list_all_names(&names, &n), taken = 0;

	if (r)
		return r;
	for (unsigned i = 0; i < n; i++) {
		taken |= !strcmp(names[i], name);
		free(names[i]);
	}
	free(names);
	if (!taken && tp_dm_pool_is_active(name) == 1)
		taken = 1;
	if (taken) {
		log_error("a pool named %s exists already; choose another name", name);
		return -EEXIST;
	}
	return 0;
}

/* After a cut between the labels and the devices file, the file lists
 * OLD's devices but their labels name NEW_NAME, which the lookup by name
 * does not accept: those paths as "DATA,META" (malloc'd), else NULL. */
static char *relabelled_devices(const char *old, const char *new_name)
{
	struct pool_devices_entry e[VG_NR_ROLES];
	struct vg_label l;
	int n = pool_devices_lookup_pool(old, e, VG_NR_ROLES);
	char *s;

	if (n != VG_NR_ROLES)
		return NULL;
	for (int i = 0; i < VG_NR_ROLES; i++)
		if (pool_read_label(e[i].path, &l) || strcmp(l.pv_uuid, e[i].pv_uuid) ||
		    strcmp(l.pool_name, new_name) || strchr(e[i].path, ','))
			return NULL;
	s = malloc(strlen(e[0].path) + strlen(e[1].path) + 2);
	if (s)
		sprintf(s, "%s,%s", e[0].path, e[1].path);
	return s;
}

/* Every volume's device-mapper name under NEW_NAME fits the kernel's
 * limit (pool_names_dm.h); else -EINVAL, naming the first that does not. */
static int dm_names_fit(const struct pool *p, const char *new_name)
{
	for (unsigned i = 0; i < pool_vg(p)->nr_volumes; i++) {
		const char *vol = pool_vg(p)->volumes[i].name;
		size_t len = pool_dm_vol_name_len(new_name, vol);

		if (len <= POOL_DM_NAME_LIMIT)
			continue;
		log_error("pool %s: cannot be renamed to %s: the device-mapper name of its volume "
			  "%s ('%s-%s' with every '-' doubled) would be %zu bytes, over the kernel's "
			  "limit of %d; choose a shorter pool name or rename the volume first",
			  pool_vg(p)->name, new_name, vol, new_name, vol, len, POOL_DM_NAME_LIMIT);
		return -EINVAL;
	}
	return 0;
}

int pool_rename(const char *old, const char *new_name, const char *devices)
{
	char *listed = NULL;
	struct tp_lock *lock = NULL;
	struct pool *p = NULL;
	struct vg *next;
	const char *why;
	int r;

	if (!vg_name_valid(new_name, &why)) {
		log_error("invalid pool name '%s': %s", new_name, why);
		return -EINVAL;
	}
	if (!strcmp(old, new_name)) {
		log_error("pool %s is named %s already", old, new_name);
		return -EINVAL;
	}
	/* the new name's lock first: no command on a pool of that name meanwhile */
	r = tp_lock_acquire(new_name, TP_LOCK_EXCL | TP_LOCK_BRIEF, &lock);
	if (r) {
		log_error("pool %s: cannot take the lock of the new name %s: %s", old, new_name,
			  strerror(-r));
		return r;
	}
	if (!devices)
		devices = listed = relabelled_devices(old, new_name);
	r = (p = pool_alloc()) ? pool_attach_renaming(p, old, new_name, devices) : -ENOMEM;
	if (r)
		goto detach;	/* what it took before failing */
	if (pool_is_live(p)) {
		log_error("pool %s is active: its kernel devices are named after it; deactivate it "
			  "first ('tpdeactivate %s'), then rename it", old, old);
		r = -EBUSY;
		goto detach;
	}
	/* 1. the VG (skipped when a rename cut short did it) */
	if (strcmp(pool_vg(p)->name, new_name)) {
		if ((r = dm_names_fit(p, new_name)) || (r = name_taken(new_name)) ||
		    (r = vg_clone(pool_vg(p), &next)))
			goto detach;
		snprintf(next->name, sizeof(next->name), "%s", new_name);
		if ((r = pool_commit_vg(p, next)))
			goto detach;
	}
	/* 2. the labels */
	if ((r = pool_sync_labels(p, NULL)))
		goto detach;
	/* 3. the first layout's backups, 4. the devices file */
	pool_backup_migrate(old);
	for (unsigned i = 0; i < pool_nr_pvs(p); i++)
		pool_record_device(new_name, pool_pv_at(p, i)->label.role,
				   pool_pv_at(p, i)->label.pv_uuid, pool_pv_at(p, i)->io->name);
	if (pool_meta1_pv(p))
		pool_record_device(new_name, VG_ROLE_META, pool_meta1_pv(p)->label.pv_uuid,
				   pool_meta1_pv(p)->io->name);
	if ((r = pool_devices_remove_pool(old)))
		log_warn("pool %s: the devices file still lists it under %s (%s); a label scan "
			 "finds it", new_name, old, strerror(-r));
	r = 0;
detach:
	pool_close(p);
	free(listed);
	tp_lock_release(lock);
	return r;
}
