/* pool_extend.c - grow a pool's data area to its data device's current
 * size (tpextend; pool.h).
 *
 * The change is one VG commit (the new device size and data area, and
 * transaction id + 1: the journal) and one thin transaction (the data
 * space map grown, the transaction id set), through pool_change; the
 * labels are rewritten last (pool_labels.c). A crash after the VG commit
 * is completed by the next command that opens the pool for writing
 * (pool_txn.c grows the space map, pool_labels.c the labels).
 *
 * The geometry: the new end is rounded down to whole chunks. The stripe
 * of the data device (libblkid topology, or $TPTOOLS_TOPOLOGY) is read
 * again: when a full stripe is reported that the chunk is not a multiple
 * of (a disk was added to the array), the result says so and what the
 * chunk now costs; the chunk of a pool cannot change. */
#include "lib/pool/pool_int.h"

#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/dev/topology.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Fill RES's stripe fields from the data device's topology now. */
static void check_stripe(struct pool *p, struct pool_extend_result *res)
{
	struct tp_topology t;
	char c[32], s[32];
	uint64_t stripe;

	if (tp_topology_get(p->pv[VG_ROLE_DATA].io->name, &t))
		return;
	tp_topology_describe(&t, res->topo_desc, sizeof(res->topo_desc));
	stripe = tp_policy_stripe(&t, NULL, 0);
	if (!stripe || res->chunk % stripe == 0)
		return;
	res->stripe_changed = 1;
	tp_size_format(res->chunk, 'h', c, sizeof(c));
	tp_size_format(stripe, 'h', s, sizeof(s));
	if (res->chunk < stripe)
		snprintf(res->stripe, sizeof(res->stripe),
			 "the array's stripe changed: a full stripe is now %s, and the pool's chunk of "
			 "%s covers only part of one; every chunk the pool writes is a partial-stripe "
			 "write, for which a parity array reads the rest of the stripe first "
			 "(read-modify-write). The chunk of a pool cannot change: a pool created "
			 "now would get a multiple of %s", s, c, s);
	else
		snprintf(res->stripe, sizeof(res->stripe),
			 "the array's stripe changed: a full stripe is now %s, and the pool's chunk of "
			 "%s is not a multiple of it; most chunks start or end inside a stripe, so "
			 "writing one makes a parity array read the rest of that stripe first "
			 "(read-modify-write). The chunk of a pool cannot change: a pool created "
			 "now would get a multiple of %s", s, c, s);
}

static int apply_grow(struct pool *p, const void *arg)
{
	const uint64_t *blocks = arg;
	int r = thin_resize_data(p->md, *blocks);

	if (r)
		log_error("pool %s: cannot grow the thin metadata's data space map to %llu "
			  "chunks: %s", p->name, (unsigned long long)*blocks, strerror(-r));
	return r;
}

int pool_extend(struct pool *p, struct pool_extend_result *res)
{
	const struct vg_device *d = &p->vg->dev[VG_ROLE_DATA];
	uint64_t dev_size = p->pv[VG_ROLE_DATA].io->size, room, blocks;
	struct vg *next;
	char a[32], b[32];
	int r;

	memset(res, 0, sizeof(*res));
	res->chunk = (uint64_t)p->vg->chunk_size * 512;
	res->old_data_size = res->new_data_size = d->area[0].size / res->chunk * res->chunk;
	res->data_dev_size = dev_size;
	check_stripe(p, res);
	if (p->live) {
		log_error("pool %s is active: growing an active pool is not supported yet; "
			  "deactivate it with 'tpdeactivate %s' first", p->name, p->name);
		return -EBUSY;
	}
	room = dev_size > d->area[0].offset ? dev_size - d->area[0].offset : 0;
	blocks = room / res->chunk;
	if (blocks > THIN_MAX_DATA_BLOCKS)
		blocks = THIN_MAX_DATA_BLOCKS;
	if (blocks * res->chunk <= res->old_data_size) {
		log_error("pool %s: the data device %s (%s) has no whole chunk (%s) beyond the data "
			  "area; grow the device first", p->name, p->pv[VG_ROLE_DATA].io->name,
			  tp_size_format(dev_size, 'h', a, sizeof(a)),
			  tp_size_format(res->chunk, 'h', b, sizeof(b)));
		return -ENOSPC;
	}
	if ((r = vg_clone(p->vg, &next)))
		return r;
	next->dev[VG_ROLE_DATA].size = dev_size;
	next->dev[VG_ROLE_DATA].area[0].size = blocks * res->chunk;
	r = pool_change(p, next, apply_grow, &blocks);
	if (r)
		return r;
	res->new_data_size = blocks * res->chunk;
	return pool_sync_labels(p, NULL);
}
