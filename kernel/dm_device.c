/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_device.c - create, load, suspend, resume, remove and inspect dm
 * devices through libdevmapper tasks (see dm.h). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

/* udev flags of a device we create or resume: internal devices keep the
 * disk (blkid, by-id links) and other (filesystems, md, lvm) rules off. */
static int udev_flags(unsigned flags)
{
	int f = 0;

	if (flags & TP_DM_INTERNAL)
		f |= DM_UDEV_DISABLE_DISK_RULES_FLAG | DM_UDEV_DISABLE_OTHER_RULES_FLAG;
	return f;
}

static int add_table(struct dm_task *dmt, const char *name, const struct tp_dm_target *table,
		     unsigned n, unsigned flags)
{
	unsigned i;

	if (!n) {
		log_error("%s: empty table", name);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		log_debug(TP_DBG_KERNEL, "%s: table %" PRIu64 " %" PRIu64 " %s %s", name,
			  table[i].start, table[i].length, table[i].type,
			  flags & TP_DM_SECURE ? "(holds a key: not shown)" : table[i].params);
		if (!dm_task_add_target(dmt, table[i].start, table[i].length, table[i].type,
					table[i].params)) {
			log_error("%s: out of memory for table", name);
			return -ENOMEM;
		}
	}
	return 0;
}

#define RETRY_REMOVE (1u << 16)	/* simple_task option beside TP_DM_NOFLUSH/NOLOCKFS */

/* One ioctl without a table (suspend, resume, remove). OPTS: TP_DM_NOFLUSH,
 * TP_DM_NOLOCKFS, RETRY_REMOVE. UDEV and QUIET as for tp_dm_lib_run. */
static int simple_task(int type, const char *name, const char *what, int udev, unsigned opts,
		       int quiet)
{
	struct dm_task *dmt;
	int r;

	if ((r = tp_dm_lib_start(type, name, false, &dmt)))
		return r;
	if (opts & TP_DM_NOFLUSH)
		dm_task_no_flush(dmt);
	if (opts & TP_DM_NOLOCKFS)
		dm_task_skip_lockfs(dmt);
	if (opts & RETRY_REMOVE)
		dm_task_retry_remove(dmt);	/* a udev probe may hold it open a moment */
	r = tp_dm_lib_run(dmt, what, name, udev, quiet);
	dm_task_destroy(dmt);
	return r;
}

/* Make NAME live; nodes by hand when no udev makes them. */
static int resume_flags(const char *name, unsigned flags)
{
	int r = simple_task(DM_DEVICE_RESUME, name, "resume", udev_flags(flags), 0, 0);

	if (!r && tp_dm_lib_no_udev())
		dm_mknodes(name);
	return r;
}

/* Created but not yet live: take it away again. */
static void undo_create(const char *name)
{
	if (simple_task(DM_DEVICE_REMOVE, name, "remove after a failed create", 0, RETRY_REMOVE,
			0))
		log_warn("%s: left behind empty; remove it with 'dmsetup remove %s'", name, name);
}

/* Three ioctls, as LVM does (create, load, resume), so that each failure
 * has the kernel's own errno: libdevmapper's one-task create hides it. */
int tp_dm_create(const char *name, const char *uuid, const struct tp_dm_target *table,
		 unsigned n, unsigned flags)
{
	struct dm_task *dmt;
	int r;

	if ((r = tp_dm_lib_start(DM_DEVICE_CREATE, name, false, &dmt)))
		return r;
	if (uuid && *uuid && !dm_task_set_uuid(dmt, uuid)) {
		log_error("%s: device-mapper rejected the uuid '%s'", name, uuid);
		r = -EINVAL;
	} else {
		r = tp_dm_lib_run(dmt, "create", name, -1, -EBUSY);
		if (r == -EBUSY) {
			/* the kernel's answer for a name or uuid in use */
			log_error("%s: a device-mapper device with this name%s%s exists already",
				  name, uuid && *uuid ? " or uuid " : "", uuid && *uuid ? uuid : "");
			r = -EEXIST;
		}
	}
	dm_task_destroy(dmt);
	if (r)
		return r;
	if ((r = tp_dm_load(name, table, n, flags)) || (r = resume_flags(name, flags)))
		undo_create(name);
	return r;
}

int tp_dm_load(const char *name, const struct tp_dm_target *table, unsigned n, unsigned flags)
{
	struct dm_task *dmt;
	int r;

	if ((r = tp_dm_lib_start(DM_DEVICE_RELOAD, name, false, &dmt)))
		return r;
	if (flags & TP_DM_SECURE)
		dm_task_secure_data(dmt);
	if (!(r = add_table(dmt, name, table, n, flags))) {
		if (flags & TP_DM_READ_ONLY)
			dm_task_set_ro(dmt);
		r = tp_dm_lib_run(dmt, "load table", name, -1, 0);
	}
	dm_task_destroy(dmt);
	return r;
}

