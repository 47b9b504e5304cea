/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_relabel.c - tprepair's first stage: a pool's labels and VG
 * metadata areas (pool_check_int.h).
 *
 * Every device's label can be rebuilt from the VG metadata, which records
 * each device's uuid, size and areas. So a device whose label is lost or
 * corrupt gets it back from the VG copy on the other device; when no VG
 * copy is left (both labels gone, or every VG slot damaged), the VG comes
 * from a backup file the user names (--restorefile, LVM's vgcfgrestore),
 * and the labels from it. A backup is used only when it matches the thin
 * metadata on the metadata device (pool_backup_match.c), unless forced.
 * Before a label is written, the device must be at least as large as the
 * VG says, and a valid label left on it must name the same pool and
 * device uuid. A restored VG is committed with a seqno above any on the
 * devices and any backup's; a VG on the devices at least as new as the
 * backup is kept instead.
 *
 * Everything is checked before anything is written: pool_relabel only
 * decides (labels and VG in memory), and pool_relabel_commit writes, at
 * the end of the repair, with the VG commit that finishes it. A refusal
 * leaves the devices byte-for-byte as they were. */
#include "lib/pool/check/pool_check_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/mirror/mirror.h"

#include "lib/base/devopen.h"
#include "lib/base/log.h"
#include "lib/dev/probe.h"
#include "lib/dev/scan.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is PATH's label, when valid, of another pool than UUID (a stale entry),
 * not a copy of that pool's label (pool_label_is_copy)? */
static int others_label(const char *path, const char *uuid)
{
	struct vg_label l;

	return !pool_read_label(path, &l) && uuid[0] && strcmp(l.pool_uuid, uuid) &&
	       !pool_label_is_copy(path, &l);
}

char *pool_devices_from_file(const char *name)
{
	struct pool_devices_entry ent[8];
	const struct pool_devices_entry *e[VG_NR_ROLES] = { NULL, NULL };
	char path[VG_NR_ROLES][VG_PATH_MAX + 1] = { "", "" }, uuid[VG_UUID_LEN + 1] = "";
	char pv_uuid[VG_NR_ROLES][VG_UUID_LEN + 1] = { "", "" };
	int n = pool_devices_lookup_pool(name, ent, TP_ARRAY_SIZE(ent)), lost = 0;
	char *s;

	for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++)
		if (!e[ent[i].role])
			e[ent[i].role] = &ent[i];
	/* entries of two pools (stale ones of an earlier pool of the name):
	 * neither is trusted, the label scan decides */
	if (e[0] && e[1] && e[0]->pool_uuid[0] && e[1]->pool_uuid[0] &&
	    strcmp(e[0]->pool_uuid, e[1]->pool_uuid))
		return NULL;
	/* no entry at all (the file lost or cut short): where this host's
	 * newest backup of the pool saw its devices, one of them still
	 * labelled */
	if (!e[0] && !e[1] && pool_backup_paths(name, 1, path))
		return NULL;
	for (int i = 0; i < VG_NR_ROLES; i++)
		if (e[i]) {
			snprintf(path[i], sizeof(path[i]), "%s", e[i]->path);
			snprintf(pv_uuid[i], sizeof(pv_uuid[i]), "%s", e[i]->pv_uuid);
			if (e[i]->pool_uuid[0])
				snprintf(uuid, sizeof(uuid), "%s", e[i]->pool_uuid);
		}
	/* an entry damaged (pool_devices_damaged), naming a device of another
	 * pool, or another device of the role (a second data device, a
	 * second leg) than the first: where the VG copy on the other
	 * device saw it */
	for (int i = 0; i < VG_NR_ROLES; i++) {
		char hint[VG_PATH_MAX + 1], hint_pv[VG_UUID_LEN + 1];
		struct vg_label l;

		if (!path[!i][0] || pool_read_label(path[!i], &l) ||
		    (uuid[0] && strcmp(l.pool_uuid, uuid)) ||
		    pool_vg_path_hint(path[!i], (enum vg_role)i, hint, hint_pv)) {
			if (path[i][0] && !others_label(path[i], uuid))
				continue;
			return NULL;
		}
		if (path[i][0] && !others_label(path[i], uuid) && !strcmp(pv_uuid[i], hint_pv))
			continue;
		snprintf(path[i], sizeof(path[i]), "%s", hint);
		snprintf(pv_uuid[i], sizeof(pv_uuid[i]), "%s", hint_pv);
	}
	for (int i = 0; i < VG_NR_ROLES; i++) {
		struct vg_label l;
		int r = pool_read_label(path[i], &l);
		/* a device that is not there at all: the label scan's business
		 * (a mirror's lost first leg opens degraded, pool_find.c) */
		if (access(path[i], F_OK))
			return NULL;
		/* lost, or overwritten with a copy of another device's label */
		if (r == -ENOENT || r == -EUCLEAN ||
		    (!r && strcmp(l.pv_uuid, pv_uuid[i]) && pool_label_is_copy(path[i], &l))) {
			/* a mirror's first leg without its label: the pool
			 * opens degraded on the second (pool_find.c) */
			if (i == VG_ROLE_META && pool_meta_leg0_lost(name, path[VG_ROLE_DATA]))
				return NULL;
			lost = 1;
			continue;
		}
		/* moved, unreadable, or now another device's or pool's (a
		 * stale entry): the label scan's business */
		if (r || strcmp(l.pool_name, name) || (pv_uuid[i][0] && strcmp(l.pv_uuid, pv_uuid[i])) ||
		    (uuid[0] && strcmp(uuid, l.pool_uuid)))
			return NULL;
	}
	if (!lost)
		return NULL;
	if (asprintf(&s, "%s,%s", path[VG_ROLE_DATA], path[VG_ROLE_META]) < 0)
		return NULL;
	return s;
}

/* "DATA,META" split into A and B (bounded): 1, or 0 without a comma. */
static int split_paths(const char *paths, char a[VG_PATH_MAX + 1], char b[VG_PATH_MAX + 1])
{
	const char *comma = paths ? strchr(paths, ',') : NULL;

	if (!comma)
		return 0;
	snprintf(a, VG_PATH_MAX + 1, "%.*s", (int)(comma - paths), paths);
	snprintf(b, VG_PATH_MAX + 1, "%s", comma + 1);
	return 1;
}

/* The path of PATHS (split into PATH) that P's ROLE is: the labelled
 * device's, else by --devices order, or the one the labelled other is
 * not (as pool_relabel takes them). */
static const char *role_path(const struct pool *p, char path[VG_NR_ROLES][VG_PATH_MAX + 1],
			     int role)
{
	if (pool_pv(p, role)->io)
		return pool_pv(p, role)->io->name;
	if (pool_pv(p, !role)->io && pool_same_device(pool_pv(p, !role)->io->name, path[role]))
		return path[!role];
	return path[role];
}

static int same_path(const char *a, const char *b)
{
	return !strcmp(a, b) || pool_same_device(a, b);
}

/* Which pool the devices of P are (PATHS "DATA,META": the paths it was
 * attached with, or NULL): a surviving label says it; else the VG read
 * from the devices; else the devices file, by the devices' paths (which
 * pool was last seen there), else by the pool's name. Into *ID; its uuid
 * "" when nothing says, or two entries disagree. Each device's own uuid
 * too: its label's, else the devices file's entry for its path (also one
 * of the first format, which records no pool uuid). */
