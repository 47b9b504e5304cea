/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_info.c - what the tools print of a pool, in lib/pool's own types
 * (pool.h), filled from the VG model and, with POOL_INFO_USAGE, from the
 * allocation figures of pool_status.c (the mapping walk for exclusive
 * and shared only with POOL_INFO_SHARING). Also pins lib/pool's names to the
 * VG metadata's values. */
#include "lib/pool/monitor.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/mirror/mirror.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/pool_owner.h"
#include "lib/pool/lease/lease_feature.h"
#include "lib/pool/core/pool_vg.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(POOL_NAME_MAX == VG_NAME_MAX, "pool and VG name lengths differ");
_Static_assert(POOL_UUID_LEN == VG_UUID_LEN, "pool and VG uuid lengths differ");
_Static_assert((int)POOL_DISCARDS_IGNORE == (int)VG_DISCARDS_IGNORE &&
	       (int)POOL_DISCARDS_NOPASSDOWN == (int)VG_DISCARDS_NOPASSDOWN &&
	       (int)POOL_DISCARDS_PASSDOWN == (int)VG_DISCARDS_PASSDOWN,
	       "enum pool_discards differs from enum vg_discards");
_Static_assert((int)POOL_WHEN_FULL_QUEUE == (int)VG_WHEN_FULL_QUEUE &&
	       (int)POOL_WHEN_FULL_ERROR == (int)VG_WHEN_FULL_ERROR,
	       "enum pool_when_full differs from enum vg_when_full");
_Static_assert((int)POOL_ROLE_DATA == (int)VG_ROLE_DATA &&
	       (int)POOL_ROLE_META == (int)VG_ROLE_META,
	       "enum pool_role differs from enum vg_role");

/* The monitor's last action, from its state file (none: nothing said). */
static void fill_monitor_state(struct pool_info *info)
{
	struct pool_monitor_state s;

	if (pool_monitor_state_read(info->uuid, &s))
		return;
	info->monitor_counts = s.counts;
	if (!s.time)
		return;
	info->monitor_time = s.time;
	snprintf(info->monitor_action, sizeof(info->monitor_action), "%s", s.action);
}

/* SRC into DST of LEN bytes, cut short if need be: snprintf's result
 * without its cost, paid once per volume of a large pool. */
static void put(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* What the VG says of volume V. */
static void fill_volume(const struct vg_volume *v, struct pool_volume_info *vi)
{
	put(vi->name, sizeof(vi->name), v->name);
	put(vi->origin, sizeof(vi->origin), v->origin);
	vi->size = v->size;
	vi->dev_id = v->dev_id;
	vi->creation_time = v->creation_time;
	vi->read_only = v->read_only;
	vi->activation_skip = v->activation_skip;
	put(vi->content_uuid, sizeof(vi->content_uuid), v->content_uuid);
	put(vi->luks_uuid, sizeof(vi->luks_uuid), v->luks_uuid);
}

/* POOL_INFO_BY_VOLUME: every volume packed, for pool_info_volume to make
 * its pool_volume_info again after the pool is closed: its numbers and
 * flags, and its strings (name, origin, content and LUKS uuids) one after
 * another in one buffer, each as long as it is. */
struct pool_info_packed {
	struct packed_volume {
		uint64_t size, dev_id, creation_time;
		uint64_t mapped, exclusive, shared, highest_mapped;
		uint32_t text;		/* offset of its name in TEXT */
		uint8_t flags;		/* PACKED_* */
	} *v;				/* VG order */
	char *text;
};

enum {
	PACKED_READ_ONLY = 1,
	PACKED_SKIP = 2,
	PACKED_ACTIVE = 4,
	PACKED_OPEN = 8,
	PACKED_UNLOCKED = 16,
};

/* The strings of volume V as fill_volume cuts them; their lengths into
 * LEN[4]. */
static void packed_lengths(const struct vg_volume *v, size_t len[4])
{
	len[0] = strnlen(v->name, POOL_NAME_MAX);
	len[1] = strnlen(v->origin, POOL_NAME_MAX);
	len[2] = strnlen(v->content_uuid, POOL_UUID_LEN);
	len[3] = strnlen(v->luks_uuid, POOL_UUID_LEN);
}

/* Pack the volumes of VG into INFO->packed: 0 or -ENOMEM. */
static int pack_volumes(const struct vg *vg, struct pool_info *info)
{
	struct pool_info_packed *pk = info->packed;
	size_t total = 0, len[4], at = 0;

	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		packed_lengths(&vg->volumes[i], len);
		total += len[0] + len[1] + len[2] + len[3] + 4;
	}
	if (total > UINT32_MAX)
		return -ENOMEM;
	if (vg->nr_volumes && (!(pk->v = calloc(vg->nr_volumes, sizeof(*pk->v))) ||
			       !(pk->text = malloc(total))))
		return -ENOMEM;
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		const struct vg_volume *v = &vg->volumes[i];
		const char *str[4] = { v->name, v->origin, v->content_uuid, v->luks_uuid };
		struct packed_volume *pv = &pk->v[i];

		packed_lengths(v, len);
		pv->size = v->size;
		pv->dev_id = v->dev_id;
		pv->creation_time = v->creation_time;
		pv->flags = (uint8_t)((v->read_only ? PACKED_READ_ONLY : 0) |
				      (v->activation_skip ? PACKED_SKIP : 0));
		pv->text = (uint32_t)at;
		for (unsigned k = 0; k < 4; k++) {
			memcpy(pk->text + at, str[k], len[k]);
			at += len[k];
			pk->text[at++] = '\0';
		}
	}
	info->nr_volumes = vg->nr_volumes;
	return 0;
}