int tp_dm_suspend(const char *name, unsigned flags)
{
	return simple_task(DM_DEVICE_SUSPEND, name, "suspend", -1,
			   flags & (TP_DM_NOFLUSH | TP_DM_NOLOCKFS), 0);
}

int tp_dm_resume(const char *name)
{
	struct tp_dm_info info;
	char pool_uuid[TP_DM_UUID_MAX];
	enum tp_dm_role role;
	uint32_t id;
	unsigned flags = 0;

	/* keep the udev flags a device was created with: the pool's pieces
	 * and an encrypted volume's hidden thin device are internal */
	if (!tp_dm_info(name, &info) &&
	    !tp_dm_uuid_parse(info.uuid, pool_uuid, sizeof(pool_uuid), &role, &id) &&
	    ((role != TP_DM_ROLE_THIN && role != TP_DM_ROLE_CRYPT) ||
	     (role == TP_DM_ROLE_THIN && tp_dm_name_is_luks(name))))
		flags |= TP_DM_INTERNAL;
	return resume_flags(name, flags);
}

int tp_dm_remove(const char *name)
{
	/* absence is an answer, not an error: callers remove "if present" */
	return simple_task(DM_DEVICE_REMOVE, name, "remove", 0, RETRY_REMOVE, -ENXIO);
}

int tp_dm_info(const char *name, struct tp_dm_info *info)
{
	struct dm_task *dmt;
	struct dm_info di;
	const char *uuid;
	int r;

	memset(info, 0, sizeof(*info));
	if ((r = tp_dm_lib_start(DM_DEVICE_INFO, name, true, &dmt)))
		return r;
	r = tp_dm_lib_run(dmt, "info", name, -1, 0);
	if (!r && !dm_task_get_info(dmt, &di))
		r = -EIO;
	if (!r && !di.exists)
		r = -ENXIO;
	if (!r) {
		info->major = di.major;
		info->minor = di.minor;
		info->open_count = di.open_count;
		info->target_count = (uint32_t)di.target_count;
		info->event_nr = di.event_nr;
		info->suspended = di.suspended;
		info->live_table = di.live_table;
		info->inactive_table = di.inactive_table;
		info->read_only = di.read_only;
		uuid = dm_task_get_uuid(dmt);
		snprintf(info->uuid, sizeof(info->uuid), "%s", uuid ? uuid : "");
	}
	dm_task_destroy(dmt);
	return r;
}

