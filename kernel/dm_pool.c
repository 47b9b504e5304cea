/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_pool.c - a pool's device stack (tmeta, tdata, tpool) and its volumes
 * as units, with clean-up on failure (see dm.h "pool stacks"). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int remove_if_present(const char *name)
{
	int r = tp_dm_remove(name);

	return r == -ENXIO ? 0 : r;
}

struct stack_names {
	char meta[TP_DM_NAME_MAX], data[TP_DM_NAME_MAX], pool[TP_DM_NAME_MAX];
};

static int stack_names(const char *pool, struct stack_names *n)
{
	int r = tp_dm_name(n->meta, sizeof(n->meta), pool, TP_DM_ROLE_TMETA, NULL);

	if (!r)
		r = tp_dm_name(n->data, sizeof(n->data), pool, TP_DM_ROLE_TDATA, NULL);
	if (!r)
		r = tp_dm_name(n->pool, sizeof(n->pool), pool, TP_DM_ROLE_POOL, NULL);
	if (r)
		log_error("'%s' cannot be a device-mapper name: %s", pool ? pool : "",
			  strerror(-r));
	return r;
}

/* create one internal linear or pool device of the stack */
static int create_pieces(const char *name, const char *pool_uuid, enum tp_dm_role role,
			 const struct tp_dm_target *t, unsigned n)
{
	char uuid[TP_DM_UUID_MAX];
	int r = tp_dm_uuid(uuid, sizeof(uuid), pool_uuid, role, 0);

	if (r) {
		log_error("%s: bad pool uuid '%s'", name, pool_uuid ? pool_uuid : "");
		return r;
	}
	return tp_dm_create(name, uuid, t, n, TP_DM_INTERNAL);
}

static int create_piece(const char *name, const char *pool_uuid, enum tp_dm_role role,
			const struct tp_dm_target *t)
{
	return create_pieces(name, pool_uuid, role, t, 1);
}

int tp_dm_pool_activate(const struct tp_dm_pool_layout *l)
{
	struct stack_names n;
	struct tp_dm_target t, td[TP_DM_DATA_SEGS_MAX];
	unsigned nd;
	char why[256];
	int r;

	if ((r = stack_names(l->pool, &n)))
		return r;
	/* say why before touching anything: no dm, or no thin-pool target */
	if ((r = tp_dm_check_available(why, sizeof(why)))) {
		log_error("cannot activate pool %s: %s", l->pool, why);
		return r;
	}
	if (tp_dm_pool_is_active(l->pool) == 1) {
		log_error("pool %s is active already (%s exists)", l->pool, n.pool);
		return -EEXIST;
	}
	if ((r = tp_dm_meta_create(l, n.meta)))
		return r;
	if ((r = tp_dm_pool_data_table(l, td, &nd))) {
		log_error("pool %s: bad data area %s at %" PRIu64 " length %" PRIu64, l->pool,
			  l->data_dev ? l->data_dev : "", l->data_offset, l->data_length);
		goto undo_meta;
	}
	if ((r = create_pieces(n.data, l->pool_uuid, TP_DM_ROLE_TDATA, td, nd)))
		goto undo_meta;
	if ((r = tp_dm_pool_table(l, n.meta, n.data, &t))) {
		log_error("pool %s: bad thin-pool settings (data block %" PRIu32
			  " sectors, data area %" PRIu64 " bytes)",
			  l->pool, l->block_sectors, l->data_length);
		goto undo_data;
	}
	if ((r = create_piece(n.pool, l->pool_uuid, TP_DM_ROLE_POOL, &t)))
		goto undo_data;
	return 0;

undo_data:
	if (remove_if_present(n.data))
		log_warn("pool %s: could not remove %s after the failure", l->pool, n.data);
undo_meta:
	if (remove_if_present(n.meta) || tp_dm_meta_legs_remove(n.meta))
		log_warn("pool %s: could not remove %s after the failure", l->pool, n.meta);
	return r;
}

/* names of POOL's stack and the info of its tpool (-ENXIO: not active) */
static int pool_info(const char *pool, struct stack_names *n, struct tp_dm_info *info)
{
	int r = stack_names(pool, n);

	return r ? r : tp_dm_info(n->pool, info);
}

int tp_dm_pool_is_active(const char *pool)
{
	struct stack_names n;
	struct tp_dm_info info;
	int r = pool_info(pool, &n, &info);

	/* without device-mapper nothing can be active */
	if (r == -ENXIO || r == -ENODEV)
		return 0;
	return r ? r : 1;
}

int tp_dm_pool_deactivate(const char *pool)
{
	struct stack_names n;
	struct tp_dm_info info;
	int r = pool_info(pool, &n, &info);

	if (!r && info.open_count > 0) {
		log_error("pool %s is in use: %d active volume(s) or other users hold %s open; "
			  "deactivate its volumes first",
			  pool, info.open_count, n.pool);
		return -EBUSY;
	}
	if (r && r != -ENXIO)
		return r;
	if ((r = remove_if_present(n.pool)) || (r = remove_if_present(n.data)) ||
	    (r = remove_if_present(n.meta)) || (r = tp_dm_meta_legs_remove(n.meta)))
		return r;
	return 0;
}

