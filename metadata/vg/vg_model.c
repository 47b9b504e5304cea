/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_model.c - struct vg: allocation, volumes, validation. See vg.h. */
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include "lib/base/log.h"
#include "lib/base/sysid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vg *vg_alloc(void)
{
	struct vg *vg = calloc(1, sizeof(*vg));

	if (vg) {
		vg->format_version = VG_FORMAT_VERSION;
		vg_monitor_default(&vg->monitor);
	}
	return vg;
}

void vg_monitor_default(struct vg_monitor *m)
{
	m->warn = VG_MONITOR_WARN_DEFAULT;
	m->autoextend_threshold = VG_MONITOR_THRESHOLD_OFF;
	m->autoextend_percent = VG_MONITOR_PERCENT_DEFAULT;
	m->autoextend_size = 0;
	m->autoextend_max = 0;
	m->autoextend_device[0] = '\0';
}

int vg_monitor_is_default(const struct vg_monitor *m)
{
	struct vg_monitor d;

	vg_monitor_default(&d);
	return m->warn == d.warn && m->autoextend_threshold == d.autoextend_threshold &&
	       m->autoextend_percent == d.autoextend_percent &&
	       m->autoextend_size == d.autoextend_size && m->autoextend_max == d.autoextend_max &&
	       !m->autoextend_device[0];
}

/* the volumes a clone has room for beyond its source's */
#define CLONE_ROOM 16u

int vg_clone(const struct vg *src, struct vg **out)
{
	struct vg *vg = vg_alloc();

	if (!vg)
		return -ENOMEM;
	*vg = *src;
	vg->volumes = NULL;
	vg->alloc_volumes = 0;
	if (src->nr_volumes) {
		/* room for a few more: a clone is made to be changed, and a
		 * volume added would move the whole array again */
		unsigned room = src->nr_volumes + CLONE_ROOM;

		vg->volumes = malloc(room * sizeof(*vg->volumes));
		if (!vg->volumes) {
			free(vg);
			return -ENOMEM;
		}
		memcpy(vg->volumes, src->volumes, src->nr_volumes * sizeof(*vg->volumes));
		vg->alloc_volumes = room;
	}
	vg->receives = NULL;
	vg->alloc_receives = 0;
	if (src->nr_receives) {
		vg->receives = malloc(src->nr_receives * sizeof(*vg->receives));
		if (!vg->receives) {
			free(vg->volumes);
			free(vg);
			return -ENOMEM;
		}
		memcpy(vg->receives, src->receives, src->nr_receives * sizeof(*vg->receives));
		vg->alloc_receives = src->nr_receives;
	}
	vg->removals = NULL;
	vg->alloc_removals = 0;
	if (src->nr_removals) {
		vg->removals = malloc(src->nr_removals * sizeof(*vg->removals));
		if (!vg->removals) {
			free(vg->receives);
			free(vg->volumes);
			free(vg);
			return -ENOMEM;
		}
		memcpy(vg->removals, src->removals, src->nr_removals * sizeof(*vg->removals));
		vg->alloc_removals = src->nr_removals;
	}
	vg->checked = 0;
	vg->source = NULL;
	vg->trash = NULL;
	vg->alloc_trash = 0;
	if (src->nr_trash) {
		vg->trash = malloc(src->nr_trash * sizeof(*vg->trash));
		if (!vg->trash) {
			free(vg->removals);
			free(vg->receives);
			free(vg->volumes);
			free(vg);
			return -ENOMEM;
		}
		memcpy(vg->trash, src->trash, src->nr_trash * sizeof(*vg->trash));
		vg->alloc_trash = src->nr_trash;
	}
	*out = vg;
	return 0;
}

/* The volumes and the unfinished receives are two lists of one type:
 * found, appended to and dropped from the same way. */
/* A lookup by name walks every entry (issue 40: twice a tvcreate, 20,000
 * entries of 280 bytes): each is first judged by its name's first eight
 * bytes, one load and compare, and only one that agrees there (up to
 * and with the name's NUL) is compared whole. A name is at most
 * VG_NAME_MAX bytes in its array of VG_NAME_MAX + 1, so the eight bytes
 * lie within it; those after its NUL are masked off unless the name
 * sought is that long, where any of them differing is a difference. */
static struct vg_volume *vols_find(struct vg_volume *a, unsigned n, const char *name)
{
	size_t len = strnlen(name, VG_NAME_MAX + 1), k = len + 1 < 8 ? len + 1 : 8;
	unsigned char m[8] = { 0 };
	uint64_t want = 0, mask, got;

	_Static_assert(sizeof(a->name) >= 8, "a name's array holds eight bytes");
	if (len > VG_NAME_MAX)
		return NULL;	/* (no entry has such a name) */
	memcpy(&want, name, k);
	memset(m, 0xff, k);
	memcpy(&mask, m, sizeof(mask));
	for (unsigned i = 0; i < n; i++) {
		memcpy(&got, a[i].name, sizeof(got));
		if (!((got ^ want) & mask) && !memcmp(a[i].name, name, len + 1))
			return &a[i];
	}
	return NULL;
}

