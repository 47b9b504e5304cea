/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core.h - the core of lib/pool, as its modules see it (not for tools,
 * which include the public face, lib/pool/pool.h): the change protocol,
 * attach and open, commits, guards, holds, the hooks features register,
 * and accessors of struct pool, whose fields only the core sees
 * (core_int.h). docs/ARCHITECTURE.md "lib/pool's modules". */
#ifndef TP_POOL_CORE_H
#define TP_POOL_CORE_H

#include "lib/base/io.h"
#include "lib/base/lock.h"
#include "lib/dev/stack.h"
#include "lib/pool/host/host.h"
#include "lib/pool/pool.h"
#include "metadata/thin/check.h"
#include "metadata/thin/thin.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"

/* struct pool is the core's (core_int.h): the other modules see it
 * through these accessors and the core's functions below. */
struct pool_status;
struct pool_dev_usage;

/* The VG metadata P has open (NULL only inside an attach for check or
 * repair that could read none). */
const struct vg *pool_vg(const struct pool *p);
/* Whether P has no VG because the newest copy is of a format newer than
 * this tptools reads (vg_read: -EPROTONOSUPPORT): the check and the
 * repair then send the user to the tptools that wrote it, never to an
 * older backup, whose restore would undo what that tptools wrote. */
int pool_vg_too_new(const struct pool *p);
/* The device of ROLE as attached: its label and io (io NULL when it could
 * not be opened, in a check or repair). When a feature set a view of
 * ROLE (pool_set_role_view: the data module's one engine over several
 * data devices), that view: for VG_ROLE_DATA the data device as the pool
 * and the kernel see it, a data chunk C at label.area[0].offset + C *
 * chunk of it on every pool. */
const struct vg_pv *pool_pv(const struct pool *p, enum vg_role role);
/* Every device of the pool, one by one: 0 the (first) data device, 1 the
 * meta device, 2.. the added data devices in order (each its own engine
 * and label): labels, VG copies, wipes and renames go over these. */
unsigned pool_nr_pvs(const struct pool *p);
const struct vg_pv *pool_pv_at(const struct pool *p, unsigned i);
/* The index in pool_pv_at's order of the VG's data device I (vg.h:
 * vg_data_dev): 0 for the first, 2.. for the added ones. */
unsigned pool_data_slot(unsigned i);
/* THE place of a data chunk: data chunk CHUNK of P lies on the engine *IO
 * (a data device of the pool) at byte *OFF, and *RUN chunks from CHUNK
 * on follow it there. 0, -ERANGE beyond the data area, -ENOENT when that
 * device is not open. Offline code that reads or writes data chunks
 * device by device (trim, a chunk mover, a receive) goes by it;
 * pool_pv(p, VG_ROLE_DATA)->io is the same mapping as one engine
 * (pool_access.c). */
int pool_data_locate(const struct pool *p, uint64_t chunk, struct io_engine **io, uint64_t *off,
		     uint64_t *run) TP_MUST_CHECK;
/* How many chunks of [FIRST, FIRST + N) P's thin metadata holds (a
 * reference count above 0), into *USED: 0, or -errno (the thin metadata
 * opened for it when it was not, logged). */
int pool_data_in_use(struct pool *p, uint64_t first, uint64_t n, uint64_t *used) TP_MUST_CHECK;
/* The pool's devices as the modules that add, drop and order them (the
 * data module) change them: device K opened from PATH (read-only for a
 * reader, else claimed with CLAIM: pool_claim_open, its flock kept with
 * the device); K made IO with label L (owned by P from now); the first N
 * slots counted as the pool's devices (pool_nr_pvs); a device (its
 * engine, label and flock) put after the last (-ENOSPC when there is no
 * slot) or the last one closed and taken away; slots [A, B] rotated by
 * one, up (A's device goes to B) or down; slots A and B swapped. */
int pool_open_pv(struct pool *p, unsigned k, const char *path, unsigned claim,
		 struct io_engine **io) TP_MUST_CHECK;
void pool_set_pv_at(struct pool *p, unsigned k, struct io_engine *io, const struct vg_label *l);
void pool_set_nr_pvs(struct pool *p, unsigned n);
int pool_push_pv(struct pool *p, struct io_engine *io, const struct vg_label *l,
		 struct tp_lock *claim) TP_MUST_CHECK;
void pool_pop_pv(struct pool *p);
void pool_rotate_pvs(struct pool *p, unsigned a, unsigned b, int up);
void pool_swap_pvs(struct pool *p, unsigned a, unsigned b);
/* The device of ROLE as the pool sees it, set by the feature that builds
 * it (NULL: the device itself; VIEW is the feature's and stays valid
 * until it sets another): pool_pv hands it out, its label follows the
 * device's (pool_sync_labels) and its engine turns read-only with the
 * latch (pool_latch_read_only). */
void pool_set_role_view(struct pool *p, enum vg_role role, struct vg_pv *view);
/* The thin-pool's dm name, when live. */
const char *pool_dm_name(const struct pool *p);
/* POOL_* open flags. */
unsigned pool_flags(const struct pool *p);
/* The offline thin-metadata engine: NULL while the kernel runs the pool. */
struct thin_md *pool_thin(const struct pool *p);
/* The window over the active thin-metadata area (offline, or a check). */
struct io_engine *pool_thin_io(const struct pool *p);

/* ---- the thin metadata's devices (pool_meta_dev.c) ----
 * A feature may put an engine of its own between the thin metadata and
 * its devices (the metadata mirror, lib/pool/mirror, over the meta device
 * and a second one): its hooks (pool_feature below) open the second
 * device into the core's slot for it and set the engine. */

/* What the thin-metadata areas are read and written through offline: the
 * engine a feature set (pool_set_meta_io), else the meta device. */
struct io_engine *pool_meta_io(const struct pool *p);
/* Make IO (owned by P from now; may be NULL) that engine; the one before
 * is destroyed (a caller that carries its state over does so first). */
void pool_set_meta_io(struct pool *p, struct io_engine *io);
/* The engine a feature set (NULL: none, the meta device is read directly). */
struct io_engine *pool_meta_engine(const struct pool *p);
/* A window over the active (SPARE 0) or the spare (SPARE 1) thin-metadata
 * area through pool_meta_io, so that every device under that engine takes
 * every write alike: the one way to a whole area (a rebuild, a repair, a
 * check). 0 and *OUT (io_destroy it), -ENOSPC for an area of no size, or
 * -errno. */
