/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_volume.h - the volume commands' engine (lib/pool/volume, its removal in
 * lib/pool/removal): create, snapshot, remove, wipe, resize, rename,
 * rollback, read-only
 * (lib/pool's public face; pool.h has what every command shares: the
 * open pool, its names and types, activation and status). Errors as in
 * pool.h. */
#ifndef TP_POOL_VOLUME_H
#define TP_POOL_VOLUME_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/progress.h"
#include "lib/pool/pool.h"

/* A new volume's settings, recorded in the commit that makes it (one VG
 * commit and one thin transaction: no state in which the volume exists
 * without them): */
#define POOL_VOLUME_READONLY 1u		/* read-only from the start */
#define POOL_VOLUME_NO_AUTOACTIVATE 2u	/* activate n (tpactivate --all skips it) */
/* Create thin volume NAME of SIZE bytes (rounded up to 512) with FLAGS
 * (POOL_VOLUME_NO_AUTOACTIVATE; 0: none). *OVER is set to the sum of all
 * virtual sizes when it exceeds the pool's data size (over-provisioning),
 * else 0. */
int pool_volume_create_as(struct pool *p, const char *name, uint64_t size, unsigned flags,
			  uint64_t *over) TP_MUST_CHECK;
/* Snapshot ORIGIN as NAME (same virtual size; snapshots of snapshots fine)
 * with FLAGS (POOL_VOLUME_READONLY, POOL_VOLUME_NO_AUTOACTIVATE; 1 is
 * read-only, as before). */
int pool_volume_snapshot(struct pool *p, const char *origin, const char *name, unsigned flags)
	TP_MUST_CHECK;
/* Remove volume NAME, FN (may be NULL) hearing the chunks given back of
 * the total the volume mapped. A removal is bounded steps, each durable: the
 * volume first becomes a removal under way (no volume any more, its name
 * still taken), then its mappings go a step at a time (offline 65536 per
 * thin transaction; live discards of 16 chunks through its device), its
 * emptied thin device last. A cut one is finished by the next tvremove of
 * NAME or by the next writer's open. 0 removed (or finished: by this
 * call, or by this command's open); 1 when NAME is gone already because
 * the pool's last change removed it (a removal cut after its last VG
 * commit, which this command's open completed, or one run twice); -errno
 * (-ENOENT, logged: no such volume). */
int pool_volume_remove_progress(struct pool *p, const char *name, tp_progress_fn *fn,
				void *ctx) TP_MUST_CHECK;
/* The removal after tvremove --wipe zeroed the volume's chunks: the same,
 * and the removal's record in the VG says it was wiped first. */
int pool_volume_remove_wiped(struct pool *p, const char *name, tp_progress_fn *fn,
			     void *ctx) TP_MUST_CHECK;
/* Whether NAME is no volume of P because its removal began (it is under
 * way, this command's open finished it, or the pool's last change removed
 * it), and how it began, from its record: for tvremove --wipe run again,
 * which must not claim a wipe that never ran. */
enum pool_volume_removal {
	POOL_VOLUME_NOT_REMOVING = 0,	/* a volume, or no removal of NAME */
	POOL_VOLUME_REMOVING_WIPED,	/* tvremove --wipe zeroed its chunks first */
	POOL_VOLUME_REMOVING_UNWIPED,	/* it began without a wipe: nothing zeroed */
	POOL_VOLUME_REMOVING_EMPTY,	/* removed in one change: it had no chunks */
};
enum pool_volume_removal pool_volume_removal_begun(struct pool *p, const char *name);
/* Say each removal under way in P (a tvremove cut short) as tpstatus
 * does, a warning each, without its mapped size (the VG alone is read),
 * for a command that only shows the pool (tpchange POOL): a reader's
 * open finishes none (lib/pool/removal/pool_removal.c). How many. */
unsigned pool_volume_removals_say(const struct pool *p);

