/* pool_layout.c - the kernel tables of an open pool, from its labels and
 * VG (pool_int.h: pool_dm_layout, pool_load_volume): what activation loads
 * and what a live growth, or the completion of an interrupted change,
 * loads again. Calls nothing of lib/pool, so the transaction code can use
 * it without a circle. */
#include "lib/pool/pool_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

int pool_load_volume(struct pool *p, const struct vg_volume *v)
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
	l->meta_dev = p->pv[VG_ROLE_META].io->name;
	l->meta_offset = meta->area[vg->metadata_area].offset;
	l->meta_length = meta->area[vg->metadata_area].size;
	l->data_dev = p->pv[VG_ROLE_DATA].io->name;
	l->data_offset = data->area[0].offset;
	l->data_length = data->area[0].size / chunk * chunk;
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
