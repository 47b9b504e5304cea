/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_live.c - the live backend (core.h): the kernel owns the thin
 * metadata, so changes are pool messages (each one commits in the
 * kernel), figures come from the pool's status and reads from its
 * metadata snapshot (pool_msnap.c). */
#include "lib/pool/core/core_int.h"
#include "lib/pool/core/pool_vg.h"

#include "kernel/dm.h"
#include "metadata/thin/delta.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int live_create(struct pool *p, uint32_t dev_id)
{
	return tp_dm_create_thin(p->pool_dm, dev_id);
}

static int live_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *o)
{
	char dm[TP_DM_NAME_MAX];
	struct tp_dm_info info;
	const char *active = NULL;
	int r;

	/* The origin must be quiesced while the kernel shares its tree. */
	if ((r = tp_dm_name(dm, sizeof(dm), p->name, TP_DM_ROLE_THIN, o->name)))
		return r;
	r = tp_dm_info(dm, &info);
	if (r && r != -ENXIO)
		return r;
	if (!r)
		active = o->name;
	return tp_dm_snapshot(p->name, active, dev_id, o->dev_id);
}

static int live_delete(struct pool *p, uint32_t dev_id, const char *vol)
{
	int r;

	if (vol && (r = pool_op_vol_deactivate(p, vol)))
		return r;
	return tp_dm_delete_thin(p->pool_dm, dev_id);
}

/* The removal's step through its own thin device (loaded under its name,
 * which the removal keeps taken): a discard of 16 chunks from *POS
 * unmaps only this device's mappings and drops their data references
 * (blocks a snapshot shares stay its). The kernel holds the pool's
 * metadata while it unmaps a discarded range, so the range is small: the
 * other volumes' I/O waits about as long as the range takes (with 64
 * chunks a step, p99 of the benchmark's writes was 44 ms against 13 ms
 * with 16, bench/remove.md). Every 16th step (256 chunks) and the last
 * one end with a flush, which makes the kernel commit (it also commits on
 * its own every second); an
 * uncommitted step lost in a crash is discarded again by the resumed
 * removal, which starts over at chunk 0. The device is opened at the first
 * step and stays open until pool_removal_release (P->removal_fd). The
 * device's status says what is left. -EOPNOTSUPP
 * when the pool ignores discards (VG discards=ignore). */
static int live_unmap_step(struct pool *p, const struct vg_volume *rm, int do_step,
			   uint64_t *pos, uint64_t *left)
{
	uint64_t chunk = (uint64_t)p->vg->chunk_size * 512, end = rm->size / chunk * chunk;
	uint64_t step = do_step ? pool_removal_step(16) : 0;
	char dm[TP_DM_NAME_MAX], path[TP_DM_NAME_MAX + 16];
	struct tp_dm_thin_status st;
	int fd, r;

	/* loaded (and open, below) once: the steps after the first find it so */
	if ((!p->removal_fd_open && (r = pool_load_thin(p, rm))) ||
	    (r = tp_dm_name(dm, sizeof(dm), p->name, TP_DM_ROLE_THIN, rm->name)) ||
	    (r = tp_dm_path(path, sizeof(path), dm)))
		return r;
	if (step && *pos * chunk < end) {
		uint64_t range[2] = { *pos * chunk, step * chunk };

		if (range[1] > end - range[0])
			range[1] = end - range[0];
		if (!p->removal_fd_open) {
			if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
				r = -errno;
				log_error("pool %s: cannot open %s to give back the chunks of %s: %s",
					  p->name, path, rm->name, strerror(-r));
				return r;
			}
			p->removal_fd = fd;
			p->removal_fd_open = 1;
		}
		fd = p->removal_fd;
		r = ioctl(fd, BLKDISCARD, range) ? -errno : 0;
		if (!r && ((range[0] + range[1]) / chunk / step % pool_removal_flush_every(16) == 0
			   || range[0] + range[1] == end) && fsync(fd))
			r = -errno;
		if (r) {
			if (r != -EOPNOTSUPP)
				log_error("pool %s: discard of %s at chunk %llu failed: %s", p->name,
					  rm->name, (unsigned long long)*pos, strerror(-r));
			return r;
		}
		*pos += range[1] / chunk;
	}
	if ((r = tp_dm_thin_status(dm, &st)))
		return r;
	*left = st.mapped_sectors / p->vg->chunk_size;
	/* nothing mapped at or beyond *POS: the rest is done; so too once the
	 * discards reached the last whole chunk: a volume ending inside a
	 * chunk keeps that one mapped (no discard covers it), the delete at
	 * the end gives it back */
	if (!st.has_highest || st.highest_sector < *pos * (chunk / 512) || *pos * chunk >= end)
		*left = 0;
	return 0;
}

