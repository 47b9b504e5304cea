/* pool.c - open and close a pool (its devices through pool_attach.c, then
 * the backend: the thin metadata, or the kernel when live) and its VG
 * commits. See pool.h for the contract. */
#include "lib/pool/pool_int.h"
#include "lib/pool/pool_vg.h"

#include "lib/base/log.h"
#include "lib/pool/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct vg *pool_vg(const struct pool *p) { return p->vg; }
struct thin_md *pool_thin(struct pool *p) { return p->md; }
const char *pool_name(const struct pool *p) { return p->name; }
int pool_is_live(const struct pool *p) { return p->live; }

const char *pool_device_path(const struct pool *p, enum vg_role role)
{
	return p->pv[role].io ? p->pv[role].io->name : "";
}

void pool_close(struct pool *p)
{
	if (!p)
		return;
	pool_detach(p);
	free(p);
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
	pool_backup_commit(next);
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
	struct vg_mda_status st;
	struct pool *p;
	int r;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r = pool_attach(p, name, devices, flags, NULL, &st);
	if (r)
		goto fail;
	if (st.needs_repair) {
		if (flags & POOL_RDONLY)
			log_warn("pool %s: one VG metadata copy is stale or damaged; the next change "
				 "rewrites it", name);
		else if (!(r = rewrite_vg(p)))
			log_warn("pool %s: a stale or damaged VG metadata copy was rewritten", name);
	}
	if (!r)
		r = pool_sync_labels(p, NULL);
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
	*out = p;
	return 0;
fail:
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
