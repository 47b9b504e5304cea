/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm.h - the device-mapper interface: names, tables, device operations,
 * pool messages and status parsing for the kernel's linear, thin-pool and
 * thin targets, through libdevmapper tasks.
 *
 * Owns: every dm ioctl tptools issues, the dm name/uuid scheme of our
 * devices, and libdevmapper's log output (routed to log_debug(KERNEL); our
 * own errors are logged once, naming the device and the kernel's reason).
 * Calls only lib/base and libdevmapper.
 *
 * Contract
 * - Every function returns 0 or -errno. The errno of a failed ioctl is
 *   passed up as the kernel gave it (dm_task_get_errno): -ENXIO no such
 *   device, -EEXIST name/uuid or thin id in use, -EBUSY device open,
 *   -EINVAL bad table/message (the kernel log says why), -ENODATA thin id
 *   not in the pool, -EOPNOTSUPP message to a read-only/failed pool (older
 *   kernels: -EINVAL). Builders and parsers return -EINVAL for bad
 *   arguments, -ENAMETOOLONG when a result does not fit, -EPROTO for a
 *   status line they cannot read (logged with the line).
 * - No kernel support: tp_dm_check_available() returns -ENODEV (no
 *   device-mapper at all) or -EOPNOTSUPP (no thin-pool target, or a version
 *   older than we accept), or -EACCES (not root), and fills WHY with a
 *   sentence for the user. The device operations below return the same
 *   codes and log WHY, changing nothing, when called on such a kernel.
 * - udev: create/resume/remove wait for udev through a cookie
 *   (dm_task_set_cookie + dm_udev_wait). With udev absent or
 *   DM_DISABLE_UDEV=1, libdevmapper creates /dev/mapper nodes itself; we
 *   detect "udev not running" (no /run/udev/control) and turn udev sync
 *   off so nodes are still made. Devices created with TP_DM_INTERNAL carry
 *   the cookie flags that keep other udev rules (blkid, filesystems, links)
 *   off them; udev/56-dm-tptools.rules does the same from the uuid.
 *
 * Naming (pure, unit tested)
 * - dm names: "<pool>-<vol>" for volumes, "<pool>-tpool", "<pool>-tmeta",
 *   "<pool>-tdata" for the pool's internal devices. A '-' inside a pool or
 *   volume name is doubled (LVM's escaping), so `dmsetup splitname` and
 *   dm_split_lvm_name() split our names back into pool and volume, and the
 *   udev rules use that to make /dev/<pool>/<vol>. Volume names "tpool",
 *   "tmeta" and "tdata" would collide: tp_dm_vol_name_reserved() says so,
 *   lib/pool refuses them.
 * - dm uuids: "TPTOOLS-<pool uuid>-<role>", role "tpool", "tmeta", "tdata"
 *   or "thin<dev_id>" (decimal). Renaming a volume keeps its uuid.
 * - Encrypted volumes (dm_crypt.c): unlocked, /dev/<pool>/<vol> is a
 *   dm-crypt device "<pool>-<vol>" with uuid "crypt<dev_id>" over the
 *   volume's thin device, which is then hidden as "<pool>-<vol>-luks"
 *   (uuid "thin<dev_id>", TP_DM_INTERNAL; `dmsetup splitname` gives the
 *   layer "luks"). Locked, neither is loaded.
 *
 * Tables (pure, unit tested): a table is an array of struct tp_dm_target;
 * params are the kernel's strings (its
 * Documentation/admin-guide/device-mapper/thin-provisioning.rst).
 * Devices in params are "major:minor" or a path, as the caller gives them.
 */
#ifndef TP_KERNEL_DM_H
#define TP_KERNEL_DM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

#define TP_DM_UUID_PREFIX "TPTOOLS-"
#define TP_DM_NAME_MAX 128	/* DM_NAME_LEN, including the NUL */
#define TP_DM_UUID_MAX 129	/* DM_UUID_LEN, including the NUL */
#define TP_DM_PARAMS_MAX 1024
#define TP_DM_TYPE_MAX 16	/* DM_MAX_TYPE_NAME */