static void fill_from_vg(struct pool *p, struct pool_info *info)
{
	const struct vg *vg = pool_vg(p);
	const struct vg_label *meta = &pool_pv(p, VG_ROLE_META)->label;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	snprintf(info->name, sizeof(info->name), "%s", vg->name);
	snprintf(info->uuid, sizeof(info->uuid), "%s", vg->uuid);
	info->dev_path[POOL_ROLE_DATA] = pool_device_path(p, VG_ROLE_DATA);
	info->dev_path[POOL_ROLE_META] = pool_device_path(p, VG_ROLE_META);
	info->meta_health = pool_meta_health(p);
	{
		struct pool_meta_leg leg[2];

		struct pool_scrub_state sc;

		info->meta_legs[0] = '\0';
		if (pool_meta_legs(p, leg)) {
			snprintf(info->meta_legs, sizeof(info->meta_legs), "%s(%s),%s(%s)",
				 leg[0].path, leg[0].state, leg[1].path, leg[1].state);
			info->meta_integrity = vg->integrity_size != 0;
			for (unsigned i = 0; i < 2; i++) {
				info->meta_leg_up[i] = !leg[i].err;
				info->meta_leg_bad[i] = leg[i].bad;
				info->meta_leg_mismatches[i] = leg[i].integrity
								       ? (int64_t)leg[i].mismatches : -1;
				info->meta_leg_tags_pct[i] = leg[i].integrity ? leg[i].integrity_pct
									      : 100;
			}
			if (!pool_scrub_state_read(vg->uuid, &sc)) {
				info->meta_scrub_time = sc.time;
				info->meta_scrub_blocks = sc.blocks;
				info->meta_scrub_mismatched = sc.mismatched;
			}
		}
	}
	info->nr_data_devs = pool_data_devices(p, info->data_devs, TP_ARRAY_SIZE(info->data_devs));
	info->zero = vg->zero;
	info->profile = pool_profile_name(vg->profile);
	info->discards = (enum pool_discards)vg->discards;
	info->when_full = (enum pool_when_full)vg->when_full;
	info->chunk = chunk;
	info->data_size = chunk * vg_data_chunks(vg);
	info->transaction_id = vg->transaction_id;
	info->data_offset = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	info->meta_offset = meta->area[vg->metadata_area].offset;
	info->meta_length = vg->dev[VG_ROLE_META].area[vg->metadata_area].size;
	info->spare_offset = meta->area[!vg->metadata_area].offset;
	/* the VG area: the smallest slot of the pool's devices (as the VG
	 * records them; a mirror's metadata devices have 512 KiB less), and
	 * the text read */
	info->vg_area_size = vg_mda_capacity_of(vg->dev[VG_ROLE_META].mda.size);
	for (unsigned i = 0; i < vg_nr_data(vg); i++)
		info->vg_area_size = TP_MIN(info->vg_area_size,
					    vg_mda_capacity_of(vg_data_dev(vg, i)->mda.size));
	if (vg->meta_mirror)
		info->vg_area_size = TP_MIN(info->vg_area_size,
					    vg_mda_capacity_of(vg->meta1.mda.size));
	info->vg_area_used = vg->text_len;
	info->metadata_format = vg->format_version;
	pool_get_monitor_policy(p, &info->monitor);
	info->max_overprovision = vg->max_overprovision;
	fill_monitor_state(info);
	info->activation_skip = vg->activation_skip;
	snprintf(info->system_id, sizeof(info->system_id), "%s", vg->system_id);
	info->foreign = pool_is_foreign(p);
	info->lock_type = vg->lock.type == VG_LOCK_SANLOCK ? "sanlock" : "none";
	info->lease_offset = vg->lock.offset;
	info->io_timeout = vg->lock.io_timeout;
	info->lease_owner = 0;
	if (vg->lock.type != VG_LOCK_NONE) {
		uint64_t id = 0;

		info->lease_owner = pool_lease_owner(p, &id) ? -1 : (int64_t)id;
	}
	info->nr_receives = vg->nr_receives;
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		info->virtual_total += vg->volumes[i].size;
	if (!info->volumes)
		return;	/* POOL_INFO_NO_VOLUMES, POOL_INFO_BY_VOLUME */
	info->nr_volumes = vg->nr_volumes;
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		fill_volume(&vg->volumes[i], &info->volumes[i]);
}

