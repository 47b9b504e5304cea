/* pool_repair.c - tprepair POOL: salvage the ACTIVE thin-metadata area
 * into the SPARE one and swap them in one VG commit. See pool_check.h.
 * The transaction id written is the VG's unless the caller gives one, so
 * VG and thin metadata agree afterwards - except after an interrupted
 * transaction (thin one behind the VG, old superblock readable): that
 * id is kept so the next change replays the VG's intent (pool.h). Devices
 * the VG lists but the salvage lost are reported (their volumes must be
 * removed or restored). */
#include "lib/pool/pool_check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/base/log.h"
#include "lib/pool/pool_int.h"
#include "metadata/thin/thin_sb.h"

int pool_repair(const char *name, const char *devices, const struct thin_repair_opts *opts,
		struct thin_repair_report *rep)
{
	struct pool_check_report prep;
	struct thin_repair_opts o = *opts;
	struct io_engine *in = NULL, *out = NULL;
	struct vg *next = NULL;
	struct pool p;
	int r;

	memset(rep, 0, sizeof(*rep));
	memset(&prep, 0, sizeof(prep));
	r = pool_attach(&p, name, devices, POOL_ATTACH_OFFLINE, &prep, NULL);
	for (size_t i = 0; i < prep.f.nr_problems; i++)
		log_warn("pool %s: %s", name, prep.f.problems[i].msg);
	if (r)
		goto out;
	if (!p.vg) {
		log_error("pool %s: no usable labels or VG metadata: tprepair cannot tell where the "
			  "thin metadata is; restore the VG from a backup (/etc/tptools/backup)", name);
		r = -EUCLEAN;
		goto out;
	}
	unsigned act = p.vg->metadata_area, spare = !act;
	const struct vg_area *a = &p.pv[VG_ROLE_META].label.area[act];
	const struct vg_area *s = &p.pv[VG_ROLE_META].label.area[spare];
	if (!s->size) {
		log_error("pool %s: its metadata device has no spare area", name);
		r = -ENOSPC;
		goto out;
	}
	if ((r = io_window_create(p.pv[VG_ROLE_META].io, a->offset, a->size, 0, &in)) ||
	    (r = io_window_create(p.pv[VG_ROLE_META].io, s->offset, s->size, 0, &out)))
		goto out;
	in->read_only = 1;	/* the damaged copy is never written */
	if (!o.set_transaction_id) {
		struct thin_sb old;
		o.set_transaction_id = 1;
		o.transaction_id = p.vg->transaction_id;
		if (thin_sb_read(in, 0, &old) == 0 && old.trans_id != p.vg->transaction_id) {
			if (old.trans_id + 1 == p.vg->transaction_id) {
				/* keep the interrupted transaction for the replay */
				o.transaction_id = old.trans_id;
				log_warn("pool %s: an interrupted transaction (VG %" PRIu64 ", thin %"
					 PRIu64 ") is kept; the next change to the pool completes it",
					 name, p.vg->transaction_id, old.trans_id);
			} else {
				log_warn("pool %s: the thin transaction id was %" PRIu64 "; set to the "
					 "VG's %" PRIu64, name, old.trans_id, p.vg->transaction_id);
			}
		}
	}
	if (!o.data_block_size)
		o.data_block_size = p.vg->chunk_size;
	if (!o.nr_data_blocks && p.vg->chunk_size)
		o.nr_data_blocks = p.pv[VG_ROLE_DATA].label.area[0].size /
				   ((uint64_t)p.vg->chunk_size * 512);
	if ((r = thin_repair_io(in, out, &o, rep)))
		goto out;
	if ((r = io_flush(out)))
		goto out;
	if ((r = vg_clone(p.vg, &next)))
		goto out;
	next->metadata_area = spare;
	r = pool_commit_vg(&p, next);	/* frees NEXT on failure */
	if (r) {
		log_error("pool %s: the repaired metadata is in the spare area but the VG commit "
			  "failed; the pool still uses the damaged copy", name);
		goto out;
	}
	for (unsigned i = 0; i < p.vg->nr_volumes; i++) {
		uint64_t id = p.vg->volumes[i].dev_id;
		int found = 0;
		for (size_t k = 0; k < rep->nr_dev_ids && !found; k++)
			found = rep->dev_ids[k] == id;
		if (!found)
			log_warn("pool %s: volume %s (thin device %" PRIu64 ") was lost; remove it "
				 "with 'tvremove %s/%s'", name, p.vg->volumes[i].name, id, name,
				 p.vg->volumes[i].name);
	}
out:
	io_destroy(in);
	io_destroy(out);
	pool_detach(&p);
	pool_check_report_free(&prep);
	return r;
}
