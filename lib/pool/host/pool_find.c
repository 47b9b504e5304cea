/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_find.c - where a pool's devices are: --devices, the devices file,
 * or a label scan of every block device (libudev via lib/dev/scan.h); and
 * the copies of them (duplicates) the scan finds. Only the top of a stack
 * is taken (pool_stack.c): a component (an md member showing the array's
 * label, a multipath path) is passed by with one line, and a pool seen
 * only on components waits for its array. */
#include "lib/pool/host/host.h"
#include "lib/pool/pool.h"

#include "kernel/dm.h"
#include "lib/base/devfilter.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "lib/dev/scan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The device numbers of the loaded devices tptools made. */
struct loaded {
	dev_t *dev;
	unsigned n, cap;
};

static int add_loaded(const struct tp_dm_listed *d, void *arg)
{
	struct loaded *l = arg;

	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 64;
		dev_t *grown = realloc(l->dev, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->dev = grown;
		l->cap = cap;
	}
	l->dev[l->n++] = makedev(d->major, d->minor);
	return 0;
}

int pool_scan_devices(struct tp_dev_list *list)
{
	struct loaded l = { NULL, 0, 0 };
	int r;

	/* no answer (no device-mapper, not root, out of memory): the scan
	 * reads each dm device's uuid instead, as it always could */
	if (tp_dm_list_devs(TP_DM_UUID_PREFIX, add_loaded, &l))
		l.n = 0;
	r = tp_dev_scan_skip(TP_DM_UUID_PREFIX, l.dev, l.n, list);
	free(l.dev);
	return r;
}

int pool_read_label(const char *path, struct vg_label *l)
{
	int r;

	/* a device the devices filter rejects carries no label for us: the
	 * scans pass it by in silence, and naming it is refused where it is
	 * opened (lib/base/devopen.h) */
	if (!tp_dev_filter_accepts(path, NULL, 0))
		return -ENOENT;
	r = vg_label_probe_path(path, l);

	if (r == VG_LABEL_FOUND)
		return 0;
	if (r == VG_LABEL_NONE)
		return -ENOENT;
	return r;
}

/* The VG copy on PATH alone, read quietly through the label AS (its
 * areas' places and the pool and device it is to be of) or, AS NULL,
 * PATH's own label (into *LABEL when LABEL is not NULL): 0 with *VG, or
 * -errno (-ENOENT: no label). */
static int pool_device_vg(const char *path, const struct vg_label *as, struct vg_label *label,
			  struct vg **vg)
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	struct vg_pv pv;
	int r;

	*vg = NULL;
	memset(&pv, 0, sizeof(pv));
	r = io_fd_open(path, IO_RDONLY, &pv.io);
	if (!r && as)
		pv.label = *as;
	else if (!r && vg_label_read(pv.io, &pv.label) != VG_LABEL_FOUND)
		r = -ENOENT;
	if (!r && label)
		*label = pv.label;
	if (!r)
		r = vg_read(&pv, 1, vg, NULL);
	io_destroy(pv.io);
	tp_log_capture_pop(outer);
	return r;
}

/* Do PATH's VG metadata areas (at the label L's places) hold a VG of
 * pool POOL_UUID that lists device PV_UUID, read as that device's? */
static int areas_of(const char *path, const struct vg_label *l, const char *pool_uuid,
		    const char *pv_uuid)
{
	struct vg_label as = *l;
	struct vg *vg;
	int yes;

	snprintf(as.pool_uuid, sizeof(as.pool_uuid), "%s", pool_uuid);
	snprintf(as.pv_uuid, sizeof(as.pv_uuid), "%s", pv_uuid);
	yes = !pool_device_vg(path, &as, NULL, &vg) && !strcmp(vg->uuid, pool_uuid) &&
	      vg_lists_device(vg, pv_uuid);
	vg_free(vg);
	return yes;
}

/* pool_device_of_other over the devices file's entries ALL (N). */
static int of_other_in(const struct pool_devices_entry *all, size_t n, const char *path,
		       const struct vg_label *l, char owner[VG_UUID_LEN + 1])
{
	int yes = 0;

	owner[0] = '\0';
	for (size_t i = 0; i < n && !yes; i++)
		if ((yes = all[i].pool_uuid[0] && strcmp(all[i].pool_uuid, l->pool_uuid) &&
			   pool_same_device(all[i].path, path) &&
			   areas_of(path, l, all[i].pool_uuid, all[i].pv_uuid)))
			snprintf(owner, VG_UUID_LEN + 1, "%s", all[i].pool_uuid);
	return yes;
}

int pool_device_of_other(const char *path, const struct vg_label *l,
			 char owner[VG_UUID_LEN + 1])
{
	struct pool_devices_entry *all = NULL;
	size_t n = 0;
	int yes;

	owner[0] = '\0';
	if (pool_devices_list(&all, &n))
		return 0;
	yes = of_other_in(all, n, path, l, owner);
	free(all);
	return yes;
}