/* Which volumes the kernel has loaded and which of those are open (a
 * device-mapper info each; nothing to ask offline). */
static int fill_loaded(struct pool *p, struct pool_info *info)
{
	const struct vg *vg = pool_vg(p);
	struct pool_info_packed *pk = info->packed;

	for (unsigned i = 0; i < info->nr_volumes; i++) {
		const struct vg_volume *v = &vg->volumes[i];
		struct tp_dm_info dm;
		int r, active, open, unlocked = 0;

		if (pk && !info->live)
			break;	/* offline: nothing is loaded (not asked) */
		r = pool_volume_loaded(p, v->name, &dm);
		if (r < 0) {
			log_error("pool %s: cannot ask device-mapper about volume %s: %s; see "
				  "'dmsetup info'", info->name, v->name, strerror(-r));
			pool_info_free(info);
			return r;
		}
		active = r > 0;
		open = r > 0 && dm.open_count > 0;
		/* an encrypted volume's device under its own name is its
		 * dm-crypt device once unlocked (uuid role crypt<id>; locked,
		 * nothing of it is loaded under that name) */
		if (r > 0 && v->luks_uuid[0]) {
			char pu[TP_DM_UUID_MAX];
			enum tp_dm_role role;
			uint32_t id;

			unlocked = !tp_dm_uuid_parse(dm.uuid, pu, sizeof(pu), &role, &id) &&
				   role == TP_DM_ROLE_CRYPT;
		}
		if (pk) {
			pk->v[i].flags |= (uint8_t)((active ? PACKED_ACTIVE : 0) |
						    (open ? PACKED_OPEN : 0) |
						    (unlocked ? PACKED_UNLOCKED : 0));
		} else {
			info->volumes[i].active = active;
			info->volumes[i].open = open;
			info->volumes[i].unlocked = unlocked;
		}
	}
	return 0;
}

static void fill_orphans(const struct pool *p, struct pool_info *info)
{
	struct pool_orphan o[POOL_ORPHANS_MAX];
	unsigned n = pool_orphans(p, o, TP_ARRAY_SIZE(o));

	_Static_assert(POOL_ORPHANS_MAX <= TP_ARRAY_SIZE(info->orphans), "orphans fit");
	info->nr_orphans = n;
	for (unsigned i = 0; i < n; i++) {
		struct pool_orphan_info *oi = &info->orphans[i];

		snprintf(oi->path, sizeof(oi->path), "%.*s", (int)sizeof(oi->path) - 1, o[i].path);
		snprintf(oi->device_uuid, sizeof(oi->device_uuid), "%s", o[i].label.pv_uuid);
		oi->ahead = o[i].kind == POOL_ORPHAN_AHEAD;
		pool_orphan_what(&o[i], oi->what, sizeof(oi->what));
	}
}

