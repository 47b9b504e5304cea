/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_area.c - bare thin-metadata areas (tpcheck --metadata, tpdump
 * FILE, tprepair --metadata -o, tprestore -o): opened through lib/base,
 * the file itself locked, a write target that is a pool device refused,
 * and a pool device given to tpcheck --metadata checked where its pool's
 * thin metadata is. See pool_check_int.h. */
#include "lib/pool/check/pool_check_int.h"
#include "lib/base/le.h"
#include "metadata/vg/mda.h"
#include "lib/pool/core/core.h"

#include "lib/base/io_area.h"
#include "lib/base/log.h"
#include "lib/dev/probe.h"
#include "lib/pool/core/pool_vg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pool_area_close(struct pool_area *a)
{
	io_destroy(a->io);
	tp_lock_release(a->lock);
	a->io = NULL;
	a->lock = NULL;
}

static int area_lock(const char *path, unsigned flags, struct pool_area *a)
{
	int r = tp_lock_file(path, flags, &a->lock);

	if (r == -EWOULDBLOCK) {
		log_error("%s: in use by another tptools command; try again when it has finished",
			  path);
		return -EBUSY;
	}
	if (r)
		log_error("%s: cannot lock: %s", path, strerror(-r));
	return r;
}

int pool_area_open_read(const char *path, uint64_t offset, uint64_t size, struct pool_area *a)
{
	int r;

	memset(a, 0, sizeof(*a));
	r = io_open_area(path, IO_RDONLY, offset, size, &a->io);
	if (!r)
		r = area_lock(path, TP_LOCK_SHARED, a);
	if (r)
		pool_area_close(a);
	return r;
}

/* The VG on PATH alone (its label L), quietly: NULL when unreadable. */
static struct vg *own_vg(const char *path, const struct vg_label *l)
{
	struct vg_pv pv = { NULL, *l };
	struct vg *vg = NULL;

	if (io_fd_open(path, IO_RDONLY, &pv.io))
		return NULL;
	if (vg_read(&pv, 1, &vg, NULL))
		vg = NULL;
	io_destroy(pv.io);
	return vg;
}

static int overlaps(uint64_t off, uint64_t len, const struct vg_area *a)
{
	return a->size && off < a->offset + a->size && a->offset < off + len;
}

/* Does PATH, which carries no (valid) label, hold a copy of a VG in the
 * slot where every pool device has its first one (not a blank slot of a
 * device wiped by tpremove): a pool device whose label was lost? */
static int lost_label_vg_area(const char *path)
{
	struct io_engine *io = NULL;
	unsigned char head[VG_MDA_SLOT_HEADER];
	int found = 0;

	if (!io_fd_open(path, IO_RDONLY, &io) && io->size >= VG_MDA_DEFAULT_OFFSET + sizeof(head) &&
	    !io_read(io, VG_MDA_DEFAULT_OFFSET, head, sizeof(head)))
		found = !memcmp(head + 4, VG_MDA_MAGIC, 8) && le64_get(head + 40);	/* a copy */
	io_destroy(io);
	return found;
}

/* Does writing [OFFSET, OFFSET + LEN) of PATH hit what a pool uses: a
 * pool device's label, its VG metadata area, the data area, or either
 * thin-metadata area (the active one, or the spare that holds the copy
 * the last repair set aside)? Those are what the label records. */
