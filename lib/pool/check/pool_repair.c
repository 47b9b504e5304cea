/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_repair.c - tprepair POOL. It checks first and does only what the
 * damage asks for (see pool_check.h):
 *   1. labels and VG areas (pool_relabel.c): a lost label from the other
 *      device's VG copy, else everything from a backup (--restorefile);
 *   2. damaged or stale VG copies alone: one VG commit rewrites them;
 *   3. damaged thin metadata (or --force): salvage the ACTIVE area into
 *      the SPARE one and swap them in one VG commit. What the spare held
 *      (the copy the previous repair set aside) is first copied to a file
 *      in the backup dir (host.h), so no damaged copy is ever lost.
 * A clean pool is left untouched. The transaction id written is the VG's
 * unless the caller gives one, so VG and thin metadata agree afterwards,
 * also after an interrupted transaction (thin one behind the VG): its
 * replay would make the devices a salvage lost anew, empty, so a volume
 * it made is reported lost instead. An interrupted transaction without
 * damage is completed at the end, by a writer's open (pool.h). Devices the VG lists but the salvage lost are
 * reported (their volumes must be removed or restored); thin devices the
 * VG does not list (strays: a live receive cut short by a crash) are
 * deleted, in a transaction of their own. */
#include "lib/pool/check/pool_check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"
#include "lib/pool/core/core.h"
#include "lib/pool/mirror/mirror.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/vg/mda.h"

/* The transaction id to write: the VG's, or the old superblock's after an
 * interrupted transaction. */
/* The thin transaction id to write into O (the VG's, or the old
 * superblock's after an interrupted transaction); 1 when the old
 * superblock is of an earlier moment (two or more transactions behind
 * the VG: what its volumes map is what they held then), else 0. */
static int pick_transaction_id(const struct pool *p, struct io_engine *in,
			       struct thin_repair_opts *o, uint64_t *was)
{
	struct thin_sb old;

	o->set_transaction_id = 1;
	o->transaction_id = pool_vg(p)->transaction_id;
	if (thin_sb_read(in, 0, &old) || old.trans_id == pool_vg(p)->transaction_id)
		return 0;
	*was = old.trans_id;
	if (old.trans_id + 1 == pool_vg(p)->transaction_id) {
		/* an interrupted transaction is not replayed over a salvage: the
		 * replay would make the thin devices the salvage lost anew,
		 * empty, under their volumes' names */
		log_warn("pool %s: an interrupted transaction (VG %" PRIu64 ", thin %" PRIu64 "): "
			 "the salvage is written at the VG's; what it was to do in the thin "
			 "metadata is not replayed (a volume it made is reported lost)",
			 pool_name(p), pool_vg(p)->transaction_id, old.trans_id);
		return 0;
	}
	log_warn("pool %s: the thin transaction id was %" PRIu64 "; set to the VG's %" PRIu64,
		 pool_name(p), old.trans_id, pool_vg(p)->transaction_id);
	/* older than the VG's: its volumes map what they held then (newer:
	 * the VG lags, what the volumes map is their newest) */
	return old.trans_id < pool_vg(p)->transaction_id;
}

/* A salvage of thin metadata of another moment (pick_transaction_id): every
 * volume it kept reads what it held then, said in RES (tprepair exits 4,
 * never 0). */
static void note_other_moment(const struct pool *p, uint64_t was,
			      const struct thin_repair_report *rep, struct pool_repair_result *res)
{
	const struct vg *vg = pool_vg(p);

	snprintf(res->reread_why, sizeof(res->reread_why), "the thin metadata was at transaction "
		 "%" PRIu64 ", the VG metadata at %" PRIu64 ": a state of another moment, whose "
		 "volumes map what they held then", was, vg->transaction_id);
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		size_t used = strlen(res->reread);
		int kept = 0;

		for (size_t k = 0; k < rep->nr_dev_ids && !kept; k++)
			kept = rep->dev_ids[k] == vg->volumes[i].dev_id;
		if (!kept)
			continue;	/* reported lost */
		if (used < sizeof(res->reread))
			snprintf(res->reread + used, sizeof(res->reread) - used, "%s%s",
				 res->nr_reread ? ", " : "", vg->volumes[i].name);
		res->nr_reread++;
	}
}

