/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_ops.c - the thin-device operations of a change, on whichever side
 * owns the thin metadata: P->be, the offline engine (uncommitted until
 * the caller commits) or the kernel's pool (pool_backend.c decides).
 * Returns 0 or -errno; volume.c and the transaction replay (pool_txn.c)
 * call them. Also the one refusal of an offline-only operation. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int pool_op_create(struct pool *p, uint32_t dev_id)
{
	return p->be->create(p, dev_id);
}

int pool_op_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *o)
{
	return p->be->snap(p, dev_id, o);
}

int pool_op_delete(struct pool *p, uint32_t dev_id, const char *vol)
{
	return p->be->delete_thin(p, dev_id, vol);
}

void pool_op_unmake(struct pool *p, uint32_t dev_id)
{
	if (p->be->live && p->be->delete_thin(p, dev_id, NULL))
		log_error("pool %s: cannot delete the new thin device %u again", p->name, dev_id);
}

int pool_data_open(struct pool *p, unsigned flags, struct io_engine **out)
{
	const char *path = p->pv[VG_ROLE_DATA].io->name;
	int r;

	/* a feature's view (several data devices: each opened anew) */
	if ((r = pool_features_view_open(p, VG_ROLE_DATA, flags, out)) <= 0)
		return r;
	if ((r = io_fd_open(path, flags, out)))
		log_error("pool %s: cannot open its data device %s: %s", p->name, path,
			  strerror(-r));
	return r;
}

/* Every data device of P is a block device (seen through its open fd). */
static int data_all_block(const struct pool *p)
{
	unsigned n = vg_nr_data(p->vg);

	for (unsigned i = 0; i < n; i++) {
		const struct vg_pv *pv = &p->pv[POOL_DATA_PV(i)];
		struct stat st;
		int fd = pv->io ? io_fd_get(pv->io) : -1;
		if (fd < 0 || fstat(fd, &st) || !S_ISBLK(st.st_mode))
			return 0;
	}
	return n > 0;
}

int pool_data_bulk(struct pool *p, unsigned flags, struct io_engine **io, struct io_engine **own)
{
	*io = pool_pv(p, VG_ROLE_DATA)->io;
	*own = NULL;
	if (!p->be->live && !data_all_block(p))
		return 0;
	if (pool_data_open(p, flags | IO_DIRECT, own))
		return p->be->live ? -EIO : 0;	/* offline the attached one serves */
	*io = *own;
	return 0;
}

int pool_data_reader(struct pool *p, struct io_engine **rd, struct io_engine **own)
{
	const char *path = p->pv[VG_ROLE_DATA].io->name;
	int r;

	*rd = pool_pv(p, VG_ROLE_DATA)->io;
	*own = NULL;
	if (!p->be->live)	/* block devices: with O_DIRECT (pool_data_bulk) */
		return pool_data_bulk(p, IO_RDONLY, rd, own);
	/* a feature's view (several data devices: each opened anew) */
	if ((r = pool_features_view_open(p, VG_ROLE_DATA, IO_RDONLY | IO_DIRECT, own)) <= 0) {
		if (!r)
			*rd = *own;
		return r;
	}
	if ((r = io_fd_open(path, IO_RDONLY | IO_DIRECT, own))) {
		log_error("pool %s: cannot open its data device %s for reading: %s", p->name, path,
			  strerror(-r));
		return r;
	}
	*rd = *own;
	return 0;
}

int pool_volume_loaded(const struct pool *p, const char *vol, struct tp_dm_info *info)
{
	char dm[TP_DM_NAME_MAX];
	int r;

	if (!p->be->live)
		return 0;
	if ((r = tp_dm_name(dm, sizeof(dm), p->name, TP_DM_ROLE_THIN, vol)))
		return r;
	r = tp_dm_info(dm, info);
	return r == -ENXIO ? 0 : r ? r : 1;
}

int pool_op_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id)
{
	return p->be->set_tid(p, old_id, new_id);
}

int pool_op_vol_deactivate(struct pool *p, const char *vol)
{
	int r = tp_dm_vol_deactivate(p->name, vol);

	if (r == -EBUSY)
		log_error("pool %s: volume %s is in use (mounted or open); close it first",
			  p->name, vol);
	return r == -ENXIO ? 0 : r;
}

int pool_refuse_live(const struct pool *p, const char *what)
{
	if (!p->be->live)
		return 0;
	log_error("pool %s is active in the kernel: %s needs it offline; deactivate it first "
		  "('tpdeactivate %s'); nothing was changed", p->name, what, p->name);
	return -EBUSY;
}
