/* pool.c - open, close, VG commits and the transaction-id protocol.
 * See pool.h for the contract. */
#include "lib/pool/pool_int.h"
#include "lib/pool/pool_vg.h"

#include "lib/base/log.h"
#include "metadata/vg/devices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct vg *pool_vg(const struct pool *p) { return p->vg; }
struct thin_md *pool_thin(struct pool *p) { return p->md; }
const char *pool_name(const struct pool *p) { return p->name; }

const char *pool_device_path(const struct pool *p, enum vg_role role)
{
	return p->pv[role].io ? p->pv[role].io->name : "";
}

void pool_close(struct pool *p)
{
	if (!p)
		return;
	thin_close(p->md);
	io_destroy(p->thin_io);
	for (int i = 0; i < VG_NR_ROLES; i++)
		io_destroy(p->pv[i].io);
	vg_free(p->vg);
	tp_lock_release(p->lock);
	free(p);
}

/* Split "A,B" into PATHS (malloc'd); -EINVAL unless exactly two. */
static int split_devices(const char *devices, char *paths[2])
{
	const char *comma = strchr(devices, ',');

	paths[0] = paths[1] = NULL;
	if (!comma || comma == devices || !comma[1] || strchr(comma + 1, ',')) {
		log_error("--devices '%s': give the pool's two devices as DATA,META", devices);
		return -EINVAL;
	}
	paths[0] = strndup(devices, (size_t)(comma - devices));
	paths[1] = strdup(comma + 1);
	/* Absolute paths: the devices file must not depend on the cwd. */
	for (int i = 0; i < 2; i++) {
		char *abs = paths[i] ? realpath(paths[i], NULL) : NULL;
		if (abs) {
			free(paths[i]);
			paths[i] = abs;
		}
	}
	if (!paths[0] || !paths[1]) {
		free(paths[0]);
		free(paths[1]);
		return -ENOMEM;
	}
	return 0;
}

/* Open PATHS (any order), read their labels, put them in P->pv by role. */
static int open_devices(struct pool *p, char *paths[2], int record)
{
	unsigned flags = (p->flags & POOL_RDONLY) ? IO_RDONLY : 0;
	char uuid[VG_UUID_LEN + 1] = "";

	for (int i = 0; i < 2; i++) {
		struct io_engine *io;
		struct vg_label l;
		int r = io_fd_open(paths[i], flags, &io);

		if (r) {
			log_error("pool %s: cannot open %s: %s", p->name, paths[i], strerror(-r));
			return r;
		}
		r = vg_label_read(io, &l);
		if (r != VG_LABEL_FOUND) {
			if (r == VG_LABEL_NONE)
				log_error("%s carries no tptools label: it is not a device of pool "
					  "%s", paths[i], p->name);
			io_destroy(io);
			return r == VG_LABEL_NONE ? -ENOENT : r;
		}
		if (strcmp(l.pool_name, p->name)) {
			log_error("%s belongs to pool %s, not %s", paths[i], l.pool_name, p->name);
			io_destroy(io);
			return -ENOENT;
		}
		if (p->pv[l.role].io || (uuid[0] && strcmp(uuid, l.pool_uuid))) {
			log_error("pool %s: %s and %s are not the data and metadata devices of one "
				  "pool", p->name, paths[0], paths[1]);
			io_destroy(io);
			return -EINVAL;
		}
		strcpy(uuid, l.pool_uuid);
		p->pv[l.role].io = io;
		p->pv[l.role].label = l;
	}
	if (record && !(p->flags & POOL_RDONLY)) {
		for (int i = 0; i < VG_NR_ROLES; i++)
			pool_record_device(p->name, (enum vg_role)i, p->pv[i].label.pv_uuid,
					   p->pv[i].io->name);
	}
	return 0;
}

int pool_open_thin(struct pool *p)
{
	const struct vg_area *a = &p->pv[VG_ROLE_META].label.area[p->vg->metadata_area];
	int r;

	thin_close(p->md);
	io_destroy(p->thin_io);
	p->md = NULL;
	p->thin_io = NULL;
	r = io_window_create(p->pv[VG_ROLE_META].io, a->offset, a->size, 0, &p->thin_io);
	if (r) {
		log_error("pool %s: the thin-metadata area lies beyond the end of %s", p->name,
			  p->pv[VG_ROLE_META].io->name);
		return r;
	}
	r = thin_open(p->thin_io, (p->flags & POOL_RDONLY) ? THIN_RDONLY : 0, &p->md);
	if (r) {
		log_error("pool %s: cannot open its thin metadata (%s at byte %llu): %s; run "
			  "'tpcheck %s'", p->name, p->pv[VG_ROLE_META].io->name,
			  (unsigned long long)a->offset, strerror(-r), p->name);
		p->md = NULL;
	}
	return r;
}