int tp_dm_devno(const char *name, char *buf, size_t len)
{
	struct tp_dm_info info;
	int r = tp_dm_info(name, &info), n;

	if (r == -ENXIO)
		log_error("%s: no such device-mapper device", name);
	if (r)
		return r;
	n = snprintf(buf, len, "%" PRIu32 ":%" PRIu32, info.major, info.minor);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tp_dm_target_line(const char *name, bool table, unsigned flags, char *type, size_t type_len,
		      char *params, size_t params_len)
{
	struct dm_task *dmt;
	uint64_t start, length;
	char *ttype = NULL, *tparams = NULL;
	int r;

	if ((r = tp_dm_lib_start(table ? DM_DEVICE_TABLE : DM_DEVICE_STATUS, name, false, &dmt)))
		return r;
	if (flags & TP_DM_NOFLUSH)
		dm_task_no_flush(dmt);
	if (flags & TP_DM_SECURE)
		dm_task_secure_data(dmt);
	r = tp_dm_lib_run(dmt, table ? "table" : "status", name, -1, 0);
	if (!r) {
		dm_get_next_target(dmt, NULL, &start, &length, &ttype, &tparams);
		if (!ttype) {
			log_error("%s: has no live table", name);
			r = -ENXIO;
		} else if ((size_t)snprintf(type, type_len, "%s", ttype) >= type_len ||
			   (size_t)snprintf(params, params_len, "%s", tparams ? tparams : "") >=
				   params_len) {
			r = -ENAMETOOLONG;
		}
	}
	dm_task_destroy(dmt);
	return r;
}

static int typed_status(const char *name, unsigned flags, const char *want, char *params,
			size_t len)
{
	char type[TP_DM_TYPE_MAX];
	int r = tp_dm_target_line(name, false, flags, type, sizeof(type), params, len);

	if (!r && strcmp(type, want)) {
		log_error("%s: is a %s device, not %s", name, type, want);
		r = -EINVAL;
	}
	return r;
}

int tp_dm_pool_status(const char *name, unsigned flags, struct tp_dm_pool_status *st)
{
	char params[TP_DM_PARAMS_MAX];
	int r = typed_status(name, flags, "thin-pool", params, sizeof(params));

	memset(st, 0, sizeof(*st));
	return r ? r : tp_dm_parse_pool_status(params, st);
}

int tp_dm_thin_status(const char *name, struct tp_dm_thin_status *st)
{
	char params[TP_DM_PARAMS_MAX];
	int r = typed_status(name, 0, "thin", params, sizeof(params));

	memset(st, 0, sizeof(*st));
	return r ? r : tp_dm_parse_thin_status(params, st);
}

/* The kernel puts each device's uuid after its name in a DM_DEVICE_LIST
 * answer when asked (dm-ioctl 4.45, Linux 5.13; libdevmapper asks when a
 * list task carries a new uuid, as LVM does): a word of event number and a
 * word of flags at the next 8-byte boundary after the name, then the uuid
 * at the next. These are the kernel's flags (linux/dm-ioctl.h). */
#define LIST_HAS_UUID 1u
#define LIST_NO_UUID 2u

static bool version_at_least(const char *v, unsigned want_major, unsigned want_minor)
{
	unsigned maj, min;

	return v && sscanf(v, "%u.%u", &maj, &min) == 2 &&
	       (maj > want_major || (maj == want_major && min >= want_minor));
}

/* ENTRY's uuid in the answer that starts at HEAD, or NULL when the entry
 * does not say (a kernel older than 4.45): "" for a device without one. */
static const char *listed_uuid(const struct dm_names *head, const struct dm_names *entry)
{
	const char *base = (const char *)head;
	size_t at = (size_t)(entry->name - base) + strlen(entry->name) + 1;
	uint32_t flags;

	at = (at + 7) & ~(size_t)7;	/* the event number, then the flags */
	memcpy(&flags, base + at + sizeof(uint32_t), sizeof(flags));
	if (flags & LIST_HAS_UUID)
		return base + ((at + 2 * sizeof(uint32_t) + 7) & ~(size_t)7);
	if (flags & LIST_NO_UUID)
		return "";
	return NULL;
}

int tp_dm_list_devs(const char *uuid_prefix, int (*fn)(const struct tp_dm_listed *d, void *arg),
		    void *arg)
{
	struct dm_task *dmt;
	struct dm_names *head, *names;
	char version[64] = "";
	size_t plen = uuid_prefix ? strlen(uuid_prefix) : 0;
	unsigned next = 0, asked = 0;
	bool uuids;
	int r;

	if ((r = tp_dm_lib_start(DM_DEVICE_LIST, NULL, true, &dmt)))
		return r == -ENODEV ? 0 : r;
	/* the new uuid means nothing to a list but the request for uuids */
	if (!dm_task_set_newuuid(dmt, " ")) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = tp_dm_lib_run(dmt, "list devices", NULL, -1, 0)))
		goto out;
	/* the kernel answers every ioctl with its interface version: an older
	 * one's entries have no room for the uuid, and nothing after the name
	 * is read there */
	uuids = dm_task_get_driver_version(dmt, version, sizeof(version)) &&
		version_at_least(version, 4, 45);
	head = names = dm_task_get_names(dmt);
	if (!names || !names->dev)
		goto out;	/* no devices */
	do {
		struct tp_dm_listed d;
		struct tp_dm_info info;

		names = (struct dm_names *)((char *)names + next);
		d.name = names->name;
		d.uuid = uuids ? listed_uuid(head, names) : NULL;
		d.major = major(names->dev);
		d.minor = minor(names->dev);
		if (!d.uuid) {
			/* a device may vanish between the list and the info */
			asked++;
			if (tp_dm_info(names->name, &info))
				continue;
			d.uuid = info.uuid;
		}
		if (plen && strncmp(d.uuid, uuid_prefix, plen))
			continue;
		if ((r = fn(&d, arg)))
			break;
	} while ((next = names->next));
	if (asked)
		log_debug(TP_DBG_KERNEL, "dm list: the kernel (interface %s) gave no uuids: %u "
			  "devices asked one by one", version, asked);
out:
	dm_task_destroy(dmt);
	return r;
}

struct list_by_name {
	int (*fn)(const char *name, const char *uuid, void *arg);
	void *arg;
};

static int by_name(const struct tp_dm_listed *d, void *arg)
{
	struct list_by_name *l = arg;

	return l->fn(d->name, d->uuid, l->arg);
}

int tp_dm_list(const char *uuid_prefix,
	       int (*fn)(const char *name, const char *uuid, void *arg), void *arg)
{
	struct list_by_name l = { fn, arg };

	return tp_dm_list_devs(uuid_prefix, by_name, &l);
}
