/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_mirror.c - mirrored thin metadata in the kernel (see dm.h): tmeta as
 * the raid target's raid1 (dm-raid, the md personality, as LVM's raid1
 * _tmeta) over two legs, each a linear device over its metadata device's
 * active thin-metadata area (<tmeta>-leg0, -leg1) with one over its raid
 * metadata area (<tmeta>-rmeta0, -rmeta1: dm-raid's superblock and
 * bitmap). The raid metadata is what lets md go on after a leg fails:
 * without it (raid metadata devices '-') md's set is "external" and a
 * write error holds every later write until userspace acknowledges the
 * failure, which nothing does. A missing or stale leg is "- -" and the
 * set runs degraded; a leg whose I/O fails is marked faulty ('D' in the
 * status) and the set goes on with the other; a replaced leg (its raid
 * metadata zeroed by lib/pool) is rebuilt from the other ("rebuild I"). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* KIND "leg" (the leg's thin-metadata area) or "rmeta" (its raid
 * metadata): <tmeta>-<kind><i>, uuid TPTOOLS-<pool uuid>-tmeta-<kind><i> */
static int leg_name(char *buf, const char *tmeta, const char *kind, unsigned i)
{
	int n = snprintf(buf, TP_DM_NAME_MAX, "%s-%s%u", tmeta, kind, i);

	return n < 0 || n >= TP_DM_NAME_MAX ? -ENAMETOOLONG : 0;
}

static int leg_uuid(char *buf, const char *pool_uuid, const char *kind, unsigned i)
{
	char u[TP_DM_UUID_MAX];
	int r = tp_dm_uuid(u, sizeof(u), pool_uuid, TP_DM_ROLE_TMETA, 0), n;

	if (r)
		return r;
	n = snprintf(buf, TP_DM_UUID_MAX, "%s-%s%u", u, kind, i);
	return n < 0 || n >= TP_DM_UUID_MAX ? -ENAMETOOLONG : 0;
}

/* The pieces of a leg, in the order they are made: the integrity
 * target's data ("iorig", the area) and metadata ("imeta") devices when
 * the legs have integrity, the leg itself (linear over the area, or the
 * integrity target over those two), its raid metadata. */
enum piece { P_IORIG, P_IMETA, P_LEG, P_RMETA, P_NR };
static const char *const kinds[P_NR] = { "iorig", "imeta", "leg", "rmeta" };

int tp_dm_raid1_table(const struct tp_dm_pool_layout *l, const char rmeta[2][TP_DM_NAME_MAX],
		      const char leg[2][TP_DM_NAME_MAX], int rebuild, struct tp_dm_target *t)
{
	char params[32] = "1 0";
	int n;

	if (!l->meta_length || l->meta_length % 512 || (!leg[0][0] && !leg[1][0]))
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->length = l->meta_length / 512;
	snprintf(t->type, sizeof(t->type), "raid");
	if (rebuild >= 0)
		snprintf(params, sizeof(params), "3 0 rebuild %d", rebuild);
	n = snprintf(t->params, sizeof(t->params), "raid1 %s 2 %s %s %s %s", params,
		     leg[0][0] ? rmeta[0] : "-", leg[0][0] ? leg[0] : "-",
		     leg[1][0] ? rmeta[1] : "-", leg[1][0] ? leg[1] : "-");
	return n < 0 || (size_t)n >= sizeof(t->params) ? -ENAMETOOLONG : 0;
}

/* The raid1 over the legs of tmeta TMETA whose bit is in LEGS, which
 * the table names by major:minor */
static int raid1_over(const struct tp_dm_pool_layout *l, const char *tmeta, unsigned legs,
		      int rebuild, struct tp_dm_target *t)
{
	char devno[2][TP_DM_NAME_MAX] = { "", "" }, mdevno[2][TP_DM_NAME_MAX] = { "", "" };
	char name[TP_DM_NAME_MAX];
	int r;

	for (unsigned i = 0; i < 2; i++) {
		if (!(legs & (1u << i)))
			continue;
		if ((r = leg_name(name, tmeta, kinds[P_LEG], i)) ||
		    (r = tp_dm_devno(name, devno[i], sizeof(devno[i]))) ||
		    (r = leg_name(name, tmeta, kinds[P_RMETA], i)) ||
		    (r = tp_dm_devno(name, mdevno[i], sizeof(mdevno[i]))))
			return r;
	}
	return tp_dm_raid1_table(l, (const char(*)[TP_DM_NAME_MAX])mdevno,
				 (const char(*)[TP_DM_NAME_MAX])devno, rebuild, t);
}

