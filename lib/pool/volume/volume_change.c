/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume_change.c - resize and rename a thin volume (pool.h).
 *
 * A thin volume's virtual size and name live in the VG only (the thin
 * metadata knows a device id and its mappings), so growing, shrinking
 * over unmapped space and renaming are one VG commit each. A shrink with
 * --force over mapped chunks also unmaps them in the thin metadata: one
 * change under the transaction-id protocol (pool_change), so a crash
 * between the two commits leaves the VG with the new size and the chunks
 * still mapped beyond its end: the next command completes the change
 * (pool_beyond.c, from pool_txn.c), before a grow could show them
 * again. A volume the kernel has loaded grows by a reload of its table
 * after the VG commit (volume_live.c); it is not shrunk or renamed (its
 * table carries its size, its dm name the name).
 *
 * A size inside a chunk: the bytes of the last chunk past the end read as
 * zeros after a grow (core.h, pool_tail_*). A shrink counts those it cuts
 * off as data unless they are zeros, and zeroes the rest of the new last
 * chunk in its change; a grow zeroes them first offline (an earlier
 * tptools left them), and refuses live when they are not zeros. */
#include "lib/pool/core/core.h"
#include "lib/pool/volume/volume_int.h"
#include "lib/pool/pool_volume.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* -EBUSY (logged) when volume NAME of a live pool is loaded. */
static int refuse_loaded(struct pool *p, const char *name, const char *what)
{
	struct tp_dm_info info;

	if (pool_volume_loaded(p, name, &info) <= 0)
		return 0;
	log_error("pool %s: volume %s is active; %s it needs it deactivated first "
		  "('tpdeactivate %s %s')", pool_name(p), name, what, pool_name(p), name);
	return -EBUSY;
}

static struct vg_volume *find(struct pool *p, const char *name)
{
	struct vg_volume *v = vg_find_volume(pool_vg(p), name);

	if (!v)
		pool_volume_missing(p, name);
	return v;
}

/* ---- resize ---- */

static int new_size(const char *name, const struct vg_volume *v, int relative,
		    uint64_t size, uint64_t *out)
{
	char a[32], b[32];

	if (relative < 0 && size >= v->size) {
		log_error("volume %s: cannot take %s away from %s", name,
			  tp_size_format(size, 'h', a, sizeof(a)),
			  tp_size_format(v->size, 'h', b, sizeof(b)));
		return -EINVAL;
	}
	if (relative > 0 && size > POOL_VOLUME_MAX_BYTES - v->size)
		size = POOL_VOLUME_MAX_BYTES;
	else if (relative)
		size = relative > 0 ? v->size + size : v->size - size;
	return pool_volume_size_check(name, size, out);
}

/* A forced shrink's thin side: the chunks beyond the new end unmapped,
 * the rest of the new last chunk made zeros. */
struct shrink {
	struct pool_beyond b;
	struct pool_tail t;
};

static int shrink_apply(struct pool *p, const void *arg)
{
	const struct shrink *s = arg;
	int remapped, r = pool_unmap_beyond(p, &s->b);

	return r ? r : pool_tail_zero(p, &s->t, &remapped);
}

/* Before a grow of volume NAME (thin id DEV_ID) from OLD: the rest of its
 * last chunk, which the grow shows, made zeros (offline), or the grow
 * refused (live: the kernel may write that chunk). */
static int grow_tail(struct pool *p, const char *name, uint32_t dev_id, uint64_t old)
{
	struct pool_tail t;
	char a[32];
	int r;

	if ((r = pool_tail_read(p, dev_id, old, old, &t)) || !t.dirty)
		return r;
	if (pool_is_live(p)) {
		log_error("volume %s: its last chunk holds bytes that are not zeros past its end "
			  "(left by a shrink of an earlier tptools, or a chunk provisioned "
			  "without zeroing), which the grow would show; deactivate the pool "
			  "('tpdeactivate %s') and grow it offline, which zeroes them", name,
			  pool_name(p));
		return -EBUSY;
	}
	if ((r = pool_guard(p, "the grow", "nothing was changed", 0)))
		return r;
	if (!(r = pool_tail_clear(p, &t)))
		log_info("volume %s: zeroed the %s past its old end in its last chunk", name,
			 tp_size_format((uint64_t)pool_vg(p)->chunk_size * 512 - t.from, 'h', a,
					sizeof(a)));
	return r;
}

