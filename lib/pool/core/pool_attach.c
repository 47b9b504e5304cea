/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_attach.c - the one way into a pool's devices, for pool_open,
 * pool_check and pool_repair alike: the name check, the pool lock, where
 * the devices are (--devices "A,B", else the devices file or a label scan:
 * pool_find.c), opening them (read-only unless writing), their labels,
 * the --devices record in the devices file, the VG, and whether the
 * kernel runs the pool. Also opening the thin metadata of the active area.
 *
 * Two ways to meet a problem: pool_open (no report) wants a sound pool
 * and fails on the first one, logged; check and repair (a report) note
 * label and VG-copy problems as findings and go on as far as they can.
 * Each keeps its own messages. See core.h for the contract. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/le.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pool_problem(struct pool_check_report *rep, int fatal, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	thin_check_vadd(&rep->f, fatal, UINT64_MAX, fmt, ap);
	va_end(ap);
}

/* Split "A,B" into PATHS (malloc'd); -EINVAL unless exactly two. REPORT:
 * check/repair (their message, the paths as given); else pool_open's
 * message and absolute paths (the devices file must not depend on the
 * cwd). */
static int split_devices(const char *devices, int report, char *paths[2])
{
	const char *comma = strchr(devices, ',');

	paths[0] = paths[1] = NULL;
	if (!comma || comma == devices || !comma[1] || strchr(comma + 1, ',')) {
		if (report)
			log_error("--devices wants DATA,META, not '%s'", devices);
		else
			log_error("--devices '%s': give the pool's two devices as DATA,META",
				  devices);
		return -EINVAL;
	}
	paths[0] = strndup(devices, (size_t)(comma - devices));
	paths[1] = strdup(comma + 1);
	for (int i = 0; i < 2 && !report; i++) {
		char *abs = paths[i] ? realpath(paths[i], NULL) : NULL;
		if (abs) {
			free(paths[i]);
			paths[i] = abs;
		}
	}
	if (!paths[0] || !paths[1]) {
		free(paths[0]);
		free(paths[1]);
		paths[0] = paths[1] = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Open PATH, device K of P: read-only for a reader, else claimed
 * (pool_claim_open: exclusive, its flock kept in P->claim[K]). */
int pool_open_pv(struct pool *p, unsigned k, const char *path, unsigned claim,
		 struct io_engine **io)
{
	if (p->flags & POOL_RDONLY)
		return io_fd_open(path, IO_RDONLY, io);
	return pool_claim_open(p->name, path, claim, &p->claim[k], io);
}

/* Does label L carry an older name of pool NAME: its pool uuid the one
 * this host's devices file records for NAME (the name in a label is a
 * hint that may lag, as after a tprename cut before its labels, or an
 * older label put back; the VG decides, and a writer rewrites it)? */
static int name_lags(const char *name, const struct vg_label *l)
{
	char uuid[VG_UUID_LEN + 1];

	return !pool_devices_pool_uuid(name, uuid) && !strcmp(uuid, l->pool_uuid);
}

/* Open PATH (the I-th device; a writer claims it, pool_claim.c, with
 * CLAIM) and put it in P->pv by the role its label names. With REP a
 * device without a label or with a taken role is a finding (1: skipped);
 * else an error. UUID: the pool uuid of the devices so far. */
static int open_device(struct pool *p, int i, unsigned claim, struct pool_check_report *rep,
		       const char *const paths[2], char uuid[VG_UUID_LEN + 1], const char *alias)
{
	const char *path = paths[i];
	struct io_engine *io;
	struct vg_label l;
	int r;

	r = pool_open_pv(p, (unsigned)i, path, claim, &io);
	if (r == -EBUSY && !(p->flags & POOL_RDONLY))
		return r;	/* logged */
	if (r == -ENOTBLK)
		return r;	/* logged by io_fd_open */
	if (r) {
		if (rep)
			log_error("%s: cannot open: %s", path, strerror(-r));
		else
			log_error("pool %s: cannot open %s: %s", p->name, path, strerror(-r));
		return r;
	}
	r = vg_label_read(io, &l);
	if (r != VG_LABEL_FOUND) {
		io_destroy(io);
		if (rep) {
			pool_problem(rep, 1, "%s: no valid tptools label (%s)", path,
				     r < 0 ? strerror(-r) : "none found");
			return 1;
		}
		if (r == VG_LABEL_NONE)
			log_error("%s carries no tptools label: it is not a device of pool %s", path,
				  p->name);
		return r == VG_LABEL_NONE ? -ENOENT : r;
	}
	/* a copy of another device's label (pool_label_is_copy): checked
	 * as a device whose label is lost, which tprepair rewrites */
	if (rep && pool_label_is_copy(path, &l)) {
		pool_problem(rep, 1, "%s: its label is a copy of pool %s's %s device label (device "
			     "uuid %s; the devices file and the VG areas say whose the device "
			     "is): no label of this device",
			     path, l.pool_name, vg_role_name(l.role), l.pv_uuid);
		io_destroy(io);
		return 1;
	}
	if (!rep && pool_label_is_copy(path, &l)) {
		log_error("%s: its label is a copy of pool %s's %s device label (device uuid %s; "
			  "the devices file and the VG areas say whose the device is): not used. "
			  "'tpcheck %s' says where the pool's device is", path, l.pool_name,
			  vg_role_name(l.role), l.pv_uuid, l.pool_name);
		io_destroy(io);
		return -EUCLEAN;
	}
	if (rep && p->pv[l.role].io) {
		pool_problem(rep, 1, "%s and %s both claim the %s role", p->pv[l.role].io->name,
			     path, vg_role_name(l.role));
		io_destroy(io);
		return 1;
	}
	if (!rep && strcmp(l.pool_name, p->name) &&
	    !(alias && !strcmp(l.pool_name, alias)) && !name_lags(p->name, &l)) {
		log_error("%s belongs to pool %s, not %s (if 'tprename %s %s' was interrupted, "
			  "run it again to finish)", path, l.pool_name, p->name, p->name,
			  l.pool_name);
		io_destroy(io);
		return -ENOENT;
	}
	if (!rep && (p->pv[l.role].io || (uuid[0] && strcmp(uuid, l.pool_uuid)))) {
		log_error("pool %s: %s and %s are not the data and metadata devices of one pool",
			  p->name, paths[0], paths[1]);
		io_destroy(io);
		return -EINVAL;
	}
	strcpy(uuid, l.pool_uuid);
	p->pv[l.role].io = io;
	p->pv[l.role].label = l;
	return 0;
}

static void report_copies_from(const struct vg_pv *pvs, const struct vg_mda_status *st,
			       struct pool_check_report *rep, unsigned from);

/* How P's VG is read: every slot whole for a check (POOL_ATTACH_WHOLE). */
static unsigned vg_flags(const struct pool *p)
{
	return p->flags & POOL_ATTACH_WHOLE ? VG_MDA_READ_WHOLE : 0;
}

/* Every copy counts: the VG was read from the data and metadata devices,
 * and the devices it names besides (added data devices, a second
 * metadata device) hold copies too. Read over every device open: a newer copy
 * that names them all is the pool's state (the first two are behind: a
 * stale copy the next commit rewrites, ST says so) when it names the same
 * devices, and P's VG becomes it; one that names other devices, or a read
 * that fails (a device the newest copy does not name: vg_read), is an
 * error (a finding with REP). 0 or -errno. */
static int read_all_copies(struct pool *p, struct pool_check_report *rep,
			   struct vg_mda_status *st)
{
	struct vg_pv pvs[POOL_MAX_PVS];
	unsigned n = 0, read = p->pv[VG_ROLE_META].io ? VG_NR_ROLES : 1;
	struct vg_mda_status all;
	struct vg *vg = NULL;
	int r, same;

	/* the data and metadata devices (not a lost first metadata device),
	 * the added data devices, the second metadata device */
	for (unsigned i = 0; i < p->nr_pv; i++) {
		if (p->pv[i].io)
			pvs[n++] = p->pv[i];
		else if (i != VG_ROLE_META)
			return 0;	/* a data device missing: reported */
	}
	if (p->pv[POOL_META1_PV].io)
		pvs[n++] = p->pv[POOL_META1_PV];
	if (n == read)
		return 0;	/* read_vg read them all */
	r = vg_read_flags(pvs, n, &vg, vg_flags(p), &all);
	if (r) {
		if (!rep)
			return r;
		pool_problem(rep, 1, "the VG metadata copies of its devices name different "
			     "devices (%s; above)", strerror(-r));
		return 0;
	}
	if (rep) {
		/* the first ones were reported with the VG, against the
		 * newest copy they hold: a newer one here is one they lack
		 * (both an older copy: no finding of theirs said so) */
		report_copies_from(pvs, &all, rep, read);
		for (unsigned d = 0; all.seqno > st->seqno && d < read; d++)
			if (!all.read_error[d])
				pool_problem(rep, 0, "%s: lacks the newest VG metadata (seqno %"
					     PRIu64 ")", pvs[d].io->name, all.seqno);
	}
	if (all.needs_repair)
		st->needs_repair = 1;
	if (vg->seqno == p->vg->seqno) {
		vg_free(vg);
		return 0;
	}
	same = vg_nr_data(vg) == vg_nr_data(p->vg) && pool_features_vg_same(p, vg);
	for (unsigned i = 0; same && i < vg_nr_data(vg); i++)
		same = !strcmp(vg_data_dev(vg, i)->pv_uuid, vg_data_dev(p->vg, i)->pv_uuid);
	if (!same) {
		unsigned long long newer = vg->seqno;

		vg_free(vg);
		if (rep) {
			pool_problem(rep, 1, "its other devices hold a newer VG (seqno %llu) that names "
				     "other devices", newer);
			return 0;
		}
		log_error("pool %s: its other devices hold VG metadata (seqno %llu) newer than its "
			  "data and metadata devices (seqno %llu), naming other devices; 'tpcheck %s' "
			  "says more", p->name, newer, (unsigned long long)p->vg->seqno, p->name);
		return -EUCLEAN;
	}
	/* the newest copy is the pool's; the data and metadata devices lag */
	st->needs_repair = 1;
	vg_free(p->vg);
	p->vg = vg;
	return pool_features_vg_changed(p);
}

/* The VG copies as findings (check/repair), of the devices PVS (as read,
 * ST) from FROM on. */
static void report_copies_from(const struct vg_pv *pvs, const struct vg_mda_status *st,
			       struct pool_check_report *rep, unsigned from)
{
	for (unsigned d = from; d < st->nr_pvs; d++) {
		int newest = 0;
		if (st->read_error[d])
			pool_problem(rep, 0, "%s: its VG metadata area cannot be read: %s",
				     pvs[d].io->name, strerror(-st->read_error[d]));
		for (int s = 0; s < VG_MDA_SLOTS; s++) {
			if (st->slot[d][s].state == VG_SLOT_CORRUPT)
				pool_problem(rep, 0, "%s: VG metadata slot %d is damaged (the next change "
					     "or tprepair rewrites it)", pvs[d].io->name, s);
			else if (st->slot[d][s].state == VG_SLOT_EMPTY && !st->read_error[d] &&
				 st->slot[d][1 - s].state == VG_SLOT_VALID)
				pool_problem(rep, 0, "%s: VG metadata slot %d holds no copy (wiped or "
					     "overwritten; the next change or tprepair rewrites it)",
					     pvs[d].io->name, s);
			if (st->slot[d][s].state == VG_SLOT_VALID && st->slot[d][s].unusable)
				pool_problem(rep, 0, "%s: VG metadata slot %d: its copy of seqno %"
					     PRIu64 " is unusable (its text does not import, or makes "
					     "another seqno; the next change or tprepair rewrites it)",
					     pvs[d].io->name, s, st->slot[d][s].seqno);
			/* the previous commit, a newer tptools' (it moved the
			 * pool back to this format): no damage, a note */
			if (st->slot[d][s].state == VG_SLOT_VALID && st->slot[d][s].newer_copy &&
			    !rep->nr_newer_copies++)
				snprintf(rep->newer_copy, sizeof(rep->newer_copy), "%s: VG metadata "
					 "slot %d holds an earlier commit (seqno %" PRIu64 ") that a "
					 "newer tptools wrote, in a format this one does not read; no "
					 "damage: the next change writes over it, as over any earlier "
					 "commit", pvs[d].io->name, s, st->slot[d][s].seqno);
			if (st->slot[d][s].state == VG_SLOT_VALID && st->slot[d][s].damaged_off)
				pool_problem(rep, 0, "%s: VG metadata slot %d: the change record at byte "
					     "%" PRIu64 " is damaged (the next change or tprepair rewrites "
					     "it)", pvs[d].io->name, s, st->slot[d][s].damaged_off);
			/* an upgrade to format 2 cut between the two slots: an
			 * older tptools would take the copy of format 1 */
			if (st->slot[d][s].state == VG_SLOT_VALID && st->slot[d][s].journal &&
			    st->slot[d][1 - s].state == VG_SLOT_VALID &&
			    !st->slot[d][1 - s].journal &&
			    st->slot[d][1 - s].seqno < st->slot[d][s].seqno)
				pool_problem(rep, 0, "%s: VG metadata slot %d holds a copy of format 1 "
					     "beside one of format 2 (a format change cut short; the next "
					     "change or tprepair rewrites it)", pvs[d].io->name, 1 - s);
			if (st->slot[d][s].state == VG_SLOT_VALID &&
			    st->slot[d][s].seqno == st->seqno)
				newest = 1;
		}
		if (!newest && !st->read_error[d])
			pool_problem(rep, 0, "%s: lacks the newest VG metadata (seqno %" PRIu64 ")",
				     pvs[d].io->name, st->seqno);
	}
}

static void report_copies(const struct pool *p, const struct vg_mda_status *st,
			  struct pool_check_report *rep)
{
	report_copies_from(p->pv, st, rep, 0);
}

/* Read the VG into P->vg. 1: none could be read (a finding with REP). */
static int read_vg(struct pool *p, struct pool_check_report *rep, struct vg_mda_status *st,
		   const char *alias)
{
	struct vg_pv pvs[VG_NR_ROLES] = { p->pv[0], p->pv[1] };
	/* without the first metadata device (lost: the second stands in), the data
	 * device's copy: every device holds the VG */
	int r = vg_read_flags(pvs, p->pv[VG_ROLE_META].io ? VG_NR_ROLES : 1, &p->vg, vg_flags(p),
			      st);

	p->vg_too_new = r == -EPROTONOSUPPORT;
	if (rep) {
		if (r == -ENOMEM)
			return r;
		if (p->vg_too_new) {
			rep->vg_too_new = 1;
			pool_problem(rep, 1, "the VG metadata is of a newer format than this tptools "
				     "reads (said above): this tptools neither checks nor repairs it");
			return 1;
		}
		if (r) {
			pool_problem(rep, 1, "no usable VG metadata copy on either device (%s)",
				     strerror(-r));
			return 1;
		}
		report_copies(p, st, rep);
		if (strcmp(p->vg->name, p->name))
			pool_problem(rep, 1, "the VG metadata names the pool %s, not %s",
				     p->vg->name, p->name);
		return 0;
	}
	if (r == -EPROTONOSUPPORT) {
		log_error("pool %s: its VG metadata is of a newer format than this tptools reads; "
			  "nothing was changed: use the tptools that wrote it", p->name);
		return r;
	}
	if (r) {
		log_error("pool %s: no usable VG metadata; 'tpcheck %s' says more", p->name,
			  p->name);
		return r;
	}
	if (strcmp(p->vg->name, p->name) &&
	    !(alias && !strcmp(p->vg->name, alias))) {
		log_error("pool %s: its VG metadata names it %s: 'tprename %s %s' was "
			  "interrupted; run it again to finish", p->name, p->vg->name, p->name,
			  p->vg->name);
		return -EUCLEAN;
	}
	return 0;
}

/* A shared pool's lease was just taken: the VG read before it may be
 * older than what the host that let the lease go committed. Read it again;
 * a pool whose devices changed meanwhile (tpextend --data there) is
 * refused: the command runs again from the start. */
static int reread_vg(struct pool *p, struct pool_check_report *rep, struct vg_mda_status *st,
		     const char *alias)
{
	struct vg *old = p->vg;
	int r, same;

	p->vg = NULL;
	r = read_vg(p, rep, st, alias);
	if (r || !p->vg) {
		vg_free(p->vg);
		p->vg = old;
		return r < 0 ? r : -EIO;
	}
	if (p->vg->seqno == old->seqno) {
		vg_free(old);
		return 0;
	}
	same = p->vg->nr_xdata == old->nr_xdata;
	for (unsigned i = 0; same && i < old->nr_xdata; i++)
		same = !strcmp(p->vg->xdata[i].pv_uuid, old->xdata[i].pv_uuid);
	vg_free(old);
	if (!same) {
		log_error("pool %s: another host changed its data devices while this command "
			  "waited for its lease; nothing was changed: run the command again",
			  p->name);
		return -EAGAIN;
	}
	return pool_features_vg_changed(p);
}

/* The pool uuid the labels on PATHS give pool P ("" when neither can be
 * read as one of P's): what device-mapper is asked by. */
static void labels_uuid(const struct pool *p, char *const paths[2], char uuid[VG_UUID_LEN + 1])
{
	struct vg_label l;

	uuid[0] = '\0';
	for (int i = 0; i < 2 && !uuid[0]; i++)
		if (paths[i] && !pool_read_label(paths[i], &l) && !strcmp(l.pool_name, p->name))
			snprintf(uuid, VG_UUID_LEN + 1, "%s", l.pool_uuid);
}

/* Writers: the flock half of each device's claim, before the liveness
 * decision (its exclusive-open probe must not meet another tptools
 * writer's claim). */
static int lock_devices(struct pool *p, char *const paths[2])
{
	for (int i = 0; i < 2; i++) {
		int r;

		if (!paths[i] || (i && pool_same_device(paths[0], paths[1])))
			break;
		r = pool_claim_lock(p->name, paths[i], &p->claim[i]);
		if (r == -EBUSY)
			return r;	/* logged */
		/* other errors (no such device, no permission): the open says */
	}
	return 0;
}

/* --devices: each must be the top of its stack unless POOL_ALLOW_COMPONENT
 * (STACKED DEVICES in tptools(7)); COMPONENT[i] says which were not. */
static int check_stacks(const struct pool *p, char *const paths[2], int component[2])
{
	for (int i = 0; i < 2; i++) {
		struct vg_label l;
		int r = pool_read_label(paths[i], &l);

		component[i] = 0;
		if (r == -ENOENT)
			continue;	/* no label: the open says so */
		r = pool_stack_refuse(paths[i], r ? NULL : l.pool_uuid,
				      !!(p->flags & POOL_ALLOW_COMPONENT));
		if (r < 0 && r != -EBUSY)
			continue;	/* cannot be probed: the open says why */
		if (r < 0)
			return r;
		component[i] = r;
	}
	return 0;
}

/* --devices DATA,META: is DATA the first data device the VG copy on META
 * names? 0 yes (or that copy cannot be read: read_vg says why), else
 * -ENODEV, logged with what DATA is: another data device of the pool, a
 * device a tpreduce --data took away (its own older VG copy names it), or
 * no device of the pool at all. */
static int refuse_not_first(struct pool *p)
{
	const char *data = p->pv[VG_ROLE_DATA].io->name, *meta = p->pv[VG_ROLE_META].io->name;
	const char *u = p->pv[VG_ROLE_DATA].label.pv_uuid;
	struct pool_orphan o;
	struct vg *vg = NULL;
	char first[VG_PATH_MAX + 64];
	int at;

	if (pool_meta_vg(meta, &vg)) {
		vg_free(vg);
		return 0;
	}
	if (!strcmp(vg->dev[VG_ROLE_DATA].pv_uuid, u)) {
		vg_read_release(vg);	/* read only: the open's read takes it (vg.h) */
		return 0;
	}
	snprintf(first, sizeof(first), "%s", vg->dev[VG_ROLE_DATA].path[0]
						? vg->dev[VG_ROLE_DATA].path
						: vg->dev[VG_ROLE_DATA].pv_uuid);
	at = vg_data_index(vg, u);
	if (at > 0)
		log_error("pool %s: %s is its data device %d, not its first (%s): --devices "
			  "names the first data device and the metadata device; nothing was "
			  "changed", p->name, data, at + 1, first);
	else if (pool_orphan_of(data, vg, &o) && o.kind == POOL_ORPHAN_DROPPED)
		log_error("pool %s: %s is no device of the pool any more: the VG metadata on %s "
			  "does not name it, and its own older copy does (a tpreduce --data took it "
			  "away, cut before its label was wiped); name the first data device (%s) "
			  "with --devices, or leave --devices out; nothing was changed", p->name,
			  data, meta, first);
	else
		log_error("pool %s: %s is not its first data device: the VG metadata on %s does "
			  "not name its device uuid %s (the first is %s); name the first data "
			  "device with --devices, or leave --devices out; nothing was changed",
			  p->name, data, meta, u, first);
	vg_free(vg);
	return -ENODEV;
}

/* ALIAS (may be NULL): the other name labels and the VG may carry (a
 * tprename cut short: the old name or the new one). */
static int attach(struct pool *p, const char *devices, unsigned flags, const char *alias,
		  struct pool_check_report *rep, char *paths[2], struct vg_mda_status *st)
{
	char uuid[VG_UUID_LEN + 1] = "";
	int component[2] = { 0, 0 };
	unsigned claim = 0;
	int r;

	char what[VG_NAME_MAX + 8];

	/* a wait is said with who holds the lock; a reader's is bounded: a
	 * writer's copy (a receive from a stalled pipe) may hold it for long */
	snprintf(what, sizeof(what), "pool %s", p->name);
	r = tp_lock_acquire_told(p->name,
				 ((p->flags & POOL_RDONLY) ? TP_LOCK_SHARED | TP_LOCK_BOUNDED
							   : TP_LOCK_EXCL | TP_LOCK_TELL) |
					 ((flags & POOL_ATTACH_LOCK_BRIEF) ? TP_LOCK_BRIEF : 0),
				 what, &p->lock);
	if (r == -EWOULDBLOCK)
		return r;	/* the caller says */
	if (r) {
		if (r != -EWOULDBLOCK)	/* else said, with the holder */
			log_error("pool %s: cannot take its lock: %s", p->name, strerror(-r));
		return r;
	}
	r = devices ? split_devices(devices, rep != NULL, paths)
		    : pool_find_devices(p->name, paths);
	if (!r && devices)
		r = check_stacks(p, paths, component);
	if (r)
		return r;
	/* Copies of the devices: a writer that did not pick with --devices
	 * refuses, everyone else warns. */
	r = pool_check_duplicates(p->name, paths, !devices && !(p->flags & POOL_RDONLY));
	if (r)
		return r;
	if (!(p->flags & POOL_RDONLY) && (r = lock_devices(p, paths)))
		return r;
	/* live or offline, once (pool_backend.c); the kernel holds an
	 * active pool's devices (pool_claim.c) */
	labels_uuid(p, paths, uuid);
	if ((r = pool_decide_backend(p, paths, uuid)))
		return r;
	if ((flags & POOL_ATTACH_OFFLINE) &&
	    (r = pool_refuse_live(p, "reading or writing its on-disk metadata")))
		return r;
	uuid[0] = '\0';
	if (p->be->live)
		claim = POOL_CLAIM_LIVE;
	for (int i = 0; i < 2; i++) {
		unsigned held = i && paths[1] && pool_same_device(paths[0], paths[1])
					? POOL_CLAIM_HELD : 0;

		if (!paths[i])
			continue;	/* a lost first metadata device (pool_find.c) */

		if (!held && p->claim[i])
			held = POOL_CLAIM_LOCKED;
		if ((r = open_device(p, i, claim | held, rep, (const char *const *)paths,
				     uuid, alias)) < 0)
			return r;
	}
	if (!p->pv[VG_ROLE_DATA].io || (!p->pv[VG_ROLE_META].io && paths[1]))
		return 0;	/* reported: nothing more to look at */
	/* --devices naming another data device than the first the VG on
	 * the metadata device names: an added one, or one the pool no longer
	 * has (an orphan: its own older VG copy is no state of the pool) */
	if (devices && p->pv[VG_ROLE_META].io && (r = refuse_not_first(p)))
		return r;
	/* a component (--allow-component) is never recorded */
	if (!rep && devices && !(p->flags & POOL_RDONLY) && !component[0] && !component[1]) {
		for (int i = 0; i < VG_NR_ROLES; i++)
			pool_record_device(p->name, (enum vg_role)i, p->pv[i].label.pv_uuid,
					   p->pv[i].io->name);
	}
	r = read_vg(p, rep, st, alias);
	if (r)
		return r < 0 ? r : 0;
	/* the devices the VG lists besides these two (the data module's:
	 * the data devices tpextend --data added) */
	if ((r = pool_features_open_devices(p, claim, rep)))
		return r < 0 ? r : 0;
	/* the features' devices of the thin metadata (a second metadata
	 * device), else the one metadata device must be there */
	if ((r = pool_features_meta_attach(p, claim, rep)))
		return r;
	if ((r = read_all_copies(p, rep, st)))
		return r;
	/* a label may lag behind the VG's size of its device
	 * (vg_label_read); a device shorter than the VG records is cut short */
	for (unsigned i = 0; i < pool_nr_pvs(p) && p->vg; i++) {
		unsigned index = i < VG_NR_ROLES ? 0 : i - VG_NR_ROLES + 1;
		const struct vg_device *d;

		if (i >= VG_NR_ROLES && index >= vg_nr_data(p->vg))
			break;
		d = i < VG_NR_ROLES ? &p->vg->dev[i] : vg_data_dev(p->vg, index);
		if (!p->pv[i].io || p->pv[i].io->size >= d->size)
			continue;
		if (rep) {
			pool_problem(rep, 1, "%s: shorter than the VG metadata records (%llu of %llu "
				     "bytes): the device was cut short; grow it back to %llu bytes",
				     p->pv[i].io->name, (unsigned long long)p->pv[i].io->size,
				     (unsigned long long)d->size, (unsigned long long)d->size);
			continue;
		}
		log_error("pool %s: %s is shorter than the VG metadata records (%llu of %llu "
			  "bytes): the device was cut short; grow it back to %llu bytes, then run "
			  "'tpcheck %s'", p->name, p->pv[i].io->name,
			  (unsigned long long)p->pv[i].io->size, (unsigned long long)d->size,
			  (unsigned long long)d->size, p->name);
		return -EUCLEAN;
	}
	/* the features' step after the VG is read, before anything is
	 * written (another host's pool refused, a shared pool's lease
	 * taken): 1 when the VG is to be read again */
	if ((r = pool_features_vg_read(p)) <= 0)
		return r;
	return reread_vg(p, rep, st, alias);
}

static int attach_named(struct pool *p, const char *name, const char *rename_to,
			const char *devices, unsigned flags, struct pool_check_report *rep,
			struct vg_mda_status *st);

int pool_attach(struct pool *p, const char *name, const char *devices, unsigned flags,
		struct pool_check_report *rep, struct vg_mda_status *st)
{
	int r = attach_named(p, name, NULL, devices, flags, rep, st);

	vg_read_forget();	/* the reads of the open are over (vg.h) */
	return r;
}

int pool_attach_renaming(struct pool *p, const char *old, const char *new_name,
			 const char *devices)
{
	int r = attach_named(p, old, new_name, devices, 0, NULL, NULL);

	vg_read_forget();
	return r;
}

static int attach_named(struct pool *p, const char *name, const char *rename_to,
			const char *devices, unsigned flags, struct pool_check_report *rep,
			struct vg_mda_status *st)
{
	char *paths[2] = { NULL, NULL };
	struct vg_mda_status local;
	const char *why;
	int r;

	memset(p, 0, sizeof(*p));
	if (!vg_name_valid(name, &why)) {
		log_error("invalid pool name '%s': %s", name, why);
		return -EINVAL;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->flags = flags & (POOL_RDONLY | POOL_ALLOW_COMPONENT | POOL_FOREIGN_OK | POOL_FOREIGN_QUIET |
			    POOL_LEASE_KEEP | POOL_META_LEG0_LOST_OK |
			    POOL_META_KEEP_STALE | POOL_DATA_MISSING_OK | POOL_ACTIVATE |
			    POOL_ATTACH_WHOLE);
	r = attach(p, devices, flags, rename_to, rep, paths, st ? st : &local);
	free(paths[0]);
	free(paths[1]);
	return r;
}

void pool_detach(struct pool *p)
{
	pool_removal_release(p);
	pool_features_detach(p);
	thin_close(p->md);
	io_destroy(p->thin_io);
	io_destroy(p->meta_io);
	for (int i = 0; i < POOL_MAX_PVS; i++) {
		io_destroy(p->pv[i].io);
		tp_lock_release(p->claim[i]);
	}
	vg_free(p->vg);
	tp_lock_release(p->lock);
	memset(p, 0, sizeof(*p));
}

int pool_share_devices(struct pool *p)
{
	int r0;

	io_destroy(p->thin_io);
	p->thin_io = NULL;
	for (unsigned k = 0; k <= pool_nr_pvs(p); k++) {
		unsigned i = k < pool_nr_pvs(p) ? k : POOL_META1_PV;
		struct io_engine *io;
		int r;

		if (!p->pv[i].io)
			continue;	/* a second metadata device that is not there */
		r = io_fd_open(p->pv[i].io->name, 0, &io);

		if (r) {
			log_error("pool %s: cannot reopen %s: %s", p->name, p->pv[i].io->name,
				  strerror(-r));
			return r;
		}
		io_destroy(p->pv[i].io);
		p->pv[i].io = io;
	}
	/* the features' engines over the devices reopened (the thin
	 * metadata's) */
	if ((r0 = pool_features_devices_shared(p)))
		return r0;
	return p->vg ? pool_features_vg_changed(p) : 0;
}