/* The VG's volumes the salvage did not find a thin device of: said, and
 * noted in LOST (for the advice that ends tprepair's report). */
static void report_lost_volumes(const struct pool *p, const struct thin_repair_report *rep,
				struct pool_check_report *lost)
{
	const struct vg *vg = pool_vg(p);

	lost->nr_lost = 0;
	lost->lost[0] = '\0';
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		uint64_t id = vg->volumes[i].dev_id;
		int found = 0;

		for (size_t k = 0; k < rep->nr_dev_ids && !found; k++)
			found = rep->dev_ids[k] == id;
		if (found)
			continue;
		log_warn("pool %s: volume %s (thin device %" PRIu64 ") was lost; remove it "
			 "with 'tvremove %s/%s'", pool_name(p), vg->volumes[i].name, id,
			 pool_name(p), vg->volumes[i].name);
		pool_lost_add(lost, vg, i);
	}
	if (lost->nr_lost)
		pool_lost_order(lost, vg);
}

/* The VG's volume names by thin device id, for the report of losses. */
static int keep_names(const struct pool *p, struct pool_repair_result *res)
{
	if (!pool_vg(p)->nr_volumes)
		return 0;
	res->volumes = calloc(pool_vg(p)->nr_volumes, sizeof(*res->volumes));
	if (!res->volumes)
		return -ENOMEM;
	res->nr_volumes = pool_vg(p)->nr_volumes;
	for (unsigned i = 0; i < pool_vg(p)->nr_volumes; i++) {
		res->volumes[i].dev_id = pool_vg(p)->volumes[i].dev_id;
		snprintf(res->volumes[i].name, sizeof(res->volumes[i].name), "%s",
			 pool_vg(p)->volumes[i].name);
	}
	return 0;
}

/* Nothing of P's thin metadata can be salvaged (no tree of it is left),
 * or what its active area holds is not its own (a valid superblock of
 * another data block size, or of more data blocks than the data area:
 * another pool's copy): new, empty thin metadata at the transaction id O
 * gives, into OUT. Every volume is then lost (its chunks stay on the data
 * device, mapped by nothing), and said so; the damaged copy is kept, as a
 * salvage keeps it (it becomes the spare). */
static int start_anew(struct pool *p, struct io_engine *out, const struct thin_repair_opts *o,
		      struct thin_repair_report *rep, const char *why)
{
	struct thin_md *md = NULL;
	int r;

	log_warn("pool %s: %s: its thin metadata starts anew, empty; every volume is lost",
		 pool_name(p), why);
	memset(rep, 0, sizeof(*rep));
	if (!(r = thin_format(out, o->data_block_size, o->nr_data_blocks, &md)) &&
	    !(r = thin_set_transaction_id(md, 0, o->transaction_id)))
		r = thin_commit(md);
	thin_close(md);
	rep->transaction_id = o->transaction_id;
	rep->output_written = 1;
	return r;
}

/* Keep what the spare holds, salvage the active area into it, swap: the
 * swap is the VG commit that also writes what PLAN holds (labels, a
 * restored VG), so nothing of those is written unless the salvage has
 * succeeded. */
static int salvage(struct pool *p, const struct thin_repair_opts *opts,
		   const struct pool_relabel_plan *plan, struct thin_repair_report *rep,
		   struct pool_repair_result *res, struct pool_check_report *lost)
{
	struct thin_repair_opts o = *opts;
	struct io_engine *in = NULL, *out = NULL;
	struct vg *next = NULL;
	char *saved = NULL;
	uint64_t was = 0;
	int other_moment = 0;
	unsigned spare = !pool_vg(p)->metadata_area;
	const struct vg_area *s = &pool_pv(p, VG_ROLE_META)->label.area[spare];
	int r;

