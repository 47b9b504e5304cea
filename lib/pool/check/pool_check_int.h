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
#include "lib/pool/pool_check.h"
#include "metadata/thin/check.h"
#include "metadata/thin/repair.h"

/* DEVICES: NULL or "DATA,META" (the --devices option). THIN receives the
 * thin metadata check (zeroed if the area could not be found). NEXT (LEN
 * bytes) gets the command that fixes what was found, or "". */
int pool_check(const char *name, const char *devices, const struct thin_check_opts *opts,
	       struct pool_check_report *rep, struct thin_check_report *thin, char *next,
	       size_t len) TP_MUST_CHECK;
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

/* What pool_relabel found to write, written by pool_relabel_commit. */
struct pool_relabel_plan {
	unsigned labels;	/* bit per role: P->pv[role].label is to be written */
	int restore;		/* P->vg is the backup's, to be committed over every copy */
	int rewrite;		/* stale or damaged VG copies: one commit rewrites them */
	int forced;		/* the backup does not match the thin metadata (--force) */
};

/* pool_relabel.c, tprepair's first stage; it writes NOTHING. The labels P
 * lacks (pool_attach with a report left P->pv[role].io NULL) are made in
 * memory from the VG on the other device, or from RESTOREFILE when given,
 * after every check (device sizes, uuids, and a backup's match with the
 * thin metadata: pool_backup_matches; FORCE accepts a backup that does
 * not match). P->pv gets the opened devices with those labels, P->vg the
 * VG to use: the devices' own, or the backup's (its seqno above any on
 * the devices and any backup's, so no backup file is overwritten). PLAN
 * says what is to be written. DEVICES "DATA,META": the paths P was
 * attached with (needed when a label is missing). 0 with an empty plan
 * when P is whole and RESTOREFILE NULL. -ENODATA (logged, with the
 * command to run) when no VG copy is left and no backup given; -ENOSPC
 * or -EBUSY (logged) for a device that fails the size or uuid check,
 * -EUCLEAN (logged, naming the backup that matches, if any) for a backup
 * that is not the pool's or does not match its thin metadata. */
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

/* The command that fixes what a check of attached P found, into BUF,
 * the most pressing first: tprepair for a lost label (from the other
 * device's VG copy), with --restorefile NEWEST-BACKUP when no VG copy is
 * left; the device to attach when a data device is missing; tprepair for
 * damaged thin metadata (THIN_BAD 1; 2: only thin devices that belong to
 * no volume, which tprepair deletes without a salvage); tvremove of the
 * volumes whose thin device was lost (REP->lost); tpchange --meta-replace
 * for a missing mirror leg, tprepair for a stale one; tprepair for
 * damaged VG copies (VG_BAD) or orphan labels (REP->orphan); "" when
 * there is nothing to fix. REP may be NULL (no such findings).
 * GIVEN: the --devices of the check (repeated in the advice); PATHS: the
 * device paths used. tprepair says the same of what it cannot fix. */
void pool_repair_advice(struct pool *p, const char *given, const char *paths, int vg_bad,
			int thin_bad, const struct pool_check_report *rep, char *buf, size_t len);
/* The orphan labels of attached P as findings in REP (pool_check.c). */
void pool_check_orphans(struct pool *p, struct pool_check_report *rep);
/* The first data device of P that attach could not find (check and
 * repair: a finding), as "data device N (device uuid U, last seen at
 * PATH)" into BUF: 1, or 0 when every data device is there. */
int pool_missing_data(const struct pool *p, char *buf, size_t len);

/* pool_backup_match.c: which VG backup fits the thin metadata on a
 * metadata device. Does VG match META: the thin superblock of the area VG
 * makes active holds VG's transaction id? 1 yes, 0 no; *SB_TID gets the
 * superblock's (UINT64_MAX: none readable). */
int pool_backup_matches(const struct vg *vg, struct io_engine *meta, uint64_t *sb_tid);

struct pool_backup_choice {
	uint64_t match, match_tid;	/* the newest matching backup's seqno (0: none) */
	uint64_t newest, newest_tid;	/* the newest backup of the pool (0: none) */
	size_t nr_backups;
	char thin[160];			/* what the areas hold, in words (with NEWEST) */
};

/* Look through POOL's backups (of pool uuid UUID unless NULL or "") for
 * the newest that matches META: 0 with *C filled, or -errno. */
int pool_backup_pick(const char *pool, const char *uuid, struct io_engine *meta,
		     struct pool_backup_choice *c) TP_MUST_CHECK;

/* The command to run for C, in words, into BUF: restore the matching
 * backup (saying why not the newest), or say none matches and what to
 * do. DEVICES: "DATA,META" as the command wants them. */
void pool_backup_advice(const char *pool, const struct pool_backup_choice *c,
			const char *devices, char *buf, size_t len);

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

#endif
