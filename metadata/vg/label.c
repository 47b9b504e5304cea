/* SPDX-License-Identifier: GPL-2.0-or-later */
/* label.c - the tptools label in sector 1 of each pool device. See label.h.
 *
 * On-disk format (512 bytes at byte 512 of the device, little-endian):
 *
 *   off size field
 *     0    4 csum          crc32c of bytes 4..511 xor VG_LABEL_CSUM_SALT
 *                          (tp_block_csum)
 *     4    8 magic         "TPTOOLS\x01"
 *    12    4 version       1
 *    16    8 sector        1: the label's own location, in sectors
 *    24   16 pv_uuid       this device (raw uuid bytes)
 *    40   16 pool_uuid     the pool (VG)
 *    56   64 pool_name     NUL-padded (no NUL when exactly 64 bytes)
 *   120    4 role          0 data, 1 meta
 *   124    4 data_index    data: place in the data area (0 the first device);
 *                          meta: 0, or 1 for the second metadata device of
 *                          a mirrored pool (reserved, 0, in older labels)
 *   128    8 device_size   bytes
 *   136    8 mda_offset    VG metadata area, bytes
 *   144    8 mda_size
 *   152    8 area0_offset  meta: thin-metadata area 0; data: data area
 *   160    8 area0_size
 *   168    8 area1_offset  meta: thin-metadata area 1; data: 0
 *   176    8 area1_size    meta: equal to area0_size; data: 0
 *   184  328 reserved      0
 */
#include "metadata/vg/label.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include "lib/base/crc32c.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum {
	LO_CSUM = 0,
	LO_MAGIC = 4,
	LO_VERSION = 12,
	LO_SECTOR = 16,
	LO_PV_UUID = 24,
	LO_POOL_UUID = 40,
	LO_POOL_NAME = 56,
	LO_ROLE = 120,
	LO_DATA_INDEX = 124,
	LO_DEVICE_SIZE = 128,
	LO_MDA_OFFSET = 136,
	LO_MDA_SIZE = 144,
	LO_AREA0_OFFSET = 152,
	LO_AREA0_SIZE = 160,
	LO_AREA1_OFFSET = 168,
	LO_AREA1_SIZE = 176,
};

const char *vg_role_name(enum vg_role role)
{
	switch (role) {
	case VG_ROLE_DATA:
		return "data";
	case VG_ROLE_META:
		return "meta";
	}
	return NULL;
}

int vg_role_parse(const char *s, enum vg_role *role)
{
	if (!strcmp(s, "data"))
		*role = VG_ROLE_DATA;
	else if (!strcmp(s, "meta"))
		*role = VG_ROLE_META;
	else
		return -EINVAL;
	return 0;
}

struct region {
	const char *what;
	uint64_t off, len;
};

const char *vg_label_problem(const struct vg_label *l, char *buf, size_t buflen)
{
	struct region r[4];
	unsigned n = 0, i, j;
	const char *why;

	if (l->version != VG_LABEL_VERSION)
		return "unsupported label version";
	if (!vg_role_name(l->role))
		return "bad role";
	if (!vg_uuid_valid(l->pv_uuid))
		return "bad device uuid";
	if (!vg_uuid_valid(l->pool_uuid))
		return "bad pool uuid";
	if (!vg_name_valid(l->pool_name, &why)) {
		snprintf(buf, buflen, "bad pool name: %s", why);
		return buf;
	}
	if (l->mda.offset % 512 || l->mda.size % 1024 || l->area[0].offset % 512 ||
	    l->area[0].size % 512 || l->area[1].offset % 512 || l->area[1].size % 512 ||
	    l->device_size % 512)
		return "an offset or size is not a multiple of 512 bytes";
	if (l->mda.size < 4096)
		return "VG metadata area smaller than 4 KiB";
	if (!l->area[0].size)
		return "empty area 0";
	if (l->role == VG_ROLE_DATA && (l->area[1].offset || l->area[1].size))
		return "data device with a second area";
	if (l->role == VG_ROLE_META && l->data_index > 1)
		return "metadata device with a data index";
	if (l->data_index >= VG_DATA_DEVICES_MAX)
		return "data index beyond the most data devices a pool has";
	if (l->role == VG_ROLE_META && l->area[1].size != l->area[0].size)
		return "the two thin-metadata areas differ in size";
	r[n++] = (struct region){ "label", 0, VG_LABEL_OFFSET + VG_LABEL_SIZE };
	r[n++] = (struct region){ "VG metadata area", l->mda.offset, l->mda.size };
	r[n++] = (struct region){ "area 0", l->area[0].offset, l->area[0].size };
	if (l->area[1].size)
		r[n++] = (struct region){ "area 1", l->area[1].offset, l->area[1].size };
	for (i = 0; i < n; i++) {
		if (r[i].off > l->device_size || r[i].len > l->device_size - r[i].off) {
			snprintf(buf, buflen, "%s (%llu+%llu) beyond the device size %llu",
				 r[i].what, (unsigned long long)r[i].off,
				 (unsigned long long)r[i].len, (unsigned long long)l->device_size);
			return buf;
		}
		for (j = 0; j < i; j++) {
			if (r[i].off < r[j].off + r[j].len && r[j].off < r[i].off + r[i].len) {
				snprintf(buf, buflen, "%s overlaps %s", r[i].what, r[j].what);
				return buf;
			}
		}
	}
	return NULL;
}

