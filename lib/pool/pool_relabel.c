/* pool_relabel.c - tprepair's first stage: a pool's labels and VG
 * metadata areas (pool_check_int.h).
 *
 * Every device's label can be rebuilt from the VG metadata, which records
 * each device's uuid, size and areas. So a device whose label is lost or
 * corrupt gets it back from the VG copy on the other device; when no VG
 * copy is left (both labels gone, or every VG slot damaged), the VG comes
 * from a backup file the user names (--restorefile, LVM's vgcfgrestore),
 * and the labels from it. Before a label is written, the device must be
 * at least as large as the VG says, and a valid label left on it must
 * name the same pool and device uuid. A restored VG is committed with a
 * seqno above any on the devices; a VG on the devices at least as new as
 * the backup is kept instead. */
#include "lib/pool/pool_check_int.h"
#include "lib/pool/pool_int.h"

#include "lib/base/log.h"
#include "lib/pool/host.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *pool_devices_from_file(const char *name)
{
	struct pool_devices_entry ent[8];
	const char *path[VG_NR_ROLES] = { NULL, NULL };
	int n = pool_devices_lookup_pool(name, ent, TP_ARRAY_SIZE(ent)), lost = 0;
	char *s;

	for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++)
		if (!path[ent[i].role])
			path[ent[i].role] = ent[i].path;
	if (!path[VG_ROLE_DATA] || !path[VG_ROLE_META])
		return NULL;
	for (int i = 0; i < VG_NR_ROLES; i++) {
		struct vg_label l;
		int r = pool_read_label(path[i], &l);
		if (r == -ENOENT || r == -EUCLEAN)
			lost = 1;
		else if (r || strcmp(l.pool_name, name))
			return NULL;	/* moved or unreadable: the label scan's business */
	}
	if (!lost)
		return NULL;
	if (asprintf(&s, "%s,%s", path[VG_ROLE_DATA], path[VG_ROLE_META]) < 0)
		return NULL;
	return s;
}

/* Does the labelled device in ROLE belong to VG? */
static int label_matches(const struct pool *p, const struct vg *vg, enum vg_role role,
			 const char *from)
{
	const struct vg_label *l = &p->pv[role].label;

	if (!strcmp(l->pool_uuid, vg->uuid) && !strcmp(l->pv_uuid, vg->dev[role].pv_uuid))
		return 0;
	log_error("pool %s: %s carries the label of device %s (pool uuid %s), but %s names "
		  "device %s of pool %s for its %s role: not restoring over it", p->name,
		  p->pv[role].io->name, l->pv_uuid, l->pool_uuid, from, vg->dev[role].pv_uuid,
		  vg->uuid, vg_role_name(role));
	return -EBUSY;
}

/* Open PATH for ROLE and write the label VG records for it, after the
 * checks above. Fills P->pv[ROLE]. PATH is one of the paths pool_attach
 * opened and claimed (its lock on the device stays held until
 * pool_detach), so no other tptools command can write it meanwhile. */
static int relabel(struct pool *p, const struct vg *vg, enum vg_role role, const char *path)
{
	struct io_engine *io;
	struct vg_label old, l;
	int r = io_fd_open(path, 0, &io);

	if (r) {
		log_error("pool %s: cannot open %s: %s", p->name, path, strerror(-r));
		return r;
	}
	if (io->size < vg->dev[role].size) {
		log_error("pool %s: %s has %" PRIu64 " bytes, less than the %" PRIu64 " its %s "
			  "device had: not the right device", p->name, path, io->size,
			  vg->dev[role].size, vg_role_name(role));
		io_destroy(io);
		return -ENOSPC;
	}
	r = vg_label_read(io, &old);
	if (r == VG_LABEL_FOUND && (strcmp(old.pool_uuid, vg->uuid) ||
				    strcmp(old.pv_uuid, vg->dev[role].pv_uuid))) {
		log_error("pool %s: %s carries a valid label of another device (%s, pool %s); "
			  "not writing over it", p->name, path, old.pv_uuid, old.pool_name);
		io_destroy(io);
		return -EBUSY;
	}
	vg_label_from_vg(vg, role, vg->dev[role].size, &l);
	r = vg_label_write(io, &l);
	if (r) {
		log_error("pool %s: cannot write the label of %s: %s", p->name, path, strerror(-r));
		io_destroy(io);
		return r;
	}
	p->pv[role].io = io;
	p->pv[role].label = l;
	return 0;
}

