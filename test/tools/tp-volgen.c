/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-volgen - fill a pool with many volumes fast (test tool: the scale
 * benchmark scripts/bench-volumes.sh and its shell test).
 *
 *   tp-volgen [--devices LIST] [--size SIZE] [--snapshots S] [--prefix P]
 *             POOL N
 *
 * Adds N volumes to POOL (made by tpcreate, which leaves its host backup
 * and devices-file entry): P0 .. P(N-S-1) are thin volumes of SIZE
 * (default 1G), P(N-S) .. P(N-1) snapshots, the K-th of them (from 0) of
 * P(K mod (N-S)). Each gets what tvcreate or tvsnap would give it (the
 * next thin device id, the size, the creation time; a snapshot its
 * origin's size and LUKS uuid and the origin's name), but all N go in ONE
 * VG commit (and its host backup) and one thin-metadata transaction: an
 * empty thin device per volume, a snapshot sharing its origin's mapping
 * tree, through lib/pool's own change protocol (pool_change), so that no
 * format is written here. tvcreate and tvsnap commit once per volume, and
 * from a few thousand volumes on each commit costs in proportion to the
 * volumes already there.
 *
 * Refused, with nothing written, when the VG text would not fit the VG
 * area (the message says how many bytes it would take and how many the
 * slot holds), or when a name is taken. Exit 0, 3 for bad usage, 5 for
 * errors (tptools(7)). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/core/core.h"
#include "metadata/vg/vg_int.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gen {
	uint32_t first_id;	/* thin device id of the first new volume */
	unsigned first;		/* its index in the committed VG's volumes */
	unsigned n, snaps;
};

static int usage(void)
{
	log_error("usage: tp-volgen [--devices LIST] [--size SIZE] [--snapshots S] [--prefix P] "
		  "POOL N");
	return TP_EXIT_USAGE;
}

/* The thin side: one device per new volume, in the VG's order. */
static int apply(struct pool *p, const void *arg)
{
	const struct gen *g = arg;
	const struct vg *vg = pool_vg(p);
	unsigned plain = g->n - g->snaps;
	int r = 0;

	for (unsigned i = 0; i < g->n && !r; i++) {
		const struct vg_volume *v = &vg->volumes[g->first + i];

		if (i < plain)
			r = pool_op_create(p, v->dev_id);
		else
			r = pool_op_snap(p, v->dev_id,
					 &vg->volumes[g->first + (i - plain) % plain]);
		if (r)
			log_error("pool %s: cannot make thin device %u of %s: %s", pool_name(p),
				  v->dev_id, v->name, strerror(-r));
	}
	return r;
}

/* The largest VG text every device's slot takes. */
static size_t capacity(const struct pool *p)
{
	size_t cap = SIZE_MAX;

	for (unsigned i = 0; i < pool_nr_pvs(p); i++) {
		const struct vg_pv *pv = pool_pv_at(p, i);

		if (pv && pv->io && vg_mda_capacity(&pv->label) < cap)
			cap = vg_mda_capacity(&pv->label);
	}
	return cap;
}

static int build(struct pool *p, const char *prefix, unsigned n, unsigned snaps, uint64_t size)
{
	const struct vg *cur = pool_vg(p);
	unsigned plain = n - snaps, have = cur->nr_volumes;
	struct gen g = { cur->next_dev_id, cur->nr_volumes, n, snaps };
	int64_t now = (int64_t)time(NULL);
	struct vg *next;
	char *text;
	size_t len, cap;
	int r;

	if ((uint64_t)cur->next_dev_id + n > (uint64_t)VG_DEV_ID_MAX + 1) {
		log_error("pool %s: %u more thin device ids do not fit (next id %u, at most %u)",
			  pool_name(p), n, cur->next_dev_id, VG_DEV_ID_MAX);
		return -ENOSPC;
	}
	if ((uint64_t)have + cur->nr_receives + cur->nr_removals + cur->nr_trash + n >
	    VG_MAX_VOLUMES) {
		log_error("pool %s: %u more volumes would pass the limit of %u volumes",
			  pool_name(p), n, VG_MAX_VOLUMES);
		return -EINVAL;
	}
	if ((r = vg_clone(cur, &next)))
		return r;
	for (unsigned i = 0; i < n && !r; i++) {
		struct vg_volume v;

		memset(&v, 0, sizeof(v));
		if (snprintf(v.name, sizeof(v.name), "%s%u", prefix, i) >= (int)sizeof(v.name)) {
			log_error("prefix '%s' makes volume names longer than %d bytes", prefix,
				  VG_NAME_MAX);
			r = -EINVAL;
			break;
		}
		/* tvcreate's rules of a new name (valid, a device-mapper name
		 * that fits, not taken by the pool's own volumes); the new
		 * ones are distinct by construction */
		if ((r = pool_name_free(p, v.name)))
			break;
		v.dev_id = g.first_id + i;
		v.creation_time = now;
		if (i < plain) {
			v.size = size;
		} else {
			const struct vg_volume *o = &next->volumes[g.first + (i - plain) % plain];

			snprintf(v.origin, sizeof(v.origin), "%s", o->name);
			v.size = o->size;
			snprintf(v.luks_uuid, sizeof(v.luks_uuid), "%s", o->luks_uuid);
		}
		r = vg_append_volume(next, &v);
	}
	next->next_dev_id = g.first_id + n;
	/* before anything is written: the whole text fits every slot */
	if (!r && !(r = vg_export(next, &text, &len))) {
		free(text);
		cap = capacity(p);
		if (len > cap) {
			log_error("pool %s: %u more volumes make VG metadata of %zu bytes (%zu per "
				  "volume), more than the %zu bytes a slot of its VG area holds "
				  "(about %zu volumes); nothing was written",
				  pool_name(p), n, len, len / (have + n), cap,
				  cap / (len / (have + n)));
			r = -ENOSPC;
		}
	}
	if (r) {
		vg_free(next);
		return r;
	}
	return pool_change(p, next, apply, &g);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "devices", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "snapshots", required_argument, NULL, 'S' },
		{ "prefix", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devices = NULL, *prefix = "vol";
	uint64_t size = 1ull << 30, n, snaps = 0;
	struct pool *p = NULL;
	char *end;
	int c, r;

	tp_log_init("tp-volgen");
	tp_log_set_command(argc, (const char *const *)argv);
	pool_init();
	while ((c = getopt_long(argc, argv, "d:s:S:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			devices = optarg;
			break;
		case 's':
			if (tp_size_parse_arg("--size", optarg, 'b', &size) ||
			    pool_volume_size_check("--size", size, &size))
				return TP_EXIT_USAGE;
			break;
		case 'S':
			errno = 0;
			snaps = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-')
				return usage();
			break;
		case 'p':
			prefix = optarg;
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != 2)
		return usage();
	errno = 0;
	n = strtoull(argv[optind + 1], &end, 10);
	if (errno || *end || !*argv[optind + 1] || *argv[optind + 1] == '-' || n > VG_MAX_VOLUMES || snaps > n ||
	    (snaps && snaps == n)) {
		log_error("N must be 0..%u and S below N (a snapshot needs an origin)",
			  VG_MAX_VOLUMES);
		return TP_EXIT_USAGE;
	}
	if (!n)
		return TP_EXIT_OK;
	r = pool_open(argv[optind], devices, 0, &p);
	if (!r)
		r = build(p, prefix, (unsigned)n, (unsigned)snaps, size);
	pool_close(p);
	return tp_exit_from_errno(r);
}
