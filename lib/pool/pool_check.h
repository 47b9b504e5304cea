/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_check.h - check and repair, of a pool (tpcheck POOL, tprepair
 * POOL) or of a bare thin-metadata area (tpcheck --metadata FILE,
 * tprepair --metadata IN -o OUT).
 *
 * Check: both labels, every VG metadata slot on both devices, the thin
 * metadata of the ACTIVE area (metadata/thin/check.h), and the VG against
 * the thin metadata: transaction ids (equal, or VG one ahead = an
 * interrupted transaction the next change completes: non-fatal) and the
 * thin device ids of the volumes.
 *
 * Repair: salvage the ACTIVE area into the SPARE area (metadata/thin/
 * repair.h), set the thin transaction id to the VG's, then swap active and
 * spare in ONE VG commit (pool_commit_vg). The damaged metadata stays in
 * what becomes the spare; what the spare held before (the copy an earlier
 * repair set aside) is first copied to a file in the backup dir (host.h).
 * On failure the spare's superblock is zeroed and the VG is untouched.
 * Offline only: the pool lock is taken exclusively. The repair checks
 * first: a lost or corrupt label is rewritten from the VG copy on the
 * other device (or from a backup file, RESTOREFILE, when no VG copy is
 * left), damaged VG copies are rewritten, and the thin metadata is
 * salvaged only when its check finds damage (or FORCE_SALVAGE): a clean
 * pool is left untouched.
 *
 * A bare area (pool_area.c) is opened through lib/base/io_area.h and the
 * file itself is locked: shared to read, exclusively (failing at once
 * with -EBUSY when another command holds it) to write. An output that is
 * a pool device (it carries a tptools label) is refused (-EBUSY, the
 * device left untouched) when the area written covers the label or
 * overlaps any area the label records (VG metadata, data, the active or
 * the spare thin-metadata area), unless FORCE is set.
 *
 * The results are lib/pool's own types below. Returns 0 when the work ran
 * (verdicts in the results), -errno when it could not (-ENOENT no such
 * pool, -EBUSY locked or refused, -EINVAL bad input, -ENOMEM ...). */
#ifndef TP_POOL_POOL_CHECK_H
#define TP_POOL_POOL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/pool/pool.h"

/* The worst damage found; the values are tpcheck's exit codes 0, 1, 2. */
enum pool_verdict {
	POOL_CLEAN = 0,
	POOL_NONFATAL = 1,
	POOL_FATAL = 2,
};

struct pool_finding {
	int fatal;
	char msg[1024];		/* room for a finding that names two long paths */
};

/* Problems found: all counted, the first ones kept. */
struct pool_findings {
	enum pool_verdict verdict;
	size_t nr_fatal, nr_nonfatal;	/* all problems */
	struct pool_finding *kept;
	size_t nr_kept;
};

/* The thin metadata's superblock and space maps, as checked. */
struct pool_thin_summary {
	int sb_ok;			/* superblock readable */
	uint64_t transaction_id;
	uint32_t time;
	uint32_t data_block_size;	/* sectors */
	uint64_t nr_meta_blocks, meta_used;
	uint64_t nr_data_blocks, data_used;
	uint64_t nr_devices, nr_mappings;
	uint64_t metadata_snap;
};

enum pool_check_flags {
	POOL_CHECK_FAST = 1 << 0,	/* bounded time: no mapping walk (tpcheck --fast) */
	/* tpcheck --scrub: a mirrored pool's legs compared; an active pool's
	 * by the kernel (its raid1's check), an inactive one's by the full
	 * check (which compares them anyway) */
	POOL_CHECK_SCRUB = 1 << 1,
};

/* What comparing the legs of a mirrored pool's thin metadata found. */
struct pool_scrub_result {
	int ran;			/* the legs were compared */
	int live;			/* by the kernel (an active pool) */
	int integrity;			/* live: the legs have dm-integrity */
	uint64_t blocks;		/* offline: blocks in use compared; live: sectors of a leg */
	uint64_t bad[2];		/* offline: bad on leg I, good on the other */
	uint64_t healed[2];		/* rewritten on leg I (live: corrected by the kernel) */
	uint64_t mismatched;		/* valid on both legs but different */
};