static void pool_identify(const struct pool *p, const char *paths, struct pool_identity *id)
{
	char path[VG_NR_ROLES][VG_PATH_MAX + 1];
	struct pool_devices_entry *all = NULL;
	int have = split_paths(paths, path[0], path[1]), r;
	size_t n = 0;

	memset(id, 0, sizeof(*id));
	if (pool_devices_list(&all, &n))
		n = 0;
	for (int i = 0; i < VG_NR_ROLES; i++) {
		const struct vg_pv *pv = pool_pv(p, i);
		const char *dev = have ? role_path(p, path, i) : NULL;

		if (pv->io) {
			snprintf(id->pv_uuid[i], sizeof(id->pv_uuid[i]), "%s", pv->label.pv_uuid);
			snprintf(id->pv_path[i], sizeof(id->pv_path[i]), "%s", pv->io->name);
			continue;
		}
		for (size_t k = 0; dev && k < n; k++)
			if (same_path(all[k].path, dev)) {
				snprintf(id->pv_uuid[i], sizeof(id->pv_uuid[i]), "%s", all[k].pv_uuid);
				snprintf(id->pv_path[i], sizeof(id->pv_path[i]), "%s", dev);
			}
	}
	for (int i = 0; i < VG_NR_ROLES; i++) {
		const struct vg_pv *pv = pool_pv(p, i);
		if (pv->io && pv->label.pool_uuid[0]) {
			snprintf(id->uuid, sizeof(id->uuid), "%s", pv->label.pool_uuid);
			snprintf(id->from, sizeof(id->from), "the label of %s", pv->io->name);
			goto out;
		}
	}
	if (pool_vg(p)) {
		snprintf(id->uuid, sizeof(id->uuid), "%s", pool_vg(p)->uuid);
		snprintf(id->from, sizeof(id->from), "the VG metadata on the devices");
		goto out;
	}
	for (size_t k = 0; have && k < n; k++)
		for (int i = 0; i < VG_NR_ROLES; i++) {
			const struct pool_devices_entry *e = &all[k];
			if (!e->pool_uuid[0] || !same_path(e->path, path[i]))
				continue;
			if (id->uuid[0] && strcmp(id->uuid, e->pool_uuid)) {
				id->uuid[0] = '\0';
				snprintf(id->from, sizeof(id->from), "the devices file records %s and "
					 "%s as devices of two pools", path[0], path[1]);
				goto out;
			}
			snprintf(id->uuid, sizeof(id->uuid), "%s", e->pool_uuid);
			snprintf(id->from, sizeof(id->from), "the devices file's entry for %s, a "
				 "device of pool %s", e->path, e->pool);
		}
	if (id->uuid[0])
		goto out;
	r = pool_devices_pool_uuid(pool_name(p), id->uuid);
	if (!r)
		snprintf(id->from, sizeof(id->from), "the devices file's entries of pool %s",
			 pool_name(p));
	else if (r == -EEXIST)
		snprintf(id->from, sizeof(id->from), "the devices file records devices of two "
			 "pools named %s", pool_name(p));
out:
	free(all);
}

/* Does the labelled device in ROLE belong to VG? */
static int label_matches(const struct pool *p, const struct vg *vg, enum vg_role role,
			 const char *from)
{
	const struct vg_label *l = &pool_pv(p, role)->label;

	if (!strcmp(l->pool_uuid, vg->uuid) && !strcmp(l->pv_uuid, vg->dev[role].pv_uuid))
		return 0;
	log_error("pool %s: %s carries the label of device %s (pool uuid %s), but %s names "
		  "device %s of pool %s for its %s role: not restoring over it", pool_name(p),
		  pool_pv(p, role)->io->name, l->pv_uuid, l->pool_uuid, from, vg->dev[role].pv_uuid,
		  vg->uuid, vg_role_name(role));
	return -EBUSY;
}

/* The signatures on PATH, in words, into WHAT: 1 some, 0 none, -errno. */
static int signatures(const char *path, char *what, size_t len)
{
	struct tp_probe_result res;
	char one[160];
	int r = tp_dev_probe(path, NULL, &res);

	what[0] = '\0';
	if (r <= 0)
		return r;
	for (unsigned k = 0; k < res.count; k++) {
		size_t used = strlen(what);
		tp_signature_describe(&res.sig[k], one, sizeof(one));
		snprintf(what + used, len - used, "%s%s", k ? "; " : "", one);
	}
	return 1;
}

/* A device without our label that carries another signature (a file
 * system, a RAID or LVM member, a partition table, ...) is no device that
 * lost its label: it was taken for something else since the devices file
 * or --devices named it. Refused (-EBUSY, logged) unless FORCE. */
static int foreign_signature(const struct pool *p, const char *path, int force)
{
	char what[512];
	int r = signatures(path, what, sizeof(what));

	if (r <= 0)
		return r;
	if (force) {
		log_warn("pool %s: %s carries no tptools label but %s; labelling it anyway "
			 "(--force)", pool_name(p), path, what);
		return 0;
	}
	log_error("pool %s: %s carries no tptools label but %s: not a device that lost its "
		  "label; not writing over it (check the path; --force writes anyway)",
		  pool_name(p), path, what);
	return -EBUSY;
}

/* Is DEV, not PATH, VG's device in ROLE by its valid label (no copy)? */
static int is_device_of(const char *dev, const char *path, const struct vg *vg,
			enum vg_role role)
{
	struct vg_label l;

	return !access(dev, F_OK) && !same_path(dev, path) && !pool_read_label(dev, &l) &&
	       l.role == role && !strcmp(l.pool_uuid, vg->uuid) &&
	       !strcmp(l.pv_uuid, vg->dev[role].pv_uuid) && !pool_label_is_copy(dev, &l);
}

/* Does a device other than PATH carry the valid label (not a copy) of
 * VG's device in ROLE? Its path into WHERE, 1; else 0. PATH is then not
 * that device: the device is there, and labelling PATH would make the
 * pool read another device's bytes as its own. */
static int labelled_elsewhere(const char *path, const struct vg *vg, enum vg_role role,
			      char where[VG_PATH_MAX + 1])
{
	struct pool_devices_entry e;
	struct tp_dev_list list;
	int found = 0;

	/* where the devices file records it (image files are not scanned),
	 * then the block devices' labels */
	if (!pool_devices_lookup_pv(vg->dev[role].pv_uuid, &e) &&
	    is_device_of(e.path, path, vg, role)) {
		snprintf(where, VG_PATH_MAX + 1, "%s", e.path);
		return 1;
	}
	if (pool_scan_devices(&list))
		return 0;
	for (unsigned k = 0; k < list.count && !found; k++) {
		const char *dev = list.dev[k].path;

		if (!is_device_of(dev, path, vg, role))
			continue;
		snprintf(where, VG_PATH_MAX + 1, "%s", dev);
		found = 1;
	}
	tp_dev_list_free(&list);
	return found;
}

/* Open PATH for ROLE and make the label VG records for it, after the
 * checks above; it is written by pool_relabel_commit. Fills P->pv[ROLE].
 * PATH is one of the paths pool_attach opened and claimed (its lock on
 * the device stays held until pool_detach), so no other tptools command
 * can write it meanwhile. */
