/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_leftovers.c - what a SIGKILL (or a crash) of a tptools command
 * leaves in the kernel, cleared by the next command that attaches the
 * pool (pool_backend.c calls this before deciding live or offline):
 *   - a device left suspended between suspend and resume (a live
 *     snapshot's origin): resumed, so its I/O no longer hangs;
 *   - a half-made stack (tmeta/tdata without the thin-pool device: an
 *     activation cut short): removed, so the devices are free again;
 *   - the kernel's metadata snapshot held with no tptools command holding
 *     its lock (pool_live.c): released, so live reads work again.
 * The pool lock is held (shared at least), so no tptools command of this
 * pool is inside a suspend or an activation meanwhile. Each clearing is
 * said in one line on stderr. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

static int is_stack_piece(const struct tp_dm_pool_devs *d, const char *name)
{
	return !strcmp(name, d->tpool) || !strcmp(name, d->tmeta) || !strcmp(name, d->tdata);
}

/* Resume the suspended devices: the pool's own pieces first, as the
 * volumes' I/O goes through them. */
static int resume_suspended(struct pool *p, const struct tp_dm_pool_devs *d)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < d->nr_suspended; i++) {
			const char *name = d->suspended[i];
			int r;

			if (is_stack_piece(d, name) != !pass)
				continue;
			r = tp_dm_resume(name);
			if (r) {
				log_error("pool %s: %s is suspended and could not be resumed: %s; "
					  "resume it with 'dmsetup resume %s'", p->name, name,
					  strerror(-r), name);
				return r;
			}
			log_warn("pool %s: resumed %s, left suspended by an interrupted tptools "
				 "command", p->name, name);
		}
	}
	return 0;
}

static int remove_piece(struct pool *p, const char *name)
{
	int r;

	if (!name[0])
		return 0;
	r = tp_dm_remove(name);
	if (r && r != -ENXIO) {
		log_error("pool %s: %s is left from an interrupted activation and could not be "
			  "removed: %s; remove it with 'dmsetup remove %s'", p->name, name,
			  strerror(-r), name);
		return r;
	}
	log_warn("pool %s: removed %s, left by an interrupted activation", p->name, name);
	return 0;
}

/* A metadata snapshot held while no tptools command holds its lock. */
static int release_held_snapshot(struct pool *p, const char *tpool)
{
	struct tp_dm_pool_status st;
	struct tp_lock *lock;
	int r = tp_dm_pool_status(tpool, TP_DM_NOFLUSH, &st);

	if (r || !st.has_held_root)
		return r;
	r = pool_msnap_lock(p, TP_LOCK_NOWAIT, &lock);
	if (r == -EWOULDBLOCK)
		return 0;	/* another tptools command is reading it */
	if (r)
		return r;
	r = tp_dm_release_metadata_snap(tpool);
	tp_lock_release(lock);
	/* EINVAL: the kernel finds no snapshot to release after all (its
	 * status, read before, can show the root of one just released) */
	if (r == -EINVAL)
		return 0;
	if (r) {
		log_error("pool %s: the kernel holds a metadata snapshot that could not be "
			  "released: %s", p->name, strerror(-r));
		return r;
	}
	log_warn("pool %s: released a metadata snapshot left held by an interrupted tptools "
		 "command", p->name);
	return 0;
}

int pool_clear_leftovers(struct pool *p, const char *uuid, struct tp_dm_pool_devs *d)
{
	char why[256];
	int r;

	if ((r = resume_suspended(p, d)))
		return r;
	if (d->tpool[0])
		return release_held_snapshot(p, d->tpool);
	if (!d->tmeta[0] && !d->tdata[0])
		return 0;
	if ((r = remove_piece(p, d->tdata)) || (r = remove_piece(p, d->tmeta)))
		return r;
	r = tp_dm_pool_find(uuid, d, why, sizeof(why));
	if (r)
		log_error("pool %s: %s", p->name, why);
	return r;
}
