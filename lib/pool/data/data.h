/* SPDX-License-Identifier: GPL-2.0-or-later */
/* data.h - the data module (lib/pool/data/pool_data.c): a pool's data
 * area over several data devices, as a feature of the core's lifecycle
 * table (core.h: struct pool_feature). Registered by pool_init, it opens
 * the data devices tpextend --data added once the VG is read, builds the
 * one engine over the whole data area that pool_pv(p, VG_ROLE_DATA)
 * hands out, puts each device's segment in the kernel's table, and says
 * where a data chunk lies. The callers above (admin, check, monitor,
 * stream) use the functions below. */
#ifndef TP_POOL_DATA_H
#define TP_POOL_DATA_H

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "lib/base/lock.h"
#include "metadata/vg/label.h"

#include <stdint.h>

struct pool;

/* Register the data module with the core (pool_init). */
void pool_data_register(void);

/* The path of data device I of P ("" when not open), and its size now
 * (the open device's, 0 when not open). */
const char *pool_data_dev_path(const struct pool *p, unsigned i);
uint64_t pool_data_dev_size(const struct pool *p, unsigned i);
/* A data device of P left out by check or repair (its slot empty) whose
 * last known path the devices filter excludes (host.h:
 * pool_device_filtered): 1 with BUF the advice (accept it in
 * devices/filter, then check again; never to be taken away as missing),
 * else 0. */
int pool_data_filtered_advice(const struct pool *p, char *buf, size_t len);
/* tpextend --data: claim PATH, a new data device of P (pool_claim_open;
 * of a live pool, after the exclusive open proved it free, it is kept open
 * without O_EXCL, since the kernel's table is to hold it). */
int pool_claim_new_data(struct pool *p, const char *path, struct tp_lock **lock,
			struct io_engine **io) TP_MUST_CHECK;
/* tpextend --data / tpreduce --data: the new device (its engine, label and
 * flock, all handed over) becomes the last of P's devices before the VG
 * commit that lists it; drop takes the last one away again (closed). */
int pool_add_data_pv(struct pool *p, struct io_engine *io, const struct vg_label *l,
		     struct tp_lock *claim) TP_MUST_CHECK;
void pool_drop_data_pv(struct pool *p);
/* Data device I of P's devices put last, the ones after it moved up one
 * (tpreduce --data: the VG commit goes to the devices the next VG lists,
 * in its order; for the first, I 0, the second takes its role's slot);
 * and the reverse. */
void pool_data_pv_to_end(struct pool *p, unsigned i);
void pool_data_pv_from_end(struct pool *p, unsigned i);

#endif