static int relabel(struct pool *p, const struct vg *vg, enum vg_role role, const char *path,
		   int force)
{
	struct io_engine *io;
	struct vg_label old, l;
	int r = io_fd_open(path, 0, &io);

	if (r) {
		log_error("pool %s: cannot open %s: %s", pool_name(p), path, strerror(-r));
		return r;
	}
	if (io->size < vg->dev[role].size) {
		log_error("pool %s: %s has %" PRIu64 " bytes, less than the %" PRIu64 " its %s "
			  "device had: not the right device", pool_name(p), path, io->size,
			  vg->dev[role].size, vg_role_name(role));
		io_destroy(io);
		return -ENOSPC;
	}
	r = vg_label_read(io, &old);
	/* a copy of another device's label (pool_attach.c said so): this
	 * device's own label is lost, the copy is written over */
	if (r == VG_LABEL_FOUND && strcmp(old.pv_uuid, vg->dev[role].pv_uuid) &&
	    pool_label_is_copy(path, &old)) {
		log_warn("pool %s: %s carries a copy of pool %s's %s device label; writing its "
			 "own label over it", pool_name(p), path, old.pool_name,
			 vg_role_name(old.role));
		r = VG_LABEL_NONE;
	} else if (r == VG_LABEL_FOUND && (strcmp(old.pool_uuid, vg->uuid) ||
					   strcmp(old.pv_uuid, vg->dev[role].pv_uuid))) {
		log_error("pool %s: %s carries a valid label of another device (%s, pool %s); "
			  "not writing over it", pool_name(p), path, old.pv_uuid, old.pool_name);
		io_destroy(io);
		return -EBUSY;
	}
	if (r != VG_LABEL_FOUND && (r = foreign_signature(p, path, force))) {
		io_destroy(io);
		return r;
	}
	{
		char where[VG_PATH_MAX + 1];

		if (r != VG_LABEL_FOUND && labelled_elsewhere(path, vg, role, where)) {
			log_error("pool %s: %s carries the label of the pool's %s device (device uuid "
				  "%s), which is there: %s is not that device; nothing was written "
				  "(name the pool's own devices with --devices, or none)", pool_name(p),
				  where, vg_role_name(role), vg->dev[role].pv_uuid, path);
			io_destroy(io);
			return -EBUSY;
		}
	}
	vg_label_from_vg(vg, role, vg->dev[role].size, &l);
	if ((r = vg_label_check(&l))) {
		io_destroy(io);
		return r;
	}
	{
		char owner[VG_UUID_LEN + 1];

		if (pool_device_of_other(path, &l, owner)) {
			log_error("pool %s: %s is a device of pool uuid %s (the devices file lists it "
				  "so and its VG areas hold that pool's VG); not writing over it: name "
				  "this pool's own %s device with --devices", pool_name(p), path, owner,
				  vg_role_name(role));
			io_destroy(io);
			return -EBUSY;
		}
	}
	pool_set_pv(p, role, io, &l);
	return 0;
}

/* Added data device I (1..) of P, which attach did not find (no device
 * carries its label): is it plausibly still there, its label lost (zeroed
 * or corrupt)? Every copy of where it is agrees: the devices file's entry
 * for its device uuid (of P's pool uuid) names the path the VG records;
 * the device there carries no valid label (or a copy of another's), no
 * other signature, is at least the size the VG records, is none of P's
 * other devices, and nothing else (another entry of the devices file,
 * another pool's VG) claims it. 1 with its path in PATH; else 0. */
static int xdata_label_lost(const struct pool *p, unsigned i, char path[VG_PATH_MAX + 1])
{
	const struct vg *vg = pool_vg(p);
	const struct vg_device *d;
	struct pool_devices_entry e, *all = NULL;
	struct io_engine *io = NULL;
	struct vg_label l;
	char what[512], owner[VG_UUID_LEN + 1];
	size_t n = 0;
	int r, ok = 1;

	path[0] = '\0';
	if (!vg || !i || i >= vg_nr_data(vg) || pool_data_dev_path(p, i)[0])
		return 0;
	d = vg_data_dev(vg, i);
	/* the devices file and the VG say the same path for this device */
	if (!d->path[0] || pool_devices_lookup_pv(d->pv_uuid, &e) || strcmp(e.pool, pool_name(p)) ||
	    e.role != VG_ROLE_DATA || (e.pool_uuid[0] && strcmp(e.pool_uuid, vg->uuid)) ||
	    !same_path(e.path, d->path) || access(e.path, F_OK))
		return 0;
	/* no valid label of its own or anybody's (a copy of another device's
	 * label says nothing about it) */
	r = pool_read_label(e.path, &l);
	if (!((r == -ENOENT || r == -EUCLEAN) || (!r && pool_label_is_copy(e.path, &l))))
		return 0;
	/* none of the pool's other devices */
	for (unsigned k = 0; k < pool_nr_pvs(p); k++)
		if (pool_pv_at(p, k)->io && same_path(pool_pv_at(p, k)->io->name, e.path))
			return 0;
	/* nothing else the devices file lists is there */
	if (!pool_devices_list(&all, &n)) {
		for (size_t k = 0; k < n && ok; k++)
			if (same_path(all[k].path, e.path) && strcmp(all[k].pv_uuid, d->pv_uuid))
				ok = 0;
		free(all);
	}
	if (!ok || signatures(e.path, what, sizeof(what)) != 0)
		return 0;
	/* large enough for what the VG records of it */
	if (io_fd_open(e.path, IO_RDONLY, &io))
		return 0;
	ok = io->size >= d->size && io->size >= d->area[0].offset + d->area[0].size;
	io_destroy(io);
	if (!ok)
		return 0;
	/* no other pool's VG areas there, listing it */
	vg_label_from_vg_data(vg, i, d->size, &l);
	if (pool_device_of_other(e.path, &l, owner))
		return 0;
	snprintf(path, VG_PATH_MAX + 1, "%s", e.path);
	return 1;
}

int pool_relabel_xdata(struct pool *p, unsigned *mask)
{
	const struct vg *vg = pool_vg(p);
	char path[VG_PATH_MAX + 1];
	int r = 0;

	*mask = 0;
	for (unsigned i = 1; vg && i < vg_nr_data(vg) && i < 32 && !r; i++) {
		struct io_engine *io;
		struct vg_label l;

		if (!xdata_label_lost(p, i, path))
			continue;
		if ((r = pool_open_pv(p, pool_data_slot(i), path, 0, &io))) {
			log_error("pool %s: cannot open %s, its data device %u: %s", pool_name(p), path,
				  i + 1, strerror(-r));
			break;
		}
		vg_label_from_vg_data(vg, i, vg_data_dev(vg, i)->size, &l);
		if ((r = vg_label_check(&l))) {
			io_destroy(io);
			break;
		}
		log_warn("pool %s: %s, its data device %u (device uuid %s: the VG metadata and the "
			 "devices file name it there), has lost its label; rewriting it from the VG "
			 "metadata", pool_name(p), path, i + 1, vg_data_dev(vg, i)->pv_uuid);
		pool_set_pv_at(p, pool_data_slot(i), io, &l);
		*mask |= 1u << i;
	}
	if (!r && *mask)
		r = pool_features_vg_changed(p);
	return r;
}

/* Is the pool VG (its uuid) present on this host on other devices than
 * P's (ID's paths)? A device the devices file lists for it, by its name or
 * uuid, that still carries a label of that pool uuid: its path into WHERE,
 * 1; else 0. Restoring VG onto P's devices would then make two pools of
 * one identity. */
static int present_elsewhere(const struct pool *p, const struct pool_identity *id,
			     const struct vg *vg, char *where, size_t len)
{
	struct pool_devices_entry *all;
	size_t n;
	int found = 0;

	if (pool_devices_list(&all, &n))
		return 0;
	for (size_t i = 0; i < n && !found; i++) {
		struct vg_label l;
		int ours = 0;

		if (strcmp(all[i].pool_uuid, vg->uuid) && strcmp(all[i].pool, vg->name))
			continue;
		for (int k = 0; k < VG_NR_ROLES && !ours; k++) {
			const struct vg_pv *pv = pool_pv(p, k);

			ours = (pv->io && pool_same_device(pv->io->name, all[i].path)) ||
			       (id->pv_path[k][0] && pool_same_device(id->pv_path[k], all[i].path));
		}
		if (!ours && !pool_read_label(all[i].path, &l) && !strcmp(l.pool_uuid, vg->uuid)) {
			snprintf(where, len, "%s", all[i].path);
			found = 1;
		}
	}
	free(all);
	return found;
}

/* The VG in FILE, which must be pool P's: its name, or the uuid ID says
 * the devices are (a backup from before a rename: restored under P's
 * name, said); FORCE takes another name as P's. */