	if (!s->size) {
		log_error("pool %s: its metadata device has no spare area", pool_name(p));
		return -ENOSPC;
	}
	if ((r = pool_meta_area_io(p, 0, &in)) || (r = pool_meta_area_io(p, 1, &out)))
		goto out;
	in->read_only = 1;	/* the damaged copy is never written */
	if ((r = pool_spare_save(pool_vg(p)->uuid, pool_name(p), pool_vg(p)->seqno, out, &saved)))
		goto out;
	if (saved) {
		snprintf(res->saved, sizeof(res->saved), "%s", saved);
		free(saved);
	}
	if (!o.set_transaction_id)
		other_moment = pick_transaction_id(p, in, &o, &was) && !plan->forced;
	if (!o.data_block_size)
		o.data_block_size = pool_vg(p)->chunk_size;
	if (!o.nr_data_blocks && pool_vg(p)->chunk_size)
		o.nr_data_blocks = vg_data_chunks(pool_vg(p));
	{
		struct thin_sb isb;
		char why[160];

		/* another pool's thin metadata is no salvage of this pool's
		 * (unless a forced restore made the VG what it is) */
		if (!plan->forced && !thin_sb_read(in, 0, &isb) &&
		    (isb.data_block_size != o.data_block_size ||
		     isb.data_sm.nr_blocks > o.nr_data_blocks)) {
			snprintf(why, sizeof(why), "the thin metadata in its active area is another "
				 "pool's (data block size %u sectors, %llu data blocks)",
				 isb.data_block_size, (unsigned long long)isb.data_sm.nr_blocks);
			res->started_anew = 1;
			r = start_anew(p, out, &o, rep, why);
		} else {
			r = thin_repair_io(in, out, &o, rep);
			if (r == -EUCLEAN && rep->scanned && !rep->mapping_root) {
				res->started_anew = 1;
				r = start_anew(p, out, &o, rep, "no tree of its thin metadata is left "
					       "to salvage");
			}
		}
	}
	if (!r)
		r = io_flush(out);
	if (r) {
		res->spare_written = rep->output_written;
		goto out;
	}
	if (tp_test_fail("repair-commit")) {	/* the shell tests' fault before the commit */
		r = -EIO;
	} else if (!(r = vg_clone(pool_vg(p), &next))) {
		next->metadata_area = spare;
		r = pool_relabel_commit(p, plan, next, res);	/* consumes NEXT */
	}
	if (r) {
		res->spare_written = 1;
		log_error("pool %s: the repaired metadata is in the spare area but the VG commit "
			  "failed; the pool still uses the damaged copy", pool_name(p));
		goto out;
	}
	res->salvaged = 1;
	report_lost_volumes(p, rep, lost);
	if (other_moment && !res->started_anew) {
		note_other_moment(p, was, rep, res);
	} else if (rep->snapshot_trees && !res->started_anew) {
		note_other_moment(p, rep->snapshot_transaction_id, rep, res);
		snprintf(res->reread_why, sizeof(res->reread_why), "its live thin device trees "
			 "were lost and those salvaged are the metadata snapshot's, of transaction "
			 "%" PRIu64 " (the VG metadata is at %" PRIu64 "): a state of another moment, "
			 "whose volumes map what they held then", rep->snapshot_transaction_id,
			 pool_vg(p)->transaction_id);
	}
	r = keep_names(p, res);
out:
	io_destroy(in);
	io_destroy(out);
	return r;
}

/* Thin devices that no volume lists hold chunks that nothing can reach:
 * a live tprecv gets its thin id from the kernel before the VG lists the
 * volume, so a crash in between leaves one (the VG never hands the id out
 * again). They are deleted in one change (pool_change: the VG's
 * transaction id moves first, so a cut is completed by the next command,
 * which deletes what the VG does not list). Not while a transaction is
 * interrupted: its replay deletes them. */
struct strays {
	uint32_t *ids;
	unsigned n;
};

static int delete_each(struct pool *p, const void *arg)
{
	const struct strays *s = arg;
	int r = 0;

	for (unsigned i = 0; i < s->n && !r; i++)
		r = pool_op_delete(p, s->ids[i], NULL);
	return r;
}

static int delete_strays(struct pool *p, struct pool_repair_result *res)
{
	struct strays s = { NULL, 0 };
	uint64_t *ids = NULL, tid;
	size_t n = 0;
	struct vg *next;
	int r = pool_open_thin(p);

	if (!r)
		r = thin_get_transaction_id(pool_thin(p), &tid);
	if (!r)
		r = thin_list_devices(pool_thin(p), &ids, &n);
	if (!r && n && !(s.ids = calloc(n, sizeof(*s.ids))))
		r = -ENOMEM;
	for (size_t i = 0; !r && i < n; i++) {
		if (ids[i] <= VG_DEV_ID_MAX && vg_find_dev_id(pool_vg(p), (uint32_t)ids[i]))
			continue;
		if (ids[i] > VG_DEV_ID_MAX) {	/* no kernel makes one: leave it */
			log_error("pool %s: thin device %" PRIu64 " has an id beyond dm-thin's "
				  "24 bits; no stray thin device was deleted", pool_name(p), ids[i]);
			r = -EUCLEAN;
			break;
		}
		s.ids[s.n++] = (uint32_t)ids[i];
	}
	free(ids);
	if (!r && s.n && tid == pool_vg(p)->transaction_id && !(r = vg_clone(pool_vg(p), &next))) {
		r = pool_change(p, next, delete_each, &s);
		if (!r)
			res->strays_deleted = s.n;
	}
	free(s.ids);
	return r;
}