int pool_meta_area_io(const struct pool *p, int spare, struct io_engine **out) TP_MUST_CHECK;
/* The second metadata device (vg.meta1), when it is open (its label
 * matched) and P's VG lists it; else NULL. */
const struct vg_pv *pool_meta1_pv(const struct pool *p);
/* The metadata device to name or read directly: the first, else (the
 * first lost) the second. */
const char *pool_meta_dev_name(const struct pool *p);
/* Metadata device I's slot (0 the meta device's, 1 the second's), open
 * or not: its engine and label, and its flock claim. The feature that
 * keeps the second device fills and empties them (what it replaces it
 * closes and releases); the core closes what is there at detach and
 * reopens it for the kernel (pool_share_devices). */
const struct vg_pv *pool_meta_dev_at(const struct pool *p, unsigned i);
struct vg_pv *pool_meta_dev_slot(struct pool *p, unsigned i);
struct tp_lock **pool_meta_dev_claim(struct pool *p, unsigned i);
/* Does label L's geometry and name differ from what VG records for its
 * device D (data device INDEX)? (pool_labels.c) */
int pool_label_stale(const struct vg_label *l, const struct vg *vg, const struct vg_device *d,
		     unsigned index);
/* Close the offline thin metadata and the window over its area (an
 * engine under it is about to change); pool_open_thin opens them again. */
void pool_close_thin(struct pool *p);
/* pool_attach.c: open PATH as device K of P (read-only for a reader, else
 * claimed with CLAIM). */
int pool_open_pv(struct pool *p, unsigned k, const char *path, unsigned claim,
		 struct io_engine **io) TP_MUST_CHECK;
/* pool_open_pv's K for metadata device I (pool_meta_dev_slot). */
unsigned pool_meta_dev_index(unsigned i);

/* A zeroed struct pool for pool_attach (NULL, logged, on ENOMEM); freed,
 * detached first, by pool_close. */
struct pool *pool_alloc(void);
/* Repair (tprepair's relabel): make IO (owned by P from now) with label
 * L the device of ROLE; make VG (owned, may be NULL) P's VG, freeing the
 * one it had. */
void pool_set_pv(struct pool *p, enum vg_role role, struct io_engine *io,
		 const struct vg_label *l);
void pool_set_vg(struct pool *p, struct vg *vg);
/* A rollback failed (an abort, an undo commit): what is on the devices
 * is no longer what this command knows, so it writes no more to P (like
 * the kernel's fail_io): its devices' engines turn read-only and every
 * later change and VG commit of P in this command is refused (-EROFS,
 * logged). WHY is said once. The next command starts afresh and
 * completes or reports the change from what is on the devices. */
void pool_latch_read_only(struct pool *p, const char *why);
/* -EROFS, logged, once P is latched; else 0. */
int pool_refuse_latched(const struct pool *p) TP_MUST_CHECK;
/* Let the pool lock go (a reader that holds its volumes another way). */
void pool_drop_lock(struct pool *p);
/* The backend's pool-level figures in blocks and per-device usage. */
int pool_figures(struct pool *p, struct pool_status *st, uint64_t *mu, uint64_t *mt,
		 uint64_t *du, uint64_t *dt) TP_MUST_CHECK;
/* Used and total metadata and data blocks, read cheaply (live: the
 * kernel's status without a flush; -EIO for a failed pool). */
int pool_fill_blocks(struct pool *p, uint64_t *mu, uint64_t *mt, uint64_t *du, uint64_t *dt)
	TP_MUST_CHECK;
int pool_dev_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		   size_t *n) TP_MUST_CHECK;
/* Per-device mapped blocks alone (exclusive 0), from the thin device
 * details (live: of the kernel's metadata snapshot): no mapping walk. */
int pool_dev_mapped(struct pool *p, struct pool_dev_usage **u, size_t *n) TP_MUST_CHECK;

/* pool_ops.c: -EBUSY, logged ("pool P is active in the kernel: WHAT needs
 * it offline..."), when P is live; else 0. */
int pool_refuse_live(const struct pool *p, const char *what) TP_MUST_CHECK;

/* pool_access.c: mark P as another host's (the owner module's finding:
 * pool_is_foreign), or not. */
void pool_set_foreign(struct pool *p, int foreign);

/* pool_backend.c: PATH carries label L (a device of pool L->pool_name)
 * and is about to be written outside its pool (tprestore -o, tprepair
 * -o): -EBUSY, logged, while the kernel runs that pool, or the dm error
 * when that cannot be told; else 0. */
int pool_refuse_live_device(const char *path, const struct vg_label *l) TP_MUST_CHECK;

/* ---- pool_leftovers.c: what a SIGKILL left behind ---- */

struct tp_dm_pool_devs;
/* Clear what an interrupted tptools command left of pool P in the kernel
 * (D: what device-mapper has loaded of it, refreshed here): resume its
 * suspended devices, remove a half-made stack (tmeta/tdata without
 * tpool), release a metadata snapshot no command holds. Each said in one
 * line on stderr. 0 or -errno (logged). */
int pool_clear_leftovers(struct pool *p, const char *uuid, struct tp_dm_pool_devs *d)
	TP_MUST_CHECK;

/* ---- pool_orphan.c: labels of a pool that its VG does not name ---- */

#define POOL_ORPHANS_MAX 8

/* The orphans of attached P (host.h: pool_find_orphans; P's own open
 * devices left out), up to MAX into OUT: how many. Reads only; quiet. */
unsigned pool_orphans(const struct pool *p, struct pool_orphan *out, unsigned max);
/* What orphan O is, in words ("a data device label the pool's VG no
 * longer names (...)"). */
void pool_orphan_what(const struct pool_orphan *o, char *buf, size_t len);
/* A writer of P (pool_open, tprepair) finishes the changes that left
 * orphans: each one claimed, looked at again, its label and VG area
 * wiped and its devices-file entry dropped, one warning line each unless
 * QUIET; DONE (LEN bytes, may be NULL) gets their paths joined by ", ",
 * *NR_DONE how many. An orphan that cannot be claimed or written is left
 * alone (a warning: it is no device of P, whose command goes on).
 * -EUCLEAN (logged, nothing written) when a device's own VG copy is ahead
 * of P's (POOL_ORPHAN_AHEAD); else 0. */
