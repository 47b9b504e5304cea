/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.h - where tptools keeps its files.
 * The config dir is $TPTOOLS_DIR if set (tests always set it), else
 * /etc/tptools; locks live in $TPTOOLS_DIR/lock or /run/lock/tptools;
 * VG metadata backups in <config dir>/backup/<pool>; runtime state (the
 * monitor's) in $TPTOOLS_DIR/run or /run/tptools. Returned strings are
 * static or owned by the caller as stated. */
#ifndef TP_BASE_PATHS_H
#define TP_BASE_PATHS_H

#include <stddef.h>

const char *tp_config_dir(void);
/* Caller frees. */
char *tp_lock_dir(void);
/* Caller frees. */
char *tp_run_dir(void);
char *tp_path_join(const char *a, const char *b);
/* mkdir -p with mode 0700 for the last component; 0 or -errno. */
int tp_mkdir_p(const char *path);

/* The same into DST (LEN bytes): PATH as it is when that fails. */
void tp_path_absolute_to(char *dst, size_t len, const char *path);

#endif
