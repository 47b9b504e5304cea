/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor.h - tpmonitor's engine: what it remembers of each pool (the
 * state file, pool_monitor_state.c) and what it decides from a status
 * sample (pool_monitor.c, pure: unit tested without a kernel).
 *
 * The state lives in <run dir>/monitor/<pool uuid> (lib/base/paths.h:
 * $TPTOOLS_DIR/run or /run/tptools), not in the VG: the monitor wakes on
 * every pool event and poll, and a VG commit (every device, a backup file)
 * per threshold crossing would churn the backups and the devices for
 * nothing the pool needs. What changes the pool itself (an extension, the
 * switch to error-when-full) is committed to the VG by that change; the
 * state file only says what the monitor did last and which warning
 * levels it has logged, so a restarted monitor neither repeats nor loses
 * them. /run is cleared at boot, as is the kernel pool it describes.
 *
 * Format: text lines "KEY VALUE" (VALUE runs to the end of the line):
 *   pool NAME, data_warned PCT, meta_warned PCT, error_set 0|1,
 *   no_room 0..7, time UNIX-SECONDS, action TEXT, and the counts of what
 *   the monitor did (struct pool_monitor_counts, for tpstatus --format
 *   prometheus): count_warnings, count_no_room, count_autoextends,
 *   count_autoextend_failures, count_error_switches N (absent: 0), and
 *   add_failed PATH (absent: none)
 * Unknown keys are ignored (a newer monitor's state reads as far as it
 * goes); every write replaces the file whole, by lib/base/atomic.h's
 * rule (a crash leaves the old state or the new).
 *
 * Errors: 0 or -errno. */
#ifndef TP_POOL_MONITOR_H
#define TP_POOL_MONITOR_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/pool/pool.h"

#define POOL_MONITOR_ACTION_MAX 255

struct pool_monitor_state {
	char pool[POOL_NAME_MAX + 1];
	unsigned data_warned, meta_warned;	/* last level logged (percent); 0 = none */
	int error_set;				/* switched the pool to error-when-full */
	unsigned no_room;			/* bits: 1 data, 2 metadata had no room, 4 data
						 * at autoextend_max (each said once) */
	int64_t time;				/* of the last action; 0 = none yet */
	char action[POOL_MONITOR_ACTION_MAX + 1];
	struct pool_monitor_counts counts;	/* every action, counted */
	/* the autoextend device whose addition failed: not tried again while
	 * data stays above the autoextend threshold ("" = none) */
	char add_failed[POOL_DEVICE_PATH_MAX + 1];
	/* 1: the metadata mirror was degraded when last looked at (said
	 * once; its recovery said once too) */
	int meta_degraded;
};

/* ---- the decision (pool_monitor.c: pure) ---- */

/* Data use at or above this percent with no way to grow: the pool is
 * about to run out; the monitor switches it to error-when-full. */
#define POOL_MONITOR_CRITICAL 95u
/* Warnings repeat every this many percent above the warn threshold. */
#define POOL_MONITOR_WARN_STEP 5u

/* One look at a pool: the kernel's figures and the room its devices have. */
struct pool_monitor_sample {
	uint64_t data_used, data_total;		/* data blocks (kernel status) */
	uint64_t meta_used, meta_total;		/* metadata blocks */
	int out_of_data;			/* kernel mode out_of_data_space */
	int error_if_no_space;			/* the table fails writes when full already */
	uint64_t chunk;				/* bytes */
	uint64_t data_size;			/* bytes: the data area (VG) */
	uint64_t data_max;			/* bytes: the largest data area the device allows */
	uint64_t meta_size;			/* bytes: one thin-metadata area (VG) */
	uint64_t meta_max;			/* bytes: the largest area the meta device allows */
	uint64_t add_room;			/* bytes the policy's autoextend device would add
						 * (about: its size less a label's room); 0 = none
						 * named, or it is a device of the pool already */
};

