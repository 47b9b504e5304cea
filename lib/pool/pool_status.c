/* pool_status.c - allocation figures of a pool and of each volume. */
#include "lib/pool/pool_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pool_get_status(struct pool *p, struct pool_status *st)
{
	const struct vg_label *meta = &p->pv[VG_ROLE_META].label;
	uint64_t mu, mt, du, dt, chunk = (uint64_t)p->vg->chunk_size * 512;
	int r;

	memset(st, 0, sizeof(*st));
	r = thin_usage(p->md, &mu, &mt, &du, &dt);
	if (r) {
		log_error("pool %s: cannot read its space maps: %s; run 'tpcheck %s'", p->name,
			  strerror(-r), p->name);
		return r;
	}
	st->chunk = chunk;
	st->data_size = dt * chunk;
	st->data_used = du * chunk;
	st->meta_size = mt * THIN_METADATA_BLOCK_SIZE;
	st->meta_used = mu * THIN_METADATA_BLOCK_SIZE;
	st->transaction_id = p->vg->transaction_id;
	st->data_offset = p->pv[VG_ROLE_DATA].label.area[0].offset;
	st->meta_offset = meta->area[p->vg->metadata_area].offset;
	st->spare_offset = meta->area[!p->vg->metadata_area].offset;
	st->needs_check = thin_needs_check(p->md);
	st->nr_volumes = p->vg->nr_volumes;
	if (!st->nr_volumes)
		return 0;
	st->volumes = calloc(st->nr_volumes, sizeof(*st->volumes));
	if (!st->volumes)
		return -ENOMEM;
	for (unsigned i = 0; i < st->nr_volumes; i++) {
		struct pool_volume_status *vs = &st->volumes[i];
		uint64_t mapped, excl, shared;

		vs->vol = &p->vg->volumes[i];
		st->virtual_total += vs->vol->size;
		r = thin_device_usage(p->md, vs->vol->dev_id, &mapped, &excl, &shared);
		if (r == -ENODATA) {
			/* An interrupted creation (reported by pool_reconcile): the
			 * next change completes it; nothing is mapped yet. */
			mapped = excl = shared = 0;
			r = 0;
		}
		if (r) {
			log_error("pool %s: cannot read the mappings of volume %s (thin device %u): "
				  "%s; run 'tpcheck %s'", p->name, vs->vol->name, vs->vol->dev_id,
				  strerror(-r), p->name);
			pool_status_free(st);
			return r;
		}
		vs->mapped = mapped * chunk;
		vs->exclusive = excl * chunk;
		vs->shared = shared * chunk;
	}
	return 0;
}

void pool_status_free(struct pool_status *st)
{
	if (!st)
		return;
	free(st->volumes);
	st->volumes = NULL;
	st->nr_volumes = 0;
}
