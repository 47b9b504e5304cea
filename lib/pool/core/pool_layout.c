/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_layout.c - the kernel tables of an open pool, from its labels and
 * VG (core.h: pool_dm_layout, pool_load_volume): what activation loads
 * and what a live growth, or the completion of an interrupted change,
 * loads again, and pool_live_catch_up, which reloads the kernel's pool at
 * the sizes its VG records (the completion of a live growth cut after its
 * VG commit, for the transaction replay and for tpextend alike). Calls
 * only pool_labels.c, so the transaction code can use it without a
 * circle. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/le.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <string.h>

int pool_load_volume(struct pool *p, const struct vg_volume *v)
{
	int r = pool_features_load_volume(p, v);

	return r > 0 ? 0 : r ? r : pool_load_thin(p, v);
}

int pool_load_thin(struct pool *p, const struct vg_volume *v)
{
	int r = tp_dm_vol_activate(p->name, p->vg->uuid, v->name, v->dev_id, v->size / 512,
				   v->read_only ? TP_DM_READ_ONLY : 0);
	if (r == -EEXIST)
		return 0;	/* active already */
	if (r)
		log_error("pool %s: cannot activate volume %s: %s", p->name, v->name, strerror(-r));
	return r;
}

/* The kernel raises a pool event when free data blocks fall to its low
 * water mark: at the pool's first monitoring threshold (warn or
 * autoextend), so tpmonitor hears of it at once, and at 95% used at the
 * latest. */
static unsigned pool_event_percent(const struct vg *vg)
{
	unsigned at = 95;

	if (vg->monitor.warn && vg->monitor.warn < at)
		at = vg->monitor.warn;
	if (vg->monitor.autoextend_threshold < at)
		at = vg->monitor.autoextend_threshold;
	return at;
}

void pool_dm_layout(const struct pool *p, struct tp_dm_pool_layout *l)
{
	const struct vg *vg = p->vg;
	const struct vg_label *meta = &p->pv[VG_ROLE_META].label;
	const struct vg_label *data = &p->pv[VG_ROLE_DATA].label;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	memset(l, 0, sizeof(*l));
	l->pool = p->name;
	l->pool_uuid = vg->uuid;
	/* (the first lost: the second; a feature's table leaves it out) */
	l->meta_dev = pool_meta_dev_name(p);
	l->meta_offset = meta->area[vg->metadata_area].offset;
	l->meta_length = meta->area[vg->metadata_area].size;
	l->data_dev = p->pv[VG_ROLE_DATA].io->name;
	l->data_offset = data->area[0].offset;
	l->data_length = data->area[0].size / chunk * chunk;
	/* what the features' devices change (several data devices: the data
	 * device linear over each one's area; the metadata mirror: a raid1
	 * over two legs, each under dm-integrity) */
	pool_features_kernel_table(p, l);
	l->block_sectors = vg->chunk_size;
	l->low_water_blocks = l->data_length / chunk * (100 - pool_event_percent(vg)) / 100;
	if (!vg->zero)
		l->features |= TP_DM_SKIP_BLOCK_ZEROING;
	if (vg->discards == VG_DISCARDS_IGNORE)
		l->features |= TP_DM_IGNORE_DISCARD;
	else if (vg->discards == VG_DISCARDS_NOPASSDOWN)
		l->features |= TP_DM_NO_DISCARD_PASSDOWN;
	if (vg->when_full == VG_WHEN_FULL_ERROR)
		l->features |= TP_DM_ERROR_IF_NO_SPACE;
}

int pool_live_catch_up(struct pool *p, struct pool_extend_result *res)
{
	const struct vg *vg = p->vg;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	uint64_t data = vg_data_chunks(vg) * chunk;
	uint64_t meta = TP_MIN(vg->dev[VG_ROLE_META].area[vg->metadata_area].size /
			       THIN_METADATA_BLOCK_SIZE, THIN_METADATA_MAX_BLOCKS);
	struct tp_dm_pool_status st;
	struct tp_dm_pool_layout l;
	char a[32], b[32];
	int r;

	if ((r = tp_dm_pool_status(p->pool_dm, TP_DM_NOFLUSH, &st))) {
		log_error("pool %s: cannot read the kernel's status: %s", p->name, strerror(-r));
		return r;
	}
	if (st.total_data_blocks * chunk >= data && st.total_meta_blocks >= meta)
		return 0;
	log_warn("pool %s: the kernel runs it at %s of data (%llu metadata blocks), smaller than "
		 "its VG metadata records (%s): an earlier growth was interrupted; finishing it",
		 p->name, tp_size_format(st.total_data_blocks * chunk, 'h', a, sizeof(a)),
		 (unsigned long long)st.total_meta_blocks, tp_size_format(data, 'h', b, sizeof(b)));
	if ((r = pool_sync_labels(p, NULL)))
		return r;
	pool_dm_layout(p, &l);
	if ((r = tp_dm_pool_reload(&l)))
		return r;
	res->old_data_size = st.total_data_blocks * chunk;
	res->new_data_size = data;
	res->old_meta_size = st.total_meta_blocks * THIN_METADATA_BLOCK_SIZE;
	res->new_meta_size = vg->dev[VG_ROLE_META].area[vg->metadata_area].size;
	return 1;
}

int pool_table_follow_when_full(struct pool *p, int changed)
{
	struct tp_dm_pool_status st;
	struct tp_dm_pool_layout l;

	if (!p->be->live)
		return 0;
	if (!changed && !tp_dm_pool_status(p->pool_dm, TP_DM_NOFLUSH, &st) && st.nfields >= 7 &&
	    st.error_if_no_space == (p->vg->when_full == VG_WHEN_FULL_ERROR))
		return 0;
	pool_dm_layout(p, &l);
	return tp_dm_pool_reload(&l);
}
