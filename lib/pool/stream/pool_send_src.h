/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_send_src.h - where tpsend reads a volume from (lib/pool internal).
 *
 * Offline: the committed thin metadata of the active area and the data
 * device as the pool holds it open. Live (the kernel runs the pool): the
 * mappings come from a kernel metadata snapshot (pool_msnap.c), held only
 * while they are walked: the walk's ranges are spooled to an unlinked
 * temporary file ($TMPDIR, 40 bytes a range), the snapshot released, and
 * the ranges replayed to the visitor, which reads the data device through
 * its own O_DIRECT descriptor (the page cache of the data device may hold
 * blocks the kernel has since rewritten). A live send reads only read-only
 * volumes, whose chunks no write reaches. The walk runs under the pool's
 * shared lock, which every tptools writer takes exclusively; before the
 * data is read the volumes are held (pool_hold.c: every change that
 * would remove, thaw or re-point them refuses meanwhile) and the pool lock
 * is let go, so writers (tpmonitor's autoextension among them) go on while
 * the data is read. So the chunks read are the ones the snapshot named. */
#ifndef TP_POOL_POOL_SEND_SRC_H
#define TP_POOL_POOL_SEND_SRC_H

#include "lib/pool/core/core.h"
#include "metadata/thin/delta.h"

struct send_src {
	struct pool *p;
	struct io_engine *data;		/* the data device: read the data area here */
	struct io_engine *own_data;	/* live: our O_DIRECT engine (data points to it) */
	struct tp_lock *hold[2];	/* live: the volumes read, held */
};

/* 0 or -errno, logged. */
int send_src_open(struct pool *p, struct send_src *s) TP_MUST_CHECK;
void send_src_close(struct send_src *s);

/* thin_delta_io (LEFT != RIGHT, shared subtrees skipped) or
 * thin_mappings_io (LEFT == RIGHT) of P's volumes, calling V->range for
 * each range in ascending order. Live, P's lock is released on the way
 * (P->lock NULL after): call it once, after every VG lookup. 0 or -errno
 * (logged, or V's error). */
int send_src_walk(struct send_src *s, uint32_t left, uint32_t right,
		  const struct thin_delta_visitor *v) TP_MUST_CHECK;

#endif
