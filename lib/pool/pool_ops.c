/* pool_ops.c - the thin-device operations of a change, on whichever side
 * owns the thin metadata: the offline engine (metadata/thin, uncommitted
 * until the caller commits) or, when the kernel runs the pool (p->live),
 * pool messages (kernel/dm.h). Returns 0 or -errno; volume.c and the
 * transaction replay (pool_txn.c) call them. */
#include "lib/pool/pool_int.h"

#include "kernel/dm.h"
#include "lib/base/log.h"

#include <errno.h>
int pool_op_create(struct pool *p, uint32_t dev_id)
{
	return p->live ? tp_dm_create_thin(p->pool_dm, dev_id) : thin_create_thin(p->md, dev_id);
}

int pool_op_snap(struct pool *p, uint32_t dev_id, const struct vg_volume *o)
{
	char dm[TP_DM_NAME_MAX];
	struct tp_dm_info info;
	const char *active = NULL;

	if (!p->live)
		return thin_create_snap(p->md, dev_id, o->dev_id);
	/* The origin must be quiesced while the kernel shares its tree. */
	if (!tp_dm_name(dm, sizeof(dm), p->name, TP_DM_ROLE_THIN, o->name) &&
	    !tp_dm_info(dm, &info))
		active = o->name;
	return tp_dm_snapshot(p->name, active, dev_id, o->dev_id);
}

int pool_op_delete(struct pool *p, uint32_t dev_id, const char *vol)
{
	int r;

	if (!p->live)
		return thin_delete(p->md, dev_id);
	if (vol && (r = pool_op_vol_deactivate(p, vol)))
		return r;
	return tp_dm_delete_thin(p->pool_dm, dev_id);
}

int pool_op_vol_deactivate(struct pool *p, const char *vol)
{
	int r = tp_dm_vol_deactivate(p->name, vol);

	if (r == -EBUSY)
		log_error("pool %s: volume %s is in use (mounted or open); close it first",
			  p->name, vol);
	return r == -ENXIO ? 0 : r;
}

int pool_op_set_tid(struct pool *p, uint64_t old_id, uint64_t new_id)
{
	return p->live ? tp_dm_set_transaction_id(p->pool_dm, old_id, new_id)
		       : thin_set_transaction_id(p->md, old_id, new_id);
}

