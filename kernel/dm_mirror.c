/* dm_mirror.c - mirrored thin metadata in the kernel (see dm.h): tmeta as
 * the raid target's raid1 (the md personality, as LVM's raid1 _tmeta)
 * over two linear leg devices, <tmeta>-leg0 and <tmeta>-leg1, each over
 * its metadata device's active thin-metadata area. No raid metadata
 * devices ('-'): the set has no superblock, so every load of the table
 * resyncs it in full, copying the first leg onto the second (md raid1
 * reads a region under resync from the first in-sync leg); lib/pool puts
 * the leg that validated first. A missing leg is "- -" and the set runs
 * degraded; a leg whose I/O fails is marked faulty ('D' in the status)
 * and the set goes on with the other. */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int leg_name(char *buf, const char *tmeta, unsigned i)
{
	int n = snprintf(buf, TP_DM_NAME_MAX, "%s-leg%u", tmeta, i);

	return n < 0 || n >= TP_DM_NAME_MAX ? -ENAMETOOLONG : 0;
}

static int leg_uuid(char *buf, const char *pool_uuid, unsigned i)
{
	char u[TP_DM_UUID_MAX];
	int r = tp_dm_uuid(u, sizeof(u), pool_uuid, TP_DM_ROLE_TMETA, 0), n;

	if (r)
		return r;
	n = snprintf(buf, TP_DM_UUID_MAX, "%s-leg%u", u, i);
	return n < 0 || n >= TP_DM_UUID_MAX ? -ENAMETOOLONG : 0;
}

int tp_dm_raid1_table(const struct tp_dm_pool_layout *l, const char leg[2][TP_DM_NAME_MAX],
		      int rebuild, struct tp_dm_target *t)
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
	n = snprintf(t->params, sizeof(t->params), "raid1 %s 2 - %s - %s", params,
		     leg[0][0] ? leg[0] : "-", leg[1][0] ? leg[1] : "-");
	return n < 0 || (size_t)n >= sizeof(t->params) ? -ENAMETOOLONG : 0;
}

/* The raid1 over the leg devices NAMES (dm names, "" missing), which
 * the table names by major:minor */
static int raid1_over(const struct tp_dm_pool_layout *l, const char names[2][TP_DM_NAME_MAX],
		      int rebuild, struct tp_dm_target *t)
{
	char devno[2][TP_DM_NAME_MAX] = { "", "" };
	int r;

	for (unsigned i = 0; i < 2; i++)
		if (names[i][0] && (r = tp_dm_devno(names[i], devno[i], sizeof(devno[i]))))
			return r;
	return tp_dm_raid1_table(l, (const char(*)[TP_DM_NAME_MAX])devno, rebuild, t);
}

static int leg_table(const struct tp_dm_pool_layout *l, unsigned i, struct tp_dm_target *t)
{
	return tp_dm_linear(t, 0, l->meta_leg[i], l->meta_offset, l->meta_length);
}

int tp_dm_meta_legs_remove(const char *tmeta)
{
	char name[TP_DM_NAME_MAX];

	for (unsigned i = 0; i < 2; i++) {
		int r = leg_name(name, tmeta, i);

		if (!r)
			r = tp_dm_remove(name);
		if (r && r != -ENXIO)
			return r;
	}
	return 0;
}

int tp_dm_meta_create(const struct tp_dm_pool_layout *l, const char *tmeta)
{
	char leg[2][TP_DM_NAME_MAX] = { "", "" }, uuid[TP_DM_UUID_MAX];
	struct tp_dm_target t;
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
		if ((r = leg_name(leg[i], tmeta, i)) || (r = leg_uuid(uuid, l->pool_uuid, i)) ||
		    (r = leg_table(l, i, &t))) {
			log_error("pool %s: bad metadata mirror leg %u", l->pool, i);
			goto undo;
		}
		if ((r = tp_dm_create(leg[i], uuid, &t, 1, TP_DM_INTERNAL)))
			goto undo;
	}
	if ((r = raid1_over(l, (const char(*)[TP_DM_NAME_MAX])leg, -1, &t)) ||
	    (r = tp_dm_uuid(uuid, sizeof(uuid), l->pool_uuid, TP_DM_ROLE_TMETA, 0)))
		goto undo;
	if ((r = tp_dm_create(tmeta, uuid, &t, 1, TP_DM_INTERNAL))) {
		log_error("pool %s: the kernel refused the raid1 of its metadata mirror (%s): %s; "
			  "is the dm-raid module there?", l->pool, t.params, strerror(-r));
		goto undo;
	}
	return 0;
undo:
	if (tp_dm_meta_legs_remove(tmeta))
		log_warn("pool %s: could not remove the legs of %s after the failure", l->pool,
			 tmeta);
	return r;
}

int tp_dm_meta_replace_leg(const struct tp_dm_pool_layout *l, unsigned i)
{
	char tmeta[TP_DM_NAME_MAX], leg[2][TP_DM_NAME_MAX] = { "", "" }, uuid[TP_DM_UUID_MAX];
	struct tp_dm_target t, tr;
	struct tp_dm_info info;
	int r, rr;

	if (i > 1 || !l->meta_mirror || !l->meta_leg[i] || !l->meta_leg[1 - i])
		return -EINVAL;
	if ((r = tp_dm_name(tmeta, sizeof(tmeta), l->pool, TP_DM_ROLE_TMETA, NULL)))
		return r;
	for (unsigned k = 0; k < 2; k++)
		if ((r = leg_name(leg[k], tmeta, k)))
			return r;
	if ((r = leg_table(l, i, &t)))
		return r;
	/* the leg device: made anew when the set ran without it */
	if (tp_dm_info(leg[i], &info) == -ENXIO) {
		if ((r = leg_uuid(uuid, l->pool_uuid, i)) ||
		    (r = tp_dm_create(leg[i], uuid, &t, 1, TP_DM_INTERNAL)))
			return r;
	}
	if ((r = raid1_over(l, (const char(*)[TP_DM_NAME_MAX])leg, (int)i, &tr)))
		return r;
	if ((r = tp_dm_load(tmeta, &tr, 1, 0))) {
		log_error("pool %s: the kernel refused the new raid1 of %s: %s", l->pool, tmeta,
			  strerror(-r));
		return r;
	}
	tp_critical_begin();
	if ((r = tp_dm_suspend(tmeta, 0))) {
		tp_critical_end();
		log_error("pool %s: cannot suspend %s: %s", l->pool, tmeta, strerror(-r));
		return r;
	}
	/* the new device under the leg, while the raid1 above it waits */
	if (!(r = tp_dm_load(leg[i], &t, 1, 0)) && !(r = tp_dm_suspend(leg[i], 0)))
		r = tp_dm_resume(leg[i]);
	if (r)
		log_error("pool %s: cannot point %s at %s: %s", l->pool, leg[i], l->meta_leg[i],
			  strerror(-r));
	rr = tp_dm_resume(tmeta);
	tp_critical_end();
	if (rr) {
		log_error("pool %s: cannot resume %s: %s; run 'dmsetup resume %s'", l->pool, tmeta,
			  strerror(-rr), tmeta);
		return rr;
	}
	return r;
}

int tp_dm_parse_raid_status(const char *params, struct tp_dm_raid_status *st)
{
	char type[16], health[16], ratio[64];
	unsigned long long a, b;
	int n;

	memset(st, 0, sizeof(*st));
	n = sscanf(params, "%15s %u %15s %63s %15s", type, &st->nr_devs, health, ratio, st->action);
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
