/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_hold.c - volume holds: what keeps a long reader's volumes in
 * place once it no longer holds the pool lock (core.h). A hold is the
 * core's: every VG commit checks the holds, so no feature's code runs on
 * a commit; tpsend (lib/pool/stream) is the one reader that takes holds.
 *
 * A live send walks the mappings under the pool's shared lock (and a
 * kernel metadata snapshot), then takes a shared lock per volume it reads,
 * "<pool>:send-<thin id>" in the lock directory, and lets the pool lock go,
 * so the pool's writers (tvcreate, tvsnap, tpmonitor's autoextension)
 * are not held up for the hours a large send can take. Every VG commit
 * (pool_commit_vg) that would remove a read-only volume, make it writable
 * or give its name another thin device tries that volume's lock
 * exclusively without waiting, and refuses while a send holds it. A
 * writer holds the pool lock exclusively, so no send can take a new hold
 * during its command: one try is an answer for the whole command.
 * Volumes a change has just made are held by no send. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int send_lock(const struct pool *p, uint32_t dev_id, unsigned flags, struct tp_lock **l)
{
	char name[VG_NAME_MAX + 32];

	/* ':' is no pool-name character: no pool's own lock is named so */
	snprintf(name, sizeof(name), "%s:send-%u", p->name, dev_id);
	return tp_lock_acquire(name, flags, l);
}

int pool_hold_volume(const struct pool *p, const struct vg_volume *v, struct tp_lock **l)
{
	int r = send_lock(p, v->dev_id, TP_LOCK_SHARED | TP_LOCK_BRIEF, l);

	if (r)
		log_error("pool %s: cannot hold volume %s for the send: %s", p->name, v->name,
			  strerror(-r));
	return r;
}

int pool_volume_held(const struct pool *p, const struct vg_volume *v)
{
	struct tp_lock *l;
	int r = send_lock(p, v->dev_id, TP_LOCK_EXCL | TP_LOCK_NOWAIT, &l);

	if (r == -EWOULDBLOCK) {
		log_error("pool %s: volume %s is being read by tpsend; try again when the send "
			  "has finished; nothing was changed", p->name, v->name);
		return -EBUSY;
	}
	if (r) {
		log_error("pool %s: cannot tell whether a tpsend reads volume %s: %s", p->name,
			  v->name, strerror(-r));
		return r;
	}
	tp_lock_release(l);
	return 0;
}

int pool_holds_check_change(const struct pool *p, const struct vg *next)
{
	for (unsigned i = 0; i < p->vg->nr_volumes; i++) {
		const struct vg_volume *v = &p->vg->volumes[i], *w = NULL;
		int r;

		if (!v->read_only)
			continue;
		/* a change keeps the volumes' order, so V is found at its own
		 * place, or one off after a volume came or went, without a
		 * search of every volume for each (issue 40) */
		for (unsigned j = i ? i - 1 : 0; j <= i + 1 && j < next->nr_volumes && !w; j++)
			if (!strcmp(next->volumes[j].name, v->name))
				w = &next->volumes[j];
		if (!w)
			w = vg_find_volume(next, v->name);
		if (w && w->read_only && w->dev_id == v->dev_id)
			continue;
		if (!w && (w = vg_find_dev_id(next, v->dev_id)) && w->read_only)
			continue;	/* renamed */
		if ((r = pool_volume_held(p, v)))
			return r;
	}
	return 0;
}
