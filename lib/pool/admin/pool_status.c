/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_status.c - allocation figures of a pool and of each volume, from
 * the pool's backend (pool_offline.c, pool_live.c): mapped from the
 * device details, exclusive and shared, when asked, from a walk of every
 * mapping tree (pool_usage.c). A pool the kernel has
 * failed or made read-only is reported as such, with the figures the
 * kernel still gives: it refuses the metadata snapshot the per-volume
 * walk needs, so those are left out. */
#include "lib/pool/core/core.h"
#include "lib/pool/core/pool_vg.h"
#include "lib/pool/core/pool_usage.h"

#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pool_get_status(struct pool *p, int sharing, struct pool_status *st)
{
	const struct vg_label *meta = &pool_pv(p, VG_ROLE_META)->label;
	uint64_t mu, mt, du, dt, chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	struct pool_dev_usage *u = NULL;
	size_t nu = 0;
	int r;

	memset(st, 0, sizeof(*st));
	r = pool_figures(p, st, &mu, &mt, &du, &dt);
	if (!r && !st->no_volume_usage)
		r = sharing ? pool_dev_usage(p, dt, &u, &nu) : pool_dev_mapped(p, &u, &nu);
	if (r) {
		log_error("pool %s: cannot read its allocation: %s; run 'tpcheck %s'", pool_name(p),
			  strerror(-r), pool_name(p));
		return r;
	}
	st->chunk = chunk;
	st->data_size = dt * chunk;
	st->data_used = du * chunk;
	st->meta_size = mt * THIN_METADATA_BLOCK_SIZE;
	st->meta_used = mu * THIN_METADATA_BLOCK_SIZE;
	st->transaction_id = pool_vg(p)->transaction_id;
	st->data_offset = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	st->meta_offset = meta->area[pool_vg(p)->metadata_area].offset;
	st->spare_offset = meta->area[!pool_vg(p)->metadata_area].offset;
	st->sharing = sharing && !st->no_volume_usage;
	st->nr_volumes = pool_vg(p)->nr_volumes;
	if (st->nr_volumes && !(st->volumes = calloc(st->nr_volumes, sizeof(*st->volumes)))) {
		free(u);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < st->nr_volumes; i++) {
		struct pool_volume_status *vs = &st->volumes[i];
		/* A volume whose creation was interrupted is not in the thin
		 * metadata yet (pool_reconcile said so): nothing mapped. */
		const struct pool_dev_usage *d;

		vs->vol = &pool_vg(p)->volumes[i];
		st->virtual_total += vs->vol->size;
		d = pool_usage_find(u, nu, vs->vol->dev_id);
		if (d)
			vs->mapped = d->mapped * chunk;
		if (d && st->sharing) {
			vs->exclusive = d->exclusive * chunk;
			vs->shared = (d->mapped - d->exclusive) * chunk;
			vs->highest_mapped = d->highest_end * chunk;
		}
	}
	/* not volumes, but they hold space and names: said, with the way on */
	for (unsigned i = 0; i < pool_vg(p)->nr_receives; i++) {
		const struct vg_volume *v = &pool_vg(p)->receives[i];
		const struct pool_dev_usage *d = pool_usage_find(u, nu, v->dev_id);
		char a[32], b[32], h[32];
		/* without the walk, what it maps (what is its own needs the walk) */
		uint64_t own = d ? (st->sharing ? d->exclusive : d->mapped) * chunk : 0;

		if (v->raw) {
			/* (exclusive is counted by the sharing walk only) */
			log_warn("pool %s: the raw import of %s was cut short (%s of data %s): "
				 "it is no volume and cannot go on; drop it with 'tprecv --abort %s "
				 "%s'", pool_name(p), v->name, tp_size_format(own, 'h', h, sizeof(h)),
				 st->sharing ? "its own" : "mapped", v->name, pool_name(p));
			continue;
		}
		log_warn("pool %s: the receive of %s is unfinished (%s of %s received, %s of data "
			 "%s): finish it with 'tprecv --resume' and its stream, or drop it "
			 "with 'tprecv --abort %s %s'", pool_name(p), v->name,
			 tp_size_format(v->received, 'h', a, sizeof(a)),
			 tp_size_format(v->size, 'h', b, sizeof(b)),
			 tp_size_format(own, 'h', h, sizeof(h)),
			 st->sharing ? "its own" : "mapped", v->name,
			 pool_name(p));
	}
	for (unsigned i = 0; i < pool_vg(p)->nr_removals; i++) {
		const struct vg_volume *v = &pool_vg(p)->removals[i];
		const struct pool_dev_usage *d = pool_usage_find(u, nu, v->dev_id);
		char h[32];

		log_warn("pool %s: the removal of %s is under way (%s still mapped): it is no "
			 "volume any more; 'tvremove %s/%s', or any change to the pool, finishes "
			 "it", pool_name(p), v->name,
			 tp_size_format(d ? d->mapped * chunk : 0, 'h', h, sizeof(h)), pool_name(p),
			 v->name);
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
