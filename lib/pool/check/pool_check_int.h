/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_check_int.h - lib/pool internals of check and repair: the pool
 * level in the thin metadata checker's and salvager's own types, and the
 * bare-area entry points (pool_area.c). Not for tools; pool_check.h is
 * what they call. */
#ifndef TP_POOL_POOL_CHECK_INT_H
#define TP_POOL_POOL_CHECK_INT_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "lib/base/lock.h"
#include "lib/pool/core/core.h"
#include "lib/pool/mirror/mirror.h"
#include "lib/pool/pool_check.h"
#include "metadata/thin/check.h"
#include "metadata/thin/repair.h"

/* DEVICES: NULL or "DATA,META" (the --devices option). THIN receives the
 * thin metadata check (zeroed if the area could not be found). NEXT (LEN
 * bytes) gets the command that fixes what was found, or "". */
int pool_check(const char *name, const char *devices, const struct thin_check_opts *opts,
	       struct pool_check_report *rep, struct thin_check_report *thin, char *next,
	       size_t len) TP_MUST_CHECK;
/* tpcheck --scrub: an active mirrored pool's legs compared by the kernel
 * (core.h pool_meta_scrub_live), the findings into REP and OUT; an
 * inactive pool is checked as by pool_check (*LIVE 0, nothing done). */
int pool_check_scrub_live(const char *name, const char *devices, struct pool_check_report *rep,
			  struct pool_scrub_result *out, int *live) TP_MUST_CHECK;
void pool_check_report_free(struct pool_check_report *rep);

struct pool;
struct vg;

/* The thin-metadata part of pool_check on an attached pool with its VG:
 * the active area and the VG against it (transaction ids, volumes). */
int pool_check_attached(struct pool *p, const struct thin_check_opts *opts,
			struct pool_check_report *rep, struct thin_check_report *thin)
	TP_MUST_CHECK;

/* Check first; then labels and VG areas (pool_relabel), a VG rewrite, or
 * the salvage of the thin metadata into the spare area, as needed (or
 * forced). OPTS as for thin_repair_io (transaction id and data sizes come
 * from the VG when not given). RES gets what was done (the caller adds
 * the salvage report REP). */
int pool_repair(const struct pool_repair_params *pp, const struct thin_repair_opts *opts,
		struct thin_repair_report *rep, struct pool_repair_result *res) TP_MUST_CHECK;

/* Which pool a pool's devices are, as far as anything left says: the
 * pool uuid of a surviving label, of the VG copies, or of the devices
 * file's entries (by the devices' paths, else by the pool's name). */
struct pool_identity {
	char uuid[VG_UUID_LEN + 1];	/* "": nothing says (or two things disagree) */
	char from[2 * VG_PATH_MAX + 160];	/* what says it ("the label of PATH", ...) */
	/* each role's device uuid (its label's, else the devices file's entry
	 * for its path; "": not known) and that path */
	char pv_uuid[VG_NR_ROLES][VG_UUID_LEN + 1];
	char pv_path[VG_NR_ROLES][VG_PATH_MAX + 1];
};

/* pool_backup_match.c: how a VG backup agrees with the thin metadata on a
 * metadata device. The contradictions: */
enum {
	POOL_FIT_UUID = 1 << 0,		/* another pool's (ID's uuid is not its) */
	POOL_FIT_NO_SB = 1 << 1,	/* no readable superblock in the area it makes active */
	POOL_FIT_CHUNK = 1 << 2,	/* its chunk is not the data block size */
	POOL_FIT_BLOCKS = 1 << 3,	/* more data blocks than its data area's chunks */
	POOL_FIT_TID = 1 << 4,		/* another transaction id */
	POOL_FIT_IDS = 1 << 5,		/* thin devices it lists are missing, or the thin
					 * metadata holds ones it handed out and lists as
					 * no volume (ids at or above its next id are a
					 * cut receive's strays, not counted) */
	POOL_FIT_DEVICE = 1 << 6,	/* it names another device uuid for a device
					 * than ID's (its label's, or the devices file's
					 * entry for its path) */
};
/* Restored anyway, these make volumes read something else than before. */
#define POOL_FIT_REINTERPRETS (POOL_FIT_UUID | POOL_FIT_CHUNK | POOL_FIT_BLOCKS)

struct pool_backup_fit {
	unsigned bad;			/* POOL_FIT_*; 0: it agrees */
	int sb_read;			/* a superblock was read; then: */
	uint64_t tid;
	uint32_t chunk;			/* sectors */
	uint64_t nr_blocks;
	int ids_read;			/* the device details were read */
	unsigned nr_missing, nr_unlisted, nr_strays;
	char why[1024];			/* every contradiction, in words, "; " between */
};

/* Check VG (a backup) against the thin metadata on META and against ID
 * (NULL or an empty uuid: unknown), quietly: 1 agrees, 0 not; *F says
 * how. */
