/* pool_check.h - pool-level check and repair (tpcheck POOL, tprepair POOL).
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
 * what becomes the spare. On failure the spare's superblock is zeroed and
 * the VG is untouched. Offline only: the pool lock is taken exclusively.
 *
 * Returns 0 when the work ran (verdicts in the reports), -errno when it
 * could not (-ENOENT no such pool, -EBUSY locked, -ENOMEM ...). */
#ifndef TP_POOL_POOL_CHECK_H
#define TP_POOL_POOL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
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

#endif
