/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_data.c - the data module (data.h): a pool's data area over several
 * data devices, a feature of the core's lifecycle table (core.h: struct
 * pool_feature).
 *
 * The first data device keeps the label, VG area and data area it was
 * created with; each device tpextend --data added carries its own label
 * (role data, its place in the order as data_index) and VG copy, and its
 * data area follows the one before it in the pool's chunk numbering (the
 * VG records each device's range: vg.h). Its hooks: once the VG is read,
 * the added devices are opened into the core's device slots
 * (open_devices); whenever the VG or the devices change, the engine over
 * the concatenation is built again (vg_changed) and handed to the core as
 * the data device's view (pool_set_role_view), which pool_pv(p,
 * VG_ROLE_DATA) gives out; live, the kernel's data device is a linear
 * table over the same segments (the kernel_table hook), so a chunk is at the same
 * place either way. The engine is this module's state of the pool (its
 * slot, pool_feature_state), let go at detach. */
#include "lib/pool/data/data.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/pool/core/core.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The module's state of an open pool over several data devices. */
struct data_state {
	struct io_engine *cat;	/* the concatenation; NULL for one data device */
	struct vg_pv view;	/* what pool_pv(p, VG_ROLE_DATA) hands out */
};

static struct pool_feature data_feature;

/* Data device I of P's devices as attached (its slot may be empty). */
static const struct vg_pv *data_pv(const struct pool *p, unsigned i)
{
	return pool_pv_at(p, pool_data_slot(i));
}

/* Let the engine go and hand the data device itself out again. */
static void drop_view(struct pool *p)
{
	struct data_state *s = pool_feature_state_get(p, &data_feature);

	pool_set_role_view(p, VG_ROLE_DATA, NULL);
	if (s) {
		io_destroy(s->cat);
		s->cat = NULL;
		memset(&s->view, 0, sizeof(s->view));
	}
}

/* The vg_changed hook: (re)build the engine from P's VG and the open
 * devices (none for one data device). 0 or -errno (-ENOENT: a device
 * the VG lists is not open). */
static int rebuild(struct pool *p)
{
	struct io_concat_seg seg[VG_DATA_DEVICES_MAX];
	const struct vg *vg = pool_vg(p);
	uint64_t chunk;
	unsigned n;
	void **slot;
	struct data_state *s;
	int r;

	drop_view(p);
	if (!vg || (n = vg_nr_data(vg)) == 1)
		return 0;
	chunk = (uint64_t)vg->chunk_size * 512;
	for (unsigned i = 0; i < n; i++) {
		const struct vg_device *d = vg_data_dev(vg, i);
		struct io_engine *io = data_pv(p, i)->io;

		if (!io)
			return -ENOENT;
		/* the first device as it is up to the end of its data area (its
		 * label and VG area read through), then each added area */
		seg[i].io = io;
		seg[i].offset = i ? d->area[0].offset : 0;
		seg[i].length = (i ? 0 : d->area[0].offset) + vg_data_dev_chunks(vg, i) * chunk;
	}
	if (!(slot = pool_feature_state(p, &data_feature)))
		return -EINVAL;
	if (!*slot && !(*slot = calloc(1, sizeof(struct data_state))))
		return -ENOMEM;
	s = *slot;
	if ((r = io_concat_create(seg, n, data_pv(p, 0)->io->name, 0, &s->cat)))
		return r;
	s->view.io = s->cat;
	s->view.label = data_pv(p, 0)->label;
	pool_set_role_view(p, VG_ROLE_DATA, &s->view);
	return 0;
}

/* The view_open hook: the data area over every data device, each opened
 * anew with io_fd_open FLAGS (the live reader: O_DIRECT beside the
 * kernel), in *OUT (owning them); 1 for one data device (the core opens
 * it). 0 or -errno, logged. */
