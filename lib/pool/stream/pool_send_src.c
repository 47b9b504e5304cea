/* SPDX-License-Identifier: GPL-2.0-or-later */
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
	memset(s, 0, sizeof(*s));
	s->p = p;
	return pool_data_reader(p, &s->data, &s->own_data);
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
		const struct vg_volume *v = vg_find_dev_id(pool_vg(p), ids[i]);
		if (v && (r = pool_hold_volume(p, v, &s->hold[i])))
			return r;
	}
	pool_drop_lock(p);
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
		  "to a directory with room)", pool_name(sp->p), strerror(-r));
	return r;
}

static FILE *open_spool(const struct pool *p)
{
	char what[VG_NAME_MAX + 64];
	FILE *f;
	int fd;

	snprintf(what, sizeof(what), "the volume's mappings of pool %s", pool_name(p));
	if ((fd = tp_spool_open(what)) < 0)
		return NULL;
	if (!(f = fdopen(fd, "w+"))) {
		log_error("pool %s: cannot open a stream on the temporary file of the volume's "
			  "mappings: %s", pool_name(p), strerror(errno));
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
	struct pool_meta_view view;
	FILE *f;
	int r, e;

	if ((r = pool_meta_view_begin(s->p, &view)))
		return r;
	if (!view.snapshot) {	/* offline: walk the metadata itself */
		r = walk(view.io, view.flags, left, right, v);
		e = pool_meta_view_end(&view);
		return r ? r : e;
	}
	/* a kernel snapshot: spool the ranges and release it before the
	 * long read of the data */
	if (!(f = open_spool(s->p))) {
		e = pool_meta_view_end(&view);	/* its failure is logged */
		return -EIO;
	}
	sp.f = f;
	r = walk(view.io, view.flags, left, right, &spool);
	e = pool_meta_view_end(&view);
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