/* ---- the trash (lib/pool/removal/pool_trash.c) ----
 * With the pool's trash retention on (tpchange --trash-retention), a
 * removed volume goes to the trash in one change: no volume any more, its
 * name free, its thin device, data and sharing kept until it is purged
 * (expired, by tpmonitor or by tvremove --purge) or brought back. */
struct pool_trash_entry {
	char name[POOL_NAME_MAX + 1];
	uint32_t dev_id;
	uint64_t size;		/* virtual size, bytes */
	int64_t trashed_at;	/* unix seconds */
	int64_t expires;	/* unix seconds; INT64_MAX: the retention is off */
	int purging;		/* its purge began: it cannot come back */
	int read_only;
	uint64_t mapped;	/* bytes its thin device maps */
	uint64_t exclusive;	/* bytes only it maps (with sharing; else 0) */
};
/* How many entries P's trash holds. */
unsigned pool_volume_trash_count(const struct pool *p);
/* How long P keeps a removed volume in its trash, in seconds (0: off). */
uint64_t pool_volume_trash_retention(const struct pool *p);
/* tpchange --trash-retention: SECONDS (0: off) as the pool's retention,
 * one VG commit (staged with the other settings, pool_settings_begin).
 * Entries already in the trash expire by the retention in force. */
int pool_volume_set_trash_retention(struct pool *p, uint64_t seconds) TP_MUST_CHECK;
/* Remove volume NAME: into the trash when the pool's retention is on and
 * NOW is 0 (*TRASHED set to 1), else at once as
 * pool_volume_remove_progress (*TRASHED 0). Returns as that does; 1 with
 * *TRASHED 1 when the pool's last change moved NAME to the trash already
 * (a tvremove cut after its change, run again). */
int pool_volume_remove_or_trash(struct pool *p, const char *name, int now, int wiped,
				int *trashed, tp_progress_fn *fn, void *ctx) TP_MUST_CHECK;
/* The snapshots of volume ORIGIN in P's VG (the volumes that name it
 * their origin; ORIGIN NULL: that name any): how many, and their names
 * as "a, b" in BUF of LEN bytes, cut short where they do not fit. Reads
 * no device: one pass over the VG the open read. */
unsigned pool_volume_snapshots(const struct pool *p, const char *origin, char *buf, size_t len);

/* Is NAME only a trash entry of P: 1 when no volume and no removal under
 * way has that name but the trash holds an entry of it; 2 when none does
 * but a purge of NAME cut at its end is finished (by this command's open,
 * or the pool's last change); else 0. tvremove --now and --wipe ask
 * before the checks of a cut removal, which would otherwise take the
 * trash's entry for their own finished work. */
int pool_volume_trashed_only(struct pool *p, const char *name);
/* Bring back the newest trash entry named NAME as AS (NAME when NULL):
 * 0, or 1 when the pool's last change brought it back already (an undo
 * cut after its change, run again). */
int pool_volume_untrash(struct pool *p, const char *name, const char *as) TP_MUST_CHECK;
/* Purge every trash entry named NAME (NULL: the whole trash); *NR gets
 * how many went, FN hears each one's mappings given back. 1 when NAME
 * names none because a purge of it cut at its end is finished (by this
 * command's open, or the pool's last change); -ENOENT (logged) when NAME
 * names none otherwise. */
int pool_volume_trash_purge(struct pool *p, const char *name, unsigned *nr,
			    tp_progress_fn *fn, void *ctx) TP_MUST_CHECK;
/* The trash, the oldest first (see struct pool_trash_entry); free *OUT. */
int pool_volume_trash_list(struct pool *p, int sharing, struct pool_trash_entry **out,
			   unsigned *nr) TP_MUST_CHECK;
/* tpmonitor: purge the entries whose expiry is at or before NOW; then,
 * while the data area's use is at or above THRESHOLD percent (0: no
 * pressure purge), the oldest entries. LOG_FN hears each purge. 0 or
 * -errno (the first failure; the purges before it stay). *NR how many. */
typedef void pool_trash_purged_fn(void *ctx, const struct pool_trash_entry *e,
				  const char *why);
