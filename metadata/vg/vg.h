/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg.h - the pool's VG metadata: the in-memory model (struct vg), its text
 * form in libdevmapper's config syntax, name rules, and the whole-VG
 * read / commit over the metadata areas of every device of the pool.
 *
 * Owns: struct vg and everything hanging off it (one vg_free releases
 * it); the VG text format (see vg_text.c and man/tp-metadata.5).
 *
 * Units: device geometry and volume sizes in BYTES (multiples of 512),
 * the chunk size in 512-byte SECTORS (as dm-thin tables count it).
 *
 * Errors: 0 or -errno. vg_validate (a model built in memory, e.g. from a
 * command line) fails with -EINVAL; vg_import (text from disk or a backup)
 * fails with -EUCLEAN for anything wrong in the text. Both log one message
 * naming the offending key (e.g. "VG text: pool/volumes/www/dev_id: ...").
 *
 * Text layout (all keys required unless noted):
 *   contents = "tptools VG metadata"   version = 1
 *   pool {
 *     name, uuid, seqno, format_version, creation_time, creation_host,
 *     chunk_size (sectors), zero (0|1), discards ("ignore"|"nopassdown"|
 *     "passdown"), when_full ("queue"|"error"), transaction_id,
 *     next_dev_id, metadata_area (0|1: which meta area[] is ACTIVE),
 *     activation_skip (optional, 0|1, written only when 1: `tpactivate
 *     --all` and autoactivation pass the pool by; absent reads as 0),
 *     profile (optional: "balanced"|"throughput"|"snapshots"|"custom",
 *     the geometry profile tpcreate applied; absent in pools made before
 *     profiles, reads as VG_PROFILE_NONE),
 *     monitor (optional section, written only when it differs from the
 *       defaults; a missing key reads as its default) { warn (percent
 *       0..100, 0 = no warnings; default 80), autoextend_threshold
 *       (percent 50..100, 100 = no autoextension; default 100),
 *       autoextend_percent (1..1000; default 20) or autoextend_size
 *       (bytes, a multiple of 512): exactly one of the two is non-zero;
 *       autoextend_max (optional, bytes, a multiple of 512: the data area
 *       tpmonitor never grows past; absent or 0 = no cap) }
 *     lock (optional section, written only for a pool on shared storage:
 *       tpcreate --lock-type sanlock, tpchange --lock-type) { type
 *       ("sanlock"), offset (bytes, a multiple of 1 MiB: the lease area
 *       on the meta device, VG_LOCK_AREA_BYTES long, outside the VG area
 *       and both thin-metadata areas), io_timeout (seconds, 1..300:
 *       sanlock's, which the host-dead time follows), name (the
 *       lockspace's and the resource's, "tp-" + the pool's uuid) }
 *     max_overprovision_percent (optional, written only when set: the sum
 *       of the volumes' and unfinished receives' virtual sizes may be at
 *       most this percent of the data area; 100 = no over-provisioning;
 *       absent = unlimited, as in VGs written before it)
 *     devices { data { ... } meta { ... } }   each: uuid, path (hint, may
 *       be ""), size, mda_offset, mda_size, area0_offset, area0_size,
 *       area1_offset, area1_size
 *       data1 { ... } .. data7 { ... } (optional, written only for a pool
 *       over several data devices: the devices tpextend --data added, in
 *       the order their data areas follow the first one's): the keys of
 *       a device and first_chunk, chunks (the pool's data chunks the
 *       device holds: first_chunk is the sum of the chunks before it,
 *       chunks is area0_size / chunk bytes, which must be whole)
 *       meta1 { ... } (optional, written only for a pool whose thin
 *       metadata is mirrored, tpcreate --meta DEV1,DEV2: the second
 *       metadata device, the keys of a device; its VG area and both
 *       thin-metadata areas lie where meta's do; raid_meta_offset
 *       (optional, bytes: where both devices keep the kernel raid1's
 *       metadata when not right after the VG area); integrity_offset,
 *       integrity_size (optional, bytes, both or neither: dm-integrity's
 *       metadata for area 0 then area 1 on each device, vg.integrity_*))
 *     volumes { <name> { dev_id, size, origin (optional, "" = none),
 *       creation_time, read_only (0|1), activation_skip (optional, as the
 *       pool's), content_uuid (optional), luks_uuid (optional: the volume's
 *       content is a LUKS2 device with this uuid, tvcreate --encrypt) } ... }
 *     receiving (optional: unfinished receives) { <name> { the keys of a
 *       volume, received (bytes), raw (optional, 0|1, written only when
 *       1: a raw import) } ... }
 *     removing (optional: removals under way, tvremove) { <name> {
 *       dev_id, size } ... }
 *     trash_retention (optional, seconds, written only when not 0: how
 *       long tvremove keeps a removed volume in the trash; absent = off)
 *     trash (optional, written only when not empty: removed volumes kept)
 *       { t<dev_id> { name, dev_id, size, creation_time, read_only,
 *       activation_skip (optional), content_uuid (optional), luks_uuid
 *       (optional), trashed_at,
 *       purging (optional, 0|1, written only when 1) } ... }
 *   }
 */
#ifndef TP_VG_VG_H
#define TP_VG_VG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "metadata/vg/label.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/uuid.h"

/* The VG text's format_version: 2, what a new pool gets, is 1 with change
 * records in its VG area (mda.h: vg_mda_commit's VG_MDA_JOURNAL); a pool
 * of format 1 (made before) is read and written as such until it is
 * upgraded (tpchange --upgrade): a tptools before format 2 refuses a
 * format 2 text, so it never reads a checkpoint without its records. */
#define VG_FORMAT_VERSION 2u
#define VG_FORMAT_VERSION_MIN 1u
#define VG_HOST_MAX 255
/* The owner's system id (lib/base/sysid.h: TP_SYSID_MAX). */
#define VG_SYSID_MAX 128
#define VG_PATH_MAX 1023
#define VG_DEV_ID_MAX ((1u << 24) - 1)	/* dm-thin device ids are 24-bit */
#define VG_CHUNK_MIN_SECTORS 128u	/* 64 KiB */
#define VG_CHUNK_MAX_SECTORS 2097152u	/* 1 GiB */
#define VG_MAX_VOLUMES 100000u

enum vg_discards {
	VG_DISCARDS_IGNORE = 0,
	VG_DISCARDS_NOPASSDOWN,
	VG_DISCARDS_PASSDOWN,
};

enum vg_when_full {
	VG_WHEN_FULL_QUEUE = 0,
	VG_WHEN_FULL_ERROR,
};

/* The geometry profile tpcreate applied (custom: --chunk SIZE given). */
enum vg_profile {
	VG_PROFILE_NONE = 0,	/* not recorded */
	VG_PROFILE_BALANCED,
	VG_PROFILE_THROUGHPUT,
	VG_PROFILE_SNAPSHOTS,
	VG_PROFILE_CUSTOM,
};

/* The pool's monitoring policy (tpmonitor, tvcreate's warning). */
#define VG_MONITOR_WARN_DEFAULT 80u
#define VG_MONITOR_THRESHOLD_OFF 100u	/* autoextend_threshold: never extend */
#define VG_MONITOR_THRESHOLD_MIN 50u	/* as LVM's thin_pool_autoextend_threshold */
#define VG_MONITOR_PERCENT_DEFAULT 20u
#define VG_MONITOR_PERCENT_MAX 1000u

struct vg_monitor {
	uint32_t warn;			/* percent used that is warned about; 0 = never */
	uint32_t autoextend_threshold;	/* percent used that triggers growth; 100 = off */
	uint32_t autoextend_percent;	/* grow by this percent of the area ... */
	uint64_t autoextend_size;	/* ... or by these bytes (one of the two is 0) */
	uint64_t autoextend_max;	/* bytes: the data area is never grown past; 0 = no cap */
	/* a device tpmonitor adds as a data device when the others have no
	 * room (absolute path; "" = none) */
	char autoextend_device[VG_PATH_MAX + 1];
};

/* A pool's lease on shared storage (lease/lease.h): its area on the meta
 * device. VG_LOCK_AREA_BYTES and VG_LOCK_ALIGN are lease.h's
 * LEASE_AREA_BYTES and LEASE_ALIGN (the VG layer does not see lease/). */
enum vg_lock_type {
	VG_LOCK_NONE = 0,
	VG_LOCK_SANLOCK,
};
#define VG_LOCK_ALIGN (1024u * 1024u)
#define VG_LOCK_AREA_BYTES (2u * VG_LOCK_ALIGN)
#define VG_LOCK_NAME_MAX 47u
#define VG_LOCK_IO_TIMEOUT_MAX 300u

struct vg_lock {
	enum vg_lock_type type;
	uint64_t offset;		/* bytes on the meta device */
	uint32_t io_timeout;		/* seconds */
	char name[VG_LOCK_NAME_MAX + 1];
};

/* The lease name of the pool with uuid UUID: "tp-" + UUID. */
void vg_lock_name(const char *uuid, char out[VG_LOCK_NAME_MAX + 1]);

/* max_overprovision_percent: 1..VG_OVERPROVISION_MAX (0 = unlimited). */
#define VG_OVERPROVISION_MAX 100000000u
/* trash_retention: at most ten years (lib/base/units.h TP_DURATION_MAX). */
#define VG_TRASH_RETENTION_MAX (10ull * 366 * 24 * 3600)

struct vg_device {
	char pv_uuid[VG_UUID_LEN + 1];
	char path[VG_PATH_MAX + 1];	/* last known path; a hint only */
	uint64_t size;			/* bytes */
	struct vg_area mda;
	struct vg_area area[2];		/* as in the label (label.h) */
};

struct vg_volume {
	char name[VG_NAME_MAX + 1];
	uint32_t dev_id;		/* thin device id, < vg.next_dev_id */
	uint64_t size;			/* virtual size, bytes, > 0, multiple of 512 */
	char origin[VG_NAME_MAX + 1];	/* snapshot origin's name, "" if none */
	int64_t creation_time;		/* unix seconds */
	int read_only;
	int activation_skip;		/* 1: activation of all (--all) passes it by */
	/* a read-only volume's content: set when it becomes read-only or is
	 * received (tprecv: the sender's), dropped when it becomes writable;
	 * the send stream names bases by it. "" if none. */
	char content_uuid[VG_UUID_LEN + 1];
	/* An encrypted volume's: the uuid of the LUKS2 header its content
	 * begins with (tvcreate --encrypt, tprecv of an encrypted stream);
	 * its snapshots keep it (they share the volume key). The header is
	 * checked against it before any key is tried. "" for a plain volume;
	 * a header that merely appears in a plain volume's content (a guest's
	 * own LUKS) is never unlocked by tptools. */
	char luks_uuid[VG_UUID_LEN + 1];
	/* Only in vg.receives: the bytes of the volume, from its start, that
	 * the stream has durably given its thin device (tprecv --resume goes
	 * on from there). 0 in vg.volumes. */
	uint64_t received;
	/* Only in vg.receives: 1 for a raw import (tprecv --format raw), whose
	 * input was read once: it cannot go on, only be dropped; it ends as a
	 * writable volume without a content uuid. 0 in vg.volumes. */
	int raw;
	/* Only in vg.removals: 1 when tvremove --wipe zeroed the chunks only
	 * the volume mapped before its removal began (a --wipe run again
	 * after a cut may say so); 0 when it began without a wipe. */
	int wiped;
	/* Only in vg.trash: when the volume went to the trash (unix seconds),
	 * and 1 once its purge began (its mappings may be going: it can no
	 * longer come back, only be purged to its end). 0 elsewhere. */
	int64_t trashed_at;
	int purging;
};

struct vg {
	uint32_t format_version;	/* VG_FORMAT_VERSION_MIN .. VG_FORMAT_VERSION */
	char name[VG_NAME_MAX + 1];
	char uuid[VG_UUID_LEN + 1];
	uint64_t seqno;			/* of the commit this was read from; >= 1 */
	int64_t creation_time;
	char creation_host[VG_HOST_MAX + 1];
	/* The system id of the host that owns the pool (tptools.conf(5)
	 * global/system_id); "" for a pool any host may use (a VG written
	 * before owners, or by a host without an id). In the text only when
	 * set, so such VGs read as they always did. */
	char system_id[VG_SYSID_MAX + 1];
	uint32_t chunk_size;		/* sectors: multiple of 128, 128..2097152 */
	int zero;			/* zero new chunks (0|1) */
	enum vg_discards discards;
	enum vg_when_full when_full;
	uint64_t transaction_id;	/* <= INT64_MAX */
	uint32_t next_dev_id;		/* <= VG_DEV_ID_MAX + 1 */
	unsigned metadata_area;		/* 0|1: the meta device's ACTIVE area[] */
	int activation_skip;		/* 1: activation of all (--all) passes it by */
	enum vg_profile profile;
	struct vg_monitor monitor;	/* vg_alloc sets the defaults */
	/* percent of the data area the volumes' virtual sizes may add up to
	 * (100 = no over-provisioning); 0 = unlimited */
	uint32_t max_overprovision;
	struct vg_lock lock;		/* type VG_LOCK_NONE: a pool of one host */
	struct vg_device dev[VG_NR_ROLES];	/* indexed by enum vg_role */
	/* The data devices after the first (dev[VG_ROLE_DATA]), in the order
	 * of the data area: data chunk 0 is the first chunk of the first
	 * device's area, then each device's area follows. 0 for a pool on
	 * one data device (the text then has no data1.. keys). */
	unsigned nr_xdata;
	struct vg_device xdata[VG_DATA_DEVICES_MAX - 1];
	/* 1: the thin metadata is mirrored onto META1, a second metadata
	 * device laid out as dev[VG_ROLE_META] (the text's meta1 key, written
	 * only then, so a VG without it reads and writes as before) */
	int meta_mirror;
	struct vg_device meta1;
	/* (each metadata device of a mirrored pool keeps the kernel raid1's
	 * metadata, VG_RAID_META_BYTES, right after its VG area, which
	 * tpcreate makes that much smaller; or, for a pool mirrored later
	 * (tpchange --meta-mirror), at RAID_META_OFFSET: the text's meta1
	 * key raid_meta_offset, written only when not 0: vg_raid_meta_offset) */
	uint64_t raid_meta_offset;
	/* dm-integrity under each leg of the kernel's raid1 (tpcreate
	 * --meta-integrity): each metadata device keeps two integrity
	 * metadata regions of INTEGRITY_SIZE bytes from INTEGRITY_OFFSET, the
	 * first for thin-metadata area 0, the second for area 1 (vg_imeta_offset):
	 * dm-integrity's superblock, its bitmap and one 4-byte tag per 4 KiB
	 * block of the area. The text's meta1 keys integrity_offset and
	 * integrity_size, written only when set; 0: no integrity. */
	uint64_t integrity_offset, integrity_size;
	unsigned nr_volumes;
	unsigned alloc_volumes;
	struct vg_volume *volumes;	/* nr_volumes entries, in creation order */
	/* Unfinished receives (tprecv): each holds a thin device and reserves
	 * its name, but is not a volume: no reader lists it, nothing
	 * activates, sends or snapshots it, and its content uuid names no
	 * base until the receive ends and it moves to VOLUMES. */
	unsigned nr_receives;
	unsigned alloc_receives;
	struct vg_volume *receives;
	/* Removals under way (tvremove): each was a volume and still holds
	 * its thin device, whose mappings go in bounded steps; it reserves
	 * its name, but nothing lists it as a volume, activates, sends or
	 * snapshots it. Only name, dev_id and size are kept. */
	unsigned nr_removals;
	unsigned alloc_removals;
	struct vg_volume *removals;
	/* The trash (tvremove with the pool's trash retention on): removed
	 * volumes that keep their thin device, data and sharing until purged.
	 * An entry is no volume and reserves no name (a new volume may take
	 * it, so names may repeat here; each entry is known by its dev_id);
	 * nothing lists it as a volume, activates, sends or snapshots it, and
	 * its content uuid names no base. No origin is kept. */
	unsigned nr_trash;
	unsigned alloc_trash;
	struct vg_volume *trash;
	/* How long a removed volume stays in the trash, in seconds; 0: off,
	 * tvremove removes at once (the text's trash_retention, written only
	 * when not 0). */
	uint64_t trash_retention;
	/* Not stored: the seqno of the copy vg_read took the text from (may be
	 * below seqno after a fallback); vg_commit protects that copy. 0 for a
	 * new VG. */
	uint64_t text_seqno;
	/* Not stored: the bytes of that copy's text (vg_commit: of the text it
	 * wrote), how full the VG area is (tpstatus); 0 when not read from one. */
	size_t text_len;
	/* Not stored: 1 when this VG passed vg_check_model as it is now
	 * (vg_import, a commit's check); a commit's check of a VG changed from
	 * it looks at what changed only (vg_check_change). vg_clone's copy has
	 * 0: a clone is made to be changed. */
	int checked;
	/* Not stored: the text the volumes were read from, where a writer
	 * keeps it (vg_keep_source) and each was in the form vg_export
	 * writes: a commit of a VG changed from this one copies the text of
	 * each volume it did not change from here (vg_commit_change). NULL
	 * otherwise; vg_clone's copy has none. */
	struct vg_source *source;
};

/* ---- names ---- */

/* The kernel raid1's metadata (dm-raid superblock and bitmap) of a leg of
 * mirrored thin metadata: VG_RAID_META_BYTES right after the leg's VG
 * area, which tpcreate makes that much smaller than the default. */
#define VG_RAID_META_BYTES (512u * 1024u)
uint64_t vg_raid_meta_offset(const struct vg *vg);

/* dm-integrity's metadata for a thin-metadata area (vg.integrity_*): its
 * superblock and one journal section (which bitmap mode keeps its bitmap
 * in), 8 + 392 sectors for 4 KiB blocks and crc32c tags, then the tags,
 * 4 bytes a 4 KiB block, in whole 64 KiB (the kernel's buffer size). */
#define VG_IMETA_HEADER_BYTES ((8u + 392u) * 512u)
#define VG_IMETA_ALIGN (64u * 1024u)
/* The bytes an integrity metadata region needs for an area of AREA bytes. */
uint64_t vg_imeta_need(uint64_t area);
/* The largest area a region of SIZE bytes holds the tags of (0: none). */
uint64_t vg_imeta_cover(uint64_t size);
/* Where the region of thin-metadata area A (0|1) lies on each leg. */
uint64_t vg_imeta_offset(const struct vg *vg, unsigned a);

/* Pool and volume names: 1..64 bytes of [A-Za-z0-9+_.-], not starting
 * with '-', not "." or "..". Returns 1 if valid; else 0 and, if WHY is not
 * NULL, a static explanation ("contains '/'", ...) in *WHY. */
int vg_name_valid(const char *name, const char **why);

/* ---- the model ---- */

/* The default monitoring policy. */
void vg_monitor_default(struct vg_monitor *m);
/* 1 when M is the default policy (the text then leaves the section out). */
int vg_monitor_is_default(const struct vg_monitor *m);

/* A zeroed vg (format_version and the monitor defaults set, no volumes);
 * vg_free(NULL) is fine. */
struct vg *vg_alloc(void);
void vg_free(struct vg *vg);
/* Deep copy: 0 or -ENOMEM. */
int vg_clone(const struct vg *src, struct vg **out) TP_MUST_CHECK;

/* NULL if there is no such volume. vg_find_dev_id also finds an
 * unfinished receive and a removal under way (their thin devices are the
 * pool's like a volume's). */
struct vg_volume *vg_find_volume(const struct vg *vg, const char *name);
struct vg_volume *vg_find_dev_id(const struct vg *vg, uint32_t dev_id);
/* The unfinished receive NAME, or NULL. */
struct vg_volume *vg_find_receive(const struct vg *vg, const char *name);
/* The removal under way of NAME, or NULL. */
struct vg_volume *vg_find_removal(const struct vg *vg, const char *name);
/* The trash entry of thin device DEV_ID, or NULL. */
struct vg_volume *vg_find_trash_id(const struct vg *vg, uint32_t dev_id);
/* The newest trash entry named NAME (the latest trashed_at; of equal
 * ones the last in the list), or NULL. */
struct vg_volume *vg_find_trash(const struct vg *vg, const char *name);
/* 1 when NAME is a volume's, an unfinished receive's or a removal's (never
 * a trash entry's: a trashed volume's name is free). */
int vg_name_used(const struct vg *vg, const char *name);

/* ---- the data area over the data devices ---- */

/* How many data devices VG has (1 + nr_xdata), and data device I (0 the
 * first, dev[VG_ROLE_DATA]; I < vg_nr_data). */
unsigned vg_nr_data(const struct vg *vg);
struct vg_device *vg_data_dev(const struct vg *vg, unsigned i);
/* The pool's data chunks device I holds (its area rounded down to whole
 * chunks), the first of them, and all the pool's data chunks. */
uint64_t vg_data_dev_chunks(const struct vg *vg, unsigned i);
uint64_t vg_data_first_chunk(const struct vg *vg, unsigned i);
uint64_t vg_data_chunks(const struct vg *vg);
/* Where data chunk CHUNK lies: the data device *DEV, the byte offset
 * *OFF on it, and *RUN, the chunks from CHUNK on that follow it on the
 * same device. 0, or -ERANGE for a chunk beyond the data area. */
int vg_data_locate(const struct vg *vg, uint64_t chunk, unsigned *dev, uint64_t *off,
		   uint64_t *run) TP_MUST_CHECK;
/* The data device whose device uuid is PV_UUID, or -1. */
int vg_data_index(const struct vg *vg, const char *pv_uuid);
/* Does VG name a device with uuid PV_UUID, in any role (a data device,
 * the metadata device, a mirror's second one)? 1 or 0. A device whose
 * label carries VG's pool uuid and whose device uuid VG does not name is
 * an orphan of the pool (tptools(7) ORPHAN LABELS). */
int vg_lists_device(const struct vg *vg, const char *pv_uuid);

/* Append a copy of V (validated: name, unique name and dev_id, size,
 * origin exists): 0, -EINVAL (logged), -EEXIST (duplicate name or dev_id,
 * logged), -ENOMEM. Does not touch next_dev_id: the caller allocates
 * dev ids (v->dev_id = vg->next_dev_id++). */
int vg_add_volume(struct vg *vg, const struct vg_volume *v) TP_MUST_CHECK;
/* Remove volume NAME: 0 or -ENOENT. Volumes whose origin was NAME keep
 * existing and get origin "" (as LVM does for thin snapshots). */
int vg_remove_volume(struct vg *vg, const char *name) TP_MUST_CHECK;

/* Volume NAME begins its removal: it leaves the volumes as
 * vg_remove_volume does and joins the removals (name, dev_id, size): 0,
 * -ENOENT, -ENOMEM. */
int vg_begin_removal(struct vg *vg, const char *name) TP_MUST_CHECK;
/* The removal NAME ends (its thin device is gone): 0 or -ENOENT. */
int vg_end_removal(struct vg *vg, const char *name) TP_MUST_CHECK;

/* Volume NAME goes to the trash at NOW (unix seconds): it leaves the
 * volumes as vg_remove_volume does (its snapshots no longer record it)
 * and joins the trash without its origin: 0, -ENOENT, -ENOMEM. */
int vg_trash_volume(struct vg *vg, const char *name, int64_t now) TP_MUST_CHECK;
/* The trash entry of DEV_ID comes back as volume NAME (its own name when
 * NAME is NULL): 0, -ENOENT (no such entry), -EBUSY (its purge began),
 * -EEXIST (the name is taken, logged), -ENOMEM. */
int vg_untrash(struct vg *vg, uint32_t dev_id, const char *name) TP_MUST_CHECK;
/* Drop the trash entry of DEV_ID (its thin device is gone): 0 or -ENOENT. */
int vg_drop_trash(struct vg *vg, uint32_t dev_id) TP_MUST_CHECK;
/* When the trash entry V expires under the pool's retention (unix
 * seconds); INT64_MAX while the retention is off. */
int64_t vg_trash_expiry(const struct vg *vg, const struct vg_volume *v);
/* The trash entries' indexes in purge order (the oldest trashed_at
 * first; of equal ones the lower dev_id) into ORDER (vg->nr_trash
 * entries). */
void vg_trash_order(const struct vg *vg, unsigned *order);

/* An unfinished receive V (validated as vg_add_volume does; its name and
 * dev_id unique among volumes and receives): 0, -EINVAL, -EEXIST, -ENOMEM,
 * logged. */
int vg_add_receive(struct vg *vg, const struct vg_volume *v) TP_MUST_CHECK;
/* Drop the unfinished receive NAME: 0 or -ENOENT. */
int vg_remove_receive(struct vg *vg, const char *name) TP_MUST_CHECK;
/* The receive NAME ends: it becomes a volume (RECEIVED cleared, its
 * content uuid kept; a raw import's volume is writable, without a content
 * uuid, RAW cleared): 0, -ENOENT, -ENOMEM. */
int vg_finish_receive(struct vg *vg, const char *name) TP_MUST_CHECK;

/* Check every field and cross-reference of VG (see the text layout):
 * 0 or -EINVAL with a message naming the key. */
int vg_validate(const struct vg *vg) TP_MUST_CHECK;
/* Pairing a list of BASE with the same list of a VG changed from it
 * (vg.volumes, receives, removals or trash): a change appends entries,
 * drops them or alters them in place, so the lists keep their order and
 * one walk pairs them. Each vg_pair_step from *I, *J (0, 0 first) gives
 * STEP, and advances them: SAME entries A[i..] and B[j..] alike byte for
 * byte, or GONE (an entry of A dropped or altered) and/or CAME (one of B
 * added or altered). 0 at the end of both. The commit's guard, check
 * and text pair them so. */
struct vg_pair_step {
	unsigned i, j, same;
	const struct vg_volume *gone, *came;
};
int vg_pair_step(const struct vg_volume *a, unsigned na, const struct vg_volume *b, unsigned nb,
		 unsigned *i, unsigned *j, struct vg_pair_step *step);
/* vg_validate of NEXT changed from BASE (vg_check_change): 0 or -EINVAL,
 * the problem logged. */
int vg_validate_change(const struct vg *base, const struct vg *next) TP_MUST_CHECK;

/* ---- text ---- */

/* From now on (ON 1) vg_import keeps, in each VG it makes, the text its
 * volumes were read from (vg.source), for the commits of a command that
 * changes the pool; 0 stops it. */
void vg_keep_source(int on);

/* VG -> text: validates (-EINVAL) then writes the config text into a
 * malloc'd NUL-terminated *TEXT (caller frees), *LEN its length. */
int vg_export(const struct vg *vg, char **text, size_t *len) TP_MUST_CHECK;
/* Text -> a new vg in *OUT: -EUCLEAN for syntax errors, missing keys,
 * wrong types, bad or out-of-range values, duplicates (message names the
 * key); -ENOMEM. TEXT need not be NUL-terminated. */
int vg_import(const char *text, size_t len, struct vg **out) TP_MUST_CHECK;
/* The same, silent: the reason a text does not import goes into WHY
 * (WHYLEN bytes, "" when it imports), for a caller that reports it its
 * own way (a listing of backups). */
int vg_import_why(const char *text, size_t len, struct vg **out, char *why, size_t whylen)
	TP_MUST_CHECK;

/* ---- read / commit over the devices ---- */

/* Read the newest valid VG over PVS (vg_mda_read_copies; a copy whose
 * text does not import is reported and the next older one is used). The
 * VG's uuid must match every label's pool_uuid, and the devices' pv uuids
 * must match the labels (else -EUCLEAN, logged naming the device): a
 * usable copy that does not name one of PVS ends the read, since an
 * older copy that does is an earlier state of the pool, never its
 * current VG (the device was taken away since). *OUT gets the vg; STATUS (may be
 * NULL) the slot report; status->needs_repair is also set when a fallback
 * past a bad copy happened. (*OUT)->seqno is the NEWEST valid seqno on the
 * devices, even after a fallback, so that vg_commit supersedes every copy.
 * -ENODATA: no valid copy on any device (logged). */
int vg_read(struct vg_pv *pvs, unsigned nr_pvs, struct vg **out,
	    struct vg_mda_status *status) TP_MUST_CHECK;
/* The same with FLAGS of vg_mda_read_copies_flags (VG_MDA_READ_WHOLE:
 * every slot read whole, for a check, and every copy older than the one
 * taken imported too, as a read would once the newer ones are lost). A
 * copy refused and fallen back past, or older and refused so, is
 * UNUSABLE in each slot of STATUS that holds it; an older one of a newer
 * format, NEWER_COPY. */
int vg_read_flags(struct vg_pv *pvs, unsigned nr_pvs, struct vg **out, unsigned flags,
		  struct vg_mda_status *status) TP_MUST_CHECK;
/* vg_read keeps the last text it imported (one, in the process); a
 * reader done with a VG it did not change gives it back with
 * vg_read_release (which frees it when it cannot be kept), and the next
 * vg_read of a text byte for byte equal takes it instead of parsing the
 * text again. vg_read_forget releases what is kept (the open of a pool
 * calls it when its reads are done, so a large VG is not held twice). */
void vg_read_release(struct vg *vg);
void vg_read_forget(void);

/* Commit VG: seqno + 1, export, vg_mda_commit to every pv. Backups are
 * the host's business, not the format's: lib/pool writes one after a
 * successful commit. On success vg->seqno holds the new seqno; on failure
 * it is unchanged. -EINVAL when
 * the labels of PVS do not belong to VG (pool uuid, device uuids) or VG
 * does not validate; errors of vg_mda_commit otherwise. */
int vg_commit(struct vg_pv *pvs, unsigned nr_pvs, struct vg *vg) TP_MUST_CHECK;
/* The same for VG changed from BASE (a VG read or committed before, or
 * NULL), checked by vg_check_change; on success the text committed into
 * *TEXT (malloc'd, NUL-terminated; the caller frees) and its length into
 * *LEN when TEXT is not NULL, for the host's backup of the commit (one
 * export, not two). */
int vg_commit_change(struct vg_pv *pvs, unsigned nr_pvs, const struct vg *base, struct vg *vg,
		     char **text, size_t *len) TP_MUST_CHECK;
/* The caller of vg_commit_change is done with its TEXT: it goes to VG
 * (a writer's: the source of the command's next commit, vg.source) or
 * is freed. */
void vg_source_text(struct vg *vg, char *text);

#endif
