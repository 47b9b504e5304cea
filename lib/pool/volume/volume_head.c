/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume_head.c - a volume's first bytes, offline (pool_volume.h): read
 * them, rewrite them without a byte written in place, and destroy them in
 * place. The LUKS2 header of an encrypted volume lives there; key changes
 * (the crypt module's crypt_keys.c) rewrite it, tvremove --wipe destroys it.
 *
 * Read: chunk by chunk through the committed mappings; an unmapped chunk
 * reads as zeros, as the kernel shows it.
 *
 * Rewrite: of each volume given, every chunk whose bytes changed goes into
 * a newly allocated data block (the whole chunk: the new bytes, and past
 * the head what the old chunk held), written and flushed, then mapped over
 * the old one in the same thin transaction (its data reference dropped:
 * a snapshot that shared it keeps the old bytes). One change under the
 * protocol (pool_change), every volume's chunks in it: a cut before the
 * thin commit leaves every old mapping (the new blocks are free again);
 * after it, every new one. The old block is never written before the
 * commit. After it, every old block whose last reference the change
 * dropped (free now: no snapshot or trash entry kept it) is overwritten
 * with random bytes and flushed: the old header's keyslots must not stay
 * in free space, where a revoked key would still open them. A block still
 * referenced (a snapshot keeps the old header) is not touched. A cut
 * between the commit and that overwrite leaves the old bytes in free
 * chunks until tptrim or the next key change of the volume (tvchange(8)).
 *
 * Erase: the head's chunks that only the volume maps are overwritten in
 * place with random bytes, the last chunk first and the first chunk (the
 * LUKS2 binary headers) alone at the end, after a flush: a cut leaves the
 * first chunk whole until every other chunk is random, so the next run
 * still reads how long the head is. Chunks another thin device maps too
 * (a snapshot, a trash entry) are left: they still serve it; their
 * holders are named. Nothing in the metadata changes; the caller removes
 * the volume afterwards.
 *
 * All offline: a live pool is refused by the callers (pool_refuse_live). */
#include "lib/pool/core/core.h"
#include "lib/pool/pool_volume.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define PIECE (1u << 20)	/* random bytes made at a time */

static uint64_t chunk_bytes(const struct pool *p)
{
	return (uint64_t)pool_vg(p)->chunk_size * 512;
}

static uint64_t data_base(const struct pool *p)
{
	return pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
}

/* The data block volume V maps at VBLOCK: 1 and *D, 0 when unmapped, or
 * -errno (logged). */
static int mapped_at(struct pool *p, const struct vg_volume *v, uint64_t vblock, uint64_t *d)
{
	int r = thin_lookup(pool_thin(p), v->dev_id, vblock, d, NULL);

	if (r == -ENODATA)
		return 0;
	if (r) {
		log_error("pool %s: cannot look up chunk %llu of volume %s: %s; run 'tpcheck %s'",
			  pool_name(p), (unsigned long long)vblock, v->name, strerror(-r),
			  pool_name(p));
		return r;
	}
	if (*d >= vg_data_chunks(pool_vg(p))) {
		log_error("pool %s: volume %s maps data chunk %llu beyond the data area; run "
			  "'tpcheck %s'", pool_name(p), v->name, (unsigned long long)*d,
			  pool_name(p));
		return -EUCLEAN;
	}
	return 1;
}

static int read_block(struct pool *p, uint64_t d, uint64_t from, void *buf, uint64_t len)
{
	struct io_engine *io = pool_pv(p, VG_ROLE_DATA)->io;
	int r = io_read(io, data_base(p) + d * chunk_bytes(p) + from, buf, (size_t)len);

	if (r)
		log_error("pool %s: cannot read data chunk %llu: %s", pool_name(p),
			  (unsigned long long)d, strerror(-r));
	return r;
}

static int write_block(struct pool *p, uint64_t d, uint64_t from, const void *buf, uint64_t len)
{
	struct io_engine *io = pool_pv(p, VG_ROLE_DATA)->io;
	int r = io_write(io, data_base(p) + d * chunk_bytes(p) + from, buf, (size_t)len);

	if (r)
		log_error("pool %s: cannot write data chunk %llu: %s", pool_name(p),
			  (unsigned long long)d, strerror(-r));
	return r;
}

static int flush_data(struct pool *p)
{
	struct io_engine *io = pool_pv(p, VG_ROLE_DATA)->io;
	int r = io_flush(io);

	if (r)
		log_error("pool %s: cannot flush %s: %s", pool_name(p), io->name, strerror(-r));
	return r;
}

static int offline_volume(struct pool *p, const char *name, uint64_t len,
			  const struct vg_volume **out)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), name);

	*out = v;
	if (!v)
		return pool_volume_missing(p, name);
	if (pool_is_live(p) || !pool_thin(p))
		return TP_BUG("pool %s: a volume's head is read and written offline only",
			      pool_name(p));
	if (!len || len > v->size) {
		log_error("volume %s: its first %llu bytes were asked for, but it holds %llu",
			  name, (unsigned long long)len, (unsigned long long)v->size);
		return -EINVAL;
	}
	return 0;
}