int pool_backup_fit(const struct vg *vg, struct io_engine *meta, const struct pool_identity *id,
		    struct pool_backup_fit *f);

struct pool_backup_choice {
	int uuid_known;			/* the pick was among ID's backups alone */
	size_t nr_backups;		/* the candidates (files) */
	unsigned nr_pools;		/* the pools (uuids) they belong to */
	unsigned nr_fitting;		/* pools with a backup that agrees */
	int ambiguous;			/* uuid unknown and two pools agree: no match */
	char match[4096];		/* the newest backup that agrees; then: */
	uint64_t match_seqno, match_tid;	/* seqno 0: none */
	char match_uuid[VG_UUID_LEN + 1];
	char other[4096];		/* ambiguous: the second pool's */
	char other_uuid[VG_UUID_LEN + 1];
	char newest[4096];		/* uuid known: its newest readable backup, or "" */
	uint64_t newest_seqno, newest_tid;
	char newest_uuid[VG_UUID_LEN + 1];
	struct pool_backup_fit newest_fit;
};

/* The backup to restore pool POOL from, for the thin metadata on META:
 * with ID's uuid known, the newest of that pool's backups (whatever name
 * each records) that agrees; else, among the backups of every pool that
 * had the name POOL, the newest that agrees of the one pool whose backups
 * do (two such pools: none, C->ambiguous). 0 with *C filled, or -errno. */
int pool_backup_pick(const char *pool, const struct pool_identity *id, struct io_engine *meta,
		     struct pool_backup_choice *c) TP_MUST_CHECK;

/* The command to run for C, in words, into BUF: restore the backup that
 * agrees (saying why not the newest), or say none does (what contradicts)
 * and what to do; a forced restore is offered only of the pool's own
 * newest backup, and only when its volumes keep their meaning. DEVICES:
 * "DATA,META" as the command wants them. */
void pool_backup_advice(const char *pool, const struct pool_identity *id,
			const struct pool_backup_choice *c, const char *devices, char *buf,
			size_t len);

/* What pool_relabel found to write, written by pool_relabel_commit. */
struct pool_relabel_plan {
	unsigned labels;	/* bit per role: P->pv[role].label is to be written */
	int restore;		/* P->vg is the backup's, to be committed over every copy */
	int rewrite;		/* stale or damaged VG copies: one commit rewrites them */
	int forced;		/* the backup does not match the thin metadata (--force) */
	struct pool_backup_fit fit;	/* forced: how it does not */
	struct pool_identity id;	/* which pool the devices are, as far as known */
	/* --force past names that the pool's newer backup gives other
	 * volumes (swapped since): those names, ", " between */
	char swapped[1024];
	unsigned nr_swapped;
	/* bit per added data device I (1..): its label and VG area are to be
	 * written (pool_relabel_xdata) */
	unsigned xlabels;
};

/* pool_relabel.c, tprepair's first stage; it writes NOTHING. The labels P
 * lacks (pool_attach with a report left P->pv[role].io NULL) are made in
 * memory from the VG on the other device, or from RESTOREFILE when given,
 * after every check (device sizes, uuids, and a backup's agreement with
 * the pool the devices are and the thin metadata: pool_backup_fit; FORCE
 * accepts one that does not agree, PLAN->fit saying how). P->pv gets the
 * opened devices with those labels, P->vg the
 * VG to use: the devices' own, or the backup's (its seqno above any on
 * the devices and any backup's, so no backup file is overwritten). PLAN
 * says what is to be written. DEVICES "DATA,META": the paths P was
 * attached with (needed when a label is missing). 0 with an empty plan
 * when P is whole and RESTOREFILE NULL. -ENODATA (logged, with the
 * command to run) when no VG copy is left and no backup given; -ENOSPC
 * or -EBUSY (logged) for a device that fails the size or uuid check or
 * carries another signature, -EUCLEAN (logged: what contradicts, and the
 * backup that agrees, if any) for a backup that is not the pool's or
 * does not agree with its thin metadata. */
int pool_relabel(struct pool *p, const char *devices, const char *restorefile, int force,
		 struct pool_relabel_plan *plan) TP_MUST_CHECK;

/* Write what PLAN holds: its labels, then NEXT (a copy of P->vg, maybe
 * changed by the caller: the salvage's swap of the areas; consumed) as
 * the VG; NULL with a plan of labels only. A restore is committed twice:
 * one commit fills one slot on each device, the second the other slot.
 * RES gets what was written, also on failure. */
int pool_relabel_commit(struct pool *p, const struct pool_relabel_plan *plan, struct vg *next,
			struct pool_repair_result *res) TP_MUST_CHECK;

/* "DATA,META" as the devices file lists POOL's devices (malloc'd), when
 * one of them has lost its label (the label scan cannot find it then);
 * else NULL. For check and repair without --devices. */
char *pool_devices_from_file(const char *name);

