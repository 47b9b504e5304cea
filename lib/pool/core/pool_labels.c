/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_labels.c - the labels follow the VG (core.h).
 *
 * A change of geometry (tpextend) commits the VG first, as the journal of
 * the change, and rewrites the labels after the thin metadata. Whatever
 * a crash left between those steps, the VG is what the pool is: each
 * command that opens the pool takes the label's geometry (device size,
 * VG metadata area, data or thin-metadata areas) and the pool name from
 * the VG, and a writer puts a stale label right. Labels are one sector
 * each, written and flushed one at a time. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int pool_label_stale(const struct vg_label *l, const struct vg *vg, const struct vg_device *d,
		     unsigned index)
{
	return l->device_size != d->size || memcmp(&l->mda, &d->mda, sizeof(l->mda)) ||
	       memcmp(l->area, d->area, sizeof(l->area)) || strcmp(l->pool_name, vg->name) ||
	       (l->role == VG_ROLE_DATA && l->data_index != index);
}

int pool_sync_labels(struct pool *p, int *changed)
{
	if (changed)
		*changed = 0;
	for (unsigned i = 0; i < pool_nr_pvs(p); i++) {
		const struct vg_device *d = i < VG_NR_ROLES ? &p->vg->dev[i]
							    : vg_data_dev(p->vg, i - VG_NR_ROLES + 1);
		struct vg_label l = p->pv[i].label;
		unsigned index = i < VG_NR_ROLES ? 0 : i - VG_NR_ROLES + 1;
		int r;

		if (i >= VG_NR_ROLES && index >= vg_nr_data(p->vg))
			break;	/* a device the VG does not list (yet, or any more) */
		if (!p->pv[i].io || !pool_label_stale(&l, p->vg, d, index))
			continue;
		if (changed)
			*changed = 1;
		l.device_size = d->size;
		if (l.role == VG_ROLE_DATA)
			l.data_index = index;	/* a device before it taken away */
		l.mda = d->mda;
		l.area[0] = d->area[0];
		l.area[1] = d->area[1];
		snprintf(l.pool_name, sizeof(l.pool_name), "%s", p->vg->name);
		if (!(p->flags & POOL_RDONLY)) {
			r = vg_label_write(p->pv[i].io, &l);
			if (r) {
				log_error("pool %s: cannot bring the label of %s in step with the VG "
					  "metadata: %s", p->name, p->pv[i].io->name, strerror(-r));
				return r;
			}
			log_debug(TP_DBG_POOL, "pool %s: label of %s rewritten from the VG", p->name,
				  p->pv[i].io->name);
		}
		p->pv[i].label = l;
	}
	/* the features' devices (the second metadata device) */
	{
		int r = pool_features_sync_labels(p, changed);

		if (r)
			return r;
	}
	/* a feature's view of a device carries the device's label */
	for (unsigned i = 0; i < VG_NR_ROLES; i++)
		if (p->role_view[i])
			p->role_view[i]->label = p->pv[i].label;
	return 0;
}

unsigned pool_labels_behind(const struct pool *p, const char *names[], unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; p->vg && i < pool_nr_pvs(p); i++) {
		unsigned index = i < VG_NR_ROLES ? 0 : i - VG_NR_ROLES + 1;
		const struct vg_device *d;

		if (i >= VG_NR_ROLES && index >= vg_nr_data(p->vg))
			break;
		d = i < VG_NR_ROLES ? &p->vg->dev[i] : vg_data_dev(p->vg, index);
		if (p->pv[i].io && pool_label_stale(&p->pv[i].label, p->vg, d, index) && n < max)
			names[n++] = p->pv[i].io->name;
	}
	if (p->vg)
		pool_features_labels_behind(p, names, &n, max);
	return n;
}
