/* pool_check.c - tpcheck POOL: labels, VG copies, thin metadata, VG <->
 * thin consistency. See pool_check.h. The devices are opened here without
 * pool_open (which refuses damaged thin metadata); pool_repair.c shares
 * pool_check_open_devices(). Both refuse a pool the kernel runs (-EBUSY). */
#include "lib/pool/pool_check_int.h"
#include "lib/pool/pool_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/vg/mda.h"

void pool_problem(struct pool_check_report *rep, int fatal, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	thin_check_vadd(&rep->f, fatal, UINT64_MAX, fmt, ap);
	va_end(ap);
}

static int split_paths(const char *devices, char *paths[2])
{
	const char *comma = strchr(devices, ',');

	if (!comma || strchr(comma + 1, ',') || comma == devices || !comma[1]) {
		log_error("--devices wants DATA,META, not '%s'", devices);
		return -EINVAL;
	}
	paths[0] = strndup(devices, (size_t)(comma - devices));
	paths[1] = strdup(comma + 1);
	return paths[0] && paths[1] ? 0 : -ENOMEM;
}

int pool_check_open_devices(const char *name, const char *devices, int write,
			    struct pool *p, struct pool_check_report *rep)
{
	char *paths[2] = { NULL, NULL };
	struct vg_mda_status st;
	const char *why;
	int r;

	memset(p, 0, sizeof(*p));
	if (!vg_name_valid(name, &why)) {
		log_error("invalid pool name '%s': %s", name, why);
		return -EINVAL;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->flags = write ? 0 : POOL_RDONLY;
	if ((r = tp_lock_acquire(name, write ? TP_LOCK_EXCL : TP_LOCK_SHARED, &p->lock))) {
		log_error("pool %s: cannot take its lock: %s", name, strerror(-r));
		return r;
	}
	r = devices ? split_paths(devices, paths) : pool_find_devices(name, paths);
	if (r)
		goto out;
	for (int i = 0; i < 2; i++) {
		struct io_engine *io;
		struct vg_label l;
		if ((r = io_fd_open(paths[i], write ? 0 : IO_RDONLY, &io))) {
			log_error("%s: cannot open: %s", paths[i], strerror(-r));
			goto out;
		}
		r = vg_label_read(io, &l);
		if (r != VG_LABEL_FOUND) {
			pool_problem(rep, 1, "%s: no valid tptools label (%s)", paths[i],
				     r < 0 ? strerror(-r) : "none found");
			io_destroy(io);
			r = 0;
			continue;
		}
		if (p->pv[l.role].io) {
			pool_problem(rep, 1, "%s and %s both claim the %s role", p->pv[l.role].io->name,
				     paths[i], vg_role_name(l.role));
			io_destroy(io);
			continue;
		}
		p->pv[l.role].io = io;
		p->pv[l.role].label = l;
	}
	if (!p->pv[VG_ROLE_DATA].io || !p->pv[VG_ROLE_META].io) {
		r = 0;
		goto out;	/* reported: nothing more to check */
	}
	r = vg_read(p->pv, VG_NR_ROLES, &p->vg, &st);
	if (r == -ENOMEM)
		goto out;
	if (r) {
		pool_problem(rep, 1, "no usable VG metadata copy on either device (%s)", strerror(-r));
		r = 0;
		goto out;
	}
	for (unsigned d = 0; d < st.nr_pvs; d++) {
		int newest = 0;
		if (st.read_error[d])
			pool_problem(rep, 0, "%s: its VG metadata area cannot be read: %s",
				     p->pv[d].io->name, strerror(-st.read_error[d]));
		for (int s = 0; s < VG_MDA_SLOTS; s++) {
			if (st.slot[d][s].state == VG_SLOT_CORRUPT)
				pool_problem(rep, 0, "%s: VG metadata slot %d is damaged (the next change "
					     "or tprepair rewrites it)", p->pv[d].io->name, s);
			if (st.slot[d][s].state == VG_SLOT_VALID && st.slot[d][s].seqno == st.seqno)
				newest = 1;
		}
		if (!newest && !st.read_error[d])
			pool_problem(rep, 0, "%s: lacks the newest VG metadata (seqno %" PRIu64 ")",
				     p->pv[d].io->name, st.seqno);
	}
	if (strcmp(p->vg->name, name))
		pool_problem(rep, 1, "the VG metadata names the pool %s, not %s", p->vg->name, name);
	if ((r = pool_live_detect(p)))
		goto out;
	if (p->live) {
		log_error("pool %s is active in the kernel: its on-disk metadata changes under us; "
			  "deactivate it first ('tpdeactivate %s')", name, name);
		r = -EBUSY;
	}
out:
	free(paths[0]);
	free(paths[1]);
	return r;
}

void pool_check_close_devices(struct pool *p)
{
	vg_free(p->vg);
	for (int i = 0; i < VG_NR_ROLES; i++)
		io_destroy(p->pv[i].io);
	tp_lock_release(p->lock);
	memset(p, 0, sizeof(*p));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The VG's volumes against the thin device ids (IDS ascending). */
static void compare_devices(struct pool_check_report *rep, const struct vg *vg,
			    const uint64_t *ids, size_t n, int in_step)
{
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		uint64_t id = vg->volumes[i].dev_id;
		if (!bsearch(&id, ids, n, sizeof(*ids), cmp_u64))
			pool_problem(rep, in_step, "volume %s: thin device %" PRIu64
				     " is missing from the thin metadata", vg->volumes[i].name, id);
	}
	for (size_t i = 0; i < n; i++)
		if (!vg_find_dev_id(vg, (uint32_t)ids[i]) || ids[i] > UINT32_MAX)
			pool_problem(rep, 0, "thin device %" PRIu64 " belongs to no volume (its "
				     "space is lost until it is deleted)", ids[i]);
}

int pool_check(const char *name, const char *devices, const struct thin_check_opts *opts,
	       struct pool_check_report *rep, struct thin_check_report *thin)
{
	struct pool p;
	struct io_engine *area = NULL;
	int r;