static int refuse_pool_area(const char *path, uint64_t offset, uint64_t len,
			    const char *what_else)
{
	struct vg_label l;
	struct vg *vg;
	const char *what, *note = "";
	const struct vg_area *hit = NULL;
	int r = pool_read_label(path, &l), active = -1;

	if (r == -EUCLEAN && offset < VG_LABEL_OFFSET + VG_LABEL_SIZE) {
		log_error("%s: refusing to write: it carries a damaged tptools label (a pool "
			  "device?); %s add --force to overwrite it", path, what_else);
		return -EBUSY;
	}
	/* a label that cannot be read (an I/O error, no memory) says
	 * nothing: nothing is written over what it may be */
	if (r && r != -ENOENT && r != -EUCLEAN) {
		log_error("%s: refusing to write: its label cannot be read (%s)", path,
			  strerror(-r));
		return r;
	}
	if (r && lost_label_vg_area(path)) {
		log_error("%s: refusing to write: it carries a tptools VG metadata area but no "
			  "label (a pool device whose label is lost: 'tpcheck' of its pool says "
			  "how to put it back); %s add --force to overwrite it", path, what_else);
		return -EBUSY;
	}
	if (r)
		return 0;
	if (offset < VG_LABEL_OFFSET + VG_LABEL_SIZE) {
		log_error("%s: refusing to write: it is the %s device of pool %s and writing here "
			  "would destroy the pool; %s add --force to overwrite it", path,
			  vg_role_name(l.role) ? vg_role_name(l.role) : "?", l.pool_name,
			  what_else);
		return -EBUSY;
	}
	if (overlaps(offset, len, &l.mda)) {
		hit = &l.mda;
		what = "VG metadata area";
	}
	for (int i = 0; i < 2 && !hit; i++)
		if (overlaps(offset, len, &l.area[i]))
			hit = &l.area[i];
	if (!hit)
		return 0;
	if (hit != &l.mda && l.role == VG_ROLE_DATA) {
		what = "data area";
	} else if (hit != &l.mda) {
		if ((vg = own_vg(path, &l))) {
			active = (int)vg->metadata_area;
			vg_free(vg);
		}
		what = active < 0 ? "thin-metadata area" : hit == &l.area[active]
								? "active thin-metadata area"
								: "spare thin-metadata area";
		note = active < 0 ? ": active or spare, its VG metadata cannot be read here"
		       : hit == &l.area[active] ? ""
						 : ": tprepair writes there, and it holds any copy "
						   "an earlier repair set aside";
	}
	log_error("%s: refusing to write: the area written (offset %llu, %llu bytes) overlaps "
		  "the %s of pool %s (offset %llu, %llu bytes%s), which the pool uses; %s add "
		  "--force to overwrite it", path, (unsigned long long)offset,
		  (unsigned long long)len, what, l.pool_name, (unsigned long long)hit->offset,
		  (unsigned long long)hit->size, note, what_else);
	return -EBUSY;
}

/* Is PATH a device of a pool the kernel runs? Refused even with --force:
 * the kernel would overwrite, or be corrupted by, what is written. */
static int refuse_active_pool(const char *path)
{
	struct vg_label l;

	if (pool_read_label(path, &l))
		return 0;	/* not ours (a damaged label: refuse_label says) */
	return pool_refuse_live_device(path, &l);
}

/* Does writing AREA (SIZE 0: to the end) of PATH destroy another program's
 * signature (a filesystem, a RAID or LVM member, ...) inside it? */
static int refuse_signature(const char *path, const struct io_engine *area, uint64_t offset,
			    const char *what_else)
{
	struct tp_probe_result res;
	char what[160];
	int r = tp_dev_probe(path, NULL, &res);

	if (r <= 0)
		return r;
	for (unsigned k = 0; k < res.count; k++) {
		const struct tp_signature *sig = &res.sig[k];
		if (sig->offset != UINT64_MAX &&
		    (sig->offset < offset || sig->offset - offset >= area->size))
			continue;
		log_error("%s: refusing to write: it carries %s; %s add --force to overwrite it",
			  path, tp_signature_describe(sig, what, sizeof(what)), what_else);
		return -EBUSY;
	}
	return 0;
}