/* The integrity target of leg I over its iorig and imeta devices: bitmap
 * mode (the area on the disk is always what the device shows, so offline
 * tools read and write it as it is; io_integrity.c keeps the tags), 4 KiB
 * blocks, crc32c tags, one journal section (the bitmap's), a bitmap bit
 * for each block (the kernel takes more blocks a bit when the bitmap does
 * not fit the section, from 6.5 GiB of area on), the bitmap's clean bits
 * cleared each second, and "recalculate": a new (zeroed) superblock is
 * formatted and every tag computed from the data; on a formatted one it
 * changes nothing. Bitmap mode does not check reads of blocks written in
 * the last second (their bit is dirty: after a crash they are
 * recalculated, not checked); every other read is. */
static int integrity_table(const struct tp_dm_pool_layout *l, const char *tmeta, unsigned i,
			   struct tp_dm_target *t)
{
	char name[TP_DM_NAME_MAX], orig[TP_DM_NAME_MAX], meta[TP_DM_NAME_MAX];
	int r, n;

	if ((r = leg_name(name, tmeta, kinds[P_IORIG], i)) ||
	    (r = tp_dm_devno(name, orig, sizeof(orig))) ||
	    (r = leg_name(name, tmeta, kinds[P_IMETA], i)) ||
	    (r = tp_dm_devno(name, meta, sizeof(meta))))
		return r;
	memset(t, 0, sizeof(*t));
	t->length = l->meta_length / 512;
	snprintf(t->type, sizeof(t->type), "integrity");
	n = snprintf(t->params, sizeof(t->params),
		     "%s 0 4 B 7 meta_device:%s block_size:4096 internal_hash:crc32c "
		     "journal_sectors:392 sectors_per_bit:8 bitmap_flush_interval:1000 "
		     "recalculate", orig, meta);
	return n < 0 || (size_t)n >= sizeof(t->params) ? -ENAMETOOLONG : 0;
}

static int piece_table(const struct tp_dm_pool_layout *l, const char *tmeta, unsigned i,
		       enum piece k, struct tp_dm_target *t)
{
	switch (k) {
	case P_RMETA:
		return tp_dm_linear(t, 0, l->meta_leg[i], l->raid_meta_offset,
				    l->raid_meta_length);
	case P_IMETA:
		return tp_dm_linear(t, 0, l->meta_leg[i], l->imeta_offset, l->imeta_length);
	case P_LEG:
		if (l->imeta_length)
			return integrity_table(l, tmeta, i, t);
		/* without integrity the leg is the area itself */
		return tp_dm_linear(t, 0, l->meta_leg[i], l->meta_offset, l->meta_length);
	case P_IORIG:
	default:
		return tp_dm_linear(t, 0, l->meta_leg[i], l->meta_offset, l->meta_length);
	}
}

/* The pieces a leg of L has: all four with integrity, else leg and rmeta. */
static int has_piece(const struct tp_dm_pool_layout *l, enum piece k)
{
	return l->imeta_length || (k != P_IORIG && k != P_IMETA);
}

/* Make leg I's devices (those not there yet) */
static int legs_create(const struct tp_dm_pool_layout *l, const char *tmeta, unsigned i)
{
	char name[TP_DM_NAME_MAX], uuid[TP_DM_UUID_MAX];
	struct tp_dm_target t;
	struct tp_dm_info info;
	int r;

	for (unsigned k = 0; k < P_NR; k++) {
		if (!has_piece(l, (enum piece)k))
			continue;
		if ((r = leg_name(name, tmeta, kinds[k], i)) ||
		    (r = leg_uuid(uuid, l->pool_uuid, kinds[k], i)) ||
		    (r = piece_table(l, tmeta, i, (enum piece)k, &t))) {
			log_error("pool %s: bad metadata mirror leg %u", l->pool, i);
			return r;
		}
		if (tp_dm_info(name, &info) == -ENXIO &&
		    (r = tp_dm_create(name, uuid, &t, 1, TP_DM_INTERNAL))) {
			if (k == P_LEG && l->imeta_length)
				log_error("pool %s: the kernel refused the integrity device of "
					  "metadata leg %u (%s): %s; is the dm-integrity module "
					  "there?", l->pool, i, t.params, strerror(-r));
			return r;
		}
	}
	return 0;
}