static int load_backup(const struct pool *p, const char *file, const struct pool_identity *id,
		       int force, struct vg **out)
{
	char *text;
	size_t len;
	int r = pool_backup_read_file(file, &text, &len);

	if (r == -EINVAL) {
		const char *kind = io_dev_wrong_kind(file);
		log_error("pool %s: the backup %s is %s, not a VG metadata backup file (one of "
			  "the config dir's backup/*/*.vg or *.vgd)", pool_name(p), file,
			  kind ? kind : "a block device");
		return r;
	}
	if (r) {
		log_error("pool %s: cannot read the backup %s: %s", pool_name(p), file, strerror(-r));
		return r;
	}
	r = vg_import(text, len, out);
	free(text);
	if (r) {
		log_error("pool %s: %s is not a usable VG metadata backup", pool_name(p), file);
		return r;
	}
	/* a backup's name is its commit's seqno: a file named for another one
	 * than its text records was renamed or copied, and is not the commit
	 * its name promises (--list-backups says so on its line) */
	{
		uint64_t named;

		if (pool_backup_name_seqno(file, &named) && named != (*out)->seqno) {
			if (!force) {
				log_error("pool %s: the backup %s is named for seqno %" PRIu64 " but its "
					  "text records seqno %" PRIu64 " (renamed or copied: not the commit "
					  "its name says); nothing was written ('tprepair --list-backups %s' "
					  "lists the backups by the seqno their text records; with --force "
					  "what this one's text records is restored)",
					  pool_name(p), file, named, (*out)->seqno, pool_name(p));
				vg_free(*out);
				*out = NULL;
				return -EUCLEAN;
			}
			log_warn("pool %s: the backup %s is named for seqno %" PRIu64 " but its text "
				 "records seqno %" PRIu64 " (renamed or copied); restoring what its text "
				 "records anyway (--force)", pool_name(p), file, named, (*out)->seqno);
		}
	}
	if (!strcmp((*out)->name, pool_name(p)))
		goto identity;
	/* another pool has the name on this host: restoring these devices
	 * under it would make two pools of one name */
	{
		char other[VG_UUID_LEN + 1];

		if (!pool_devices_pool_uuid(pool_name(p), other) && strcmp(other, (*out)->uuid)) {
			char there[VG_PATH_MAX + 1];

			/* the backup's pool is here, on its own devices: it is no
			 * backup of these, under any name */
			if (present_elsewhere(p, id, *out, there, sizeof(there)))
				log_error("pool %s: the backup %s is of pool %s (uuid %s), which "
					  "is on this host (%s carries its label), and another pool "
					  "is called %s (uuid %s); it is no backup of these devices: "
					  "nothing was written ('tpcheck %s' names one that agrees, "
					  "'tprepair --list-backups %s' lists them)", pool_name(p),
					  file, (*out)->name, (*out)->uuid, there, pool_name(p), other,
					  pool_name(p), pool_name(p));
			else
				log_error("pool %s: the backup %s is of pool %s (uuid %s), and "
					  "another pool is called %s on this host (uuid %s, the devices "
					  "file lists it); nothing was written: restore it under its "
					  "own name with 'tprepair %s --restorefile %s --devices "
					  "DATA,META'", pool_name(p), file, (*out)->name, (*out)->uuid,
					  pool_name(p), other, (*out)->name, file);
			vg_free(*out);
			*out = NULL;
			return -EEXIST;
		}
	}
	if (id->uuid[0] && !strcmp(id->uuid, (*out)->uuid)) {
		log_warn("pool %s: the backup %s records the name %s (a backup from before a "
			 "rename of the pool, uuid %s, as %s says); restored under the name %s",
			 pool_name(p), file, (*out)->name, (*out)->uuid, id->from, pool_name(p));
	} else if (force) {
		log_warn("pool %s: the backup %s is of a pool named %s (uuid %s); restoring it as "
			 "%s anyway (--force)", pool_name(p), file, (*out)->name, (*out)->uuid,
			 pool_name(p));
	} else {
		log_error("pool %s: the backup %s is of pool %s (uuid %s)%s%s%s; nothing was "
			  "written ('tprepair --list-backups %s' lists this pool's backups)",
			  pool_name(p), file, (*out)->name, (*out)->uuid,
			  id->uuid[0] ? ", but the devices are pool uuid " : "",
			  id->uuid[0] ? id->uuid : "", id->uuid[0] ? "'s" : "", pool_name(p));
		vg_free(*out);
		*out = NULL;
		return -EUCLEAN;
	}
identity:
	{
		char there[VG_PATH_MAX + 1];

		/* never a second pool of one identity, not even with --force */
		if (present_elsewhere(p, id, *out, there, sizeof(there))) {
			log_error("pool %s: the backup %s is of pool uuid %s, which is on this host "
				  "on other devices (%s carries its label): restored onto these it "
				  "would make two pools of one identity; nothing was written, even "
				  "with --force (tpcheck of the pool these devices are names a "
				  "backup of it)", pool_name(p), file, (*out)->uuid, there);
			vg_free(*out);
			*out = NULL;
			return -EEXIST;
		}
	}
	snprintf((*out)->name, sizeof((*out)->name), "%s", pool_name(p));
	return 0;
}

int pool_vg_from_survivors(struct pool *p, struct vg **out)
{
	struct vg_pv pvs[VG_NR_ROLES];
	unsigned n = 0;

	for (int i = 0; i < VG_NR_ROLES; i++)
		if (pool_pv(p, i)->io)
			pvs[n++] = *pool_pv(p, i);
	return n ? vg_read(pvs, n, out, NULL) : -ENODATA;
}

static void restore_advice(struct pool *p, const char *paths, char *buf, size_t len);

/* Does the backup SRC (from FILE) agree with the pool the devices are
 * (PLAN->id) and the thin metadata on P's metadata device? 0 yes, or
 * forced (warned, PLAN->fit says how not); -EUCLEAN (logged: what
 * contradicts, and the backup to use instead or what to do) no. */
static int check_fit(struct pool *p, const struct vg *src, const char *file, int force,
		     const char *devices, struct pool_relabel_plan *plan)
{
	struct pool_backup_choice c;
	struct pool_backup_fit fit;
	char advice[3072] = "";

	if (pool_backup_fit(src, pool_pv(p, VG_ROLE_META)->io, &plan->id, &fit))
		return 0;
	if (force) {
		log_warn("pool %s: the backup %s does not match the devices: %s; restoring it "
			 "anyway (--force)%s", pool_name(p), file, fit.why,
			 fit.bad & POOL_FIT_REINTERPRETS
				 ? ": the volumes it lists will read something else than before"
				 : ": the thin metadata is salvaged to the backup's transaction id, "
				   "the volumes it lacks are reported lost and thin devices it does not "
				   "list are kept");
		plan->forced = 1;
		plan->fit = fit;
		return 0;
	}
	if (!pool_backup_pick(pool_name(p), &plan->id, pool_pv(p, VG_ROLE_META)->io, &c) &&
	    strcmp(c.match, file))
		pool_backup_advice(pool_name(p), &plan->id, &c, devices ? devices : "DATA,META",
				   advice, sizeof(advice));
	log_error("pool %s: the backup %s does not match the devices: %s; restoring it would "
		  "%s; nothing was written%s%s", pool_name(p), file, fit.why,
		  fit.bad & POOL_FIT_REINTERPRETS
			  ? "make its volumes read something else than they hold"
			  : "point the pool at metadata of another moment",
		  advice[0] ? "; " : "", advice);
	return -EUCLEAN;
}

/* This host's newest backup of pool SRC->uuid with a seqno above SRC's
 * (its path in FROM), or NULL: the names the pool had last. */