static int live_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id)
{
	if (tp_test_fail("set-tid"))
		return -EIO;
	return tp_dm_set_transaction_id(p->pool_dm, old_id, new_id);
}

static int live_nothing(struct pool *p)
{
	(void)p;
	return 0;
}

/* The kernel's status of P (FLAGS: TP_DM_NOFLUSH or 0) into *KS and its
 * block counts, zero for a failed pool (no figures). 0 or -errno. */
static int status_blocks(struct pool *p, unsigned flags, struct tp_dm_pool_status *ks,
			 uint64_t *mu, uint64_t *mt, uint64_t *du, uint64_t *dt)
{
	int r = tp_dm_pool_status(p->pool_dm, flags, ks);

	if (r)
		return r;
	if (ks->fail || ks->error) {
		*mu = *mt = *du = *dt = 0;
		return 0;
	}
	*mu = ks->used_meta_blocks;
	*mt = ks->total_meta_blocks;
	*du = ks->used_data_blocks;
	*dt = ks->total_data_blocks;
	return 0;
}

static int live_figures(struct pool *p, struct pool_status *st, uint64_t *mu, uint64_t *mt,
			uint64_t *du, uint64_t *dt)
{
	struct tp_dm_pool_status ks;
	int r = status_blocks(p, 0, &ks, mu, mt, du, dt);

	if (r)
		return r;
	st->live = 1;
	if (ks.fail || ks.error) {
		/* no figures: said by tpstatus with the way back */
		st->failed = 1;
		st->no_volume_usage = 1;
		return 0;
	}
	st->needs_check = ks.needs_check;
	st->read_only = ks.mode == TP_DM_MODE_RO;
	st->out_of_data = ks.mode == TP_DM_MODE_OUT_OF_DATA;
	/* the kernel refuses a metadata snapshot to a read-only pool */
	st->no_volume_usage = st->read_only || st->needs_check;
	return 0;
}

static int live_fill(struct pool *p, uint64_t *mu, uint64_t *mt, uint64_t *du, uint64_t *dt)
{
	struct tp_dm_pool_status ks;
	int r = status_blocks(p, TP_DM_NOFLUSH, &ks, mu, mt, du, dt);

	return r ? r : ks.fail || ks.error ? -EIO : 0;
}

static int live_view_begin(struct pool *p, struct pool_meta_view *v)
{
	int r = pool_msnap_begin(p, &v->snap);

	if (r)
		return r;
	v->io = v->snap.area;
	v->flags = THIN_DELTA_METADATA_SNAP;
	v->snapshot = 1;
	return 0;
}

static int live_grow(struct pool *p, const struct pool_growth *g)
{
	struct tp_dm_pool_layout l;
	int r;

	(void)g;
	if ((r = pool_sync_labels(p, NULL)))
		return r;
	pool_dm_layout(p, &l);
	return tp_dm_pool_reload(&l);
}

static void live_grow_undone(struct pool *p, const struct pool_growth *g)
{
	(void)g;
	if (pool_sync_labels(p, NULL))
		log_error("pool %s: the labels could not follow the VG back; the next command "
			  "that changes the pool rewrites them", p->name);
}

const struct pool_backend pool_backend_live = {
	.live = 1,
	.create = live_create,
	.snap = live_snap,
	.delete_thin = live_delete,
	.unmap_step = live_unmap_step,
	.set_tid = live_set_tid,
	.commit = live_nothing,
	.abort = live_nothing,
	.settle = pool_live_settle,
	.reconcile = pool_live_reconcile,
	.figures = live_figures,
	.usage = pool_live_usage,
	.details = pool_live_details,
	.fill = live_fill,
	.view_begin = live_view_begin,
	.grow = live_grow,
	.grow_undone = live_grow_undone,
	.grow_catch_up = pool_live_catch_up,
};