int pool_orphans_finish(struct pool *p, int quiet, char *done, size_t len, unsigned *nr_done)
	TP_MUST_CHECK;

/* Whose a labelled device is, for a command about to take or wipe it
 * (tpcreate, tpextend --data, tpchange --meta-replace/--meta-mirror,
 * tpremove --label): its label's pool, found by name and uuid (or by a
 * name the devices file gives that uuid: a pool renamed since) and
 * attached read-only (its lock waited on briefly), decides. */
/* (enum pool_label_kind: pool.h) */
struct pool_label_owner {
	enum pool_label_kind kind;
	struct vg_label label;
	char pool[VG_NAME_MAX + 1];	/* its pool's name now */
	struct pool_orphan orphan;	/* ORPHAN, AHEAD */
	int data_index;			/* MEMBER: its place among the data devices (-1) */
	unsigned nr_data;		/* MEMBER: how many data devices its pool has */
	int was_member;			/* GONE, UNKNOWN: its own VG copy names it */
	char what[400];			/* in words: "its data device 2", "an orphan label of pool mv (...)" */
};
/* Fill *O for PATH: 0, or -ENOMEM. Reads only; quiet. */
int pool_label_owner(const char *path, struct pool_label_owner *o) TP_MUST_CHECK;
/* Log why PATH, as O says, is not taken: REFUSED says what the command
 * will not do ("tpcreate will not take it"); the message names the
 * command that helps (never tpremove of a pool the device is not a
 * member of). FORCE_TAKES: the command takes an orphan or a gone pool's
 * label with --force (say so). */
void pool_label_refusal(const char *path, const struct pool_label_owner *o, const char *refused,
			int force_takes);

/* pool_msnap.c: serialise the kernel's one metadata snapshot among
 * tptools commands: an exclusive lock per pool ("POOL:metadata-snap" in
 * the lock directory), taken around reserve..release. */
int pool_msnap_lock(const struct pool *p, unsigned flags, struct tp_lock **l) TP_MUST_CHECK;

/* ---- pool_profile.c ---- */

/* The name tpstatus prints for a recorded profile ("-" when none). */
const char *pool_profile_name(enum vg_profile p);
enum vg_profile pool_profile_to_vg(enum tp_profile p);

/* ---- pool_attach.c: the one way into a pool's devices ---- */

/* What an attach for tpcheck/tprepair found at the pool level (the check
 * module fills the rest). */
struct pool_check_report {
	struct thin_check_findings f;	/* the pool-level findings only */
	unsigned nr_strays;	/* of them: thin devices that belong to no volume */
	/* ... volumes whose thin device the thin metadata lacks at the VG's
	 * transaction (lost: a salvage could not save them), their names
	 * joined by " " (the first ones that fit) */
	unsigned nr_lost;
	char lost[1024];
	/* ... orphan labels of the pool (pool_orphan.c), the first one's path,
	 * and devices whose own VG copy is ahead of the pool's */
	unsigned nr_orphans, nr_ahead;
	char orphan[VG_PATH_MAX + 1];
	/* ... labels that lag behind the VG (pool_labels_behind) */
	unsigned nr_labels_behind;
	/* ... an interrupted transaction (the thin metadata one behind the
	 * VG: the next writer's open completes it) */
	unsigned interrupted;
	/* ... trash entries whose purge was cut after their thin device was
	 * deleted (the next writer's open, or tvremove --purge, ends them),
	 * the first one as POOL/NAME */
	unsigned nr_purges;
	char purge[2 * VG_NAME_MAX + 2];
	/* ... the thin metadata's transaction id when the VG's is below it
	 * (VG copies that lag: older ones put back), else 0; with strays,
	 * a rollback to the VG's transaction would delete them */
	uint64_t vg_behind_tid;
	/* ... the VG could not be read for it is of a newer format (the
	 * last finding says so): no verdict of damage, a refusal */
	int vg_too_new;
	/* a note, no finding: VG copies in an older slot of a newer format
	 * than this tptools reads (the previous commit, a newer tptools'
	 * write; the next commit writes over it), how many, the first said */
	unsigned nr_newer_copies;
	char newer_copy[1024];
};

enum pool_attach_flags {
	/* POOL_RDONLY (pool.h): shared lock, devices opened read-only */
	POOL_ATTACH_OFFLINE = 1 << POOL_OPEN_FLAG_BITS,	/* refuse (-EBUSY) a pool the kernel runs */
	/* wait for the pool lock only briefly (-EWOULDBLOCK): a command that
	 * holds another pool's lock looks at this one (pool_label_owner) */
	POOL_ATTACH_LOCK_BRIEF = 1 << (POOL_OPEN_FLAG_BITS + 1),
	/* read every VG slot of every device whole (vg_read_flags:
	 * VG_MDA_READ_WHOLE), not the readers' fast path: the check and the
	 * repair, which name (and mend) a damaged copy of any slot */
	POOL_ATTACH_WHOLE = 1 << (POOL_OPEN_FLAG_BITS + 2),
};

struct pool_check_report;

/* Fill P (zeroed here) for pool NAME: the name check, the pool lock
 * (shared with POOL_RDONLY, else exclusive), the devices (DEVICES "A,B",
 * else the devices file or a label scan), opened read-only with
 * POOL_RDONLY, their labels by role, the VG (STATUS, may be NULL: its
 * copies), and the backend (pool_decide_backend: offline or live, with
 * the thin-pool dm name). No thin metadata is opened.
 * REP NULL (pool_open): every problem is an error, logged; DEVICES are
 * absolute paths and recorded in the devices file unless POOL_RDONLY.
 * REP given (check, repair): label and VG problems are findings in REP and
 * 0 is returned, with P->pv[role].io NULL for a device not found and
 * P->vg NULL when no VG could be read. Release with pool_detach. */
int pool_attach(struct pool *p, const char *name, const char *devices, unsigned flags,
		struct pool_check_report *rep, struct vg_mda_status *status) TP_MUST_CHECK;
/* pool_attach (no REP) of pool OLD being renamed to NEW_NAME: labels and
 * the VG may name either (an interrupted rename). */
int pool_attach_renaming(struct pool *p, const char *old, const char *new_name,
			 const char *devices) TP_MUST_CHECK;
