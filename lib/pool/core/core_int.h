/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core_int.h - what only lib/pool/core sees: struct pool and the
 * backends behind it. Every other module goes through core.h. */
#ifndef TP_POOL_CORE_INT_H
#define TP_POOL_CORE_INT_H

#include "lib/pool/core/core.h"

/* pool_layout.c: the live backend's grow_catch_up (core.h: pool_grow_catch_up) */
int pool_live_catch_up(struct pool *p, struct pool_extend_result *res) TP_MUST_CHECK;

/* The features the core's lifecycle table holds at most (pool_feature.c). */
#define POOL_FEATURES_MAX 8

/* Every device of a pool: the data and meta devices (by role), then the
 * data devices tpextend --data added, in the data area's order. */
#define POOL_MAX_PVS (VG_NR_ROLES + VG_DATA_DEVICES_MAX)
/* The second metadata device (vg.meta1), which a feature attaches (the
 * metadata mirror, lib/pool/mirror: core.h pool_meta_dev_slot): the last
 * slot, outside pool_nr_pvs's count. */
#define POOL_META1_PV (POOL_MAX_PVS - 1)
/* The index in struct pool's pv[] of data device I (vg.h: vg_data_dev). */
#define POOL_DATA_PV(i) ((i) ? VG_NR_ROLES + (i) - 1 : VG_ROLE_DATA)

struct pool {
	char name[VG_NAME_MAX + 1];
	unsigned flags;
	int memo;			/* pool_open's vg_mda_memo_begin, ended at close */
	struct tp_lock *lock;
	struct tp_lock *claim[POOL_MAX_PVS];	/* writers: the devices' flocks, open order */
	struct vg_pv pv[POOL_MAX_PVS];	/* by role, then added data devices; io owned */
	unsigned nr_pv;			/* VG_NR_ROLES + the added data devices open */
	/* a feature's view of a role's device (pool_set_role_view: the data
	 * module's concatenation of several data devices), what pool_pv
	 * hands out; NULL: pv[role] */
	struct vg_pv *role_view[VG_NR_ROLES];
	struct vg *vg;
	int vg_too_new;			/* the VG read met a copy of a newer format (pool_vg_too_new) */
	struct io_engine *thin_io;	/* window over the active area */
	/* the engine the thin-metadata areas are read and written through
	 * offline, when a feature made one over the metadata devices
	 * (pool_set_meta_io); NULL: the meta device itself */
	struct io_engine *meta_io;
	struct thin_md *md;		/* NULL while the kernel runs the pool */
	const struct pool_backend *be;	/* who owns the thin metadata (pool_backend.c) */
	char pool_dm[128];		/* its thin-pool dm name, when live */
	int latched;			/* pool_latch_read_only: no more writes */
	int foreign;			/* owned by another host (lib/pool/owner: pool_set_foreign) */
	/* the commits this handle made (a VG commit, the thin commit that
	 * completes an interrupted transaction): pool_commits; of them,
	 * the open's rewrite of a stale or damaged VG copy: pool_copy_rewrites */
	unsigned commits, copy_rewrites;
	/* each registered feature's state of this pool (pool_feature.c):
	 * the feature's own, opaque here; its detach hook frees it */
	void *feature_state[POOL_FEATURES_MAX];
	/* one change of several settings (pool_settings_begin, pool_commit.c):
	 * while STAGE_BASE is set, P->vg is the staged VG and STAGE_BASE the
	 * durable one; STAGING: a VG commit only stages (nothing written);
	 * STAGED: how many did; STAGE_PREP: the preparatory writes to run
	 * just before the one real commit */
	struct vg *stage_base;
	int staging;
	unsigned staged;
	pool_stage_prep_fn *stage_prep[2];
	/* a live removal's thin device, open for its steps (pool_live.c):
	 * one open and one close a removal, not one a step (each close of a
	 * device open for writing is a udev change event and a probe of the
	 * device); closed by pool_removal_release before the delete */
	int removal_fd, removal_fd_open;
};

/* The size of a removal step (pool_unmap.c): STEP, or what a test asks
 * for (TP_TEST_REMOVE_STEP, test builds only). */
uint64_t pool_removal_step(uint64_t step);
/* Live, every how many steps a flush makes the kernel commit: EVERY, or
 * TP_TEST_REMOVE_FLUSH (test builds only; the benchmark tries others). */
uint64_t pool_removal_flush_every(uint64_t every);
/* The removal's device, if a live step left it open, closed (pool_unmap.c). */
void pool_removal_release(struct pool *p);

