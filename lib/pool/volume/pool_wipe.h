/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_wipe.h - tvremove --wipe's two halves, lib/pool internal: which
 * chunks only one volume maps (pool_wipe.c, from any walk of the mapping
 * trees) and writing zeros over byte ranges of a device, stoppable by
 * SIGINT/SIGTERM/SIGHUP. The offline path (pool_wipe.c) writes the data
 * device; the live one (pool_wipe_live.c) the volume's thin device. */
#ifndef TP_POOL_POOL_WIPE_H
#define TP_POOL_POOL_WIPE_H

#include "lib/base/io.h"
#include "lib/pool/core/core.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/core/pool_usage.h"

/* LEN chunks of the volume from virtual chunk VBEGIN, mapped to data
 * blocks from DBEGIN, stamped TIME (the kernel's snapshot clock). */
struct wipe_run {
	uint64_t vbegin, dbegin, len;
	uint32_t time;
};

struct wipe_set {
	struct wipe_run *run;	/* ascending virtual chunk as walked */
	size_t nr, cap;
	uint64_t shared;	/* the volume's chunks another device maps too */
	uint32_t snap_time;	/* the volume's last-snapshotted time */
};

/* Fill *S with the runs of device DEV_ID's chunks that no other device
 * maps: WALK (called twice) drives the visitor over every device of a
 * pool of NR_BLOCKS data blocks. 0 or -errno (-EUCLEAN for a block beyond
 * the pool, logged); free *S with wipe_set_free either way. */
int wipe_find(walk_fn walk, void *arg, uint64_t nr_blocks, uint64_t dev_id, struct wipe_set *s)
	TP_MUST_CHECK;
void wipe_set_free(struct wipe_set *s);

/* Write LEN zero bytes at OFF of IO in aligned 4 MiB writes, adding each
 * written to RES->wiped and telling WP's progress (RES->wiped of
 * RES->planned; WP may be NULL); -EINTR when a signal waits (the caller
 * holds a critical section: tp_critical_pending), else 0 or the io
 * error. ZEROS: a zeroed, 4 KiB aligned WIPE_BUF. */
#define WIPE_BUF (4u << 20)
int wipe_zero_range(struct io_engine *io, uint64_t off, uint64_t len, const void *zeros,
		    const struct pool_wipe_params *wp, struct pool_wipe_result *res)
	TP_MUST_CHECK;

/* The live path of pool_volume_wipe_watched (V: the volume, RES zeroed). */
int pool_volume_wipe_live(struct pool *p, const struct vg_volume *v,
			  const struct pool_wipe_params *wp, struct pool_wipe_result *res)
	TP_MUST_CHECK;

#endif
