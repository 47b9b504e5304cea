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
	struct vg_pv pv[VG_NR_ROLES];	/* indexed by role; io owned */
	struct vg *vg;
	struct io_engine *thin_io;	/* window over the active area */
	struct thin_md *md;		/* NULL while the kernel runs the pool */
	int live;			/* the pool is active in the kernel */
	char pool_dm[128];		/* its thin-pool dm name, when live */
};

/* pool_live.c: the kernel side of an active pool. */
/* Is the pool active? Sets p->live and p->pool_dm. */
int pool_live_detect(struct pool *p) TP_MUST_CHECK;
/* The transaction-id protocol against the kernel's metadata. */
int pool_live_reconcile(struct pool *p, int write) TP_MUST_CHECK;
/* Thin device ids in the kernel's metadata (via a metadata snapshot). */
int pool_live_list_devices(struct pool *p, uint64_t **ids, size_t *n) TP_MUST_CHECK;
/* Per-device usage from the kernel's metadata snapshot. */
struct pool_dev_usage;
int pool_live_usage(struct pool *p, uint64_t nr_data_blocks, struct pool_dev_usage **u,
		    size_t *n) TP_MUST_CHECK;
/* Replay the VG's intent onto a device list (pool_txn.c), through the
 * thin metadata or, when live, pool messages. */
int pool_replay(struct pool *p, const uint64_t *ids, size_t n) TP_MUST_CHECK;
/* Thin-device operations for either side (offline metadata or kernel). */
int pool_op_create(struct pool *p, uint32_t dev_id) TP_MUST_CHECK;
int pool_op_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *origin) TP_MUST_CHECK;
int pool_op_delete(struct pool *p, uint32_t dev_id, const char *vol) TP_MUST_CHECK;
int pool_op_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id) TP_MUST_CHECK;

/* Read-only probe of PATH's label into *L (0 = ours, -ENOENT = not a
 * tptools device, -errno). */
int pool_read_label(const char *path, struct vg_label *l) TP_MUST_CHECK;

/* Open the thin metadata of the active area (pool_open and after a repair
 * swap). */
int pool_open_thin(struct pool *p) TP_MUST_CHECK;

/* Make the thin metadata agree with the VG (the transaction-id protocol in
 * pool.h). WRITE: repair an interrupted transaction; else only report. */
int pool_reconcile(struct pool *p, int write) TP_MUST_CHECK;

/* Commit NEXT as the pool's new VG (seqno handled by vg_commit) and back
 * it up (host.h); on success P's VG is replaced by NEXT (ownership moves),
 * on failure NEXT is freed. */
int pool_commit_vg(struct pool *p, struct vg *next) TP_MUST_CHECK;

/* Add (or update) the devices-file entry of one pool device; a failure is
 * a warning (the file is a cache). */
void pool_record_device(const char *pool, enum vg_role role, const char *pv_uuid,
			const char *path);

/* Find the pool's devices: the devices file, else a label scan of block
 * devices. Fills PATHS[role] (malloc'd). */
int pool_find_devices(const char *name, char *paths[VG_NR_ROLES]) TP_MUST_CHECK;

#endif