/* The VG in FILE, which must be pool P's. */
static int load_backup(const struct pool *p, const char *file, struct vg **out)
{
	char *text;
	size_t len;
	int r = pool_backup_read_file(file, &text, &len);

	if (r) {
		log_error("pool %s: cannot read the backup %s: %s", p->name, file, strerror(-r));
		return r;
	}
	r = vg_import(text, len, out);
	free(text);
	if (r) {
		log_error("pool %s: %s is not a usable VG metadata backup", p->name, file);
		return r;
	}
	if (strcmp((*out)->name, p->name)) {
		log_error("pool %s: the backup %s is of pool %s", p->name, file, (*out)->name);
		vg_free(*out);
		*out = NULL;
		return -EUCLEAN;
	}
	return 0;
}

/* The VG from the devices that kept their label (no backup given). */
static int vg_from_survivors(struct pool *p, struct vg **out)
{
	struct vg_pv pvs[VG_NR_ROLES];
	unsigned n = 0;

	for (int i = 0; i < VG_NR_ROLES; i++)
		if (p->pv[i].io)
			pvs[n++] = p->pv[i];
	return n ? vg_read(pvs, n, out, NULL) : -ENODATA;
}

/* Both devices labelled: read the VG (a stale or damaged copy is
 * rewritten); with a backup SRC, commit it instead unless the devices hold
 * one at least as new. */
static int settle_vg(struct pool *p, struct vg *src, struct pool_repair_result *res)
{
	struct vg_pv pvs[VG_NR_ROLES] = { p->pv[0], p->pv[1] };
	struct vg_mda_status st;
	struct vg *cur = NULL, *next;
	int r;

	vg_free(p->vg);
	p->vg = NULL;
	memset(&st, 0, sizeof(st));
	r = vg_read(pvs, VG_NR_ROLES, &cur, &st);
	if (!r && (!src || cur->seqno >= src->seqno)) {
		if (src)
			log_warn("pool %s: the devices hold VG metadata seqno %" PRIu64 ", not older "
				 "than the backup's %" PRIu64 "; kept", p->name, cur->seqno,
				 src->seqno);
		p->vg = cur;
		if (!st.needs_repair)
			return 0;
		if ((r = vg_clone(cur, &next)) || (r = pool_commit_vg(p, next)))
			return r;
		res->vg_rewritten = 1;
		return 0;
	}
	if (!src) {
		vg_free(cur);
		return r ? r : -EUCLEAN;
	}
	/* supersede every copy on the devices, valid or not */
	if (cur && cur->seqno > src->seqno)
		src->seqno = cur->seqno;
	if (st.seqno > src->seqno)
		src->seqno = st.seqno;
	vg_free(cur);
	if ((r = vg_clone(src, &p->vg)))
		return r;
	/* twice: a commit fills one slot per device, the damaged other one
	 * is the second's */
	for (int i = 0; i < VG_MDA_SLOTS; i++)
		if ((r = vg_clone(p->vg, &next)) || (r = pool_commit_vg(p, next)))
			return r;
	res->vg_restored = 1;
	return 0;
}

int pool_relabel(struct pool *p, const char *devices, const char *restorefile,
		 struct pool_repair_result *res)
{
	char *paths[VG_NR_ROLES] = { NULL, NULL };
	struct vg *src = NULL;
	int r = 0, missing = !p->pv[VG_ROLE_DATA].io || !p->pv[VG_ROLE_META].io;

