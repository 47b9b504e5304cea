/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_wipe_live.c - tvremove --wipe on an active pool (pool_volume.h:
 * pool_volume_wipe_watched; pool_wipe.h). Zeroes the chunks only the volume maps
 * while the kernel runs the pool, before the removal frees them.
 *
 * Which chunks: wipe_find over the kernel's metadata snapshot (pool_msnap;
 * reserving it commits the kernel's transaction first, so it holds every
 * mapping a completed write made). Nothing changes them between the
 * snapshot and the writes: the volume's thin device is held open with
 * O_EXCL by this command from before the snapshot to the end (a volume
 * mounted or open in any other program is refused, -EBUSY), other tptools
 * commands wait for the pool lock this one holds, and no other thin
 * device maps these chunks.
 *
 * How: zeros are written with O_DIRECT at the chunks' VIRTUAL offsets on
 * the volume's thin device; the kernel sends a write to a mapped chunk to
 * the same data block, in place. Except where dm-thin takes the chunk as
 * shared: it decides by time, not by reference count (a chunk mapped
 * before the volume's last snapshot counts as shared even once that
 * snapshot is gone or has its own copy), and a write to such a chunk goes
 * to a newly allocated block while the old one is freed with its data
 * still in it. Those chunks (mapping time < the volume's snapshot time)
 * and chunks the thin device cannot reach (mapped at or beyond the end of
 * the volume or of its loaded table: an interrupted forced shrink or live
 * growth, or a last partial chunk)
 * are zeroed on the data device instead, with O_DIRECT, while the thin
 * device is suspended so no write can move them; that part is a critical
 * section (signals wait; a SIGKILL's suspended device is resumed by the
 * next command, pool_leftovers.c).
 *
 * The thin device: reused when loaded writable, loaded for the wipe when
 * not, reloaded writable when loaded read-only (after checking it is not
 * open). On an error or a signal it is put back as it was; after a
 * complete wipe it stays loaded and the removal unloads it. */
#include "lib/pool/volume/pool_wipe.h"
#include "lib/pool/pool_volume.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "metadata/thin/thin_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wipe_thin {
	char name[TP_DM_NAME_MAX], path[TP_DM_NAME_MAX + 16];
	int was_loaded, was_ro;	/* as found */
	int changed;		/* loaded or reloaded here */
	struct io_engine *io;	/* O_DIRECT | O_EXCL, read-write */
};

/* Put the thin device back as it was found (after an error). */
static void restore(struct pool *p, const struct vg_volume *v, struct wipe_thin *t)
{
	int r;

	io_destroy(t->io);
	t->io = NULL;
	if (!t->changed)
		return;
	r = tp_dm_vol_deactivate(pool_name(p), v->name);
	if (!r && t->was_loaded)
		r = tp_dm_vol_activate(pool_name(p), pool_vg(p)->uuid, v->name, v->dev_id, v->size / 512,
				       t->was_ro ? TP_DM_READ_ONLY : 0);
	if (r && r != -ENXIO)
		log_warn("pool %s: volume %s could not be put back as it was (%s): %s; run "
			 "'%s %s %s'", pool_name(p), v->name, t->was_loaded ? "loaded" : "not loaded",
			 strerror(-r), t->was_loaded ? "tpactivate" : "tpdeactivate", pool_name(p),
			 v->name);
}

static int refuse_open(struct pool *p, const struct vg_volume *v, const struct wipe_thin *t)
{
	log_error("pool %s: volume %s is in use (mounted or open: %s); unmount or close it "
		  "first; nothing was zeroed and the volume was not removed", pool_name(p), v->name,
		  t->path);
	return -EBUSY;
}

/* O_EXCL keeps out mounts and exclusive openers; a program that opened
 * the volume without it could still write and move a chunk, so any other
 * opener is refused too, after waiting out a brief one (udev probes a
 * device it has just seen loaded or written). */
static int only_opener(struct pool *p, const struct vg_volume *v, const struct wipe_thin *t)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct tp_dm_info info;
	int r;

	for (int i = 0; i < 100; i++) {
		if ((r = tp_dm_info(t->name, &info)))
			return r;
		if (info.open_count <= 1)
			return 0;
		nanosleep(&tick, NULL);
	}
	return refuse_open(p, v, t);
}