/* thin-pool data block size limits, in 512-byte sectors */
#define TP_DM_POOL_BLOCK_MIN 128u
#define TP_DM_POOL_BLOCK_MAX 2097152u
#define TP_DM_THIN_ID_MAX 16777215u	/* 2^24 - 1 */

/* Oldest thin-pool target we accept (error_if_no_space, needs_check). */
#define TP_DM_THIN_POOL_MIN_MAJOR 1
#define TP_DM_THIN_POOL_MIN_MINOR 11

/* ---------------------------------------------------------------- names */

enum tp_dm_role {
	TP_DM_ROLE_THIN,	/* a thin volume or snapshot: <pool>-<vol>, thin<id> */
	TP_DM_ROLE_POOL,	/* the thin-pool target: <pool>-tpool */
	TP_DM_ROLE_TMETA,	/* linear over the thin metadata area */
	TP_DM_ROLE_TDATA,	/* linear over the data area */
	/* an unlocked encrypted volume: the dm-crypt device over its thin
	 * device, <pool>-<vol>, uuid crypt<dev_id>; its thin device is then
	 * <pool>-<vol>-luks (tp_dm_luks_name), uuid thin<dev_id> */
	TP_DM_ROLE_CRYPT,
};

/* "<pool>-<vol>" (VOL used only for TP_DM_ROLE_THIN and _CRYPT) with '-' doubled
 * inside each part. -EINVAL for empty names, ".", "..", names with '/' or
 * whitespace or a leading '-' (the split would be ambiguous);
 * -ENAMETOOLONG if it does not fit LEN or TP_DM_NAME_MAX. */
int tp_dm_name(char *buf, size_t len, const char *pool, enum tp_dm_role role, const char *vol)
	TP_MUST_CHECK;

/* The hidden thin device of an encrypted volume: "<pool>-<vol>-luks" (the
 * name of VOL with LVM's layer suffix, so `dmsetup splitname` gives the
 * layer "luks" and udev keeps it out of /dev/<pool>). */
int tp_dm_luks_name(char *buf, size_t len, const char *pool, const char *vol) TP_MUST_CHECK;
/* true for a dm name made by tp_dm_luks_name */
bool tp_dm_name_is_luks(const char *name);

/* "TPTOOLS-<pool_uuid>-<role>" (DEV_ID used only for TP_DM_ROLE_THIN and
 * TP_DM_ROLE_CRYPT). */
int tp_dm_uuid(char *buf, size_t len, const char *pool_uuid, enum tp_dm_role role,
	       uint32_t dev_id) TP_MUST_CHECK;

/* Split one of our uuids: the pool uuid into POOL_UUID, role and dev_id.
 * -EINVAL when UUID is not ours or malformed. */
int tp_dm_uuid_parse(const char *uuid, char *pool_uuid, size_t len, enum tp_dm_role *role,
		     uint32_t *dev_id) TP_MUST_CHECK;

/* true for volume names that collide with internal device names */
bool tp_dm_vol_name_reserved(const char *vol);

/* /dev/mapper/<dm name> */
int tp_dm_path(char *buf, size_t len, const char *dm_name) TP_MUST_CHECK;

/* --------------------------------------------------------------- tables */

struct tp_dm_target {
	uint64_t start;		/* sectors */
	uint64_t length;	/* sectors */
	char type[TP_DM_TYPE_MAX];
	char params[TP_DM_PARAMS_MAX];
};

/* linear over a byte range of DEV: OFFSET and LENGTH must be multiples of
 * 512 and LENGTH > 0 (-EINVAL otherwise). START is in sectors. */
int tp_dm_linear(struct tp_dm_target *t, uint64_t start, const char *dev, uint64_t offset,
		 uint64_t length) TP_MUST_CHECK;

enum tp_dm_pool_feature {
	TP_DM_SKIP_BLOCK_ZEROING = 1u << 0,
	TP_DM_IGNORE_DISCARD = 1u << 1,
	TP_DM_NO_DISCARD_PASSDOWN = 1u << 2,
	TP_DM_POOL_READ_ONLY = 1u << 3,
	TP_DM_ERROR_IF_NO_SPACE = 1u << 4,
};

