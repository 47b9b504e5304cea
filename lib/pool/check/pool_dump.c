/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_dump.c - tpdump, tprestore and tprmap. See pool_dump.h, pool_rmap.h. */
#include "lib/pool/pool_dump.h"
#include "lib/pool/pool_rmap.h"
#include "lib/pool/check/pool_check_int.h"

#include "lib/base/log.h"
#include "metadata/thin/rmap.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_walk.h"
#include "metadata/thin/xml_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(POOL_MAX_DEV_ID == THIN_MAX_DEV_ID, "pool and thin device id ranges differ");
_Static_assert((int)POOL_DUMP_XML == (int)THIN_EMIT_XML &&
	       (int)POOL_DUMP_HUMAN == (int)THIN_EMIT_HUMAN,
	       "enum pool_dump_format differs from enum thin_emit_format");

/* Past the caller's input, an error is a failure of the work (exit 5). */
static int work_failed(int r)
{
	return r == -EINVAL || r == -ERANGE ? -EIO : r;
}

int pool_dump_source_is_pool(const char *source)
{
	return access(source, F_OK) && vg_name_valid(source, NULL);
}

static int dump_to(const struct pool_dump_params *p, struct io_engine *meta, int fd)
{
	struct thin_dump_opts d = {
		.format = (enum thin_emit_format)p->format,
		.walk_flags = (p->metadata_snap ? THIN_WALK_METADATA_SNAP : 0) |
			      (p->skip_mappings ? THIN_WALK_SKIP_MAPPINGS : 0),
		.one_device = p->one_device,
		.dev_id = p->dev_id,
		.progress = p->progress,
		.progress_ctx = p->progress_ctx,
	};

	return thin_xml_dump(meta, &d, fd);
}

/* The source: a pool's active thin metadata, read through the pool (a
 * mirrored pool's legs, the first copy that validates: core.h
 * pool_meta_area_io; offline only, the kernel's may be ahead of the
 * disk), else a bare area. */
struct source {
	struct pool *pool;
	struct io_engine *area;	/* the pool's */
	struct pool_area a;	/* a bare area's */
};

static int open_source(const struct pool_dump_params *p, struct source *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	if (!pool_dump_source_is_pool(p->source))
		return pool_area_open_read(p->source, p->offset, p->size, &s->a);
	if ((r = pool_open(p->source, p->devices, POOL_RDONLY, &s->pool)))
		return r;
	if (!(r = pool_refuse_live(s->pool, "reading its thin metadata from the disk (the "
					      "kernel's may be ahead of it)")) &&
	    !(r = pool_meta_area_io(s->pool, 0, &s->area)))
		s->area->read_only = 1;
	return r;
}

static void close_source(struct source *s)
{
	io_destroy(s->area);
	pool_close(s->pool);
	pool_area_close(&s->a);
}

int pool_dump(const struct pool_dump_params *p)
{
	struct source s;
	int fd = STDOUT_FILENO, r = open_source(p, &s);

	if (r) {
		close_source(&s);
		return r;
	}
	if (p->output) {
		fd = open(p->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			r = -errno;
			log_error("%s: cannot create: %s", p->output, strerror(errno));
			close_source(&s);
			return work_failed(r);
		}
	}
	r = dump_to(p, s.area ? s.area : s.a.io, fd);
	if (p->output && close(fd) && !r) {
		r = -errno;
		log_error("%s: %s", p->output, strerror(errno));
	}
	close_source(&s);
	return work_failed(r);
}

int pool_restore(const struct pool_restore_params *p)
{
	int named = strcmp(p->input, "-") != 0;
	int fd = named ? open(p->input, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	struct pool_area a;
	int r;

	if (fd < 0) {
		r = -errno;
		log_error("%s: cannot open: %s", p->input, strerror(errno));
		return work_failed(r);
	}
	r = pool_area_open_write(p->output, IO_EXCL, p->offset, p->size, p->force,
				 "restore into a file or device that is no pool's (and check "
				 "it with 'tpcheck --metadata'), or",
				 &a);
	if (!r)
		r = work_failed(thin_xml_restore_watched(fd, named ? p->input : "<stdin>", a.io, 0,
							 NULL, p->progress, p->progress_ctx));
	pool_area_close(&a);
	if (named)
		close(fd);
	return r;
}

/* ---- tprmap (pool_rmap.h): the reverse map, from the same sources ---- */

_Static_assert(sizeof(struct pool_rmap_region) == sizeof(struct thin_rmap_region),
	       "struct pool_rmap_region differs from struct thin_rmap_region");

/* Name the runs' devices after P's volumes (the VG's; a thin device no
 * volume has, an unfinished receive's or a removal's, stays NULL). */
static int rmap_names(struct pool *p, struct pool_rmap *out)
{
	const struct vg *vg = pool_vg(p);

	out->names = calloc(vg->nr_volumes ? vg->nr_volumes : 1, sizeof(*out->names));
	if (!out->names)
		return -ENOMEM;
	for (unsigned v = 0; v < vg->nr_volumes; v++) {
		if (!(out->names[v] = strdup(vg->volumes[v].name)))
			return -ENOMEM;
		out->nr_names++;
		for (size_t i = 0; i < out->nr; i++)
			if (out->runs[i].dev_id == vg->volumes[v].dev_id)
				out->runs[i].volume = out->names[v];
	}
	return 0;
}

int pool_rmap(const struct pool_rmap_params *p, struct pool_rmap *out)
{
	struct pool_dump_params d = { .source = p->source, .devices = p->devices,
				      .offset = p->offset, .size = p->size };
	struct thin_rmap m;
	struct source s;
	int r = open_source(&d, &s);

	memset(out, 0, sizeof(*out));
	if (r) {
		close_source(&s);
		return r;
	}
	r = thin_rmap_walk(s.area ? s.area : s.a.io,
			   (p->metadata_snap ? THIN_RMAP_METADATA_SNAP : 0) |
				   (p->shared_once ? THIN_RMAP_SHARED_ONCE : 0),
			   (const struct thin_rmap_region *)p->regions, p->nr_regions, &m);
	if (!r && !(out->runs = calloc(m.nr ? m.nr : 1, sizeof(*out->runs))))
		r = -ENOMEM;
	if (!r) {
		for (size_t i = 0; i < m.nr; i++)
			out->runs[i] = (struct pool_rmap_run){ m.runs[i].data_begin, m.runs[i].data_end,
							       m.runs[i].dev_id, m.runs[i].thin_begin,
							       NULL };
		out->nr = m.nr;
		out->chunk = (uint64_t)m.data_block_size * 512;
		if (s.pool)
			r = rmap_names(s.pool, out);
	}
	thin_rmap_free(&m);
	close_source(&s);
	if (r)
		pool_rmap_free(out);
	return work_failed(r);
}

void pool_rmap_free(struct pool_rmap *m)
{
	for (size_t i = 0; i < m->nr_names; i++)
		free(m->names[i]);
	free(m->names);
	free(m->runs);
	memset(m, 0, sizeof(*m));
}
