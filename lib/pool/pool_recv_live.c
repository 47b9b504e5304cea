/* pool_recv_live.c - a checked send stream received into a pool the
 * kernel runs. See pool_recv_int.h.
 *
 * The kernel owns the thin metadata, so the data goes in through a thin
 * device of its own: the new thin id (created by a pool message, empty or
 * a snapshot of the base) is loaded as a temporary dm device, each chunk
 * is written to it with O_DIRECT (a whole chunk: the kernel maps a fresh
 * block without zeroing or copying it) and each hole is discarded (which
 * unmaps on a dm-thin device), then the device is flushed, which commits
 * the kernel's metadata. Only then does the VG list the volume
 * (pool_recv.c), so a receive cut short never becomes a volume.
 *
 * The temporary device is made first, with an error table (a target of
 * dm core: no module to load), and gets the thin table once the thin id
 * exists: while the thin id is not in the VG the device is always there
 * to say whose it is. Its name "<pool>-tprecv:<id>" cannot be a volume's
 * (':' is no volume-name character); its dm uuid is
 * TPTOOLS-<pool uuid>-recv<id>, which no other role has, and it is made
 * with the udev flags of an internal device.
 *
 * A full pool must not hang the receive: dm-thin queues writes when it
 * runs out of data space (the pool's when-full setting), so the free
 * chunks the pool status reports are checked against what the stream
 * needs before anything is made, before the first write and again every
 * CHECK_EVERY chunks; a
 * pool set to error when full fails the write instead, and a queued write
 * fails once the kernel's no_space_timeout (dm_thin_pool module
 * parameter, 60 s by default) passes. */
#include "lib/pool/pool_recv_int.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define CHECK_EVERY 64u		/* chunks written between free-space checks */

/* ---- space ---- */

static int pool_state(struct pool *p, struct tp_dm_pool_status *st)
{
	int e = tp_dm_pool_status(p->pool_dm, TP_DM_NOFLUSH, st);

	if (e) {
		log_error("pool %s: cannot read the kernel's pool status: %s", p->name,
			  strerror(-e));
		return e;
	}
	if (st->fail || st->error || st->needs_check) {
		log_error("pool %s: the kernel reports the pool as failed or needing a check; "
			  "deactivate it and run 'tpcheck %s'", p->name, p->name);
		return -EIO;
	}
	if (st->mode == TP_DM_MODE_RO) {
		log_error("pool %s: the kernel runs the pool read-only", p->name);
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
		  "pool (tpextend) or free space first", p->name,
		  tp_size_format(free_blocks * chunk, 'h', a, sizeof(a)), when,
		  tp_size_format(need * chunk, 'h', b, sizeof(b)));
	return -ENOSPC;
}

int pool_recv_live_preflight(struct pool *p, const struct pool_recv *r,
			     const struct vg_volume *base)
{
	struct tp_dm_pool_status st;
	int e = pool_state(p, &st);

	if (e)
		return e;
	if (base && (r->holes || base->size > r->h.size) &&
	    st.discard == TP_DM_DISCARD_IGNORE) {
		log_error("pool %s ignores discards, and this incremental stream unmaps chunks of "
			  "%s: it cannot be received while the pool is active; deactivate the pool "
			  "and receive it then",
			  p->name, base->name);
		return -EOPNOTSUPP;
	}
	return room_for(p, r->chunks, r->h.chunk, "now");
}

int pool_recv_live_dev_id(struct pool *p, uint32_t *dev_id)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	uint32_t id = p->vg->next_dev_id;
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

struct writer {
	struct pool *p;
	struct pool_recv *r;
	int fd;
	uint64_t chunk, written;
};

static int put_chunk(void *ctx, uint64_t vb, const void *buf)
{
	struct writer *w = ctx;
	const char *b = buf;
	uint64_t off = vb * w->chunk, left = w->chunk;
	int e;

	if (tp_critical_pending()) {
		log_error("pool %s: interrupted by a signal", w->p->name);
		return -EINTR;
	}
	if (w->written % CHECK_EVERY == 0 &&
	    (e = room_for(w->p, w->r->chunks - w->written, w->chunk, "left")))
		return e;
	while (left) {
		ssize_t n = pwrite(w->fd, b, left, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? -errno : -EIO;
			log_error("pool %s: writing the received data (chunk %" PRIu64 " of the "
				  "volume): %s%s", w->p->name, vb, strerror(-e),
				  e == -ENOSPC || e == -EIO ? " (the pool may be out of data space)"
							    : "");
			return e;
		}
		b += n;
		off += (uint64_t)n;
		left -= (uint64_t)n;
	}
	w->written++;
	return 0;
}