enum pool_monitor_action {
	POOL_MON_WARN_DATA = 1u << 0,	/* data use crossed a warning level */
	POOL_MON_WARN_META = 1u << 1,
	POOL_MON_CALM_DATA = 1u << 2,	/* back below the warn threshold */
	POOL_MON_CALM_META = 1u << 3,
	POOL_MON_EXTEND_DATA = 1u << 4,	/* grow the data area to data_to */
	POOL_MON_EXTEND_META = 1u << 5,	/* grow the metadata areas to meta_to */
	POOL_MON_ERROR_WHEN_FULL = 1u << 6,	/* about to run out, cannot grow: switch */
	POOL_MON_NO_ROOM_DATA = 1u << 7,	/* above the threshold, nothing to grow into */
	POOL_MON_NO_ROOM_META = 1u << 8,
	POOL_MON_CAP_DATA = 1u << 9,	/* above the threshold, at the policy's autoextend_max */
	POOL_MON_ADD_DATA = 1u << 10,	/* no room: add the policy's autoextend device */
};

struct pool_monitor_decision {
	unsigned actions;		/* enum pool_monitor_action */
	unsigned data_pct, meta_pct;	/* rounded down */
	unsigned data_level, meta_level;	/* the warning level crossed */
	uint64_t data_to, meta_to;	/* bytes, with the EXTEND actions */
};

/* Decide what to do about sample S under policy POL, given what the
 * monitor remembers (ST: warning levels, error_set), which is updated for
 * the warnings (levels logged, or cleared below the threshold); the
 * caller records the actions it carries out. Pure: no I/O. */
void pool_monitor_decide(const struct pool_monitor_policy *pol,
			 const struct pool_monitor_sample *s, struct pool_monitor_state *st,
			 struct pool_monitor_decision *d);

/* The "no room" and "at autoextend_max" conditions of decision ACTIONS
 * that are new since ST last saw them (bits as st->no_room: 1 data no
 * room, 2 metadata no room, 4 data at autoextend_max), each said once;
 * ST->no_room becomes what holds now (a condition that ends is forgotten,
 * so it is said again when it comes back). Pure. */
unsigned pool_monitor_room_news(struct pool_monitor_state *st, unsigned actions);

/* ---- the state file (pool_monitor_state.c) ---- */

/* The state of the pool with uuid POOL_UUID into *S (zeroed first):
 * 0, -ENOENT when there is none, -EUCLEAN for a file that does not parse
 * (nothing logged: callers decide). */
int pool_monitor_state_read(const char *pool_uuid, struct pool_monitor_state *s) TP_MUST_CHECK;
/* Write S as the state of POOL_UUID (creating the directory), replaced
 * as lib/base/atomic.h says: 0 or -errno, logged. */
int pool_monitor_state_write(const char *pool_uuid, const struct pool_monitor_state *s)
	TP_MUST_CHECK;

/* ---- watching the kernel's pools (pool_monitor_run.c) ---- */

/* An active tptools pool: its name and uuid (from our dm uuid: another
 * program's devices are never listed). */
struct pool_monitor_pool {
	char name[POOL_NAME_MAX + 1];
	char uuid[POOL_UUID_LEN + 1];
};

/* Every active tptools pool into a malloc'd *OUT (caller frees), *N.
 * A kernel without device-mapper has none: 0. */
int pool_monitor_list(struct pool_monitor_pool **out, unsigned *n) TP_MUST_CHECK;

/* One look at active pool PL (pool_monitor_decide) and what it asks:
 * warnings logged, growth (pool_extend with the step), the switch to
 * error-when-full, each logged with the pool's name; the state file
 * updated when something changed. *ST is the monitor's memory of the
 * pool (read from the state file by the caller at start). 0, or -errno
 * (logged) when the pool could not be looked at or an action failed. */
int pool_monitor_pass(const struct pool_monitor_pool *pl, struct pool_monitor_state *st)
	TP_MUST_CHECK;

/* The event counter of PL's thin-pool device now (*NR), and waiting for
 * it to change (kernel/dm_event.c): 0, -EINTR on a signal, -ENXIO when
 * the pool is gone. */
int pool_monitor_event_nr(const struct pool_monitor_pool *pl, uint32_t *nr) TP_MUST_CHECK;
int pool_monitor_wait(const struct pool_monitor_pool *pl, uint32_t nr, uint32_t *next)
	TP_MUST_CHECK;

#endif
