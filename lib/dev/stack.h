/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stack.h - is a device the top of its stack, or a component of another
 * block device (an md member, a multipath path, a device under a
 * device-mapper map, an LVM physical volume, a partition inside a disk
 * that carries a pool label)?
 *
 * A component shows what the device built on it shows: an md RAID1 with
 * its superblock at the end of its members (metadata 1.0 or 0.90) puts
 * the array's sector 1, our label, in sector 1 of every member. Only the
 * top of the stack is a pool device; reading or writing a member bypasses
 * the array. lib/pool asks here before it believes a label (label scan,
 * devices-file entry, --devices, udev-probe, autoactivation).
 *
 * Owns: the decision (tp_stack_decide, a pure function over gathered
 * facts, unit-tested from fixtures) and the gatherer (tp_stack_gather:
 * libblkid's RAID-usage probe over the whole device, so md superblocks at
 * the end (0.90, 1.0) and at the start (1.1, 1.2) and LVM2_member are
 * seen; the udev database's DM_MULTIPATH_DEVICE_PATH; sysfs holders/,
 * dm/uuid, md/ and partition). Also the "same backing storage" check of
 * two devices (tp_dev_same_storage: same file, hard link, symlink, a loop
 * device over the other, a device stacked on the other through sysfs
 * slaves/, a partition of the other).
 *
 * Reads only. Errors are -errno, logged naming the path. */
#ifndef TP_DEV_STACK_H
#define TP_DEV_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

/* Our device-mapper uuids start with this (kernel/dm.h); a holder with it
 * is the pool's own tdata/tmeta device, not another stack. */
#define TP_STACK_OWN_DM_PREFIX "TPTOOLS-"
#define TP_STACK_MAX_HOLDERS 8

struct tp_stack_holder {
	char name[64];		/* sysfs name: "md1", "dm-3" */
	char dm_uuid[160];	/* dm/uuid ("" for none, or not a dm device) */
	char dm_name[160];	/* dm/name */
	int md;			/* an md array (sysfs md/ exists) */
};

/* What is known about one device. Zeroed facts describe a plain device. */
struct tp_stack_facts {
	/* libblkid, RAID usage, over the whole device */
	char raid_type[32];	/* "linux_raid_member", "LVM2_member", ... or "" */
	char raid_uuid[64];	/* the array's uuid (md: the array, not the member) */
	char raid_label[64];	/* md: the array's name ("host:1"); "" for 0.90 */
	/* udev database */
	int mpath_path;		/* DM_MULTIPATH_DEVICE_PATH=1 */
	/* sysfs */
	char self_dm_uuid[160];	/* the device's own dm/uuid */
	unsigned nr_holders;
	struct tp_stack_holder holder[TP_STACK_MAX_HOLDERS];
	char parent[64];	/* a partition: its disk's name ("sda"), else "" */
	int parent_labelled;	/* that disk carries a pool label */
};

enum tp_stack_kind {
	TP_STACK_TOP = 0,	/* nothing stacks it: may be a pool device */
	TP_STACK_MD,		/* a member of an md array (assembled or not) */
	TP_STACK_MPATH,		/* a path of a multipath map */
	TP_STACK_LVM,		/* an LVM physical volume */
	TP_STACK_RAID,		/* a member of another RAID (ddf, isw, ...) */
	TP_STACK_DM,		/* under a device-mapper map that is not ours */
	TP_STACK_HOLDER,	/* held by another kind of block device */
	TP_STACK_PARTITION,	/* a partition inside a disk with a pool label */
	TP_STACK_INTERNAL,	/* one of an active pool's own dm devices */
};

struct tp_stack_verdict {
	enum tp_stack_kind kind;
	/* the device built on it, as a path, when it exists ("/dev/md1",
	 * "/dev/mapper/mpatha", "/dev/sda"); "" when it is not assembled */
	char top[192];
	/* md: the array's uuid and name as libblkid reports them */
	char md_uuid[64];
	char md_name[64];
	/* one phrase: "a member of md array /dev/md1 (name h:1, uuid ...)" */
	char what[384];
};

/* The decision. POOL_UUID (may be NULL or ""): the pool whose label the
 * device carries; a holder with our dm uuid prefix and that pool uuid is
 * the pool's own device (with no POOL_UUID, any of ours). Returns 0 for
 * TP_STACK_TOP, 1 for a component; *V is filled either way. Order: a
 * multipath path, an md holder, an md superblock, LVM, another RAID, a
 * foreign dm holder, another holder, a partition inside a labelled disk,
 * one of our own internal dm devices. */
int tp_stack_decide(const struct tp_stack_facts *f, const char *pool_uuid,
		    struct tp_stack_verdict *v);

/* Read the sysfs facts of the device whose sysfs directory is DEVDIR
 * (/sys/dev/block/M:m, or a fixture laid out the same way): holders/
 * with their dm/uuid, dm/name and md/, the device's own dm/uuid, and for a
 * partition (a "partition" file) the parent directory's name. Adds to *F;
 * missing files mean "not there". 0, or -ENOMEM. */
int tp_stack_read_sysfs(const char *devdir, struct tp_stack_facts *f) TP_MUST_CHECK;

/* Does the disk DEVPATH ("/dev/sda") carry a pool label? 1 / 0 / -errno.
 * lib/dev does not know our label: lib/pool passes this. */
typedef int (*tp_stack_label_fn)(const char *devpath, void *arg);

/* Gather and decide: 0 top, 1 component (*V says what), -errno. */
int tp_stack_check(const char *path, const char *pool_uuid, tp_stack_label_fn labelled,
		   void *arg, struct tp_stack_verdict *v) TP_MUST_CHECK;

/* ---- the same backing storage ---- */

#define TP_BACKING_MAX 16

/* One storage identity: a block device (major:minor) or a file (st_dev,
 * st_ino), and how the device reached it. */
struct tp_backing_id {
	char kind;		/* 'b' block device, 'f' file */
	uint64_t a, b;		/* 'b': major, minor; 'f': st_dev, st_ino */
	char how[160];		/* "is a loop device over /x/m.img", "is built on vdb" */
};

/* What a device is and what it lies on: ids[0..nr_own) are the device
 * itself (a loop device: also its backing file), the rest what it is
 * built on (sysfs slaves/, recursively; a partition's disk; a loop
 * device's backing file). */
struct tp_backing {
	unsigned nr, nr_own;
	struct tp_backing_id id[TP_BACKING_MAX];
};

/* The decision: do A and B share storage (one is, or lies on, the other)?
 * 1 with WHY ("B is a loop device over A", "they are the same file (a
 * hard link or a symlink)"), else 0. Pure. A_NAME and B_NAME name them in
 * WHY. */
int tp_backing_overlap(const struct tp_backing *a, const char *a_name,
		       const struct tp_backing *b, const char *b_name, char *why, size_t len);

/* Fill *OUT (zeroed by the caller) for the block device whose sysfs
 * directory is DEVDIR (/sys/dev/block/M:m, or a fixture laid out the same
 * way): its dev, a loop device's loop/backing_file (stat'ed: the file's
 * st_dev and st_ino), then recursively what it is built on: slaves/ and,
 * for a partition, the disk above it. At most TP_BACKING_MAX ids; files
 * that cannot be read are left out. */
void tp_backing_read_sysfs(const char *devdir, struct tp_backing *out);

/* Are A and B (paths) the same storage? 1 (WHY filled), 0, -errno
 * (logged, but for -ENOENT: a path that does not exist, for the caller
 * to name). */
int tp_dev_same_storage(const char *a, const char *b, char *why, size_t len) TP_MUST_CHECK;

#endif