static int vols_append(struct vg_volume **a, unsigned *nr, unsigned *alloc, unsigned first,
		       const struct vg_volume *v)
{
	if (*nr == *alloc) {
		unsigned n = *alloc ? 2 * *alloc : first;
		struct vg_volume *p = realloc(*a, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*a = p;
		*alloc = n;
	}
	(*a)[(*nr)++] = *v;
	return 0;
}

static void vols_drop(struct vg_volume *a, unsigned *nr, struct vg_volume *v)
{
	memmove(v, v + 1, (size_t)(a + *nr - (v + 1)) * sizeof(*v));
	(*nr)--;
}

struct vg_volume *vg_find_volume(const struct vg *vg, const char *name)
{
	return vols_find(vg->volumes, vg->nr_volumes, name);
}

struct vg_volume *vg_find_dev_id(const struct vg *vg, uint32_t dev_id)
{
	unsigned i;

	for (i = 0; i < vg->nr_volumes; i++)
		if (vg->volumes[i].dev_id == dev_id)
			return &vg->volumes[i];
	for (i = 0; i < vg->nr_receives; i++)
		if (vg->receives[i].dev_id == dev_id)
			return &vg->receives[i];
	for (i = 0; i < vg->nr_removals; i++)
		if (vg->removals[i].dev_id == dev_id)
			return &vg->removals[i];
	return vg_find_trash_id(vg, dev_id);
}

struct vg_volume *vg_find_trash_id(const struct vg *vg, uint32_t dev_id)
{
	for (unsigned i = 0; i < vg->nr_trash; i++)
		if (vg->trash[i].dev_id == dev_id)
			return &vg->trash[i];
	return NULL;
}

struct vg_volume *vg_find_trash(const struct vg *vg, const char *name)
{
	struct vg_volume *best = NULL;

	for (unsigned i = 0; i < vg->nr_trash; i++)
		if (!strcmp(vg->trash[i].name, name) &&
		    (!best || vg->trash[i].trashed_at >= best->trashed_at))
			best = &vg->trash[i];
	return best;
}

struct vg_volume *vg_find_receive(const struct vg *vg, const char *name)
{
	return vols_find(vg->receives, vg->nr_receives, name);
}

struct vg_volume *vg_find_removal(const struct vg *vg, const char *name)
{
	return vols_find(vg->removals, vg->nr_removals, name);
}

int vg_name_used(const struct vg *vg, const char *name)
{
	return vg_find_volume(vg, name) || vg_find_receive(vg, name) ||
	       vg_find_removal(vg, name);
}

static int problem(char *msg, size_t len, const char *fmt, ...) TP_PRINTF(3, 4);
static int problem(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* Volume V alone (no cross-references). */
static int check_monitor(const struct vg_monitor *m, char *msg, size_t len)
{
	if (m->warn > 100)
		return problem(msg, len, "pool/monitor/warn: %" PRIu32 " is not a percentage "
			       "(0..100)", m->warn);
	if (m->autoextend_threshold < VG_MONITOR_THRESHOLD_MIN ||
	    m->autoextend_threshold > VG_MONITOR_THRESHOLD_OFF)
		return problem(msg, len, "pool/monitor/autoextend_threshold: %" PRIu32 " is out "
			       "of range %u..%u", m->autoextend_threshold,
			       VG_MONITOR_THRESHOLD_MIN, VG_MONITOR_THRESHOLD_OFF);
	if (m->autoextend_percent > VG_MONITOR_PERCENT_MAX)
		return problem(msg, len, "pool/monitor/autoextend_percent: %" PRIu32 " is out "
			       "of range 1..%u", m->autoextend_percent, VG_MONITOR_PERCENT_MAX);
	if (m->autoextend_size % 512 || m->autoextend_size > (uint64_t)INT64_MAX)
		return problem(msg, len, "pool/monitor/autoextend_size: %" PRIu64 " bytes is not "
			       "a multiple of 512", m->autoextend_size);
	if (!m->autoextend_percent == !m->autoextend_size)
		return problem(msg, len, "pool/monitor: exactly one of autoextend_percent and "
			       "autoextend_size must be set");
	if (m->autoextend_max % 512 || m->autoextend_max > (uint64_t)INT64_MAX)
		return problem(msg, len, "pool/monitor/autoextend_max: %" PRIu64 " bytes is not "
			       "a multiple of 512", m->autoextend_max);
	return 0;
}

void vg_free(struct vg *vg)
{
	if (!vg)
		return;
	free(vg->volumes);
	free(vg->receives);
	free(vg->removals);
	free(vg->trash);
	vg_source_free(vg->source);
	free(vg);
}

void vg_source_free(struct vg_source *s)
{
	if (!s)
		return;
	free(s->text);
	free(s->start);
	free(s);
}

static int keep_source;

void vg_keep_source(int on)
{
	keep_source = on;
}

int vg_source_kept(void)
{
	return keep_source;
}

/* What the caller of check_volume already knows of V: its name, its
 * origin's name (or none) pass vg_name_valid (the model check's index
 * learns it on the one pass over each name that hashes it). */
#define KNOWN_NAME 1u
#define KNOWN_ORIGIN 2u

static int check_volume(const struct vg *vg, const struct vg_volume *v, unsigned known,
			char *msg, size_t len)
{
	const char *why;

	if (!(known & KNOWN_NAME) && !vg_name_valid(v->name, &why))
		return problem(msg, len, "pool/volumes/%.64s: bad volume name: %s", v->name, why);
	if (v->dev_id > VG_DEV_ID_MAX || v->dev_id >= vg->next_dev_id)
		return problem(msg, len, "pool/volumes/%s/dev_id: %" PRIu32
			       " is out of range (must be below next_dev_id %" PRIu32 ")",
			       v->name, v->dev_id, vg->next_dev_id);
	if (!v->size || v->size % 512 || v->size > (uint64_t)INT64_MAX)
		return problem(msg, len, "pool/volumes/%s/size: %" PRIu64
			       " is not a positive multiple of 512 bytes", v->name, v->size);
	if (!(known & KNOWN_ORIGIN) && v->origin[0] && !vg_name_valid(v->origin, &why))
		return problem(msg, len, "pool/volumes/%s/origin: bad name: %s", v->name, why);
	if (v->origin[0] && !strcmp(v->origin, v->name))
		return problem(msg, len, "pool/volumes/%s/origin: a volume cannot be its own origin",
			       v->name);
	if (v->read_only != 0 && v->read_only != 1)
		return problem(msg, len, "pool/volumes/%s/read_only: must be 0 or 1", v->name);
	if (v->activation_skip != 0 && v->activation_skip != 1)
		return problem(msg, len, "pool/volumes/%s/activation_skip: must be 0 or 1",
			       v->name);
	if (v->luks_uuid[0] && !vg_uuid_valid(v->luks_uuid))
		return problem(msg, len, "pool/volumes/%s/luks_uuid: \"%.40s\" is not a uuid",
			       v->name, v->luks_uuid);
	if (v->received > v->size)
		return problem(msg, len, "pool/receiving/%s/received: %" PRIu64 " is beyond the "
			       "volume's size", v->name, v->received);
	if (v->raw != 0 && v->raw != 1)
		return problem(msg, len, "pool/receiving/%s/raw: must be 0 or 1", v->name);
	return 0;
}

unsigned vg_nr_data(const struct vg *vg)
{
	return 1 + vg->nr_xdata;
}

struct vg_device *vg_data_dev(const struct vg *vg, unsigned i)
{
	return (struct vg_device *)(i ? &vg->xdata[i - 1] : &vg->dev[VG_ROLE_DATA]);
}

uint64_t vg_data_dev_chunks(const struct vg *vg, unsigned i)
{
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;

	return chunk ? vg_data_dev(vg, i)->area[0].size / chunk : 0;
}

uint64_t vg_data_first_chunk(const struct vg *vg, unsigned i)
{
	uint64_t first = 0;

	for (unsigned k = 0; k < i; k++)
		first += vg_data_dev_chunks(vg, k);
	return first;
}

uint64_t vg_data_chunks(const struct vg *vg)
{
	return vg_data_first_chunk(vg, vg_nr_data(vg));
}

int vg_data_locate(const struct vg *vg, uint64_t chunk, unsigned *dev, uint64_t *off,
		   uint64_t *run)
{
	uint64_t bytes = (uint64_t)vg->chunk_size * 512;

	for (unsigned i = 0; i < vg_nr_data(vg); i++) {
		uint64_t n = vg_data_dev_chunks(vg, i);

		if (chunk < n) {
			*dev = i;
			*off = vg_data_dev(vg, i)->area[0].offset + chunk * bytes;
			*run = n - chunk;
			return 0;
		}
		chunk -= n;
	}
	return -ERANGE;
}

int vg_data_index(const struct vg *vg, const char *pv_uuid)
{
	for (unsigned i = 0; i < vg_nr_data(vg); i++)
		if (!strcmp(vg_data_dev(vg, i)->pv_uuid, pv_uuid))
			return (int)i;
	return -1;
}

int vg_lists_device(const struct vg *vg, const char *pv_uuid)
{
	return vg_data_index(vg, pv_uuid) >= 0 || !strcmp(vg->dev[VG_ROLE_META].pv_uuid, pv_uuid) ||
	       (vg->meta_mirror && !strcmp(vg->meta1.pv_uuid, pv_uuid));
}

static int check_one_device(const struct vg *vg, const struct vg_device *d, enum vg_role role,
			    const char *rn, char *msg, size_t len)
{
	const char *p;
	struct vg_label l;
	char buf[192];

	if (!vg_uuid_valid(d->pv_uuid))
		return problem(msg, len, "pool/devices/%s/uuid: not a uuid", rn);
	if (strlen(d->path) > VG_PATH_MAX || has_control(d->path))
		return problem(msg, len, "pool/devices/%s/path: too long or contains control "
			       "characters", rn);
	memset(&l, 0, sizeof(l));
	l.version = VG_LABEL_VERSION;
	l.role = role;
	memcpy(l.pv_uuid, d->pv_uuid, sizeof(l.pv_uuid));
	memcpy(l.pool_uuid, vg->uuid, sizeof(l.pool_uuid));
	memcpy(l.pool_name, vg->name, sizeof(l.pool_name));
	l.device_size = d->size;
	l.mda = d->mda;
	l.area[0] = d->area[0];
	l.area[1] = d->area[1];
	p = vg_label_problem(&l, buf, sizeof(buf));
	if (p)
		return problem(msg, len, "pool/devices/%s: %s", rn, p);
	return 0;
}

static int check_device(const struct vg *vg, enum vg_role role, char *msg, size_t len)
{
	return check_one_device(vg, &vg->dev[role], role, vg_role_name(role), msg, len);
}

/* The added data devices: each a data device of whole chunks, every
 * device uuid once in the pool. */
static int check_xdata(const struct vg *vg, char *msg, size_t len)
{
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	char rn[16];

	if (vg->nr_xdata > VG_DATA_DEVICES_MAX - 1)
		return problem(msg, len, "pool/devices: more than %u data devices",
			       VG_DATA_DEVICES_MAX);
	for (unsigned i = 1; i < vg_nr_data(vg); i++) {
		const struct vg_device *d = vg_data_dev(vg, i);

		snprintf(rn, sizeof(rn), "data%u", i);
		if (check_one_device(vg, d, VG_ROLE_DATA, rn, msg, len))
			return -1;
		if (d->area[0].size % chunk)
			return problem(msg, len, "pool/devices/%s/area0_size: not a whole number "
				       "of chunks", rn);
		if (vg_data_dev(vg, i - 1)->area[0].size % chunk)
			return problem(msg, len, "pool/devices/%s/area0_size: not a whole number "
				       "of chunks, and a data device follows it",
				       i == 1 ? "data" : rn);
	}
	for (unsigned i = 0; i < vg_nr_data(vg) + 1; i++)
		for (unsigned j = i + 1; j < vg_nr_data(vg) + 1; j++) {
			const struct vg_device *a = i ? vg_data_dev(vg, i - 1) : &vg->dev[VG_ROLE_META];
			const struct vg_device *b = vg_data_dev(vg, j - 1);

			if (!strcmp(a->pv_uuid, b->pv_uuid))
				return problem(msg, len, "pool/devices: two devices have the uuid %s",
					       a->pv_uuid);
		}
	return 0;
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen);

/* The integrity metadata of a mirrored pool's legs: both regions inside
 * both devices, clear of the VG area, the raid metadata, the lease area
 * and the thin-metadata areas, each large enough for its area. */
static int check_integrity(const struct vg *vg, char *msg, size_t len)
{
	const struct vg_device *m = &vg->dev[VG_ROLE_META], *d = &vg->meta1;
	uint64_t off = vg->integrity_offset, size = vg->integrity_size;

	if (!off && !size)
		return 0;
	if (!off || !size || off % 4096 || size % VG_IMETA_ALIGN || size > UINT64_MAX / 4 ||
	    off > UINT64_MAX - 2 * size || off + 2 * size > TP_MIN(m->size, d->size) ||
	    overlaps(off, 2 * size, 0, m->mda.offset + m->mda.size) ||
	    overlaps(off, 2 * size, vg_raid_meta_offset(vg), VG_RAID_META_BYTES) ||
	    (vg->lock.type != VG_LOCK_NONE &&
	     overlaps(off, 2 * size, vg->lock.offset, VG_LOCK_AREA_BYTES)))
		return problem(msg, len, "pool/devices/meta1: integrity metadata of %" PRIu64
			       " bytes a region at %" PRIu64 " is not inside both metadata "
			       "devices, clear of their VG, raid and lease areas", size, off);
	for (unsigned a = 0; a < 2; a++) {
		if (overlaps(off, 2 * size, m->area[a].offset, m->area[a].size))
			return problem(msg, len, "pool/devices/meta1: the integrity metadata "
				       "overlaps thin-metadata area %u", a);
		if (vg_imeta_need(m->area[a].size) > size)
			return problem(msg, len, "pool/devices/meta1: integrity metadata of %" PRIu64
				       " bytes cannot hold the tags of thin-metadata area %u (%"
				       PRIu64 " bytes)", size, a, m->area[a].size);
	}
	return 0;
}

uint64_t vg_imeta_need(uint64_t area)
{
	uint64_t tags = (area / 4096) * 4;

	tags = (tags + VG_IMETA_ALIGN - 1) / VG_IMETA_ALIGN * VG_IMETA_ALIGN;
	return (VG_IMETA_HEADER_BYTES + tags + VG_IMETA_ALIGN - 1) / VG_IMETA_ALIGN *
	       VG_IMETA_ALIGN;
}

uint64_t vg_imeta_cover(uint64_t size)
{
	/* the tags follow the header, in whole buffers of the kernel's */
	return size > VG_IMETA_HEADER_BYTES
		       ? (size - VG_IMETA_HEADER_BYTES) / VG_IMETA_ALIGN * VG_IMETA_ALIGN / 4 * 4096
		       : 0;
}

uint64_t vg_imeta_offset(const struct vg *vg, unsigned a)
{
	return vg->integrity_offset + (a ? vg->integrity_size : 0);
}

/* meta1: a metadata device laid out as meta, its uuid its own */
static int check_meta1(const struct vg *vg, char *msg, size_t len)
{
	const struct vg_device *m = &vg->dev[VG_ROLE_META], *d = &vg->meta1;

	if (vg->meta_mirror != 0 && vg->meta_mirror != 1)
		return problem(msg, len, "pool/devices/meta1: bad mirror flag");
	if (!vg->meta_mirror)
		return 0;
	if (check_one_device(vg, d, VG_ROLE_META, "meta1", msg, len))
		return -1;
	if (d->mda.offset != m->mda.offset || d->mda.size != m->mda.size ||
	    d->area[0].offset != m->area[0].offset || d->area[0].size != m->area[0].size ||
	    d->area[1].offset != m->area[1].offset || d->area[1].size != m->area[1].size)
		return problem(msg, len, "pool/devices/meta1: its areas do not lie where meta's do");
	if (vg_data_index(vg, d->pv_uuid) >= 0 || !strcmp(d->pv_uuid, m->pv_uuid))
		return problem(msg, len, "pool/devices: two devices have the uuid %s", d->pv_uuid);
	/* the raid metadata after the VG area (or where recorded), clear of
	 * the other areas, on both devices */
	if (vg->raid_meta_offset &&
	    (vg->raid_meta_offset % 4096 ||
	     overlaps(vg->raid_meta_offset, VG_RAID_META_BYTES, 0, m->mda.offset + m->mda.size) ||
	     vg->raid_meta_offset + VG_RAID_META_BYTES > TP_MIN(m->size, d->size)))
		return problem(msg, len, "pool/devices/meta1/raid_meta_offset: %" PRIu64 " is not "
			       "a 4 KiB multiple behind the VG area with 512 KiB inside both "
			       "metadata devices", vg->raid_meta_offset);
	for (unsigned a = 0; a < 2; a++)
		if (overlaps(vg_raid_meta_offset(vg), VG_RAID_META_BYTES, m->area[a].offset,
			     m->area[a].size))
			return problem(msg, len, "pool/devices/meta1: no room for the raid metadata "
				       "between the VG area and thin-metadata area %u", a);
	if (vg->lock.type != VG_LOCK_NONE &&
	    overlaps(vg_raid_meta_offset(vg), VG_RAID_META_BYTES, vg->lock.offset,
		     VG_LOCK_AREA_BYTES))
		return problem(msg, len, "pool/devices/meta1: the raid metadata overlaps the lease "
			       "area");
	return check_integrity(vg, msg, len);
}

uint64_t vg_raid_meta_offset(const struct vg *vg)
{
	return vg->raid_meta_offset ? vg->raid_meta_offset
				    : vg->dev[VG_ROLE_META].mda.offset + vg->dev[VG_ROLE_META].mda.size;
}

void vg_lock_name(const char *uuid, char out[VG_LOCK_NAME_MAX + 1])
{
	snprintf(out, VG_LOCK_NAME_MAX + 1, "tp-%s", uuid);
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* pool/lock: the lease area on the meta device, clear of its other areas */
static int check_lock(const struct vg *vg, char *msg, size_t len)
{
	const struct vg_lock *l = &vg->lock;
	const struct vg_device *m = &vg->dev[VG_ROLE_META];
	char name[VG_LOCK_NAME_MAX + 1];

	if (l->type == VG_LOCK_NONE)
		return 0;
	if (l->type != VG_LOCK_SANLOCK)
		return problem(msg, len, "pool/lock/type: bad value");
	if (l->offset % VG_LOCK_ALIGN || l->offset < VG_LOCK_ALIGN ||
	    l->offset > m->size || m->size - l->offset < VG_LOCK_AREA_BYTES)
		return problem(msg, len, "pool/lock/offset: %" PRIu64 " is not a multiple of 1 MiB "
			       "with a 2 MiB lease area inside the meta device", l->offset);
	if (overlaps(l->offset, VG_LOCK_AREA_BYTES, m->mda.offset, m->mda.size) ||
	    overlaps(l->offset, VG_LOCK_AREA_BYTES, m->area[0].offset, m->area[0].size) ||
	    overlaps(l->offset, VG_LOCK_AREA_BYTES, m->area[1].offset, m->area[1].size))
		return problem(msg, len, "pool/lock/offset: the lease area at %" PRIu64 " overlaps "
			       "the meta device's VG or thin-metadata areas", l->offset);
	if (!l->io_timeout || l->io_timeout > VG_LOCK_IO_TIMEOUT_MAX)
		return problem(msg, len, "pool/lock/io_timeout: %" PRIu32 " is not 1..%u seconds",
			       l->io_timeout, VG_LOCK_IO_TIMEOUT_MAX);
	vg_lock_name(vg->uuid, name);
	if (strcmp(l->name, name))
		return problem(msg, len, "pool/lock/name: '%.47s' is not the pool's ('%s')",
			       l->name, name);
	return 0;
}

/* ---- an index for the model check ----
 *
 * The check runs on every read and every commit of the VG, so it must not
 * grow faster than the volume count, and each volume must cost little
 * (issue 40): every entry of the four lists (volumes, receives, removals,
 * trash: the order vg_find_dev_id walks them, each in its order) has a
 * place; the volumes' names and every entry's thin id go into two hash
 * tables once, in that order, and each table keeps the first entry of a
 * key. So while the tables are built, each entry learns the first entry
 * before it with its thin id, and each volume the earliest volume with its
 * name: the problem reported is the one the walk in order reported
 * before. A slot holds a key (a thin id, or 32 bits of a name's hash) and
 * the entry's place, so a probe compares names only when their hashes
 * agree; each origin is looked up once, and the walk of origins follows
 * the places found. */
#define NO_ORIGIN UINT32_MAX	/* ix.origin: no volume has the origin's name */

struct ix_slot {
	uint32_t key;	/* a thin id, or the high half of a name's hash */
	uint32_t at;	/* the entry's place + 1; 0: an empty slot */
};

struct model_ix {
	const struct vg *vg;
	size_t mask;		/* table slots - 1: a power of two, over 1.5 times the entries */
	struct ix_slot *names;	/* the volumes' names: the earliest volume of each */
	struct ix_slot *ids;	/* every entry's thin id: the first entry of each */
	uint32_t *first;	/* by place: place + 1 of the first entry with its thin id, 0 if itself */
	uint32_t *twin;		/* by volume: the earliest volume + 1 with its name, 0 if itself */
	uint32_t *origin;	/* by volume: its origin's volume + 1, 0 without, or NO_ORIGIN */
	unsigned char *walked;	/* by volume: 0 new, 1 on the walk, 2 sound */
	unsigned char *known;	/* by volume: KNOWN_NAME, KNOWN_ORIGIN (check_volume) */
};

static void ix_free(struct model_ix *ix)
{
	free(ix->names);
	free(ix->first);
}

/* The entry at PLACE of the four lists in order. */
static const struct vg_volume *ix_entry(const struct model_ix *ix, uint32_t place)
{
	const struct vg *vg = ix->vg;

	if (place < vg->nr_volumes)
		return &vg->volumes[place];
	place -= vg->nr_volumes;
	if (place < vg->nr_receives)
		return &vg->receives[place];
	place -= vg->nr_receives;
	if (place < vg->nr_removals)
		return &vg->removals[place];
	return &vg->trash[place - vg->nr_removals];
}

/* NAME's hash into *HASH; 1 when NAME passes vg_name_valid, 0 when it
 * may not (vg_name_valid then says why): one pass over its bytes. */
static int name_scan(const char *name, uint64_t *hash)
{
	const unsigned char *p = (const unsigned char *)name;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t n;

	for (; vg_name_byte[*p]; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	n = (size_t)(p - (const unsigned char *)name);
	if (*p) {
		for (; *p; p++)
			h = (h ^ *p) * 0x100000001b3ull;
		*hash = h ^ (h >> 29);
		return 0;
	}
	*hash = h ^ (h >> 29);
	return n && n <= VG_NAME_MAX && name[0] != '-' &&
	       !(name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])));
}

static uint64_t hash_name(const char *s)
{
	uint64_t h;

	name_scan(s, &h);
	return h;
}

static size_t hash_id(uint32_t id)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 21);
}

