/* pool_check.c - tpcheck POOL: labels, VG copies, thin metadata, VG <->
 * thin consistency. See pool_check.h. The devices are opened by
 * pool_attach with a report (pool_open would refuse damaged thin
 * metadata); a pool the kernel runs is refused (-EBUSY). */
#include "lib/pool/check/pool_check_int.h"
#include "lib/pool/core/core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Is ID among IDS (N, ascending; NULL when N is 0)? */
static int has_id(const uint64_t *ids, size_t n, uint64_t id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), cmp_u64);
}

/* The VG's volumes against the thin device ids (IDS ascending). A
 * volume whose thin device is missing at the VG's own transaction (IN_STEP)
 * was lost (a salvage could not save its device): fatal, and 'tvremove'
 * takes it out of the VG. */
static void compare_devices(struct pool_check_report *rep, const struct vg *vg,
			    const uint64_t *ids, size_t n, int in_step, int lost)
{
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		uint64_t id = vg->volumes[i].dev_id;
		size_t used = strlen(rep->lost);

		if (has_id(ids, n, id))
			continue;
		pool_problem(rep, in_step, "volume %s: thin device %" PRIu64 " is missing from the "
			     "thin metadata%s", vg->volumes[i].name, id,
			     lost ? " (its data is lost)" : "");
		if (!lost)
			continue;
		rep->nr_lost++;
		if (used + strlen(vg->name) + strlen(vg->volumes[i].name) + 3 < sizeof(rep->lost))
			snprintf(rep->lost + used, sizeof(rep->lost) - used, "%s%s/%s",
				 used ? " " : "", vg->name, vg->volumes[i].name);
	}
	for (unsigned i = 0; i < vg->nr_receives; i++) {
		uint64_t id = vg->receives[i].dev_id;
		if (!has_id(ids, n, id))
			pool_problem(rep, in_step, "unfinished receive %s: thin device %" PRIu64
				     " is missing from the thin metadata", vg->receives[i].name, id);
	}
	/* a removal under way whose device was lost: tvremove ends it */
	for (unsigned i = 0; i < vg->nr_removals; i++) {
		uint64_t id = vg->removals[i].dev_id;
		size_t used = strlen(rep->lost);

		if (has_id(ids, n, id))
			continue;
		pool_problem(rep, in_step, "removal of %s: thin device %" PRIu64
			     " is missing from the thin metadata", vg->removals[i].name, id);
		if (!lost)
			continue;
		rep->nr_lost++;
		if (used + strlen(vg->name) + strlen(vg->removals[i].name) + 3 < sizeof(rep->lost))
			snprintf(rep->lost + used, sizeof(rep->lost) - used, "%s%s/%s",
				 used ? " " : "", vg->name, vg->removals[i].name);
	}
	for (size_t i = 0; i < n; i++)
		if (!vg_find_dev_id(vg, (uint32_t)ids[i]) || ids[i] > UINT32_MAX) {
			pool_problem(rep, 0, "thin device %" PRIu64 " belongs to no volume (its "
				     "space is lost until it is deleted: 'tprepair' deletes it)",
				     ids[i]);
			rep->nr_strays++;
		}
}

int pool_check_attached(struct pool *p, const struct thin_check_opts *opts,
			struct pool_check_report *rep, struct thin_check_report *thin)
{
	struct io_engine *area = NULL;
	struct thin_sb sb;
	int r;