static struct vg *newest_backup_after(const struct vg *src, char *from, size_t len)
{
	struct tp_log_capture quiet, *old = tp_log_capture_push(&quiet);
	struct pool_backup_set s = { 0 };
	struct vg *best = NULL;

	if (!pool_backup_find(NULL, src->uuid, &s)) {
		for (size_t i = s.n; i-- > 0 && !best;) {
			struct vg *vg = NULL;
			char *text = NULL;
			size_t tl;

			if (s.f[i].seqno <= src->seqno)
				break;
			if (strcmp(s.f[i].uuid, src->uuid) ||
			    pool_backup_read_file(s.f[i].path, &text, &tl))
				continue;
			if (!vg_import(text, tl, &vg) && !strcmp(vg->uuid, src->uuid) &&
			    vg->seqno > src->seqno) {
				best = vg;
				snprintf(from, len, "%s", s.f[i].path);
			} else {
				vg_free(vg);
			}
			free(text);
		}
		pool_backup_set_free(&s);
	}
	tp_log_capture_pop(old);
	return best;
}

/* A restore of SRC (from FILE) when this host has a newer backup of the
 * pool: each volume whose name the restore changes, by its thin device,
 * is said (NOW -> RESTORED). A name that the newer backup gives another
 * volume (names swapped, or one reused) would read that other volume's
 * data: refused without FORCE (-EUCLEAN, nothing written, the backup
 * that agrees named); with it, those names go to PLAN->swapped (tprepair
 * exits 4). */
static int name_changes(struct pool *p, const struct vg *src, const char *file, int force,
			const char *devices, struct pool_relabel_plan *plan)
{
	char from[4096], list[1024] = "";
	struct vg *ref = newest_backup_after(src, from, sizeof(from));
	unsigned changed = 0, swapped = 0;

	if (!ref)
		return 0;
	for (unsigned i = 0; i < ref->nr_volumes; i++) {
		const struct vg_volume *v = &ref->volumes[i], *s = NULL, *o;
		size_t used = strlen(list);

		for (unsigned k = 0; k < src->nr_volumes && !s; k++)
			if (src->volumes[k].dev_id == v->dev_id)
				s = &src->volumes[k];
		if (!s || !strcmp(s->name, v->name))
			continue;
		o = vg_find_volume(ref, s->name);
		changed++;
		log_warn("pool %s: volume %s (thin device %u) is renamed by the restore: %s -> %s "
			 "(%s in the newer backup %s)%s", pool_name(p), v->name, v->dev_id, v->name,
			 s->name, v->name, from,
			 o ? "; that backup gives the name to another volume" : "");
		if (!o)
			continue;
		swapped++;
		if (used < sizeof(list))
			snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", s->name);
	}
	if (swapped && !force) {
		struct pool_backup_choice c;
		char advice[5120] = "";

		if (!pool_backup_pick(pool_name(p), &plan->id, pool_pv(p, VG_ROLE_META)->io, &c) &&
		    c.match_seqno && strcmp(c.match, file))
			snprintf(advice, sizeof(advice), "; 'tprepair %s --restorefile %s --devices %s' "
				 "restores the newest backup that agrees, with the names of now",
				 pool_name(p), c.match, devices ? devices : "DATA,META");
		log_error("pool %s: the backup %s gives the name%s %s to other volumes' data than "
			  "%s does (names swapped or reused since): a program that opens them by "
			  "name would read another volume; nothing was written%s; --force restores "
			  "it anyway", pool_name(p), file, swapped == 1 ? "" : "s", list, from,
			  advice);
		vg_free(ref);
		return -EUCLEAN;
	}
	if (swapped) {
		snprintf(plan->swapped, sizeof(plan->swapped), "%s", list);
		plan->nr_swapped = swapped;
	}
	if (changed)
		log_warn("pool %s: the restore renames %u volume%s back to the names of the backup "
			 "%s", pool_name(p), changed, tp_plural(changed), file);
	vg_free(ref);
	return 0;
}

/* Both devices labelled (in memory): read the VG (a stale or damaged copy
 * is to be rewritten); with a backup SRC, take it instead, once it
 * matches, unless the devices hold one at least as new. Writes nothing. */
static int settle_vg(struct pool *p, struct vg *src, const char *file, int force,
		     const char *devices, struct pool_relabel_plan *plan)
{
	struct vg_pv pvs[VG_NR_ROLES] = { *pool_pv(p, 0), *pool_pv(p, 1) };
	struct vg_mda_status st;
	struct vg *cur = NULL;
	uint64_t seqno;
	int r;

	pool_set_vg(p, NULL);
	memset(&st, 0, sizeof(st));
	if (src) {
		/* a restore expects the devices' copies to be gone or damaged:
		 * the read is a quiet probe, and damage one warning line */
		struct tp_log_capture quiet, *old = tp_log_capture_push(&quiet);

		r = vg_read(pvs, VG_NR_ROLES, &cur, &st);
		tp_log_capture_pop(old);
		if (r && r != -ENODATA && r != -ENOMEM)
			log_warn("pool %s: the VG metadata on its devices is unusable (%s); the "
				 "backup's replaces it", pool_name(p), strerror(-r));
	} else {
		r = vg_read(pvs, VG_NR_ROLES, &cur, &st);
	}
	if (!r && (!src || cur->seqno >= src->seqno)) {
		if (src)
			log_warn("pool %s: the devices hold VG metadata seqno %" PRIu64 ", not older "
				 "than the backup's %" PRIu64 "; kept", pool_name(p), cur->seqno,
				 src->seqno);
		pool_set_vg(p, cur);
		plan->rewrite = st.needs_repair;
		return 0;
	}
	if (!src) {
		vg_free(cur);
		return r ? r : -EUCLEAN;
	}
	if ((r = check_fit(p, src, file, force, devices, plan)) ||
	    (r = name_changes(p, src, file, force, devices, plan))) {
		vg_free(cur);
		return r;
	}
	/* supersede every copy on the devices, valid or not, and every
	 * backup: the restore's own backups overwrite none */
	seqno = TP_MAX(src->seqno, st.seqno);
	if (cur)
		seqno = TP_MAX(seqno, cur->seqno);
	seqno = TP_MAX(seqno, pool_backup_newest_seqno(src->uuid));
	vg_free(cur);
	if ((r = vg_clone(src, &cur)))
		return r;
	cur->seqno = seqno;
	pool_set_vg(p, cur);
	plan->restore = 1;
	return 0;
}

/* Nothing on the devices or in the devices file says which pool they are
 * (ID's uuid ""), and the backup SRC (FILE) is of a pool uuid this host
 * keeps no backup of, while it keeps backups of another pool of P's name:
 * the devices are taken to be that pool's (the newest such backup's, by
 * its time), said in ID, so the restore is checked against it as against
 * a label (check_fit: refused, naming both uuids, unless forced). */
static void identify_by_backups(const struct pool *p, const struct vg *src,
				struct pool_identity *id)
{
	struct pool_backup_set s = { NULL, 0 };
	const struct pool_backup_file *newest = NULL;
	struct timespec t_newest = { 0, 0 };

	if (id->uuid[0] || pool_backup_find(pool_name(p), NULL, &s))
		return;
	for (size_t i = 0; i < s.n; i++) {
		struct stat st;

		if (!strcmp(s.f[i].uuid, src->uuid)) {
			newest = NULL;	/* the host keeps the file's pool: no contradiction */
			break;
		}
		if (!s.f[i].uuid[0] || strcmp(s.f[i].name, pool_name(p)) || stat(s.f[i].path, &st))
			continue;
		if (!newest || st.st_mtim.tv_sec > t_newest.tv_sec ||
		    (st.st_mtim.tv_sec == t_newest.tv_sec && st.st_mtim.tv_nsec > t_newest.tv_nsec) ||
		    (!strcmp(s.f[i].uuid, newest->uuid) && s.f[i].seqno > newest->seqno &&
		     st.st_mtim.tv_sec == t_newest.tv_sec && st.st_mtim.tv_nsec == t_newest.tv_nsec)) {
			newest = &s.f[i];
			t_newest = st.st_mtim;
		}
	}
	if (newest) {
		snprintf(id->uuid, sizeof(id->uuid), "%s", newest->uuid);
		snprintf(id->from, sizeof(id->from), "this host's backups of pool %s, the newest "
			 "%s; it keeps none of pool uuid %s", pool_name(p), newest->path, src->uuid);
	}
	pool_backup_set_free(&s);
}

