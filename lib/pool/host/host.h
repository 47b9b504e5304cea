/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.h - what this host keeps about its pools, outside the pool devices
 * (lib/pool internals; not for tools): the devices file and the VG
 * metadata backups, both under the config dir (lib/base/paths.h:
 * $TPTOOLS_DIR or /etc/tptools). The on-disk VG format itself is
 * metadata/vg's. Functions return 0 or -errno.
 *
 * Every file here is rewritten by one rule, lib/base/atomic.h's: a
 * temporary file in the same directory, written, fsynced, renamed over
 * the file, the directory fsynced; a crash leaves the old file or the
 * new, and a failure is logged there, naming the file and the step.
 *
 * The devices file, <config dir>/devices (like LVM's system.devices):
 * where each pool's devices were last seen (host_devices.c).
 *
 * Format: '#' comments and blank lines are ignored; every other line is
 *   POOL POOL_UUID ROLE PV_UUID PATH
 * separated by single spaces, PATH running to the end of the line (it may
 * contain spaces, not newlines). One line per pool device; PV_UUID is
 * unique in the file. The pool uuid says which pool the entry belongs to
 * when nothing on the device says it any more (its label and VG copies
 * lost): the backups of that pool are the ones a restore may use. A line
 * of the first format, POOL ROLE PV_UUID PATH (no pool uuid; its second
 * field is a role, never a uuid), is read as an entry whose pool is known
 * by name alone, written back as it was, and completed with the pool
 * uuid by the next VG commit of that pool (pool_devices_adopt). Lines
 * that do not parse are kept verbatim on rewrite and reported once as a
 * warning, so a hand edit never loses data.
 *
 * An entry is where to look, never proof: every user of one reads the
 * device's label and takes the entry only when the label carries the
 * entry's device uuid (and pool uuid, when recorded); a device that now
 * carries another label, or none, is a stale entry.
 *
 * Every change takes the "#devices" lock (lock.h; '#' cannot occur in a
 * pool name, so it never collides with a pool lock) exclusively, rereads
 * the file, and replaces it by the rule above (mode 0666 less the umask,
 * temporary file .devices.tmp). Lookups take it shared. The file is a
 * cache: a lost entry is found again by reading labels
 * (vg_label_probe_path).
 *
 * The backups, like LVM's /etc/lvm/archive: a copy of every VG commit in
 * <config dir>/backup/<pool uuid>/, as its whole text, <seqno>.vg, or as
 * a delta, <seqno>.vgd (host_backup.c), each written by the rule above
 * (mode 0600, temporary file .tmp.vg or .tmp.vgd); the newest
 * POOL_BACKUP_KEEP files of a pool are kept (tptools.conf backup/keep),
 * fewer when they would take more than POOL_BACKUP_MAX_BYTES
 * (backup/max_size; the newest POOL_BACKUP_MIN always), and the whole
 * text each kept delta applies to; older ones pruned. File names are the
 * seqno in decimal, zero-padded to 20 digits so they sort.
 *
 * A delta (so that a commit of a pool of many volumes writes a few
 * hundred bytes, not its whole text): written instead of the whole text
 * when that is 64 KiB or more (about 600 volumes; test builds:
 * TP_TEST_BACKUP_DELTA_MIN=BYTES), the directory's newest whole text of
 * an older seqno is of this
 * pool (its uuid), at most 25 deltas (half of backup/keep) were written
 * after it, and the delta (metadata/vg/vg_delta.h) is at most an eighth
 * of the text or 4 KiB. A short text header first (a comment line saying
 * what it is; the pool's name, uuid and the seqno in a pool section, as a
 * whole text has them near its top; the base's seqno, length and
 * crc32c; the text's length and crc32c; the delta's length), then the
 * delta's bytes. Read (pool_backup_read_file), it gives the whole text:
 * the base, <base seqno>.vg beside it, checked by its length and crc32c,
 * the delta applied, what it makes checked by its length, crc32c and
 * uuid; any mismatch is an error naming both files, never a text. One directory per pool uuid, never per name: two pools that
 * shared a name (one removed, the other created or renamed to it) keep
 * their backups apart, a rename moves nothing, and a seqno is one pool's.
 * A lookup by name reads the pool name and uuid each file records (its
 * first lines) in every directory. A backup a command wrote begins with a
 * comment line that says which (POOL_BACKUP_DESCRIPTION "after 'tvcreate
 * -V 1G -n www vault'", the command line as lib/base/log.h's
 * tp_log_command gives it); the VG text reader passes comments by, so the
 * file restores as it did before.
 *
 * The first layout, <config dir>/backup/<pool name>/<seqno>.vg (and
 * <pool name>.<time>[.<n>]/, an earlier pool's that tpcreate moved
 * aside), is still read the same way, each file by the uuid its text
 * records; the next commit of a pool of that name moves the files out of
 * backup/<pool name>/ into the directories of their uuids
 * (pool_backup_migrate), and tprename does for the old name.
 *
 * The damaged thin-metadata copies (host_spare.c): a repair writes into
 * the spare area, which holds the copy the previous repair set aside.
 * Before it is overwritten, its content goes to
 * <config dir>/backup/<pool uuid>/spare-<seqno>-<UTC time>.img (a sparse
 * file the size of the area; seqno = the VG's before the repair), by the
 * rule above (mode 0600, temporary file .tmp.spare); the newest
 * POOL_SPARE_KEEP of the pool are kept (the first layout's, in a
 * directory named after a pool, stay where they are: nothing in them
 * says whose they are). */
#ifndef TP_POOL_HOST_H
#define TP_POOL_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/dev/scan.h"
#include "lib/dev/stack.h"
#include "metadata/vg/label.h"
#include "metadata/vg/uuid.h"
#include "metadata/vg/vg.h"

/* ---- the devices file ---- */

struct pool_devices_entry {
	char pool[VG_NAME_MAX + 1];
	char pool_uuid[VG_UUID_LEN + 1];	/* "": an entry of the first format */
	enum vg_role role;
	char pv_uuid[VG_UUID_LEN + 1];
	char path[VG_PATH_MAX + 1];
};

/* The file's path (caller frees) or NULL on ENOMEM. */
char *pool_devices_path(void);

/* Add E, replacing an entry with the same pv_uuid (E without a pool uuid
 * keeps the one the entry of the same pool recorded). -EINVAL for a bad
 * name, uuid or path (empty, or containing a newline). */
int pool_devices_add(const struct pool_devices_entry *e) TP_MUST_CHECK;

/* Remove every entry of POOL (its damaged lines too, below): 0 (also
 * when there were none). */
int pool_devices_remove_pool(const char *pool) TP_MUST_CHECK;
/* Drop the entry of one device (a data device taken away). */
int pool_devices_remove_pv(const char *pv_uuid) TP_MUST_CHECK;

/* All entries (file order) into a malloc'd *ENTRIES (caller frees), *N.
 * A missing file is 0 with *N = 0. */
int pool_devices_list(struct pool_devices_entry **entries, size_t *n) TP_MUST_CHECK;

/* Entries of POOL into OUT (up to MAX, in file order); returns the count
 * found (may exceed MAX) or -errno. */
int pool_devices_lookup_pool(const char *pool, struct pool_devices_entry *out,
			     size_t max) TP_MUST_CHECK;
/* Does the file hold a damaged line of POOL (one that does not parse but
 * begins with its name, as a cut entry does)? 1 (the first such line
 * into LINE, LEN bytes, when LINE), 0, or -errno. Adding an entry of POOL
 * and removing POOL drop such lines. */
int pool_devices_damaged(const char *pool, char *line, size_t len) TP_MUST_CHECK;
/* The entry of PV_UUID into *OUT: 0 or -ENOENT. */
int pool_devices_lookup_pv(const char *pv_uuid, struct pool_devices_entry *out) TP_MUST_CHECK;
/* The pool uuid the entries of POOL record into UUID: 0; -ENOENT when
 * none records one (no entry, or entries of the first format only);
 * -EEXIST when they record two (UUID ""): then none is trusted. */
int pool_devices_pool_uuid(const char *pool, char uuid[VG_UUID_LEN + 1]) TP_MUST_CHECK;
/* The entries of VG's devices (its name, their device uuids) that record
 * no pool uuid get VG's: 0 (also when there was nothing to do), or -errno
 * (logged). pool_backup_commit calls it after every VG commit. */
int pool_devices_adopt(const struct vg *vg) TP_MUST_CHECK;

/* ---- VG metadata backups ---- */

#define POOL_BACKUP_KEEP 50u
/* The bytes a pool's backups may take (tptools.conf backup/max_size): the
 * oldest go first past it, the newest POOL_BACKUP_MIN always stay. A
 * pool of 100,000 volumes has a VG text of about 10 MB: its 50 backups
 * would take half a gigabyte. */
#define POOL_BACKUP_MAX_BYTES (64ull << 20)
#define POOL_BACKUP_MIN 3u
/* The first line of a backup a command wrote: this, then what made it. */
#define POOL_BACKUP_DESCRIPTION "# description: "

/* <config dir>/backup (caller frees), or NULL on ENOMEM. */
char *pool_backup_root(void);
/* The backup directory of the pool of uuid UUID (caller frees), or NULL
 * on ENOMEM. */
char *pool_backup_dir(const char *uuid);
/* The path of backup SEQNO in UUID's directory (caller frees). */
char *pool_backup_path(const char *uuid, uint64_t seqno);

/* Write TEXT as the backup of commit SEQNO of the pool UUID (named NAME,
 * for messages) and prune its directory to KEEP (0 = POOL_BACKUP_KEEP): 0
 * or -errno, logged; -EINVAL (not logged) for a bad uuid. */
int pool_backup_write(const char *uuid, const char *name, uint64_t seqno, const char *text,
		      size_t len, unsigned keep) TP_MUST_CHECK;

/* The host's record of VG as just committed (vg->seqno is the commit's):
 * the first layout's directory of its name emptied (pool_backup_migrate),
 * its text as vg_export writes it into the directory of its uuid, and
 * the devices-file entries of its devices completed with its uuid
 * (pool_devices_adopt). A failure is a warning (logged), never an error:
 * the commit stands. */
void pool_backup_commit(const struct vg *vg);
/* The same with VG's text as the commit wrote it (vg_commit_change): TEXT
 * of LEN bytes, NUL-terminated, not freed here. */
void pool_backup_commit_text(const struct vg *vg, const char *text, size_t len);

/* Seqnos of the backups in the directory of UUID, ascending, into a
 * malloc'd *SEQNOS (caller frees), *N entries. No directory is 0 with *N
 * = 0; -EINVAL for a bad uuid. */
int pool_backup_list(const char *uuid, uint64_t **seqnos, size_t *n) TP_MUST_CHECK;

/* Delete all but the newest KEEP backups in the directory of UUID (fewer
 * past the byte cap, and the whole texts the kept deltas apply to). */
int pool_backup_prune(const char *uuid, unsigned keep) TP_MUST_CHECK;

/* Load any backup file (tprepair --restorefile), a whole text or a delta
 * (its base beside it: every check above), into a malloc'd NUL-terminated
 * *TEXT: 0 or -errno; -EINVAL, at once, for a path that is not a regular
 * file (a FIFO is never waited on); -EUCLEAN for a delta that does not
 * give its text back, logged naming both files. */
int pool_backup_read_file(const char *file, char **text, size_t *len) TP_MUST_CHECK;
/* The same, quiet: a delta's -EUCLEAN says why in WHY (WLEN bytes). */
/* The base seqno the header of delta FILE records (its header only read,
 * nothing checked beyond its form): 1, else 0 (a whole backup, or a file
 * that is no delta). */
int pool_backup_delta_base(const char *file, uint64_t *base);
/* The seqno FILE's name says (a backup's name, <20 digits>.vg or .vgd,
 * which is its commit's: the text it holds records the same one unless
 * the file was renamed or copied under another name): 1 with it in
 * *SEQNO, else 0 (another name). */
int pool_backup_name_seqno(const char *file, uint64_t *seqno);
int pool_backup_read_why(const char *file, char **text, size_t *len, char *why, size_t wlen)
	TP_MUST_CHECK;

/* One backup file of this host, wherever it lies: the directory of a
 * pool uuid, or one of the first layout (a pool name; tpcreate also
 * moved an earlier pool's aside to NAME.TIME[.N]). Whose it is comes from
 * its text, which the caller imports again before any use. */
struct pool_backup_file {
	char *path;				/* malloc'd */
	uint64_t seqno;				/* the file name's */
	char uuid[VG_UUID_LEN + 1];		/* the pool uuid its text records; "": unreadable */
	char name[VG_NAME_MAX + 1];		/* the pool name its text records */
	char dir_uuid[VG_UUID_LEN + 1];		/* the directory's, in this layout; else "" */
	char dir_name[VG_NAME_MAX + 1];		/* the directory's, in the first layout; else "" */
};

struct pool_backup_set {
	struct pool_backup_file *f;
	size_t n;
};

/* The backups of this host (both layouts) of the pool UUID (when UUID is
 * not NULL; an unreadable file in its directory counts), or else of every
 * pool that ever had NAME (a pool uuid one of whose backups records NAME:
 * all of that pool's, whatever name each records; an unreadable file in
 * a first-layout directory named NAME counts), sorted by pool uuid, then
 * seqno; a backup found twice (the same uuid and seqno) once, the one in
 * its pool's directory. 0 (maybe none), or -errno. */
int pool_backup_find(const char *name, const char *uuid, struct pool_backup_set *s)
	TP_MUST_CHECK;
void pool_backup_set_free(struct pool_backup_set *s);
/* The highest seqno among the backups of UUID (pool_backup_find), 0: none. */
uint64_t pool_backup_newest_seqno(const char *uuid);

/* The first layout's directory <config dir>/backup/NAME: every backup in
 * it goes to the directory of the pool uuid its text records (a link and
 * an unlink: a file of that seqno there is kept, and the old one dropped
 * only when it is the same), the directory is removed once empty. A file
 * that does not say whose it is (unreadable, a damaged thin-metadata
 * copy) stays. Quiet but for one line saying what moved; never fails. */
void pool_backup_migrate(const char *name);

/* ---- damaged thin-metadata copies ---- */

#define POOL_SPARE_KEEP 3u

struct io_engine;

/* Copy AREA (the spare about to be overwritten) of the pool UUID (named
 * POOL, for messages) to a file in the directory of UUID, as above. An
 * area of zeroes (never used) is not copied: 0 with *SAVED NULL. An area
 * a kept file holds byte for byte is not copied again: 0 with that file's
 * path. An existing file is never overwritten (a taken name gets "-N").
 * Else 0 with the file's path in *SAVED (caller frees), or -errno (logged): the
 * caller must then not overwrite the area. -EINVAL for a bad uuid. */
int pool_spare_save(const char *uuid, const char *pool, uint64_t seqno, struct io_engine *area,
		    char **saved) TP_MUST_CHECK;

/* ---- pool_find.c: where the devices are ---- */

/* Read-only probe of PATH's label into *L (0 = ours, -ENOENT = not a
 * tptools device, -errno). */
int pool_read_label(const char *path, struct vg_label *l) TP_MUST_CHECK;

/* Is L, the label read at PATH, a copy (a label sector copied over, a
 * cloned device)? 1 when the devices file lists the device L names (its
 * pool and device uuid) at another path that carries the same label, or
 * lists PATH as a device of another pool whose VG the device's own VG
 * areas hold (listing it): then L says nothing about PATH. Else 0. */
int pool_label_is_copy(const char *path, const struct vg_label *l);

/* THE advice for devices cut short (shorter than their labels record),
 * into BUF: FILES (one path, or image files cut short to the same size,
 * " " between) to grow back to WANT bytes, with truncate when they are
 * image files (IMAGE), by hand when a block device; then 'tpcheck POOL'.
 * Every message that gives it (an open that cannot find the device, the
 * check's and repair's next: line) says it in these words. */
void pool_grow_back_advice(const char *pool, const char *files, uint64_t want, int image,
			   char *buf, size_t len);

/* Is PATH a device of another pool than L's (L: a label read there, or
 * the one about to be written)? 1, with that pool's uuid in OWNER, when
 * the devices file lists PATH as a device of that pool and the device's
 * own VG areas, read as that device's, hold that pool's VG listing it;
 * else 0. Nothing of another pool writes such a device. */
int pool_device_of_other(const char *path, const struct vg_label *l,
			 char owner[VG_UUID_LEN + 1]);

/* Where the VG copy on PATH (the device of the other role, by its label)
 * last saw the pool's device of role WANT: its path into HINT and its
 * device uuid into PV_UUID. 0, or -ENOENT (no label or VG copy there). */
int pool_vg_path_hint(const char *path, enum vg_role want, char hint[VG_PATH_MAX + 1],
		      char pv_uuid[VG_UUID_LEN + 1]);

/* Where this host's newest VG backup of each pool now called NAME saw its
 * first two devices (the devices file lost or damaged, no scan sees image
 * files), when at least NEED of those paths carry the labels of those
 * devices of that pool: into PATHS. 0, or -ENOENT (none fits, or two
 * pools do: neither is taken). */
int pool_backup_paths(const char *name, int need, char paths[VG_NR_ROLES][VG_PATH_MAX + 1]);

/* Add (or update) the devices-file entry of one pool device, with the
 * pool uuid of the label at PATH when it carries PV_UUID; a failure is a
 * warning (the file is a cache). */
void pool_record_device(const char *pool, enum vg_role role, const char *pv_uuid,
			const char *path);

/* Find the pool's devices: the devices file, else a label scan of block
 * devices, taking only the top of a stack (components are passed by with
 * one line). Fills PATHS[role] (malloc'd); a device seen only on
 * components (an md array not running) is -ENOENT with the array named.
 * A mirrored pool whose first metadata device is missing while its second
 * is there: 0 with PATHS[meta] NULL (it opens degraded, pool_attach.c). */
int pool_find_devices(const char *name, char *paths[VG_NR_ROLES]) TP_MUST_CHECK;
/* The first metadata device of pool NAME is not found but its data device
 * DATA is: is the pool mirrored (the VG on DATA says so: every device holds
 * a copy) with its second metadata device present? 1 yes: the pool opens
 * degraded, on that leg (pool_attach.c); 0 no. Quiet. */
int pool_meta_leg0_lost(const char *name, const char *data);

/* Data device INDEX (1.. : one tpextend --data added) of the pool
 * POOL_UUID named NAME, device uuid PV_UUID: the devices file's path for
 * that uuid, else HINT (the VG's last known path), else a label scan; the
 * devices file is put right. A copy of it elsewhere (the same device
 * uuid): REFUSE_COPIES -EBUSY, else a warning. *PATH malloc'd. -ENOENT
 * (not logged) when no device carries it; -ENOTBLK (not logged) when
 * none does but the path the devices file or HINT records for it is a
 * block device the devices filter excludes (pool_device_filtered): not
 * known to be missing, its label is not read. */
int pool_find_data_device(const char *name, const char *pool_uuid, const char *pv_uuid,
			  unsigned index, const char *hint, int refuse_copies, char **path)
	TP_MUST_CHECK;
/* The pool device of device uuid PV_UUID is not found: is the path the
 * devices file records for it, or else HINT (the VG's last known path), a
 * block device a devices/filter pattern rejects (tptools.conf(5); never
 * the test build's scan root)? 1 with that path in PATH and the pattern
 * and where it is set in WHY: tptools reads no label there, so the device
 * may well be present and is never to be called missing; else 0. */
int pool_device_filtered(const char *pv_uuid, const char *hint, char *path, size_t plen,
			 char *why, size_t wlen);
/* The VG from the copy on metadata device META alone (its label must be a
 * first metadata device's): 0 with *VG (vg_free it), or -errno. Quiet.
 * It names the pool's first data device (a VG commit that changes it
 * writes the metadata device's copy first: core/pool_commit.c). */
int pool_meta_vg(const char *meta, struct vg **vg) TP_MUST_CHECK;
/* Orphans (tptools(7) ORPHAN LABELS): devices whose label carries the
 * pool uuid of VG (the pool's current VG, read from its own devices) and
 * a device uuid VG does not name in any role: left by a change cut short
 * between the label and the VG commit (a tpextend --data, tpchange
 * --meta-mirror or --meta-replace that never committed) or between the
 * VG commit and the wipe (a tpreduce --data, a replaced leg), or a
 * device taken away whose label nothing wiped. What its own VG area
 * holds tells which: */
enum pool_orphan_kind {
	/* no copy there names it: the VG commit that would have never came */
	POOL_ORPHAN_UNCOMMITTED = 1,
	/* an older copy of the pool's VG that names it: the pool let it go */
	POOL_ORPHAN_DROPPED,
	/* a copy that names it and is not older than VG: no orphan, but a
	 * sign that the devices VG was read from are behind the pool's state
	 * (a device restored from an old image); never to be wiped */
	POOL_ORPHAN_AHEAD,
};
struct pool_orphan {
	char path[VG_PATH_MAX + 1];
	struct vg_label label;
	enum pool_orphan_kind kind;
	uint64_t own_seqno;	/* its own newest usable VG copy's seqno (0: none) */
};
/* Is PATH an orphan of VG's pool (the top of its stack, not a component)?
 * 1 with *O filled, else 0. Reads only; quiet. */
int pool_orphan_of(const char *path, const struct vg *vg, struct pool_orphan *o);
/* The orphans of VG's pool that this host can see: the devices the
 * devices file lists (for any pool name) and the block devices a label
 * scan finds, each once, into OUT (up to MAX); how many. Reads only;
 * quiet. */
unsigned pool_find_orphans(const struct vg *vg, struct pool_orphan *out, unsigned max);
/* The same for the second metadata device of a mirrored pool (role meta,
 * data_index 1; vg.h: meta1). */
int pool_find_meta_leg(const char *name, const char *pool_uuid, const char *pv_uuid,
		       const char *hint, int refuse_copies, char **path) TP_MUST_CHECK;

/* Every block device of this host a label scan looks at (lib/dev/scan.h),
 * tptools' own device-mapper devices left out: those device-mapper has
 * loaded by their device numbers, taken from its one list of devices, so
 * that none of them is opened or read (a pool with thousands of volumes
 * loaded costs a scan no more than an idle one), any other by its dm uuid.
 * Where device-mapper is absent or does not answer, the uuid alone. 0, or
 * the scan's -errno (nothing to scan: a fallback, logged as debug). */
int pool_scan_devices(struct tp_dev_list *list) TP_MUST_CHECK;

/* Copies of PATHS (other block devices whose label carries the same
 * device uuid, like LVM's duplicate PVs), found by a label scan; a
 * component of another device (pool_stack.c: an md member, a multipath
 * path, a device under a dm map) is not a copy. None: 0.
 * Some: REFUSE -EBUSY with an error naming every pair and --devices as
 * the way to pick, else a warning and 0. */
int pool_check_duplicates(const char *name, char *const paths[VG_NR_ROLES], int refuse)
	TP_MUST_CHECK;

/* Are A and B the same file or block device? */
int pool_same_device(const char *a, const char *b);
/* The same, or A and B the same name (pool_admin.h). */
int pool_same_device_named(const char *a, const char *b);

/* ---- pool_stack.c: only the top of a stack is a pool device ---- */

/* lib/dev's stack check of PATH (carrying a label of pool POOL_UUID, may
 * be NULL), with our label as the partition-disk answer: 0 the top of its
 * stack, 1 a component (*V says of what), -errno. */
int pool_stack_check(const char *path, const char *pool_uuid, struct tp_stack_verdict *v)
	TP_MUST_CHECK;
/* The one line a component gets when it is passed by: "skipping PATH:
 * WHAT; the pool is on TOP". */
void pool_stack_skip_line(const char *path, const struct tp_stack_verdict *v);
/* "WHAT; the pool is on TOP" into BUF. */
void pool_stack_describe(const struct tp_stack_verdict *v, char *buf, size_t len);
/* --devices: PATH a component is refused (-EBUSY, logged naming what
 * stacks it and what to do) unless ALLOW (a warning, 1). 0 for the top of
 * a stack; -errno when PATH cannot be probed. */
int pool_stack_refuse(const char *path, const char *pool_uuid, int allow) TP_MUST_CHECK;

/* ---- host_scrub.c: the last scrub of a pool's metadata mirror ----
 *
 * <config dir>/scrub/<pool uuid>, rewritten by the rule above (mode 0644)
 * by each scrub (tpcheck of a mirrored pool compares its legs; tprepair
 * rewrites the bad copies) and read by tpstatus: what the last one found,
 * so a leg with latent damage is never shown "in sync" because no read
 * happened to touch it. Format: '#' comments, then "KEY VALUE" lines;
 * unknown keys are passed by (a newer tptools'), a bad value makes the
 * whole file unreadable (-EUCLEAN: no record). */
struct pool_scrub_state {
	int64_t time;		/* when (seconds since the epoch) */
	uint64_t blocks;	/* blocks in use compared */
	uint64_t bad[2];	/* bad on leg I and good on the other, left after the scrub */
	uint64_t unreadable[2];	/* of those: I/O errors */
	uint64_t mismatched;	/* valid on both legs, different, left after the scrub */
	uint64_t healed[2];	/* rewritten on leg I by this scrub (tprepair) */
	/* 1: the blocks that differ make reads mix the legs, the first
	 * leg's copies of an inconsistent leg (tpcheck's fatal finding):
	 * writers refuse the pool until tprepair has run */
	uint64_t mixed;
};
/* 0, or -errno (-ENOENT: never scrubbed on this host). */
int pool_scrub_state_read(const char *pool_uuid, struct pool_scrub_state *s) TP_MUST_CHECK;
/* 0 or -errno (logged). */
int pool_scrub_state_write(const char *pool_uuid, const struct pool_scrub_state *s)
	TP_MUST_CHECK;
/* A leg was copied anew (a resync, a replace, a mirror added): what the
 * last scrub found of the legs no longer holds; the record goes. */
void pool_scrub_state_forget(const char *pool_uuid);

#endif