int pool_get_info(struct pool *p, unsigned flags, struct pool_info *info)
{
	struct pool_status st;
	int r;

	memset(info, 0, sizeof(*info));
	if (flags & POOL_INFO_BY_VOLUME) {
		if (!(info->packed = calloc(1, sizeof(*info->packed))) ||
		    pack_volumes(pool_vg(p), info)) {
			pool_info_free(info);
			return -ENOMEM;
		}
	} else if (pool_vg(p)->nr_volumes && !(flags & POOL_INFO_NO_VOLUMES) &&
		   !(info->volumes = calloc(pool_vg(p)->nr_volumes, sizeof(*info->volumes)))) {
		return -ENOMEM;
	}
	fill_from_vg(p, info);
	if (flags & POOL_INFO_ORPHANS)
		fill_orphans(p, info);
	if (!(flags & POOL_INFO_USAGE))
		return 0;
	r = pool_get_status(p, (flags & POOL_INFO_SHARING) != 0, &st);
	if (r) {
		pool_info_free(info);
		return r;
	}
	info->data_size = st.data_size;
	info->data_used = st.data_used;
	info->meta_size = st.meta_size;
	info->meta_used = st.meta_used;
	info->needs_check = st.needs_check;
	info->live = st.live;
	info->read_only = st.read_only;
	info->out_of_data = st.out_of_data;
	info->failed = st.failed;
	info->no_volume_usage = st.no_volume_usage;
	info->sharing = st.sharing;
	for (unsigned i = 0; info->packed && i < st.nr_volumes && i < info->nr_volumes; i++) {
		struct packed_volume *pv = &info->packed->v[i];

		pv->mapped = st.volumes[i].mapped;
		pv->exclusive = st.volumes[i].exclusive;
		pv->shared = st.volumes[i].shared;
		pv->highest_mapped = st.volumes[i].highest_mapped;
	}
	for (unsigned i = 0; info->volumes && i < st.nr_volumes && i < info->nr_volumes; i++) {
		info->volumes[i].mapped = st.volumes[i].mapped;
		info->volumes[i].exclusive = st.volumes[i].exclusive;
		info->volumes[i].shared = st.volumes[i].shared;
		info->volumes[i].highest_mapped = st.volumes[i].highest_mapped;
	}
	pool_status_free(&st);
	return fill_loaded(p, info);
}

void pool_info_volume(const struct pool_info *info, unsigned i, struct pool_volume_info *vi)
{
	const struct packed_volume *pv;
	const char *t;

	memset(vi, 0, sizeof(*vi));
	if (!info->packed || i >= info->nr_volumes)
		return;
	pv = &info->packed->v[i];
	t = info->packed->text + pv->text;
	put(vi->name, sizeof(vi->name), t);
	t += strlen(t) + 1;
	put(vi->origin, sizeof(vi->origin), t);
	t += strlen(t) + 1;
	put(vi->content_uuid, sizeof(vi->content_uuid), t);
	t += strlen(t) + 1;
	put(vi->luks_uuid, sizeof(vi->luks_uuid), t);
	vi->size = pv->size;
	vi->dev_id = pv->dev_id;
	vi->creation_time = pv->creation_time;
	vi->read_only = !!(pv->flags & PACKED_READ_ONLY);
	vi->activation_skip = !!(pv->flags & PACKED_SKIP);
	vi->mapped = pv->mapped;
	vi->exclusive = pv->exclusive;
	vi->shared = pv->shared;
	vi->highest_mapped = pv->highest_mapped;
	vi->active = !!(pv->flags & PACKED_ACTIVE);
	vi->open = !!(pv->flags & PACKED_OPEN);
	vi->unlocked = !!(pv->flags & PACKED_UNLOCKED);
}

long pool_info_volume_index(const struct pool_info *info, const char *name)
{
	for (unsigned i = 0; info->packed && i < info->nr_volumes; i++)
		if (!strcmp(info->packed->text + info->packed->v[i].text, name))
			return (long)i;
	return -1;
}

void pool_info_free(struct pool_info *info)
{
	if (!info)
		return;
	free(info->volumes);
	info->volumes = NULL;
	info->nr_volumes = 0;
	if (info->packed) {
		free(info->packed->v);
		free(info->packed->text);
		free(info->packed);
		info->packed = NULL;
	}
}

