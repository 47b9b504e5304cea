/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_orphan.c - orphan labels (core.h; tptools(7) ORPHAN LABELS): a
 * device whose label carries a pool's uuid and whose device uuid the
 * pool's current VG does not name. A change that adds a device labels it
 * before the VG commit that names it (tpextend --data, tpchange
 * --meta-mirror, --meta-replace), and one that takes a device away
 * commits the VG before it wipes the label (tpreduce --data, a replaced
 * leg): a cut between leaves an orphan. It holds nothing of the pool, and
 * the pool never reads it (vg_read: an older copy that names a device is
 * never the pool's VG now).
 *
 * The pool's next writer finishes the cut change: it wipes the orphan's
 * label and VG area and drops its devices-file entry, one line each
 * (pool_orphans_finish, from pool_open and tprepair); readers report them
 * (tpcheck a non-fatal finding, tpstatus a warning and the field
 * pool_orphans). A device given to tpcreate, tpextend --data, tpchange or
 * tpremove --label is told apart the same way (pool_label_owner): a
 * member of its pool, an orphan, or the label of a pool that is gone.
 *
 * The pool lock orders every writer of a pool, so a device being added
 * by a command still running is never seen here: a reader waits for the
 * lock, and an outsider (tpcreate, tpremove --label) claims the device
 * (its flock serialises it with the command adding it) before it looks.
 * (The pool looked at is attached here with pool_attach, not pool_open's
 * pool.c, which calls this file.) */
#include "lib/pool/core/core_int.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is PATH one of P's open devices (the same file or block device)? */
static int open_in(const struct pool *p, const char *path)
{
	for (unsigned k = 0; k < POOL_MAX_PVS; k++)
		if (p->pv[k].io && pool_same_device(p->pv[k].io->name, path))
			return 1;
	return 0;
}

unsigned pool_orphans(const struct pool *p, struct pool_orphan *out, unsigned max)
{
	struct pool_orphan all[POOL_ORPHANS_MAX];
	unsigned n, k = 0;

	if (!p->vg)
		return 0;
	n = pool_find_orphans(p->vg, all, TP_ARRAY_SIZE(all));
	for (unsigned i = 0; i < n && k < max; i++)
		if (!open_in(p, all[i].path))
			out[k++] = all[i];
	return k;
}

void pool_orphan_what(const struct pool_orphan *o, char *buf, size_t len)
{
	const struct vg_label *l = &o->label;
	const char *role = l->role == VG_ROLE_DATA ? "data device"
			   : l->data_index	   ? "second metadata device"
						   : "metadata device";

	if (o->kind == POOL_ORPHAN_DROPPED)
		snprintf(buf, len, "a %s the pool let go: its own older VG copy names it, the "
			 "pool's does not; the wipe of its label was cut short", role);
	else if (o->kind == POOL_ORPHAN_UNCOMMITTED)
		snprintf(buf, len, "a %s being added: no VG of the pool names it; the change was "
			 "cut before its VG commit", role);
	else
		snprintf(buf, len, "a %s whose own VG copy (seqno %llu) names it and is newer than "
			 "the pool's", role, (unsigned long long)o->own_seqno);
}

/* Wipe orphan O: claimed, looked at again under the claim, its label and
 * VG area wiped (the label first: without it the device is nobody's),
 * its devices-file entry dropped. 0 wiped, 1 left alone (held, no orphan
 * any more, or a write failed: said; the orphan is no device of the
 * pool, so the pool's own command goes on). */
static int wipe_one(struct pool *p, const struct pool_orphan *o)
{
	struct tp_lock *claim = NULL;
	struct io_engine *io = NULL;
	struct pool_orphan now;
	struct vg_label l;
	int r;

	r = pool_claim_open(p->name, o->path, 0, &claim, &io);
	if (r) {
		log_warn("pool %s: %s carries an orphan label of the pool but cannot be opened "
			 "for writing (%s); it is left alone", p->name, o->path, strerror(-r));
		return 1;
	}
	if (!pool_orphan_of(o->path, p->vg, &now) || now.kind == POOL_ORPHAN_AHEAD ||
	    vg_label_read(io, &l) != VG_LABEL_FOUND || strcmp(l.pv_uuid, o->label.pv_uuid)) {
		io_destroy(io);
		tp_lock_release(claim);
		return 1;
	}
	tp_critical_begin();
	r = vg_label_wipe(io, 0);
	if (r >= 0)
		r = vg_mda_format(io, &l);
	tp_critical_end();
	io_destroy(io);
	tp_lock_release(claim);
	if (r < 0) {
		log_warn("pool %s: cannot wipe the orphan label on %s: %s; it is left as it is "
			 "('tpremove --label %s' wipes it)", p->name, o->path, strerror(-r), o->path);
		return 1;
	}
	if (pool_devices_remove_pv(l.pv_uuid))
		log_warn("pool %s: the devices file still lists %s", p->name, o->path);
	return 0;
}

int pool_orphans_finish(struct pool *p, int quiet, char *done, size_t len, unsigned *nr_done)
{
	struct pool_orphan o[POOL_ORPHANS_MAX];
	unsigned n = pool_orphans(p, o, TP_ARRAY_SIZE(o));
	char what[256];

	if (nr_done)
		*nr_done = 0;
	if (done && len)
		done[0] = '\0';
	/* a copy ahead of the pool's VG: the devices read are behind the
	 * pool's state, and no write is safe */
	for (unsigned i = 0; i < n; i++) {
		if (o[i].kind != POOL_ORPHAN_AHEAD)
			continue;
		log_error("pool %s: %s holds the pool's VG metadata seqno %llu, which names it, "
			  "while the devices the pool was found on hold seqno %llu: they are behind "
			  "the pool's state (restored from an older image?); nothing was changed. "
			  "'tpcheck %s' says more", p->name, o[i].path,
			  (unsigned long long)o[i].own_seqno, (unsigned long long)p->vg->seqno,
			  p->name);
		return -EUCLEAN;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t used = done ? strlen(done) : 0;

		if (wipe_one(p, &o[i]))
			continue;
		if (nr_done)
			(*nr_done)++;
		if (done && used < len)
			snprintf(done + used, len - used, "%s%s", used ? ", " : "", o[i].path);
		if (!quiet) {
			pool_orphan_what(&o[i], what, sizeof(what));
			log_warn("pool %s: wiped the orphan label on %s (%s)", p->name, o[i].path,
				 what);
		}
	}
	return 0;
}

/* The pool uuid UUID under name NAME, attached read-only with a report
 * (missing devices are findings, not errors), quietly, waiting for its
 * lock only briefly. 0 with *OUT (pool_close it), -ENOENT when no pool of
 * that uuid goes by NAME, -EWOULDBLOCK when its lock stays taken, or
 * another -errno. */
static int attach_uuid(const char *name, const char *uuid, struct pool **out)
{
	struct pool_check_report rep;
	struct pool *q = calloc(1, sizeof(*q));	/* pool_attach zeroes it */
	int r;

	*out = NULL;
	if (!q)
		return -ENOMEM;
	memset(&rep, 0, sizeof(rep));
	r = pool_attach(q, name, NULL,
			POOL_RDONLY | POOL_FOREIGN_OK | POOL_FOREIGN_QUIET | POOL_ATTACH_LOCK_BRIEF,
			&rep, NULL);
	thin_check_findings_free(&rep.f);
	if (!r && (!q->vg || strcmp(q->vg->uuid, uuid)))
		r = q->vg ? -ENOENT : -ENODATA;
	if (r) {
		pool_detach(q);
		free(q);
		return r;
	}
	*out = q;
	return 0;
}

/* Is any device other than PATH (label L) known to belong to L's pool: a
 * devices-file entry whose device carries a label of its uuid, or an entry
 * under its name whose device is not there or cannot be read (a missing
 * device of it)? 1, with the pool name such a label gives in NAME (L's
 * own when none does), else 0. */
static int others_known(const char *path, const struct vg_label *l, char name[VG_NAME_MAX + 1])
{
	struct pool_devices_entry *ent = NULL;
	size_t n = 0;
	int found = 0;

	snprintf(name, VG_NAME_MAX + 1, "%s", l->pool_name);
	if (pool_devices_list(&ent, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct vg_label o;
		int r;

		if (!strcmp(ent[i].pv_uuid, l->pv_uuid) || pool_same_device(ent[i].path, path))
			continue;
		r = pool_read_label(ent[i].path, &o);
		if (!r && !strcmp(o.pool_uuid, l->pool_uuid)) {
			snprintf(name, VG_NAME_MAX + 1, "%s", o.pool_name);
			found = 1;
			break;
		}
		if (r && !strcmp(ent[i].pool, l->pool_name))
			found = 1;	/* listed under its name, not there */
	}
	free(ent);
	return found;
}

/* Does PATH's own VG copy name its device uuid (it was a member)? */
static int own_copy_names(const char *path)
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	struct vg_pv pv;
	struct vg *own = NULL;
	int r;

	memset(&pv, 0, sizeof(pv));
	r = !io_fd_open(path, IO_RDONLY, &pv.io) &&
	    vg_label_read(pv.io, &pv.label) == VG_LABEL_FOUND && !vg_read(&pv, 1, &own, NULL) &&
	    vg_lists_device(own, pv.label.pv_uuid);
	vg_free(own);
	io_destroy(pv.io);
	tp_log_capture_pop(outer);
	return r;
}

/* "data device 2", "the metadata device", ... of VG for device uuid U,
 * a device VG lists. */
static void member_what(const struct vg *vg, const char *u, char *buf, size_t len)
{
	int i = vg_data_index(vg, u);

	if (i >= 0)
		snprintf(buf, len, "its data device %d", i + 1);
	else if (!strcmp(vg->dev[VG_ROLE_META].pv_uuid, u))
		snprintf(buf, len, "its metadata device");
	else	/* listed (vg_lists_device), so vg.meta1 */
		snprintf(buf, len, "its second metadata device");
}

int pool_label_owner(const char *path, struct pool_label_owner *o)
{
	struct tp_log_capture quiet, *outer;
	char other[VG_NAME_MAX + 1] = "";
	struct pool *q = NULL;
	int r;

	memset(o, 0, sizeof(*o));
	o->data_index = -1;
	r = pool_read_label(path, &o->label);
	if (r == -ENOENT)
		return 0;	/* POOL_LABEL_NONE */
	if (r) {
		o->kind = POOL_LABEL_DAMAGED;
		snprintf(o->what, sizeof(o->what), "a damaged tptools label");
		return 0;
	}
	snprintf(o->pool, sizeof(o->pool), "%s", o->label.pool_name);
	outer = tp_log_capture_push(&quiet);
	r = attach_uuid(o->label.pool_name, o->label.pool_uuid, &q);
	/* the pool renamed since the label was written: by another name */
	if (r == -ENOENT && others_known(path, &o->label, other) &&
	    strcmp(other, o->label.pool_name) && !(r = attach_uuid(other, o->label.pool_uuid, &q)))
		snprintf(o->pool, sizeof(o->pool), "%s", other);
	tp_log_capture_pop(outer);
	if (r == -EWOULDBLOCK) {
		o->kind = POOL_LABEL_UNKNOWN;
		snprintf(o->what, sizeof(o->what), "the label of pool %s, which is in use by another "
			 "tptools command (its lock stayed taken: try again when it has finished)",
			 o->pool);
		return 0;
	}
	if (r == -ENOMEM)
		return r;
	if (!r && vg_lists_device(q->vg, o->label.pv_uuid)) {
		o->kind = POOL_LABEL_MEMBER;
		member_what(q->vg, o->label.pv_uuid, o->what, sizeof(o->what));
		o->data_index = vg_data_index(q->vg, o->label.pv_uuid);
		o->nr_data = vg_nr_data(q->vg);
	} else if (!r && pool_orphan_of(path, q->vg, &o->orphan)) {
		char why[200];

		o->kind = o->orphan.kind == POOL_ORPHAN_AHEAD ? POOL_LABEL_AHEAD : POOL_LABEL_ORPHAN;
		pool_orphan_what(&o->orphan, why, sizeof(why));
		snprintf(o->what, sizeof(o->what), "%s label of pool %s (%s)",
			 o->kind == POOL_LABEL_ORPHAN ? "an orphan" : "the", o->pool, why);
	} else if (!r) {
		/* a component, or another device of the pool took its place */
		o->kind = POOL_LABEL_UNKNOWN;
		snprintf(o->what, sizeof(o->what), "the label of pool %s, which this device is "
			 "not the top of", o->pool);
	} else {
		o->was_member = own_copy_names(path);
		if (others_known(path, &o->label, other) || r == -ENODATA) {
			o->kind = POOL_LABEL_UNKNOWN;
			snprintf(o->what, sizeof(o->what), "the label of pool %s, whose other "
				 "devices are missing or unreadable", o->pool);
		} else {
			o->kind = POOL_LABEL_GONE;
			snprintf(o->what, sizeof(o->what), "the label of pool %s, of which no other "
				 "device is found", o->pool);
		}
	}
	if (q)
		pool_detach(q);
	free(q);
	return 0;
}

void pool_label_refusal(const char *path, const struct pool_label_owner *o, const char *refused,
			int force_takes)
{
	switch (o->kind) {
	case POOL_LABEL_NONE:
		break;
	case POOL_LABEL_MEMBER:
		if (o->data_index >= 0 && o->nr_data > 1)
			log_error("%s belongs to pool %s (%s: its VG names it); %s. Name another "
				  "device; to free this one, take it out of the pool with 'tpreduce "
				  "--data %s %s' (or, only if pool %s and its volumes are no longer "
				  "needed, remove it with 'tpremove %s')", path, o->pool, o->what,
				  refused, path, o->pool, o->pool, o->pool);
		else
			log_error("%s belongs to pool %s (%s: its VG names it); %s. Name another "
				  "device (only if pool %s and its volumes are no longer needed, "
				  "'tpremove %s' frees this one)", path, o->pool, o->what, refused,
				  o->pool, o->pool);
		break;
	case POOL_LABEL_ORPHAN:
	case POOL_LABEL_GONE:
		log_error("%s carries %s, not a device of it; %s. 'tpremove --label %s' wipes the "
			  "label%s", path, o->what, refused, path,
			  force_takes ? ", or add --force" : "");
		break;
	case POOL_LABEL_AHEAD:
		log_error("%s carries %s: no orphan, but the devices pool %s was found on are "
			  "behind its state; %s. 'tpcheck %s' says more", path, o->what, o->pool,
			  refused, o->pool);
		break;
	case POOL_LABEL_UNKNOWN:
		log_error("%s carries %s: whether it is a device of the pool cannot be told; %s. "
			  "'tpcheck %s' says more; if the device is no longer needed, "
			  "'tpremove --label --force %s' wipes the label", path, o->what, refused,
			  o->pool, path);
		break;
	case POOL_LABEL_DAMAGED:
		log_error("%s carries a damaged tptools label; %s. If it is a pool's device, "
			  "'tprepair POOL' rewrites the label; if it is no longer needed, 'tpremove "
			  "--label --force %s' wipes it", path, refused, path);
		break;
	}
}
