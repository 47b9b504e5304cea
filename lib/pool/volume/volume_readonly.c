/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include "lib/pool/pool_volume.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>

int pool_volume_get_readonly(const struct pool *p, const char *vol)
{
	const struct vg_volume *v = pool_find_volume(p, vol);

	return v ? v->read_only : -ENOENT;
}

int pool_volume_set_readonly(struct pool *p, const char *vol, int on)
{
	const struct vg_volume *cur;
	struct vg_volume *v;
	char old_uuid[sizeof(v->content_uuid)];
	struct tp_dm_info info;
	struct vg *next;
	int r;

	if (!(cur = pool_find_volume(p, vol)))
		return -ENOENT;
	if (cur->read_only == !!on && (!on || cur->content_uuid[0]))
		return 0;	/* (read-only from before content uuids: given one) */
	if (pool_volume_loaded(p, vol, &info) > 0) {
		log_error("pool %s: volume %s is active (its table was loaded %s); deactivate it "
			  "first ('tpdeactivate %s %s')", pool_name(p), vol,
			  info.read_only ? "read-only" : "writable", pool_name(p), vol);
		return -EBUSY;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	v = vg_find_volume(next, vol);
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
			 "chain", pool_name(p), vol, old_uuid, vol);
	return 0;
}

int pool_volume_refuse_readonly(const struct pool *p, const char *vol, const char *what)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);

	if (!v || !v->read_only)
		return 0;
	log_error("pool %s: volume %s is read-only: %s would change its content; make it "
		  "writable first ('tvchange --readonly n %s/%s')", pool_name(p), vol, what, pool_name(p),
		  vol);
	return -EROFS;
}