/* Is the thin metadata (or its agreement with the VG) damaged? Stray
 * thin devices alone are not: delete_strays removes them. */
static int thin_damaged(struct pool *p, int *bad, struct pool_check_report *lost)
{
	struct thin_check_opts co = { 0, NULL, NULL };
	struct pool_check_report crep;
	struct thin_check_report tc;
	int r;

	memset(&crep, 0, sizeof(crep));
	memset(&tc, 0, sizeof(tc));
	r = pool_check_attached(p, &co, &crep, &tc);
	*bad = crep.f.nr_problems > crep.nr_strays + crep.nr_lost + crep.interrupted +
				       crep.nr_purges ||
	       tc.f.nr_problems || !tc.sb_ok;
	/* volumes lost before (a salvage finds none of them again) */
	if (lost) {
		lost->interrupted = crep.interrupted;
		/* (only what a rollback to the VG's transaction would lose:
		 * thin devices the VG does not list) */
		lost->vg_behind_tid = crep.nr_strays ? crep.vg_behind_tid : 0;
		lost->nr_lost = crep.nr_lost;
		memcpy(lost->lost, crep.lost, sizeof(lost->lost));
	}
	thin_check_report_free(&tc);
	pool_check_report_free(&crep);
	return r;
}

/* P's first two devices and a mirror's second leg whose devices-file
 * entry is missing or names another pool or path: recorded. How many. */
static unsigned record_devices(struct pool *p)
{
	const struct vg_pv *pv[3] = { pool_pv(p, VG_ROLE_DATA), pool_pv(p, VG_ROLE_META),
				      pool_meta1_pv(p) };
	unsigned n = 0;

	for (unsigned i = 0; i < 3; i++) {
		struct pool_devices_entry e;

		if (!pv[i] || !pv[i]->io)
			continue;
		if (!pool_devices_lookup_pv(pv[i]->label.pv_uuid, &e) &&
		    !strcmp(e.pool, pool_name(p)) && !strcmp(e.path, pv[i]->io->name) &&
		    !strcmp(e.pool_uuid, pool_vg(p)->uuid))
			continue;
		pool_record_device(pool_name(p), pv[i]->label.role, pv[i]->label.pv_uuid,
				   pv[i]->io->name);
		n++;
	}
	return n;
}

/* A mirrored pool's leg that is out while its device is there (stale:
 * a crash between the legs' writes, a corrupted area) is resynced onto
 * the same device; a missing one is said, for tpchange --meta-replace. */
static int resync_mirror(struct pool *p, struct pool_repair_result *res)
{
	struct pool_meta_leg leg[2];
	int r;

	if (!pool_meta_legs(p, leg) || (!leg[0].err && !leg[1].err) || (leg[0].err && leg[1].err))
		return 0;
	for (unsigned i = 0; i < 2; i++) {
		if (!leg[i].err)
			continue;
		if (leg[i].err == -ENODEV || leg[i].err == -EIO)
			return 0;	/* a replace puts it on a new device: the advice says */
		r = pool_meta_replace(p, leg[i].path);
		if (!r)	/* said once it is done */
			snprintf(res->meta_resynced, sizeof(res->meta_resynced), "%s", leg[i].path);
		return r;
	}
	return 0;
}

/* A mirrored pool whose legs are both in use: every block in use is
 * compared on both (the scrub, metadata/thin/scrub.h) and a copy that is
 * bad on one leg is rewritten from the good one, before the check that
 * decides on a salvage (which then reads the healed legs). A block that
 * validates on both legs but differs takes the copy of the leg whose thin
 * metadata is consistent alone while the other's is not
 * (pool_meta_source_leg: a leg that missed writes behind a current
 * superblock), else the first leg's. */