	memset(rep, 0, sizeof(*rep));
	memset(thin, 0, sizeof(*thin));
	if ((r = pool_check_open_devices(name, devices, 0, &p, rep)))
		goto out;
	if (!p.vg)
		goto out;
	const struct vg_area *a = &p.pv[VG_ROLE_META].label.area[p.vg->metadata_area];
	if ((r = io_window_create(p.pv[VG_ROLE_META].io, a->offset, a->size, 0, &area))) {
		pool_problem(rep, 1, "the active thin-metadata area lies beyond the end of %s",
			     p.pv[VG_ROLE_META].io->name);
		r = 0;
		goto out;
	}
	if ((r = thin_check_io(area, opts, thin)))
		goto out;
	if (!thin->sb_ok)
		goto out;
	if (thin->data_block_size != p.vg->chunk_size)
		pool_problem(rep, 1, "the thin metadata's data block size (%" PRIu32 " sectors) "
			     "differs from the pool's chunk (%" PRIu32 ")", thin->data_block_size,
			     p.vg->chunk_size);
	if (p.vg->transaction_id == thin->transaction_id) {
		compare_devices(rep, p.vg, thin->dev_ids, thin->nr_dev_ids, 1);
	} else if (p.vg->transaction_id == thin->transaction_id + 1) {
		pool_problem(rep, 0, "an interrupted transaction: the VG metadata is at transaction %"
			     PRIu64 ", the thin metadata at %" PRIu64 " (the next change to the "
			     "pool completes it)", p.vg->transaction_id, thin->transaction_id);
		compare_devices(rep, p.vg, thin->dev_ids, thin->nr_dev_ids, 0);
	} else {
		pool_problem(rep, 1, "transaction ids disagree: VG metadata %" PRIu64
			     ", thin metadata %" PRIu64 " (tprepair sets the thin one to the VG's)",
			     p.vg->transaction_id, thin->transaction_id);
		compare_devices(rep, p.vg, thin->dev_ids, thin->nr_dev_ids, 1);
	}
out:
	io_destroy(area);
	pool_check_close_devices(&p);
	return r;
}

void pool_check_report_free(struct pool_check_report *rep)
{
	if (rep)
		thin_check_findings_free(&rep->f);
}