int pool_area_open_write(const char *path, unsigned io_flags, uint64_t offset, uint64_t size,
			 int force, const char *what_else, struct pool_area *a)
{
	int r;

	memset(a, 0, sizeof(*a));
	r = refuse_active_pool(path);
	if (!r)
		r = io_open_area(path, io_flags, offset, size, &a->io);
	if (!r)
		r = area_lock(path, TP_LOCK_EXCL | TP_LOCK_NOWAIT, a);
	if (!r && !force)
		r = refuse_pool_area(path, offset, a->io->size, what_else);
	if (!r && !force)
		r = refuse_signature(path, a->io, offset, what_else);
	if (r)
		pool_area_close(a);
	return r;
}

/* The active thin area of the pool whose metadata device PATH is (label
 * L): its own VG says which of the two areas. */
static int meta_device_area(const char *path, const struct vg_label *l, uint64_t *offset,
			    uint64_t *size)
{
	struct vg_pv pv = { NULL, *l };
	struct vg *vg;
	int r = io_fd_open(path, IO_RDONLY, &pv.io);

	if (r) {
		log_error("%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	r = vg_read(&pv, 1, &vg, NULL);
	io_destroy(pv.io);
	if (r) {
		log_error("%s is the metadata device of pool %s, whose VG metadata cannot be read "
			  "here; run 'tpcheck %s'", path, l->pool_name, l->pool_name);
		return r;
	}
	*offset = l->area[vg->metadata_area].offset;
	*size = l->area[vg->metadata_area].size;
	vg_free(vg);
	return 0;
}

/* PATH, a whole device (no --offset/--size) given to tpcheck --metadata,
 * carries our label: where its pool's active thin area is (*AREA_PATH
 * malloc'd), said in words. 1: no label, check PATH as given. */
static int pool_device_area(const char *path, char **area_path, uint64_t *offset,
			    uint64_t *size)
{
	struct vg_label l;
	int r = pool_read_label(path, &l);

	if (r)
		return 1;	/* not ours, or a damaged label: check what is there */
	if (l.role == VG_ROLE_META) {
		r = meta_device_area(path, &l, offset, size);
		if (!r && !(*area_path = strdup(path)))
			r = -ENOMEM;
	} else {
		r = pool_locate_metadata(l.pool_name, NULL, area_path, offset, size);
		if (r) {
			log_error("%s is the data device of pool %s and holds no thin metadata; "
				  "check the pool with 'tpcheck %s' (--devices DATA,META names "
				  "its devices)", path, l.pool_name, l.pool_name);
			return r;
		}
	}
	if (r)
		return r;
	log_warn("%s is the %s device of pool %s: checking the pool's active thin metadata "
		 "area (%s, offset %llu, %llu bytes); 'tpcheck %s' checks the whole pool",
		 path, l.role == VG_ROLE_META ? "metadata" : "data", l.pool_name, *area_path,
		 (unsigned long long)*offset, (unsigned long long)*size, l.pool_name);
	return 0;
}

int pool_area_check(const char *path, uint64_t offset, uint64_t size,
		    const struct thin_check_opts *opts, struct thin_check_report *rep)
{
	struct pool_area a;
	char *area_path = NULL;
	int r = 1;

	if (!offset && !size)
		r = pool_device_area(path, &area_path, &offset, &size);
	if (r < 0)
		return r;
	r = pool_area_open_read(area_path ? area_path : path, offset, size, &a);
	if (!r)
		r = thin_check_io(a.io, opts, rep);
	pool_area_close(&a);
	free(area_path);
	return r;
}

int pool_area_repair(const struct pool_repair_params *p, const struct thin_repair_opts *opts,
		     struct thin_repair_report *rep)
{
	struct pool_area in, out = { NULL, NULL };
	int r = pool_area_open_read(p->metadata, p->offset, p->size, &in);

	if (!r)
		r = pool_area_open_write(p->output, 0, 0, 0, p->force, "give another OUT, or", &out);
	if (!r)
		r = thin_repair_io(in.io, out.io, opts, rep);
	if (!r)
		r = io_flush(out.io);
	pool_area_close(&in);
	pool_area_close(&out);
	return r;
}