/* The slot of NAME (hash H) in the name table: its volume's, or the empty
 * one where it would go. */
static size_t name_slot(const struct model_ix *ix, const char *name, uint64_t h)
{
	uint32_t key = (uint32_t)(h >> 32);
	size_t i = (size_t)h & ix->mask;

	for (; ix->names[i].at; i = (i + 1) & ix->mask)
		if (ix->names[i].key == key &&
		    !strcmp(ix->vg->volumes[ix->names[i].at - 1].name, name))
			break;
	return i;
}

/* The volume named NAME (the earliest of that name), or NULL. */
static const struct vg_volume *ix_volume(const struct model_ix *ix, const char *name)
{
	uint32_t at = ix->names[name_slot(ix, name, hash_name(name))].at;

	return at ? &ix->vg->volumes[at - 1] : NULL;
}

/* The first entry before the one at PLACE with its thin id, or NULL. */
static const struct vg_volume *ix_earlier_id(const struct model_ix *ix, uint32_t place)
{
	return ix->first[place] ? ix_entry(ix, ix->first[place] - 1) : NULL;
}

/* 0, or -ENOMEM. */
static int ix_build(const struct vg *vg, struct model_ix *ix)
{
	uint32_t nv = vg->nr_volumes,
		 all = nv + vg->nr_receives + vg->nr_removals + vg->nr_trash;
	size_t slots = 16;

	memset(ix, 0, sizeof(*ix));
	ix->vg = vg;
	while (slots < (size_t)all + all / 2 + 2)
		slots *= 2;
	ix->mask = slots - 1;
	/* one allocation for both tables, one for the arrays */
	ix->names = calloc(2 * slots, sizeof(*ix->names));
	ix->first = malloc((size_t)all * sizeof(uint32_t) + 2 * (size_t)nv * sizeof(uint32_t) +
			   2 * ((size_t)nv + 1));
	if (!ix->names || !ix->first) {
		ix_free(ix);
		return -ENOMEM;
	}
	ix->ids = ix->names + slots;
	ix->twin = ix->first + all;
	ix->origin = ix->twin + nv;
	ix->walked = (unsigned char *)(ix->origin + nv);
	ix->known = ix->walked + nv + 1;
	memset(ix->walked, 0, nv + 1);
	for (uint32_t p = 0; p < all; p++) {
		const struct vg_volume *v = p < nv ? &vg->volumes[p] : ix_entry(ix, p);
		size_t k = hash_id(v->dev_id) & ix->mask;

		while (ix->ids[k].at && ix->ids[k].key != v->dev_id)
			k = (k + 1) & ix->mask;
		ix->first[p] = ix->ids[k].at;
		if (!ix->ids[k].at)
			ix->ids[k] = (struct ix_slot){ .key = v->dev_id, .at = p + 1 };
		if (p < nv) {
			uint64_t h;

			ix->known[p] = name_scan(v->name, &h) ? KNOWN_NAME : 0;
			k = name_slot(ix, v->name, h);
			ix->twin[p] = ix->names[k].at;
			if (!ix->names[k].at)
				ix->names[k] = (struct ix_slot){ .key = (uint32_t)(h >> 32),
								 .at = p + 1 };
		}
	}
	/* each origin looked up once, the table whole */
	for (uint32_t p = 0; p < nv; p++) {
		const char *o = vg->volumes[p].origin;
		uint32_t at = 0;
		uint64_t h;

		if (o[0]) {
			if (name_scan(o, &h))
				ix->known[p] |= KNOWN_ORIGIN;
			at = ix->names[name_slot(ix, o, h)].at;
			if (!at)
				at = NO_ORIGIN;
		} else {
			ix->known[p] |= KNOWN_ORIGIN;
		}
		ix->origin[p] = at;
	}
	return 0;
}