struct tp_dm_pool_params {
	const char *meta_dev;		/* "major:minor" or path */
	const char *data_dev;
	uint32_t block_sectors;		/* data block size: 128..2097152, multiple of 128 */
	uint64_t low_water_blocks;	/* free data blocks left when the event fires */
	unsigned features;		/* enum tp_dm_pool_feature */
};

/* thin-pool over DATA_SECTORS (rounded down to whole blocks by the caller:
 * -EINVAL if not a multiple of the block size, or 0). -EINVAL for a bad
 * block size, equal metadata and data devices, or ignore_discard together
 * with no_discard_passdown (the kernel allows at most 4 feature args). */
int tp_dm_thin_pool(struct tp_dm_target *t, uint64_t data_sectors,
		    const struct tp_dm_pool_params *p) TP_MUST_CHECK;

/* thin device DEV_ID of POOL_DEV, LENGTH sectors; ORIGIN (external origin,
 * read-only) may be NULL. */
int tp_dm_thin(struct tp_dm_target *t, uint64_t length, const char *pool_dev, uint32_t dev_id,
	       const char *origin) TP_MUST_CHECK;

/* --------------------------------------------------------------- status */

enum tp_dm_pool_mode {
	TP_DM_MODE_UNKNOWN = 0,	/* field absent (older kernel) */
	TP_DM_MODE_RW,
	TP_DM_MODE_RO,
	TP_DM_MODE_OUT_OF_DATA,
};

enum tp_dm_discard {
	TP_DM_DISCARD_UNKNOWN = 0,
	TP_DM_DISCARD_PASSDOWN,
	TP_DM_DISCARD_NO_PASSDOWN,
	TP_DM_DISCARD_IGNORE,
};

struct tp_dm_pool_status {
	bool fail;			/* the line was "Fail": the pool failed */
	bool error;			/* "Error": the kernel could not read its metadata */
	unsigned nfields;		/* fields present (older kernels: fewer) */
	uint64_t transaction_id;
	uint64_t used_meta_blocks;	/* 4 KiB blocks, reserve included */
	uint64_t total_meta_blocks;
	uint64_t used_data_blocks;	/* data blocks */
	uint64_t total_data_blocks;
	bool has_held_root;
	uint64_t held_root;		/* metadata snapshot block */
	enum tp_dm_pool_mode mode;
	enum tp_dm_discard discard;
	bool error_if_no_space;		/* valid when nfields >= 7 */
	bool needs_check;		/* valid when nfields >= 8 */
	bool has_meta_low_water;
	uint64_t meta_low_water;	/* 4 KiB blocks */
};

struct tp_dm_thin_status {
	bool fail;			/* "Fail": its pool failed */
	bool inactive;			/* "-": not opened by the target */
	uint64_t mapped_sectors;
	bool has_highest;
	uint64_t highest_sector;	/* highest mapped sector, valid if has_highest */
};

/* Parse the params part of one status line (after "<start> <len> <type>").
 * Tolerates missing trailing fields; -EPROTO for garbage (logged). */
int tp_dm_parse_pool_status(const char *params, struct tp_dm_pool_status *st) TP_MUST_CHECK;
int tp_dm_parse_thin_status(const char *params, struct tp_dm_thin_status *st) TP_MUST_CHECK;

/* -------------------------------------------------- kernel: availability */

/* 0 when device-mapper with the thin-pool, thin and linear targets (and a
 * thin-pool version >= TP_DM_THIN_POOL_MIN_*) is usable; else -ENODEV,
 * -EOPNOTSUPP or -EACCES with a sentence in WHY (nothing logged). Loads
 * dm-thin-pool with modprobe when it is not loaded yet (as root). */
int tp_dm_check_available(char *why, size_t len) TP_MUST_CHECK;

/* Version of a loaded target: -ENOENT if the kernel has no such target,
 * -ENODEV without device-mapper. */
int tp_dm_target_version(const char *target, uint32_t version[3]) TP_MUST_CHECK;

/* ---------------------------------------------------- kernel: devices */