/* Has P's trash work for pool_volume_trash_expire (an entry expired at
 * NOW or with its purge under way, or entries while the data area's use
 * is at or above THRESHOLD percent, 0: never)? 1, 0, or -errno. */
int pool_volume_trash_due(struct pool *p, int64_t now, unsigned threshold) TP_MUST_CHECK;
int pool_volume_trash_expire(struct pool *p, int64_t now, unsigned threshold,
			     pool_trash_purged_fn *log_fn, void *ctx, unsigned *nr) TP_MUST_CHECK;

/* tvremove --wipe (pool_wipe.c, pool_wipe_live.c): write zeros over the
 * chunks of volume NAME that no other volume maps, so a later volume
 * cannot read them (with zeroing off); shared chunks are left alone.
 * Offline on the data device; on an active pool through the volume's thin
 * device (loaded for it if need be), -EBUSY (logged) while the volume is
 * open. A signal stops it with -EINTR (logged). Changes no metadata:
 * remove the volume afterwards. */
struct pool_wipe_result {
	uint64_t wiped;		/* bytes zeroed (whole chunks) */
	uint64_t planned;	/* bytes to zero (wiped < planned: stopped) */
	uint64_t extents;	/* runs of adjacent chunks written */
	uint64_t shared;	/* bytes mapped by other volumes too, left alone */
	uint64_t direct;	/* live: bytes zeroed on the data device (see pool_wipe_live.c) */
	int live;		/* zeroed through the kernel */
	double seconds;		/* walk + writes + flush */
};
/* WP->progress (WP or it NULL: none) is called with WP->progress_ctx
 * after every write, with the bytes zeroed of the bytes to zero
 * (pool_wipe_result's wiped and planned). */
struct pool_wipe_params {
	tp_progress_fn *progress;
	void *progress_ctx;
};
int pool_volume_wipe_watched(struct pool *p, const char *name, const struct pool_wipe_params *wp,
			     struct pool_wipe_result *res) TP_MUST_CHECK;

/* ---- a volume's head, offline (volume_head.c) ----
 * The first bytes of a volume: an encrypted volume's LUKS2 header. All
 * three need an offline pool (the callers refuse a live one first). */

/* The first LEN bytes of volume NAME into BUF (unmapped chunks read as
 * zeros). 0 or -errno (logged; -EINVAL when LEN is 0 or past its end). */
int pool_volume_head_read(struct pool *p, const char *name, uint64_t len, void *buf)
	TP_MUST_CHECK;
/* One volume's head to rewrite: OLD as read, NEW to write, LEN bytes;
 * CHUNKS is set to the chunks written. */
struct pool_head_write {
	const char *vol;
	const void *old, *new;
	uint64_t len;
	unsigned chunks;
};
/* Rewrite the heads of W[0..N-1] in ONE change under the protocol: every
 * chunk whose bytes differ goes into a newly allocated data block, which
 * the volume then maps in place of the old one (its reference dropped: a
 * snapshot that shared it keeps the old bytes); no byte is written in
 * place, so a cut leaves every old head whole or every new one. Nothing
 * differs: 0 with no change. Read-only volumes: -EROFS (logged); no free
 * chunk: -ENOSPC (logged); both with nothing changed. After the commit,
 * every old block the change left unreferenced is overwritten with random
 * bytes and flushed (a failure there is logged, the change stands: 0).
 * Test pauses: head-written (the new blocks written and flushed, nothing
 * mapped), head-committed (committed, the freed blocks not yet erased). */
int pool_volume_heads_rewrite(struct pool *p, struct pool_head_write *w, unsigned n)
	TP_MUST_CHECK;
/* The crypto-erase of volume NAME's first LEN bytes (tvremove --wipe of
 * an encrypted volume): each chunk of them that only NAME maps is
 * overwritten in place with random bytes and flushed, the first chunk
 * last; chunks other thin devices map too are left to them (they still
 * serve them) and their holders named. Changes no metadata: remove the
 * volume afterwards; run again after a cut, it finds the rest. A signal
 * stops it between two chunks: -EINTR (logged). Test pauses:
 * erase-chunk=N after the Nth chunk. */
