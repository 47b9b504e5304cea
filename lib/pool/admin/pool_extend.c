/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_extend.c - grow a pool's data area to its last data device's
 * current size, and its thin-metadata areas (tpextend; pool.h).
 *
 * The change is one VG commit (the new device size and data area, and
 * transaction id + 1: the journal) and one thin transaction (the data
 * space map grown, the transaction id set), through pool_change; the
 * labels are rewritten last (pool_labels.c). A crash after the VG commit
 * is completed by the next command that opens the pool for writing
 * (pool_txn.c grows the space map, pool_labels.c the labels).
 *
 * A live pool takes the same plan; its thin side (pool_grow_thin, the
 * live backend's in core/pool_live.c) is a reload of the kernel's table
 * stack (kernel/dm_resize.c), after which the kernel grows its own space
 * maps.
 *
 * The geometry: the new end is rounded down to whole chunks. The stripe
 * of the data device (libblkid topology, or $TPTOOLS_TOPOLOGY) is read
 * again: when the chunk now straddles md-chunk or stripe boundaries
 * (tp_policy_chunk_fits; a disk was added to the array), the result says
 * so and what the chunk now costs; the chunk of a pool cannot change. */
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/mirror/mirror.h"
#include "lib/pool/pool_admin.h"

#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/dev/topology.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Fill RES's stripe fields from the data device's topology now. */
static void check_stripe(struct pool *p, struct pool_extend_result *res)
{
	struct tp_topology t;
	char c[32], s[32];
	uint64_t stripe;

	if (tp_topology_get(pool_data_dev_path(p, vg_nr_data(pool_vg(p)) - 1), &t))
		return;
	tp_topology_describe(&t, res->topo_desc, sizeof(res->topo_desc));
	stripe = tp_policy_stripe(&t, NULL, 0);
	if (!stripe || tp_policy_chunk_fits(&t, res->chunk))
		return;
	res->stripe_changed = 1;
	tp_size_format(res->chunk, 'h', c, sizeof(c));
	tp_size_format(stripe, 'h', s, sizeof(s));
	snprintf(res->stripe, sizeof(res->stripe),
		 "the array's stripe changed: a full stripe is now %s, and the pool's chunk of %s "
		 "%s; chunks that start or end inside a stripe make a parity array read the rest "
		 "of that stripe first (read-modify-write). The chunk of a pool cannot change: a "
		 "pool created now would get a chunk that divides the md chunk or the stripe, or "
		 "is a multiple of the stripe",
		 s, c, res->chunk < stripe ? "does not divide it" : "is not a multiple of it");
}

/* The metadata layout after growth to SIZE per area, or -ENOSPC: the
 * active area stays where it is and grows in place (only the spare can
 * follow it); the spare stays where it is if it fits before the active
 * area, else it goes to the next TP_META_ALIGN boundary behind it. */
static int meta_layout(uint64_t active, uint64_t spare, uint64_t size, uint64_t dev_size,
		       uint64_t *new_spare)
{
	uint64_t behind = (active + size + TP_META_ALIGN - 1) / TP_META_ALIGN * TP_META_ALIGN;

	if (active + size > dev_size)
		return -ENOSPC;
	if (spare < active && spare + size <= active) {
		*new_spare = spare;
		return 0;
	}
	if (behind > dev_size || size > dev_size - behind)
		return -ENOSPC;
	*new_spare = behind;
	return 0;
}

/* The largest area size meta_layout accepts (0 if none): the spare kept
 * before the active area, or both areas sharing what follows the active
 * area, in whole TP_META_ALIGN units; at most TP_META_MAX. */
static uint64_t meta_room(uint64_t active, uint64_t spare, uint64_t dev_size)
{
	uint64_t keep = 0, behind, s;

	if (active >= dev_size)
		return 0;
	if (spare < active)
		keep = TP_MIN(active - spare, dev_size - active) / TP_META_BLOCK * TP_META_BLOCK;
	behind = (dev_size - active) / 2 / TP_META_ALIGN * TP_META_ALIGN;
	while (behind && meta_layout(active, spare, behind, dev_size, &s))
		behind -= TP_META_ALIGN;
	return TP_MIN(TP_MAX(keep, behind), TP_META_MAX);
}

/* Where the thin-metadata areas of P must end: the device's end (of a
 * mirror: the smaller leg's; *LEG which, -1 when not a leg's), or a lease
 * area or the raid metadata behind the active area (tpchange --lock-type,
 * tpchange --meta-mirror put them there). */
static uint64_t meta_end(const struct pool *p, int *leg)
{
	const struct vg *vg = pool_vg(p);
	uint64_t act = vg->dev[VG_ROLE_META].area[vg->metadata_area].offset;
	uint64_t end = pool_pv(p, VG_ROLE_META)->io->size;
	const struct vg_pv *m1 = pool_meta1_pv(p);
	int which = 0;

	if (m1 && m1->io->size < end) {
		end = m1->io->size;
		which = 1;
	}
	if (vg->lock.type != VG_LOCK_NONE && vg->lock.offset > act && vg->lock.offset < end) {
		end = vg->lock.offset;
		which = -1;
	}
	if (vg->meta_mirror && vg_raid_meta_offset(vg) > act && vg_raid_meta_offset(vg) < end) {
		end = vg_raid_meta_offset(vg);
		which = -1;
	}
	if (leg)
		*leg = which;
	return end;
}

uint64_t pool_meta_room(const struct pool *p)
{
	const struct vg_device *m = &pool_vg(p)->dev[VG_ROLE_META];
	unsigned act = pool_vg(p)->metadata_area;

	return meta_room(m->area[act].offset, m->area[!act].offset, meta_end(p, NULL));
}

/* Decide the metadata growth into NEXT: -EINVAL / -ENOSPC, logged. A
 * mirrored pool's second leg takes the same areas (the VG requires it:
 * vg_check_model), its own device size. */
static int plan_meta(struct pool *p, const struct pool_extend_params *x, struct vg *next,
		     struct pool_extend_result *res)
{
	struct vg_device *m = &next->dev[VG_ROLE_META];
	unsigned act = next->metadata_area;
	int leg;
	uint64_t dev_size = meta_end(p, &leg), size = x->metadata_size, spare, need;
	char a[48], b[48], c[48], d[48], what[VG_PATH_MAX + 160];

	if (!size)
		size = meta_room(m->area[act].offset, m->area[!act].offset, dev_size);
	/* dm-integrity's metadata under the legs holds the tags of areas up
	 * to a size tpcreate chose (4 times its device): not past it */
	if (next->integrity_size && !x->metadata_size)
		size = TP_MIN(size, vg_imeta_cover(next->integrity_size) / TP_META_BLOCK *
					    TP_META_BLOCK);
	size = (size + TP_META_BLOCK - 1) / TP_META_BLOCK * TP_META_BLOCK;
	if (next->integrity_size && size > vg_imeta_cover(next->integrity_size)) {
		log_error("pool %s: the integrity metadata of its metadata mirror's legs holds "
			  "the tags of thin-metadata areas up to %s; --metadata-size %s is more; "
			  "nothing was changed: give at most %s", pool_name(p),
			  tp_size_format_exact(vg_imeta_cover(next->integrity_size), a, sizeof(a)),
			  tp_size_format_exact(size, b, sizeof(b)), a);
		return -ENOSPC;
	}
	if (x->metadata_size && (size <= res->old_meta_size || size > TP_META_MAX)) {
		log_error("pool %s: --metadata-size %s must be above the current %s and at most "
			  "%s (the format's limit)", pool_name(p),
			  tp_size_format_exact(size, a, sizeof(a)),
			  tp_size_format_exact(res->old_meta_size, b, sizeof(b)),
			  tp_size_format(TP_META_MAX, 'h', c, sizeof(c)));
		return -EINVAL;
	}
	if (size <= res->old_meta_size ||
	    meta_layout(m->area[act].offset, m->area[!act].offset, size, dev_size, &spare)) {
		uint64_t want = size > res->old_meta_size ? size : res->old_meta_size + TP_META_BLOCK;

		/* what the two areas would need the device to reach */
		need = m->area[act].offset + want;
		if (!meta_layout(m->area[act].offset, m->area[!act].offset, want, UINT64_MAX, &spare))
			need = TP_MAX(need, spare + want);
		if (!next->meta_mirror)
			snprintf(what, sizeof(what), "the metadata device %s",
				 pool_pv(p, VG_ROLE_META)->io->name);
		else if (leg >= 0 && pool_meta1_pv(p)->io->size == pool_pv(p, VG_ROLE_META)->io->size)
			snprintf(what, sizeof(what), "each metadata mirror leg, %s and %s,",
				 pool_pv(p, VG_ROLE_META)->io->name, pool_meta1_pv(p)->io->name);
		else if (leg >= 0)
			snprintf(what, sizeof(what), "metadata mirror leg %d, %s,", leg,
				 leg ? pool_meta1_pv(p)->io->name : pool_pv(p, VG_ROLE_META)->io->name);
		else {
			log_error("pool %s: the thin-metadata areas of its mirror cannot grow "
				  "past byte %" PRIu64 ", where the raid metadata or the lease area "
				  "lies behind the active area; they would need %s each (up to byte "
				  "%" PRIu64 "); nothing was changed", pool_name(p), dev_size,
				  tp_size_format(want, 'h', b, sizeof(b)), need);
			return -ENOSPC;
		}
		log_error("pool %s: %s (%s) has no room for an active and a spare thin-metadata "
			  "area of %s each (they need %s); grow the device first; nothing was "
			  "changed", pool_name(p), what, tp_size_format_exact(dev_size, a, sizeof(a)),
			  tp_size_format(want, 'h', b, sizeof(b)),
			  tp_size_format_exact(need, d, sizeof(d)));
		return -ENOSPC;
	}
	m->size = pool_pv(p, VG_ROLE_META)->io->size;
	m->area[act].size = size;
	m->area[!act].offset = spare;
	m->area[!act].size = size;
	if (next->meta_mirror) {
		next->meta1.size = pool_meta1_pv(p)->io->size;
		next->meta1.area[0] = m->area[0];
		next->meta1.area[1] = m->area[1];
	}
	res->new_meta_size = size;
	return 0;
}

/* A mirrored pool's metadata grows on both legs in sync (live: the
 * kernel's raid1 with both legs in sync, no rebuild under way). */
static int mirror_ready(struct pool *p)
{
	struct pool_meta_leg leg[2];

	if (!pool_meta_legs(p, leg))
		return 0;
	for (unsigned i = 0; i < 2; i++) {
		if (leg[i].resyncing) {
			log_error("pool %s: the kernel is still resyncing leg %u (%s) of its "
				  "metadata mirror; grow it once 'tpstatus -o pool_meta_health %s' "
				  "says mirrored; nothing was changed", pool_name(p), i, leg[i].path,
				  pool_name(p));
			return -EBUSY;
		}
		if (leg[i].err) {
			log_error("pool %s: its metadata mirror is degraded: leg %u (%s) is %s; "
				  "resync it first ('tpchange --meta-replace DEV %s', or 'tprepair "
				  "%s' for a stale leg); nothing was changed", pool_name(p), i,
				  leg[i].path, leg[i].state, pool_name(p), pool_name(p));
			return -ESTALE;
		}
	}
	return pool_meta1_pv(p) && pool_pv(p, VG_ROLE_META)->io ? 0 : -ESTALE;
}

int pool_extend(struct pool *p, const struct pool_extend_params *x,
		struct pool_extend_result *res)
{
	/* the last data device is the one that can grow: the ones before it
	 * are followed by another's range */
	unsigned last = vg_nr_data(pool_vg(p)) - 1;
	const struct vg_device *d = vg_data_dev(pool_vg(p), last);
	uint64_t dev_size = pool_data_dev_size(p, last), room, blocks;
	uint64_t before = vg_data_first_chunk(pool_vg(p), last);
	struct pool_growth g = { 0, 0 };
	struct vg *next;
	char a[48], b[48];
	int r;

	memset(res, 0, sizeof(*res));
	res->chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	res->old_data_size = res->new_data_size = vg_data_chunks(pool_vg(p)) * res->chunk;
	res->old_meta_size = res->new_meta_size =
		pool_vg(p)->dev[VG_ROLE_META].area[pool_vg(p)->metadata_area].size;
	res->data_dev_size = dev_size;
	check_stripe(p, res);
	/* a growth a crash cut short is finished first */
	if ((r = pool_grow_catch_up(p, res)))
		return r < 0 ? r : 0;
	room = dev_size > d->area[0].offset ? dev_size - d->area[0].offset : 0;
	blocks = before + room / res->chunk;
	if (blocks > THIN_MAX_DATA_BLOCKS)
		blocks = THIN_MAX_DATA_BLOCKS;
	if (x->data_size && blocks > x->data_size / res->chunk)
		blocks = x->data_size / res->chunk;
	if (blocks * res->chunk > res->old_data_size)
		g.data_blocks = blocks;
	else if (!x->metadata) {
		log_error("pool %s: the data device %s (%s) has no whole chunk (%s) beyond the data "
			  "area; grow the device first", pool_name(p), pool_data_dev_path(p, last),
			  tp_size_format_exact(dev_size, a, sizeof(a)),
			  tp_size_format(res->chunk, 'h', b, sizeof(b)));
		return -ENOSPC;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	if (g.data_blocks) {
		vg_data_dev(next, last)->size = dev_size;
		vg_data_dev(next, last)->area[0].size = (g.data_blocks - before) * res->chunk;
	}
	if (x->metadata) {
		if ((pool_vg(p)->meta_mirror && (r = mirror_ready(p))) ||
		    (r = plan_meta(p, x, next, res))) {
			vg_free(next);
			return r;
		}
		g.meta_blocks = TP_MIN(res->new_meta_size / TP_META_BLOCK, THIN_METADATA_MAX_BLOCKS);
	}
	/* the data space map's growth in the (new) metadata area */
	if (g.data_blocks && (r = pool_meta_check_growth(p, g.data_blocks, g.meta_blocks,
							  "growing the data area"))) {
		vg_free(next);
		return r;
	}
	/* offline, the thin-metadata areas grown (the spare one moved): the
	 * legs' integrity superblocks zeroed before the VG names the new
	 * areas, so that the kernel formats them anew and computes every tag
	 * at the next activation, never checking one kept for the old areas
	 * (a crash before the commit costs only that computation) */
	if (g.meta_blocks && next->integrity_size && !pool_is_live(p) &&
	    ((r = pool_integrity_reset(next, pool_pv(p, VG_ROLE_META)->io)) ||
	     (r = pool_integrity_reset(next, pool_meta1_pv(p)->io)))) {
		log_error("pool %s: cannot reset the integrity metadata of its metadata mirror's "
			  "legs: %s; the pool was not changed", pool_name(p), strerror(-r));
		vg_free(next);
		return r;
	}
	r = pool_change(p, next, pool_grow_thin, &g);
	if (r) {
		/* the VG was put back: so are the labels and the window */
		res->new_meta_size = res->old_meta_size;
		pool_grow_undone(p, &g);
		return r;
	}
	if (g.data_blocks)
		res->new_data_size = g.data_blocks * res->chunk;
	return pool_sync_labels(p, NULL);
}