static int heal_mirror(struct pool *p, struct pool_repair_result *res)
{
	struct thin_check_opts co = { THIN_CHECK_SCRUB | THIN_CHECK_HEAL, NULL, NULL };
	struct pool_meta_leg leg[2];
	struct thin_check_report tc;
	struct io_engine *area = NULL;
	int r;

	if (!pool_meta_legs(p, leg) || leg[0].err || leg[1].err)
		return 0;
	for (unsigned i = 0; i < 2; i++)
		snprintf(res->meta_leg[i], sizeof(res->meta_leg[i]), "%s", leg[i].path);
	if ((r = pool_meta_area_io(p, 0, &area)))
		return r == -ENOSPC ? 0 : r;
	memset(&tc, 0, sizeof(tc));
	co.flags &= ~(unsigned)THIN_CHECK_HEAL;
	r = thin_check_io(area, &co, &tc);
	if (!r && tc.scrub.mismatched) {
		int src = pool_meta_source_leg(p, NULL, NULL);
		unsigned over = src >= 0 ? 1 - (unsigned)src : 1 - io_copy_first(pool_meta_io(p));
		struct io_engine *la = NULL;
		char *saved = NULL;

		/* blocks valid on both legs are about to be overwritten: the
		 * leg they are overwritten on is kept first (its blocks may be
		 * nowhere else; 'tprepair --metadata FILE' salvages from it) */
		if (!(r = pool_meta_leg_area_io(p, over, &la)))
			r = pool_spare_save(pool_vg(p)->uuid, pool_name(p), pool_vg(p)->seqno, la,
					    &saved);
		io_destroy(la);
		if (saved)
			snprintf(res->meta_kept, sizeof(res->meta_kept), "%s", saved);
		res->meta_kept_leg = over;
		free(saved);
		/* one leg consistent alone: its whole active area is the
		 * truth (a leg that missed writes differs in blocks a walk of
		 * the mixed legs never reaches), copied over the other */
		if (!r && src >= 0 && !(r = pool_meta_resync_from(p, (unsigned)src)))
			res->meta_source = src + 1;
	}
	co.flags |= THIN_CHECK_HEAL;
	if (!r && (tc.scrub.mismatched || tc.scrub.bad[0] || tc.scrub.bad[1])) {
		thin_check_report_free(&tc);
		memset(&tc, 0, sizeof(tc));
		r = thin_check_io(area, &co, &tc);
	}
	io_destroy(area);
	if (!r)
		for (unsigned i = 0; i < 2; i++)
			res->meta_healed[i] = tc.scrub.healed[i];
	/* a leg that failed a rewrite (or a read) is out now: nothing is
	 * salvaged from the other alone, what it lost would be lost */
	for (unsigned i = 0; !r && i < 2; i++)
		if (io_mirror_error(pool_meta_io(p), i)) {
			log_error("pool %s: metadata mirror leg %u (%s) failed while its bad blocks "
				  "were rewritten (%s): put it on another device with 'tpchange "
				  "--meta-replace DEV %s', then run 'tprepair %s' again", pool_name(p),
				  i, leg[i].path, strerror(-io_mirror_error(pool_meta_io(p), i)),
				  pool_name(p), pool_name(p));
			r = -EIO;
		}
	thin_check_report_free(&tc);
	return r;
}

/* What tprepair does not write at all: a pool without one of its data
 * devices (every commit must reach each), or one whose devices are behind
 * a device's own VG copy (pool_orphan.c). -ENODEV / -EUCLEAN, logged
 * with what tpcheck's next: line says; else 0. */
static int refuse_unrepairable(struct pool *p)
{
	struct pool_orphan o[POOL_ORPHANS_MAX];
	char what[VG_PATH_MAX + 128];
	unsigned n;

	if (!pool_vg(p))
		return 0;
	if (pool_missing_data(p, what, sizeof(what))) {
		char advice[2048];

		pool_repair_advice(p, NULL, NULL, 0, 0, NULL, advice, sizeof(advice));
		log_error("pool %s: its %s is missing; tprepair writes no pool without every data "
			  "device (nothing was changed): %s", pool_name(p), what, advice);
		return -ENODEV;
	}
	n = pool_orphans(p, o, TP_ARRAY_SIZE(o));
	for (unsigned i = 0; i < n; i++)
		if (o[i].kind == POOL_ORPHAN_AHEAD) {
			log_error("pool %s: %s holds the pool's VG metadata seqno %" PRIu64 ", which "
				  "names it, while the devices the pool was found on hold seqno %"
				  PRIu64 ": they are behind its state; nothing was changed",
				  pool_name(p), o[i].path, o[i].own_seqno, pool_vg(p)->seqno);
			return -EUCLEAN;
		}
	return 0;
}