/* Origins lead to volumes and form no cycle: each volume's chain is walked
 * once (a volume met sound on an earlier walk ends the walk). */
static int check_origins(const struct vg *vg, struct model_ix *ix, char *msg, size_t len)
{
	for (uint32_t i = 0; i < vg->nr_volumes; i++) {
		uint32_t j = i;
		unsigned char state;

		while ((state = ix->walked[j]) == 0) {
			ix->walked[j] = 1;
			if (!ix->origin[j])
				break;
			if (ix->origin[j] == NO_ORIGIN)
				return problem(msg, len, "pool/volumes/%s/origin: no volume named '%s'",
					       vg->volumes[j].name, vg->volumes[j].origin);
			j = ix->origin[j] - 1;
		}
		if (state == 1)
			return problem(msg, len, "pool/volumes/%s/origin: origins form a cycle",
				       vg->volumes[i].name);
		/* the walk is sound: every volume on it */
		for (j = i; ix->walked[j] == 1; j = ix->origin[j] - 1) {
			ix->walked[j] = 2;
			if (!ix->origin[j])
				break;
		}
	}
	return 0;
}

static int check_lists(const struct vg *vg, struct model_ix *ix, char *msg, size_t len)
{
	uint32_t place = 0;
	unsigned i, j;

	for (i = 0; i < vg->nr_volumes; i++, place++) {
		const struct vg_volume *v = &vg->volumes[i], *same_name, *same_id;
		if (check_volume(vg, v, ix->known[i], msg, len))
			return -1;
		if (v->raw || v->received)
			return problem(msg, len, "pool/volumes/%s: a volume has no receive's state",
				       v->name);
		/* the earliest other volume that shares its name or thin id
		 * (a name before an id where one volume shares both) */
		same_name = ix->twin[i] ? &vg->volumes[ix->twin[i] - 1] : NULL;
		same_id = ix_earlier_id(ix, place);
		if (same_name && (!same_id || same_name <= same_id))
			return problem(msg, len, "pool/volumes/%s: duplicate volume name", v->name);
		if (same_id)
			return problem(msg, len, "pool/volumes/%s/dev_id: %" PRIu32
				       " is also used by volume %s", v->name, v->dev_id, same_id->name);
	}
	for (i = 0; i < vg->nr_receives; i++, place++) {
		const struct vg_volume *v = &vg->receives[i], *o;
		if (check_volume(vg, v, 0, msg, len))
			return -1;
		if (v->read_only != 1 || !vg_uuid_valid(v->content_uuid))
			return problem(msg, len, "pool/receiving/%s: must be read-only with a "
				       "content uuid", v->name);
		if (ix_volume(ix, v->name))
			return problem(msg, len, "pool/receiving/%s: also a volume's name", v->name);
		if ((o = ix_earlier_id(ix, place)))
			return problem(msg, len, "pool/receiving/%s/dev_id: %" PRIu32 " is also "
				       "used by %s", v->name, v->dev_id, o->name);
		for (j = 0; j < i; j++)	/* (receives are few) */
			if (!strcmp(vg->receives[j].name, v->name))
				return problem(msg, len, "pool/receiving/%s: duplicate name",
					       v->name);
		if (v->origin[0] && !ix_volume(ix, v->origin))
			return problem(msg, len, "pool/receiving/%s/origin: no volume named '%s'",
				       v->name, v->origin);
		if (v->raw && v->origin[0])
			return problem(msg, len, "pool/receiving/%s: a raw import has no origin",
				       v->name);
	}
	for (i = 0; i < vg->nr_removals; i++, place++) {
		const struct vg_volume *v = &vg->removals[i], *o;
		if (check_volume(vg, v, 0, msg, len))
			return -1;
		if (v->origin[0] || v->read_only || v->raw || v->received || v->content_uuid[0])
			return problem(msg, len, "pool/removing/%s: a removal keeps only its "
				       "dev_id and size", v->name);
		if (ix_volume(ix, v->name) || vg_find_receive(vg, v->name))
			return problem(msg, len, "pool/removing/%s: also a volume's or a "
				       "receive's name", v->name);
		if ((o = ix_earlier_id(ix, place)))
			return problem(msg, len, "pool/removing/%s/dev_id: %" PRIu32 " is also "
				       "used by %s", v->name, v->dev_id, o->name);
		for (j = 0; j < i; j++)	/* (removals under way are few) */
			if (!strcmp(vg->removals[j].name, v->name))
				return problem(msg, len, "pool/removing/%s: duplicate name",
					       v->name);
	}
	if (vg->trash_retention > VG_TRASH_RETENTION_MAX)
		return problem(msg, len, "pool/trash_retention: %" PRIu64 " seconds is more than "
			       "ten years", vg->trash_retention);
	for (i = 0; i < vg->nr_trash; i++, place++) {
		const struct vg_volume *v = &vg->trash[i], *o;
		if (check_volume(vg, v, 0, msg, len))
			return -1;
		if (v->origin[0] || v->raw || v->received || v->wiped)
			return problem(msg, len, "pool/trash/t%" PRIu32 ": a trash entry keeps no "
				       "origin nor a receive's or a removal's state", v->dev_id);
		if (v->purging != 0 && v->purging != 1)
			return problem(msg, len, "pool/trash/t%" PRIu32 "/purging: must be 0 or 1",
				       v->dev_id);
		if ((o = ix_earlier_id(ix, place)))
			return problem(msg, len, "pool/trash/t%" PRIu32 "/dev_id: %" PRIu32 " is "
				       "also used by %s", v->dev_id, v->dev_id, o->name);
	}
	return check_origins(vg, ix, msg, len);
}

