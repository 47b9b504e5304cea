/* SPDX-License-Identifier: GPL-2.0-or-later */
/* label.h - the tptools label in sector 1 (bytes 512..1023) of each pool
 * device.
 *
 * Owns: the on-disk label format (described with byte offsets in
 * label.c and man/tp-metadata.5) and its validation. A label says which
 * pool (name + uuid) a device belongs to, in which role, and where the
 * device's areas are. It is written once by tpcreate (and by tprepair or
 * a resize when geometry changes) and wiped by tpremove.
 *
 * Geometry recorded (all in BYTES, all multiples of 512):
 *   mda_offset/mda_size   the VG metadata area (see mda.h), both roles
 *   area[0], area[1]      meta role: the two thin-metadata areas of equal
 *                         size (which one is ACTIVE is pool state kept in
 *                         the VG text, struct vg.metadata_area, so that a
 *                         repair swap is a single VG commit; the other is
 *                         the SPARE);
 *                         data role: area[0] = the data area (offset aligned
 *                         by the caller's policy), area[1] = 0/0.
 * Nothing may overlap: sector 0 (left alone for partition tables / boot
 * code) and the label sector, then mda, then areas, all within
 * device_size.
 *
 * Three-way read (libblkid style): VG_LABEL_FOUND, VG_LABEL_NONE (no
 * tptools magic, or the device is too small to hold a label: not ours), or
 * -EUCLEAN (our magic but bad checksum, version, own-location or bounds:
 * corrupt; the reason is logged with the device name). Other -errno are
 * I/O errors. */
#ifndef TP_VG_LABEL_H
#define TP_VG_LABEL_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/vg/uuid.h"

#define VG_LABEL_OFFSET 512u	/* byte offset of the label: sector 1 */
#define VG_LABEL_SIZE 512u
#define VG_LABEL_MAGIC "TPTOOLS\x01"	/* 8 bytes at label offset 4 */
#define VG_LABEL_VERSION 1u
#define VG_LABEL_CSUM_SALT 0x4c505454u	/* xor into the label crc (tp_block_csum) */
#define VG_NAME_MAX 64		/* bytes of a pool or volume name (see vg.h) */

/* The VG metadata area starts at 4 KiB on every device. Its size is the
 * pool's (tpcreate --vg-area, mda.h: vg_area_mda_size), recorded in each
 * label: readers take it from there. VG_MDA_DEFAULT_SIZE is a 1 MiB span's
 * (up to 1 MiB, so a data area may start at 1 MiB): every pool made before
 * --vg-area, and auto on devices below 128 MiB. */
#define VG_MDA_DEFAULT_OFFSET 4096u
#define VG_MDA_DEFAULT_SIZE (1048576u - 4096u)

enum vg_role {
	VG_ROLE_DATA = 0,
	VG_ROLE_META = 1,
};
#define VG_NR_ROLES 2
/* The most data devices of one pool: the first and up to 7 that tpextend
 * --data added, concatenated in that order. */
#define VG_DATA_DEVICES_MAX 8

enum vg_label_result {
	VG_LABEL_NONE = 0,	/* not ours */
	VG_LABEL_FOUND = 1,
};

struct vg_area {
	uint64_t offset;	/* bytes from the start of the device */
	uint64_t size;		/* bytes; 0 = unused */
};

struct vg_label {
	uint32_t version;			/* VG_LABEL_VERSION */
	enum vg_role role;
	char pv_uuid[VG_UUID_LEN + 1];		/* this device */
	char pool_uuid[VG_UUID_LEN + 1];	/* the pool (VG) */
	char pool_name[VG_NAME_MAX + 1];	/* hint for scans; the VG text is authoritative */
	/* data role: the device's place in the pool's data area (0 the first
	 * data device, 1.. the devices tpextend --data added, in order);
	 * meta role: 0. Bytes 124..127, reserved (0) before pools had several
	 * data devices, so older labels read as 0; 1 for the second metadata
	 * device of a pool with mirrored thin metadata (vg.h: meta1). */
	uint32_t data_index;
	uint64_t device_size;			/* bytes, when labelled */
	struct vg_area mda;
	struct vg_area area[2];
};

/* "data" / "meta"; NULL for a bad value. */
const char *vg_role_name(enum vg_role role);
/* Parse "data"/"meta" into *ROLE: 0 or -EINVAL. */
int vg_role_parse(const char *s, enum vg_role *role) TP_MUST_CHECK;

/* Check a label's fields (names, uuids, role, alignment, overlaps, bounds
 * within device_size). 0, or -EINVAL after logging which field is wrong.
 * Used by vg_label_write before writing and by decode. */
int vg_label_check(const struct vg_label *l) TP_MUST_CHECK;

struct vg;
/* The label VG records for its device in ROLE, with DEVICE_SIZE (bytes)
 * as the size when labelled: what tpcreate writes and tprepair rewrites. */
void vg_label_from_vg(const struct vg *vg, enum vg_role role, uint64_t device_size,
		      struct vg_label *l);

/* The same for data device I of VG (0 the first, 1.. the added ones;
 * vg.h: vg_data_dev). */
void vg_label_from_vg_data(const struct vg *vg, unsigned i, uint64_t device_size,
			   struct vg_label *l);

/* The label of VG's second metadata device (vg.meta1: role meta,
 * data_index 1, the areas of meta). */
void vg_label_from_vg_meta1(const struct vg *vg, uint64_t device_size, struct vg_label *l);

/* The size IO's label records when the device is shorter than that (it
 * was cut short: the label reads as corrupt), else 0. Says nothing. */
uint64_t vg_label_cut_short(struct io_engine *io);
/* Encode into / decode from one 512-byte sector image (pure: for tests
 * and tools). decode returns like vg_label_read; NAME names the device in
 * messages. */
int vg_label_encode(const struct vg_label *l, uint8_t sector[VG_LABEL_SIZE]) TP_MUST_CHECK;
int vg_label_decode(const uint8_t sector[VG_LABEL_SIZE], const char *name,
		    struct vg_label *l) TP_MUST_CHECK;

/* Read the label of IO. VG_LABEL_FOUND fills *L; VG_LABEL_NONE or
 * -EUCLEAN/-errno leave *L zeroed. A label whose device_size is larger
 * than the device is -EUCLEAN (device truncated); a larger device is fine. */
int vg_label_read(struct io_engine *io, struct vg_label *l) TP_MUST_CHECK;

/* Validate, write sector 1, flush. 0 or -errno (-EINVAL for a bad label,
 * -ENOSPC if the device is smaller than l->device_size). */
int vg_label_write(struct io_engine *io, const struct vg_label *l) TP_MUST_CHECK;

/* Zero sector 1 and flush (tpremove). Without FORCE only a label with our
 * magic (valid or corrupt) is wiped. Returns 0 (wiped), 1 (no tptools
 * magic there and not FORCE: nothing written), or -errno. */
int vg_label_wipe(struct io_engine *io, int force) TP_MUST_CHECK;

/* Open PATH read-only and read its label: the scan helper used to find
 * pools whose devices-file entry is lost. Same results as vg_label_read;
 * -errno when PATH cannot be opened. */
int vg_label_probe_path(const char *path, struct vg_label *l) TP_MUST_CHECK;

#endif