enum tp_dm_flags {
	TP_DM_INTERNAL = 1u << 0,	/* udev: other rules keep off (pool, tmeta, tdata) */
	TP_DM_READ_ONLY = 1u << 1,	/* create/load the table read-only */
	TP_DM_NOFLUSH = 1u << 2,	/* suspend/status without flushing (queued I/O stays) */
	TP_DM_NOLOCKFS = 1u << 3,	/* suspend without freezing a filesystem on top */
	/* the table holds a key (dm-crypt): libdevmapper wipes its ioctl
	 * buffers (dm_task_secure_data), our debug log leaves the params out */
	TP_DM_SECURE = 1u << 4,
	/* tp_dm_vol_activate: load the volume as the hidden thin device of an
	 * encrypted volume (tp_dm_luks_name, TP_DM_INTERNAL) */
	TP_DM_VOL_LUKS = 1u << 5,
};

struct tp_dm_info {
	uint32_t major, minor;
	int32_t open_count;
	uint32_t target_count;
	uint32_t event_nr;
	bool suspended;
	bool live_table;
	bool inactive_table;
	bool read_only;
	char uuid[TP_DM_UUID_MAX];
};

/* Create NAME with UUID (may be NULL) and TABLE, and make it live (create,
 * load, resume: three ioctls, so a failure carries the kernel's errno);
 * on failure nothing is left behind. -EEXIST if NAME or UUID is in use;
 * a table the kernel refuses gives its errno (-EINVAL mostly; -ENODATA
 * for a thin id the pool does not have). FLAGS: TP_DM_INTERNAL,
 * TP_DM_READ_ONLY. */
int tp_dm_create(const char *name, const char *uuid, const struct tp_dm_target *table,
		 unsigned n, unsigned flags) TP_MUST_CHECK;

/* Load TABLE as NAME's inactive table; tp_dm_resume() makes it live. */
int tp_dm_load(const char *name, const struct tp_dm_target *table, unsigned n,
	       unsigned flags) TP_MUST_CHECK;

/* FLAGS: TP_DM_NOFLUSH, TP_DM_NOLOCKFS. */
int tp_dm_suspend(const char *name, unsigned flags) TP_MUST_CHECK;
int tp_dm_resume(const char *name) TP_MUST_CHECK;

/* Remove NAME (retrying briefly while it is open, e.g. by a udev probe):
 * -ENXIO if it does not exist (not logged), -EBUSY if still open. */
int tp_dm_remove(const char *name) TP_MUST_CHECK;

/* -ENXIO if NAME does not exist (not logged: callers ask to find out). */
int tp_dm_info(const char *name, struct tp_dm_info *info) TP_MUST_CHECK;
/* The size of dm device NAME in sectors, as sysfs gives it: 0, or
 * tp_dm_info's error, or -errno reading sysfs (-EIO: unreadable). */
int tp_dm_dev_sectors(const char *name, uint64_t *sectors) TP_MUST_CHECK;

/* "major:minor" of an existing device, for use in another table. */
int tp_dm_devno(const char *name, char *buf, size_t len) TP_MUST_CHECK;

/* Raw status (or, with TABLE true, table) line of a one-target device:
 * TYPE and PARAMS of its first target. FLAGS: TP_DM_NOFLUSH, TP_DM_SECURE
 * (a dm-crypt table: the key is in PARAMS, which the caller wipes). */
int tp_dm_target_line(const char *name, bool table, unsigned flags, char *type, size_t type_len,
		      char *params, size_t params_len) TP_MUST_CHECK;

/* Status of a thin-pool / thin device, parsed. -EINVAL if NAME is not of
 * that type. A pool status commits the pool's metadata unless FLAGS has
 * TP_DM_NOFLUSH. */
int tp_dm_pool_status(const char *name, unsigned flags, struct tp_dm_pool_status *st)
	TP_MUST_CHECK;
int tp_dm_thin_status(const char *name, struct tp_dm_thin_status *st) TP_MUST_CHECK;

/* Call FN for every dm device whose uuid starts with UUID_PREFIX (e.g.
 * "TPTOOLS-<pool uuid>-"), in the kernel's order; stops at FN's first
 * non-zero return and passes it up. A kernel without device-mapper has no
 * devices: 0, FN never called, nothing logged. */