static int reader_multi(struct pool *p, enum vg_role role, unsigned flags, struct io_engine **out)
{
	const struct data_state *s = pool_feature_state_get(p, &data_feature);
	struct io_concat_seg seg[VG_DATA_DEVICES_MAX];
	const struct vg *vg = pool_vg(p);
	uint64_t chunk;
	unsigned n, i;
	int r = 0;

	if (role != VG_ROLE_DATA || !s || !s->cat)
		return 1;
	chunk = (uint64_t)vg->chunk_size * 512;
	n = vg_nr_data(vg);
	*out = NULL;
	for (i = 0; i < n && !r; i++) {
		const char *path = data_pv(p, i)->io->name;

		seg[i].offset = i ? vg_data_dev(vg, i)->area[0].offset : 0;
		seg[i].length = (i ? 0 : vg_data_dev(vg, 0)->area[0].offset) +
				vg_data_dev_chunks(vg, i) * chunk;
		if ((r = io_fd_open(path, flags, &seg[i].io)))
			log_error("pool %s: cannot open its data device %s: %s", pool_name(p), path,
				  strerror(-r));
	}
	if (!r)
		r = io_concat_create(seg, n, data_pv(p, 0)->io->name, 1, out);
	if (r)
		for (unsigned k = 0; k < i; k++)
			io_destroy(seg[k].io);
	return r;
}

/* Open PATH, data device I of P, and check its label against the VG. */
static int open_xdata(struct pool *p, unsigned i, const char *path, unsigned claim,
		      struct pool_check_report *rep)
{
	const struct vg *vg = pool_vg(p);
	const struct vg_device *d = vg_data_dev(vg, i);
	unsigned k = pool_data_slot(i);
	struct io_engine *io;
	struct vg_label l;
	int r;

	r = pool_open_pv(p, k, path, claim, &io);
	if (r) {
		if (r != -EBUSY)
			log_error("pool %s: cannot open its data device %s: %s", pool_name(p), path,
				  strerror(-r));
		return r;
	}
	r = vg_label_read(io, &l);
	/* (an added device's place in its label may lag: vg_io.c) */
	if (r != VG_LABEL_FOUND || l.role != VG_ROLE_DATA || !l.data_index != !i ||
	    strcmp(l.pv_uuid, d->pv_uuid) || strcmp(l.pool_uuid, vg->uuid)) {
		io_destroy(io);
		if (rep) {
			pool_problem(rep, 1, "%s: not data device %u of the pool (its label)", path,
				     i + 1);
			return 1;
		}
		log_error("pool %s: %s is no longer its data device %u (device uuid %s)",
			  pool_name(p), path, i + 1, d->pv_uuid);
		return -ENOENT;
	}
	pool_set_pv_at(p, k, io, &l);
	return 0;
}

/* Is there a device at PATH without a valid label (lost or corrupt)? */
static int unlabelled(const char *path)
{
	struct vg_label l;
	int r;

	if (!path[0] || access(path, F_OK))
		return 0;
	r = pool_read_label(path, &l);
	return r == -ENOENT || r == -EUCLEAN;
}

/* The open_devices hook: open the data devices the VG lists after the
 * first (REP: check and repair, a missing device is a finding) and build
 * the concatenation. 0, or -ENOENT (logged, naming the missing device)
 * and the like. */