/* ---- read ---- */

int pool_volume_head_read(struct pool *p, const char *name, uint64_t len, void *buf)
{
	const struct vg_volume *v;
	uint64_t chunk = chunk_bytes(p), d;
	unsigned char *b = buf;
	int r = offline_volume(p, name, len, &v);

	for (uint64_t at = 0; !r && at < len; at += chunk) {
		uint64_t n = TP_MIN(chunk, len - at);

		if ((r = mapped_at(p, v, at / chunk, &d)) < 0)
			break;
		if (!r)
			memset(b + at, 0, (size_t)n);
		r = r ? read_block(p, d, 0, b + at, n) : 0;
	}
	return r;
}

/* ---- rewrite ---- */

struct rewrite {
	struct pool_head_write *w;
	unsigned n;
	unsigned char *buf;	/* one chunk */
	struct remap { uint32_t dev_id; uint64_t vblock, d, old; int had_old; } *remap;
	size_t nr_remap;
};

/* Chunk VB of W: its bytes changed? */
static int chunk_changed(const struct pool_head_write *w, uint64_t chunk, uint64_t vb)
{
	uint64_t at = vb * chunk, n = TP_MIN(chunk, w->len - at);

	return memcmp((const unsigned char *)w->old + at, (const unsigned char *)w->new + at,
		      (size_t)n) != 0;
}

/* The new content of chunk VB of volume V in RW->buf: the head's new
 * bytes, and past the head the chunk's old ones. */
static int new_chunk(struct pool *p, const struct vg_volume *v, const struct pool_head_write *w,
		     uint64_t vb, unsigned char *buf)
{
	uint64_t chunk = chunk_bytes(p), at = vb * chunk, n = TP_MIN(chunk, w->len - at), d;
	int r;

	memcpy(buf, (const unsigned char *)w->new + at, (size_t)n);
	if (n == chunk)
		return 0;
	memset(buf + n, 0, (size_t)(chunk - n));
	if ((r = mapped_at(p, v, vb, &d)) <= 0)
		return r;
	return read_block(p, d, n, buf + n, chunk - n);
}

static int apply_rewrite(struct pool *p, const void *arg)
{
	const struct rewrite *rwc = arg;
	struct rewrite *rw = (struct rewrite *)rwc;
	uint64_t chunk = chunk_bytes(p);
	int r = 0;

	rw->nr_remap = 0;
	for (unsigned i = 0; i < rw->n && !r; i++) {
		struct pool_head_write *w = &rw->w[i];
		const struct vg_volume *v = vg_find_volume(pool_vg(p), w->vol);

		w->chunks = 0;
		if (!v)
			return TP_BUG("pool %s: volume %s went during its own change", pool_name(p),
				      w->vol);
		for (uint64_t vb = 0; vb * chunk < w->len && !r; vb++) {
			uint64_t d;

			if (!chunk_changed(w, chunk, vb))
				continue;
			if ((r = new_chunk(p, v, w, vb, rw->buf)))
				break;
			if ((r = thin_alloc_data_block(pool_thin(p), &d))) {
				if (r == -ENOSPC)
					log_error("pool %s is out of data space: the new copy of "
						  "volume %s's header needs a free chunk; extend the "
						  "pool (tpextend) or free space, then run it again",
						  pool_name(p), w->vol);
				else
					log_error("pool %s: allocating a data chunk: %s",
						  pool_name(p), strerror(-r));
				break;
			}
			if ((r = write_block(p, d, 0, rw->buf, chunk)))
				break;
			rw->remap[rw->nr_remap] = (struct remap){ v->dev_id, vb, d, 0, 0 };
			/* the block it maps now: overwritten after the commit if
			 * the change drops its last reference */
			if ((r = mapped_at(p, v, vb, &rw->remap[rw->nr_remap].old)) < 0)
				break;
			rw->remap[rw->nr_remap++].had_old = r;
			r = 0;
			w->chunks++;
		}
	}
	/* every new block durable before any mapping names it */
	if (!r)
		r = flush_data(p);
	tp_test_pause("head-written");
	for (size_t i = 0; !r && i < rw->nr_remap; i++) {
		const struct remap *m = &rw->remap[i];

		if ((r = thin_insert_mapping_alloced(pool_thin(p), m->dev_id, m->vblock, m->d)))
			log_error("pool %s: cannot map the new copy of chunk %llu of thin device "
				  "%u: %s", pool_name(p), (unsigned long long)m->vblock, m->dev_id,
				  strerror(-r));
	}
	return r;
}

