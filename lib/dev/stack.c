/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stack.c - see stack.h: the decision, and the gatherer of its facts. */
#include "lib/dev/stack.h"

#include "lib/base/devopen.h"
#include "lib/base/log.h"
#include "lib/dev/sysfs.h"
#include "lib/dev/udev_mark.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* " (name N, uuid U)", " (uuid U)", "" */
static void md_ids(const struct tp_stack_facts *f, char *buf, size_t len)
{
	if (f->raid_label[0] && f->raid_uuid[0])
		snprintf(buf, len, " (name %s, uuid %s)", f->raid_label, f->raid_uuid);
	else if (f->raid_uuid[0] || f->raid_label[0])
		snprintf(buf, len, " (%s %s)", f->raid_uuid[0] ? "uuid" : "name",
			 f->raid_uuid[0] ? f->raid_uuid : f->raid_label);
	else
		buf[0] = '\0';
}

static int is_md_sig(const struct tp_stack_facts *f)
{
	return !strcmp(f->raid_type, "linux_raid_member");
}

static int is_lvm_sig(const struct tp_stack_facts *f)
{
	return !strcmp(f->raid_type, "LVM2_member") || !strcmp(f->raid_type, "LVM1_member");
}

/* The holder that is a multipath map, an md array, a foreign dm map, or
 * any other; NULL when none of that kind. */
static const struct tp_stack_holder *holder_of(const struct tp_stack_facts *f,
					       enum tp_stack_kind kind, const char *pool_uuid)
{
	for (unsigned i = 0; i < f->nr_holders && i < TP_STACK_MAX_HOLDERS; i++) {
		const struct tp_stack_holder *h = &f->holder[i];
		int dm = starts(h->name, "dm-");

		switch (kind) {
		case TP_STACK_MPATH:
			if (dm && starts(h->dm_uuid, "mpath-"))
				return h;
			break;
		case TP_STACK_MD:
			if (h->md)
				return h;
			break;
		case TP_STACK_DM:
			if (dm && !starts(h->dm_uuid, "mpath-") &&
			    !(starts(h->dm_uuid, TP_STACK_OWN_DM_PREFIX) &&
			      (!pool_uuid || !pool_uuid[0] ||
			       starts(h->dm_uuid + strlen(TP_STACK_OWN_DM_PREFIX), pool_uuid))))
				return h;
			break;
		case TP_STACK_HOLDER:
			if (!dm && !h->md)
				return h;
			break;
		default:
			break;
		}
	}
	return NULL;
}

static void dm_path(const struct tp_stack_holder *h, char *buf, size_t len)
{
	if (h->dm_name[0])
		snprintf(buf, len, "/dev/mapper/%s", h->dm_name);
	else
		snprintf(buf, len, "/dev/%s", h->name);
}

int tp_stack_decide(const struct tp_stack_facts *f, const char *pool_uuid,
		    struct tp_stack_verdict *v)
{
	const struct tp_stack_holder *h;
	char ids[192];