int vg_label_check(const struct vg_label *l)
{
	char buf[192];
	const char *p = vg_label_problem(l, buf, sizeof(buf));

	if (!p)
		return 0;
	log_error("label of pool '%.64s': %s", l->pool_name, p);
	return -EINVAL;
}

void vg_label_from_vg(const struct vg *vg, enum vg_role role, uint64_t device_size,
		      struct vg_label *l)
{
	memset(l, 0, sizeof(*l));
	l->version = VG_LABEL_VERSION;
	l->role = role;
	strcpy(l->pv_uuid, vg->dev[role].pv_uuid);
	strcpy(l->pool_uuid, vg->uuid);
	snprintf(l->pool_name, sizeof(l->pool_name), "%s", vg->name);
	l->device_size = device_size;
	l->mda = vg->dev[role].mda;
	l->area[0] = vg->dev[role].area[0];
	l->area[1] = vg->dev[role].area[1];
}

void vg_label_from_vg_data(const struct vg *vg, unsigned i, uint64_t device_size,
			   struct vg_label *l)
{
	const struct vg_device *d = i ? &vg->xdata[i - 1] : &vg->dev[VG_ROLE_DATA];

	vg_label_from_vg(vg, VG_ROLE_DATA, device_size, l);
	l->data_index = i;
	strcpy(l->pv_uuid, d->pv_uuid);
	l->mda = d->mda;
	l->area[0] = d->area[0];
	l->area[1] = d->area[1];
}

void vg_label_from_vg_meta1(const struct vg *vg, uint64_t device_size, struct vg_label *l)
{
	vg_label_from_vg(vg, VG_ROLE_META, device_size, l);
	l->data_index = 1;
	strcpy(l->pv_uuid, vg->meta1.pv_uuid);
}

int vg_label_encode(const struct vg_label *l, uint8_t s[VG_LABEL_SIZE])
{
	uint8_t raw[VG_UUID_BYTES];
	int r = vg_label_check(l);

	if (r)
		return r;
	memset(s, 0, VG_LABEL_SIZE);
	memcpy(s + LO_MAGIC, VG_LABEL_MAGIC, 8);
	le32_put(s + LO_VERSION, l->version);
	le64_put(s + LO_SECTOR, VG_LABEL_OFFSET / 512);
	if (vg_uuid_parse(l->pv_uuid, raw))
		return -EINVAL;
	memcpy(s + LO_PV_UUID, raw, VG_UUID_BYTES);
	if (vg_uuid_parse(l->pool_uuid, raw))
		return -EINVAL;
	memcpy(s + LO_POOL_UUID, raw, VG_UUID_BYTES);
	memcpy(s + LO_POOL_NAME, l->pool_name, strlen(l->pool_name));
	le32_put(s + LO_ROLE, (uint32_t)l->role);
	le32_put(s + LO_DATA_INDEX, l->data_index);
	le64_put(s + LO_DEVICE_SIZE, l->device_size);
	le64_put(s + LO_MDA_OFFSET, l->mda.offset);
	le64_put(s + LO_MDA_SIZE, l->mda.size);
	le64_put(s + LO_AREA0_OFFSET, l->area[0].offset);
	le64_put(s + LO_AREA0_SIZE, l->area[0].size);
	le64_put(s + LO_AREA1_OFFSET, l->area[1].offset);
	le64_put(s + LO_AREA1_SIZE, l->area[1].size);
	le32_put(s + LO_CSUM, tp_block_csum(s, VG_LABEL_SIZE, VG_LABEL_CSUM_SALT));
	return 0;
}