struct pool_check_params {
	const char *pool;		/* a pool name, or NULL with METADATA */
	const char *devices;		/* with POOL: NULL or "DATA,META" */
	const char *metadata;		/* a bare area: file or device */
	uint64_t offset, size;		/* of the area in METADATA; size 0 = to the end */
	unsigned flags;			/* POOL_CHECK_* */
	/* Called now and then during the mapping walk (may be NULL). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct pool_check_result {
	struct pool_findings pool;	/* pool level (none for a bare area) */
	struct pool_findings thin;	/* the thin metadata */
	struct pool_thin_summary sum;
	struct pool_scrub_result scrub;	/* mirrored pools */
	char next[2048];		/* the command that fixes what was found, or "" */
	/* the VG metadata is of a newer format than this tptools reads: not
	 * checked (the verdict FATAL, tpcheck's exit 2, but no damage) */
	int newer_format;
	/* no damage, a note (the verdict stays CLEAN if nothing else is
	 * found): VG copies in an older slot of a newer format, earlier
	 * commits a newer tptools wrote; how many, the first one said */
	unsigned nr_newer_copies;
	char newer_copy[1024];
};

int pool_check_run(const struct pool_check_params *p, struct pool_check_result *res)
	TP_MUST_CHECK;
void pool_check_result_free(struct pool_check_result *res);

struct pool_repair_params {
	const char *pool;		/* a pool name, or NULL with METADATA */
	const char *devices;		/* with POOL: NULL or "DATA,META" */
	const char *metadata;		/* a bare area to read (never written) */
	uint64_t offset, size;		/* of the area in METADATA; size 0 = to the end */
	const char *output;		/* with METADATA: where the repair goes */
	int force;			/* write OUTPUT even if it carries a tptools label */
	int set_transaction_id;
	uint64_t transaction_id;
	uint32_t data_block_size;	/* sectors; 0 = from the metadata (or the VG) */
	uint64_t nr_data_blocks;	/* 0 = from the metadata (or the VG) */
	const char *restorefile;	/* with POOL: a VG backup to restore labels and VG from */
	int force_salvage;		/* with POOL: salvage even a clean pool */
	/* Mappings written so far (total 0: not known); NULL: none. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct pool_repair_lost {
	int whole_device;	/* the device itself is lost */
	uint64_t dev_id;	/* whole_device: first id of the lost id range */
	uint64_t begin, end;	/* lost virtual blocks [begin, end), or ids */
	uint64_t block;		/* the bad node, UINT64_MAX = none */
	char what[64];		/* what was wrong ("bad checksum", ...) */
};

/* A volume of the repaired pool's VG: its thin device id and name, so that
 * losses can be reported by name. */
struct pool_repair_volume {
	uint64_t dev_id;
	char name[POOL_NAME_MAX + 1];
};

struct pool_repair_result {
	int scanned;		/* roots found by scanning every block */
	uint64_t transaction_id;	/* written */
	uint64_t nr_devices, nr_mappings;	/* written */
	struct pool_repair_lost *lost;
	size_t nr_lost;
	int snapshot_dropped;	/* the input held a metadata snapshot */
	/* the live device trees were lost and those salvaged are the metadata
	 * snapshot's, of this transaction: its thin devices read what they
	 * held then (tprepair exits 4) */
	int snapshot_trees;
	uint64_t snapshot_transaction_id;
	/* data chunks the damaged metadata counted in use that the salvage
	 * maps no more (roots found by scanning: older trees, or lost ones) */
	uint64_t unmapped_in_use;
	int details_rebuilt;	/* no details tree: made up from the mapping tree */
	/* A pool's repair: what was done (all 0: the pool was clean, nothing
	 * was written). */
	unsigned relabeled;	/* bit per role (0 data, 1 meta): label rewritten */
	/* added data devices whose lost label and VG area were rewritten from
	 * the VG: "data device N (PATH)", ", " between, or "" */
	char xrelabeled[1024];
	int vg_restored;	/* the VG came from the restore file */
	int vg_rewritten;	/* stale or damaged VG copies rewritten */
	int salvaged;		/* thin metadata salvaged into the spare, areas swapped */
	/* nothing of it could be salvaged, or it was another pool's: new,
	 * empty thin metadata instead, every volume lost */
	int started_anew;
	unsigned strays_deleted;	/* thin devices that belonged to no volume */
	/* mirrored thin metadata: the stale leg resynced onto its own device
	 * (its path), or "" */
	char meta_resynced[4096];
	/* mirrored thin metadata: blocks in use bad on leg I and good on the
	 * other, rewritten from it (the scrub before anything else) */
	uint64_t meta_healed[2];
	char meta_leg[2][4096];	/* the legs' paths, when mirrored */
	/* 1 + the leg whose thin metadata was consistent alone while the
	 * other's was not: the blocks that validated on both legs but
	 * differed were taken from it; 0: none was (the first leg's) */
	int meta_source;
	/* mirrored: the active area of leg META_KEPT_LEG kept in this file
	 * before blocks valid on both legs were overwritten on it, or "" */
	char meta_kept[4096];
	unsigned meta_kept_leg;
	/* orphan labels of the pool (tptools(7) ORPHAN LABELS: a device a
	 * change cut short left labelled while the VG does not name it),
	 * wiped now with their VG areas: how many, their paths (", ") */
	unsigned orphans_wiped;
	char orphans[4096];
	/* labels that lagged behind the VG (an older label: pool name, size,
	 * areas), rewritten from it */
	unsigned labels_synced;
	/* devices whose devices-file entry was missing or damaged, recorded */
	unsigned devices_recorded;
	/* an interrupted transaction completed: the VG's transaction id, or 0 */
	uint64_t txn_completed;
	int spare_written;	/* a salvage that did not finish wrote the spare area
				 * (its superblock zeroed; the pool still uses the active) */
	char saved[4096];	/* where the spare's earlier content was kept, or "" */
	char device[2][4096];	/* the paths of the data and metadata devices */
	/* a restore forced past a backup that contradicts the devices in a
	 * way that changes what volumes read (another pool's, another chunk
	 * size, a smaller data area): the contradiction, and the volumes that
	 * now read something else than before the repair (", "), how many */
	char reread_why[1024];
	char reread[4096];
	unsigned nr_reread;
	/* what is left that tprepair does not repair (a volume whose thin
	 * device was lost, a missing mirror leg or data device), as the
	 * command that does: what tpcheck's next: line then says; "" none */
	char next[2048];
	struct pool_repair_volume *volumes;	/* a pool's salvage: the VG's volumes */
	size_t nr_volumes;
};