/* Release everything pool_attach and pool_open_thin took; P is zeroed. */
void pool_detach(struct pool *p);

/* pool_offline.c: open the thin metadata of the active area (pool_open, after
 * deactivation, after a repair swap). */
int pool_open_thin(struct pool *p) TP_MUST_CHECK;

/* A pool-level finding (no block number) into REP. */
void pool_problem(struct pool_check_report *rep, int fatal, const char *fmt, ...)
	TP_PRINTF(3, 4);

/* Hand the devices to the kernel (activation): reopen them without
 * O_EXCL, keeping the flock claims. The thin metadata must be closed. */
int pool_share_devices(struct pool *p) TP_MUST_CHECK;

/* ---- pool_claim.c: one owner per device ---- */

enum pool_claim_flags {
	POOL_CLAIM_LIVE = 1 << 0,	/* the pool is active: the kernel holds the device */
	POOL_CLAIM_HELD = 1 << 1,	/* this command claimed the same device already */
	POOL_CLAIM_LOCKED = 1 << 2,	/* *LOCK is taken already (pool_claim_lock) */
};

/* The flock half of a claim alone (pool_attach.c takes it before deciding
 * live or offline, so its exclusive-open probe never meets another
 * tptools writer): -EBUSY, logged, after the brief wait. */
int pool_claim_lock(const char *pool, const char *path, struct tp_lock **lock) TP_MUST_CHECK;

/* Open PATH for writing as its one owner (see pool_claim.c): *LOCK (an
 * exclusive flock on PATH, waited on briefly; none with HELD) and *IO
 * (O_EXCL unless LIVE or HELD). -EBUSY, logged, when another tptools
 * command, the kernel or another program holds it; other -errno unlogged. */
int pool_claim_open(const char *pool, const char *path, unsigned flags, struct tp_lock **lock,
		    struct io_engine **io) TP_MUST_CHECK;

/* ---- pool_guard.c: no change to a fatally damaged pool ---- */

/* Refuse (-EUCLEAN, logged with REFUSED, e.g. "not activated", and the
 * tpcheck/tprepair to run) an offline pool whose thin metadata is flagged
 * needs_check or has fatal damage by a fast check; BEFORE names the step
 * when the check cannot run. WARN_MINOR: also warn of non-fatal damage.
 * 0 for a pool the kernel runs. */
int pool_guard(struct pool *p, const char *before, const char *refused, int warn_minor)
	TP_MUST_CHECK;
/* The guard of one change from P's VG to NEXT (pool_change): the same
 * fast check, but of the mapping trees it reads only those the change
 * relies on (the thin devices of the entries it adds, drops or alters,
 * and the origins of the volumes it adds; every one when there are many),
 * so that its cost does not grow with the pool's volumes. Damage below
 * another volume's root is tpcheck's to find; the change does not read
 * or write that tree. */
int pool_guard_change(struct pool *p, const struct vg *next) TP_MUST_CHECK;

/* ---- pool_txn.c: the transaction-id protocol (pool.h) ---- */

/* Make the thin metadata agree with the VG. WRITE: complete an
 * interrupted transaction; else only report it. */
int pool_reconcile(struct pool *p, int write) TP_MUST_CHECK;
/* The same against the kernel's pool (a live P). */
int pool_live_reconcile(struct pool *p, int write) TP_MUST_CHECK;
/* A live change failed (ERR, logged) after its VG commit (transaction
 * TID + 1; UNDO: the VG before it, consumed). The kernel is asked what
 * it holds (its transaction id and thin devices): the change applied, its
 * transaction id is set (completed forward, 0 returned); not applied, the
 * VG is put back (ERR returned); neither state recognised, the VG stays
 * the journal the next command replays (ERR returned). Said on stderr. */
int pool_live_settle(struct pool *p, uint64_t tid, struct vg *undo, int err) TP_MUST_CHECK;

/* ---- pool_msnap.c: reading an active pool's metadata ---- */

/* A held kernel metadata snapshot: AREA reads the metadata area with
 * O_DIRECT (the page cache may hold blocks the kernel has since
 * rewritten); walk it with THIN_WALK_METADATA_SNAP or
 * THIN_DELTA_METADATA_SNAP. */
struct pool_msnap {
	struct pool *p;
	struct io_engine *dev, *area;
	struct tp_lock *lock;
};
/* Take the per-pool snapshot lock (waiting briefly), enter a critical
 * section, reserve the snapshot (releasing a killed command's hold) and
 * open the area. 0, or -errno logged (-EBUSY: another command holds it). */
int pool_msnap_begin(struct pool *p, struct pool_msnap *s) TP_MUST_CHECK;
/* Release what pool_msnap_begin took; 0 or -errno of the release. */
int pool_msnap_end(struct pool_msnap *s);
/* Walk every device of a held snapshot (ARG: its struct pool_msnap) with
 * V; the live twin of pool_md_walk, both of pool_usage.h's walk_fn. */
struct thin_ir_visitor;
int pool_msnap_walk(void *arg, const struct thin_ir_visitor *v) TP_MUST_CHECK;
/* A view of P's thin metadata to read mappings from, whichever backend
 * runs the pool: offline the open area itself; live a held kernel
 * metadata snapshot (SNAPSHOT set: release it soon, other commands wait
 * for it). Walk IO with FLAGS (THIN_DELTA_METADATA_SNAP or 0; the walk
 * flag THIN_WALK_METADATA_SNAP has the same value). */
struct pool_meta_view {
	struct io_engine *io;
	unsigned flags;
	int snapshot;
	struct pool_msnap snap;
};
int pool_meta_view_begin(struct pool *p, struct pool_meta_view *v) TP_MUST_CHECK;
/* Release the view: 0 or -errno of the snapshot's release (logged). */
int pool_meta_view_end(struct pool_meta_view *v);
/* pool_offline.c: walk the open thin metadata (ARG: its struct thin_md). */
int pool_md_walk(void *arg, const struct thin_ir_visitor *v) TP_MUST_CHECK;