	memset(v, 0, sizeof(*v));
	md_ids(f, ids, sizeof(ids));
	if ((h = holder_of(f, TP_STACK_MPATH, NULL)) || f->mpath_path) {
		v->kind = TP_STACK_MPATH;
		if (h) {
			dm_path(h, v->top, sizeof(v->top));
			tp_dev_fmt(v->what, sizeof(v->what), "a path of multipath device %s", v->top);
		} else {
			tp_dev_fmt(v->what, sizeof(v->what),
				 "a path of a multipath device (udev: DM_MULTIPATH_DEVICE_PATH=1)");
		}
		return 1;
	}
	if ((h = holder_of(f, TP_STACK_MD, NULL)) || is_md_sig(f)) {
		v->kind = TP_STACK_MD;
		snprintf(v->md_uuid, sizeof(v->md_uuid), "%s", f->raid_uuid);
		snprintf(v->md_name, sizeof(v->md_name), "%s", f->raid_label);
		if (h) {
			tp_dev_fmt(v->top, sizeof(v->top), "/dev/%s", h->name);
			tp_dev_fmt(v->what, sizeof(v->what), "a member of md array %s%s", v->top, ids);
		} else if (f->raid_label[0]) {
			tp_dev_fmt(v->what, sizeof(v->what),
				   "a member of md array %s%s%s%s, which is not assembled",
				   f->raid_label, f->raid_uuid[0] ? " (uuid " : "", f->raid_uuid,
				   f->raid_uuid[0] ? ")" : "");
		} else {
			tp_dev_fmt(v->what, sizeof(v->what),
				   "a member of md array with uuid %s, which is not assembled",
				   f->raid_uuid[0] ? f->raid_uuid : "(none)");
		}
		return 1;
	}
	if (is_lvm_sig(f)) {
		v->kind = TP_STACK_LVM;
		tp_dev_fmt(v->what, sizeof(v->what), "an LVM physical volume%s%s",
			 f->raid_uuid[0] ? " with uuid " : "", f->raid_uuid);
		return 1;
	}
	if (f->raid_type[0]) {
		v->kind = TP_STACK_RAID;
		tp_dev_fmt(v->what, sizeof(v->what), "a member of a RAID array (%s%s%s)", f->raid_type,
			 f->raid_uuid[0] ? ", uuid " : "", f->raid_uuid);
		return 1;
	}
	if ((h = holder_of(f, TP_STACK_DM, pool_uuid))) {
		v->kind = TP_STACK_DM;
		dm_path(h, v->top, sizeof(v->top));
		tp_dev_fmt(v->what, sizeof(v->what), "used by device-mapper device %s%s%s%s", v->top,
			 h->dm_uuid[0] ? " (uuid " : "", h->dm_uuid, h->dm_uuid[0] ? ")" : "");
		return 1;
	}
	if ((h = holder_of(f, TP_STACK_HOLDER, NULL))) {
		v->kind = TP_STACK_HOLDER;
		tp_dev_fmt(v->top, sizeof(v->top), "/dev/%s", h->name);
		tp_dev_fmt(v->what, sizeof(v->what), "held by block device %s", v->top);
		return 1;
	}
	if (f->parent[0] && f->parent_labelled) {
		v->kind = TP_STACK_PARTITION;
		tp_dev_fmt(v->top, sizeof(v->top), "/dev/%s", f->parent);
		tp_dev_fmt(v->what, sizeof(v->what),
			 "a partition of %s, which carries a pool label itself", v->top);
		return 1;
	}
	if (starts(f->self_dm_uuid, TP_STACK_OWN_DM_PREFIX)) {
		v->kind = TP_STACK_INTERNAL;
		tp_dev_fmt(v->what, sizeof(v->what), "an internal device of an active pool (dm uuid %s)",
			 f->self_dm_uuid);
		return 1;
	}
	v->kind = TP_STACK_TOP;
	tp_dev_fmt(v->what, sizeof(v->what), "not stacked");
	return 0;
}

int tp_stack_read_sysfs(const char *devdir, struct tp_stack_facts *f)
{
	char sub[PATH_MAX_SYSFS];
	struct dirent *e;
	DIR *d;

	tp_sysfs_attr(devdir, "dm/uuid", f->self_dm_uuid, sizeof(f->self_dm_uuid));
	snprintf(sub, sizeof(sub), "%s/holders", devdir);
	d = opendir(sub);
	while (d && (e = readdir(d))) {
		struct tp_stack_holder *h;
		char hdir[PATH_MAX_SYSFS];

		if (e->d_name[0] == '.' || f->nr_holders >= TP_STACK_MAX_HOLDERS)
			continue;
		h = &f->holder[f->nr_holders++];
		memset(h, 0, sizeof(*h));
		tp_dev_fmt(h->name, sizeof(h->name), "%s", e->d_name);
		tp_dev_fmt(hdir, sizeof(hdir), "%s/%s", sub, e->d_name);
		tp_sysfs_attr(hdir, "dm/uuid", h->dm_uuid, sizeof(h->dm_uuid));
		tp_sysfs_attr(hdir, "dm/name", h->dm_name, sizeof(h->dm_name));
		h->md = tp_sysfs_exists(hdir, "md");
	}
	if (d)
		closedir(d);
	if (tp_sysfs_exists(devdir, "partition")) {
		char *real = realpath(devdir, NULL), *slash;

		if (!real)
			return errno == ENOMEM ? -ENOMEM : 0;
		if ((slash = strrchr(real, '/'))) {
			*slash = '\0';
			slash = strrchr(real, '/');
			snprintf(f->parent, sizeof(f->parent), "%s", slash ? slash + 1 : real);
		}
		free(real);
	}
	return 0;
}