/* The pool's own keys, its devices and the lists' lengths: every rule of
 * vg_check_model that is not about one entry of the four lists. */
static int check_pool(const struct vg *vg, char *msg, size_t len)
{
	const char *why;
	char why_id[128];

	if (vg->format_version < VG_FORMAT_VERSION_MIN || vg->format_version > VG_FORMAT_VERSION)
		return problem(msg, len, "pool/format_version: %" PRIu32 " is not supported "
			       "(this tptools reads %u to %u)", vg->format_version,
			       VG_FORMAT_VERSION_MIN, VG_FORMAT_VERSION);
	if (!vg_name_valid(vg->name, &why))
		return problem(msg, len, "pool/name: bad pool name '%.64s': %s", vg->name, why);
	if (!vg_uuid_valid(vg->uuid))
		return problem(msg, len, "pool/uuid: not a uuid");
	if (!vg->seqno || vg->seqno > (uint64_t)INT64_MAX)
		return problem(msg, len, "pool/seqno: %" PRIu64 " is out of range", vg->seqno);
	if (strlen(vg->creation_host) > VG_HOST_MAX || has_control(vg->creation_host))
		return problem(msg, len, "pool/creation_host: too long or contains control "
			       "characters");
	if (vg->system_id[0] && tp_system_id_check(vg->system_id, why_id, sizeof(why_id)))
		return problem(msg, len, "pool/system_id: '%.128s' %s", vg->system_id, why_id);
	if (vg->chunk_size < VG_CHUNK_MIN_SECTORS || vg->chunk_size > VG_CHUNK_MAX_SECTORS ||
	    vg->chunk_size % VG_CHUNK_MIN_SECTORS)
		return problem(msg, len, "pool/chunk_size: %" PRIu32 " sectors is not a multiple "
			       "of 128 (64 KiB) between 128 and 2097152 (1 GiB)", vg->chunk_size);
	if (vg->zero != 0 && vg->zero != 1)
		return problem(msg, len, "pool/zero: must be 0 or 1");
	if (vg->discards > VG_DISCARDS_PASSDOWN)
		return problem(msg, len, "pool/discards: bad value");
	if (vg->when_full > VG_WHEN_FULL_ERROR)
		return problem(msg, len, "pool/when_full: bad value");
	if (vg->transaction_id > (uint64_t)INT64_MAX)
		return problem(msg, len, "pool/transaction_id: %" PRIu64 " is out of range",
			       vg->transaction_id);
	if (vg->next_dev_id > VG_DEV_ID_MAX + 1)
		return problem(msg, len, "pool/next_dev_id: %" PRIu32 " is beyond the 24-bit "
			       "device id space", vg->next_dev_id);
	if (vg->metadata_area > 1)
		return problem(msg, len, "pool/metadata_area: must be 0 or 1");
	if (vg->activation_skip != 0 && vg->activation_skip != 1)
		return problem(msg, len, "pool/activation_skip: must be 0 or 1");
	if (vg->profile > VG_PROFILE_CUSTOM)
		return problem(msg, len, "pool/profile: bad value");
	if (check_monitor(&vg->monitor, msg, len))
		return -1;
	if (check_device(vg, VG_ROLE_DATA, msg, len) || check_device(vg, VG_ROLE_META, msg, len))
		return -1;
	if (!strcmp(vg->dev[VG_ROLE_DATA].pv_uuid, vg->dev[VG_ROLE_META].pv_uuid))
		return problem(msg, len, "pool/devices: data and meta have the same uuid");
	if (check_xdata(vg, msg, len) || check_lock(vg, msg, len) || check_meta1(vg, msg, len))
		return -1;
	if (vg->nr_volumes > VG_MAX_VOLUMES)
		return problem(msg, len, "pool/volumes: more than %u volumes", VG_MAX_VOLUMES);
	if (vg->nr_volumes + vg->nr_receives > VG_MAX_VOLUMES)
		return problem(msg, len, "pool/receiving: more than %u volumes and receives",
			       VG_MAX_VOLUMES);
	if (vg->nr_volumes + vg->nr_receives + vg->nr_removals > VG_MAX_VOLUMES)
		return problem(msg, len, "pool/removing: more than %u volumes, receives and "
			       "removals", VG_MAX_VOLUMES);
	if (vg->nr_volumes + vg->nr_receives + vg->nr_removals + vg->nr_trash > VG_MAX_VOLUMES)
		return problem(msg, len, "pool/trash: more than %u volumes, receives, removals "
			       "and trash entries", VG_MAX_VOLUMES);
	return 0;
}