static int randomize_block(struct pool *p, uint64_t d, unsigned char *buf);

/* After the commit of RW: every old block no device maps any more gets
 * random bytes, then one flush. The change stands whatever happens here:
 * a failure is said, with what to do, and not returned. */
static void erase_freed(struct pool *p, const struct rewrite *rw, unsigned char *buf)
{
	unsigned erased = 0;
	int r = 0;

	tp_test_pause("head-committed");
	for (size_t i = 0; !r && i < rw->nr_remap; i++) {
		const struct remap *m = &rw->remap[i];
		uint32_t count = 1;
		int seen = 0;

		if (!m->had_old)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = rw->remap[j].had_old && rw->remap[j].old == m->old;
		if (seen)
			continue;
		if ((r = thin_data_count(pool_thin(p), m->old, &count))) {
			log_error("pool %s: cannot read the reference count of data chunk %llu: %s",
				  pool_name(p), (unsigned long long)m->old, strerror(-r));
			break;
		}
		if (count)
			continue;	/* still serves a snapshot or a trash entry */
		if (!(r = randomize_block(p, m->old, buf)))
			erased++;
	}
	if (!r && erased)
		r = flush_data(p);
	if (r)
		log_warn("pool %s: the change was made, but the chunks of the old header it freed "
			 "could not all be overwritten: the old keyslots may stay in free space; run "
			 "'tptrim %s' with the pool inactive, or change the key again",
			 pool_name(p), pool_name(p));
}

int pool_volume_heads_rewrite(struct pool *p, struct pool_head_write *w, unsigned n)
{
	uint64_t chunk = chunk_bytes(p), total = 0;
	struct rewrite rw = { w, n, NULL, NULL, 0 };
	struct vg *next;
	int r = 0;

	for (unsigned i = 0; i < n && !r; i++) {
		const struct vg_volume *v;

		w[i].chunks = 0;
		if (!(r = offline_volume(p, w[i].vol, w[i].len, &v)))
			r = pool_volume_refuse_readonly(p, w[i].vol, "rewriting its header");
		for (uint64_t vb = 0; !r && vb * chunk < w[i].len; vb++)
			total += chunk_changed(&w[i], chunk, vb);
	}
	if (r)
		return r;
	if (!total)
		return 0;	/* the same bytes: nothing to write, no change */
	if ((r = pool_guard(p, "rewriting a volume's header", "nothing was changed", 0)))
		return r;
	rw.remap = calloc(total, sizeof(*rw.remap));
	if (!rw.remap || posix_memalign((void **)&rw.buf, 4096, chunk)) {
		free(rw.remap);
		return -ENOMEM;
	}
	if ((r = vg_clone(pool_vg(p), &next)) == 0) {
		/* one change: the VG (only its transaction id moves) then the thin
		 * side; signals wait for its end */
		tp_critical_begin();
		r = pool_change(p, next, apply_rewrite, &rw);
		if (!r)
			erase_freed(p, &rw, rw.buf);
		tp_critical_end();
	}
	if (r)
		for (unsigned i = 0; i < n; i++)
			w[i].chunks = 0;
	free(rw.buf);
	free(rw.remap);
	return r;
}

/* ---- erase ---- */

/* Add NAME to the list LIST ("a, b") of LEN bytes unless it is there:
 * 1 when added. */
static int list_add(char *list, size_t len, const char *name)
{
	size_t used = strlen(list), n = strlen(name);

	for (const char *s = list; (s = strstr(s, name)); s += n)
		if ((s == list || s[-1] == ' ') && (!s[n] || s[n] == ','))
			return 0;
	if (used + n + 3 < len)
		snprintf(list + used, len - used, "%s%s", used ? ", " : "", name);
	return 1;
}

/* Add NAME to RES->holders ("a, b") unless it is there; a volume's or a
 * trash entry's name also to RES->vols or RES->trash (WHAT "" or "trash
 * entry "; NULL: not a name), the lists the advice names commands
 * for. */
static void add_holder(struct pool_head_erase *res, const char *what, const char *name)
{
	char item[VG_NAME_MAX + 32];

	if (!what)	/* a holder the VG does not name */
		what = "";
	else if (!strcmp(what, ""))
		res->nr_vols += list_add(res->vols, sizeof(res->vols), name);
	else if (!strcmp(what, "trash entry "))
		res->nr_trash += list_add(res->trash, sizeof(res->trash), name);
	snprintf(item, sizeof(item), "%s%s", what, name);
	res->nr_holders += list_add(res->holders, sizeof(res->holders), item);
}