int pool_relabel(struct pool *p, const char *devices, const char *restorefile, int force,
		 struct pool_relabel_plan *plan)
{
	char *paths[VG_NR_ROLES] = { NULL, NULL };
	struct vg *src = NULL;
	int r = 0, missing = !pool_pv(p, VG_ROLE_DATA)->io || !pool_pv(p, VG_ROLE_META)->io;

	memset(plan, 0, sizeof(*plan));
	if (!missing && pool_vg(p) && !restorefile)
		return 0;
	/* before --restorefile too, --force or not: restoring an older backup
	 * over a newer tptools' VG is the very undo every command refuses
	 * (tp-metadata(5) "Format versions") */
	if (!pool_vg(p) && pool_vg_too_new(p)) {
		log_error("pool %s: its VG metadata is of a newer format than this tptools reads; "
			  "nothing was changed: repair it with the tptools that wrote it",
			  pool_name(p));
		return -EPROTONOSUPPORT;
	}
	pool_identify(p, devices, &plan->id);
	if (restorefile) {
		r = load_backup(p, restorefile, &plan->id, force, &src);
		if (!r)
			identify_by_backups(p, src, &plan->id);
	} else if (!pool_vg(p)) {
		r = pool_vg_from_survivors(p, &src);
		if (r) {
			char advice[3072];
			restore_advice(p, devices, advice, sizeof(advice));
			log_error("pool %s: no VG metadata copy is left on its devices; %s", pool_name(p),
				  advice);
			return r == -ENOMEM ? r : -ENODATA;
		}
	}
	if (r)
		return r;
	if (missing && !devices) {
		log_error("pool %s: name its devices with --devices DATA,META", pool_name(p));
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
		if (pool_pv(p, i)->io) {
			if (src)
				r = label_matches(p, src, role, restorefile ? restorefile
									   : "the VG metadata");
			continue;
		}
		/* the unlabelled path: by --devices order, or the role left */
		const char *path = paths[i];
		if (pool_pv(p, !i)->io && !strcmp(pool_pv(p, !i)->io->name, paths[i]))
			path = paths[!i];
		if (!(r = relabel(p, src, role, path, force)))
			plan->labels |= 1u << i;
	}
	if (!r)
		r = settle_vg(p, restorefile ? src : NULL, restorefile, force, devices, plan);
out:
	vg_free(src);
	free(paths[0]);
	free(paths[1]);
	return r;
}

int pool_relabel_commit(struct pool *p, const struct pool_relabel_plan *plan, struct vg *next,
			struct pool_repair_result *res)
{
	int r = 0;

	for (int i = 0; i < VG_NR_ROLES && !r; i++) {
		if (!(plan->labels & (1u << i)))
			continue;
		r = vg_label_write(pool_pv(p, i)->io, &pool_pv(p, i)->label);
		if (r)
			log_error("pool %s: cannot write the label of %s: %s", pool_name(p),
				  pool_pv(p, i)->io->name, strerror(-r));
		else
			res->relabeled |= 1u << i;
	}
	/* the devices file follows the labels: where to find them next */
	for (int i = 0; i < VG_NR_ROLES && !r; i++)
		if (res->relabeled & (1u << i))
			pool_record_device(pool_name(p), (enum vg_role)i,
					   pool_pv(p, i)->label.pv_uuid, pool_pv(p, i)->io->name);
	/* added data devices: their label and an empty VG area, which the
	 * commit below fills */
	for (unsigned i = 1; i < VG_DATA_DEVICES_MAX && i < 32 && !r; i++) {
		const struct vg_pv *pv = pool_pv_at(p, pool_data_slot(i));
		size_t used = strlen(res->xrelabeled);

		if (!(plan->xlabels & (1u << i)))
			continue;
		if (!(r = vg_mda_format(pv->io, &pv->label)))
			r = vg_label_write(pv->io, &pv->label);
		if (r) {
			log_error("pool %s: cannot write the label of %s: %s", pool_name(p),
				  pv->io->name, strerror(-r));
			break;
		}
		if (used < sizeof(res->xrelabeled))
			snprintf(res->xrelabeled + used, sizeof(res->xrelabeled) - used,
				 "%sdata device %u (%s)", used ? ", " : "", i + 1, pv->io->name);
		pool_record_device(pool_name(p), VG_ROLE_DATA, pv->label.pv_uuid, pv->io->name);
	}
	if (r || !next) {
		vg_free(next);
		return r;
	}
	r = pool_commit_vg(p, next);	/* frees NEXT on failure */
	if (!r && plan->restore && !(r = vg_clone(pool_vg(p), &next)))
		r = pool_commit_vg(p, next);
	if (!r && plan->restore)
		res->vg_restored = 1;
	else if (!r && plan->rewrite)
		res->vg_rewritten = 1;
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

/* The metadata device of P to read thin superblocks on: the labelled one,
 * else the META path of PATHS ("DATA,META"; the one that is not the data
 * device when that kept its label), opened read-only into *OWN. NULL when
 * there is none to open. */
static struct io_engine *meta_device(const struct pool *p, const char *paths,
				     struct io_engine **own)
{
	char buf[VG_PATH_MAX + 1];
	const char *comma = paths ? strchr(paths, ',') : NULL;
	const char *path;

	*own = NULL;
	if (pool_pv(p, VG_ROLE_META)->io)
		return pool_pv(p, VG_ROLE_META)->io;
	if (!comma)
		return NULL;
	if (pool_pv(p, VG_ROLE_DATA)->io)
		path = other_path(paths, pool_pv(p, VG_ROLE_DATA)->io->name, buf, sizeof(buf));
	else
		path = comma + 1;
	if (io_fd_open(path, IO_RDONLY, own))
		*own = NULL;
	return *own;
}

/* A device of PATHS ("DATA,META") that P has no label for but that
 * carries another signature: no restore onto it is advised, BUF says
 * why (1); else 0. */
static int foreign_device(const struct pool *p, const char *paths, char *buf, size_t len)
{
	char path[VG_NR_ROLES][VG_PATH_MAX + 1], what[512];

	if (!split_paths(paths, path[0], path[1]))
		return 0;
	for (int i = 0; i < VG_NR_ROLES; i++) {
		const struct vg_pv *pv = pool_pv(p, i);
		const char *dev = path[i];

		if (pv->io)
			continue;
		/* the unlabelled path: the one that is not the labelled device */
		if (pool_pv(p, !i)->io && pool_same_device(pool_pv(p, !i)->io->name, dev))
			dev = path[!i];
		if (signatures(dev, what, sizeof(what)) <= 0)
			continue;
		snprintf(buf, len, "%s carries no tptools label but %s: it is no longer a "
			 "device of pool %s (a device reused since it was recorded, or the wrong "
			 "path); find the pool's devices and name them with 'tpcheck %s --devices "
			 "DATA,META'", dev, what, pool_name(p), pool_name(p));
		return 1;
	}
	return 0;
}

int pool_vg_lag_advice(struct pool *p, const char *paths, uint64_t thin_tid, char *buf,
		       size_t len)
{
	struct pool_backup_choice c;
	struct pool_identity id;
	struct io_engine *own, *meta = meta_device(p, paths, &own);
	const struct vg *vg = pool_vg(p);
	int found = 0;

	pool_identify(p, paths, &id);
	/* without such a backup: the forced salvage, its loss said */
	snprintf(buf, len, "no backup of this host agrees with the thin metadata (transaction %"
		 PRIu64 "; the VG metadata, seqno %" PRIu64 ", is at transaction %" PRIu64 "): "
		 "restore a newer VG backup from another host with 'tprepair %s --restorefile FILE "
		 "--devices DATA,META', or run 'tprepair %s --force' to set the thin metadata back "
		 "to the VG's transaction, deleting the thin devices it does not list (made since)",
		 thin_tid, vg ? vg->seqno : 0, vg ? vg->transaction_id : 0, pool_name(p),
		 pool_name(p));
	if (meta && vg && pool_pv(p, VG_ROLE_DATA)->io && !pool_backup_pick(pool_name(p), &id, meta, &c) &&
	    c.match_seqno && c.uuid_known && !strcmp(id.uuid, vg->uuid) && c.match_tid == thin_tid &&
	    c.match_seqno > vg->seqno) {
		snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s,%s' (this "
			 "host's backup seqno %" PRIu64 " of the pool agrees with the thin metadata, "
			 "transaction %" PRIu64 "; the VG metadata on the devices, seqno %" PRIu64
			 " at transaction %" PRIu64 ", lags behind it: a salvage would set the thin "
			 "metadata back to it and lose what was made since)", pool_name(p), c.match,
			 pool_pv(p, VG_ROLE_DATA)->io->name, pool_pv(p, VG_ROLE_META)->io->name,
			 c.match_seqno, thin_tid, vg->seqno, vg->transaction_id);
		found = 1;
	}
	io_destroy(own);
	return found;
}

