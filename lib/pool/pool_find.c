/* pool_find.c - where a pool's devices are: --devices, the devices file,
 * or a label scan of every block device (libudev via lib/dev/scan.h); and
 * the copies of them (duplicates) the scan finds. */
#include "lib/pool/pool_int.h"

#include "lib/base/log.h"
#include "lib/dev/scan.h"
#include "lib/pool/host.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

int pool_read_label(const char *path, struct vg_label *l)
{
	int r = vg_label_probe_path(path, l);

	if (r == VG_LABEL_FOUND)
		return 0;
	if (r == VG_LABEL_NONE)
		return -ENOENT;
	return r;
}

int pool_same_device(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	if (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode))
		return sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Does the devices-file entry E still point at its device? 1 yes, 0 no,
 * or the -errno of a label that is there but cannot be read (damaged:
 * logged by the probe). */
static int entry_current(const struct pool_devices_entry *e)
{
	struct vg_label l;
	int r = pool_read_label(e->path, &l);

	if (r)
		return r == -ENOENT ? 0 : r;
	return !strcmp(l.pv_uuid, e->pv_uuid) && !strcmp(l.pool_name, e->pool) &&
	       l.role == e->role;
}

/* Look at every block device's label for pool NAME. */
static int scan_labels(const char *name, char *paths[VG_NR_ROLES])
{
	struct tp_dev_list list;
	char uuid[VG_UUID_LEN + 1] = "";
	unsigned i;
	int r = tp_dev_scan("TPTOOLS-", &list);

	if (r) {
		log_debug(TP_DBG_POOL, "block device scan failed: %d", r);
		return 0;
	}
	for (i = 0; i < list.count && !r; i++) {
		const char *path = list.dev[i].path;
		struct vg_label l;

		if (pool_read_label(path, &l) || strcmp(l.pool_name, name))
			continue;
		if (uuid[0] && strcmp(uuid, l.pool_uuid)) {
			log_error("two different pools named %s were found (%s is one); name the "
				  "devices with --devices DATA,META", name, path);
			r = -EEXIST;
			break;
		}
		strcpy(uuid, l.pool_uuid);
		if (!paths[l.role] && !(paths[l.role] = strdup(path)))
			r = -ENOMEM;
	}
	tp_dev_list_free(&list);
	return r;
}

void pool_record_device(const char *pool, enum vg_role role, const char *pv_uuid,
			const char *path)
{
	struct pool_devices_entry e;

	memset(&e, 0, sizeof(e));
	snprintf(e.pool, sizeof(e.pool), "%s", pool);
	e.role = role;
	snprintf(e.pv_uuid, sizeof(e.pv_uuid), "%s", pv_uuid);
	snprintf(e.path, sizeof(e.path), "%s", path);
	if (pool_devices_add(&e)) {
		char *file = pool_devices_path();
		log_warn("pool %s: could not record %s in the devices file %s; name the devices "
			 "with --devices", pool, path, file ? file : "");
		free(file);
	}
}

static void record(const char *name, enum vg_role role, const char *path)
{
	struct vg_label l;

	if (!pool_read_label(path, &l))
		pool_record_device(name, role, l.pv_uuid, path);
}

/* What locate() learnt besides the paths. */
struct located {
	int listed;				/* entries the devices file had */
	int stale;				/* one no longer pointed at its device */
	int scanned;				/* the label scan was needed */
	char damaged[VG_NR_ROLES][VG_PATH_MAX + 1];	/* listed, label damaged */
};

/* PATHS of pool NAME from the devices file, completed by a label scan when
 * an entry is missing or stale; either may stay NULL. 0, or -errno with
 * PATHS freed. */
static int locate(const char *name, char *paths[VG_NR_ROLES], struct located *at)
{
	struct pool_devices_entry ent[8];
	int n, i, r;

	paths[0] = paths[1] = NULL;
	memset(at, 0, sizeof(*at));
	n = pool_devices_lookup_pool(name, ent, TP_ARRAY_SIZE(ent));
	if (n < 0)
		return n;
	at->listed = n;
	for (i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++) {
		r = entry_current(&ent[i]);
		if (r <= 0) {
			at->stale = 1;
			if (r < 0)
				snprintf(at->damaged[ent[i].role], sizeof(at->damaged[0]), "%s",
					 ent[i].path);
			continue;
		}
		if (!paths[ent[i].role])
			paths[ent[i].role] = strdup(ent[i].path);
	}
	if (paths[VG_ROLE_DATA] && paths[VG_ROLE_META])
		return 0;
	/* Lost or stale entries: look at every block device's label. */
	at->scanned = 1;
	r = scan_labels(name, paths);
	if (r) {
		free(paths[0]);
		free(paths[1]);
		paths[0] = paths[1] = NULL;
	}
	return r;
}

int pool_devices_present(const char *name)
{
	char *paths[VG_NR_ROLES];
	struct located at;
	int r = locate(name, paths, &at);

	if (r)
		return r;
	r = paths[VG_ROLE_DATA] && paths[VG_ROLE_META];
	free(paths[0]);
	free(paths[1]);
	return r;
}

/* A device the devices file lists for NAME whose label (same device uuid)
 * now names another pool: an interrupted tprename. That name into OTHER
 * (1), or 0. */