/* Is thin device ID among the N ascending IDS? */
static int listed(const uint64_t *ids, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* A restore forced past a backup that makes volumes read something else
 * (PLAN->fit): which of the restored VG's volumes do, into RES. Another
 * pool's backup or another chunk size: every volume whose thin device the
 * salvage wrote (the others are reported lost); a smaller data area:
 * every volume that lost blocks. */
static void note_reread(const struct pool *p, const struct pool_relabel_plan *plan,
			const struct thin_repair_report *rep, struct pool_repair_result *res)
{
	const struct vg *vg = pool_vg(p);

	if (!plan->forced || !(plan->fit.bad & POOL_FIT_REINTERPRETS))
		return;
	snprintf(res->reread_why, sizeof(res->reread_why), "%s", plan->fit.why);
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		uint64_t id = vg->volumes[i].dev_id;
		int hit = (plan->fit.bad & (POOL_FIT_UUID | POOL_FIT_CHUNK)) &&
			  listed(rep->dev_ids, rep->nr_dev_ids, id);
		size_t used = strlen(res->reread);

		for (size_t k = 0; !hit && (plan->fit.bad & POOL_FIT_BLOCKS) && k < rep->nr_lost; k++)
			hit = !rep->lost[k].whole_device && rep->lost[k].dev_id == id;
		if (!hit)
			continue;
		if (used < sizeof(res->reread))
			snprintf(res->reread + used, sizeof(res->reread) - used, "%s%s",
				 res->nr_reread ? ", " : "", vg->volumes[i].name);
		res->nr_reread++;
	}
}

int pool_repair(const struct pool_repair_params *pp, const struct thin_repair_opts *opts,
		struct thin_repair_report *rep, struct pool_repair_result *res)
{
	struct pool_check_report left;
	char *listed = pp->devices ? NULL : pool_devices_from_file(pp->pool);
	const char *devices = pp->devices ? pp->devices : listed;
	struct pool_check_report prep;
	struct pool_relabel_plan plan;
	struct vg_mda_status st;
	struct vg *copy;
	struct pool *p = NULL;
	int r, bad = 0, complete = 0;
	unsigned xlabels = 0;