int tp_dm_meta_legs_remove(const char *tmeta)
{
	/* the users first: each leg (an integrity target uses its iorig and
	 * imeta), then what it was made of */
	static const enum piece order[P_NR] = { P_LEG, P_RMETA, P_IORIG, P_IMETA };
	char name[TP_DM_NAME_MAX];

	for (unsigned k = 0; k < P_NR; k++)
		for (unsigned i = 0; i < 2; i++) {
			int r = leg_name(name, tmeta, kinds[order[k]], i);

			if (!r)
				r = tp_dm_remove(name);
			if (r && r != -ENXIO)
				return r;
		}
	return 0;
}

int tp_dm_meta_create(const struct tp_dm_pool_layout *l, const char *tmeta)
{
	char uuid[TP_DM_UUID_MAX];
	struct tp_dm_target t;
	unsigned legs = 0;
	int r;

	if (!l->meta_mirror) {
		if ((r = tp_dm_linear(&t, 0, l->meta_dev, l->meta_offset, l->meta_length))) {
			log_error("pool %s: bad metadata area %s at %" PRIu64 " length %" PRIu64,
				  l->pool, l->meta_dev ? l->meta_dev : "", l->meta_offset,
				  l->meta_length);
			return r;
		}
		if ((r = tp_dm_uuid(uuid, sizeof(uuid), l->pool_uuid, TP_DM_ROLE_TMETA, 0)))
			return r;
		return tp_dm_create(tmeta, uuid, &t, 1, TP_DM_INTERNAL);
	}
	for (unsigned i = 0; i < 2; i++) {
		if (!l->meta_leg[i])
			continue;
		if ((r = legs_create(l, tmeta, i)))
			goto undo;
		legs |= 1u << i;
	}
	if ((r = raid1_over(l, tmeta, legs, legs == 3 ? l->meta_rebuild - 1 : -1, &t)) ||
	    (r = tp_dm_uuid(uuid, sizeof(uuid), l->pool_uuid, TP_DM_ROLE_TMETA, 0)))
		goto undo;
	if ((r = tp_dm_create(tmeta, uuid, &t, 1, TP_DM_INTERNAL))) {
		if (r == -EINVAL && legs != 3)
			log_error("pool %s: the kernel refused the raid1 of its metadata mirror on "
				  "leg %u alone (%s): a leg with no raid metadata of an earlier "
				  "activation (one put in offline by a replace, before the pool ran "
				  "with both legs) cannot carry the set by itself", l->pool,
				  legs == 1 ? 0 : 1, t.params);
		else
			log_error("pool %s: the kernel refused the raid1 of its metadata mirror "
				  "(%s): %s; is the dm-raid module there?", l->pool, t.params,
				  strerror(-r));
		goto undo;
	}
	return 0;
undo:
	if (tp_dm_meta_legs_remove(tmeta))
		log_warn("pool %s: could not remove the legs of %s after the failure", l->pool,
			 tmeta);
	return r;
}

/* Load table TR into the running tmeta TMETA and switch to it; the pool's
 * metadata I/O waits while tmeta is suspended. *REFUSED: the kernel
 * refused the table (the old one runs on, nothing refers to the legs). */
static int reload_tmeta(const struct tp_dm_pool_layout *l, const char *tmeta,
			const struct tp_dm_target *tr, int *refused)
{
	int r, rr;

	*refused = 0;
	if ((r = tp_dm_load(tmeta, tr, 1, 0))) {
		log_error("pool %s: the kernel refused the new raid1 of %s (%s): %s", l->pool,
			  tmeta, tr->params, strerror(-r));
		*refused = 1;
		return r;
	}
	tp_critical_begin();
	if ((r = tp_dm_suspend(tmeta, 0))) {
		tp_critical_end();
		log_error("pool %s: cannot suspend %s: %s", l->pool, tmeta, strerror(-r));
		return r;
	}
	rr = tp_dm_resume(tmeta);
	tp_critical_end();
	if (rr)
		log_error("pool %s: cannot resume %s: %s; run 'dmsetup resume %s'", l->pool, tmeta,
			  strerror(-rr), tmeta);
	return rr;
}

