/* backup.h - a copy of every VG commit in the config dir, like LVM's
 * /etc/lvm/archive: <config dir>/backup/<pool>/<seqno>.vg (config dir from
 * paths.h: $TPTOOLS_DIR or /etc/tptools). Written atomically (temp file in
 * the same directory, fsync, rename, fsync of the directory); the newest
 * VG_BACKUP_KEEP files of a pool are kept, older ones pruned. File names
 * are the seqno in decimal, zero-padded to 20 digits so they sort.
 * Functions return 0 or -errno. */
#ifndef TP_VG_BACKUP_H
#define TP_VG_BACKUP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

#define VG_BACKUP_KEEP 50u

/* Write TEXT as the backup of POOL's commit SEQNO and prune to KEEP
 * (0 = VG_BACKUP_KEEP). -EINVAL for a bad pool name. */
int vg_backup_write(const char *pool, uint64_t seqno, const char *text, size_t len,
		    unsigned keep) TP_MUST_CHECK;

/* The backup directory of POOL (caller frees) or NULL on ENOMEM. */
char *vg_backup_dir(const char *pool);

/* Seqnos of POOL's backups, ascending, into a malloc'd *SEQNOS (caller
 * frees), *N entries. No directory is 0 with *N = 0. */
int vg_backup_list(const char *pool, uint64_t **seqnos, size_t *n) TP_MUST_CHECK;

/* Load backup SEQNO of POOL (0 = the newest) into a malloc'd
 * NUL-terminated *TEXT; *GOT_SEQNO (may be NULL) says which. -ENOENT if
 * none. */
int vg_backup_read(const char *pool, uint64_t seqno, char **text, size_t *len,
		   uint64_t *got_seqno) TP_MUST_CHECK;

/* Delete all but the newest KEEP backups of POOL. */
int vg_backup_prune(const char *pool, unsigned keep) TP_MUST_CHECK;

#endif
