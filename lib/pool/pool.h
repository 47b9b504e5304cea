/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool.h - the engine API the commands call: pools and thin volumes.
 *
 * Owns: an open pool (struct pool): its devices (the metadata device, a
 * mirror's second leg, up to 8 data devices), their labels, the VG
 * model read from the newest valid VG metadata copy, the thin metadata of
 * the ACTIVE area, and the pool lock. Also the transaction-id protocol
 * that keeps the VG metadata and the thin metadata in step.
 *
 * Finding a pool: by name through the devices file (lib/pool/host/host.h);
 * when an entry is missing or stale, every block device (libudev, through
 * lib/dev/scan.h) is probed for our label, and the devices file is put
 * right. `devices` (the --devices option: "A,B") names the devices
 * explicitly instead (image files included) and records them.
 *
 * The transaction-id protocol (one change = one VG commit + one thin
 * transaction, the VG first, like LVM's pool messages):
 *   1. VG metadata says transaction_id T and thin metadata says T: in step.
 *   2. A change writes the VG with the new state and T+1 (the VG is the
 *      journal of intent), then applies the change to the thin metadata,
 *      sets its transaction id T -> T+1 and commits it.
 *   3. A crash between the two leaves VG = T+1, thin = T. The next command
 *      that opens the pool for writing sees this, replays the difference
 *      (creates the thin devices and snapshots the VG lists but the thin
 *      metadata lacks, deletes those the VG no longer lists), sets T+1,
 *      commits, and says what it completed. A read-only open reports it.
 *   4. Any other difference (thin ahead of the VG, or behind by more than
 *      one) is not guessed at: -EUCLEAN with a message pointing at tpcheck.
 *   If the thin part of a change fails (e.g. metadata full), the thin
 *   transaction is aborted and the VG commit is undone by a second commit
 *   of the previous state, so nothing half-done stays.
 *
 * Errors: 0 or -errno, logged once where found with the object's name and
 * what to do next. -EINVAL/-ERANGE: the caller's input (exit 3); -ENOENT:
 * no such pool or volume; -EEXIST: name taken; -EBUSY: in use; -EUCLEAN:
 * damaged metadata; -ENOSPC: a device or the pool is too small/full. */
#ifndef TP_POOL_POOL_H
#define TP_POOL_POOL_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "lib/pool/policy.h"

struct pool;

/* lib/pool's own names for what the tools set and print; the values are
 * those of the VG metadata (checked in pool_info.c). */
#define POOL_NAME_MAX 64	/* bytes of a pool or volume name */
#define POOL_UUID_LEN 36	/* string length, without the NUL */
#define POOL_SYSID_MAX 128		/* a system id (tptools.conf(5)) */

enum pool_discards {
	POOL_DISCARDS_IGNORE = 0,
	POOL_DISCARDS_NOPASSDOWN,
	POOL_DISCARDS_PASSDOWN,
};

enum pool_when_full {
	POOL_WHEN_FULL_QUEUE = 0,
	POOL_WHEN_FULL_ERROR,
};

enum pool_role {
	POOL_ROLE_DATA = 0,
	POOL_ROLE_META = 1,
};

/* ---- monitoring policy (pool_watch.c), kept in the VG ---- */

#define POOL_WARN_DEFAULT 80u		/* percent */
#define POOL_AUTOEXTEND_OFF 100u	/* autoextend_threshold: never grow */
#define POOL_AUTOEXTEND_MIN 50u		/* lowest autoextend_threshold (as LVM) */
#define POOL_AUTOEXTEND_PERCENT_MAX 1000u
#define POOL_DEVICE_PATH_MAX 1023u	/* a device path kept in the VG */

struct pool_monitor_policy {
	unsigned warn;			/* percent used warned about (data, metadata); 0 = never */
	unsigned autoextend_threshold;	/* percent used that grows the pool; 100 = off */
	unsigned autoextend_percent;	/* grow by this percent of the area, or ... */
	uint64_t autoextend_size;	/* ... by these bytes (data; one of the two is 0) */
	uint64_t autoextend_max;	/* bytes: the data area is never grown past; 0 = no cap */
	/* added as a data device (live tpextend --data) when the data devices
	 * have no room to grow; absolute path, "" = none */
	char autoextend_device[POOL_DEVICE_PATH_MAX + 1];
};

/* The defaults: warn 80, no autoextension, by 20%. */
void pool_monitor_policy_default(struct pool_monitor_policy *m);

/* ---- the over-provisioning limit (core/pool_provision.c), kept in the VG ----
 *
 * The sum of the volumes' virtual sizes (snapshots and unfinished
 * receives included) may be at most this percent of the data area (100:
 * no over-provisioning); 0 = unlimited, as in pools made before it. Every
 * change that would raise the sum above it is refused before anything is
 * written: -EDQUOT, logged with the figures and what to do. */
#define POOL_OVERPROVISION_MAX 100000000u
/* Make PERCENT P's limit (0: none): one VG commit; a pool already above
 * the new limit is said (a warning: it keeps what it has, and no volume
 * grows until it is back under). */
int pool_set_max_overprovision(struct pool *p, unsigned percent) TP_MUST_CHECK;

/* ---- the VG metadata's format (admin/pool_format.c) ----
 *
 * 1: every change writes the whole VG text (pools made before format 2);
 * 2: a change appends a record of what changed after a checkpoint
 * (metadata/vg/mda.h), what tpcreate makes; a tptools of format 1 refuses
 * the pool. The change of format is one VG commit that changes nothing
 * else (tpchange gives it alone): with format 2 it writes the checkpoint
 * into both slots of each device, so no copy of format 1 is left that an
 * older tptools could fall back to. 0 or -errno (-EINVAL: no format of
 * this tptools). */
unsigned pool_metadata_format(const struct pool *p);
int pool_set_metadata_format(struct pool *p, unsigned format) TP_MUST_CHECK;

/* ---- create ---- */

struct pool_create_params {
	const char *name;
	const char *data_path;
	const char *meta_path;
	/* a second metadata device (tpcreate --meta DEV1,DEV2): the thin
	 * metadata mirrored onto it, laid out as META_PATH; NULL for none */
	const char *meta1_path;
	uint64_t chunk;			/* bytes; 0 = auto */
	enum tp_profile profile;	/* the auto chunk's and zeroing's aim */
	enum tp_choice zero;
	uint64_t metadata_size;		/* bytes; 0 = auto */
	enum pool_discards discards;	/* only when discards_set */
	int discards_set;
	enum pool_when_full when_full;
	int force;			/* override signature checks */
	int no_autoactivate;		/* flag the pool "activate n" (see below) */
	const struct pool_monitor_policy *monitor;	/* NULL: the defaults */
	unsigned max_overprovision;	/* percent (POOL_OVERPROVISION_MAX); 0 = unlimited */
	uint64_t trash_retention;	/* seconds tvremove keeps a removed volume; 0 = off */
	/* --lock-type sanlock: a pool on shared storage, written by one host
	 * at a time (a sanlock lease area on the metadata device, formatted
	 * through this host's sanlock daemon, which must run: without it
	 * nothing is written, -ENOTCONN); IO_TIMEOUT sanlock's, seconds */
	int shared;
	unsigned io_timeout;
	/* with META1_PATH: dm-integrity under each leg of the kernel's raid1
	 * (tpcreate --meta-integrity y, the default; 1 here), its metadata
	 * behind the VG area of both metadata devices (vg.h: integrity_*) */
	int meta_integrity;
	/* tpcreate --vg-area: the room for the label and the VG metadata area
	 * at the start of every device, bytes (mda.h: the span; a multiple of
	 * 64 KiB, vg_area_span_valid); 0 = auto (vg_area_span_auto on the
	 * smallest device) */
	uint64_t vg_area;
};

/* The bytes of a pool's lease area, and its place on a new pool's
 * metadata device (behind the VG area, before the thin metadata). */
#define POOL_LEASE_AREA_BYTES (2u * 1024u * 1024u)
#define POOL_LEASE_OFFSET (1024u * 1024u)

/* What tpcreate decided (for --explain and the summary). */
struct pool_create_plan {
	uint64_t meta1_dev_size;	/* bytes of the second metadata device, or 0 */
	struct tp_topology topo;
	char topo_desc[256];		/* the geometry in words (--explain) */
	char stripe_reason[TP_REASON_LEN];
	struct tp_policy_plan policy;
	uint64_t data_dev_size, meta_dev_size;
	uint64_t data_area_size;	/* whole chunks only */
	uint64_t mda_offset, mda_size;	/* the VG metadata area on each device, bytes */
	/* the span (pool_create_params.vg_area) decided, how, and the text one
	 * slot of the area holds (on a mirror's metadata devices: their own
	 * smaller area's, the pool's limit) */
	uint64_t vg_area, vg_area_text;
	char vg_area_reason[256];
	unsigned nr_signatures;		/* found on the devices (refused unless force) */
	/* one description per device ("" if none): data, meta, the second
	 * metadata device */
	char signatures[3][256];
	uint64_t lease_offset;		/* shared: the lease area on the meta device */
	/* mirrored with integrity: the two integrity metadata regions on each
	 * metadata device, for thin-metadata areas up to INTEGRITY_COVER */
	uint64_t integrity_offset, integrity_size, integrity_cover;
};

/* How many volumes a VG area slot of TEXT bytes (plan.vg_area_text,
 * pool_info.vg_area_size) holds besides the pool's own text: of the
 * largest VG text a volume can have (WORST), or of the measured average
 * (about 104 bytes). */
uint64_t pool_vg_area_volumes(uint64_t text, int worst);

/* Check the devices and decide the geometry without writing anything.
 * -EINVAL for bad input, -ENOSPC for too-small devices, -EBUSY when a
 * device carries a signature (and !force) or belongs to another pool. */
int pool_plan(const struct pool_create_params *p, struct pool_create_plan *plan) TP_MUST_CHECK;
/* Create the pool as planned: thin metadata formatted in the active area,
 * labels, VG metadata on every device, devices file, backup. */
int pool_create(const struct pool_create_params *p, const struct pool_create_plan *plan)
	TP_MUST_CHECK;

/* ---- types the core shares with the face's other headers ---- */

/* Whose a device's tptools label is (pool_admin.h: pool_label_inspect;
 * the core's pool_label_owner). */
enum pool_label_kind {
	POOL_LABEL_NONE = 0,	/* no tptools label */
	POOL_LABEL_DAMAGED,	/* our magic, but the label is corrupt */
	POOL_LABEL_MEMBER,	/* its pool's current VG names it */
	POOL_LABEL_ORPHAN,	/* its pool is there and does not name it */
	POOL_LABEL_AHEAD,	/* ... but its own VG copy is newer (no orphan) */
	POOL_LABEL_GONE,	/* no other device of its pool is known */
	POOL_LABEL_UNKNOWN,	/* its pool is known but cannot be read whole */
};

/* What tpextend did and found. */
struct pool_extend_result {
	uint64_t old_data_size, new_data_size;	/* bytes, whole chunks */
	uint64_t old_meta_size, new_meta_size;	/* bytes of one thin-metadata area */
	uint64_t data_dev_size;			/* bytes, the data device now */
	uint64_t chunk;				/* bytes */
	int stripe_changed;	/* the data device's stripe no longer fits the chunk */
	char stripe[512];	/* what changed and what the chunk now costs (--explain) */
	char topo_desc[256];	/* the data device's geometry in words */
};

/* ---- open / close ---- */

enum pool_open_flags {
	POOL_RDONLY = 1 << 0,	/* shared lock, no writes, no repairs */
	/* --allow-component: --devices may name a component of another
	 * block device (an md member, ...), with a warning; for recovery
	 * only. Never recorded in the devices file. */
	POOL_ALLOW_COMPONENT = 1 << 1,
	/* A pool another host owns (its VG's system id is not this host's,
	 * tptools.conf(5)) is refused with -EREMOTE (logged: whose it is and
	 * how it is handed over) before anything is written. FOREIGN_OK:
	 * open it anyway (tpstatus lists it; pool_is_foreign says so; with a
	 * writer, tpchange --foreign --force taking it over). FOREIGN_QUIET:
	 * -EREMOTE without a word (autoactivation passes it by). */
	POOL_FOREIGN_OK = 1 << 2,
	POOL_FOREIGN_QUIET = 1 << 3,
	/* A shared pool (its VG has a lock: tpcreate --lock-type sanlock):
	 * every writer takes its sanlock lease at open, before anything is
	 * written, and lets it go at close (-EUSERS, logged with the holder's
	 * host id, when another host has it: pool_lease_refused_by names it;
	 * with FOREIGN_QUIET not logged; -ENOLCK when this host has no
	 * global/host_id; -ENOTCONN without a sanlock daemon). LEASE_KEEP
	 * (tpactivate): a holder process of this host takes it instead and
	 * keeps it while the pool stays active; a close that leaves the pool
	 * inactive ends that holder (tpdeactivate). */
	POOL_LEASE_KEEP = 1 << 4,
	/* A mirrored pool whose first metadata device is missing (tpcreate
	 * --meta DEV1,DEV2, DEV1 lost) opens on the second, degraded: for
	 * readers always; a writer is refused (-ENODEV, logged: 'tpchange
	 * --meta-replace DEV') unless it gives META_LEG0_LOST_OK (tpactivate,
	 * tpdeactivate, tpchange --meta-replace). A shared pool, whose lease
	 * area is on that device, is refused to every writer. */
	POOL_META_LEG0_LOST_OK = 1 << 5,
	/* A mirrored pool with a stale leg (its superblock does not validate,
	 * is older than the other's, or the kernel's rebuild of it did not
	 * finish) whose device is there: an offline writer's open resyncs it
	 * from the good leg before anything else is written (one warning);
	 * META_KEEP_STALE leaves it out instead: tpactivate, whose kernel
	 * raid1 rebuilds it, and tpchange --meta-replace, which resyncs it
	 * itself. Readers never write it. */
	POOL_META_KEEP_STALE = 1 << 6,
	/* tpreduce --missing: a pool whose added data devices (the second
	 * on) are not all found opens with those left out (a warning each),
	 * for pool_reduce_missing alone: its data cannot be read or written,
	 * and nothing is committed at the open (a stale VG copy, a removal
	 * under way wait for the next command). */
	POOL_DATA_MISSING_OK = 1 << 7,
	/* The open is for an activation (tpactivate): when this host has no
	 * device-mapper or dm-thin, the activation will be refused
	 * (pool_activate says why, after its own checks), so the open writes
	 * nothing (an open for writing may first put stale copies right): it
	 * is a reader's. */
	POOL_ACTIVATE = 1 << 9,
	/* (pool_open's flags stay below bit POOL_OPEN_FLAG_BITS: the core's
	 * own open flags, core.h, are above it) */
	POOL_OPEN_FLAGS_END = 1 << 10,
};
#define POOL_OPEN_FLAG_BITS 16
_Static_assert(POOL_OPEN_FLAGS_END <= (1 << POOL_OPEN_FLAG_BITS),
	       "pool_open's flags overlap the core's attach flags (core.h)");

/* DEVICES: NULL, or a comma-separated list of the pool's device paths. */
int pool_open(const char *name, const char *devices, unsigned flags, struct pool **out)
	TP_MUST_CHECK;
void pool_close(struct pool *p);	/* NULL ok */

/* One change of several settings (tpchange, tvchange: all or none).
 * After pool_settings_begin the setters (pool_set_*, pool_volume_set_
 * readonly, pool_set_autoactivate ...) check their setting and stage
 * their VG commit on P's VG in memory: a later setter sees the earlier
 * ones, nothing is written. pool_settings_commit writes them as ONE VG
 * commit (one seqno step), after the preparatory writes a setting needs
 * on space no reader looks at yet (a lease area). pool_settings_last
 * makes the next VG commit that real one instead: for pool_meta_mirror_add
 * and pool_meta_replace, which copy onto their new leg before the commit
 * that names it (the staged settings go into that commit). Until the real
 * commit succeeds nothing a reader sees has changed; pool_settings_abort
 * (also by pool_close) drops what is staged. 0 or -errno (logged). */
int pool_settings_begin(struct pool *p) TP_MUST_CHECK;
void pool_settings_last(struct pool *p);
int pool_settings_commit(struct pool *p) TP_MUST_CHECK;
void pool_settings_abort(struct pool *p);
/* 1 while settings are staged (pool_settings_begin, before
 * pool_settings_last) and the staged VG is the durable one: every setting
 * given is what the pool has already, and pool_settings_abort writes
 * nothing (no VG commit, no backup) where a commit would write one more
 * copy of the same VG. 0 otherwise (lib/pool/core/pool_access.c). */
int pool_settings_unchanged(const struct pool *p);
/* How many commits P's handle has made so far (VG commits, and the thin
 * commit that completes an interrupted transaction). Read before a
 * command's own change, >0 says the writer's open wrote: it finished an
 * interrupted change, or rewrote a stale copy (pool_copy_rewrites), and
 * tpchange's no-op says its options changed nothing, not that nothing was
 * written. */
unsigned pool_commits(const struct pool *p);
/* Of pool_commits: the writer's open's rewrite of a stale or damaged VG
 * copy (the same VG again, said by a warning): 0 or 1. The others finished
 * an interrupted change. */
unsigned pool_copy_rewrites(const struct pool *p);

/* tpchange --meta-replace DEV: the leg of P's metadata mirror that is out
 * (missing, stale or failed) becomes DEV (or the same device again):
 * offline both thin-metadata areas are copied onto it from the good leg,
 * live the kernel's raid1 rebuilds it; then its label and VG area, and
 * the VG commit that names it. -EINVAL (exit 3 at the tool) for a pool
 * without a mirror or a device of the pool; -EBUSY when both legs are in
 * sync; nothing written on a refusal (lib/pool/mirror/pool_mirror.c). */
int pool_meta_replace(struct pool *p, const char *dev) TP_MUST_CHECK;
/* tpchange --meta-mirror DEV: mirror P's thin metadata onto DEV (inactive
 * pool): both areas copied, the kernel raid1's metadata placed behind the
 * meta device's VG area or its last area, DEV labelled, one VG commit.
 * -EBUSY mirrored already, -ENOSPC no room (on the meta device or DEV),
 * -EINVAL a device of the pool; nothing written on a refusal. INTEGRITY:
 * dm-integrity under the legs when both devices have room for its
 * metadata behind everything else (else a warning, and none). */
int pool_meta_mirror_add(struct pool *p, const char *dev, int integrity) TP_MUST_CHECK;
/* "single", "mirrored", "resyncing", "degraded" or "damaged" (core.h). */
const char *pool_meta_health(const struct pool *p);

const char *pool_name(const struct pool *p);
/* tpchange --lock-type: SHARED 1 makes P a shared pool (a lease area
 * found on its metadata device, -ENOSPC logged when it has no 2 MiB free
 * outside its other areas; written through the sanlock daemon, -ENOTCONN
 * without one; IO_TIMEOUT sanlock's), 0 a pool of one host again. P
 * inactive (-EBUSY). */
int pool_set_lock_type(struct pool *p, int shared, unsigned io_timeout) TP_MUST_CHECK;
/* ---- volumes ---- */

/* The one "pool POOL has no volume NAME; 'tpstatus POOL' lists them"
 * error: logged, -ENOENT. */
int pool_no_volume(const char *pool, const char *name);
/* The same for the open pool P, saying so when a volume of that name is in
 * its trash (and how to bring it back). */
int pool_volume_missing(const struct pool *p, const char *name);
/* The one rule of a volume's size, for a new volume and a resize alike:
 * more than 0 (-EINVAL) and at most POOL_VOLUME_MAX_BYTES (-ERANGE),
 * both logged naming volume NAME; *ROUNDED is SIZE up to whole sectors
 * (the size a volume made or resized to SIZE gets). */
int pool_volume_size_check(const char *name, uint64_t size, uint64_t *rounded) TP_MUST_CHECK;

/* Once, before any other call of this library: every feature module
 * registers its hooks with the core (lib/pool/pool_init.c). */
void pool_init(void);

/* Split "POOL/VOL" into its parts (copies into the buffers); -EINVAL with
 * a message if malformed or a name is invalid. */
int pool_split_volume_spec(const char *spec, char pool[POOL_NAME_MAX + 1],
			   char vol[POOL_NAME_MAX + 1]) TP_MUST_CHECK;

/* ---- kernel ---- */

/* Is the pool active in the kernel (its thin-pool target loaded)? While it
 * is, volume changes go through pool messages, tpstatus reads the kernel's
 * figures and a metadata snapshot, and offline-only commands (tpcheck,
 * tprepair, tprestore) must refuse it. */
int pool_is_live(const struct pool *p);
/* Activate the pool (fast checks first: refused with -EUCLEAN while the
 * thin metadata is flagged needs_check) and volumes VOLS (N = 0: every
 * volume) as /dev/mapper/<pool>-<vol>. Without device-mapper or the
 * thin-pool target: -ENODEV/-EOPNOTSUPP, logged, nothing changed. */
int pool_activate(struct pool *p, const char *const *vols, unsigned n) TP_MUST_CHECK;
/* Deactivate volumes VOLS, or (N = 0) every volume and then the pool. A
 * volume in use: -EBUSY, logged. */
int pool_deactivate(struct pool *p, const char *const *vols, unsigned n) TP_MUST_CHECK;

/* ---- encrypted volumes at activation (unlock/pool_unlock.c) ----
 * An encrypted volume (its VG luks_uuid set) is unlocked when it is
 * activated: its thin device is loaded hidden (<pool>-<vol>-luks), the
 * LUKS2 header there must carry the VG's luks_uuid before any key is
 * tried, and /dev/<pool>/<vol> is a dm-crypt device over it. Keys: the
 * one given here, then <key dir>/<pool>/<volume>, then the files of its
 * origins sharing its header. A volume no key opens is left locked
 * (nothing loaded), one line logged, and activation goes on. */

/* The key to try first, LEN bytes at DATA (the caller's, wiped by it once
 * the activation is done; NULL: none), named WHERE in messages (the key
 * file's path). */
void pool_unlock_key(const void *data, size_t len, const char *where);
/* How many volumes this process left locked. */
unsigned pool_unlock_left_locked(void);

/* ---- activation at boot (flags: pool_autoactivate.c; names: pool_names.c;
 * presence: pool_find.c; activation: pool_activate.c) ----
 * Each pool and volume carries an activation flag in its VG (LVM's
 * activation skip): `tpactivate --all`, autoactivation by udev and the
 * boot unit activate only what is flagged "y"; naming a pool or volume
 * explicitly (`tpactivate POOL VOL`) activates it whatever its flag. */

/* Names of every pool known from the devices file or from the label of a
 * block device: sorted, unique; caller frees the array and each string. */
int pool_list_all_names(char ***names, unsigned *n) TP_MUST_CHECK;
/* Are all devices of pool NAME present (devices file, else a label
 * scan; the data devices tpextend --data added by their device uuids)?
 * 1 yes, 0 not (yet): nothing logged; -errno. */
int pool_devices_present(const char *name) TP_MUST_CHECK;
/* The activation flag of P (VOL NULL) or of its volume VOL: 1 activate,
 * 0 skip; -ENOENT (logged) when there is no such volume. */
int pool_get_autoactivate(const struct pool *p, const char *vol) TP_MUST_CHECK;
/* Set that flag to ON (1|0): one VG commit; 0 or -errno (logged). */
int pool_set_autoactivate(struct pool *p, const char *vol, int on) TP_MUST_CHECK;
/* Does this host's kernel hold anything of pool NAME (its thin-pool, tmeta
 * or tdata device, by name)? 1, 0, or -errno when that cannot be told (no
 * device-mapper). Opens nothing of the pool. */
int pool_name_loaded(const char *name) TP_MUST_CHECK;
/* Activate P and those of its volumes flagged "y" (as pool_activate);
 * *NR_VOLS: how many volumes that asked for. The pool's own flag is the
 * caller's to check. */
int pool_autoactivate(struct pool *p, unsigned *nr_vols) TP_MUST_CHECK;

/* ---- monitoring (pool_watch.c) ---- */

/* Make the pool fail writes when its data area is full (POOL_WHEN_FULL_
 * ERROR) or queue them (pool_when_full.c): one VG commit and, while the
 * pool is active, a reload of its table (queued writes then fail with
 * ENOSPC). 0 or -errno, logged; a failed reload puts the VG back. */
int pool_set_when_full(struct pool *p, enum pool_when_full wf) TP_MUST_CHECK;

/* P's policy into *M. */
void pool_get_monitor_policy(const struct pool *p, struct pool_monitor_policy *m);
/* Check M (-EINVAL, logged, naming the setting) and make it P's policy:
 * one VG commit (also for a live pool: the kernel does not know it). */
int pool_set_monitor_policy(struct pool *p, const struct pool_monitor_policy *m)
	TP_MUST_CHECK;

/* Warn (log_warn, naming the pool, the figure and what to do) when P's
 * data or metadata use is at or above its warn threshold: 1 warned, 0
 * below (or warn 0), -errno when the figures cannot be read (a warning
 * says so: the caller's command has done its work). */
int pool_warn_if_full(struct pool *p);

/* ---- status (pool_info.c) ---- */

struct pool_volume_info {
	char name[POOL_NAME_MAX + 1];
	char origin[POOL_NAME_MAX + 1];	/* snapshot origin, "" if none */
	uint64_t size;			/* virtual, bytes */
	uint64_t dev_id;		/* thin device id */
	uint64_t creation_time;		/* seconds since the epoch */
	uint64_t mapped;		/* bytes (POOL_INFO_USAGE) */
	uint64_t exclusive;		/* bytes only this volume maps (POOL_INFO_SHARING) */
	uint64_t shared;		/* bytes shared with other volumes (POOL_INFO_SHARING) */
	/* bytes: the end of the highest chunk it maps, 0 none (POOL_INFO_SHARING) */
	uint64_t highest_mapped;
	int read_only, activation_skip;
	char content_uuid[POOL_UUID_LEN + 1];	/* a read-only volume's, else "" */
	char luks_uuid[POOL_UUID_LEN + 1];	/* an encrypted volume's header's, else "" */
	/* POOL_INFO_USAGE, from the kernel (0 offline): */
	int active;			/* its thin device is loaded */
	int open;			/* ... and held open (mounted, in use) */
	/* An encrypted volume's plaintext (dm-crypt) device is loaded. 0
	 * offline; live, filled where fill_loaded (admin/pool_info.c) asks
	 * device-mapper about the volume, by the activation of encrypted
	 * volumes (issue 39, the live part). */
	int unlocked;
};

/* What tpmonitor did to a pool, counted in its state file since the file
 * began (pool_monitor_state.c: /run/tptools/monitor, cleared at boot). */
struct pool_monitor_counts {
	uint64_t warnings;		/* a data or metadata warning level logged */
	uint64_t no_room;		/* "no room to extend" said */
	uint64_t autoextends;		/* growths done */
	uint64_t autoextend_failures;	/* growths tried that failed */
	uint64_t error_switches;	/* switches to error-when-full */
};

/* What the tools print of a pool. */
/* One data device of a pool: its path, device uuid and range. */
struct pool_data_device {
	const char *path;		/* as opened */
	char pv_uuid[40];
	uint64_t dev_size, offset, first_chunk, chunks;	/* bytes; chunks */
};

struct pool_info {
	char name[POOL_NAME_MAX + 1];
	char uuid[POOL_UUID_LEN + 1];
	const char *dev_path[2];		/* by enum pool_role, as opened; owned by the pool */
	/* mirrored thin metadata: "single", "mirrored", "resyncing" or
	 * "degraded" (pool_meta_health), and each leg "PATH(STATE)" joined by
	 * ","; "" for one metadata device */
	const char *meta_health;
	char meta_legs[2 * 4200];
	/* mirrored: each leg in use (1) or out (0), and its blocks known bad
	 * (this read's, or the last scrub's); the last scrub of the legs on
	 * this host (tpcheck, tprepair; time 0: none): blocks compared, and
	 * blocks that validate on both legs but differ, left after it */
	int meta_leg_up[2];
	uint64_t meta_leg_bad[2];
	/* dm-integrity under the legs (tpcreate --meta-integrity): 1 on; live,
	 * each leg's tag mismatches since activation (-1: none read) and the
	 * percent of its tags computed (100: all) */
	int meta_integrity;
	int64_t meta_leg_mismatches[2];
	unsigned meta_leg_tags_pct[2];
	int64_t meta_scrub_time;
	uint64_t meta_scrub_blocks, meta_scrub_mismatched;
	/* every data device in the data area's order (the first is
	 * dev_path[POOL_ROLE_DATA]); paths owned by the pool */
	unsigned nr_data_devs;
	struct pool_data_device data_devs[8];
	int zero;
	const char *profile;			/* geometry profile, "custom", or "-" */
	enum pool_discards discards;
	enum pool_when_full when_full;
	uint64_t chunk;				/* bytes */
	uint64_t data_size;			/* bytes: the data area in whole chunks */
	uint64_t transaction_id;
	uint64_t virtual_total;			/* sum of volume sizes */
	unsigned max_overprovision;		/* percent of data_size; 0 = unlimited */
	uint64_t data_offset;			/* byte offset of the data area */
	uint64_t meta_offset, meta_length;	/* the ACTIVE thin area, bytes */
	uint64_t spare_offset;			/* byte offset of the spare area */
	/* the VG metadata area (tpcreate --vg-area): the bytes of VG text one
	 * of its slots holds (the smallest of the pool's devices'), and the
	 * bytes of the text read (0 when not read from the area) */
	uint64_t vg_area_size, vg_area_used;
	unsigned metadata_format;		/* the VG's format_version (pool_metadata_format) */
	/* POOL_INFO_USAGE only: */
	uint64_t data_used;			/* bytes */
	uint64_t meta_size, meta_used;		/* bytes of the active area's metadata */
	int needs_check;
	int live;				/* figures from the kernel */
	int read_only;				/* kernel: pool in read-only mode */
	int out_of_data;			/* kernel: out of data space */
	struct pool_monitor_policy monitor;	/* the VG's policy */
	int64_t monitor_time;			/* the monitor's last action: when (0: none) */
	char monitor_action[256];		/* ... and what, in words */
	struct pool_monitor_counts monitor_counts;	/* from the same state file (0: none) */
	int activation_skip;			/* activation of all (--all) passes it by */
	unsigned nr_receives;			/* unfinished receives (no volumes) */
	char system_id[POOL_SYSID_MAX + 1];	/* the owner's, "" for none */
	int foreign;				/* another host owns it (pool_owner) */
	const char *lock_type;			/* "sanlock" (a shared pool) or "none" */
	uint64_t lease_offset;			/* shared: its lease area on the meta device */
	unsigned io_timeout;			/* shared: sanlock's, seconds */
	int64_t lease_owner;			/* shared: the host id holding its lease,
						 * 0 none, -1 unknown (no sanlock daemon) */
	/* POOL_INFO_ORPHANS: devices this host sees whose label names the
	 * pool while its VG does not (tptools(7) ORPHAN LABELS), and those
	 * whose own VG copy is ahead of the pool's (no orphans: the devices
	 * the pool was read from are behind its state) */
	unsigned nr_orphans;
	struct pool_orphan_info {
		char path[1024];
		char device_uuid[POOL_UUID_LEN + 1];
		int ahead;
		char what[256];			/* in words */
	} orphans[8];
	int failed;				/* kernel: pool failed (no figures) */
	int no_volume_usage;			/* kernel could not give per-volume figures */
	int sharing;				/* exclusive and shared are filled in */
	unsigned nr_volumes;
	struct pool_volume_info *volumes;	/* VG order; NULL with POOL_INFO_BY_VOLUME */
	/* POOL_INFO_BY_VOLUME: the volumes packed for pool_info_volume
	 * (lib/pool's own) */
	struct pool_info_packed *packed;
};

enum pool_info_flags {
	/* the allocation figures: the pool's from the space maps (live: the
	 * kernel's pool status), each volume's mapped from the thin device
	 * details (live: of the kernel's metadata snapshot); O(volumes) */
	POOL_INFO_USAGE = 1 << 0,
	/* with POOL_INFO_USAGE: each volume's exclusive and shared too, by
	 * walking every mapping tree (O(mapped blocks)); info->sharing says
	 * they were (not for a pool whose kernel refuses the snapshot) */
	POOL_INFO_SHARING = 1 << 1,
	/* the pool's orphan labels (a look at the devices file's devices and
	 * a label scan of the block devices) */
	POOL_INFO_ORPHANS = 1 << 2,
	/* the pool's figures only: no volume list (nr_volumes 0, volumes
	 * NULL; virtual_total and nr_receives still count them), for a
	 * command that reports on the pool after changing one volume and must
	 * not take time in proportion to the pool's volumes */
	POOL_INFO_NO_VOLUMES = 1 << 3,
	/* no volume array (volumes NULL, nr_volumes set): the volumes are
	 * packed (their numbers and their strings as long as they are: about
	 * 90 bytes a volume against a pool_volume_info's 288) and each is
	 * made on its own by pool_info_volume, also after the pool is closed,
	 * so that a report of a large pool makes a row when it writes it */
	POOL_INFO_BY_VOLUME = 1 << 4,
};

/* Fill INFO from the open pool P (valid while P is open). */
int pool_get_info(struct pool *p, unsigned flags, struct pool_info *info) TP_MUST_CHECK;
void pool_info_free(struct pool_info *info);
/* With POOL_INFO_BY_VOLUME: the volume of index I (VG order, below
 * INFO->nr_volumes) as INFO->volumes[I] would have been. */
void pool_info_volume(const struct pool_info *info, unsigned i, struct pool_volume_info *vi);
/* With POOL_INFO_BY_VOLUME: the index of the volume NAME, or -1. */
long pool_info_volume_index(const struct pool_info *info, const char *name);

/* tpstatus --devices-report: one row per device of pool NAME (like pvs):
 * its data devices in the data area's order, its metadata device (both
 * legs of a mirror), then the orphan labels of the pool this host sees.
 * A device the VG names that is not found is a row of its own (state
 * missing, the path where the VG saw it last): the pool is read with
 * check's tolerance (its findings are warnings), so the report works when
 * the pool cannot be opened for anything else. DEVICES, FLAGS
 * (POOL_ALLOW_COMPONENT) as for pool_open, read-only. 0 with *ROWS (free
 * it) and *N, or -errno (logged). */
struct pool_device_row {
	char pool[POOL_NAME_MAX + 1];
	const char *role;		/* "data", "meta"; "-" for an orphan */
	char place[12];			/* data: 1, 2, ...; meta: "-", leg0, leg1; orphan: "-" */
	int has_range;			/* data: DATA_START, FIRST_CHUNK and CHUNKS are set */
	uint64_t dev_size, data_start, first_chunk, chunks;	/* bytes; chunks */
	char device_uuid[POOL_UUID_LEN + 1];
	/* ok, missing, stale, failed, resyncing (a mirror leg), orphan (a label
	 * the VG does not name), ahead (its own VG copy is newer) */
	const char *state;
	char path[1024];
};
int pool_devices_report(const char *name, const char *devices, unsigned flags,
			struct pool_device_row **rows, unsigned *n) TP_MUST_CHECK;

/* Names of pools known from the devices file, sorted, unique; caller frees
 * the array and each string. */
int pool_list_names(char ***names, unsigned *n) TP_MUST_CHECK;

/* ---- pool_member.c: a device's label, for udev ---- */

/* What the tptools label of a device says (tp udev-probe). */
struct pool_member {
	char pool[POOL_NAME_MAX + 1];		/* "" when damaged */
	char pool_uuid[POOL_UUID_LEN + 1];
	char device_uuid[POOL_UUID_LEN + 1];
	char role[8];				/* "data" or "meta" */
	int damaged;	/* our magic, but the label is corrupt: fields empty */
	/* returned 0 for a component: what stacks it, "" otherwise */
	char stacked[640];
};

/* Read PATH's label sector (read-only open, no lock, no write) and, when
 * it carries our label, whether anything stacks PATH (STACKED DEVICES in
 * tptools(7)): 1 it carries a tptools label and is the top of its stack
 * (*M filled; M->damaged for a corrupt one), 0 not ours, or a component of
 * another device (M->stacked says what stacks it), -errno when PATH cannot
 * be read. */
int pool_member_probe(const char *path, struct pool_member *m) TP_MUST_CHECK;

#endif