/* Load the volume's thin device writable and hold it with O_EXCL. */
static int open_thin(struct pool *p, const struct vg_volume *v, struct wipe_thin *t)
{
	struct tp_dm_info info;
	int r;

	if ((r = tp_dm_name(t->name, sizeof(t->name), pool_name(p), TP_DM_ROLE_THIN, v->name)) ||
	    (r = tp_dm_path(t->path, sizeof(t->path), t->name)))
		return r;
	r = tp_dm_info(t->name, &info);
	if (r && r != -ENXIO)
		return r;
	t->was_loaded = !r;
	t->was_ro = !r && info.read_only;
	if (t->was_ro) {
		r = tp_dm_vol_deactivate(pool_name(p), v->name);
		if (r == -EBUSY)
			return refuse_open(p, v, t);
		if (r && r != -ENXIO)
			return r;
		t->changed = 1;
	}
	if (!t->was_loaded || t->was_ro) {
		r = tp_dm_vol_activate(pool_name(p), pool_vg(p)->uuid, v->name, v->dev_id, v->size / 512, 0);
		if (r) {
			log_error("pool %s: cannot load volume %s to wipe it: %s; the volume was "
				  "not removed", pool_name(p), v->name, strerror(-r));
			restore(p, v, t);
			return r;
		}
		t->changed = 1;
	}
	r = io_fd_open(t->path, IO_DIRECT | IO_EXCL, &t->io);
	if (r == -EBUSY)
		r = refuse_open(p, v, t);
	else if (r)
		log_error("pool %s: cannot open %s: %s; the volume was not removed", pool_name(p),
			  t->path, strerror(-r));
	else
		r = only_opener(p, v, t);
	if (r)
		restore(p, v, t);
	return r;
}

/* The runs the kernel would not write in place, or cannot reach. */
static int direct_run(const struct wipe_set *s, const struct wipe_run *run, uint64_t vend)
{
	return run->time < s->snap_time || run->vbegin + run->len > vend;
}

/* Split the runs at the volume's last whole chunk VEND, so each run is
 * wholly inside or outside it. */
static int split_at_end(struct wipe_set *s, uint64_t vend)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct wipe_run *r = &s->run[i];

		if (r->vbegin >= vend || r->vbegin + r->len <= vend)
			continue;
		if (s->nr == s->cap) {
			size_t cap = s->cap * 2;
			struct wipe_run *n = realloc(s->run, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			s->run = n;
			s->cap = cap;
			r = &s->run[i];
		}
		memmove(r + 1, r, (s->nr - i) * sizeof(*r));
		s->nr++;
		r[1].vbegin = vend;
		r[1].dbegin = r->dbegin + (vend - r->vbegin);
		r[1].len = r->len - (vend - r->vbegin);
		r->len = vend - r->vbegin;
	}
	return 0;
}

/* Zeros through the thin device at the virtual offsets of the in-place
 * runs, joining runs adjacent in the volume; then a flush. */
static int zero_through_kernel(struct wipe_thin *t, const struct wipe_set *s, uint64_t vend,
			       uint64_t chunk, const void *zeros,
			       const struct pool_wipe_params *wp, struct pool_wipe_result *res)
{
	uint64_t start = 0, len = 0;
	int r = 0;

	for (size_t i = 0; i <= s->nr && !r; i++) {
		const struct wipe_run *run = i < s->nr ? &s->run[i] : NULL;

		if (run && direct_run(s, run, vend))
			continue;
		if (run && len && start + len == run->vbegin) {
			len += run->len;
			continue;
		}
		if (len) {
			r = wipe_zero_range(t->io, start * chunk, len * chunk, zeros, wp, res);
			res->extents++;
		}
		if (run) {
			start = run->vbegin;
			len = run->len;
		}
	}
	return r ? r : io_flush(t->io);
}