struct pool_head_erase {
	uint64_t erased;	/* chunks overwritten */
	uint64_t shared;	/* chunks left to other devices */
	uint64_t unmapped;	/* chunks it does not map (nothing to erase) */
	int first_own;		/* the first chunk was the volume's alone */
	unsigned nr_holders;
	char holders[512];	/* "snap1, trash entry snap2": who keeps a copy */
	char vols[512];		/* of them, the volumes: "snap1, snap3" */
	char trash[512];	/* and the trash entries: "snap2" */
	unsigned nr_vols, nr_trash;
};
int pool_volume_head_erase(struct pool *p, const char *name, uint64_t len,
			   struct pool_head_erase *res) TP_MUST_CHECK;

/* Resize volume NAME (volume_change.c): RELATIVE 0 sets SIZE bytes, +1
 * adds, -1 takes away (rounded up to 512). Growing and shrinking change
 * the VG only, unless FORCE lets a shrink unmap the chunks mapped at or
 * beyond the new end (their data is lost: the caller asks first), which
 * is one change under the protocol. A shrink over mapped chunks without
 * FORCE: -ENOTEMPTY (logged, with how much is mapped there). A volume the
 * kernel has loaded grows by a reload of its table after the VG commit
 * (volume_live.c); a shrink needs an offline pool (-EBUSY, logged). *OLD, *NEW: the sizes in bytes; *UNMAPPED: bytes of
 * data unmapped. A new size equal to the current one (after rounding)
 * commits nothing: 0 with *OLD == *NEW (a loaded volume's table is still
 * reloaded at that size, which finishes a live grow cut short). */
int pool_volume_resize(struct pool *p, const char *name, int relative, uint64_t size,
		       int force, uint64_t *old, uint64_t *new_size, uint64_t *unmapped)
	TP_MUST_CHECK;
/* Rename volume OLD to NEW (one VG commit; snapshots of OLD name NEW as
 * their origin). The volume must not be loaded in the kernel (-EBUSY,
 * logged); NEW taken: -EEXIST. */
int pool_volume_rename(struct pool *p, const char *old, const char *new_name) TP_MUST_CHECK;

/* Roll volume VOL back to SNAP (volume_rollback.c): VOL's content and
 * virtual size become SNAP's, SNAP is kept; one change (VOL gets a new
 * thin device id, a snapshot of SNAP's; its old one is deleted). VOL is
 * then recorded as a snapshot of SNAP, and the volume of SNAP's chain
 * that was a snapshot of VOL (if any) takes VOL's former origin. SNAP
 * must be of VOL's snapshot family: the same volume ends both origin
 * chains (-EINVAL, also for VOL itself); VOL must be writable
 * (-EROFS) and not open in the kernel (-EBUSY; a loaded VOL nobody holds
 * is unloaded and loaded again on its new device); all logged. *OLD_SIZE:
 * VOL's size before. */
int pool_volume_rollback(struct pool *p, const char *vol, const char *snap, uint64_t *old_size)
	TP_MUST_CHECK;

/* Read-only volumes (volume_readonly.c): activated read-only in the
 * kernel, refused by offline writers of their content. get: 1, 0 or
 * -ENOENT (logged). set: one VG commit (nothing when already so); the
 * volume must not be active (-EBUSY, logged); made writable, a volume
 * that had a content uuid loses it, with a warning (incremental streams
 * based on it are no longer accepted). refuse: -EROFS (logged,
 * WHAT naming the change, e.g. "a shrink") for a read-only volume, else 0. */
int pool_volume_get_readonly(const struct pool *p, const char *vol) TP_MUST_CHECK;
int pool_volume_set_readonly(struct pool *p, const char *vol, int on) TP_MUST_CHECK;
int pool_volume_refuse_readonly(const struct pool *p, const char *vol, const char *what)
	TP_MUST_CHECK;

#endif