int tp_dm_list(const char *uuid_prefix,
	       int (*fn)(const char *name, const char *uuid, void *arg), void *arg) TP_MUST_CHECK;
/* One device of a list: its name, uuid ("" for none) and device number. */
struct tp_dm_listed {
	const char *name;
	const char *uuid;
	uint32_t major, minor;
};
/* tp_dm_list with the device numbers. Both take the uuids from the one
 * DM_DEVICE_LIST they issue (a kernel of interface 4.45 on, Linux 5.13);
 * an older kernel's devices are asked one by one (DM_DEV_STATUS each). */
int tp_dm_list_devs(const char *uuid_prefix, int (*fn)(const struct tp_dm_listed *d, void *arg),
		    void *arg) TP_MUST_CHECK;

/* --------------------------------------------------- pool messages */

/* Send MSG to sector 0 of the pool device POOL (a dm name). */
int tp_dm_message(const char *pool, const char *msg) TP_MUST_CHECK;

int tp_dm_create_thin(const char *pool, uint32_t dev_id) TP_MUST_CHECK;
/* The origin must be suspended (or not active) around this call. */
int tp_dm_create_snap(const char *pool, uint32_t dev_id, uint32_t origin_id) TP_MUST_CHECK;
/* -EBUSY while the thin device is active. */
int tp_dm_delete_thin(const char *pool, uint32_t dev_id) TP_MUST_CHECK;
/* Compare-and-swap: -EINVAL when the pool's id is not CUR. */
int tp_dm_set_transaction_id(const char *pool, uint64_t cur, uint64_t next) TP_MUST_CHECK;
int tp_dm_reserve_metadata_snap(const char *pool) TP_MUST_CHECK;
int tp_dm_release_metadata_snap(const char *pool) TP_MUST_CHECK;

/* ------------------------------------------ pool stacks (dm_pool.c) */

/* Where a pool's areas lie (bytes) and how its thin-pool target runs. */
/* One piece of a data device made of several (a pool over several data
 * devices): LENGTH bytes of DEV from OFFSET, multiples of 512. */
#define TP_DM_DATA_SEGS_MAX 8
struct tp_dm_data_seg {
	const char *dev;
	uint64_t offset, length;
};

struct tp_dm_pool_layout {
	const char *pool;		/* pool name */
	const char *pool_uuid;
	const char *meta_dev;		/* holds the thin metadata area: path or "major:minor" */
	uint64_t meta_offset;		/* multiples of 512 */
	uint64_t meta_length;
	const char *data_dev;		/* holds the data area */
	uint64_t data_offset;
	uint64_t data_length;		/* a multiple of the data block size */
	uint32_t block_sectors;		/* data block size */
	uint64_t low_water_blocks;
	unsigned features;		/* enum tp_dm_pool_feature */
	/* 0: the data device is linear over data_dev alone; else linear over
	 * these pieces in order (data_dev, data_offset unused), whose lengths
	 * add up to data_length */
	unsigned nr_data_segs;
	struct tp_dm_data_seg data_seg[TP_DM_DATA_SEGS_MAX];
	/* mirrored thin metadata (dm_mirror.c): tmeta is the kernel's raid1
	 * over <tmeta>-leg0 and <tmeta>-leg1, each linear over META_LEG[i] at
	 * meta_offset (the legs are laid out alike), leg I in the raid
	 * table's place I; a NULL leg is missing or out of step ("- -": the
	 * raid1 runs degraded). meta_dev unused then. */
	int meta_mirror;
	const char *meta_leg[2];
	/* each leg's raid metadata (dm-raid superblock and bitmap): linear
	 * <tmeta>-rmeta0/1 over META_LEG[i] at raid_meta_offset */
	uint64_t raid_meta_offset, raid_meta_length;
	/* I + 1: leg I's raid metadata is zeroed while the other's is not (a
	 * leg put in offline by a replace): the set is created with
	 * "rebuild I", as the kernel wants for a new device in an existing
	 * set; 0: none */
	int meta_rebuild;
	/* dm-integrity under each leg (vg.h integrity_*): <tmeta>-legI is an
	 * integrity target over <tmeta>-iorigI (linear over META_LEG[i] at
	 * meta_offset, the area) with <tmeta>-imetaI (linear over
	 * META_LEG[i] at imeta_offset, imeta_length bytes) as its separate
	 * metadata device; 0: the legs are linear over the areas */
	uint64_t imeta_offset, imeta_length;
};