/* Mirrored metadata whose legs differ in blocks that validate on both:
 * each leg's thin metadata checked alone (OPTS' --fast kept). The leg
 * whose check is not fatal while the other's is (0 or 1; with THIN, that
 * report, its scrub kept, replaces THIN's), else -1. */
/* P's VG metadata lags behind its thin metadata (at THIN_TID): when this
 * host's backup of the pool that agrees with the thin metadata is newer
 * than the VG on the devices, the restore of it in words into BUF (1);
 * else the choice between a restore from elsewhere and the forced salvage
 * (0). PATHS: "DATA,META" as given or listed. */
int pool_vg_lag_advice(struct pool *p, const char *paths, uint64_t thin_tid, char *buf,
		       size_t len);

int pool_meta_source_leg(struct pool *p, const struct thin_check_opts *opts,
			 struct thin_check_report *thin);

/* The command that fixes what a check of attached P found, into BUF,
 * the most pressing first: tprepair for a lost label (from the other
 * device's VG copy), with --restorefile NEWEST-BACKUP when no VG copy is
 * left; the device to attach when a data device is missing; tprepair for
 * damaged thin metadata (THIN_BAD 1; 2: only thin devices that belong to
 * no volume, which tprepair deletes without a salvage; 3: only a mirror
 * leg's bad copies, which tprepair rewrites from the other leg); tvremove of the
 * volumes whose thin device was lost (REP->lost); tpchange --meta-replace
 * for a missing mirror leg, tprepair for a stale one; tprepair for
 * damaged VG copies (VG_BAD) or orphan labels (REP->orphan); "" when
 * there is nothing to fix. REP may be NULL (no such findings).
 * GIVEN: the --devices of the check (repeated in the advice); PATHS: the
 * device paths used. tprepair says the same of what it cannot fix.
 * Returns 1 when the advice is tprepair's rewrite of the damaged VG
 * copies (tpcheck puts a newer host backup's restore before it), else 0. */
int pool_repair_advice(struct pool *p, const char *given, const char *paths, int vg_bad,
		       int thin_bad, const struct pool_check_report *rep, char *buf, size_t len);
/* The first data device of P that attach could not find (check and
 * repair: a finding), as "data device N (device uuid U, last seen at
 * PATH)" into BUF: 1, or 0 when every data device is there. */
int pool_missing_data(const struct pool *p, char *buf, size_t len);
/* tprepair: every added data device of P whose label is lost at the
 * path every copy of its place names (pool_relabel.c: xdata_label_lost)
 * gets, in memory, its label made from the VG and its slot in P
 * (claimed); *MASK bit I set for each, written by pool_relabel_commit
 * (PLAN->xlabels) with its VG area. 0 or -errno (logged). */
int pool_relabel_xdata(struct pool *p, unsigned *mask);

/* A bare thin-metadata area of a path, opened and locked (pool_area.c). */
struct pool_area {
	struct io_engine *io;
	struct tp_lock *lock;
};

/* Open [OFFSET, OFFSET + SIZE) of PATH read-only under a shared lock on
 * PATH. */
int pool_area_open_read(const char *path, uint64_t offset, uint64_t size, struct pool_area *a)
	TP_MUST_CHECK;
/* Open it for writing (IO_* flags IO_FLAGS) under an exclusive lock
 * (-EBUSY at once if another command holds one); refused with -EBUSY,
 * nothing written, when the area covers a tptools label, overlaps an area
 * a pool device's label records as the pool's (its VG metadata area, the
 * data area, the active or the spare thin-metadata area), or covers
 * another signature libblkid knows (lib/dev/probe.h: a filesystem, a RAID
 * or LVM member, ...) and !FORCE.
 * WHAT_ELSE completes the message: the caller's way of aiming elsewhere. */
int pool_area_open_write(const char *path, unsigned io_flags, uint64_t offset, uint64_t size,
			 int force, const char *what_else, struct pool_area *a) TP_MUST_CHECK;
void pool_area_close(struct pool_area *a);

int pool_area_check(const char *path, uint64_t offset, uint64_t size,
		    const struct thin_check_opts *opts, struct thin_check_report *rep)
	TP_MUST_CHECK;
int pool_area_repair(const struct pool_repair_params *p, const struct thin_repair_opts *opts,
		     struct thin_repair_report *rep) TP_MUST_CHECK;

/* The VG from the devices attach took (they kept their label): 0 and
 * *OUT (caller frees), or -errno. */
int pool_vg_from_survivors(struct pool *p, struct vg **out);
/* Append volume I of VG to REP's lost list ("POOL/VOL ..."), counted. */
void pool_lost_add(struct pool_check_report *rep, const struct vg *vg, unsigned i);
/* Order REP's lost list so that every snapshot comes before its origin
 * (one 'tvremove' of the list then removes them all). */
void pool_lost_order(struct pool_check_report *rep, const struct vg *vg);

#endif
