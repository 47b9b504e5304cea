/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_message.c - thin-pool messages (the kernel's
 * Documentation/admin-guide/device-mapper/thin-provisioning.rst). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdarg.h>
#include <stdio.h>

int tp_dm_message(const char *pool, const char *msg)
{
	struct dm_task *dmt;
	char what[160];
	int r;

	if ((r = tp_dm_lib_start(DM_DEVICE_TARGET_MSG, pool, false, &dmt)))
		return r;
	snprintf(what, sizeof(what), "message '%s'", msg);
	log_debug(TP_DBG_KERNEL, "%s: %s", pool, what);
	if (!dm_task_set_sector(dmt, 0) || !dm_task_set_message(dmt, msg)) {
		log_error("%s: out of memory for %s", pool, what);
		r = -ENOMEM;
	} else {
		r = tp_dm_lib_run(dmt, what, pool, -1, 0);
	}
	dm_task_destroy(dmt);
	return r;
}

static int msgf(const char *pool, const char *fmt, ...) TP_PRINTF(2, 3);

static int msgf(const char *pool, const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tp_dm_message(pool, msg);
}

static int check_id(const char *pool, uint32_t id)
{
	if (id <= TP_DM_THIN_ID_MAX)
		return 0;
	log_error("%s: thin device id %" PRIu32 " is above the kernel's limit %u", pool, id,
		  TP_DM_THIN_ID_MAX);
	return -EINVAL;
}

int tp_dm_create_thin(const char *pool, uint32_t dev_id)
{
	int r = check_id(pool, dev_id);

	return r ? r : msgf(pool, "create_thin %" PRIu32, dev_id);
}

int tp_dm_create_snap(const char *pool, uint32_t dev_id, uint32_t origin_id)
{
	int r = check_id(pool, dev_id);

	if (!r)
		r = check_id(pool, origin_id);
	return r ? r : msgf(pool, "create_snap %" PRIu32 " %" PRIu32, dev_id, origin_id);
}

int tp_dm_delete_thin(const char *pool, uint32_t dev_id)
{
	int r = check_id(pool, dev_id);

	return r ? r : msgf(pool, "delete %" PRIu32, dev_id);
}

int tp_dm_set_transaction_id(const char *pool, uint64_t cur, uint64_t next)
{
	return msgf(pool, "set_transaction_id %" PRIu64 " %" PRIu64, cur, next);
}

int tp_dm_reserve_metadata_snap(const char *pool)
{
	return tp_dm_message(pool, "reserve_metadata_snap");
}

int tp_dm_release_metadata_snap(const char *pool)
{
	return tp_dm_message(pool, "release_metadata_snap");
}