/* One leg's state word for the devices report (pool_meta_legs). */
static const char *leg_state(const struct pool_meta_leg *l)
{
	return !l->err ? (l->resyncing ? "resyncing" : "ok") : l->state;
}

int pool_devices_report(const char *name, const char *devices, unsigned flags,
			struct pool_device_row **rows, unsigned *n)
{
	struct pool_orphan o[POOL_ORPHANS_MAX];
	struct pool_check_report rep;
	struct pool_meta_leg leg[2];
	struct pool_device_row *row;
	struct pool *p = pool_alloc();
	const struct vg *vg;
	unsigned k = 0, no;
	int r;

	*rows = NULL;
	*n = 0;
	if (!p)
		return -ENOMEM;
	memset(&rep, 0, sizeof(rep));
	r = pool_attach(p, name, devices,
			POOL_RDONLY | POOL_FOREIGN_OK | (flags & POOL_ALLOW_COMPONENT), &rep, NULL);
	for (size_t i = 0; !r && i < rep.f.nr_problems; i++)
		log_warn("pool %s: %s", name, rep.f.problems[i].msg);
	thin_check_findings_free(&rep.f);
	if (!r && !(vg = pool_vg(p))) {
		log_error("pool %s: no usable VG metadata; 'tpcheck %s' says more", name, name);
		r = -EUCLEAN;
	}
	if (r)
		goto out;
	no = pool_orphans(p, o, TP_ARRAY_SIZE(o));
	row = calloc(vg_nr_data(vg) + 2 + no, sizeof(*row));
	if (!row) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < vg_nr_data(vg); i++, k++) {
		const struct vg_device *d = vg_data_dev(vg, i);
		const char *path = pool_data_dev_path(p, i);

		row[k].role = "data";
		snprintf(row[k].place, sizeof(row[k].place), "%u", i + 1);
		row[k].has_range = 1;
		row[k].dev_size = d->size;
		row[k].data_start = d->area[0].offset;
		row[k].first_chunk = vg_data_first_chunk(vg, i);
		row[k].chunks = vg_data_dev_chunks(vg, i);
		put(row[k].device_uuid, sizeof(row[k].device_uuid), d->pv_uuid);
		row[k].state = path[0] ? "ok" : "missing";
		put(row[k].path, sizeof(row[k].path), path[0] ? path : d->path);
	}
	if (pool_meta_legs(p, leg)) {
		for (unsigned i = 0; i < 2; i++, k++) {
			const struct vg_device *d = i ? &vg->meta1 : &vg->dev[VG_ROLE_META];

			row[k].role = "meta";
			snprintf(row[k].place, sizeof(row[k].place), "leg%u", i);
			row[k].dev_size = d->size;
			put(row[k].device_uuid, sizeof(row[k].device_uuid), d->pv_uuid);
			row[k].state = leg_state(&leg[i]);
			put(row[k].path, sizeof(row[k].path), leg[i].path);
		}
	} else {
		const struct vg_device *d = &vg->dev[VG_ROLE_META];

		row[k].role = "meta";
		snprintf(row[k].place, sizeof(row[k].place), "-");
		row[k].dev_size = d->size;
		put(row[k].device_uuid, sizeof(row[k].device_uuid), d->pv_uuid);
		row[k].state = "ok";
		put(row[k].path, sizeof(row[k].path), pool_device_path(p, VG_ROLE_META));
		k++;
	}
	for (unsigned i = 0; i < no; i++, k++) {
		row[k].role = "-";	/* no role in the pool: its VG does not name it */
		snprintf(row[k].place, sizeof(row[k].place), "-");
		row[k].dev_size = o[i].label.device_size;
		put(row[k].device_uuid, sizeof(row[k].device_uuid), o[i].label.pv_uuid);
		row[k].state = o[i].kind == POOL_ORPHAN_AHEAD ? "ahead" : "orphan";
		put(row[k].path, sizeof(row[k].path), o[i].path);
	}
	for (unsigned i = 0; i < k; i++)
		snprintf(row[i].pool, sizeof(row[i].pool), "%s", vg->name);
	*rows = row;
	*n = k;
out:
	pool_close(p);
	return r;
}