/* Thin device ids in the kernel's metadata (via a metadata snapshot). */
int pool_live_list_devices(struct pool *p, uint64_t **ids, size_t *n) TP_MUST_CHECK;
/* Per-device usage from the kernel's metadata snapshot. */
struct pool_dev_usage;
int pool_live_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		    size_t *n) TP_MUST_CHECK;
/* Per-device mapped blocks from the snapshot's device details. */
int pool_live_details(struct pool *p, struct pool_dev_usage **u, size_t *n) TP_MUST_CHECK;

/* ---- pool_ops.c: thin-device operations, offline or through the kernel ---- */

int pool_op_create(struct pool *p, uint32_t dev_id) TP_MUST_CHECK;
int pool_op_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *origin) TP_MUST_CHECK;
int pool_op_delete(struct pool *p, uint32_t dev_id, const char *vol) TP_MUST_CHECK;
/* Inside an apply that fails after making thin device DEV_ID: undo it
 * where it is already durable (live: the kernel committed the message;
 * offline the abort drops it). A failure is logged. */
void pool_op_unmake(struct pool *p, uint32_t dev_id);
/* A volume a change has just made: live, load its device (a failure is
 * -errno, logged); offline nothing (activation loads it later). */
int pool_op_publish(struct pool *p, const char *vol) TP_MUST_CHECK;
/* The kernel's pool table follows the VG's when-full setting: live, a
 * reload when CHANGED or when the table differs (an interrupted change);
 * offline nothing (activation builds the table from the VG). 0 or -errno
 * of the reload. */
int pool_table_follow_when_full(struct pool *p, int changed) TP_MUST_CHECK;
/* Where to read P's data chunks from: offline the attached data device
 * (*OWN NULL), or of block devices a reader of its own with O_DIRECT
 * (pool_data_bulk); live a reader of its own with O_DIRECT, since the
 * page cache may hold blocks the kernel has since written (*OWN: to
 * io_destroy). 0 or -errno, logged. */
int pool_data_reader(struct pool *p, struct io_engine **rd, struct io_engine **own)
	TP_MUST_CHECK;
/* The data area for a large copy (send, receive, raw import, wipe), in
 * *IO: live, and offline when every data device is a block device, an
 * engine of its own with O_DIRECT and FLAGS (IO_RDONLY to read), in *OWN
 * to io_destroy (the copy bypasses the page cache: no second copy of each
 * byte through it, nothing others cache is pushed out, and the device
 * runs at its own speed); image files through the attached engine (*OWN
 * NULL: their page cache is the warm one). Offline a failed open falls
 * back to the attached engine; live it is -EIO, logged. */
int pool_data_bulk(struct pool *p, unsigned flags, struct io_engine **io, struct io_engine **own)
	TP_MUST_CHECK;
/* P's data area opened anew with FLAGS (e.g. IO_DIRECT to write beside a
 * live kernel): the data device, or what a feature opens as the pool's
 * view of it (view_open hook: the data module's concatenation of P's data
 * devices; byte offsets as pool_pv(p, VG_ROLE_DATA)'s). *OUT to
 * io_destroy. 0 or -errno, logged. */
int pool_data_open(struct pool *p, unsigned flags, struct io_engine **out) TP_MUST_CHECK;
/* Is volume VOL's kernel device loaded? 1 (INFO filled), 0 (always
 * offline), -errno of device-mapper. */
struct tp_dm_info;
int pool_volume_loaded(const struct pool *p, const char *vol, struct tp_dm_info *info)
	TP_MUST_CHECK;
int pool_op_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id) TP_MUST_CHECK;
/* Unload volume VOL's thin target: 0 also when it was not loaded; -EBUSY
 * (logged) while it is in use. */
int pool_op_vol_deactivate(struct pool *p, const char *vol) TP_MUST_CHECK;

/* ---- pool_unmap.c: the bounded steps a removal is made of ----
 * (the removal module, lib/pool/removal, runs them) */

/* One bounded step of removal RM through P's backend: unless DO_STEP is
 * 0 (a probe), unmap one step's worth of its mappings from chunk *POS on
 * and make that durable; *POS moves past what was done, *LEFT gets the
 * mappings it still has. -EOPNOTSUPP live when the pool ignores
 * discards. 0 or -errno. */
int pool_unmap_step(struct pool *p, const struct vg_volume *rm, int do_step, uint64_t *pos,
		    uint64_t *left) TP_MUST_CHECK;
/* The steps are over: live, the removal's device is closed (before the
 * delete unloads it). */
void pool_unmap_end(struct pool *p);

/* ---- pool_change.c: one change under the protocol ---- */

/* The largest volume: the VG metadata holds sizes as signed 64-bit byte
 * counts in whole sectors, so 8 EiB less one sector. */
#define POOL_VOLUME_MAX_BYTES ((1ull << 63) - 512)

/* The thin side of a change: 0 or -errno (logged). */
typedef int (*pool_apply_fn)(struct pool *p, const void *arg);

/* The protocol (pool.h): refuse a fatally damaged pool (pool_guard),
 * commit NEXT (with transaction id + 1) as the VG, then APPLY to the thin
 * metadata (or the kernel), set its transaction id and commit it. On a
 * thin failure the thin transaction is aborted and the VG put back. NEXT
 * is consumed either way. */
int pool_change(struct pool *p, struct vg *next, pool_apply_fn apply, const void *arg)
	TP_MUST_CHECK;

/* Volume NAME of P's VG, or NULL with pool_no_volume's error logged. */
const struct vg_volume *pool_find_volume(const struct pool *p, const char *name);

/* NAME is a valid volume name not taken in P: 0, -EINVAL or -EEXIST
 * (logged). */
int pool_name_free(struct pool *p, const char *name) TP_MUST_CHECK;

/* The thin device id the next new volume of P gets: 0, or -ENOSPC logged
 * when every id has been used. */
int pool_next_dev_id(const struct pool *p, uint32_t *id) TP_MUST_CHECK;

/* ---- pool_beyond.c: chunks mapped beyond their volume's end ---- */

struct pool_beyond {
	const struct vg *vg;	/* the volume sizes that count */
	uint64_t chunk;		/* bytes */
	uint32_t dev_id;	/* unless ALL */
	int all;
	uint64_t first, cur;	/* walk state */
	struct { uint64_t dev_id, vblock; } *found;	/* malloc'd, N of them */
	size_t n, alloc;
};

/* Fill *B with the chunks of P's committed thin metadata mapped at or
 * beyond the end VG gives their volume: device DEV_ID's, or with ALL
 * every device's (devices VG does not list are left out). 0 or -errno,
 * logged; free with pool_beyond_free either way. */