/* The integrity status of a leg (dm_mirror.c): the tag mismatches found
 * since the table was loaded (each a bad read the raid1 took from the
 * other leg and rewrote), the sectors it provides, and how far the
 * recalculation of a new integrity superblock's tags got (RECALC =
 * PROVIDED when done or none under way). */
struct tp_dm_integrity_status {
	uint64_t mismatches, provided, recalc;
};
int tp_dm_parse_integrity_status(const char *params, struct tp_dm_integrity_status *st)
	TP_MUST_CHECK;
/* Leg LEG of the mirrored tmeta of pool POOL: -ENOENT when it is no
 * integrity device (a pool without integrity, or the leg not there). */
int tp_dm_meta_leg_integrity(const char *pool, unsigned leg, struct tp_dm_integrity_status *st)
	TP_MUST_CHECK;

/* The raid1 status of a mirrored tmeta (dm_mirror.c): each leg's health
 * character in the raid table's order ('A' in sync, 'a' not yet in sync,
 * 'D' failed), the sync ratio's two numbers and the sync action. */
struct tp_dm_raid_status {
	unsigned nr_devs;
	char health[8];
	uint64_t sync_done, sync_total;
	char action[16];
	/* the blocks a "check" found different between the legs (md's
	 * mismatch_cnt), when the kernel says (else 0) */
	uint64_t mismatches;
};
int tp_dm_parse_raid_status(const char *params, struct tp_dm_raid_status *st) TP_MUST_CHECK;
int tp_dm_raid_status(const char *name, struct tp_dm_raid_status *st) TP_MUST_CHECK;
/* The table of a mirrored tmeta for L over the leg devices LEG with their
 * raid metadata devices RMETA ("major:minor" or paths; LEG "" for a
 * missing leg: "- -"): raid1; REBUILD >= 0: that leg is rebuilt from the
 * other (its old content is not read). */
int tp_dm_raid1_table(const struct tp_dm_pool_layout *l, const char rmeta[2][TP_DM_NAME_MAX],
		      const char leg[2][TP_DM_NAME_MAX], int rebuild, struct tp_dm_target *t)
	TP_MUST_CHECK;
/* Make tmeta (NAME) for L: linear, or the legs and the raid1 over them. */
int tp_dm_meta_create(const struct tp_dm_pool_layout *l, const char *name) TP_MUST_CHECK;
/* Remove the legs of tmeta NAME and their raid metadata devices (after
 * NAME itself); absent ones are skipped. */
int tp_dm_meta_legs_remove(const char *name) TP_MUST_CHECK;
/* Live: give leg I of mirrored tmeta L a new device (L's meta_leg[I]) and
 * reload the raid1 with leg I to rebuild from the other (the pool keeps
 * running on top: its metadata I/O waits while tmeta is suspended). */
int tp_dm_meta_replace_leg(const struct tp_dm_pool_layout *l, unsigned i) TP_MUST_CHECK;
/* Live: mirror the running linear tmeta of L (now meta_mirror, both legs,
 * leg 0 the device the linear table mapped): both legs' devices made,
 * then tmeta reloaded as the raid1 over them with leg 1 to rebuild from
 * leg 0; the legs removed again when the kernel refuses the table. */
int tp_dm_meta_mirror_live(const struct tp_dm_pool_layout *l) TP_MUST_CHECK;
/* Live, the pool above suspended: grow mirrored tmeta TMETA (its name) to
 * L's meta_length: the legs' linear devices, then the raid1 over the legs
 * in use (md grows the set on resume and resyncs the new part). */
int tp_dm_meta_mirror_grow(const struct tp_dm_pool_layout *l, const char *tmeta) TP_MUST_CHECK;