static const char *value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	return blkid_probe_lookup_value(pr, name, &v, NULL) < 0 ? NULL : v;
}

/* libblkid's RAID-usage probers over the whole of PATH: the first RAID
 * signature (an md superblock preferred) into *F. */
static int probe_raid(const char *path, struct tp_stack_facts *f)
{
	blkid_probe pr;
	int fd = io_dev_open(path, O_RDONLY), r = 0, rc;

	if (fd < 0) {
		if (fd != -ENOTBLK)	/* (said by io_dev_open) */
			log_error("%s: cannot open: %s", path, strerror(-fd));
		return fd;
	}
	pr = blkid_new_probe();
	if (!pr) {
		close(fd);
		return -ENOMEM;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0 || blkid_probe_enable_superblocks(pr, 1) < 0 ||
	    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL |
							  BLKID_SUBLKS_UUID) < 0 ||
	    blkid_probe_filter_superblocks_usage(pr, BLKID_FLTR_ONLYIN, BLKID_USAGE_RAID) < 0) {
		log_error("%s: libblkid cannot probe this device", path);
		r = -EIO;
		goto out;
	}
	while ((rc = blkid_do_probe(pr)) == 0) {
		const char *type = value(pr, "TYPE");

		const char *uuid = value(pr, "UUID"), *label = value(pr, "LABEL");

		/* keep the first, unless an md superblock comes later */
		if (!type || (f->raid_type[0] && (is_md_sig(f) || strcmp(type, "linux_raid_member"))))
			continue;
		snprintf(f->raid_type, sizeof(f->raid_type), "%s", type);
		snprintf(f->raid_uuid, sizeof(f->raid_uuid), "%s", uuid ? uuid : "");
		snprintf(f->raid_label, sizeof(f->raid_label), "%s", label ? label : "");
	}
	if (rc < 0) {
		log_error("%s: reading the device for RAID signatures failed", path);
		r = -EIO;
	}
out:
	blkid_free_probe(pr);
	close(fd);
	return r;
}

/* Gather the facts of PATH (a block device or an image file: an image file
 * has libblkid facts only) into *F. LABELLED (may be NULL) answers for a
 * partition's disk. 0, or -errno (PATH cannot be opened or probed:
 * logged). */
static int tp_stack_gather(const char *path, tp_stack_label_fn labelled, void *arg,
			   struct tp_stack_facts *f)
{
	char devdir[PATH_MAX_SYSFS], why[256];
	struct stat st;
	int r;

	memset(f, 0, sizeof(*f));
	if (stat(path, &st)) {
		r = -errno;
		log_error("%s: %s", path, strerror(errno));
		return r;
	}
	if ((r = probe_raid(path, f)))
		return r;
	if (!S_ISBLK(st.st_mode))
		return 0;
	f->mpath_path = tp_udev_is_mpath_path(path, why, sizeof(why)) > 0;
	snprintf(devdir, sizeof(devdir), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	if ((r = tp_stack_read_sysfs(devdir, f)))
		return r;
	if (f->parent[0] && labelled) {
		char disk[128];

		snprintf(disk, sizeof(disk), "/dev/%s", f->parent);
		f->parent_labelled = labelled(disk, arg) > 0;
	}
	return 0;
}

int tp_stack_check(const char *path, const char *pool_uuid, tp_stack_label_fn labelled,
		   void *arg, struct tp_stack_verdict *v)
{
	struct tp_stack_facts f;
	int r = tp_stack_gather(path, labelled, arg, &f);

	if (r) {
		memset(v, 0, sizeof(*v));
		return r;
	}
	r = tp_stack_decide(&f, pool_uuid, v);
	log_debug(TP_DBG_DEV, "%s: %s", path, v->what);
	return r;
}
