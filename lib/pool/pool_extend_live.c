/* pool_extend_live.c - tpextend on an active pool (pool.h: pool_extend):
 * the thin side of the growth is a reload of the kernel's table stack
 * (kernel/dm_resize.c); the kernel grows its data space map to the pool
 * target's new length and its metadata space map to tmeta's new size on
 * the resume, and commits.
 *
 * The protocol is pool_change's: the VG first (transaction id + 1), then
 * the reload, then the kernel's transaction id. A crash after the VG
 * commit leaves the kernel running the old, smaller tables under a VG
 * that records the growth: the next command that changes the pool
 * completes the transaction and with it reloads the tables
 * (pool_extend_live_catch_up, from pool_txn.c's replay), and so does the
 * next `tpextend`; a deactivation and activation gets the grown tables
 * too, since activation builds them from the VG. */
#include "lib/pool/pool_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <string.h>

int pool_extend_live_apply(struct pool *p, const void *arg)
{
	struct tp_dm_pool_layout l;
	int r;

	(void)arg;
	if ((r = pool_sync_labels(p, NULL)))
		return r;
	pool_dm_layout(p, &l);
	return tp_dm_pool_reload(&l);
}

int pool_extend_live_catch_up(struct pool *p, struct pool_extend_result *res)
{
	const struct vg *vg = p->vg;
	uint64_t chunk = (uint64_t)vg->chunk_size * 512;
	uint64_t data = vg->dev[VG_ROLE_DATA].area[0].size / chunk * chunk;
	uint64_t meta = TP_MIN(vg->dev[VG_ROLE_META].area[vg->metadata_area].size /
			       THIN_METADATA_BLOCK_SIZE, THIN_METADATA_MAX_BLOCKS);
	struct tp_dm_pool_status st;
	struct tp_dm_pool_layout l;
	char a[32], b[32];
	int r;

	if ((r = tp_dm_pool_status(p->pool_dm, TP_DM_NOFLUSH, &st))) {
		log_error("pool %s: cannot read the kernel's status: %s", p->name, strerror(-r));
		return r;
	}
	if (st.total_data_blocks * chunk >= data && st.total_meta_blocks >= meta)
		return 0;
	log_warn("pool %s: the kernel runs it at %s of data (%llu metadata blocks), smaller than "
		 "its VG metadata records (%s): an earlier growth was interrupted; finishing it",
		 p->name, tp_size_format(st.total_data_blocks * chunk, 'h', a, sizeof(a)),
		 (unsigned long long)st.total_meta_blocks, tp_size_format(data, 'h', b, sizeof(b)));
	if ((r = pool_sync_labels(p, NULL)))
		return r;
	pool_dm_layout(p, &l);
	if ((r = tp_dm_pool_reload(&l)))
		return r;
	res->old_data_size = st.total_data_blocks * chunk;
	res->new_data_size = data;
	res->old_meta_size = st.total_meta_blocks * THIN_METADATA_BLOCK_SIZE;
	res->new_meta_size = vg->dev[VG_ROLE_META].area[vg->metadata_area].size;
	return 1;
}