static int attach_xdata(struct pool *p, unsigned claim, struct pool_check_report *rep)
{
	const struct vg *vg = pool_vg(p);
	const char *name = pool_name(p);
	unsigned n = vg_nr_data(vg), missing = 0;
	int r;

	pool_set_nr_pvs(p, VG_NR_ROLES);
	for (unsigned i = 1; i < n; i++) {
		const struct vg_device *d = vg_data_dev(vg, i);
		char *path = NULL;

		r = pool_find_data_device(name, vg->uuid, d->pv_uuid, i, d->path,
					  !(pool_flags(p) & POOL_RDONLY), &path);
		if (r == -ENOTBLK) {
			char at[VG_PATH_MAX + 1] = "?", why[512] = "";
			const char *then = "the pool cannot be opened or activated without every "
					   "data device";

			/* where it was last seen the filter keeps us from
			 * looking: not missing, and never taken away as such */
			if (!pool_device_filtered(d->pv_uuid, d->path, at, sizeof(at), why,
						  sizeof(why)))
				snprintf(why, sizeof(why), "(changed meanwhile)");
			if (rep) {
				pool_problem(rep, 1, "data device %u (device uuid %s) is not found: "
					     "%s, where it was last seen, is excluded by the devices "
					     "filter, pattern %s, so its label is not read", i + 1,
					     d->pv_uuid, at, why);
				pool_set_nr_pvs(p, VG_NR_ROLES + i);
				missing++;
				continue;
			}
			if (pool_flags(p) & POOL_DATA_MISSING_OK)
				then = "tpreduce --missing takes away only a device that is gone, "
				       "and this one may be there (if the device at that path is not "
				       "the pool's, it is found missing once accepted); nothing was "
				       "changed";
			log_error("pool %s: its data device %u (device uuid %s) is not found: %s, "
				  "where it was last seen, is excluded by the devices filter, pattern "
				  "%s; change devices/filter in tptools.conf to accept it "
				  "(tptools.conf(5), 'tpconfig devices/filter' shows the list) and run "
				  "the command again; %s", name, i + 1, d->pv_uuid, at, why, then);
			return -ENOENT;
		}
		if (r == -ENOENT) {
			/* check and repair go on past it, and so does tpreduce
			 * --missing: its slot stays empty (no engine), the
			 * devices after it are looked at */
			if (rep || (pool_flags(p) & POOL_DATA_MISSING_OK)) {
				if (rep)
					pool_problem(rep, 1, "data device %u (device uuid %s, last "
						     "seen at %s) is missing", i + 1, d->pv_uuid,
						     d->path[0] ? d->path : "?");
				else
					log_warn("pool %s: its data device %u (device uuid %s, last "
						 "seen at %s) is missing", name, i + 1, d->pv_uuid,
						 d->path[0] ? d->path : "?");
				pool_set_nr_pvs(p, VG_NR_ROLES + i);
				missing++;
				continue;
			}
			log_error("pool %s: its data device %u (device uuid %s, last seen at %s) is "
				  "missing: no device carries its label. Attach it and run the "
				  "command again; the pool cannot be opened or activated without "
				  "every data device ('tpstatus --devices-report %s' lists them)%s%s%s",
				  name, i + 1, d->pv_uuid, d->path[0] ? d->path : "unknown", name,
				  unlabelled(d->path) ? ". A device without a valid label is at " : "",
				  unlabelled(d->path) ? d->path : "",
				  unlabelled(d->path) ? ": if its label was lost, 'tpcheck' of the "
							"pool says whether tprepair rewrites it" : "");
			return r;
		}
		if (r)
			return r;
		r = open_xdata(p, i, path, claim, rep);
		free(path);
		if (r)
			return r < 0 ? r : 0;
		pool_set_nr_pvs(p, VG_NR_ROLES + i);
	}
	if (missing)
		return 0;	/* reported; no concatenation without every device */
	return rebuild(p);
}

/* The kernel_table hook: several data devices make the kernel's data device
 * linear over each one's area, in the VG's order. */
static void layout(const struct pool *p, struct tp_dm_pool_layout *l)
{
	const struct vg *vg = pool_vg(p);
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	if (vg_nr_data(vg) <= 1)
		return;
	l->nr_data_segs = vg_nr_data(vg);
	l->data_length = 0;
	for (unsigned i = 0; i < vg_nr_data(vg); i++) {
		struct tp_dm_data_seg *s = &l->data_seg[i];

		s->dev = data_pv(p, i)->io->name;
		s->offset = vg_data_dev(vg, i)->area[0].offset;
		s->length = vg_data_dev_chunks(vg, i) * chunk;
		l->data_length += s->length;
	}
}

