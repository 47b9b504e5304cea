/* volume_readonly.c - read-only volumes (pool.h: pool_volume_get_readonly,
 * pool_volume_set_readonly, pool_volume_refuse_readonly): the VG's
 * read_only key of a volume, changed by one VG commit. Activation loads a
 * read-only volume's thin table read-only (pool_activate.c), so the kernel
 * refuses writes to it (EROFS/EPERM); offline writers of a volume's
 * content ask pool_volume_refuse_readonly first. A loaded volume keeps the
 * table it was loaded with, so the flag is changed only while the volume
 * is not active. A volume made read-only gets a fresh content uuid (the
 * send stream's name for what it holds); made writable, it loses it, and
 * a warning says that incremental streams based on it are no longer
 * accepted. */
#include "lib/pool/core/core.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>

static struct vg_volume *find(const struct pool *p, struct vg *vg, const char *vol)
{
	struct vg_volume *v = vg_find_volume(vg, vol);

	if (!v)
		log_error("pool %s has no volume %s; 'tpstatus %s' lists them", p->name, vol,
			  p->name);
	return v;
}

int pool_volume_get_readonly(const struct pool *p, const char *vol)
{
	const struct vg_volume *v = find(p, p->vg, vol);

	return v ? v->read_only : -ENOENT;
}

int pool_volume_set_readonly(struct pool *p, const char *vol, int on)
{
	struct vg_volume *v;
	char dm[TP_DM_NAME_MAX], old_uuid[sizeof(v->content_uuid)];
	struct tp_dm_info info;
	struct vg *next;
	int r;

	if (!(v = find(p, p->vg, vol)))
		return -ENOENT;
	if (v->read_only == !!on && (!on || v->content_uuid[0]))
		return 0;	/* (read-only from before content uuids: given one) */
	if (pool_is_live(p) && !tp_dm_name(dm, sizeof(dm), p->name, TP_DM_ROLE_THIN, vol) &&
	    !tp_dm_info(dm, &info)) {
		log_error("pool %s: volume %s is active (its table was loaded %s); deactivate it "
			  "first ('tpdeactivate %s %s')", p->name, vol,
			  info.read_only ? "read-only" : "writable", p->name, vol);
		return -EBUSY;
	}
	if ((r = vg_clone(p->vg, &next)))
		return r;
	v = find(p, next, vol);
	snprintf(old_uuid, sizeof(old_uuid), "%s", v->content_uuid);
	v->read_only = !!on;
	v->content_uuid[0] = '\0';
	if (on && (r = vg_uuid_generate(v->content_uuid))) {
		vg_free(next);
		return r;
	}
	if ((r = pool_commit_vg(p, next)))
		return r;
	if (!on && old_uuid[0])
		log_warn("pool %s: volume %s dropped its content uuid %s: tprecv no longer "
			 "accepts incremental streams based on it (tpsend --from %s), and "
			 "read-only again it gets a new one; send a full stream to start a new "
			 "chain", p->name, vol, old_uuid, vol);
	return 0;
}

int pool_volume_refuse_readonly(const struct pool *p, const char *vol, const char *what)
{
	const struct vg_volume *v = vg_find_volume(p->vg, vol);

	if (!v || !v->read_only)
		return 0;
	log_error("pool %s: volume %s is read-only: %s would change its content; make it "
		  "writable first ('tvchange --readonly n %s/%s')", p->name, vol, what, p->name,
		  vol);
	return -EROFS;
}