int pool_label_is_copy(const char *path, const struct vg_label *l)
{
	struct pool_devices_entry *all = NULL, *e = NULL;
	char owner[VG_UUID_LEN + 1];
	struct vg_label o;
	size_t n = 0;
	int yes;

	/* the devices file, read once for both questions */
	if (pool_devices_list(&all, &n))
		return 0;
	for (size_t i = 0; i < n && !e; i++)
		if (!strcmp(all[i].pv_uuid, l->pv_uuid))
			e = &all[i];
	/* the device L names is listed elsewhere and carries L there (a
	 * device of its own pool there, not another pool's) */
	yes = e && !(e->pool_uuid[0] && strcmp(e->pool_uuid, l->pool_uuid)) &&
	      !pool_same_device(e->path, path) && !pool_read_label(e->path, &o) &&
	      !strcmp(o.pool_uuid, l->pool_uuid) && !strcmp(o.pv_uuid, l->pv_uuid) &&
	      o.role == l->role && !of_other_in(all, n, e->path, &o, owner);
	/* or PATH is listed as a device of another pool, and its VG areas
	 * are that pool's: only the label sector is foreign */
	if (!yes)
		yes = of_other_in(all, n, path, l, owner);
	free(all);
	return yes;
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

int pool_same_device_named(const char *a, const char *b)
{
	return !strcmp(a, b) || pool_same_device(a, b);
}

/* A component seen where a pool device was looked for (the label scan or
 * a devices-file entry): passed by with one line, and named when the
 * pool's device is missing (waiting for its array). */
struct component {
	enum vg_role role;
	char path[VG_PATH_MAX + 1];
	struct tp_stack_verdict v;
};

/* What locate() learnt besides the paths. */
struct located {
	int listed;				/* entries the devices file had */
	int stale;				/* one no longer pointed at its device */
	int scanned;				/* the label scan was needed */
	char damaged[VG_NR_ROLES][VG_PATH_MAX + 1];	/* listed, label damaged */
	char listed_path[VG_NR_ROLES][VG_PATH_MAX + 1];	/* what the devices file says */
	unsigned nr_comp;
	struct component comp[8];
};

/* Is PATH, carrying label L, a component of another device? Then note it
 * in AT and say so, once per path: 1. The top of its stack: 0. */
static int component(struct located *at, const char *path, const struct vg_label *l)
{
	struct component *c;
	struct tp_stack_verdict v;
	int r = pool_stack_check(path, l->pool_uuid, &v);

	if (r <= 0)
		return 0;	/* a probe error: the open that follows says */
	for (unsigned i = 0; i < at->nr_comp; i++)
		if (!strcmp(at->comp[i].path, path))
			return 1;
	pool_stack_skip_line(path, &v);
	if (at->nr_comp < TP_ARRAY_SIZE(at->comp)) {
		c = &at->comp[at->nr_comp++];
		c->role = l->role;
		snprintf(c->path, sizeof(c->path), "%s", path);
		c->v = v;
	}
	return 1;
}

/* Does the devices-file entry E still point at its device, the top of its
 * stack? 1 yes, 0 no, or the -errno of a label that is there but cannot be
 * read (damaged: logged by the probe). */
static int entry_current(const struct pool_devices_entry *e, struct located *at)
{
	struct vg_label l;
	int r = pool_read_label(e->path, &l);

	if (r)
		return r == -ENOENT ? 0 : r;
	/* an entry that records the pool uuid matches by it (a label's pool
	 * name is a hint that may lag: an older label, the VG decides); one
	 * of the first format by the name */
	if (strcmp(l.pv_uuid, e->pv_uuid) || l.role != e->role ||
	    (e->pool_uuid[0] ? strcmp(l.pool_uuid, e->pool_uuid) : strcmp(l.pool_name, e->pool)) ||
	    pool_label_is_copy(e->path, &l))
		return 0;
	if (l.data_index)
		return 2;	/* an added data device: found through the VG */
	return !component(at, e->path, &l);
}

/* Look at every block device's label for pool NAME; components are
 * passed by (noted in AT). */
static int scan_labels(const char *name, char *paths[VG_NR_ROLES], struct located *at)
{
	struct tp_dev_list list;
	char uuid[VG_UUID_LEN + 1] = "";
	unsigned i;
	int r = pool_scan_devices(&list);

	if (r) {
		log_debug(TP_DBG_POOL, "block device scan failed: %d", r);
		return 0;
	}
	for (i = 0; i < list.count && !r; i++) {
		const char *path = list.dev[i].path;
		struct vg_label l;

		if (pool_read_label(path, &l) || strcmp(l.pool_name, name) || l.data_index ||
		    component(at, path, &l))
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
	struct vg_label l;

	memset(&e, 0, sizeof(e));
	snprintf(e.pool, sizeof(e.pool), "%s", pool);
	/* the pool uuid from the device's own label (not yet written: the
	 * next VG commit completes the entry, pool_devices_adopt) */
	if (!pool_read_label(path, &l) && !strcmp(l.pv_uuid, pv_uuid))
		snprintf(e.pool_uuid, sizeof(e.pool_uuid), "%s", l.pool_uuid);
	e.role = role;
	snprintf(e.pv_uuid, sizeof(e.pv_uuid), "%s", pv_uuid);
	/* absolute: the entry must not depend on the directory a command ran
	 * in (a repair names the devices as the user gave them) */
	tp_path_absolute_to(e.path, sizeof(e.path), path);
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

/* The VG from the copy on metadata device META alone, quietly: 0 and
 * *VG, or -errno. */
static int meta_vg(const char *meta, struct vg **vg)
{
	struct vg_label l;
	int r = pool_device_vg(meta, NULL, &l, vg);

	if (!r && (l.role != VG_ROLE_META || l.data_index)) {
		vg_free(*vg);
		*vg = NULL;
		r = -ENOENT;
	}
	return r;
}

int pool_meta_vg(const char *meta, struct vg **vg)
{
	return meta_vg(meta, vg);
}

/* The pool's first data device is the one its VG names, read from the
 * copy on the metadata device META (a VG commit that changes the first
 * data device writes it before the new first one's: core/pool_commit.c):
 * tpreduce --data of the first makes the second the first in one VG
 * commit, and the labels follow after it (the new first one's place,
 * then the old one's label wiped). A DATA that is not that
 * device (the old first, still labelled), or none (its label wiped, the
 * new first one's place not yet 0), is replaced by the VG's first, found
 * by its device uuid. Finding a pool thus never depends on which device
 * was its first; a pool whose metadata device or VG cannot be read here
 * is left to the open to say why. */
static void first_by_vg(const char *name, char *paths[VG_NR_ROLES])
{
	struct tp_log_capture quiet, *outer;
	struct vg_label l;
	struct vg *vg = NULL;
	const struct vg_device *first;
	char *path = NULL;

	if (!paths[VG_ROLE_META] || meta_vg(paths[VG_ROLE_META], &vg))
		return;
	outer = tp_log_capture_push(&quiet);
	first = &vg->dev[VG_ROLE_DATA];
	if (paths[VG_ROLE_DATA] && !pool_read_label(paths[VG_ROLE_DATA], &l) &&
	    !strcmp(l.pv_uuid, first->pv_uuid))
		goto out;	/* the usual case: the data device is the VG's first */
	if (!pool_find_data_device(name, vg->uuid, first->pv_uuid, 0, first->path, 0, &path)) {
		free(paths[VG_ROLE_DATA]);
		paths[VG_ROLE_DATA] = path;
		path = NULL;
	}
out:
	tp_log_capture_pop(outer);
	free(path);
	vg_read_release(vg);	/* read only: the open's read takes it (vg.h) */
}

/* PATHS of pool NAME from the devices file, completed by a label scan when
 * an entry is missing or stale; either may stay NULL; the data device the
 * one the VG names first (first_by_vg). 0, or -errno with PATHS freed. */
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
		snprintf(at->listed_path[ent[i].role], sizeof(at->listed_path[0]), "%s",
			 ent[i].path);
		r = entry_current(&ent[i], at);
		if (r == 2)
			continue;
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
	first_by_vg(name, paths);
	if (paths[VG_ROLE_DATA] && paths[VG_ROLE_META])
		return 0;
	/* Lost or stale entries: look at every block device's label. */
	at->scanned = 1;
	r = scan_labels(name, paths, at);
	if (r) {
		free(paths[0]);
		free(paths[1]);
		paths[0] = paths[1] = NULL;
	} else {
		first_by_vg(name, paths);
	}
	return r;
}

/* Are the data devices the VG on PATHS lists after the first present
 * too? 1 yes (or the VG cannot be read here: the open says why), 0 not. */
static int added_present(const char *name, char *const paths[VG_NR_ROLES])
{
	struct vg_pv pv[VG_NR_ROLES];
	struct tp_log_capture quiet;
	struct vg *vg = NULL;
	int r = 1, n = 0;

	memset(pv, 0, sizeof(pv));
	tp_log_capture(&quiet);
	for (; n < VG_NR_ROLES; n++)
		if (io_fd_open(paths[n], IO_RDONLY, &pv[n].io) ||
		    vg_label_read(pv[n].io, &pv[n].label) != VG_LABEL_FOUND)
			break;
	if (n == VG_NR_ROLES && !vg_read(pv, VG_NR_ROLES, &vg, NULL)) {
		for (unsigned i = 1; r && i < vg_nr_data(vg); i++) {
			const struct vg_device *d = vg_data_dev(vg, i);
			char *path = NULL;

			int f = pool_find_data_device(name, vg->uuid, d->pv_uuid, i, d->path, 0,
						      &path);

			if (f == -ENOENT || f == -ENOTBLK)
				r = 0;
			free(path);
		}
		vg_free(vg);
	}
	tp_log_capture(NULL);
	for (int i = 0; i < VG_NR_ROLES; i++)
		io_destroy(pv[i].io);
	return r;
}

int pool_meta_leg0_lost(const char *name, const char *data)
{
	struct vg_pv pv;
	struct tp_log_capture quiet;
	struct vg *vg = NULL;
	char *path = NULL;
	int r = 0;

	memset(&pv, 0, sizeof(pv));
	tp_log_capture(&quiet);
	if (!io_fd_open(data, IO_RDONLY, &pv.io) &&
	    vg_label_read(pv.io, &pv.label) == VG_LABEL_FOUND && pv.label.role == VG_ROLE_DATA &&
	    !vg_read(&pv, 1, &vg, NULL) && vg->meta_mirror &&
	    !pool_find_meta_leg(name, vg->uuid, vg->meta1.pv_uuid, vg->meta1.path, 0, &path))
		r = 1;
	free(path);
	vg_free(vg);
	io_destroy(pv.io);
	tp_log_capture(NULL);
	return r;
}

int pool_devices_present(const char *name)
{
	char *paths[VG_NR_ROLES];
	struct located at;
	int r = locate(name, paths, &at);

	if (r)
		return r;
	if (paths[VG_ROLE_DATA] && !paths[VG_ROLE_META])
		r = pool_meta_leg0_lost(name, paths[VG_ROLE_DATA]);	/* degraded; no added data devices checked */
	else
		r = paths[VG_ROLE_DATA] && paths[VG_ROLE_META] && added_present(name, paths);
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

/* Where the array of an md component C would appear: the devices file's
 * path for its role when there is one, else /dev/md/NAME. */
static void array_path(const struct located *at, const struct component *c, char *buf,
		       size_t len)
{
	const char *colon = strchr(c->v.md_name, ':');

	if (c->v.top[0])
		snprintf(buf, len, "%s", c->v.top);
	else if (at->listed_path[c->role][0] && strcmp(at->listed_path[c->role], c->path))
		snprintf(buf, len, "%s", at->listed_path[c->role]);
	else if (c->v.md_name[0])
		snprintf(buf, len, "/dev/md/%s", colon ? colon + 1 : c->v.md_name);
	else
		snprintf(buf, len, "/dev/mdN");
}

/* The pool's LOST device is missing but components of it were seen: the
 * pool waits for its array (or other top device). Logged: 1; else 0. */
static int waiting_for(const char *name, const struct located *at, enum vg_role lost)
{
	const struct component *first = NULL;
	char members[512] = "", top[VG_PATH_MAX + 1];
	const char *role = lost == VG_ROLE_DATA ? "data" : "metadata";

	for (unsigned i = 0; i < at->nr_comp; i++) {
		const struct component *c = &at->comp[i];
		size_t used = strlen(members);

		if (c->role != lost)
			continue;
		if (!first)
			first = c;
		snprintf(members + used, sizeof(members) - used, "%s%s", used ? " " : "", c->path);
	}
	if (!first)
		return 0;
	if (first->v.kind == TP_STACK_MD) {
		const struct tp_stack_verdict *v = &first->v;
		char ids[160] = "", how[VG_PATH_MAX + 600];

		array_path(at, first, top, sizeof(top));
		if (v->md_name[0] || v->md_uuid[0])
			snprintf(ids, sizeof(ids), " (%s%s%s%s%s)", v->md_name[0] ? "name " : "",
				 v->md_name, v->md_name[0] && v->md_uuid[0] ? ", " : "",
				 v->md_uuid[0] ? "uuid " : "", v->md_uuid);
		/* assembled but not started (incremental assembly waiting for
		 * its other members), or not assembled at all */
		if (v->top[0])
			snprintf(how, sizeof(how), "is assembled but not running: start it with "
				 "'mdadm --run %s' once its members are there", top);
		else
			snprintf(how, sizeof(how), "is not assembled: start it with 'mdadm "
				 "--assemble --scan' (a degraded array: 'mdadm --assemble --run %s "
				 "%s')", top, members);
		log_error("pool %s: waiting for its %s device, md array %s%s: its members (%s) "
			  "are not pool devices, and the array %s; then run the command again",
			  name, role, top, ids, members, how);
		return 1;
	}
	log_error("pool %s: its %s device was found only on %s, which is %s: not a pool device. "
		  "Bring up %s (or name the devices with --devices DATA,META), then run the "
		  "command again", name, role, members, first->v.what,
		  first->v.top[0] ? first->v.top : "the device built on it");
	return 1;
}

/* Does a missing device of PATHS wait for the top of its stack? Logged: 1. */
static int waiting(const char *name, const struct located *at, char *const paths[VG_NR_ROLES])
{
	for (int i = 0; i < VG_NR_ROLES; i++)
		if (!paths[i] && waiting_for(name, at, (enum vg_role)i))
			return 1;
	return 0;
}

/* Why pool NAME's LOST device was not found (no component of it seen). */
/* PATH, POOL's device of role LOST, is shorter than its label records:
 * said with the size to grow it back to (1), else 0. */
void pool_grow_back_advice(const char *pool, const char *files, uint64_t want, int image,
			   char *buf, size_t len)
{
	int several = strchr(files, ' ') != NULL;

	if (image)
		snprintf(buf, len, "run 'truncate -s %" PRIu64 " %s' to grow the image file%s "
			 "back to the size %s label%s record%s, then 'tpcheck %s' says what was cut "
			 "off (it is gone)", want, files, several ? "s" : "", several ? "their" : "its",
			 several ? "s" : "", several ? "" : "s", pool);
	else
		snprintf(buf, len, "grow %s back to %" PRIu64 " bytes (a partition or volume "
			 "made smaller?), then run 'tpcheck %s'", files, want, pool);
}

static int cut_short_say(const char *pool, enum vg_role lost, const char *path)
{
	struct io_engine *io = NULL;
	uint64_t want = 0;
	struct stat st;
	char advice[2 * VG_PATH_MAX + 256];

	if (!io_fd_open(path, IO_RDONLY, &io))
		want = vg_label_cut_short(io);
	io_destroy(io);
	if (!want || stat(path, &st))
		return 0;
	pool_grow_back_advice(pool, path, want, S_ISREG(st.st_mode), advice, sizeof(advice));
	log_error("pool %s: its %s device %s is shorter than its label records (cut short); %s",
		  pool, lost == VG_ROLE_DATA ? "data" : "metadata", path, advice);
	return 1;
}

static void say_missing(const char *name, const struct located *at, enum vg_role lost)
{
	char other[VG_NAME_MAX + 1], why[512];
	char *file = pool_devices_path();

	if (at->listed_path[lost][0] &&
	    !tp_dev_filter_accepts(at->listed_path[lost], why, sizeof(why)))
		log_error("pool %s: its %s device %s (the devices file lists it) is excluded by "
			  "the devices filter, pattern %s; accept it in devices/filter "
			  "(tptools.conf(5)) to use the pool on this host",
			  name, lost == VG_ROLE_DATA ? "data" : "metadata", at->listed_path[lost],
			  why);
	else if (at->damaged[lost][0] && cut_short_say(name, lost, at->damaged[lost]))
		;
	else if (at->damaged[lost][0])
		log_error("pool %s: the label of its %s device %s is damaged (above) and no "
			  "other device carries it; 'tprepair %s' rewrites it from the other "
			  "device's copy", name, lost == VG_ROLE_DATA ? "data" : "metadata",
			  at->damaged[lost], name);
	else if ((at->listed > 0 || at->stale) && renamed_to(name, other))
		log_error("pool %s: the devices file lists a device for it whose label "
			  "belongs to pool %s, not %s (if 'tprename %s %s' was interrupted, "
			  "run it again to finish)", name, other, name, name, other);
	else if ((at->listed > 0 || at->stale) && at->listed_path[lost][0] &&
		 !access(at->listed_path[lost], F_OK)) {
		/* the device is there, its label is not this pool's: lost, a
		 * copy, or the device reused; never advise forgetting the pool */
		struct vg_label l;
		int r = pool_read_label(at->listed_path[lost], &l);

		char owner[VG_UUID_LEN + 1];

		if (!r && pool_device_of_other(at->listed_path[lost], &l, owner))
			log_error("pool %s: its %s device was not found: %s (the devices file lists "
				  "it) carries a copy of %s label, but it is a device of pool uuid %s "
				  "(the devices file and its VG areas say so); attach the pool's own "
				  "%s device, or name it with --devices DATA,META", name,
				  lost == VG_ROLE_DATA ? "data" : "metadata", at->listed_path[lost],
				  strcmp(l.pool_name, name) ? "another pool's" : "its", owner,
				  lost == VG_ROLE_DATA ? "data" : "metadata");
		else if (!r)
			log_error("pool %s: its %s device %s (the devices file lists it) carries "
				  "the label of pool %s (device uuid %s), not its own: a reused device "
				  "or a copied label; 'tpcheck %s' says whether pool %s's VG names "
				  "it", name, lost == VG_ROLE_DATA ? "data" : "metadata",
				  at->listed_path[lost], l.pool_name, l.pv_uuid, l.pool_name,
				  l.pool_name);
		else
			log_error("pool %s: its %s device %s (the devices file lists it) carries "
				  "no valid tptools label: lost or damaged; run 'tpcheck %s', which "
				  "names the repair", name, lost == VG_ROLE_DATA ? "data" : "metadata",
				  at->listed_path[lost], name);
	} else if (at->listed > 0 || at->stale)
		log_error("pool %s: its %s device was not found (the devices file %s lists "
			  "it, and no block device carries its label); attach it, or name the "
			  "devices with --devices DATA,META; only if it is lost for good, forget "
			  "the pool with 'tpremove --force %s'",
			  name, lost == VG_ROLE_DATA ? "data" : "metadata", file ? file : "", name);
	else
		log_error("pool %s not found: no such pool in the devices file and no "
			  "block device carries its label; 'tpstatus' lists the known pools, "
			  "--devices DATA,META names image files",
			  name);
	free(file);
}

static int is_data_device(const char *path, const char *pool_uuid, const char *pv_uuid,
			  unsigned index, enum vg_role role);

int pool_vg_path_hint(const char *path, enum vg_role want, char hint[VG_PATH_MAX + 1],
		      char pv_uuid[VG_UUID_LEN + 1])
{
	enum vg_role found = want == VG_ROLE_DATA ? VG_ROLE_META : VG_ROLE_DATA;
	struct vg_label l;
	struct vg *vg;
	int r = -ENOENT;

	if (!pool_device_vg(path, NULL, &l, &vg) && l.role == found && vg->dev[want].path[0]) {
		snprintf(hint, VG_PATH_MAX + 1, "%s", vg->dev[want].path);
		snprintf(pv_uuid, VG_UUID_LEN + 1, "%s", vg->dev[want].pv_uuid);
		r = 0;
	}
	vg_free(vg);
	return r;
}

/* One of a pool's first two devices found (PATHS[FOUND]), the other not
 * (its devices-file entry lost or damaged, no scan sees image files): the
 * VG copy on the one found names the other's device uuid and where it
 * was last seen; that path, when its label is that device, into PATHS. */
static void by_hint(char *paths[VG_NR_ROLES], enum vg_role found)
{
	enum vg_role want = found == VG_ROLE_DATA ? VG_ROLE_META : VG_ROLE_DATA;
	struct vg_label l;
	char hint[VG_PATH_MAX + 1], pv_uuid[VG_UUID_LEN + 1];

	if (!pool_vg_path_hint(paths[found], want, hint, pv_uuid) &&
	    !pool_read_label(paths[found], &l) &&
	    is_data_device(hint, l.pool_uuid, pv_uuid, 0, want))
		paths[want] = strdup(hint);
}

int pool_backup_paths(const char *name, int need, char paths[VG_NR_ROLES][VG_PATH_MAX + 1])
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	struct pool_backup_set s;
	char *found[VG_NR_ROLES] = { NULL, NULL };
	int fits = 0;

	if (pool_backup_find(name, NULL, &s)) {
		tp_log_capture_pop(outer);
		return -ENOENT;
	}
	for (size_t i = 0; i < s.n; i++) {
		struct vg *vg = NULL;
		char *text = NULL;
		size_t len;
		int ok = 0;

		/* the newest backup of each pool (the set is by uuid, then seqno) */
		if (i + 1 < s.n && s.f[i + 1].uuid[0] && !strcmp(s.f[i + 1].uuid, s.f[i].uuid))
			continue;
		if (!s.f[i].uuid[0] || strcmp(s.f[i].name, name) ||
		    pool_backup_read_file(s.f[i].path, &text, &len) || vg_import(text, len, &vg) ||
		    strcmp(vg->uuid, s.f[i].uuid)) {
			free(text);
			vg_free(vg);
			continue;
		}
		free(text);
		for (int r = 0; r < VG_NR_ROLES; r++)
			ok += vg->dev[r].path[0] &&
			      is_data_device(vg->dev[r].path, vg->uuid, vg->dev[r].pv_uuid, 0,
					     (enum vg_role)r);
		if (ok >= need && fits++ == 0)
			for (int r = 0; r < VG_NR_ROLES; r++)
				found[r] = strdup(vg->dev[r].path);
		vg_free(vg);
	}
	pool_backup_set_free(&s);
	tp_log_capture_pop(outer);
	for (int r = 0; r < VG_NR_ROLES; r++) {
		if (fits == 1 && found[r])
			snprintf(paths[r], VG_PATH_MAX + 1, "%s", found[r]);
		free(found[r]);
	}
	return fits == 1 ? 0 : -ENOENT;
}

/* Neither of the first two devices found: where the newest backup saw
 * them, both labels there (pool_backup_paths). */
static void by_backups(const char *name, char *paths[VG_NR_ROLES])
{
	char found[VG_NR_ROLES][VG_PATH_MAX + 1];

	if (pool_backup_paths(name, VG_NR_ROLES, found))
		return;
	for (int r = 0; r < VG_NR_ROLES; r++)
		if (!paths[r])
			paths[r] = strdup(found[r]);
}

int pool_find_devices(const char *name, char *paths[VG_NR_ROLES])
{
	struct located at;
	int i, r = locate(name, paths, &at);

	if (r)
		return r;
	if (!at.scanned)
		return 0;
	/* a device not found where the devices file said: where the VG copy
	 * of the other one last saw it */
	if (!paths[VG_ROLE_DATA] != !paths[VG_ROLE_META])
		by_hint(paths, paths[VG_ROLE_DATA] ? VG_ROLE_DATA : VG_ROLE_META);
	/* neither: where this host's newest VG backup of the pool saw them */
	if (!paths[VG_ROLE_DATA] && !paths[VG_ROLE_META])
		by_backups(name, paths);
	if (!paths[VG_ROLE_DATA] || !paths[VG_ROLE_META]) {
		int wait = waiting(name, &at, paths);

		/* a mirrored pool without its first metadata device (not one
		 * waiting for its array): it opens on the second, degraded
		 * (pool_attach.c says so) */
		if (!wait && paths[VG_ROLE_DATA] && pool_meta_leg0_lost(name, paths[VG_ROLE_DATA])) {
			record(name, VG_ROLE_DATA, paths[VG_ROLE_DATA]);
			return 0;
		}
		if (!wait)
			say_missing(name, &at, paths[VG_ROLE_DATA] ? VG_ROLE_META : VG_ROLE_DATA);
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

/* Is PATH data device INDEX (device uuid PV_UUID) of the pool POOL_UUID,
 * the top of its stack? A data device goes by its uuid: its label's place
 * may lag behind a tpreduce --data (vg_io.c), the first one's too (still
 * 1 after the first was taken away); only an added device's label never
 * says 0. */
static int is_data_device(const char *path, const char *pool_uuid, const char *pv_uuid,
			  unsigned index, enum vg_role role)
{
	struct tp_stack_verdict v;
	struct vg_label l;

	return path && path[0] && !pool_read_label(path, &l) && l.role == role &&
	       (index ? l.data_index != 0 : role == VG_ROLE_DATA || !l.data_index) &&
	       !strcmp(l.pv_uuid, pv_uuid) &&
	       !strcmp(l.pool_uuid, pool_uuid) && pool_stack_check(path, pool_uuid, &v) <= 0 &&
	       !pool_label_is_copy(path, &l);
}

static int find_device(const char *name, const char *pool_uuid, const char *pv_uuid,
		       unsigned index, enum vg_role role, const char *hint, int refuse_copies,
		       char **path);

int pool_device_filtered(const char *pv_uuid, const char *hint, char *path, size_t plen,
			 char *why, size_t wlen)
{
	struct pool_devices_entry e;
	const char *at[2] = { NULL, hint };

	if (!pool_devices_lookup_pv(pv_uuid, &e))
		at[0] = e.path;
	for (int i = 0; i < 2; i++)
		if (at[i] && at[i][0] && tp_dev_filter_pattern_rejects(at[i], why, wlen)) {
			snprintf(path, plen, "%s", at[i]);
			return 1;
		}
	return 0;
}

int pool_find_data_device(const char *name, const char *pool_uuid, const char *pv_uuid,
			  unsigned index, const char *hint, int refuse_copies, char **path)
{
	char at[VG_PATH_MAX + 1], why[512];
	int r = find_device(name, pool_uuid, pv_uuid, index, VG_ROLE_DATA, hint, refuse_copies,
			    path);

	/* not found, but where it was last seen the filter keeps us from
	 * looking: not known to be missing */
	if (r == -ENOENT && pool_device_filtered(pv_uuid, hint, at, sizeof(at), why, sizeof(why)))
		return -ENOTBLK;
	return r;
}

int pool_find_meta_leg(const char *name, const char *pool_uuid, const char *pv_uuid,
		       const char *hint, int refuse_copies, char **path)
{
	return find_device(name, pool_uuid, pv_uuid, 1, VG_ROLE_META, hint, refuse_copies, path);
}

static int find_device(const char *name, const char *pool_uuid, const char *pv_uuid,
		       unsigned index, enum vg_role role, const char *hint, int refuse_copies,
		       char **path)
{
	struct pool_devices_entry e;
	struct tp_dev_list list;
	char found[VG_PATH_MAX + 1] = "", copy[VG_PATH_MAX + 1] = "";
	int r;

	*path = NULL;
	if (!pool_devices_lookup_pv(pv_uuid, &e) &&
	    is_data_device(e.path, pool_uuid, pv_uuid, index, role))
		snprintf(found, sizeof(found), "%s", e.path);
	else if (is_data_device(hint, pool_uuid, pv_uuid, index, role))
		snprintf(found, sizeof(found), "%s", hint);
	/* the scan: to find a device that moved, and copies of it */
	if (!pool_scan_devices(&list)) {
		for (unsigned k = 0; k < list.count; k++) {
			const char *dev = list.dev[k].path;

			if (!is_data_device(dev, pool_uuid, pv_uuid, index, role))
				continue;
			if (!found[0])
				snprintf(found, sizeof(found), "%s", dev);
			else if (!pool_same_device(found, dev) && !copy[0])
				snprintf(copy, sizeof(copy), "%s", dev);
		}
		tp_dev_list_free(&list);
	}
	if (!found[0])
		return -ENOENT;
	if (copy[0]) {
		if (refuse_copies) {
			log_error("pool %s: duplicate devices: %s and %s (both carry the %s device "
				  "uuid %s). They are copies (dd clones, LUN snapshots): tptools will "
				  "not change a pool whose devices are duplicated; detach or wipe the "
				  "copy", name, found, copy, vg_role_name(role), pv_uuid);
			return -EBUSY;
		}
		log_warn("pool %s: duplicate devices: %s and %s (both carry the %s device uuid "
			 "%s). Using %s; detach or wipe the copy", name, found, copy, vg_role_name(role),
			 pv_uuid, found);
	}
	r = pool_devices_lookup_pv(pv_uuid, &e);
	if (r || strcmp(e.path, found) || strcmp(e.pool, name))
		pool_record_device(name, role, pv_uuid, found);
	*path = strdup(found);
	return *path ? 0 : -ENOMEM;
}

int pool_orphan_of(const char *path, const struct vg *vg, struct pool_orphan *o)
{
	struct tp_log_capture quiet, *outer;
	struct tp_stack_verdict v;
	struct vg_pv pv;
	struct vg *own = NULL;

	memset(o, 0, sizeof(*o));
	memset(&pv, 0, sizeof(pv));
	if (pool_read_label(path, &pv.label) || strcmp(pv.label.pool_uuid, vg->uuid) ||
	    vg_lists_device(vg, pv.label.pv_uuid))
		return 0;
	/* a component showing the label of the device built on it (an md
	 * member) is no device of its own */
	if (pool_stack_check(path, vg->uuid, &v) > 0)
		return 0;
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->label = pv.label;
	o->kind = POOL_ORPHAN_UNCOMMITTED;
	outer = tp_log_capture_push(&quiet);
	if (!io_fd_open(path, IO_RDONLY, &pv.io) &&
	    vg_label_read(pv.io, &pv.label) == VG_LABEL_FOUND && !vg_read(&pv, 1, &own, NULL) &&
	    vg_lists_device(own, pv.label.pv_uuid)) {
		o->own_seqno = own->seqno;
		/* its own copy names it: the pool let it go since (an older
		 * copy), or that copy is no older than the pool's, and the
		 * devices the pool was found on are behind its state */
		o->kind = own->seqno < vg->seqno ? POOL_ORPHAN_DROPPED : POOL_ORPHAN_AHEAD;
	}
	tp_log_capture_pop(outer);
	vg_free(own);
	io_destroy(pv.io);
	return 1;
}

static void add_orphan(const char *path, const struct vg *vg, struct pool_orphan *out,
		       unsigned max, unsigned *n)
{
	struct pool_orphan o;

	for (unsigned i = 0; i < *n; i++)
		if (pool_same_device(out[i].path, path))
			return;
	if (*n < max && pool_orphan_of(path, vg, &o))
		out[(*n)++] = o;
}

unsigned pool_find_orphans(const struct vg *vg, struct pool_orphan *out, unsigned max)
{
	struct pool_devices_entry *ent = NULL;
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	struct tp_dev_list list;
	unsigned n = 0;
	size_t nr = 0;

	/* every entry of the devices file, whichever pool it names: an
	 * orphan's entry may carry the name the pool had (a tprename since) */
	if (!pool_devices_list(&ent, &nr))
		for (size_t i = 0; i < nr; i++)
			add_orphan(ent[i].path, vg, out, max, &n);
	free(ent);
	if (!pool_scan_devices(&list)) {
		for (unsigned k = 0; k < list.count; k++)
			add_orphan(list.dev[k].path, vg, out, max, &n);
		tp_dev_list_free(&list);
	}
	tp_log_capture_pop(outer);
	return n;
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
	if ((!have[0] && !have[1]) || pool_scan_devices(&list))
		return 0;	/* nothing to compare, or no scan here: nothing found */
	for (unsigned k = 0; k < list.count; k++) {
		const char *dev = list.dev[k].path;
		struct vg_label l;

		struct tp_stack_verdict v;

		if (pool_read_label(dev, &l) || pool_stack_check(dev, l.pool_uuid, &v))
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
