/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv_live.c - a receive's data written into a pool the kernel
 * runs. See pool_recv_int.h.
 *
 * The kernel owns the thin metadata, so the data goes in through a thin
 * device of its own: the receive's thin id (made by the receive's first
 * change, pool_recv.c, empty or a snapshot of the base) is loaded as a
 * temporary dm device, each chunk is written to it with O_DIRECT (a whole
 * chunk: the kernel maps a fresh block without zeroing or copying it) and
 * each hole is discarded (which unmaps on a dm-thin device); a flush of
 * the device commits the kernel's metadata, which is how the receive's
 * progress becomes durable. The VG lists the receive as unfinished the
 * whole time, and as a volume only after the last flush.
 *
 * The temporary device's name "<pool>-tprecv:<id>" cannot be a volume's
 * (':' is no volume-name character); its dm uuid is
 * TPTOOLS-<pool uuid>-recv<id>, which no other role has, and it is made
 * with the udev flags of an internal device. A killed receive leaves it:
 * the next command that changes the pool removes it (pool_recv_leftovers.c).
 *
 * A full pool must not hang the receive: dm-thin queues writes when it
 * runs out of data space (the pool's when-full setting), so the free
 * chunks the pool status reports are checked against what the stream
 * needs before anything is made, before the first write and again every
 * CHECK_EVERY chunks; a
 * pool set to error when full fails the write instead, and a queued write
 * fails once the kernel's no_space_timeout (dm_thin_pool module
 * parameter, 60 s by default) passes. */
#include "lib/pool/stream/pool_recv_int.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define CHECK_EVERY 64u		/* chunks written between free-space checks */

/* ---- space ---- */

static int pool_state(struct pool *p, struct tp_dm_pool_status *st)
{
	int e = tp_dm_pool_status(pool_dm_name(p), TP_DM_NOFLUSH, st);

	if (e) {
		log_error("pool %s: cannot read the kernel's pool status: %s", pool_name(p),
			  strerror(-e));
		return e;
	}
	if (st->fail || st->error || st->needs_check) {
		log_error("pool %s: the kernel reports the pool as failed or needing a check; "
			  "deactivate it and run 'tpcheck %s'", pool_name(p), pool_name(p));
		return -EIO;
	}
	if (st->mode == TP_DM_MODE_RO) {
		log_error("pool %s: the kernel runs the pool read-only", pool_name(p));
		return -EROFS;
	}
	return 0;
}

/* Free data chunks for NEED more: -ENOSPC, logged, when not. */
static int room_for(struct pool *p, uint64_t need, uint64_t chunk, const char *when)
{
	struct tp_dm_pool_status st;
	uint64_t free_blocks;
	char a[32], b[32];
	int e = pool_state(p, &st);

	if (e)
		return e;
	free_blocks = st.total_data_blocks > st.used_data_blocks
			      ? st.total_data_blocks - st.used_data_blocks : 0;
	if ((st.mode != TP_DM_MODE_OUT_OF_DATA || !need) && free_blocks >= need)
		return 0;
	log_error("pool %s has %s of free data space %s; the stream needs %s more: extend the "
		  "pool (tpextend) or free space first", pool_name(p),
		  tp_size_format(free_blocks * chunk, 'h', a, sizeof(a)), when,
		  tp_size_format(need * chunk, 'h', b, sizeof(b)));
	return -ENOSPC;
}

int pool_recv_live_preflight(struct pool *p, const char *base, int unmaps, uint64_t need)
{
	struct tp_dm_pool_status st;
	int e = pool_state(p, &st);

	if (e)
		return e;
	if (unmaps && st.discard == TP_DM_DISCARD_IGNORE) {
		log_error("pool %s ignores discards, and this incremental stream unmaps chunks of "
			  "%s: it cannot be received while the pool is active; deactivate the pool "
			  "and receive it then",
			  pool_name(p), base);
		return -EOPNOTSUPP;
	}
	return room_for(p, need, (uint64_t)pool_vg(p)->chunk_size * 512, "now");
}

int pool_recv_live_dev_id(struct pool *p, uint32_t *dev_id)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	uint32_t id = pool_vg(p)->next_dev_id;
	int e = pool_live_list_devices(p, &ids, &n);

	if (e)
		return e;
	for (size_t i = 0; i < n; i++)	/* ascending */
		if (ids[i] == id)
			id++;
	free(ids);
	*dev_id = id;
	return 0;
}