/* Was this problem of device NAME said already in this process? A
 * command reads a label several times (the scan, the lookup of each
 * device, the attach): the same damage is said once. */
static int said_before(const char *name, const char *what)
{
	static char said[16][160];
	static unsigned n;
	char key[160];

	snprintf(key, sizeof(key), "%s\n%s", name, what);
	for (unsigned i = 0; i < n && i < 16; i++)
		if (!strcmp(said[i], key))
			return 1;
	snprintf(said[n++ % 16], sizeof(said[0]), "%s", key);
	return 0;
}

static int corrupt(const char *name, const char *why)
{
	if (!said_before(name, why))
		log_error("%s: tptools label in sector 1 is corrupt (%s); "
			  "tprepair rewrites it from the other device's VG metadata, or from a "
			  "backup with --restorefile", name, why);
	return -EUCLEAN;
}

int vg_label_decode(const uint8_t s[VG_LABEL_SIZE], const char *name, struct vg_label *l)
{
	char buf[192];
	const char *p;
	uint32_t role;

	memset(l, 0, sizeof(*l));
	if (memcmp(s + LO_MAGIC, VG_LABEL_MAGIC, 8))
		return VG_LABEL_NONE;
	if (le32_get(s + LO_CSUM) != tp_block_csum(s, VG_LABEL_SIZE, VG_LABEL_CSUM_SALT))
		return corrupt(name, "bad checksum");
	l->version = le32_get(s + LO_VERSION);
	if (l->version != VG_LABEL_VERSION) {
		snprintf(buf, sizeof(buf), "version %u, this tptools reads version %u",
			 l->version, VG_LABEL_VERSION);
		memset(l, 0, sizeof(*l));
		return corrupt(name, buf);
	}
	if (le64_get(s + LO_SECTOR) != VG_LABEL_OFFSET / 512) {
		memset(l, 0, sizeof(*l));
		return corrupt(name, "label records another location (a copied sector?)");
	}
	vg_uuid_format(s + LO_PV_UUID, l->pv_uuid);
	vg_uuid_format(s + LO_POOL_UUID, l->pool_uuid);
	memcpy(l->pool_name, s + LO_POOL_NAME, VG_NAME_MAX);
	l->pool_name[VG_NAME_MAX] = '\0';
	role = le32_get(s + LO_ROLE);
	l->role = role == VG_ROLE_META ? VG_ROLE_META : VG_ROLE_DATA;
	l->data_index = le32_get(s + LO_DATA_INDEX);
	l->device_size = le64_get(s + LO_DEVICE_SIZE);
	l->mda.offset = le64_get(s + LO_MDA_OFFSET);
	l->mda.size = le64_get(s + LO_MDA_SIZE);
	l->area[0].offset = le64_get(s + LO_AREA0_OFFSET);
	l->area[0].size = le64_get(s + LO_AREA0_SIZE);
	l->area[1].offset = le64_get(s + LO_AREA1_OFFSET);
	l->area[1].size = le64_get(s + LO_AREA1_SIZE);
	p = role > VG_ROLE_META ? "bad role" : vg_label_problem(l, buf, sizeof(buf));
	if (p) {
		memset(l, 0, sizeof(*l));
		return corrupt(name, p);
	}
	return VG_LABEL_FOUND;
}

int vg_label_load(struct io_engine *io, struct vg_label *l, uint64_t (*own_size)(
		  struct io_engine *, const struct vg_label *))
{
	uint8_t s[VG_LABEL_SIZE];
	int r;

