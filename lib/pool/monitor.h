/* monitor.h - tpmonitor's engine: what it remembers of each pool (the
 * state file, pool_monitor_state.c) and what it decides from a status
 * sample (pool_monitor.c, pure: unit tested without a kernel).
 *
 * The state lives in <run dir>/monitor/<pool uuid> (lib/base/paths.h:
 * $TPTOOLS_DIR/run or /run/tptools), not in the VG: the monitor wakes on
 * every pool event and poll, and a VG commit (two devices, a backup file)
 * per threshold crossing would churn the backups and the devices for
 * nothing the pool needs. What changes the pool itself (an extension, the
 * switch to error-when-full) is committed to the VG by that change; the
 * state file only says what the monitor did last and which warning
 * levels it has logged, so a restarted monitor neither repeats nor loses
 * them. /run is cleared at boot, as is the kernel pool it describes.
 *
 * Format: text lines "KEY VALUE" (VALUE runs to the end of the line):
 *   pool NAME, data_warned PCT, meta_warned PCT, error_set 0|1,
 *   time UNIX-SECONDS, action TEXT
 * Unknown keys are ignored (a newer monitor's state reads as far as it
 * goes); written atomically (temp file + rename).
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
	int64_t time;				/* of the last action; 0 = none yet */
	char action[POOL_MONITOR_ACTION_MAX + 1];
};

/* The state of the pool with uuid POOL_UUID into *S (zeroed first):
 * 0, -ENOENT when there is none, -EUCLEAN for a file that does not parse
 * (nothing logged: callers decide). */
int pool_monitor_state_read(const char *pool_uuid, struct pool_monitor_state *s) TP_MUST_CHECK;
/* Write S as the state of POOL_UUID (creating the directory): 0 or -errno
 * (not logged). */
int pool_monitor_state_write(const char *pool_uuid, const struct pool_monitor_state *s)
	TP_MUST_CHECK;

#endif