int pool_volume_resize(struct pool *p, const char *name, int relative, uint64_t size,
		       int force, uint64_t *old, uint64_t *new_size_out, uint64_t *unmapped)
{
	const struct vg_volume *v = find(p, name);
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, want, lost;
	uint32_t dev_id;
	struct shrink s;
	struct vg *next;
	char a[32];
	int r;

	*unmapped = 0;
	if (!v)
		return -ENOENT;
	*old = *new_size_out = v->size;
	dev_id = v->dev_id;
	if ((r = new_size(name, v, relative, size, &want)))
		return r;
	if (want == v->size)	/* no commit; a loaded volume is reloaded at that
				 * size, which finishes a live grow cut short */
		return pool_volume_live_grow(p, name, dev_id, want);
	if (want < v->size && (r = refuse_loaded(p, name, "shrinking")))
		return r;
	if (want < v->size && (r = pool_refuse_live(p, "shrinking a volume")))
		return r;
	if (want < v->size && (r = pool_guard(p, "the shrink", "nothing was changed", 0)))
		return r;
	if (want > v->size && (r = grow_tail(p, name, dev_id, v->size)))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	vg_find_volume(next, name)->size = want;
	memset(&s, 0, sizeof(s));
	if (want < v->size && ((r = pool_find_beyond(p, next, 0, v->dev_id, &s.b)) ||
			       (r = pool_tail_read(p, v->dev_id, want, v->size, &s.t))))
		goto fail;
	/* what the volume shows that the shrink cuts off: the chunks beyond the
	 * new end, and the rest of the new last chunk unless it is all zeros */
	lost = s.b.n * chunk + (s.t.data ? TP_MIN(v->size, (s.t.vblock + 1) * chunk) - want : 0);
	if (lost && (r = pool_volume_refuse_readonly(p, name, "unmapping data beyond the new end")))
		goto fail;
	if (lost && !force) {
		log_error("volume %s: %s of data is mapped beyond the new end; shrinking would "
			  "lose it (--force unmaps it, and zeroes what the new last chunk holds "
			  "past the end)", name, tp_size_format(lost, 'h', a, sizeof(a)));
		r = -ENOTEMPTY;
		goto fail;
	}
	r = s.b.n || s.t.dirty ? pool_change(p, next, shrink_apply, &s) : pool_commit_vg(p, next);
	/* a loaded volume takes its new size by a table reload (volume_live.c) */
	if (!r && want >= *old)
		r = pool_volume_live_grow(p, name, dev_id, want);
	if (!r) {
		*new_size_out = want;
		*unmapped = lost;
	}
	pool_beyond_free(&s.b);
	return r;
fail:
	pool_beyond_free(&s.b);
	vg_free(next);
	return r;
}

/* ---- rename ---- */

int pool_volume_rename(struct pool *p, const char *old, const char *new_name)
{
	struct vg *next;
	int r;

	if (!find(p, old))
		return -ENOENT;
	if ((r = pool_name_free(p, new_name)) || (r = refuse_loaded(p, old, "renaming")))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	snprintf(vg_find_volume(next, old)->name, VG_NAME_MAX + 1, "%s", new_name);
	for (unsigned i = 0; i < next->nr_volumes; i++)
		if (!strcmp(next->volumes[i].origin, old))
			snprintf(next->volumes[i].origin, VG_NAME_MAX + 1, "%s", new_name);
	return pool_commit_vg(p, next);
}