static int discard(struct writer *w, uint64_t first, uint64_t n)
{
	uint64_t range[2] = { first * w->chunk, n * w->chunk };

	if (!n)
		return 0;
	if (ioctl(w->fd, BLKDISCARD, range)) {
		int e = -errno;
		log_error("pool %s: unmapping chunks %" PRIu64 "..%" PRIu64 " of the received "
			  "volume: %s", w->p->name, first, first + n - 1, strerror(-e));
		return e;
	}
	return 0;
}

static int put_hole(void *ctx, uint64_t first, uint64_t n)
{
	return discard(ctx, first, n);
}

static int make_thin(struct pool *p, uint32_t dev_id, const struct vg_volume *base)
{
	int e = base ? pool_op_snap(p, dev_id, base) : pool_op_create(p, dev_id);

	if (e)
		log_error("pool %s: cannot create thin device %u%s%s: %s", p->name, dev_id,
			  base ? " as a snapshot of " : "", base ? base->name : "", strerror(-e));
	return e;
}

/* The marker device with a zero table, the thin id, then the thin table. */
static int make_device(struct pool *p, uint32_t dev_id, const struct vg_volume *base,
		       uint64_t sectors, const char *dm, int *made_thin)
{
	struct tp_dm_target t = { 0, sectors, "error", "" };
	char uuid[TP_DM_UUID_MAX + 16], prefix[TP_DM_UUID_MAX], pool_dev[32];
	int e;

	pool_recv_uuid_prefix(p, prefix, sizeof(prefix));
	snprintf(uuid, sizeof(uuid), "%s%u", prefix, dev_id);
	if ((e = tp_dm_devno(p->pool_dm, pool_dev, sizeof(pool_dev))))
		return e;
	if ((e = tp_dm_create(dm, uuid, &t, 1, TP_DM_INTERNAL))) {
		log_error("pool %s: cannot create the temporary device %s: %s", p->name, dm,
			  strerror(-e));
		return e;
	}
	if ((e = make_thin(p, dev_id, base)))
		return e;
	*made_thin = 1;
	tp_test_pause("recv-thin-made");
	if ((e = tp_dm_thin(&t, sectors, pool_dev, dev_id, NULL)) ||
	    (e = tp_dm_load(dm, &t, 1, TP_DM_INTERNAL)) || (e = tp_dm_resume(dm)))
		log_error("pool %s: cannot load thin device %u as %s: %s", p->name, dev_id, dm,
			  strerror(-e));
	return e;
}

static int open_device(struct pool *p, const char *dm, int *fd)
{
	char path[TP_DM_NAME_MAX + 16];
	int e;

	if ((e = tp_dm_path(path, sizeof(path), dm)))
		return e;
	*fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	e = -errno;
	log_error("pool %s: cannot open %s: %s", p->name, path, strerror(errno));
	return e;
}

int pool_recv_live_write(struct pool *p, struct pool_recv *r, uint32_t dev_id,
			 const struct vg_volume *base, uint64_t *chunks)
{
	struct writer w = { p, r, -1, r->h.chunk };
	struct recv_sink sink = { &w, put_chunk, put_hole };
	uint64_t size = base && base->size > r->h.size ? base->size : r->h.size;
	uint64_t nchunks = (size + w.chunk - 1) / w.chunk, first_beyond;
	char dm[TP_DM_NAME_MAX];
	int e, f, made_thin = 0;

	*chunks = 0;
	if ((e = pool_recv_temp_name(p, dev_id, dm, sizeof(dm))))
		return e;
	/* a killed command's signal waits; the writes below look for it */
	tp_critical_begin();
	e = make_device(p, dev_id, base, nchunks * w.chunk / 512, dm, &made_thin);
	if (!e)
		e = open_device(p, dm, &w.fd);
	first_beyond = (r->h.size + w.chunk - 1) / w.chunk;
	if (!e && base && base->size > r->h.size)
		e = discard(&w, first_beyond, nchunks - first_beyond);
	if (!e)
		e = pool_recv_replay(r, w.chunk, 0, &sink);
	if (!e && fsync(w.fd)) {
		e = -errno;
		log_error("pool %s: flushing the received volume: %s", p->name, strerror(errno));
	}
	if (w.fd >= 0)
		close(w.fd);
	if (!e)
		e = room_for(p, 0, w.chunk, "after the receive");
	*chunks = w.written;
	if (e) {
		log_error("pool %s: nothing was received", p->name);
		f = pool_recv_live_finish(p, dev_id, !made_thin);
		(void)f;
	}
	tp_critical_end();
	/* the kernel's EINVAL (a message or table refused) is no usage error */
	return e == -EINVAL || e == -ERANGE ? -EIO : e;
}
