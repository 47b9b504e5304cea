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
 * table carries its size, its dm name the name). */
#include "lib/pool/core/core.h"

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
		pool_no_volume(pool_name(p), name);
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

int pool_volume_resize(struct pool *p, const char *name, int relative, uint64_t size,
		       int force, uint64_t *old, uint64_t *new_size_out, uint64_t *unmapped)
{
	const struct vg_volume *v = find(p, name);
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, want;
	uint32_t dev_id;
	struct pool_beyond b;
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
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	vg_find_volume(next, name)->size = want;
	memset(&b, 0, sizeof(b));
	if (want < v->size && (r = pool_find_beyond(p, next, 0, v->dev_id, &b)))
		goto fail;
	if (b.n && (r = pool_volume_refuse_readonly(p, name, "unmapping data beyond the new end")))
		goto fail;
	if (b.n && !force) {
		log_error("volume %s: %s of data is mapped beyond the new end; shrinking would "
			  "lose it (--force unmaps it)", name,
			  tp_size_format(b.n * chunk, 'h', a, sizeof(a)));
		r = -ENOTEMPTY;
		goto fail;
	}
	r = b.n ? pool_change(p, next, pool_unmap_beyond, &b) : pool_commit_vg(p, next);
	/* a loaded volume takes its new size by a table reload (volume_live.c) */
	if (!r && want >= *old)
		r = pool_volume_live_grow(p, name, dev_id, want);
	if (!r) {
		*new_size_out = want;
		*unmapped = b.n * chunk;
	}
	pool_beyond_free(&b);
	return r;
fail:
	pool_beyond_free(&b);
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