/* ---- the temporary device ---- */

int pool_recv_live_chunks(void *ctx, uint64_t vb, const void *buf, uint64_t n)
{
	struct recv_live_dev *w = ctx;
	uint64_t max = w->bufsize / w->chunk;
	const unsigned char *b = buf;
	int e;

	while (n) {
		uint64_t k = n < max ? n : max;
		size_t len = (size_t)(k * w->chunk);
		const unsigned char *src = b;
		if (!w->written || w->written - w->checked >= CHECK_EVERY) {
			if ((e = room_for(w->p, w->need > w->written ? w->need - w->written : 0,
					  w->chunk, "left")))
				return e;
			w->checked = w->written;
		}
		if ((uintptr_t)b % 4096) {	/* O_DIRECT wants it aligned */
			memcpy(w->buf, b, len);
			src = w->buf;
		}
		if ((e = tp_pwrite_all(w->fd, src, len, vb * w->chunk))) {
			log_error("pool %s: writing the received data (chunks %" PRIu64 "..%" PRIu64
				  " of the volume): %s%s", pool_name(w->p), vb, vb + k - 1,
				  strerror(-e), e == -ENOSPC || e == -EIO
				  ? " (the pool may be out of data space)" : "");
			return e;
		}
		w->written += k;
		vb += k;
		b += len;
		n -= k;
	}
	return 0;
}

int pool_recv_live_hole(void *ctx, uint64_t first, uint64_t n)
{
	struct recv_live_dev *w = ctx;
	uint64_t range[2] = { first * w->chunk, n * w->chunk };

	if (!n)
		return 0;
	if (ioctl(w->fd, BLKDISCARD, range)) {
		int e = -errno;
		log_error("pool %s: unmapping chunks %" PRIu64 "..%" PRIu64 " of the received "
			  "volume: %s", pool_name(w->p), first, first + n - 1, strerror(-e));
		return e;
	}
	return 0;
}

int pool_recv_live_sync(struct recv_live_dev *w)
{
	int e;

	if (!fsync(w->fd))
		return room_for(w->p, 0, w->chunk, "after the flush");
	e = -errno;
	log_error("pool %s: flushing the received data: %s", pool_name(w->p), strerror(errno));
	return e;
}

int pool_recv_live_open(struct pool *p, uint32_t dev_id, uint64_t sectors, uint64_t need,
			struct recv_live_dev *w)
{
	struct tp_dm_target t;
	char uuid[TP_DM_UUID_MAX + 16], prefix[TP_DM_UUID_MAX], pool_dev[32];
	char path[TP_DM_NAME_MAX + 16];
	int e;

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->fd = -1;
	w->dev_id = dev_id;
	w->chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	w->need = need;
	w->bufsize = w->chunk < RECV_LIVE_WRITE ? RECV_LIVE_WRITE / w->chunk * w->chunk : w->chunk;
	if (tp_copybuf_alloc(w->bufsize, (void **)&w->buf))
		return -ENOMEM;
	pool_recv_uuid_prefix(p, prefix, sizeof(prefix));
	snprintf(uuid, sizeof(uuid), "%s%u", prefix, dev_id);
	if ((e = pool_recv_temp_name(p, dev_id, w->dm, sizeof(w->dm))) ||
	    (e = tp_dm_devno(pool_dm_name(p), pool_dev, sizeof(pool_dev))) ||
	    (e = tp_dm_thin(&t, sectors, pool_dev, dev_id, NULL)))
		return e;
	if ((e = tp_dm_create(w->dm, uuid, &t, 1, TP_DM_INTERNAL))) {
		log_error("pool %s: cannot load thin device %u as %s: %s", pool_name(p), dev_id, w->dm,
			  strerror(-e));
		return e == -EINVAL ? -EIO : e;
	}
	w->loaded = 1;
	tp_test_pause("recv-thin-made");
	if ((e = tp_dm_path(path, sizeof(path), w->dm)))
		return e;
	if ((w->fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC)) >= 0)
		return 0;
	e = -errno;
	log_error("pool %s: cannot open %s: %s", pool_name(p), path, strerror(errno));
	return e;
}

int pool_recv_live_close(struct recv_live_dev *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->buf);
	w->buf = NULL;
	if (!w->loaded)
		return 0;
	w->loaded = 0;
	/* the thin device is the unfinished receive's or the volume's now */
	return pool_recv_live_finish(w->p, w->dev_id);
}