int vg_check_model(const struct vg *vg, char *msg, size_t len)
{
	struct model_ix ix;
	int r;

	if (check_pool(vg, msg, len))
		return -1;
	if (ix_build(vg, &ix))
		return problem(msg, len, "out of memory checking %u volumes", vg->nr_volumes);
	r = check_lists(vg, &ix, msg, len);
	ix_free(&ix);
	return r;
}

int vg_validate(const struct vg *vg)
{
	return vg_validate_change(NULL, vg);
}

int vg_validate_change(const struct vg *base, const struct vg *next)
{
	char msg[512];

	if (!vg_check_change(base, next, msg, sizeof(msg)))
		return 0;
	log_error("VG metadata of pool '%.64s': %s", next->name, msg);
	return -EINVAL;
}

/* ---- a change's check ----
 * A commit checks the VG it writes. Where that VG (NEXT) was changed from
 * one that passed the whole check as it is (BASE, read or committed
 * before: vg.checked), every rule held of BASE's entries, and a rule can
 * only break at an entry NEXT does not have as BASE had it (one added or
 * altered: its own keys, its name and thin id against every other
 * entry's, its origin chain) or at a volume name BASE had and NEXT lost
 * (an origin naming it), besides the pool's own keys. The lists keep
 * their order through a change (entries are appended, dropped or altered
 * in place: vg_pair_step), so one walk of each pair of lists finds
 * those. More than CHANGE_MAX of them,
 * an origin chain longer than CHAIN_MAX or a lower next_dev_id take the
 * whole check, and so does any problem found: the whole check words it
 * (the message a refusal gives is the whole check's, always). Each entry
 * looked at costs a walk of the lists (a lookup by name or thin id), not
 * a table of all of them. */
#define CHANGE_MAX 16u
#define CHAIN_MAX 16u
#define SAME_RUN 64u

enum { L_VOLUMES, L_RECEIVES, L_REMOVALS, L_TRASH };

