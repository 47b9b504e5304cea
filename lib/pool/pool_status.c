/* pool_status.c - allocation figures of a pool and of each volume, from
 * the thin metadata, or from the kernel and its metadata snapshot while
 * the pool is active. A pool the kernel has failed or made read-only is
 * reported as such, with the figures the kernel still gives: it refuses the
 * metadata snapshot the per-volume walk needs, so those are left out. */
#include "lib/pool/pool_int.h"
#include "lib/pool/pool_vg.h"
#include "lib/pool/pool_usage.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int md_walk(void *arg, const struct thin_ir_visitor *v)
{
	return thin_walk(arg, 0, v);
}

/* Pool-level figures in blocks: from the space maps or the kernel. */
static int pool_figures(struct pool *p, struct pool_status *st, uint64_t *mu, uint64_t *mt,
			uint64_t *du, uint64_t *dt)
{
	struct tp_dm_pool_status ks;
	int r;

	if (!p->live) {
		st->needs_check = thin_needs_check(p->md);
		return thin_usage(p->md, mu, mt, du, dt);
	}
	r = tp_dm_pool_status(p->pool_dm, 0, &ks);
	if (r)
		return r;
	st->live = 1;
	if (ks.fail || ks.error) {
		st->failed = 1;
		st->no_volume_usage = 1;
		*mu = *mt = *du = *dt = 0;
		return 0;
	}
	*mu = ks.used_meta_blocks;
	*mt = ks.total_meta_blocks;
	*du = ks.used_data_blocks;
	*dt = ks.total_data_blocks;
	st->needs_check = ks.needs_check;
	st->read_only = ks.mode == TP_DM_MODE_RO;
	st->out_of_data = ks.mode == TP_DM_MODE_OUT_OF_DATA;
	st->no_volume_usage = st->read_only || st->needs_check;
	return 0;
}

int pool_get_status(struct pool *p, struct pool_status *st)
{
	const struct vg_label *meta = &p->pv[VG_ROLE_META].label;
	uint64_t mu, mt, du, dt, chunk = (uint64_t)p->vg->chunk_size * 512;
	struct pool_dev_usage *u = NULL;
	size_t nu = 0;
	int r;

	memset(st, 0, sizeof(*st));
	r = pool_figures(p, st, &mu, &mt, &du, &dt);
	if (!r && !st->no_volume_usage)
		r = p->live ? pool_live_usage(p, dt, &u, &nu)
			    : pool_usage_walk(md_walk, p->md, dt, &u, &nu);
	if (r) {
		log_error("pool %s: cannot read its allocation: %s; run 'tpcheck %s'", p->name,
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
	st->nr_volumes = p->vg->nr_volumes;
	if (st->nr_volumes && !(st->volumes = calloc(st->nr_volumes, sizeof(*st->volumes)))) {
		free(u);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < st->nr_volumes; i++) {
		struct pool_volume_status *vs = &st->volumes[i];
		/* A volume whose creation was interrupted is not in the thin
		 * metadata yet (pool_reconcile said so): nothing mapped. */
		const struct pool_dev_usage *d;

		vs->vol = &p->vg->volumes[i];
		st->virtual_total += vs->vol->size;
		d = pool_usage_find(u, nu, vs->vol->dev_id);
		if (d) {
			vs->mapped = d->mapped * chunk;
			vs->exclusive = d->exclusive * chunk;
			vs->shared = (d->mapped - d->exclusive) * chunk;
		}
	}
	free(u);
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