	if (pool_meta_area_io(p, 0, &area)) {
		pool_problem(rep, 1, "the active thin-metadata area lies beyond the end of %s",
			     pool_meta_dev_name(p));
		return 0;
	}
	r = thin_check_io(area, opts, thin);
	if (!r && thin->sb_ok && !thin_sb_read(area, 0, &sb) &&
	    (sb.flags & THIN_SB_FLAG_NEEDS_CHECK))
		pool_problem(rep, 0, "needs_check is set (the kernel's mark after a metadata "
			     "error); activation refuses until 'tprepair %s' clears it", pool_name(p));
	io_destroy(area);
	if (r || !thin->sb_ok)
		return r;
	if (thin->data_block_size != pool_vg(p)->chunk_size)
		pool_problem(rep, 1, "the thin metadata's data block size (%" PRIu32 " sectors) "
			     "differs from the pool's chunk (%" PRIu32 ")", thin->data_block_size,
			     pool_vg(p)->chunk_size);
	if (pool_vg(p)->transaction_id == thin->transaction_id) {
		/* a volume without its device is lost when the thin metadata is
		 * sound; damaged, its salvage may find the device yet */
		compare_devices(rep, pool_vg(p), thin->dev_ids, thin->nr_dev_ids, 1,
				!thin->f.nr_fatal);
	} else if (pool_vg(p)->transaction_id == thin->transaction_id + 1) {
		pool_problem(rep, 0, "an interrupted transaction: the VG metadata is at transaction %"
			     PRIu64 ", the thin metadata at %" PRIu64 " (the next change to the "
			     "pool completes it)", pool_vg(p)->transaction_id, thin->transaction_id);
		compare_devices(rep, pool_vg(p), thin->dev_ids, thin->nr_dev_ids, 0, 0);
	} else {
		pool_problem(rep, 1, "transaction ids disagree: VG metadata %" PRIu64
			     ", thin metadata %" PRIu64 " (tprepair sets the thin one to the VG's)",
			     pool_vg(p)->transaction_id, thin->transaction_id);
		compare_devices(rep, pool_vg(p), thin->dev_ids, thin->nr_dev_ids, 1, 0);
	}
	return 0;
}

/* The orphan labels of P (core: pool_orphan.c) as findings: non-fatal
 * (nothing of the pool is on them; its next writer, tprepair among
 * them, wipes them), a device whose own VG copy is ahead of the pool's
 * fatal (the devices read are behind the pool's state). */
void pool_check_orphans(struct pool *p, struct pool_check_report *rep)
{
	struct pool_orphan o[POOL_ORPHANS_MAX];
	unsigned n = pool_orphans(p, o, TP_ARRAY_SIZE(o));

	for (unsigned i = 0; i < n; i++) {
		if (o[i].kind == POOL_ORPHAN_AHEAD) {
			pool_problem(rep, 1, "%s holds VG metadata seqno %" PRIu64 " of the pool, "
				     "which names it; the pool's devices hold %" PRIu64 ": they are "
				     "behind its state", o[i].path, o[i].own_seqno,
				     pool_vg(p)->seqno);
			rep->nr_ahead++;
			continue;
		}
		pool_problem(rep, 0, "%s: orphan label (%s device): the pool's VG does not name "
			     "it; %s", o[i].path, vg_role_name(o[i].label.role),
			     o[i].kind == POOL_ORPHAN_DROPPED ? "it was taken away, its wipe cut short"
							     : "it was being added, its commit cut short");
		if (!rep->nr_orphans++)
			snprintf(rep->orphan, sizeof(rep->orphan), "%.*s",
				 (int)sizeof(rep->orphan) - 1, o[i].path);
	}
}

int pool_check(const char *name, const char *devices, const struct thin_check_opts *opts,
	       struct pool_check_report *rep, struct thin_check_report *thin, char *next,
	       size_t len)
{
	char *listed = devices ? NULL : pool_devices_from_file(name);
	struct pool *p = NULL;
	size_t before;
	int r;

	memset(rep, 0, sizeof(*rep));
	memset(thin, 0, sizeof(*thin));
	if (!(p = pool_alloc())) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = pool_attach(p, name, devices ? devices : listed,
			     POOL_RDONLY | POOL_ATTACH_OFFLINE, rep, NULL)))
		goto out;
	before = rep->f.nr_problems;
	if (pool_vg(p))
		r = pool_check_attached(p, opts, rep, thin);
	if (!r && pool_vg(p))
		pool_check_orphans(p, rep);
	if (!r) {
		/* strays alone: tprepair deletes them, no salvage; lost volumes
		 * and orphans are no damage of the thin metadata either */
		size_t own = rep->nr_strays + rep->nr_lost + rep->nr_orphans + rep->nr_ahead;
		int thin_bad = rep->f.nr_problems - own > before || thin->f.nr_problems
				       ? 1 : rep->nr_strays ? 2 : 0;
		pool_repair_advice(p, devices, devices ? devices : listed, before > 0, thin_bad,
				   rep, next, len);
	}
out:
	free(listed);
	pool_close(p);
	return r;
}

void pool_check_report_free(struct pool_check_report *rep)
{
	if (rep)
		thin_check_findings_free(&rep->f);
}