/* Who else maps data block D at VBLOCK: the volumes, trash entries and
 * removals under way of P's VG other than V. */
static int name_holders(struct pool *p, const struct vg_volume *v, uint64_t vblock, uint64_t d,
			struct pool_head_erase *res)
{
	const struct vg *vg = pool_vg(p);
	const struct { const struct vg_volume *set; unsigned n; const char *what; } lists[] = {
		{ vg->volumes, vg->nr_volumes, "" },
		{ vg->trash, vg->nr_trash, "trash entry " },
		{ vg->removals, vg->nr_removals, "removal under way of " },
	};
	unsigned found = 0;

	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (unsigned i = 0; i < lists[l].n; i++) {
			const struct vg_volume *o = &lists[l].set[i];
			uint64_t od;
			int r;

			if (o->dev_id == v->dev_id)
				continue;
			r = thin_lookup(pool_thin(p), o->dev_id, vblock, &od, NULL);
			if (r == -ENODATA || (!r && od != d))
				continue;
			if (r)
				return r;
			add_holder(res, lists[l].what, o->name);
			found++;
		}
	if (!found)
		add_holder(res, NULL, "another thin device");
	return 0;
}

static int fill_random(unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = getrandom(buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

static int randomize_block(struct pool *p, uint64_t d, unsigned char *buf)
{
	uint64_t chunk = chunk_bytes(p);
	int r = 0;

	for (uint64_t at = 0; at < chunk && !r; at += PIECE) {
		uint64_t n = TP_MIN((uint64_t)PIECE, chunk - at);

		if ((r = fill_random(buf, (size_t)n))) {
			log_error("cannot get random bytes: %s", strerror(-r));
			break;
		}
		r = write_block(p, d, at, buf, n);
	}
	return r;
}

int pool_volume_head_erase(struct pool *p, const char *name, uint64_t len,
			   struct pool_head_erase *res)
{
	const struct vg_volume *v;
	uint64_t chunk = chunk_bytes(p), n, *own = NULL;
	unsigned char *buf = NULL;
	size_t nr_own = 0;
	int r;

	memset(res, 0, sizeof(*res));
	if ((r = offline_volume(p, name, len, &v)))
		return r;
	n = (len + chunk - 1) / chunk;
	if (!(own = calloc(n, sizeof(*own))) || posix_memalign((void **)&buf, 4096, PIECE)) {
		free(own);
		return -ENOMEM;
	}
	/* which chunks of the head only V maps: in ascending order */
	for (uint64_t vb = 0; vb < n && !r; vb++) {
		uint64_t d;
		int shared;

		if ((r = mapped_at(p, v, vb, &d)) <= 0) {
			res->unmapped += r == 0;
			continue;
		}
		if ((r = thin_mapping_shared(pool_thin(p), v->dev_id, vb, &shared))) {
			log_error("pool %s: cannot tell whether chunk %llu of volume %s is shared: "
				  "%s", pool_name(p), (unsigned long long)vb, name, strerror(-r));
			break;
		}
		if (shared) {
			res->shared++;
			r = name_holders(p, v, vb, d, res);
			continue;
		}
		/* the first chunk, when V's alone, is own[0]: it goes last */
		res->first_own |= vb == 0;
		own[nr_own++] = d;
		r = 0;
	}
	/* the last chunk first; the first (the binary headers) alone, last,
	 * after a flush of all the others; a signal stops it before a chunk */
	tp_critical_begin();
	for (size_t k = 0; !r && k < nr_own; k++) {
		/* k-th chunk written: own[nr_own-1] .. own[first_own], then own[0] */
		size_t i = k < nr_own - (size_t)res->first_own ? nr_own - 1 - k : 0;

		if (res->first_own && i == 0 && nr_own > 1 && (r = flush_data(p)))
			break;
		tp_test_pause_n("erase-chunk", k + 1);
		if (tp_critical_pending()) {
			r = -EINTR;
			break;
		}
		if (!(r = randomize_block(p, own[i], buf)))
			res->erased++;
	}
	if (!r)
		r = flush_data(p);
	if (r == -EINTR)
		log_error("pool %s: the erase of volume %s's header was stopped by a signal after "
			  "%llu of %zu chunks; the volume was not removed; run 'tvremove --wipe "
			  "%s/%s' again", pool_name(p), name, (unsigned long long)res->erased, nr_own,
			  pool_name(p), name);
	tp_critical_end();
	free(buf);
	free(own);
	return r;
}