int pool_find_beyond(struct pool *p, const struct vg *vg, int all, uint32_t dev_id,
		     struct pool_beyond *b) TP_MUST_CHECK;
void pool_beyond_free(struct pool_beyond *b);
/* Unmap B's chunks (a pool_apply_fn; uncommitted). */
int pool_unmap_beyond(struct pool *p, const void *b) TP_MUST_CHECK;
/* Offline, with no uncommitted thin change: unmap every chunk mapped at or
 * beyond the end of its volume in P's VG (an interrupted forced shrink);
 * uncommitted. 0 or -errno, logged. */
int pool_unmap_beyond_ends(struct pool *p) TP_MUST_CHECK;

/* ---- pool_beyond.c: the rest of a volume's last chunk ----
 * The bytes of a volume's last chunk past its end (a size inside a chunk)
 * are kept zeros: a grow shows them. */
struct pool_tail {
	uint32_t dev_id;
	uint64_t vblock;	/* the last chunk */
	uint64_t from;		/* its first byte past the end; 0: none (a chunk boundary) */
	uint64_t dblock;	/* the data chunk it maps (MAPPED) */
	int mapped;
	int dirty;		/* a byte past the end is not zero */
	int data;		/* ... one the volume shows now (before SHOWN) */
};
/* What thin device DEV_ID's chunk holding byte END holds from END to the
 * chunk's end, as committed (either backend: live through a metadata
 * snapshot and an O_DIRECT read); SHOWN: the device's size now (a shrink
 * to END: the bytes up to SHOWN are content it cuts off). 0 (*T filled)
 * or -errno, logged. */
int pool_tail_read(struct pool *p, uint32_t dev_id, uint64_t end, uint64_t shown,
		   struct pool_tail *t) TP_MUST_CHECK;
/* Offline: T's bytes past the end made zeros: in place (flushed) when only
 * its device maps the chunk, else in a copy of the chunk (a new data
 * chunk: the head copied, zeros after, flushed) that the device maps in
 * the open thin transaction (*REMAPPED 1; the caller commits or aborts).
 * -ENOSPC (logged) when a copy is needed and no chunk is free. */
int pool_tail_zero(struct pool *p, const struct pool_tail *t, int *remapped) TP_MUST_CHECK;
/* Offline, no thin change open: pool_tail_zero, and a copy's mapping
 * committed alone (the device shows the same bytes up to its end; the
 * transaction id unchanged). 0 or -errno, logged. */
int pool_tail_clear(struct pool *p, const struct pool_tail *t) TP_MUST_CHECK;

/* ---- pool_labels.c: the labels follow the VG ---- */

/* Make the in-memory labels of P carry the geometry its VG records
 * (device sizes, areas), which a growth commits first; unless
 * POOL_RDONLY, also write each label that differs (0 or -errno, logged).
 * *CHANGED (may be NULL) is set when a label differed. */
int pool_sync_labels(struct pool *p, int *changed) TP_MUST_CHECK;
/* The devices whose labels, as read, lag behind the VG (pool name, size,
 * areas or place: what pool_sync_labels would rewrite), up to MAX names
 * into NAMES; their number. For a pool attached without the sync (the
 * check). */
unsigned pool_labels_behind(const struct pool *p, const char *names[], unsigned max);

/* ---- pool_activate.c ---- */

struct tp_dm_pool_layout;
/* The dm table settings of P's thin-pool stack, from its labels and VG. */
void pool_dm_layout(const struct pool *p, struct tp_dm_pool_layout *l);
/* Load volume V of the active pool P (0 when it is loaded already; an
 * error logged). A feature's load_volume hook loads the volumes that are
 * its (the unlock module: an encrypted volume, 0 too when it is left
 * locked). */
int pool_load_volume(struct pool *p, const struct vg_volume *v) TP_MUST_CHECK;
/* Load V's thin device as <pool>-<vol> whatever its content (a removal's
 * discards of an encrypted volume go to its thin device). */
int pool_load_thin(struct pool *p, const struct vg_volume *v) TP_MUST_CHECK;

/* ---- pool_access.c: the growth of a pool's areas (tpextend), whichever backend ----
 *
 * pool_grow_thin is pool_change's thin side of a change whose VG grew the
 * areas (ARG: a struct pool_growth). Offline: the labels follow the VG,
 * the window over the active area is reopened when the metadata area
 * grew, and the thin metadata's space maps are resized. Live: the labels
 * follow, then the kernel's table stack is reloaded (kernel/dm_resize.c)
 * and the kernel grows its space maps on the resume. A crash after the VG
 * commit is completed by the transaction replay (offline: the space maps
 * are resized at the next open; live: pool_grow_catch_up). */
struct pool_growth {
	uint64_t data_blocks;	/* 0: unchanged */
	uint64_t meta_blocks;	/* 0: unchanged */
};
int pool_grow_thin(struct pool *p, const void *arg) TP_MUST_CHECK;
/* After a growth change failed (its VG put back): the labels, and the
 * offline window, follow the VG back; a failure is logged with the way on. */
void pool_grow_undone(struct pool *p, const struct pool_growth *g);
/* When the kernel's pool is smaller than P's VG says (a live growth cut
 * short after its VG commit), reload it: 1 done (RES: the kernel's old
 * sizes and the new ones), 0 nothing to finish (always offline: the open
 * completes an offline growth), -errno (logged). */
int pool_grow_catch_up(struct pool *p, struct pool_extend_result *res) TP_MUST_CHECK;

/* ---- pool_feature.c: the lifecycle table features register into ----
 *
 * A feature module (lease, owner, removal, stream, ...) registers one
 * struct pool_feature at start (pool_init); the core runs every
 * registered feature's hook at each step of a pool's life, in the order
 * they registered, and never names a feature. A hook left NULL is
 * skipped. Each feature keeps its own state of an open pool in its slot
 * (pool_feature_state): one malloc'd block, which the core frees after
 * the detach hooks ran (what it points to is the detach hook's). */