int tp_dm_vol_activate(const char *pool, const char *pool_uuid, const char *vol,
		       uint32_t dev_id, uint64_t sectors, unsigned flags)
{
	char name[TP_DM_NAME_MAX], pool_name[TP_DM_NAME_MAX], uuid[TP_DM_UUID_MAX];
	char pool_devno[32];
	struct tp_dm_target t;
	struct tp_dm_info info;
	int r;

	if ((r = flags & TP_DM_VOL_LUKS ? tp_dm_luks_name(name, sizeof(name), pool, vol)
					: tp_dm_name(name, sizeof(name), pool, TP_DM_ROLE_THIN, vol)) ||
	    (r = tp_dm_name(pool_name, sizeof(pool_name), pool, TP_DM_ROLE_POOL, NULL)) ||
	    (r = tp_dm_uuid(uuid, sizeof(uuid), pool_uuid, TP_DM_ROLE_THIN, dev_id))) {
		log_error("%s/%s: cannot make a device-mapper name or uuid", pool ? pool : "",
			  vol ? vol : "");
		return r;
	}
	if (!tp_dm_info(name, &info))
		return -EEXIST;	/* active already: the caller decides */
	r = tp_dm_info(pool_name, &info);
	if (r == -ENXIO) {
		log_error("pool %s is not active: activate it before its volume %s", pool, vol);
		return r;
	}
	if (r)
		return r;
	snprintf(pool_devno, sizeof(pool_devno), "%" PRIu32 ":%" PRIu32, info.major, info.minor);
	if ((r = tp_dm_thin(&t, sectors, pool_devno, dev_id, NULL))) {
		log_error("%s/%s: bad volume (id %" PRIu32 ", %" PRIu64 " sectors)", pool, vol,
			  dev_id, sectors);
		return r;
	}
	return tp_dm_create(name, uuid, &t, 1,
			    (flags & TP_DM_READ_ONLY) |
				    (flags & TP_DM_VOL_LUKS ? TP_DM_INTERNAL : 0));
}

int tp_dm_vol_deactivate(const char *pool, const char *vol)
{
	char name[TP_DM_NAME_MAX], luks[TP_DM_NAME_MAX];
	struct tp_dm_info info;
	int r = tp_dm_name(name, sizeof(name), pool, TP_DM_ROLE_THIN, vol), rl;

	if (r)
		return r;
	/* the volume's device (plain thin or, unlocked, dm-crypt), then the
	 * hidden thin device under an encrypted one: locking it (asked
	 * first, so that an absent one costs no failed ioctl in the log) */
	r = tp_dm_info(name, &info);
	if (!r)
		r = tp_dm_remove(name);
	if (r && r != -ENXIO)
		return r;
	if (tp_dm_luks_name(luks, sizeof(luks), pool, vol) || tp_dm_info(luks, &info))
		return r;
	rl = tp_dm_remove(luks);
	return rl == -ENXIO ? r : rl;
}

int tp_dm_snapshot(const char *pool, const char *origin_vol, uint32_t dev_id,
		   uint32_t origin_id)
{
	char pool_name[TP_DM_NAME_MAX], origin[TP_DM_NAME_MAX], luks[TP_DM_NAME_MAX];
	struct tp_dm_info info;
	bool crypt = false;
	int r, rr;

	if ((r = tp_dm_name(pool_name, sizeof(pool_name), pool, TP_DM_ROLE_POOL, NULL)))
		return r;
	if (origin_vol) {
		if ((r = tp_dm_name(origin, sizeof(origin), pool, TP_DM_ROLE_THIN, origin_vol)) ||
		    (r = tp_dm_luks_name(luks, sizeof(luks), pool, origin_vol)))
			return r;
		/* an unlocked encrypted origin: the dm-crypt device on top is
		 * suspended first (its filesystem frozen, its writes flushed
		 * to the thin device), then the thin device */
		crypt = !tp_dm_info(luks, &info);
	}
	/* suspend..resume is one critical section: a signal waits for the
	 * resume (a SIGKILL's suspended origin is resumed by the next
	 * command, lib/pool/core/pool_leftovers.c) */
	tp_critical_begin();
	/* flush the origin's writes and hold new ones while the kernel
	 * shares its mappings */
	if (origin_vol && (r = tp_dm_suspend(origin, 0))) {
		tp_critical_end();
		return r;
	}
	if (crypt && (r = tp_dm_suspend(luks, 0))) {
		if (tp_dm_resume(origin))
			log_error("%s/%s stays suspended: resume it with 'dmsetup resume %s'", pool,
				  origin_vol, origin);
		tp_critical_end();
		return r;
	}
	if (origin_vol)
		tp_test_pause("after-suspend");
	r = tp_dm_create_snap(pool_name, dev_id, origin_id);
	tp_test_pause("after-create-snap");
	if (crypt && (rr = tp_dm_resume(luks))) {
		log_error("%s/%s stays suspended: resume it with 'dmsetup resume %s' and then "
			  "'dmsetup resume %s'", pool, origin_vol, luks, origin);
		if (!r)
			r = rr;
	} else if (origin_vol && (rr = tp_dm_resume(origin))) {
		log_error("%s/%s stays suspended: resume it with 'dmsetup resume %s'", pool,
			  origin_vol, origin);
		if (!r)
			r = rr;
	}
	tp_critical_end();
	return r;
}
