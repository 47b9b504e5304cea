/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_live.c - a new encrypted volume in a pool the kernel runs
 * (tvcreate --encrypt of an active pool; issue 39).
 *
 * The offline creation (crypt_luks.c) imports a header file through the
 * raw import, which needs the thin metadata to itself. Live, the kernel
 * owns it, so the header is written by libcryptsetup straight onto the new
 * thin device, loaded as the receive's temporary device
 * (pool_recv_live_fill): the VG lists the volume as an unfinished raw
 * receive carrying its LUKS2 uuid from the first change, the header is
 * written and flushed, and only then does a change make it a volume.
 * Killed before that, the volume does not exist: tpstatus lists the
 * unfinished receive and 'tprecv --abort' drops it, as it drops an offline
 * import's leftovers. Unlocking it is the caller's (pool_activate with the
 * key given, pool_unlock_key). */
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_recv.h"
#include "lib/pool/core/core.h"
#include "lib/pool/crypt/crypt_int.h"

#include "lib/base/critical.h"
#include "lib/base/dmlog.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "metadata/vg/uuid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct live_fill {
	struct pool *p;
	const char *name;
	uint64_t size;
	const struct pool_crypt_new *n;
	const char *uuid_in;
	char uuid[POOL_UUID_LEN + 1];
	uint64_t data_off;
};

static int write_header(void *arg, const char *path)
{
	struct live_fill *f = arg;
	int e;

	tp_test_pause("crypt-live-format");
	e = pool_crypt_format(path, pool_name(f->p), f->name, f->size, f->n, f->uuid_in, f->uuid,
			      &f->data_off);
	tp_dmlog_reclaim();	/* libcryptsetup reset libdevmapper's log */
	if (!e && strcmp(f->uuid, f->uuid_in)) {
		log_error("volume %s/%s: libcryptsetup gave the header uuid %s, not %s",
			  pool_name(f->p), f->name, f->uuid, f->uuid_in);
		e = -EIO;
	}
	return e;
}

int pool_crypt_create_live(struct pool *p, const char *name, uint64_t size, unsigned flags,
			   const struct pool_crypt_new *n, char *luks_uuid)
{
	struct live_fill f = { p, name, 0, n, NULL, "", 0 };
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	char uuid[VG_UUID_LEN + 1], a[32];
	int e;

	pc_log_setup();
	if ((e = pool_name_free(p, name)) || (e = pool_volume_size_check(name, size, &f.size)))
		return e;
	if (f.size < pool_crypt_min_size()) {
		log_error("volume %s/%s: %s is too small for an encrypted volume, whose LUKS2 "
			  "header takes 16 MiB: give -V %" PRIu64 "K or more; nothing was written",
			  pool_name(p), name, tp_size_format(f.size, 'h', a, sizeof(a)),
			  pool_crypt_min_size() / 1024);
		return -ERANGE;
	}
	if ((e = vg_uuid_generate(uuid)))
		return e;
	f.uuid_in = uuid;
	/* the header maps at most its own chunks: the volume's minimum size
	 * less its one data sector, plus a chunk for where it ends */
	e = pool_recv_live_fill(p, name, f.size, uuid, !!(flags & POOL_VOLUME_NO_AUTOACTIVATE),
				(pool_crypt_min_size() + chunk - 1) / chunk + 1, write_header, &f);
	if (!e && luks_uuid)
		snprintf(luks_uuid, POOL_UUID_LEN + 1, "%s", uuid);
	return e;
}