int tp_dm_meta_replace_leg(const struct tp_dm_pool_layout *l, unsigned i)
{
	char tmeta[TP_DM_NAME_MAX], name[TP_DM_NAME_MAX];
	struct tp_dm_target t, tr;
	struct tp_dm_info info;
	int r, refused;

	if (i > 1 || !l->meta_mirror || !l->meta_leg[i] || !l->meta_leg[1 - i])
		return -EINVAL;
	if ((r = tp_dm_name(tmeta, sizeof(tmeta), l->pool, TP_DM_ROLE_TMETA, NULL)))
		return r;
	/* 1. the leg's two devices onto the new device: made when the set
	 * runs without the leg, else loaded again (the set marked the leg
	 * failed and no longer sends it I/O). The new table's constructor
	 * must read the new device's zeroed raid metadata, so this comes
	 * first. */
	for (unsigned k = 0; k < P_NR && !r; k++) {
		if (!has_piece(l, (enum piece)k))
			continue;
		/* with integrity: its data and metadata devices, then the
		 * integrity target again (its constructor formats the new
		 * device's zeroed superblock) */
		if ((r = leg_name(name, tmeta, kinds[k], i)) ||
		    (r = piece_table(l, tmeta, i, (enum piece)k, &t)))
			break;
		if (tp_dm_info(name, &info) == -ENXIO)
			continue;	/* made below */
		if (!(r = tp_dm_load(name, &t, 1, 0)) && !(r = tp_dm_suspend(name, 0)))
			r = tp_dm_resume(name);
		if (r)
			log_error("pool %s: cannot point %s at %s: %s", l->pool, name,
				  l->meta_leg[i], strerror(-r));
	}
	if (r || (r = legs_create(l, tmeta, i)) || (r = raid1_over(l, tmeta, 3, (int)i, &tr)))
		return r;
	/* 2. the raid1 with the leg to rebuild */
	return reload_tmeta(l, tmeta, &tr, &refused);
}

int tp_dm_meta_mirror_live(const struct tp_dm_pool_layout *l)
{
	char tmeta[TP_DM_NAME_MAX];
	struct tp_dm_target t;
	int r, refused = 1;

	if (!l->meta_mirror || !l->meta_leg[0] || !l->meta_leg[1])
		return -EINVAL;
	if ((r = tp_dm_name(tmeta, sizeof(tmeta), l->pool, TP_DM_ROLE_TMETA, NULL)))
		return r;
	/* both legs' devices, then tmeta from linear to the raid1 over them
	 * with leg 1 to rebuild from leg 0 (whose area the linear table
	 * mapped); until the reload, nothing uses the legs */
	if (!(r = legs_create(l, tmeta, 0)) && !(r = legs_create(l, tmeta, 1)) &&
	    !(r = raid1_over(l, tmeta, 3, 1, &t)))
		r = reload_tmeta(l, tmeta, &t, &refused);
	if (r && refused && tp_dm_meta_legs_remove(tmeta))
		log_warn("pool %s: could not remove the legs of %s after the failure", l->pool,
			 tmeta);
	return r;
}

int tp_dm_meta_mirror_grow(const struct tp_dm_pool_layout *l, const char *tmeta)
{
	char name[TP_DM_NAME_MAX];
	struct tp_dm_target t, tr;
	unsigned legs = 0;
	int r, rr;

	for (unsigned i = 0; i < 2; i++)
		if (l->meta_leg[i])
			legs |= 1u << i;
	if (!l->meta_mirror || !legs)
		return -EINVAL;
	if ((r = raid1_over(l, tmeta, legs, -1, &tr)))
		return r;
	if ((r = tp_dm_suspend(tmeta, 0))) {
		log_error("pool %s: cannot suspend %s: %s", l->pool, tmeta, strerror(-r));
		return r;
	}
	/* the legs' linear devices longer (nothing reaches them while tmeta
	 * is suspended), then the raid1 over them: md grows the set on resume
	 * and resyncs the new part from leg 0; a refused table leaves the old
	 * one, and longer legs under it are harmless */
	for (unsigned i = 0; i < 2 && !r; i++) {
		if (!(legs & (1u << i)))
			continue;
		/* with integrity: the area's device, then the integrity target
		 * over it (the kernel recalculates the tags of the new part) */
		for (unsigned k = 0; k < 2 && !r; k++) {
			enum piece pc = k ? P_LEG : P_IORIG;

			if (!k && !l->imeta_length)
				continue;
			if ((r = leg_name(name, tmeta, kinds[pc], i)) ||
			    (r = piece_table(l, tmeta, i, pc, &t)))
				break;
			if ((r = tp_dm_load(name, &t, 1, 0)) || (r = tp_dm_suspend(name, 0)) ||
			    (r = tp_dm_resume(name)))
				log_error("pool %s: cannot grow %s: %s", l->pool, name,
					  strerror(-r));
		}
	}
	if (!r && (r = tp_dm_load(tmeta, &tr, 1, 0)))
		log_error("pool %s: the kernel refused the longer raid1 of %s (%s): %s", l->pool,
			  tmeta, tr.params, strerror(-r));
	if ((rr = tp_dm_resume(tmeta)))
		log_error("pool %s: cannot resume %s: %s; run 'dmsetup resume %s'", l->pool, tmeta,
			  strerror(-rr), tmeta);
	return r ? r : rr;
}

