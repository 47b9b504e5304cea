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
#include "lib/pool/pool_check.h"
#include "metadata/thin/check.h"
#include "metadata/thin/repair.h"

struct pool_check_report {
	struct thin_check_findings f;	/* the pool-level findings only */
};

/* DEVICES: NULL or "DATA,META" (the --devices option). THIN receives the
 * thin metadata check (zeroed if the area could not be found). */
int pool_check(const char *name, const char *devices, const struct thin_check_opts *opts,
	       struct pool_check_report *rep, struct thin_check_report *thin) TP_MUST_CHECK;
void pool_check_report_free(struct pool_check_report *rep);

/* OPTS as for thin_repair_io (transaction id and data sizes come from the
 * VG when not given). */
int pool_repair(const char *name, const char *devices, const struct thin_repair_opts *opts,
		struct thin_repair_report *rep) TP_MUST_CHECK;

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
 * nothing written, when the area covers a tptools label or another
 * signature libblkid knows (lib/dev/probe.h: a filesystem, a RAID or LVM
 * member, ...) and !FORCE.
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