struct change {
	const struct vg_volume *added[CHANGE_MAX];	/* NEXT's entries added or altered */
	unsigned char list[CHANGE_MAX];			/* the list (L_*) of each */
	unsigned nr_added;
	const char *lost[CHANGE_MAX];	/* BASE's volumes' names NEXT lacks as they were */
	unsigned nr_lost;
	int over;			/* more than CHANGE_MAX of either */
};

/* How many entries from A and B on are the same, compared in runs of up
 * to SAME_RUN at once (one memcmp over many entries: a change leaves
 * most of 20,000 entries as they were, and a call per entry cost more
 * than the compare). */
static unsigned same_entries(const struct vg_volume *a, unsigned na, const struct vg_volume *b,
			     unsigned nb)
{
	unsigned n = 0, k;

	while ((k = TP_MIN(TP_MIN(na - n, nb - n), SAME_RUN)) > 1 &&
	       !memcmp(a + n, b + n, k * sizeof(*a)))
		n += k;
	return n;
}

int vg_pair_step(const struct vg_volume *a, unsigned na, const struct vg_volume *b, unsigned nb,
		 unsigned *i, unsigned *j, struct vg_pair_step *s)
{
	unsigned k;

	if (*i >= na && *j >= nb)
		return 0;
	*s = (struct vg_pair_step){ .i = *i, .j = *j };
	k = *i < na && *j < nb ? same_entries(a + *i, na - *i, b + *j, nb - *j) : 0;
	if (!k && *i < na && *j < nb && !memcmp(&a[*i], &b[*j], sizeof(*a)))
		k = 1;
	if (k) {
		s->same = k;
		*i += k, *j += k;
	} else if (*i + 1 < na && *j < nb && !memcmp(&a[*i + 1], &b[*j], sizeof(*a))) {
		s->gone = &a[(*i)++];	/* dropped */
	} else {
		if (*i < na)
			s->gone = &a[(*i)++];
		if (*j < nb)
			s->came = &b[(*j)++];
	}
	return 1;
}

static void change_add(struct change *c, unsigned list, const struct vg_volume *v)
{
	if (c->nr_added == CHANGE_MAX) {
		c->over = 1;
		return;
	}
	c->list[c->nr_added] = (unsigned char)list;
	c->added[c->nr_added++] = v;
}

static void change_lose(struct change *c, unsigned list, const struct vg_volume *v)
{
	if (list != L_VOLUMES)
		return;	/* (only a volume's name is an origin) */
	if (c->nr_lost == CHANGE_MAX)
		c->over = 1;
	else
		c->lost[c->nr_lost++] = v->name;
}

static void change_list(struct change *c, unsigned list, const struct vg_volume *a, unsigned na,
			const struct vg_volume *b, unsigned nb)
{
	struct vg_pair_step s;
	unsigned i = 0, j = 0;

	while (!c->over && vg_pair_step(a, na, b, nb, &i, &j, &s)) {
		if (s.gone)
			change_lose(c, list, s.gone);
		if (s.came)
			change_add(c, list, s.came);
	}
}

/* An entry of A[0..N) other than SELF named NAME. */
static int named_other(const struct vg_volume *a, unsigned n, const char *name,
		       const struct vg_volume *self)
{
	struct vg_volume *f = vols_find((struct vg_volume *)a, n, name);

	if (f == self)
		f = vols_find((struct vg_volume *)self + 1, (unsigned)(a + n - (self + 1)), name);
	return f != NULL;
}

/* An entry of any list other than SELF with SELF's thin id. */
static int id_other(const struct vg *vg, const struct vg_volume *self)
{
	const struct vg_volume *l[4] = { vg->volumes, vg->receives, vg->removals, vg->trash };
	unsigned n[4] = { vg->nr_volumes, vg->nr_receives, vg->nr_removals, vg->nr_trash };

	for (unsigned k = 0; k < 4; k++)
		for (unsigned i = 0; i < n[k]; i++)
			if (l[k][i].dev_id == self->dev_id && &l[k][i] != self)
				return 1;
	return 0;
}

/* V's origins lead to a volume without one: 1; a name no volume has or a
 * cycle: 0; a chain longer than CHAIN_MAX: -1. */
static int chain_sound(const struct vg *vg, const struct vg_volume *v)
{
	const struct vg_volume *at = v;

	for (unsigned step = 0; step < CHAIN_MAX; step++) {
		if (!at->origin[0])
			return 1;
		at = vg_find_volume(vg, at->origin);
		if (!at || at == v)
			return 0;
	}
	return -1;
}

/* Entry V of list LIST (added or altered) keeps every rule of
 * vg_check_model: 1, or 0 (a problem, or a chain too long to follow). */
static int entry_sound(const struct vg *vg, unsigned list, const struct vg_volume *v)
{
	char scratch[256];

	if (check_volume(vg, v, 0, scratch, sizeof(scratch)) || id_other(vg, v))
		return 0;
	switch (list) {
	case L_VOLUMES:
		return !v->raw && !v->received &&
		       !named_other(vg->volumes, vg->nr_volumes, v->name, v) &&
		       !vg_find_receive(vg, v->name) && !vg_find_removal(vg, v->name) &&
		       chain_sound(vg, v) == 1;
	case L_RECEIVES:
		return v->read_only == 1 && vg_uuid_valid(v->content_uuid) &&
		       !vg_find_volume(vg, v->name) &&
		       !named_other(vg->receives, vg->nr_receives, v->name, v) &&
		       !vg_find_removal(vg, v->name) &&
		       (!v->origin[0] || vg_find_volume(vg, v->origin)) &&
		       !(v->raw && v->origin[0]);
	case L_REMOVALS:
		return !v->origin[0] && !v->read_only && !v->raw && !v->received &&
		       !v->content_uuid[0] && !vg_find_volume(vg, v->name) &&
		       !vg_find_receive(vg, v->name) &&
		       !named_other(vg->removals, vg->nr_removals, v->name, v);
	default:
		return !v->origin[0] && !v->raw && !v->received && !v->wiped &&
		       (v->purging == 0 || v->purging == 1);
	}
}

/* No volume nor receive of VG has NAME, which no volume has, as origin. */
static int unnamed_origin(const struct vg *vg, const char *name)
{
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		if (vg->volumes[i].origin[0] == name[0] && !strcmp(vg->volumes[i].origin, name))
			return 0;
	for (unsigned i = 0; i < vg->nr_receives; i++)
		if (!strcmp(vg->receives[i].origin, name))
			return 0;
	return 1;
}

int vg_check_change(const struct vg *base, const struct vg *next, char *msg, size_t len)
{
	struct change c = { .nr_added = 0 };
	unsigned i;

	if (!base || !base->checked || next->next_dev_id < base->next_dev_id ||
	    check_pool(next, msg, len) || next->trash_retention > VG_TRASH_RETENTION_MAX)
		return vg_check_model(next, msg, len);
	change_list(&c, L_VOLUMES, base->volumes, base->nr_volumes, next->volumes,
		    next->nr_volumes);
	change_list(&c, L_RECEIVES, base->receives, base->nr_receives, next->receives,
		    next->nr_receives);
	change_list(&c, L_REMOVALS, base->removals, base->nr_removals, next->removals,
		    next->nr_removals);
	change_list(&c, L_TRASH, base->trash, base->nr_trash, next->trash, next->nr_trash);
	for (i = 0; !c.over && i < c.nr_added; i++)
		if (!entry_sound(next, c.list[i], c.added[i]))
			c.over = 1;
	for (i = 0; !c.over && i < c.nr_lost; i++)
		if (!vg_find_volume(next, c.lost[i]) && !unnamed_origin(next, c.lost[i]))
			c.over = 1;
	return c.over ? vg_check_model(next, msg, len) : 0;
}

