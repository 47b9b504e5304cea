/* pool_send_src.c - where tpsend reads a volume from: offline, the thin
 * metadata and data device the pool has open; live, a kernel metadata
 * snapshot held for the walk only and the data device read with O_DIRECT.
 * See pool_send_src.h. */
#include "lib/pool/stream/pool_send_src.h"

#include "lib/base/critical.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int send_src_open(struct pool *p, struct send_src *s)
{
	const char *path = p->pv[VG_ROLE_DATA].io->name;
	int r;

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->data = p->pv[VG_ROLE_DATA].io;
	if (!pool_is_live(p))
		return 0;
	if ((r = io_fd_open(path, IO_RDONLY | IO_DIRECT, &s->own_data))) {
		log_error("pool %s: cannot open its data device %s for reading: %s", p->name, path,
			  strerror(-r));
		return r;
	}
	s->data = s->own_data;
	return 0;
}

void send_src_close(struct send_src *s)
{
	io_destroy(s->own_data);
	s->own_data = s->data = NULL;
	for (int i = 0; i < 2; i++) {
		tp_lock_release(s->hold[i]);
		s->hold[i] = NULL;
	}
}

/* Hold the volumes read (pool_hold.c) and let the pool lock go. */
static int hold(struct send_src *s, uint32_t left, uint32_t right)
{
	struct pool *p = s->p;
	uint32_t ids[2] = { left, right };
	int r;

	for (int i = 0; i < (left == right ? 1 : 2); i++) {
		const struct vg_volume *v = vg_find_dev_id(p->vg, ids[i]);
		if (v && (r = pool_hold_volume(p, v, &s->hold[i])))
			return r;
	}
	tp_lock_release(p->lock);
	p->lock = NULL;
	return 0;
}

static int walk(struct io_engine *meta, unsigned flags, uint32_t left, uint32_t right,
		const struct thin_delta_visitor *v)
{
	if (left == right)
		return thin_mappings_io(meta, flags, left, v);
	return thin_delta_io(meta, flags | THIN_DELTA_SKIP_SHARED, 0, left, right, v, NULL);
}

/* ---- live: spool the ranges, release the snapshot, replay ---- */

struct spool {
	FILE *f;
	const struct pool *p;
};

static int spool_range(void *ctx, const struct thin_delta_range *x)
{
	struct spool *sp = ctx;
	int r;

	if (fwrite(x, sizeof(*x), 1, sp->f) == 1)
		return 0;
	r = errno ? -errno : -EIO;
	log_error("pool %s: writing the volume's mappings to a temporary file: %s (set TMPDIR "
		  "to a directory with room)", sp->p->name, strerror(-r));
	return r;
}

static FILE *open_spool(const struct pool *p)
{
	char what[VG_NAME_MAX + 64];
	FILE *f;
	int fd;

	snprintf(what, sizeof(what), "the volume's mappings of pool %s", p->name);
	if ((fd = tp_spool_open(what)) < 0)
		return NULL;
	if (!(f = fdopen(fd, "w+"))) {
		log_error("pool %s: cannot open a stream on the temporary file of the volume's "
			  "mappings: %s", p->name, strerror(errno));
		close(fd);
	}
	return f;
}

static int replay(FILE *f, const struct thin_delta_visitor *v)
{
	struct thin_delta_range x;
	int r;

	if (fflush(f) || fseek(f, 0, SEEK_SET)) {
		r = -errno;
		log_error("reading back a temporary file of mappings: %s", strerror(-r));
		return r;
	}
	while (fread(&x, sizeof(x), 1, f) == 1)
		if ((r = v->range(v->ctx, &x)))
			return r;
	return ferror(f) ? -EIO : 0;
}

int send_src_walk(struct send_src *s, uint32_t left, uint32_t right,
		  const struct thin_delta_visitor *v)
{
	struct spool sp = { NULL, s->p };
	struct thin_delta_visitor spool = { &sp, NULL, spool_range };
	struct pool_msnap snap;
	FILE *f;
	int r, e;

	if (!pool_is_live(s->p))
		return walk(s->p->thin_io, 0, left, right, v);
	if (!(f = open_spool(s->p)))
		return -EIO;
	sp.f = f;
	if ((r = pool_msnap_begin(s->p, &snap))) {
		fclose(f);
		return r;
	}
	r = walk(snap.area, THIN_DELTA_METADATA_SNAP, left, right, &spool);
	e = pool_msnap_end(&snap);
	if (!r && e)
		log_error("pool %s: releasing the kernel's metadata snapshot: %s", s->p->name,
			  strerror(-e));
	if (!r)
		r = e;
	if (!r)
		r = hold(s, left, right);
	tp_test_pause("send-data");
	if (!r)
		r = replay(f, v);
	fclose(f);
	return r;
}