/* Which backup to restore P's VG from, in words (no VG copy is left):
 * one of the pool the devices are (pool_identify) that agrees with the
 * thin metadata on its metadata device. */
static void restore_advice(struct pool *p, const char *paths, char *buf, size_t len)
{
	struct pool_backup_choice c;
	struct pool_identity id;
	struct io_engine *own, *meta = meta_device(p, paths, &own);
	const char *devices = paths ? paths : "DATA,META";

	pool_identify(p, paths, &id);
	if (foreign_device(p, paths, buf, len)) {
		io_destroy(own);
		return;
	}
	if (meta && !pool_backup_pick(pool_name(p), &id, meta, &c)) {
		pool_backup_advice(pool_name(p), &id, &c, devices, buf, len);
		io_destroy(own);
		return;
	}
	io_destroy(own);
	/* the metadata device cannot be read: no backup can be checked */
	snprintf(buf, len, "no VG metadata copy is left and the metadata device cannot be "
		 "read to tell which backup agrees with it; name the devices with --devices "
		 "DATA,META ('tprepair --list-backups %s' lists the backups%s%s%s)", pool_name(p),
		 id.uuid[0] ? "; the devices are pool uuid " : "", id.uuid,
		 id.uuid[0] ? "'s" : "");
}

/* The leg of P's metadata mirror that is missing (its device not there:
 * only a replace helps, tprepair has nothing to resync onto), or -1. */
static int missing_leg(const struct pool *p, struct pool_meta_leg leg[2])
{
	if (!pool_meta_legs(p, leg))
		return -1;
	for (int i = 0; i < 2; i++)
		if (leg[i].err == -ENODEV || leg[i].err == -EIO)	/* missing, or failing */
			return i;
	return -1;
}

int pool_missing_data(const struct pool *p, char *buf, size_t len)
{
	const struct vg *vg = pool_vg(p);

	for (unsigned i = 1; vg && i < vg_nr_data(vg); i++) {
		const struct vg_device *d = vg_data_dev(vg, i);

		if (pool_data_dev_path(p, i)[0])
			continue;
		snprintf(buf, len, "data device %u (device uuid %s, last seen at %s)", i + 1,
			 d->pv_uuid, d->path[0] ? d->path : "an unknown path");
		return 1;
	}
	return 0;
}

/* A data device is missing (WHAT says which): attach it; if it is lost
 * for good, tpreduce --missing takes the missing ones away, with --force
 * when the volumes map chunks on them (how many is said: the loss). */
static void missing_advice(struct pool *p, const char *what, char *buf, size_t len)
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	const struct vg *vg = pool_vg(p);
	uint64_t used = 0, one;
	int r = 0;

	if (pool_data_filtered_advice(p, buf, len)) {	/* not missing: filtered */
		tp_log_capture_pop(outer);
		return;
	}
	for (unsigned i = 1; !r && i < vg_nr_data(vg); i++)
		if (!pool_data_dev_path(p, i)[0] &&
		    !(r = pool_data_in_use(p, vg_data_first_chunk(vg, i), vg_data_dev_chunks(vg, i),
					   &one)))
			used += one;
	tp_log_capture_pop(outer);
	if (r)
		snprintf(buf, len, "attach the missing %s, then check again; if it is lost for good, "
			 "'tpreduce --missing %s' says what taking it away loses", what,
			 pool_name(p));
	else if (used)
		snprintf(buf, len, "attach the missing %s, then check again; only if it is lost for "
			 "good, run 'tpreduce --missing --force %s' to take it away: the %llu chunks "
			 "the volumes map on it are lost", what, pool_name(p),
			 (unsigned long long)used);
	else
		snprintf(buf, len, "attach the missing %s, then check again; if it is lost for good, "
			 "run 'tpreduce --missing %s' to take it away (no volume maps a chunk on it)",
			 what, pool_name(p));
}

/* How much longer than ONE its label (or, for one of the first two
 * devices attach did not take, the VG's record of that role) says it
 * is: 0 when it is not cut short or cannot be read. */
static uint64_t cut_short_by(const struct pool *p, const struct vg *vg, const char *one)
{
	struct io_engine *io = NULL;
	uint64_t want;

	if (io_fd_open(one, IO_RDONLY, &io))
		return 0;
	want = vg_label_cut_short(io);
	/* too short to hold even the label: one of the first two devices
	 * that attach did not take (the other one is), the size the VG
	 * records for that role */
	for (int k = 0; !want && vg && k < VG_NR_ROLES; k++) {
		const struct vg_pv *pv = pool_pv(p, (enum vg_role)k);
		const struct vg_pv *o = pool_pv(p, (enum vg_role)(1 - k));

		if (!pv->io && o->io && !pool_same_device(o->io->name, one) &&
		    io->size < vg->dev[k].size)
			want = vg->dev[k].size;
	}
	io_destroy(io);
	return want;
}

/* A device of PATHS ("DATA,META", or a listed path), of the mirror's
 * legs or of the devices file's entries of the pool shorter than its label records: the advice to grow it back (an
 * image file with truncate, every image file cut short to the same size
 * in the one command; a block device by hand), then the check again, with
 * DEV (" --devices ..." as the user gave it, or ""). 1 when given. */
