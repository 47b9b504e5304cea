/* pool_int.h - lib/pool internals shared by its files; not for tools. */
#ifndef TP_POOL_POOL_INT_H
#define TP_POOL_POOL_INT_H

#include "lib/base/io.h"
#include "lib/base/lock.h"
#include "lib/pool/pool.h"
#include "metadata/thin/thin.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"

struct pool {
	char name[VG_NAME_MAX + 1];
	unsigned flags;
	struct tp_lock *lock;
	struct tp_lock *claim[VG_NR_ROLES];	/* writers: the devices' flocks, open order */
	struct vg_pv pv[VG_NR_ROLES];	/* indexed by role; io owned */
	struct vg *vg;
	struct io_engine *thin_io;	/* window over the active area */
	struct thin_md *md;		/* NULL while the kernel runs the pool */
	int live;			/* the pool is active in the kernel */
	char pool_dm[128];		/* its thin-pool dm name, when live */
	const char *rename_to;		/* tprename: labels and VG may name this pool too */
};

/* ---- pool_attach.c: the one way into a pool's devices ---- */

enum pool_attach_flags {
	/* POOL_RDONLY (pool.h): shared lock, devices opened read-only */
	POOL_ATTACH_OFFLINE = 1 << 8,	/* refuse (-EBUSY) a pool the kernel runs */
};

struct pool_check_report;

/* Fill P (zeroed here) for pool NAME: the name check, the pool lock
 * (shared with POOL_RDONLY, else exclusive), the devices (DEVICES "A,B",
 * else the devices file or a label scan), opened read-only with
 * POOL_RDONLY, their labels by role, the VG (STATUS, may be NULL: its
 * copies), and P->live / P->pool_dm. No thin metadata is opened.
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

/* Open the thin metadata of the active area (pool_open, after
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
};

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

/* ---- pool_txn.c: the transaction-id protocol (pool.h) ---- */

/* Make the thin metadata agree with the VG. WRITE: complete an
 * interrupted transaction; else only report it. */
int pool_reconcile(struct pool *p, int write) TP_MUST_CHECK;
/* The same against the kernel's pool (P->live). */
int pool_live_reconcile(struct pool *p, int write) TP_MUST_CHECK;

/* ---- pool_live.c: reading an active pool's metadata ---- */

/* Thin device ids in the kernel's metadata (via a metadata snapshot). */
int pool_live_list_devices(struct pool *p, uint64_t **ids, size_t *n) TP_MUST_CHECK;
/* Per-device usage from the kernel's metadata snapshot. */
struct pool_dev_usage;
int pool_live_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		    size_t *n) TP_MUST_CHECK;

/* ---- pool_ops.c: thin-device operations, offline or through the kernel ---- */

int pool_op_create(struct pool *p, uint32_t dev_id) TP_MUST_CHECK;
int pool_op_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *origin) TP_MUST_CHECK;
int pool_op_delete(struct pool *p, uint32_t dev_id, const char *vol) TP_MUST_CHECK;
int pool_op_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id) TP_MUST_CHECK;
/* Unload volume VOL's thin target: 0 also when it was not loaded; -EBUSY
 * (logged) while it is in use. */
int pool_op_vol_deactivate(struct pool *p, const char *vol) TP_MUST_CHECK;

/* ---- volume.c: one change under the protocol ---- */

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

/* NAME is a valid volume name not taken in P: 0, -EINVAL or -EEXIST
 * (logged). */
int pool_name_free(struct pool *p, const char *name) TP_MUST_CHECK;

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

/* ---- pool_labels.c: the labels follow the VG ---- */

/* Make the in-memory labels of P carry the geometry its VG records
 * (device sizes, areas), which a growth commits first; unless
 * POOL_RDONLY, also write each label that differs (0 or -errno, logged).
 * *CHANGED (may be NULL) is set when a label differed. */
int pool_sync_labels(struct pool *p, int *changed) TP_MUST_CHECK;

/* ---- pool_find.c: where the devices are ---- */

/* Read-only probe of PATH's label into *L (0 = ours, -ENOENT = not a
 * tptools device, -errno). */
int pool_read_label(const char *path, struct vg_label *l) TP_MUST_CHECK;

/* Add (or update) the devices-file entry of one pool device; a failure is
 * a warning (the file is a cache). */
void pool_record_device(const char *pool, enum vg_role role, const char *pv_uuid,
			const char *path);

/* Find the pool's devices: the devices file, else a label scan of block
 * devices. Fills PATHS[role] (malloc'd). */
int pool_find_devices(const char *name, char *paths[VG_NR_ROLES]) TP_MUST_CHECK;

/* Copies of PATHS (other block devices whose label carries the same
 * device uuid, like LVM's duplicate PVs), found by a label scan; a device
 * another one is built on (md member, multipath path: it has holders in
 * sysfs) is not a copy. None: 0.
 * Some: REFUSE -EBUSY with an error naming every pair and --devices as
 * the way to pick, else a warning and 0. */
int pool_check_duplicates(const char *name, char *const paths[VG_NR_ROLES], int refuse)
	TP_MUST_CHECK;

/* Are A and B the same file or block device? */
int pool_same_device(const char *a, const char *b);

/* ---- pool_activate.c ---- */

struct tp_dm_pool_layout;
/* The dm table settings of P's thin-pool stack, from its labels and VG. */
void pool_dm_layout(const struct pool *p, struct tp_dm_pool_layout *l);

/* ---- pool_extend.c ---- */

/* The largest thin-metadata area (bytes) the metadata device has room
 * for with its spare (the current size when none more). */
uint64_t pool_meta_room(const struct pool *p);

/* ---- pool_extend_live.c: growing an active pool ---- */

/* pool_change's thin side for a live pool (ARG unused): the labels follow
 * the VG just committed, then the kernel's stack is reloaded over the
 * grown areas. 0 or -errno, logged. */
int pool_extend_live_apply(struct pool *p, const void *arg) TP_MUST_CHECK;
/* When the kernel's pool is smaller than P's VG says (a live growth cut
 * short after its VG commit), reload it: 1 done (RES: the kernel's old
 * sizes and the new ones), 0 nothing to finish, -errno (logged). */
int pool_extend_live_catch_up(struct pool *p, struct pool_extend_result *res) TP_MUST_CHECK;

/* ---- volume_live.c ---- */

/* After the VG commit that grew volume NAME (thin id DEV_ID) to SIZE
 * bytes: when the kernel has it loaded, reload its table with the new
 * size (0 too when not live or not loaded); -errno, logged, with the
 * way to finish it. */
int pool_volume_live_grow(struct pool *p, const char *name, uint32_t dev_id, uint64_t size)
	TP_MUST_CHECK;

/* ---- pool_watch.c: the monitoring policy ---- */

/* M is a valid policy: 0, or -EINVAL logged naming POOL and the setting. */
int pool_monitor_policy_check(const char *pool, const struct pool_monitor_policy *m)
	TP_MUST_CHECK;
void pool_monitor_policy_to_vg(const struct pool_monitor_policy *m, struct vg_monitor *v);

/* ---- pool.c ---- */

/* Commit NEXT as the pool's new VG (seqno handled by vg_commit) and back
 * it up (host.h); on success P's VG is replaced by NEXT (ownership moves),
 * on failure NEXT is freed. */
int pool_commit_vg(struct pool *p, struct vg *next) TP_MUST_CHECK;

#endif