struct tp_dm_pool_layout;
struct pool_feature {
	const char *name;
	/* After the VG is read and every copy checked, before anything is
	 * written (a stale copy's rewrite, a replay): 0 to go on, 1 when the
	 * VG must be read again (a lease was taken just now: another host
	 * may have changed it), or -errno, logged unless the pool's flags
	 * ask for quiet (the attach fails). */
	int (*vg_read)(struct pool *p);
	/* A live pool is opened (WRITE: for a change): clear, or report
	 * when reading, what a killed command of this feature left in the
	 * kernel, before the transaction ids are compared. 0 or -errno,
	 * logged. */
	int (*live_leftovers)(struct pool *p, int write);
	/* The pool is open (the thin side reconciled); WRITE for a writer.
	 * What a feature finishes at a writer's open (an interrupted
	 * removal). A failure is the feature's to say; the open goes on. */
	void (*opened)(struct pool *p, int write);
	/* The pool is being detached, before its devices close: give back
	 * what the feature took (a lease, an open device). */
	void (*detach)(struct pool *p);
	/* ---- the pool's devices and the views over them (the data
	 * module: several data devices) ---- */
	/* After the VG is read from the data and metadata devices, before
	 * any other device's copy is read: open the devices the VG lists
	 * besides those two (CLAIM as pool_open_pv's; REP: a check or
	 * repair, where a missing device is a finding). 0 or -errno,
	 * logged (the attach fails; a positive return counts as 0). */
	int (*open_devices)(struct pool *p, unsigned claim, struct pool_check_report *rep);
	/* P's VG or its open devices changed (read again, committed or
	 * staged, put back, the devices reopened): build again what the
	 * feature builds over them (a view, pool_set_role_view). 0 or
	 * -errno. */
	int (*vg_changed)(struct pool *p);
	/* Open the device of ROLE as the pool sees it anew, with io_fd_open
	 * FLAGS, into *OUT (to io_destroy): 0, 1 when the feature has no
	 * view of ROLE (the core opens the device), or -errno, logged. */
	int (*view_open)(struct pool *p, enum vg_role role, unsigned flags,
			 struct io_engine **out);
	/* 1 when P lacks a device its VG lists (opened with it missing):
	 * then the open commits nothing (pool_open opens it read-only). */
	int (*incomplete)(const struct pool *p);
	/* -- the thin metadata's devices (the metadata mirror's hooks) -- */
	/* After the VG is read from the data and metadata devices, before
	 * the other devices' VG copies are: open the feature's devices of
	 * the thin metadata (pool_meta_dev_slot, pool_open_pv with CLAIM)
	 * and the engine over them (pool_set_meta_io); what is out is a
	 * finding in REP (check, repair) or a warning. 1 when the feature
	 * took P's metadata devices on, 0 when P is not its, -errno (logged:
	 * the attach fails). */
	int (*meta_attach)(struct pool *p, unsigned claim, struct pool_check_report *rep);
	/* VG validation: does VG (a newer copy the other devices hold) name
	 * the feature's devices as P's VG does? 1 yes, 0 no (the newer copy
	 * is no state of P). */
	int (*vg_same)(const struct pool *p, const struct vg *vg);
	/* An offline writer's open, before anything is written: 0, or
	 * -errno (logged) to refuse the pool. */
	int (*open_check)(struct pool *p);
	/* An offline open (WRITE: a writer's), its VG copies and labels put
	 * right, just before the thin metadata is opened. */
	void (*open_thin)(struct pool *p, int write);
	/* The labels of the feature's devices follow the VG as the core's
	 * do (pool_sync_labels: *CHANGED set when one differed; 0 or -errno,
	 * logged), and the ones that lag (pool_labels_behind: into NAMES
	 * from *N on, up to MAX). */
	int (*sync_labels)(struct pool *p, int *changed);
	void (*labels_behind)(const struct pool *p, const char *names[], unsigned *n, unsigned max);
	/* Commit targets: VG commit NEXT is about to be written to PVS (*N
	 * of them, room for every device slot of P): add the feature's
	 * devices that get a copy (their paths in NEXT as opened), and do
	 * what a writer does before its first commit. */
	void (*commit_targets)(struct pool *p, struct vg *next, struct vg_pv *pvs, unsigned *n);
	/* The devices were reopened for the kernel (pool_share_devices):
	 * make the feature's engines over them again. 0 or -errno. */
	int (*devices_shared)(struct pool *p);
	/* The kernel's table of P (pool_dm_layout fills L for the data and
	 * metadata devices; the feature changes what its devices change:
	 * the data device linear over several, what the kernel stacks under
	 * the metadata device), and the stack loaded with L (an activation:
	 * say what it left out). */
	void (*kernel_table)(const struct pool *p, struct tp_dm_pool_layout *l);
	void (*activated)(const struct pool *p, const struct tp_dm_pool_layout *l);
	/* Load volume V of the active pool P when it is the feature's (an
	 * encrypted volume: the unlock module stacks dm-crypt on its thin
	 * device): 1 when it did (or left V unloaded on purpose, said),
	 * 0 when V is not its (the core loads the thin device), -errno
	 * (logged). */
	int (*load_volume)(struct pool *p, const struct vg_volume *v);
	/* Set by pool_feature_register: the index of its state slot. */
	unsigned slot;
};
/* Add F (static storage, writable: its slot is set) to the table; once
 * per feature. */
void pool_feature_register(struct pool_feature *f);
/* Every feature has registered (pool_init). */
void pool_features_ready(void);
/* The feature's state slot of P: NULL until the feature stores there. */
void **pool_feature_state(struct pool *p, const struct pool_feature *f);
void *pool_feature_state_get(const struct pool *p, const struct pool_feature *f);
/* The core's steps (pool_attach.c, pool.c): run every feature's hook. */
int pool_features_vg_read(struct pool *p) TP_MUST_CHECK;
int pool_features_live_leftovers(struct pool *p, int write) TP_MUST_CHECK;
void pool_features_opened(struct pool *p, int write);
void pool_features_detach(struct pool *p);
int pool_features_open_devices(struct pool *p, unsigned claim, struct pool_check_report *rep)
	TP_MUST_CHECK;
int pool_features_vg_changed(struct pool *p) TP_MUST_CHECK;
int pool_features_view_open(struct pool *p, enum vg_role role, unsigned flags,
			    struct io_engine **out) TP_MUST_CHECK;