int tp_dm_parse_raid_status(const char *params, struct tp_dm_raid_status *st)
{
	char type[16], health[16], ratio[64];
	unsigned long long a, b, mis = 0;
	int n;

	memset(st, 0, sizeof(*st));
	n = sscanf(params, "%15s %u %15s %63s %15s %llu", type, &st->nr_devs, health, ratio,
		   st->action, &mis);
	st->mismatches = n >= 6 ? mis : 0;
	if (n < 4 || strcmp(type, "raid1") || !st->nr_devs || st->nr_devs >= sizeof(st->health) ||
	    strlen(health) != st->nr_devs || sscanf(ratio, "%llu/%llu", &a, &b) != 2) {
		log_error("cannot read the raid status line '%s'", params);
		return -EPROTO;
	}
	memcpy(st->health, health, st->nr_devs);
	st->sync_done = a;
	st->sync_total = b;
	return 0;
}

int tp_dm_raid_status(const char *name, struct tp_dm_raid_status *st)
{
	char type[TP_DM_TYPE_MAX], params[TP_DM_PARAMS_MAX];
	int r = tp_dm_target_line(name, false, TP_DM_NOFLUSH, type, sizeof(type), params,
				  sizeof(params));

	memset(st, 0, sizeof(*st));
	if (r)
		return r;
	if (strcmp(type, "raid"))
		return -ENOENT;	/* a tmeta of one device */
	return tp_dm_parse_raid_status(params, st);
}

int tp_dm_parse_integrity_status(const char *params, struct tp_dm_integrity_status *st)
{
	unsigned long long mis, prov, rec;
	char recalc[32];

	memset(st, 0, sizeof(*st));
	if (sscanf(params, "%llu %llu %31s", &mis, &prov, recalc) != 3) {
		log_error("cannot read the integrity status line '%s'", params);
		return -EPROTO;
	}
	st->mismatches = mis;
	st->provided = prov;
	st->recalc = prov;	/* "-": no recalculation was ever asked for */
	if (strcmp(recalc, "-")) {
		if (sscanf(recalc, "%llu", &rec) != 1) {
			log_error("cannot read the integrity status line '%s'", params);
			return -EPROTO;
		}
		st->recalc = rec;
	}
	return 0;
}

int tp_dm_meta_leg_integrity(const char *pool, unsigned leg, struct tp_dm_integrity_status *st)
{
	char tmeta[TP_DM_NAME_MAX], name[TP_DM_NAME_MAX], type[TP_DM_TYPE_MAX];
	char params[TP_DM_PARAMS_MAX];
	int r;

	memset(st, 0, sizeof(*st));
	if ((r = tp_dm_name(tmeta, sizeof(tmeta), pool, TP_DM_ROLE_TMETA, NULL)) ||
	    (r = leg_name(name, tmeta, kinds[P_LEG], leg)))
		return r;
	r = tp_dm_target_line(name, false, TP_DM_NOFLUSH, type, sizeof(type), params,
			      sizeof(params));
	if (r == -ENXIO)
		return -ENOENT;
	if (r)
		return r;
	if (strcmp(type, "integrity"))
		return -ENOENT;
	return tp_dm_parse_integrity_status(params, st);
}