int pool_commit_vg(struct pool *p, struct vg *next)
{
	struct vg_pv pvs[VG_NR_ROLES] = { p->pv[0], p->pv[1] };
	int r;

	for (int i = 0; i < VG_NR_ROLES; i++)
		snprintf(next->dev[i].path, sizeof(next->dev[i].path), "%s", p->pv[i].io->name);
	next->seqno = p->vg->seqno;
	r = vg_commit(pvs, VG_NR_ROLES, next);
	if (r) {
		log_error("pool %s: VG metadata commit failed: %s; nothing was changed",
			  p->name, strerror(-r));
		vg_free(next);
		return r;
	}
	vg_free(p->vg);
	p->vg = next;
	return 0;
}

/* Commit the VG as it is (repairs stale or damaged copies). */
static int rewrite_vg(struct pool *p)
{
	struct vg *copy;
	int r = vg_clone(p->vg, &copy);

	return r ? r : pool_commit_vg(p, copy);
}

int pool_open(const char *name, const char *devices, unsigned flags, struct pool **out)
{
	struct vg_pv pvs[VG_NR_ROLES];
	struct vg_mda_status st;
	char *paths[2] = { NULL, NULL };
	const char *why;
	struct pool *p;
	int r;

	*out = NULL;
	if (!vg_name_valid(name, &why)) {
		log_error("invalid pool name '%s': %s", name, why);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->flags = flags;
	r = tp_lock_acquire(name, (flags & POOL_RDONLY) ? TP_LOCK_SHARED : TP_LOCK_EXCL, &p->lock);
	if (r) {
		log_error("pool %s: cannot take its lock: %s", name, strerror(-r));
		goto fail;
	}
	r = devices ? split_devices(devices, paths) : pool_find_devices(name, paths);
	if (r)
		goto fail;
	r = open_devices(p, paths, devices != NULL);
	if (r)
		goto fail;
	pvs[0] = p->pv[0];
	pvs[1] = p->pv[1];
	r = vg_read(pvs, VG_NR_ROLES, &p->vg, &st);
	if (r) {
		log_error("pool %s: no usable VG metadata; 'tpcheck %s' says more", name, name);
		goto fail;
	}
	if (strcmp(p->vg->name, name)) {
		log_error("pool %s: its VG metadata names it %s", name, p->vg->name);
		r = -EUCLEAN;
		goto fail;
	}
	if (st.needs_repair) {
		if (flags & POOL_RDONLY)
			log_warn("pool %s: one VG metadata copy is stale or damaged; the next change "
				 "rewrites it", name);
		else if (!(r = rewrite_vg(p)))
			log_warn("pool %s: a stale or damaged VG metadata copy was rewritten", name);
	}
	r = pool_live_detect(p);
	if (r)
		goto fail;
	if (p->live) {
		r = pool_live_reconcile(p, !(flags & POOL_RDONLY));
	} else {
		r = pool_open_thin(p);
		if (!r)
			r = pool_reconcile(p, !(flags & POOL_RDONLY));
	}
	if (r)
		goto fail;
	free(paths[0]);
	free(paths[1]);
	*out = p;
	return 0;
fail:
	free(paths[0]);
	free(paths[1]);
	pool_close(p);
	return r;
}

int pool_locate_metadata(const char *name, const char *devices, char **path, uint64_t *offset,
			 uint64_t *length)
{
	struct pool *p;
	const struct vg_area *a;
	int r = pool_open(name, devices, POOL_RDONLY, &p);

	if (r)
		return r;
	if (p->live) {
		log_error("pool %s is active: the kernel's metadata may be ahead of the disk; "
			  "deactivate it first with 'tpdeactivate %s'", name, name);
		pool_close(p);
		return -EBUSY;
	}
	a = &p->pv[VG_ROLE_META].label.area[p->vg->metadata_area];
	*offset = a->offset;
	*length = a->size;
	*path = strdup(p->pv[VG_ROLE_META].io->name);
	pool_close(p);
	return *path ? 0 : -ENOMEM;
}