int pool_features_incomplete(const struct pool *p);
/* ... and the steps of the thin metadata's devices (pool_attach.c,
 * pool.c, pool_labels.c, pool_commit.c, pool_layout.c, pool_activate.c):
 * meta_attach stops at the first feature that takes the devices on. */
int pool_features_meta_attach(struct pool *p, unsigned claim, struct pool_check_report *rep)
	TP_MUST_CHECK;
int pool_features_vg_same(const struct pool *p, const struct vg *vg);
int pool_features_open_check(struct pool *p) TP_MUST_CHECK;
void pool_features_open_thin(struct pool *p, int write);
int pool_features_sync_labels(struct pool *p, int *changed) TP_MUST_CHECK;
void pool_features_labels_behind(const struct pool *p, const char *names[], unsigned *n,
				 unsigned max);
void pool_features_commit_targets(struct pool *p, struct vg *next, struct vg_pv *pvs,
				  unsigned *n);
int pool_features_devices_shared(struct pool *p) TP_MUST_CHECK;
void pool_features_kernel_table(const struct pool *p, struct tp_dm_pool_layout *l);
void pool_features_activated(const struct pool *p, const struct tp_dm_pool_layout *l);
/* The first feature whose load_volume takes V: 1, 0 when none does, or
 * its -errno. */
int pool_features_load_volume(struct pool *p, const struct vg_volume *v) TP_MUST_CHECK;

/* ---- pool_hold.c: a live send's volumes stay (see there) ---- */

/* A live tpsend's shared hold on volume V (waits briefly); logged. */
int pool_hold_volume(const struct pool *p, const struct vg_volume *v, struct tp_lock **l)
	TP_MUST_CHECK;
/* -EBUSY (logged: "being read by tpsend") while a send holds V, else 0.
 * Called by every change that would remove V, make it writable or give
 * its name another thin device (or wipe its chunks) before it does so;
 * the caller must hold the pool lock exclusively. */
int pool_volume_held(const struct pool *p, const struct vg_volume *v) TP_MUST_CHECK;
/* pool_volume_held for every read-only volume of P's VG that NEXT removes,
 * makes writable or re-points. */
int pool_holds_check_change(const struct pool *p, const struct vg *next) TP_MUST_CHECK;

/* ---- pool_provision.c: the over-provisioning limit ---- */

/* The sum of VG's volumes' and unfinished receives' virtual sizes, each
 * rounded up to whole chunks (exact: it may pass 2^64), and the most that sum may be
 * under VG's max_overprovision (UINT64_MAX: unlimited); bytes. */
unsigned __int128 pool_vg_virtual_sum(const struct vg *vg);
/* A sum of sizes that may pass 2^64 bytes, as tp_size_format writes one
 * ('h'), in EiB beyond it. */
void pool_sum_format(unsigned __int128 v, char *buf, size_t len);
uint64_t pool_vg_overprovision_limit(const struct vg *vg);
/* A percentage as a ratio: 150 -> "1.50", 100 -> "1.0". */
void pool_ratio_format(uint32_t percent, char *buf, size_t len);
/* Would committing NEXT over P's VG raise the virtual sum above NEXT's
 * limit, or shrink the data area under a limit the sum is then above?
 * -EDQUOT (logged: the figures, nothing changed, what to do), else 0. An
 * older transaction (an undo) passes, and so does a commit that neither
 * raises the sum nor shrinks the data area (lowering the limit itself is
 * tpchange's, which warns). */
int pool_provision_check(const struct pool *p, const struct vg *next) TP_MUST_CHECK;
/* Would P's data area of DATA_BYTES (smaller than now, WHAT makes it so:
 * "taking DEV away") hold its volumes under its limit? -EDQUOT (logged,
 * naming the limit, the sizes and the ways out), else 0. */
int pool_provision_check_shrink(const struct pool *p, uint64_t data_bytes, const char *what)
	TP_MUST_CHECK;

/* ---- pool_provision.c: the thin metadata a data growth needs ----
 * Growing the data area to NEW_DATA_BLOCKS grows the thin metadata's data
 * space map (a bitmap block for every 16320 chunks, and its index) inside
 * the active area of META_BLOCKS (0: as it is now). -ENOSPC (logged:
 * nothing changed, grow the metadata first) when the new bitmaps alone do
 * not fit in what is free; a warning when the area would then be at or
 * above the pool's warn threshold (naming tpextend --metadata-size and
 * how much the new data size wants). WHAT says what grows ("adding
 * DEV"). 0 or -errno. */
int pool_meta_check_growth(struct pool *p, uint64_t new_data_blocks, uint64_t meta_blocks,
			   const char *what) TP_MUST_CHECK;

/* ---- pool_commit.c ---- */

/* Commit NEXT as the pool's new VG (seqno handled by vg_commit) and back
 * it up (host.h); on success P's VG is replaced by NEXT (ownership moves),
 * on failure NEXT is freed. */
int pool_commit_vg(struct pool *p, struct vg *next) TP_MUST_CHECK;
/* The same without the backup: for a commit that only moves a receive's
 * progress mark (a backup from before it resumes the receive from an
 * earlier place, which is as good), so that a long receive does not push
 * the pool's real history out of the backups. */
int pool_commit_vg_progress(struct pool *p, struct vg *next) TP_MUST_CHECK;
/* pool_commit_vg that gives the VG NEXT replaces to *OLD (the caller's to
 * free; NULL on failure) instead of freeing it: a change's undo without a
 * copy of a VG of 100,000 volumes. */
int pool_commit_vg_keep(struct pool *p, struct vg *next, struct vg **old) TP_MUST_CHECK;

/* A preparatory write of a setting (a lease area formatted): on space no
 * reader looks at until the VG commit that NEXT is names it. Between
 * pool_settings_begin and the real commit, pool_stage_prep keeps FN to
 * run just before that commit (after every setting was checked; a
 * failure fails the commit, nothing committed); otherwise FN runs at
 * once, against NEXT. 0 or -errno (logged). */
typedef int pool_stage_prep_fn(struct pool *p, const struct vg *next);
int pool_stage_prep(struct pool *p, pool_stage_prep_fn *fn, const struct vg *next) TP_MUST_CHECK;
/* Are P's VG commits staged now (pool_settings_begin)? A setting that
 * does something beside its VG commit that a reader sees (a live table
 * reload) leaves it to after pool_settings_commit. */
int pool_settings_staging(const struct pool *p);

#endif
