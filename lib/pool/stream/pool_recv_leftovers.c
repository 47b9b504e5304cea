/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv_leftovers.c - the temporary device of a live receive
 * (pool_recv_live.c): its name and uuid, its removal with the thin id
 * behind it when the VG does not list that id, and the clearing of what a
 * killed tprecv left, which the next command that opens the pool for
 * writing does (pool_live_reconcile runs it as the stream's hook,
 * core.h; a reader reports it). The pool lock
 * is held, exclusively by the receive itself, so no temporary device that
 * a command meets here belongs to a receive still running. */
#include "lib/pool/stream/pool_recv_int.h"
#include "lib/pool/stream/stream.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

int pool_recv_temp_name(const struct pool *p, uint32_t dev_id, char *buf, size_t len)
{
	char vol[32];

	snprintf(vol, sizeof(vol), "tprecv:%u", dev_id);
	return tp_dm_name(buf, len, pool_name(p), TP_DM_ROLE_THIN, vol);
}

void pool_recv_uuid_prefix(const struct pool *p, char *buf, size_t len)
{
	snprintf(buf, len, TP_DM_UUID_PREFIX "%s-recv", pool_vg(p)->uuid);
}

/* ---- after: the temporary device goes ---- */

static int finish(struct pool *p, const char *dm, uint32_t dev_id, int keep)
{
	int e = tp_dm_remove(dm);

	if (e && e != -ENXIO) {
		log_error("pool %s: cannot remove the temporary device %s: %s; remove it with "
			  "'dmsetup remove %s'%s", pool_name(p), dm, strerror(-e), dm,
			  keep ? "" : ", then run any tptools command on the pool");
		return e;
	}
	if (keep)
		return 0;
	e = tp_dm_delete_thin(pool_dm_name(p), dev_id);
	if (e && e != -ENODATA) {
		log_error("pool %s: cannot delete thin device %u of the failed receive: %s; "
			  "delete it with 'dmsetup message %s 0 \"delete %u\"'", pool_name(p), dev_id,
			  strerror(-e), pool_dm_name(p), dev_id);
		return e;
	}
	return 0;
}

int pool_recv_live_finish(struct pool *p, uint32_t dev_id)
{
	char dm[TP_DM_NAME_MAX];
	int e = pool_recv_temp_name(p, dev_id, dm, sizeof(dm));

	return e ? e : finish(p, dm, dev_id, 1);
}

/* ---- what a killed receive left ---- */

struct leftovers {
	struct pool *p;
	int write;
	size_t plen;
	int err;
};

static int visit(const char *name, const char *uuid, void *arg)
{
	struct leftovers *l = arg;
	const char *digits = uuid + l->plen;
	char *end;
	unsigned long id;
	int keep;

	errno = 0;
	id = strtoul(digits, &end, 10);
	if (!*digits || *end || errno || id > TP_DM_THIN_ID_MAX)
		return 0;	/* not of this form: not ours */
	keep = vg_find_dev_id(pool_vg(l->p), (uint32_t)id) != NULL;
	if (!l->write) {
		log_warn("pool %s: %s and thin device %lu are left from an interrupted tprecv; the "
			 "next change to the pool removes them", pool_name(l->p), name, id);
		return 0;
	}
	if (finish(l->p, name, (uint32_t)id, keep)) {
		l->err = -EBUSY;
		return 0;
	}
	log_warn("pool %s: removed %s%s, left by an interrupted tprecv", pool_name(l->p), name,
		 keep ? "" : " and its thin device");
	return 0;
}

/* What a killed live receive left (temporary devices, and thin ids the VG
 * does not list behind them): WRITE removes them (said on stderr), else
 * they are reported. The receive's live_leftovers hook (core.h), which
 * pool_live_reconcile runs. 0 or -errno. */
static int pool_recv_live_leftovers(struct pool *p, int write)
{
	char prefix[TP_DM_UUID_MAX];
	struct leftovers l = { p, write, 0, 0 };
	int e;

	pool_recv_uuid_prefix(p, prefix, sizeof(prefix));
	l.plen = strlen(prefix);
	tp_critical_begin();
	e = tp_dm_list(prefix, visit, &l);
	tp_critical_end();
	return e ? e : l.err;
}

static struct pool_feature stream_feature = {
	.name = "stream",
	.live_leftovers = pool_recv_live_leftovers,
};

void pool_stream_register(void)
{
	pool_feature_register(&stream_feature);
}