	memset(rep, 0, sizeof(*rep));
	memset(&prep, 0, sizeof(prep));
	memset(&left, 0, sizeof(left));
	memset(&st, 0, sizeof(st));
	r = (p = pool_alloc()) ? pool_attach(p, pp->pool, devices, POOL_ATTACH_OFFLINE |
					     POOL_ATTACH_WHOLE, &prep, &st) : -ENOMEM;
	/* (a VG of a newer format: no damage to mend; the refusal, an
	 * error, is pool_relabel's) */
	for (size_t i = 0; i + (prep.vg_too_new ? 1 : 0) < prep.f.nr_problems; i++)
		log_warn("pool %s: %s", pp->pool, prep.f.problems[i].msg);
	/* an earlier commit a newer tptools wrote: no damage, left to the
	 * next change (no rewrite: vg_read_flags sets no needs_repair) */
	if (prep.nr_newer_copies)
		log_notice("pool %s: note: %s; tprepair leaves it", pp->pool, prep.newer_copy);
	/* an added data device that lost its label, still where the VG and
	 * the devices file say: relabelled from the VG (in memory here) */
	if (r || (r = pool_relabel_xdata(p, &xlabels)) || (r = refuse_unrepairable(p)))
		goto out;
	/* everything is decided and checked first; the writes come last */
	if ((r = pool_relabel(p, devices, pp->restorefile, pp->force_salvage, &plan)))
		goto out;
	plan.xlabels = xlabels;
	if (xlabels && !plan.restore)
		plan.rewrite = 1;	/* its VG copy: one commit writes it */
	for (int i = 0; i < VG_NR_ROLES; i++)
		snprintf(res->device[i], sizeof(res->device[i]), "%s", pool_pv(p, i)->io->name);
	if (st.needs_repair && !plan.labels && !plan.restore)
		plan.rewrite = 1;
	if ((r = heal_mirror(p, res)))
		goto out;
	if ((r = thin_damaged(p, &bad, &left)))
		goto out;
	/* the VG copies lag behind the thin metadata and a backup agrees
	 * with it: a salvage would set the thin metadata back to the VG's
	 * transaction and delete what was made since; the restore is said */
	if (left.vg_behind_tid && !plan.restore && !pp->force_salvage) {
		pool_vg_lag_advice(p, devices, left.vg_behind_tid, res->next, sizeof(res->next));
		log_error("pool %s: its VG metadata lags behind its thin metadata; nothing was "
			  "changed: %s", pool_name(p), res->next);
		r = -EUCLEAN;
		goto out;
	}
	if (bad || pp->force_salvage) {
		r = salvage(p, opts, &plan, rep, res, &left);
		if (!r)
			note_reread(p, &plan, rep, res);
	} else if (plan.restore || plan.rewrite) {
		if (!(r = vg_clone(pool_vg(p), &copy)))
			r = pool_relabel_commit(p, &plan, copy, res);
	} else if (plan.labels) {
		r = pool_relabel_commit(p, &plan, NULL, res);
	}
	/* names swapped since the backup, restored by --force: they read
	 * another volume's data (tprepair exits 4) */
	if (!r && plan.nr_swapped) {
		size_t used = strlen(res->reread);

		if (!res->reread_why[0])
			snprintf(res->reread_why, sizeof(res->reread_why), "its volume names were "
				 "swapped or reused since; each name now opens the volume the backup "
				 "gave it");
		if (used < sizeof(res->reread))
			snprintf(res->reread + used, sizeof(res->reread) - used, "%s%s",
				 res->nr_reread ? ", " : "", plan.swapped);
		res->nr_reread += plan.nr_swapped;
	}
	if (!r && plan.forced) {
		/* they may be volumes of the state the devices hold: kept */
		if (plan.fit.nr_unlisted || plan.fit.nr_strays || !plan.fit.ids_read ||
		    (plan.fit.bad & (POOL_FIT_UUID | POOL_FIT_CHUNK)))
			log_warn("pool %s: thin devices that the restored backup lists as no volume "
				 "are kept ('tpcheck %s' lists them; 'tprepair %s' deletes them)",
				 pool_name(p), pool_name(p), pool_name(p));
	} else if (!r)
		r = delete_strays(p, res);
	if (!r)
		r = resync_mirror(p, res);
	/* orphans (a change cut between a label and its VG commit): wiped
	 * as the next writer does (core: pool_orphan.c) */
	if (!r)
		r = pool_orphans_finish(p, 1, res->orphans, sizeof(res->orphans),
					&res->orphans_wiped);
	/* labels behind the VG (an older label), rewritten from it as the
	 * next writer would */
	if (!r) {
		const char *behind[16];
		unsigned n = pool_labels_behind(p, behind, TP_ARRAY_SIZE(behind));

		if (n && !(r = pool_sync_labels(p, NULL)))
			res->labels_synced = n;
	}
	/* the devices file (this host's cache of where the devices are):
	 * entries lost or damaged, recorded again for the devices repaired */
	if (!r)
		res->devices_recorded = record_devices(p);
	/* an interrupted transaction: completed below, not left */
	complete = left.interrupted;
	left.interrupted = 0;
	/* what is left for another command, said as tpcheck says it */
	if (!r)
		pool_repair_advice(p, pp->devices, devices, 0, 0, &left, res->next,
				   sizeof(res->next));
out:
	pool_close(p);
	/* an interrupted transaction (kept by a salvage too): completed as
	 * the next writer's open does, the VG's change made in the thin
	 * metadata (pool_txn.c) */
	if (!r && complete && !res->salvaged) {
		struct pool *w;

		if (!(r = pool_open(pp->pool, devices, 0, &w)))
			res->txn_completed = pool_vg(w)->transaction_id;
		pool_close(w);
	}
	pool_check_report_free(&prep);
	free(listed);
	return r;
}