/* Make <pool>-tmeta and <pool>-tdata (linear over the areas) and
 * <pool>-tpool (thin-pool over them) live, all TP_DM_INTERNAL. A zeroed
 * metadata area is formatted by the kernel. On failure removes what it
 * made and returns the error (-ENODEV / -EOPNOTSUPP: no device-mapper or
 * no thin-pool target, logged with tp_dm_check_available's reason, nothing
 * touched; -EEXIST: the pool, or a piece of it, is active already;
 * -EINVAL: bad layout or the kernel refused the table; metadata the kernel
 * cannot read gives whatever errno its constructor chose: ENOTBLK on 6.1,
 * so check metadata before activating rather than decode this). */
int tp_dm_pool_activate(const struct tp_dm_pool_layout *l) TP_MUST_CHECK;

/* The table of <pool>-tdata for L: one linear target, or one per piece
 * (dm_table.c). T has room for TP_DM_DATA_SEGS_MAX; *N gets the count.
 * -EINVAL for a bad piece. */
int tp_dm_pool_data_table(const struct tp_dm_pool_layout *l, struct tp_dm_target *t,
			  unsigned *n) TP_MUST_CHECK;

/* Remove <pool>-tpool, -tdata, -tmeta (pieces already gone are skipped, so
 * a half-made stack can be cleaned up). -EBUSY, nothing removed, while a
 * volume of the pool is active (the pool is open). Removing the pool
 * commits its metadata. */
int tp_dm_pool_deactivate(const char *pool) TP_MUST_CHECK;

/* What device-mapper has loaded of the pool with uuid POOL_UUID, found by
 * our dm uuids "TPTOOLS-<pool uuid>-<role>" whatever the devices' names
 * (dm_pool_find.c). */
#define TP_DM_POOL_SUSPENDED_MAX 8
struct tp_dm_pool_devs {
	bool have_dm;			/* false: this host has no device-mapper */
	char tpool[TP_DM_NAME_MAX];	/* the thin-pool device's name, "" if none */
	char tmeta[TP_DM_NAME_MAX];	/* "" if none */
	char tdata[TP_DM_NAME_MAX];	/* "" if none */
	unsigned nr_thin;		/* thin volumes loaded */
	unsigned nr_suspended;		/* of these pieces, suspended (names below) */
	char suspended[TP_DM_POOL_SUSPENDED_MAX][TP_DM_NAME_MAX];
};

/* Fill *D. A host without device-mapper (no dm-mod, no control node) has
 * nothing loaded: 0 with D->have_dm false. Device-mapper present but not
 * answering (no permission, an unusable control node, a failed ioctl):
 * -errno with a sentence in WHY (nothing else logged), never "none
 * loaded": callers must refuse rather than guess. */
int tp_dm_pool_find(const char *pool_uuid, struct tp_dm_pool_devs *d, char *why, size_t len)
	TP_MUST_CHECK;

/* 1 when <pool>-tpool exists, 0 when not (also on a kernel without
 * device-mapper, silently: offline commands ask this), or -errno. */
int tp_dm_pool_is_active(const char *pool) TP_MUST_CHECK;

/* Reload the stack of active pool L->pool with layout L (dm_resize.c):
 * tmeta and tdata over their (grown) areas, the pool with L's length and
 * features; the kernel grows its space maps on the resume. The pool's
 * data area never shrinks (-EINVAL, logged). On failure the old pool
 * table is live again (logged, with the kernel's errno). */
int tp_dm_pool_reload(const struct tp_dm_pool_layout *l) TP_MUST_CHECK;

/* Give active volume VOL of POOL (thin id DEV_ID) a table of SECTORS
 * (dm_resize.c): load, suspend (flushed, a filesystem frozen), resume.
 * -ENXIO when it is not active; a failed load leaves the old table. */
int tp_dm_vol_reload(const char *pool, const char *vol, uint32_t dev_id, uint64_t sectors)
	TP_MUST_CHECK;

/* Wait for the next event of dm device NAME (DM_DEVICE_WAITEVENT, as
 * dmeventd): returns once its event counter differs from EVENT_NR (at
 * once if it does already), with the counter in *NEXT. -EINTR (not
 * logged) when a signal interrupted the wait, -ENXIO when NAME is gone
 * (dm_event.c). */
int tp_dm_wait_event(const char *name, uint32_t event_nr, uint32_t *next) TP_MUST_CHECK;