static int renamed_to(const char *name, char other[VG_NAME_MAX + 1])
{
	struct pool_devices_entry e[VG_NR_ROLES];
	struct vg_label l;
	int n = pool_devices_lookup_pool(name, e, VG_NR_ROLES);

	for (int i = 0; i < n && i < VG_NR_ROLES; i++) {
		if (!pool_read_label(e[i].path, &l) && !strcmp(l.pv_uuid, e[i].pv_uuid) &&
		    strcmp(l.pool_name, name)) {
			snprintf(other, VG_NAME_MAX + 1, "%s", l.pool_name);
			return 1;
		}
	}
	return 0;
}

int pool_find_devices(const char *name, char *paths[VG_NR_ROLES])
{
	char other[VG_NAME_MAX + 1];
	struct located at;
	int i, r = locate(name, paths, &at);

	if (r)
		return r;
	if (!at.scanned)
		return 0;
	if (!paths[VG_ROLE_DATA] || !paths[VG_ROLE_META]) {
		char *file = pool_devices_path();
		enum vg_role lost = paths[VG_ROLE_DATA] ? VG_ROLE_META : VG_ROLE_DATA;
		if (at.damaged[lost][0])
			log_error("pool %s: the label of its %s device %s is damaged (above) and no "
				  "other device carries it; 'tprepair %s' rewrites it from the other "
				  "device's copy", name, lost == VG_ROLE_DATA ? "data" : "metadata",
				  at.damaged[lost], name);
		else if ((at.listed > 0 || at.stale) && renamed_to(name, other))
			log_error("pool %s: the devices file lists a device for it whose label "
				  "belongs to pool %s, not %s (if 'tprename %s %s' was interrupted, "
				  "run it again to finish)", name, other, name, name, other);
		else if (at.listed > 0 || at.stale)
			log_error("pool %s: its %s device was not found (the devices file %s lists "
				  "it, and no block device carries its label); attach it, name the "
				  "devices with --devices DATA,META, or forget the pool with "
				  "'tpremove --force %s'",
				  name, paths[VG_ROLE_DATA] ? "metadata" : "data", file ? file : "",
				  name);
		else
			log_error("pool %s not found: no such pool in the devices file and no "
				  "block device carries its label; 'tpstatus' lists the known pools, "
				  "--devices DATA,META names image files",
				  name);
		free(file);
		free(paths[0]);
		free(paths[1]);
		paths[0] = paths[1] = NULL;
		return -ENOENT;
	}
	log_warn("pool %s: devices file entry was missing or stale; found %s and %s by their "
		 "labels and recorded them", name, paths[VG_ROLE_DATA], paths[VG_ROLE_META]);
	for (i = 0; i < VG_NR_ROLES; i++)
		record(name, (enum vg_role)i, paths[i]);
	return 0;
}

/* Is another block device built on DEV (an md member, a multipath path, an
 * active pool's device)? Then its label is that device's, not a copy. */
static int has_holders(const char *dev)
{
	char dir[64];
	struct stat st;
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return 0;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders", major(st.st_rdev),
		 minor(st.st_rdev));
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n > 0;
}

/* Append "; PATH and COPY (the ROLE device, device uuid UUID)" to BUF. */
static void add_duplicate(char *buf, size_t len, const char *path, const char *copy,
			  const struct vg_label *l)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s and %s (both carry the %s device uuid %s)",
		 used ? "; " : "", path, copy, vg_role_name(l->role), l->pv_uuid);
}

int pool_check_duplicates(const char *name, char *const paths[VG_NR_ROLES], int refuse)
{
	struct vg_label mine[VG_NR_ROLES];
	struct tp_dev_list list;
	char found[1024] = "";
	int have[VG_NR_ROLES];

	for (int i = 0; i < VG_NR_ROLES; i++)
		have[i] = paths[i] && !pool_read_label(paths[i], &mine[i]);
	if ((!have[0] && !have[1]) || tp_dev_scan("TPTOOLS-", &list))
		return 0;	/* nothing to compare, or no scan here: nothing found */
	for (unsigned k = 0; k < list.count; k++) {
		const char *dev = list.dev[k].path;
		struct vg_label l;

		if (pool_read_label(dev, &l) || has_holders(dev))
			continue;
		for (int i = 0; i < VG_NR_ROLES; i++)
			if (have[i] && !strcmp(l.pv_uuid, mine[i].pv_uuid) &&
			    !pool_same_device(dev, paths[i]))
				add_duplicate(found, sizeof(found), paths[i], dev, &l);
	}
	tp_dev_list_free(&list);
	if (!found[0])
		return 0;
	if (refuse) {
		log_error("pool %s: duplicate devices: %s. They are copies (dd clones, LUN "
			  "snapshots): tptools will not change a pool whose devices are "
			  "duplicated. Pick the ones to use with --devices DATA,META, or detach "
			  "or wipe the copies", name, found);
		return -EBUSY;
	}
	log_warn("pool %s: duplicate devices: %s. Using %s and %s; pick with --devices "
		 "DATA,META, or detach or wipe the copies", name, found, paths[VG_ROLE_DATA],
		 paths[VG_ROLE_META]);
	return 0;
}