/* V may join VG as a volume or a receive: validated, its name and dev_id
 * new, its origin a volume, room left. */
static int check_new(const struct vg *vg, const struct vg_volume *v)
{
	char msg[512];

	if (check_volume(vg, v, 0, msg, sizeof(msg))) {
		log_error("pool %s: %s", vg->name, msg);
		return -EINVAL;
	}
	if (vg_name_used(vg, v->name)) {
		log_error("pool %s already has a volume or an unfinished receive named %s",
			  vg->name, v->name);
		return -EEXIST;
	}
	if (vg_find_dev_id(vg, v->dev_id)) {
		log_error("pool %s: device id %" PRIu32 " is already used by volume %s", vg->name,
			  v->dev_id, vg_find_dev_id(vg, v->dev_id)->name);
		return -EEXIST;
	}
	if (v->origin[0] && !vg_find_volume(vg, v->origin)) {
		log_error("pool %s has no volume named %s (origin of %s)", vg->name, v->origin,
			  v->name);
		return -EINVAL;
	}
	if (vg->nr_volumes + vg->nr_receives + vg->nr_removals + vg->nr_trash >= VG_MAX_VOLUMES) {
		log_error("pool %s: no more than %u volumes", vg->name, VG_MAX_VOLUMES);
		return -EINVAL;
	}
	return 0;
}

int vg_add_volume(struct vg *vg, const struct vg_volume *v)
{
	int r = check_new(vg, v);

	return r ? r : vg_append_volume(vg, v);
}

int vg_reserve_volumes(struct vg *vg, unsigned n)
{
	struct vg_volume *p;

	if (n <= vg->alloc_volumes)
		return 0;
	p = realloc(vg->volumes, (size_t)n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	vg->volumes = p;
	vg->alloc_volumes = n;
	return 0;
}

int vg_append_volume(struct vg *vg, const struct vg_volume *v)
{
	return vols_append(&vg->volumes, &vg->nr_volumes, &vg->alloc_volumes, 16, v);
}

int vg_remove_volume(struct vg *vg, const char *name)
{
	struct vg_volume *v = vg_find_volume(vg, name);
	unsigned i;

	if (!v)
		return -ENOENT;
	vols_drop(vg->volumes, &vg->nr_volumes, v);
	for (i = 0; i < vg->nr_volumes; i++)
		if (!strcmp(vg->volumes[i].origin, name))
			vg->volumes[i].origin[0] = '\0';
	for (i = 0; i < vg->nr_receives; i++)
		if (!strcmp(vg->receives[i].origin, name))
			vg->receives[i].origin[0] = '\0';
	return 0;
}

int vg_begin_removal(struct vg *vg, const char *name)
{
	struct vg_volume *v = vg_find_volume(vg, name), rm;
	int r;

	if (!v)
		return -ENOENT;
	memset(&rm, 0, sizeof(rm));
	snprintf(rm.name, sizeof(rm.name), "%s", v->name);
	rm.dev_id = v->dev_id;
	rm.size = v->size;
	if ((r = vg_remove_volume(vg, name)))
		return r;
	return vg_append_removal(vg, &rm);
}

int vg_append_removal(struct vg *vg, const struct vg_volume *v)
{
	return vols_append(&vg->removals, &vg->nr_removals, &vg->alloc_removals, 4, v);
}

int vg_end_removal(struct vg *vg, const char *name)
{
	struct vg_volume *v = vg_find_removal(vg, name);

	if (!v)
		return -ENOENT;
	vols_drop(vg->removals, &vg->nr_removals, v);
	return 0;
}

int vg_append_trash(struct vg *vg, const struct vg_volume *v)
{
	return vols_append(&vg->trash, &vg->nr_trash, &vg->alloc_trash, 4, v);
}

int vg_trash_volume(struct vg *vg, const char *name, int64_t now)
{
	struct vg_volume *v = vg_find_volume(vg, name), t;
	int r;

	if (!v)
		return -ENOENT;
	t = *v;
	t.origin[0] = '\0';
	t.trashed_at = now;
	t.purging = 0;
	if ((r = vg_remove_volume(vg, name)))
		return r;
	return vg_append_trash(vg, &t);
}

int vg_untrash(struct vg *vg, uint32_t dev_id, const char *name)
{
	struct vg_volume *t = vg_find_trash_id(vg, dev_id), v;
	const char *why;

	if (!t)
		return -ENOENT;
	if (t->purging)
		return -EBUSY;
	v = *t;
	v.trashed_at = 0;
	if (name)
		snprintf(v.name, sizeof(v.name), "%s", name);
	if (!vg_name_valid(v.name, &why)) {
		log_error("pool %s: bad volume name '%s': %s", vg->name, v.name, why);
		return -EINVAL;
	}
	if (vg_name_used(vg, v.name)) {
		log_error("pool %s already has a volume, an unfinished receive or a removal "
			  "named %s", vg->name, v.name);
		return -EEXIST;
	}
	vols_drop(vg->trash, &vg->nr_trash, t);
	return vg_append_volume(vg, &v);
}

int vg_drop_trash(struct vg *vg, uint32_t dev_id)
{
	struct vg_volume *t = vg_find_trash_id(vg, dev_id);

	if (!t)
		return -ENOENT;
	vols_drop(vg->trash, &vg->nr_trash, t);
	return 0;
}

int64_t vg_trash_expiry(const struct vg *vg, const struct vg_volume *v)
{
	if (!vg->trash_retention || v->trashed_at > INT64_MAX - (int64_t)vg->trash_retention)
		return INT64_MAX;
	return v->trashed_at + (int64_t)vg->trash_retention;
}

void vg_trash_order(const struct vg *vg, unsigned *order)
{
	/* insertion sort: a trash holds few entries */
	for (unsigned i = 0; i < vg->nr_trash; i++) {
		unsigned j = i;

		while (j > 0) {
			const struct vg_volume *a = &vg->trash[order[j - 1]], *b = &vg->trash[i];

			if (a->trashed_at < b->trashed_at ||
			    (a->trashed_at == b->trashed_at && a->dev_id < b->dev_id))
				break;
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}

int vg_add_receive(struct vg *vg, const struct vg_volume *v)
{
	int r = check_new(vg, v);

	return r ? r : vg_append_receive(vg, v);
}

int vg_append_receive(struct vg *vg, const struct vg_volume *v)
{
	return vols_append(&vg->receives, &vg->nr_receives, &vg->alloc_receives, 4, v);
}

int vg_remove_receive(struct vg *vg, const char *name)
{
	struct vg_volume *v = vg_find_receive(vg, name);

	if (!v)
		return -ENOENT;
	vols_drop(vg->receives, &vg->nr_receives, v);
	return 0;
}

int vg_finish_receive(struct vg *vg, const char *name)
{
	struct vg_volume *v = vg_find_receive(vg, name), done;
	int r;

	if (!v)
		return -ENOENT;
	done = *v;
	done.received = 0;
	if (done.raw) {	/* a plain image: an ordinary volume */
		done.read_only = 0;
		done.content_uuid[0] = '\0';
		done.raw = 0;
	}
	if ((r = vg_remove_receive(vg, name)))
		return r;
	return vg_append_volume(vg, &done);
}