/* Make volume VOL (thin id DEV_ID, SECTORS long) of the active pool live
 * as <pool>-<vol> with uuid thin<DEV_ID>. FLAGS: TP_DM_READ_ONLY.
 * -ENXIO (logged) when the pool is not active; -EEXIST (not logged) when
 * VOL is active already; -ENODATA when the pool has no thin device DEV_ID
 * (the kernel's answer). */
int tp_dm_vol_activate(const char *pool, const char *pool_uuid, const char *vol,
		       uint32_t dev_id, uint64_t sectors, unsigned flags) TP_MUST_CHECK;

/* Remove <pool>-<vol>: -ENXIO (not logged) when not active, -EBUSY when
 * open. */
int tp_dm_vol_deactivate(const char *pool, const char *vol) TP_MUST_CHECK;

/* Live snapshot: suspend ORIGIN_VOL when it is active (NULL: origin not
 * active), send create_snap DEV_ID ORIGIN_ID, resume the origin whatever
 * happened. Returns the message's error, else the resume's. */
int tp_dm_snapshot(const char *pool, const char *origin_vol, uint32_t dev_id,
		   uint32_t origin_id) TP_MUST_CHECK;

/* ------------------------------------- encrypted volumes (dm_crypt.c) */

enum tp_dm_crypt_feature {
	TP_DM_CRYPT_ALLOW_DISCARDS = 1u << 0,	/* "allow_discards" */
	TP_DM_CRYPT_SAME_CPU = 1u << 1,		/* "same_cpu_crypt" */
	TP_DM_CRYPT_SUBMIT_FROM_CPUS = 1u << 2,	/* "submit_from_crypt_cpus" */
	TP_DM_CRYPT_NO_READ_WORKQUEUE = 1u << 3,
	TP_DM_CRYPT_NO_WRITE_WORKQUEUE = 1u << 4,
};

/* A dm-crypt table, from a LUKS2 header (libcryptsetup's crypt_get_*). */
struct tp_dm_crypt {
	const char *cipher;		/* "<cipher>-<mode>", e.g. "aes-xts-plain64" */
	const unsigned char *key;	/* the volume key */
	size_t key_size;		/* bytes; 0: cipher_null ("-") */
	uint64_t iv_offset;		/* sectors */
	const char *dev;		/* "major:minor" or path (tp_dm_crypt_open fills it) */
	uint64_t offset;		/* sectors: the payload's start on DEV */
	uint64_t length;		/* sectors of payload */
	uint32_t sector_size;		/* encryption sector: 512 (or 0) .. 4096 */
	unsigned features;		/* enum tp_dm_crypt_feature */
};

/* The crypt table line for C into T (pure; the key as hex in T->params:
 * the caller wipes T). -EINVAL for a bad cipher word, device, length,
 * sector size (a power of two in 512..4096 that divides LENGTH and
 * IV_OFFSET) or unknown feature; -ENAMETOOLONG when it does not fit. */
int tp_dm_crypt_table(struct tp_dm_target *t, const struct tp_dm_crypt *c) TP_MUST_CHECK;

/* Stack the dm-crypt device of volume VOL (thin id DEV_ID) of POOL on its
 * hidden thin device <pool>-<vol>-luks (loaded by tp_dm_vol_activate with
 * TP_DM_VOL_LUKS): <pool>-<vol>, uuid crypt<DEV_ID>, table C (C->dev is
 * ignored: the thin device's). FLAGS: TP_DM_READ_ONLY. The table's
 * buffers, libdevmapper's too, are wiped. -EEXIST (not logged) when VOL is
 * unlocked already; -ENXIO (logged) when its thin device is not loaded. */
int tp_dm_crypt_open(const char *pool, const char *pool_uuid, const char *vol, uint32_t dev_id,
		     const struct tp_dm_crypt *c, unsigned flags) TP_MUST_CHECK;

/* Give the dm-crypt device NAME the payload of a thin device of
 * THIN_SECTORS (its table again, key and all, with the new length):
 * load, suspend, resume. */
int tp_dm_crypt_resize(const char *name, uint64_t thin_sectors) TP_MUST_CHECK;

#endif