static int cut_short_advice(const struct pool *p, const char *paths, const struct vg *vg,
			    const char *dev, char *buf, size_t len)
{
	char check[POOL_NAME_MAX + 2 * VG_PATH_MAX + 32];

	struct pool_meta_leg leg[2];
	char *list = NULL, *save = NULL, files[4 * (VG_PATH_MAX + 2)] = "";
	/* the files named so far: each device once, by the first of its
	 * names (the user's --devices, as given, before the devices file's) */
	const char *named[16];
	unsigned nnamed = 0;
	uint64_t want = 0;
	int found = 0, file = 0;

	struct pool_devices_entry ent[8];
	int n = pool_devices_lookup_pool(pool_name(p), ent, TP_ARRAY_SIZE(ent));
	size_t cap = (paths ? strlen(paths) : 0) + 8;

	if (pool_vg(p) && pool_meta_legs(p, leg))
		cap += strlen(leg[0].path) + strlen(leg[1].path) + 2;
	else
		leg[0].path[0] = leg[1].path[0] = '\0';
	for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++)
		cap += strlen(ent[i].path) + 1;
	if ((list = calloc(1, cap))) {
		if (paths)
			strcat(list, paths);
		for (int i = 0; i < 2; i++)
			strcat(strcat(list, ","), leg[i].path);
		for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++)
			strcat(strcat(list, ","), ent[i].path);
	}
	for (char *one = list ? strtok_r(list, ",", &save) : NULL; one;
	     one = strtok_r(NULL, ",", &save)) {
		struct stat st;
		uint64_t w;
		int again = 0;

		if (!one[0] || stat(one, &st) || (found && (!file || !S_ISREG(st.st_mode))))
			continue;
		/* one file under two names (a relative --devices path and the
		 * devices file's absolute one): the same device */
		for (unsigned k = 0; k < nnamed && !again; k++)
			again = pool_same_device(named[k], one);
		if (again || nnamed == TP_ARRAY_SIZE(named))
			continue;
		if (!(w = cut_short_by(p, vg, one)) || (found && w != want))
			continue;
		named[nnamed++] = one;
		if (!found) {
			found = 1;
			want = w;
			file = S_ISREG(st.st_mode);
			snprintf(files, sizeof(files), "%s", one);
			if (!file)
				break;
		} else if (strlen(files) + strlen(one) + 2 < sizeof(files)) {
			strcat(files, " ");
			strcat(files, one);
		}
	}
	free(list);
	if (!found)
		return 0;
	snprintf(check, sizeof(check), "%s%s", pool_name(p), dev);
	pool_grow_back_advice(check, files, want, file, buf, len);
	return 1;
}

int pool_repair_advice(struct pool *p, const char *given, const char *paths, int vg_bad,
		       int thin_bad, const struct pool_check_report *rep, char *buf, size_t len)
{
	char dev[2 * VG_PATH_MAX + 16] = "", path[VG_PATH_MAX + 1], what[VG_PATH_MAX + 128];
	int nmissing = !pool_pv(p, VG_ROLE_DATA)->io + !pool_pv(p, VG_ROLE_META)->io;
	struct pool_meta_leg leg[2];
	int gone;

	buf[0] = '\0';
	if (given)
		snprintf(dev, sizeof(dev), " --devices %s", given);
	/* a device cut short (a missing one, or a mirror leg): nothing
	 * repairs that but growing it back */
	{
		struct vg *sv = NULL;
		const struct vg *vg = pool_vg(p);
		int done;

		if (!vg && nmissing && !pool_vg_from_survivors(p, &sv))
			vg = sv;
		done = cut_short_advice(p, nmissing ? paths : NULL, vg, dev, buf, len);
		vg_free(sv);
		if (done)
			return 0;
	}
	if (nmissing == 1 && !pool_vg(p)) {
		struct vg *vg = NULL;
		if (!pool_vg_from_survivors(p, &vg)) {
			const struct vg_pv *s = pool_pv(p, pool_pv(p, VG_ROLE_DATA)->io ? VG_ROLE_DATA
										     : VG_ROLE_META);
			snprintf(buf, len, "run 'tprepair %s%s' to rewrite the label of %s from the "
				 "other device's copy", pool_name(p), dev,
				 other_path(paths, s->io->name, path, sizeof(path)));
			vg_free(vg);
			return 0;
		}
	}
	if (!pool_vg(p) && pool_vg_too_new(p)) {
		snprintf(buf, len, "check and repair pool %s with the tptools that wrote its VG "
			 "metadata, not with this one (restoring an older backup would undo what "
			 "that one wrote)", pool_name(p));
		return 0;
	}
	if (!pool_vg(p)) {
		char both[sizeof(dev)];
		if (nmissing == 0) {
			snprintf(both, sizeof(both), "%s,%s", pool_pv(p, VG_ROLE_DATA)->io->name,
				 pool_pv(p, VG_ROLE_META)->io->name);
			paths = both;
		}
		restore_advice(p, paths, buf, len);
		return 0;
	}
	for (unsigned i = 1; pool_vg(p) && i < vg_nr_data(pool_vg(p)); i++)
		if (xdata_label_lost(p, i, path)) {
			snprintf(buf, len, "run 'tprepair %s%s' to rewrite the lost label of data "
				 "device %u (%s, where the VG metadata and the devices file name it) "
				 "from the VG metadata", pool_name(p), dev, i + 1, path);
			return 0;
		}
	if (pool_missing_data(p, what, sizeof(what)))
		missing_advice(p, what, buf, len);
	else if (rep && rep->vg_behind_tid && rep->nr_strays)
		pool_vg_lag_advice(p, paths, rep->vg_behind_tid, buf, len);
	else if (rep && rep->nr_ahead)
		snprintf(buf, len, "do not change the pool: a device holds a newer VG of it than "
			 "the devices it was found on (above); attach the pool's current devices, "
			 "or name them with --devices DATA,META");
	else if (thin_bad == 2)
		snprintf(buf, len, "run 'tprepair %s%s' to delete the thin devices that belong to "
			 "no volume", pool_name(p), dev);
	else if (thin_bad == 3)
		snprintf(buf, len, "run 'tprepair %s%s' to rewrite the metadata mirror's bad "
			 "copies from the good leg", pool_name(p), dev);
	else if (thin_bad == 4)
		snprintf(buf, len, "run 'tpchange --meta-replace DEV %s' to put the metadata "
			 "mirror's leg with unreadable blocks on DEV (its device fails reads), "
			 "resynced from the other", pool_name(p));
	else if (thin_bad)
		snprintf(buf, len, "run 'tprepair %s%s' to salvage the thin metadata into the "
			 "spare area", pool_name(p), dev);
	else if (rep && rep->nr_lost)
		snprintf(buf, len, "run 'tvremove%s %s' to remove the volume%s whose thin device "
			 "was lost (its data is gone: restore it from a backup, e.g. with tprecv)",
			 dev, rep->lost, rep->nr_lost > 1 ? "s" : "");
	else if ((gone = missing_leg(p, leg)) >= 0)
		snprintf(buf, len, "run 'tpchange --meta-replace DEV %s' to put the metadata "
			 "mirror's %s leg %d (%s) on DEV, resynced from the other", pool_name(p),
			 leg[gone].err == -EIO ? "failing" : "missing", gone, leg[gone].path);
	else if (!strcmp(pool_meta_health(p), "degraded"))
		snprintf(buf, len, "run 'tprepair %s%s' to resync the metadata mirror's stale leg, "
			 "or 'tpchange --meta-replace DEV %s' to put a missing one on DEV",
			 pool_name(p), dev, pool_name(p));
	else if (vg_bad) {
		snprintf(buf, len, "run 'tprepair %s%s' to rewrite the damaged VG metadata copies",
			 pool_name(p), dev);
		return 1;
	}
	else if (rep && rep->interrupted)
		snprintf(buf, len, "run 'tprepair %s%s' to complete the interrupted transaction "
			 "(the next change to the pool does it too)", pool_name(p), dev);
	else if (rep && rep->nr_orphans)
		snprintf(buf, len, "run 'tprepair %s%s' to wipe the orphan label of %s%s (or "
			 "'tpremove --label %s')", pool_name(p), dev, rep->orphan,
			 rep->nr_orphans > 1 ? " and the others" : "", rep->orphan);
	else if (rep && rep->nr_labels_behind)
		snprintf(buf, len, "run 'tprepair %s%s' to rewrite the label%s that lag%s behind "
			 "the VG metadata", pool_name(p), dev, rep->nr_labels_behind > 1 ? "s" : "",
			 rep->nr_labels_behind > 1 ? "" : "s");
	return 0;
}