	memset(l, 0, sizeof(*l));
	if (io->size < VG_LABEL_OFFSET + VG_LABEL_SIZE)
		return VG_LABEL_NONE;
	r = io_read(io, VG_LABEL_OFFSET, s, sizeof(s));
	if (r) {
		if (!said_before(io->name, strerror(-r)))
			log_error("%s: cannot read sector 1: %s", io->name, strerror(-r));
		return r;
	}
	r = vg_label_decode(s, io->name, l);
	/* a label whose size lags behind the device's own newer VG copy (a
	 * shrink whose label write failed): the VG, checksummed and matched
	 * by uuid, decides; the label is reported as lagging and the next
	 * writer brings it in step. A device shorter than its VG records is
	 * cut short. */
	if (r == VG_LABEL_FOUND && l->device_size > io->size) {
		uint64_t own = own_size(io, l);

		if (own && own <= io->size) {
			log_debug(TP_DBG_VG, "%s: label records %llu bytes, its VG copy %llu: the "
				  "label lags", io->name, (unsigned long long)l->device_size,
				  (unsigned long long)own);
			return VG_LABEL_FOUND;
		}
	}
	if (r == VG_LABEL_FOUND && l->device_size > io->size) {
		char buf[VG_PATH_MAX + 200];
		snprintf(buf, sizeof(buf), "%s: shorter than its tptools label records (%llu of "
			 "%llu bytes): the device was cut short; grow it back to %llu bytes",
			 io->name, (unsigned long long)io->size,
			 (unsigned long long)l->device_size, (unsigned long long)l->device_size);
		memset(l, 0, sizeof(*l));
		if (!said_before(io->name, buf))
			log_error("%s", buf);
		return -EUCLEAN;
	}
	log_debug(TP_DBG_VG, "%s: label %s", io->name,
		  r == VG_LABEL_FOUND ? "found" : r == VG_LABEL_NONE ? "absent" : "corrupt");
	return r;
}

uint64_t vg_label_cut_short_by(struct io_engine *io, uint64_t (*own_size)(
				   struct io_engine *, const struct vg_label *))
{
	uint8_t s[VG_LABEL_SIZE];
	struct vg_label l;
	struct tp_log_capture quiet, *outer;
	int r;

	if (io->size < VG_LABEL_OFFSET + VG_LABEL_SIZE || io_read(io, VG_LABEL_OFFSET, s, sizeof(s)))
		return 0;
	outer = tp_log_capture_push(&quiet);
	r = vg_label_decode(s, io->name, &l);
	tp_log_capture_pop(outer);
	if (r != VG_LABEL_FOUND || l.device_size <= io->size)
		return 0;
	/* a label lagging behind the device's own VG copy (vg_label_read) */
	{
		uint64_t own = own_size(io, &l);

		return own && own <= io->size ? 0 : l.device_size;
	}
}

/* Write and flush the label sector S; WHAT names the deed in the error. */
static int put_sector(struct io_engine *io, const uint8_t s[VG_LABEL_SIZE], const char *what)
{
	int r = io_write(io, VG_LABEL_OFFSET, s, VG_LABEL_SIZE);

	if (!r)
		r = io_flush(io);
	if (r)
		log_error("%s: cannot %s the label: %s", io->name, what, strerror(-r));
	return r;
}

int vg_label_write(struct io_engine *io, const struct vg_label *l)
{
	uint8_t s[VG_LABEL_SIZE];
	int r;

	r = vg_label_encode(l, s);
	if (r)
		return r;
	if (io->size < l->device_size) {
		log_error("%s: device has %llu bytes, label describes %llu", io->name,
			  (unsigned long long)io->size, (unsigned long long)l->device_size);
		return -ENOSPC;
	}
	return put_sector(io, s, "write");
}

int vg_label_wipe(struct io_engine *io, int force)
{
	uint8_t s[VG_LABEL_SIZE];
	int r;

	if (io->size < VG_LABEL_OFFSET + VG_LABEL_SIZE)
		return force ? -ENOSPC : 1;
	r = io_read(io, VG_LABEL_OFFSET, s, sizeof(s));
	if (r)
		return r;
	if (!force && memcmp(s + LO_MAGIC, VG_LABEL_MAGIC, 8))
		return 1;
	memset(s, 0, sizeof(s));
	return put_sector(io, s, "wipe");
}