	if (!missing && p->vg && !restorefile)
		return 0;
	if (restorefile) {
		r = load_backup(p, restorefile, &src);
	} else if (!p->vg) {
		r = vg_from_survivors(p, &src);
		if (r) {
			char *b = pool_backup_path(p->name, 0);
			log_error("pool %s: no VG metadata copy is left on its devices; restore it "
				  "with 'tprepair %s --restorefile %s --devices %s'", p->name, p->name,
				  b ? b : "FILE", devices ? devices : "DATA,META");
			free(b);
			return r == -ENOMEM ? r : -ENODATA;
		}
	}
	if (r)
		return r;
	if (missing && !devices) {
		log_error("pool %s: name its devices with --devices DATA,META", p->name);
		r = -ENOENT;
		goto out;
	}
	if (missing) {
		const char *comma = strchr(devices, ',');
		paths[0] = strndup(devices, (size_t)(comma - devices));
		paths[1] = strdup(comma + 1);
		if (!paths[0] || !paths[1]) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (int i = 0; i < VG_NR_ROLES && !r; i++) {
		enum vg_role role = (enum vg_role)i;
		if (p->pv[i].io) {
			if (src)
				r = label_matches(p, src, role, restorefile ? restorefile
									   : "the VG metadata");
			continue;
		}
		/* the unlabelled path: by --devices order, or the role left */
		const char *path = paths[i];
		if (p->pv[!i].io && !strcmp(p->pv[!i].io->name, paths[i]))
			path = paths[!i];
		if (!(r = relabel(p, src, role, path)))
			res->relabeled |= 1u << i;
	}
	if (!r)
		r = settle_vg(p, restorefile ? src : NULL, res);
out:
	vg_free(src);
	free(paths[0]);
	free(paths[1]);
	return r;
}

/* The path in PATHS ("A,B") that is not SURVIVOR, into BUF. */
static const char *other_path(const char *paths, const char *survivor, char *buf, size_t len)
{
	const char *comma = paths ? strchr(paths, ',') : NULL;

	if (!comma)
		return "its other device";
	snprintf(buf, len, "%.*s", (int)(comma - paths), paths);
	if (!strcmp(buf, survivor))
		snprintf(buf, len, "%s", comma + 1);
	return buf;
}

void pool_repair_advice(struct pool *p, const char *given, const char *paths, int vg_bad,
			int thin_bad, char *buf, size_t len)
{
	char dev[2 * VG_PATH_MAX + 16] = "", path[VG_PATH_MAX + 1];
	int nmissing = !p->pv[VG_ROLE_DATA].io + !p->pv[VG_ROLE_META].io;

	buf[0] = '\0';
	if (given)
		snprintf(dev, sizeof(dev), " --devices %s", given);
	if (nmissing == 1 && !p->vg) {
		struct vg *vg = NULL;
		if (!vg_from_survivors(p, &vg)) {
			const struct vg_pv *s = &p->pv[p->pv[VG_ROLE_DATA].io ? VG_ROLE_DATA
									     : VG_ROLE_META];
			snprintf(buf, len, "run 'tprepair %s%s' to rewrite the label of %s from the "
				 "other device's copy", p->name, dev,
				 other_path(paths, s->io->name, path, sizeof(path)));
			vg_free(vg);
			return;
		}
	}
	if (!p->vg) {
		char *b = pool_backup_path(p->name, 0), *d = pool_backup_dir(p->name);
		char both[sizeof(dev)];
		if (nmissing == 0) {
			snprintf(both, sizeof(both), "%s,%s", p->pv[VG_ROLE_DATA].io->name,
				 p->pv[VG_ROLE_META].io->name);
			paths = both;
		}
		if (b)
			snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s'",
				 p->name, b, paths ? paths : "DATA,META");
		else
			snprintf(buf, len, "no VG metadata copy is left and %s holds no backup; "
				 "copy one there from another host, then run 'tprepair %s "
				 "--restorefile FILE --devices %s'", d ? d : "the backup dir", p->name,
				 paths ? paths : "DATA,META");
		free(b);
		free(d);
		return;
	}
	if (thin_bad == 2)
		snprintf(buf, len, "run 'tprepair %s%s' to delete the thin devices that belong to "
			 "no volume", p->name, dev);
	else if (thin_bad)
		snprintf(buf, len, "run 'tprepair %s%s' to salvage the thin metadata into the "
			 "spare area", p->name, dev);
	else if (vg_bad)
		snprintf(buf, len, "run 'tprepair %s%s' to rewrite the damaged VG metadata copies",
			 p->name, dev);
}