int pool_repair_run(const struct pool_repair_params *p, struct pool_repair_result *res)
	TP_MUST_CHECK;
void pool_repair_result_free(struct pool_repair_result *res);

/* tprepair --list-backups (pool_backups.c): the VG metadata backups this
 * host keeps (<config dir>/backup/POOL-UUID/SEQNO.vg, one per commit, the
 * newest 50 of each pool; and the first layout's backup/NAME/SEQNO.vg) of
 * every pool that had the name POOL, each pool's oldest first, read from
 * the files alone; which pool the devices are comes from the devices
 * file and the labels of the devices it lists (read-only; no lock taken,
 * nothing written; a device that is gone is no error). A file that does
 * not read as VG metadata is listed with the reason. */
struct pool_backup_entry {
	char path[4096];
	/* the commit's: the one its text records (unreadable: its file
	 * name's); a readable file whose name says another one (renamed or
	 * copied: suspect) has PROBLEM say so */
	uint64_t seqno;
	int64_t mtime;			/* when the file was written (unix seconds) */
	int readable;			/* the text imports as VG metadata; then: */
	int newer_format;		/* not readable: a newer tptools wrote it */
	uint64_t transaction_id;
	unsigned nr_volumes, nr_receives;	/* volumes, unfinished receives */
	char pool[POOL_NAME_MAX + 1];	/* the pool name the text records */
	/* the pool uuid the text records (unreadable: its directory's, or "") */
	char uuid[POOL_UUID_LEN + 1];
	int other_pool;			/* not the pool the devices are (when known) */
	int first_layout;		/* in a directory of the first layout (a name's) */
	char problem[256];		/* why not readable, or "" */
	char description[1100];		/* what the file says made it ("after '...'"), or "" */
	uint64_t delta_base;		/* a delta (SEQNO.vgd): the seqno of its whole base; 0 */
};

struct pool_backup_listing {
	char dir[4096];			/* the backup directory's root */
	char pool[POOL_NAME_MAX + 1];	/* the name listed */
	/* the pool the devices of POOL are, "" when nothing here says (no
	 * devices-file entry, or entries of two pools), and what says it */
	char uuid[POOL_UUID_LEN + 1];
	char uuid_from[4200];
	unsigned nr_pools;		/* the pools (uuids) listed */
	int current_listed;		/* UUID's own backups are among them */
	/* one pool after another (the pool the devices are last; the others
	 * by their newest file), each oldest first */
	struct pool_backup_entry *e;
	size_t n;
};

/* 0 (at least one backup), -ENOENT when there is none of a pool that had
 * the name (logged, naming POOL and the directory), -EINVAL for a bad
 * pool name (logged), -ENOMEM, or a directory's read error (logged). Free
 * with pool_backup_listing_free. */
int pool_backup_listing(const char *pool, struct pool_backup_listing *l) TP_MUST_CHECK;
void pool_backup_listing_free(struct pool_backup_listing *l);

#endif
