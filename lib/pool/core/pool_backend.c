/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_backend.c - is the kernel running a pool? Decided once, when the
 * pool is attached, and failing closed:
 *   - device-mapper is asked for the pool's devices by our dm uuids
 *     ("TPTOOLS-<pool uuid>-...", kernel/dm_pool_find.c), so a renamed
 *     device counts; a label that cannot be read leaves the dm name;
 *   - the first two devices (data and metadata), when block devices, are
 *     opened exclusively (O_EXCL) for a moment: the kernel refuses that
 *     while a running pool (or anything else: a mount, an md or dm
 *     device) holds them; added data devices and a second metadata device
 *     are not asked.
 * The pool's thin-pool device loaded: LIVE (P->be = the kernel). Nothing
 * loaded and both free: OFFLINE (the engine on the devices). A
 * host without device-mapper (no dm-mod, no control node) has nothing
 * loaded. Any other answer refuses the pool, logged, with what to do:
 * device-mapper present but not answering (no permission, a broken
 * control node, a failed ioctl), or a device held while none of the
 * pool's devices is loaded (active under another name, or in use by
 * something else). Before deciding, what an interrupted command left in
 * the kernel is cleared (pool_leftovers.c). */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/devopen.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum pool_liveness pool_liveness_decide(int dm_err, int has_tpool, int held)
{
	if (dm_err)
		return POOL_IS_UNKNOWN;
	if (has_tpool)
		return POOL_IS_LIVE;
	return held ? POOL_IS_HELD : POOL_IS_OFFLINE;
}

/* Does something hold block device PATH? 1 yes (the exclusive open was
 * refused with EBUSY), 0 free, not a block device, or not openable (the
 * open that follows reports that). */
static int held(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return 0;
	fd = io_dev_open(path, O_RDONLY | O_EXCL);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EBUSY;
}

/* The pool's thin-pool device by its dm name (no uuid known). */
static int find_by_name(const struct pool *p, struct tp_dm_pool_devs *d, char *why, size_t len)
{
	int r = tp_dm_pool_is_active(p->name);

	memset(d, 0, sizeof(*d));
	if (r < 0) {
		snprintf(why, len, "device-mapper could not be asked: %s%s", strerror(-r),
			 r == -EACCES || r == -EPERM ? " (run as root)" : "");
		return r;
	}
	if (r == 1 && tp_dm_name(d->tpool, sizeof(d->tpool), p->name, TP_DM_ROLE_POOL, NULL))
		return -EINVAL;
	return 0;
}

int pool_decide_backend(struct pool *p, char *const paths[2], const char *uuid)
{
	struct tp_dm_pool_devs d;
	char why[256] = "";
	const char *busy = NULL;
	int r;

	r = uuid[0] ? tp_dm_pool_find(uuid, &d, why, sizeof(why))
		    : find_by_name(p, &d, why, sizeof(why));
	if (!r && uuid[0] && d.have_dm && (r = pool_clear_leftovers(p, uuid, &d)))
		return r;	/* logged */
	for (int i = 0; i < 2 && !r && !d.tpool[0] && !busy; i++)
		if (paths[i] && held(paths[i]))
			busy = paths[i];
	switch (pool_liveness_decide(r, d.tpool[0] != 0, busy != NULL)) {
	case POOL_IS_LIVE:
		p->be = &pool_backend_live;
		snprintf(p->pool_dm, sizeof(p->pool_dm), "%s", d.tpool);
		return 0;
	case POOL_IS_OFFLINE:
		p->be = &pool_backend_offline;
		p->pool_dm[0] = '\0';
		return 0;
	case POOL_IS_HELD:
		log_error("pool %s: %s is held by the kernel or another program (mounted, part of "
			  "a device-mapper or md device, or opened exclusively, e.g. by a tptools "
			  "command of another configuration), but none of the pool's own kernel "
			  "devices is loaded; tptools will not touch a pool that may be running "
			  "under another name. Find the holder (lsblk %s; "
			  "/sys/class/block/*/holders), stop it, and try again",
			  p->name, busy, busy);
		return -EBUSY;
	case POOL_IS_UNKNOWN:
		break;
	}
	log_error("pool %s: cannot tell whether the kernel runs it: %s; tptools does not read "
		  "or write a pool that may be active (nothing was changed)", p->name, why);
	return r == -EINVAL || r == -ERANGE ? -EIO : r;
}

int pool_refuse_live_device(const char *path, const struct vg_label *l)
{
	struct tp_dm_pool_devs d;
	char why[256] = "";
	int r = tp_dm_pool_find(l->pool_uuid, &d, why, sizeof(why));

	if (r) {
		log_error("%s: a device of pool %s; cannot tell whether the kernel runs that pool: "
			  "%s; nothing was written", path, l->pool_name, why);
		return r == -EINVAL || r == -ERANGE ? -EIO : r;
	}
	if (!d.tpool[0] && !d.tmeta[0] && !d.tdata[0])
		return 0;
	log_error("%s: refusing to write: it is a device of pool %s, which is active in the "
		  "kernel (%s); deactivate it first ('tpdeactivate %s'); nothing was written",
		  path, l->pool_name, d.tpool[0] ? d.tpool : d.tmeta[0] ? d.tmeta : d.tdata,
		  l->pool_name);
	return -EBUSY;
}