/* ---- pool_backend.c: offline engine or live kernel, decided once ----
 *
 * Every operation on the thin side of a pool goes through P->be, chosen
 * at attach time by pool_decide_backend and switched only by activation
 * and deactivation (pool_activate.c). Offline: the engine in metadata/thin
 * on the devices (changes uncommitted until commit). Live: the kernel's
 * pool, through messages (each one commits) and a metadata snapshot for
 * reads (pool_live.c, pool_msnap.c). */
struct pool_status;
struct pool_dev_usage;
struct pool_backend {
	int live;		/* the kernel runs the pool */
	int (*create)(struct pool *p, uint32_t dev_id);
	int (*snap)(struct pool *p, uint32_t dev_id, const struct vg_volume *origin);
	/* VOL (may be NULL): the volume's name, unloaded first when live */
	int (*delete_thin)(struct pool *p, uint32_t dev_id, const char *vol);
	int (*set_tid)(struct pool *p, uint64_t old_id, uint64_t new_id);
	/* One bounded step of removal RM (lib/pool/removal): unless PROBE,
	 * unmap one step's worth of its mappings from chunk *POS on and make
	 * that durable; *POS moves past what was done, *LEFT gets the
	 * mappings it still has. Offline the first 65536 mappings go and the
	 * thin metadata is committed; live a discard of 16 chunks from
	 * *POS through its device, a flush every 16th (the kernel commits). */
	int (*unmap_step)(struct pool *p, const struct vg_volume *rm, int do_step,
			  uint64_t *pos, uint64_t *left);
	int (*commit)(struct pool *p);	/* the thin transaction; live: done per message */
	int (*abort)(struct pool *p);	/* drop the uncommitted part; live: nothing to drop */
	/* A change failed (ERR, logged) after its VG commit to transaction
	 * TID + 1; UNDO is the VG before it (consumed). Offline: drop the
	 * thin transaction and put the VG back. Live: pool_live_settle.
	 * Returns what the change returns: ERR, or 0 when it was completed. */
	int (*settle)(struct pool *p, uint64_t tid, struct vg *undo, int err);
	/* the transaction-id protocol at open (pool_txn.c) */
	int (*reconcile)(struct pool *p, int write);
	/* pool-level figures in blocks, and per-device usage (pool_status.c) */
	int (*figures)(struct pool *p, struct pool_status *st, uint64_t *mu, uint64_t *mt,
		       uint64_t *du, uint64_t *dt);
	int (*usage)(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		     size_t *n);
	/* per-device mapped alone, from the device details: O(devices) */
	int (*details)(struct pool *p, struct pool_dev_usage **u, size_t *n);
	/* the fill in blocks, cheaply: live without a flush (which would
	 * commit), for the monitor and the warnings (core.h: pool_fill_blocks) */
	int (*fill)(struct pool *p, uint64_t *mu, uint64_t *mt, uint64_t *du, uint64_t *dt);
	/* a view of the thin metadata to read mappings from (core.h; the
	 * view says itself what its end releases) */
	int (*view_begin)(struct pool *p, struct pool_meta_view *v);
	/* the growth of the areas (core.h: pool_grow_thin, pool_grow_undone,
	 * pool_grow_catch_up) */
	int (*grow)(struct pool *p, const struct pool_growth *g);
	void (*grow_undone)(struct pool *p, const struct pool_growth *g);
	int (*grow_catch_up)(struct pool *p, struct pool_extend_result *res);
};
extern const struct pool_backend pool_backend_offline;	/* pool_offline.c */
extern const struct pool_backend pool_backend_live;	/* pool_live.c, pool_msnap.c */

/* The pool's devices as the liveness decision sees them. */
enum pool_liveness {
	POOL_IS_OFFLINE,	/* nothing of the pool loaded, its devices free */
	POOL_IS_LIVE,		/* its thin-pool device is loaded */
	POOL_IS_HELD,		/* not loaded by us, but a device is held: refuse */
	POOL_IS_UNKNOWN,	/* device-mapper present but not answering: refuse */
};

/* The decision as a pure function (unit tested): DM_ERR the answer of
 * device-mapper (0, or -errno when it is present but could not be asked;
 * a host without device-mapper answers 0 with nothing loaded), HAS_TPOOL
 * whether the pool's thin-pool device is loaded, HELD whether a device of
 * the pool refused an exclusive open. */
enum pool_liveness pool_liveness_decide(int dm_err, int has_tpool, int held);

/* Decide P's backend for the devices PATHS (pool uuid UUID, "" when no
 * label could be read: then the dm name of the pool is asked), after
 * clearing what a killed command left behind (pool_leftovers.c). Sets
 * P->be and P->pool_dm. -EBUSY or the dm error, logged with what to do,
 * when the answer is not a clear offline or live: the pool is refused. */
int pool_decide_backend(struct pool *p, char *const paths[2], const char *uuid) TP_MUST_CHECK;

#endif
