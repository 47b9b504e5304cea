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
	struct thin_md *md;
};

/* Read-only probe of PATH's label into *L (0 = ours, -ENOENT = not a
 * tptools device, -errno). */
int pool_read_label(const char *path, struct vg_label *l) TP_MUST_CHECK;

/* Open the thin metadata of the active area (pool_open and after a repair
 * swap). */
int pool_open_thin(struct pool *p) TP_MUST_CHECK;

/* Make the thin metadata agree with the VG (the transaction-id protocol in
 * pool.h). WRITE: repair an interrupted transaction; else only report. */
int pool_reconcile(struct pool *p, int write) TP_MUST_CHECK;

/* Commit NEXT as the pool's new VG (seqno handled by vg_commit); on success
 * P's VG is replaced by NEXT (ownership moves), on failure NEXT is freed. */
int pool_commit_vg(struct pool *p, struct vg *next) TP_MUST_CHECK;

/* Find the pool's devices: the devices file, else a label scan of block
 * devices. Fills PATHS[role] (malloc'd). */
int pool_find_devices(const char *name, char *paths[VG_NR_ROLES]) TP_MUST_CHECK;

#endif