/* the incomplete hook: is a data device of P missing (attached by check
 * or repair, or opened with POOL_DATA_MISSING_OK, with its slot empty)? */
static int pool_data_missing(const struct pool *p)
{
	const struct vg *vg = pool_vg(p);

	for (unsigned i = 1; vg && i < vg_nr_data(vg); i++)
		if (!data_pv(p, i)->io)
			return 1;
	return 0;
}

static struct pool_feature data_feature = {
	.name = "data",
	.detach = drop_view,
	.open_devices = attach_xdata,
	.vg_changed = rebuild,
	.view_open = reader_multi,
	.incomplete = pool_data_missing,
	.kernel_table = layout,
};

void pool_data_register(void)
{
	pool_feature_register(&data_feature);
}

const char *pool_data_dev_path(const struct pool *p, unsigned i)
{
	const struct vg_pv *pv = i < vg_nr_data(pool_vg(p)) ? data_pv(p, i) : NULL;

	return pv && pv->io ? pv->io->name : "";
}

uint64_t pool_data_dev_size(const struct pool *p, unsigned i)
{
	const struct vg_pv *pv = i < vg_nr_data(pool_vg(p)) ? data_pv(p, i) : NULL;

	return pv && pv->io ? pv->io->size : 0;
}

int pool_data_filtered_advice(const struct pool *p, char *buf, size_t len)
{
	const struct vg *vg = pool_vg(p);
	char at[VG_PATH_MAX + 1], why[512];

	for (unsigned i = 1; vg && i < vg_nr_data(vg); i++) {
		const struct vg_device *d = vg_data_dev(vg, i);

		if (data_pv(p, i)->io ||
		    !pool_device_filtered(d->pv_uuid, d->path, at, sizeof(at), why, sizeof(why)))
			continue;
		snprintf(buf, len, "change devices/filter in tptools.conf to accept %s (pattern %s "
			 "excludes it; tptools.conf(5)), then run 'tpcheck %s' again: data device "
			 "%u (device uuid %s) may well be there, do not take it away as missing",
			 at, why, pool_name(p), i + 1, d->pv_uuid);
		return 1;
	}
	return 0;
}

int pool_claim_new_data(struct pool *p, const char *path, struct tp_lock **lock,
			struct io_engine **io)
{
	int r = pool_claim_open(pool_name(p), path, 0, lock, io);

	if (r || !pool_is_live(p))
		return r;
	/* the kernel's table will hold it: no O_EXCL of ours in its way (the
	 * exclusive open above proved nobody else holds it; the flock stays) */
	io_destroy(*io);
	*io = NULL;
	if ((r = pool_claim_open(pool_name(p), path, POOL_CLAIM_LIVE | POOL_CLAIM_LOCKED, lock, io))) {
		tp_lock_release(*lock);
		*lock = NULL;
	}
	return r;
}

int pool_add_data_pv(struct pool *p, struct io_engine *io, const struct vg_label *l,
		     struct tp_lock *claim)
{
	return pool_push_pv(p, io, l, claim);
}

void pool_drop_data_pv(struct pool *p)
{
	pool_pop_pv(p);
}

/* (the first data device's slot, VG_ROLE_DATA, and the second's swapped:
 * the first one, put last, leaves its role's slot to the second) */
void pool_data_pv_to_end(struct pool *p, unsigned i)
{
	unsigned n = pool_nr_pvs(p);

	if (!i && n > pool_data_slot(1))
		pool_swap_pvs(p, pool_data_slot(0), pool_data_slot(1));
	if (n)
		pool_rotate_pvs(p, pool_data_slot(i ? i : 1), n - 1, 1);
}

void pool_data_pv_from_end(struct pool *p, unsigned i)
{
	unsigned n = pool_nr_pvs(p);

	if (n)
		pool_rotate_pvs(p, pool_data_slot(i ? i : 1), n - 1, 0);
	if (!i && n > pool_data_slot(1))
		pool_swap_pvs(p, pool_data_slot(0), pool_data_slot(1));
}