/* The other runs on the data device, the thin device suspended. */
static int zero_on_data(struct pool *p, struct wipe_thin *t, const struct wipe_set *s,
			uint64_t vend, uint64_t chunk, const void *zeros,
			const struct pool_wipe_params *wp, struct pool_wipe_result *res)
{
	uint64_t base = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset, before = res->wiped;
	struct io_engine *data = NULL;
	int r, e;
	size_t i;

	for (i = 0; i < s->nr && !direct_run(s, &s->run[i], vend); i++)
		;
	if (i == s->nr)
		return 0;
	/* the data area anew, O_DIRECT beside the kernel; over every data
	 * device when there are several (chunk offsets as offline) */
	if ((r = pool_data_open(p, IO_DIRECT, &data)))
		return r;
	tp_critical_begin();
	r = tp_dm_suspend(t->name, 0);
	for (; i < s->nr && !r; i++)
		if (direct_run(s, &s->run[i], vend)) {
			r = wipe_zero_range(data, base + s->run[i].dbegin * chunk,
					    s->run[i].len * chunk, zeros, wp, res);
			res->extents++;
		}
	if (!r)
		r = io_flush(data);
	e = tp_dm_resume(t->name);
	tp_critical_end();
	io_destroy(data);
	res->direct += res->wiped - before;
	if (e)
		log_error("pool %s: cannot resume %s: %s; the next tptools command on the pool "
			  "resumes it", pool_name(p), t->name, strerror(-e));
	else if (r && r != -EINTR)
		log_error("pool %s: writing zeros to %s failed: %s", pool_name(p),
			  pool_pv(p, VG_ROLE_DATA)->io->name, strerror(-r));
	return r ? r : e;
}

int pool_volume_wipe_live(struct pool *p, const struct vg_volume *v,
			  const struct pool_wipe_params *wp, struct pool_wipe_result *res)
{
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, vend = v->size / chunk;
	struct tp_dm_pool_status ks;
	struct wipe_thin t = { 0 };
	struct pool_msnap snap;
	struct wipe_set s;
	void *zeros = NULL;
	int r, e;

	res->live = 1;
	r = tp_dm_pool_status(pool_dm_name(p), 0, &ks);
	if (r)
		return r;
	if (ks.fail || ks.error || ks.mode == TP_DM_MODE_RO || ks.needs_check) {
		log_error("pool %s is %s in the kernel: its mappings cannot be read live; "
			  "'tpdeactivate %s' and 'tpcheck %s', then 'tvremove --wipe' works "
			  "offline (volume %s not removed)", pool_name(p),
			  ks.fail || ks.error ? "failed" : "read-only", pool_name(p), pool_name(p), v->name);
		return -EBUSY;
	}
	if ((r = open_thin(p, v, &t)))
		return r;
	/* a device still loaded at an older, smaller size reaches less */
	if (t.io->size / chunk < vend)
		vend = t.io->size / chunk;
	if ((r = pool_msnap_begin(p, &snap)))
		goto out;
	r = wipe_find(pool_msnap_walk, &snap, ks.total_data_blocks, v->dev_id, &s);
	e = pool_msnap_end(&snap);
	if (!r && e)
		log_error("pool %s: cannot release the kernel's metadata snapshot: %s", pool_name(p),
			  strerror(-(r = e)));
	else if (r)
		log_error("pool %s: cannot read its mappings from the kernel's metadata "
			  "snapshot: %s; volume %s not removed", pool_name(p), strerror(-r), v->name);
	if (!r)
		r = split_at_end(&s, vend);
	if (!r && tp_copybuf_alloc(WIPE_BUF, &zeros))
		r = -ENOMEM;
	if (!r) {
		memset(zeros, 0, WIPE_BUF);
		for (size_t i = 0; i < s.nr; i++)
			res->planned += s.run[i].len * chunk;
		res->shared = s.shared * chunk;
		r = zero_through_kernel(&t, &s, vend, chunk, zeros, wp, res);
		if (r && r != -EINTR)
			log_error("pool %s: writing zeros to %s failed: %s; the volume was not "
				  "removed", pool_name(p), t.path, strerror(-r));
	}
	if (!r)
		r = zero_on_data(p, &t, &s, vend, chunk, zeros, wp, res);
	free(zeros);
	wipe_set_free(&s);
out:
	if (r) {
		restore(p, v, &t);
		return r;
	}
	io_destroy(t.io);
	return 0;
}
