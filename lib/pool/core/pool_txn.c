/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_txn.c - the transaction-id protocol between the VG metadata and the
 * thin metadata, or the kernel's pool when it is live (pool.h explains
 * it): detect an interrupted change and complete it from the VG, which is
 * committed first as the journal. */
#include "lib/pool/core/core_int.h"

#include "kernel/dm.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_id(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ids[mid] == id)
			return 1;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Count the differences between the VG's volumes and unfinished
 * receives and the thin devices IDS (sorted), when the span of IDS is
 * not much larger than their number (ids are given out from 1 up): a
 * bitmap of IDS over that span, and one of those a VG entry names, so
 * that each entry and each id costs a few instructions (issue 40: the
 * count is made at every open). -1 when the span is too wide or there
 * is no memory for it. */
static long count_diff_bitmap(const struct vg *vg, const uint64_t *ids, size_t n)
{
	const struct vg_volume *lists[4] = { vg->volumes, vg->receives, vg->removals, vg->trash };
	const unsigned counts[4] = { vg->nr_volumes, vg->nr_receives, vg->nr_removals,
				     vg->nr_trash };
	uint64_t base = n ? ids[0] : 0, span;
	uint64_t *have, *named;
	size_t words, matched = 0;
	long diff = 0;

	if (n && ids[n - 1] - base >= (uint64_t)n * 64 + 65536)
		return -1;
	span = n ? ids[n - 1] - base + 1 : 0;
	words = (size_t)(span / 64) + 1;
	if (!(have = calloc(2 * words, sizeof(*have))))
		return -1;
	named = have + words;
	/* an offset below BASE wraps round to above SPAN */
	for (size_t i = 0; i < n; i++) {
		uint64_t off = ids[i] - base;

		if (off >= span) {	/* not sorted after all */
			free(have);
			return -1;
		}
		have[off / 64] |= 1ull << (off % 64);
	}
	for (unsigned l = 0; l < 4; l++) {
		const struct vg_volume *e = lists[l], *end = e + counts[l];

		for (; e < end; e++) {
			uint64_t off = (uint64_t)e->dev_id - base, bit = 1ull << (off % 64);

			if (off >= span || !(have[off / 64] & bit)) {
				diff += l < 2;	/* a volume or receive without its device */
				continue;
			}
			matched += !(named[off / 64] & bit);
			named[off / 64] |= bit;
		}
	}
	free(have);
	return diff + (long)(n - matched);	/* the devices no entry names */
}

/* The same count for any IDS: the VG's ids sorted once, so that it is not
 * quadratic in the volume count; without memory for that, one search of
 * the VG per id. */
static unsigned count_diff(const struct vg *vg, const uint64_t *ids, size_t n)
{
	const struct vg_volume *lists[4] = { vg->volumes, vg->receives, vg->removals, vg->trash };
	const unsigned counts[4] = { vg->nr_volumes, vg->nr_receives, vg->nr_removals,
				     vg->nr_trash };
	size_t nv = (size_t)counts[0] + counts[1] + counts[2] + counts[3], k = 0;
	long fast = count_diff_bitmap(vg, ids, n);
	uint64_t *known;
	unsigned diff = 0;

	if (fast >= 0)
		return (unsigned)fast;
	known = malloc((nv + 1) * sizeof(*known));
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		diff += !has_id(ids, n, vg->volumes[i].dev_id);
	for (unsigned i = 0; i < vg->nr_receives; i++)
		diff += !has_id(ids, n, vg->receives[i].dev_id);
	if (!known) {
		for (size_t i = 0; i < n; i++)
			diff += !vg_find_dev_id(vg, (uint32_t)ids[i]);
		return diff;
	}
	for (unsigned l = 0; l < 4; l++)
		for (unsigned i = 0; i < counts[l]; i++)
			known[k++] = lists[l][i].dev_id;
	qsort(known, nv, sizeof(*known), cmp_u64);
	for (size_t i = 0; i < n; i++)
		diff += !has_id(known, nv, ids[i]);
	free(known);
	return diff;
}

/* Offline: unmap what lies beyond the volumes' ends (an interrupted
 * forced shrink) and grow the thin metadata's space maps to the areas the
 * VG records (an interrupted tpextend; the window over the active area
 * already has the VG's size). Live: the kernel grows its own when its
 * tables are reloaded at the VG's sizes (what a tpextend cut after its VG
 * commit had not done yet). */
static int replay_growth(struct pool *p)
{
	uint64_t data = vg_data_chunks(p->vg);
	uint64_t meta = p->vg->dev[VG_ROLE_META].area[p->vg->metadata_area].size /
			THIN_METADATA_BLOCK_SIZE;
	uint64_t meta_now, data_now;
	struct pool_extend_result grown;
	int r;

	if (p->be->live)
		return (r = pool_live_catch_up(p, &grown)) > 0 ? 0 : r;
	if ((r = pool_unmap_beyond_ends(p)))
		return r;
	if (meta > THIN_METADATA_MAX_BLOCKS)
		meta = THIN_METADATA_MAX_BLOCKS;
	if ((r = thin_usage(p->md, NULL, &meta_now, NULL, &data_now)))
		return r;
	if (meta_now < meta) {
		if ((r = thin_resize_metadata(p->md, meta)))
			return r;
		log_warn("pool %s: completed the interrupted growth of the thin-metadata area to "
			 "%llu blocks", p->name, (unsigned long long)meta);
	}
	if (data_now < data) {
		if ((r = thin_resize_data(p->md, data)))
			return r;
		log_warn("pool %s: completed the interrupted growth of the data area to %llu "
			 "chunks", p->name, (unsigned long long)data);
	}
	return 0;
}

/* ---- live: a device an interrupted change left loaded ---- */

struct loaded {
	const char *uuid;
	char *name;
	size_t len;
};

static int find_loaded(const char *name, const char *uuid, void *arg)
{
	struct loaded *l = arg;

	if (strcmp(uuid, l->uuid))
		return 0;
	snprintf(l->name, l->len, "%s", name);
	return 1;
}

/* The loaded dm device of P that maps thin id ID, if any (a volume whose
 * rollback was cut after the VG commit still maps its old id): removed,
 * its dm name in NAME ("" when none was loaded). -EBUSY (logged) while it
 * is open. */
static int unload_id(struct pool *p, uint32_t id, char *name, size_t len)
{
	char uuid[TP_DM_UUID_MAX];
	struct loaded l = { uuid, name, len };
	int r;

	name[0] = '\0';
	if ((r = tp_dm_uuid(uuid, sizeof(uuid), p->vg->uuid, TP_DM_ROLE_THIN, id)))
		return r;
	if ((r = tp_dm_list(uuid, find_loaded, &l)) < 0)
		return r;
	if (!name[0])
		return 0;
	if (tp_dm_name_is_luks(name)) {
		/* an encrypted volume's hidden thin device: its dm-crypt
		 * device (uuid crypt<ID>) goes first */
		char top[TP_DM_NAME_MAX];
		struct loaded t = { uuid, top, sizeof(top) };

		top[0] = '\0';
		if ((r = tp_dm_uuid(uuid, sizeof(uuid), p->vg->uuid, TP_DM_ROLE_CRYPT, id)) ||
		    (r = tp_dm_list(uuid, find_loaded, &t)) < 0)
			return r;
		if (top[0] && (r = tp_dm_remove(top)) && r != -ENXIO) {
			if (r == -EBUSY)
				log_error("pool %s: %s still maps thin device %u, which an "
					  "interrupted change removes; close it (unmount it) and "
					  "run the command again", p->name, top, id);
			return r;
		}
	}
	r = tp_dm_remove(name);
	if (r == -EBUSY)
		log_error("pool %s: %s still maps thin device %u, which an interrupted change "
			  "removes; close it (unmount it) and run the command again", p->name, name,
			  id);
	return r == -ENXIO ? 0 : r;
}

/* Volume devices a live replay unloaded, to load again afterwards. */
struct reload {
	unsigned n;
	char dm[8][TP_DM_NAME_MAX];
};

/* Load again, on the thin device the VG now gives it, each volume whose
 * device RL names. */
static void reload_volumes(struct pool *p, const struct reload *rl)
{
	char dm[TP_DM_NAME_MAX], luks[TP_DM_NAME_MAX];

	for (unsigned i = 0; i < p->vg->nr_volumes && rl->n; i++) {
		const struct vg_volume *v = &p->vg->volumes[i];

		if (tp_dm_name(dm, sizeof(dm), p->name, TP_DM_ROLE_THIN, v->name))
			continue;
		if (!v->luks_uuid[0] || tp_dm_luks_name(luks, sizeof(luks), p->name, v->name))
			luks[0] = '\0';
		for (unsigned j = 0; j < rl->n; j++)
			if ((!strcmp(dm, rl->dm[j]) || !strcmp(luks, rl->dm[j])) &&
			    pool_load_volume(p, v))
				log_warn("pool %s: load %s again with 'tpactivate %s %s'", p->name,
					 v->name, p->name, v->name);
	}
}

/* Replay the VG's intent onto the thin devices IDS (uncommitted when
 * offline; through pool messages when live). Live, a device that still
 * maps an id the VG dropped (a volume whose rollback was cut) is unloaded
 * first and noted in RL. */
static int replay(struct pool *p, const uint64_t *ids, size_t n, struct reload *rl)
{
	const struct vg *vg = p->vg;
	char dm[TP_DM_NAME_MAX];
	int r = replay_growth(p);

	if (r)
		return r;

	for (size_t i = 0; i < n; i++) {
		if (vg_find_dev_id(vg, (uint32_t)ids[i]))
			continue;
		if (p->be->live) {
			if ((r = unload_id(p, (uint32_t)ids[i], dm, sizeof(dm))))
				return r;
			if (dm[0]) {
				log_warn("pool %s: unloaded %s, which still mapped thin device %llu",
					 p->name, dm, (unsigned long long)ids[i]);
				if (rl->n < TP_ARRAY_SIZE(rl->dm))
					snprintf(rl->dm[rl->n++], sizeof(rl->dm[0]), "%s", dm);
			}
		}
		r = pool_op_delete(p, (uint32_t)ids[i], NULL);
		if (r)
			return r;
		log_warn("pool %s: completed the interrupted removal of thin device %llu", p->name,
			 (unsigned long long)ids[i]);
	}
	/* an unfinished receive gets its thin device, as the receive's first
	 * step made it (empty, or the base's snapshot), and stays unfinished:
	 * its data is in no commit yet, so it is not made a volume here */
	for (unsigned i = 0; i < vg->nr_volumes + vg->nr_receives; i++) {
		int recv = i >= vg->nr_volumes;
		const struct vg_volume *v = recv ? &vg->receives[i - vg->nr_volumes]
						 : &vg->volumes[i];
		const struct vg_volume *o = v->origin[0] ? vg_find_volume(vg, v->origin) : NULL;

		if (has_id(ids, n, v->dev_id))
			continue;
		if (o && has_id(ids, n, o->dev_id))
			r = pool_op_snap(p, v->dev_id, o);
		else
			r = pool_op_create(p, v->dev_id);
		if (r)
			return r;
		if (recv)
			log_warn("pool %s: the receive of %s had been cut before its first commit; "
				 "it stays unfinished, with none of its data", p->name, v->name);
		else
			log_warn("pool %s: completed the interrupted creation of %s %s (thin "
				 "device %u)", p->name, o ? "snapshot" : "volume", v->name,
				 v->dev_id);
	}
	return 0;
}

int pool_reconcile(struct pool *p, int write)
{
	uint64_t tid, want = p->vg->transaction_id, *ids = NULL;
	size_t n = 0;
	unsigned diff;
	struct reload rl = { 0 };
	int r;

	r = thin_get_transaction_id(p->md, &tid);
	if (!r)
		r = thin_list_devices(p->md, &ids, &n);
	if (r) {
		log_error("pool %s: cannot read its thin metadata: %s; run 'tpcheck %s'", p->name,
			  strerror(-r), p->name);
		return r;
	}
	diff = count_diff(p->vg, ids, n);
	if (tid == want) {
		if (diff)
			log_warn("pool %s: the VG metadata and the thin metadata list different "
				 "volumes (%u difference%s) at the same transaction %llu; run "
				 "'tpcheck %s'", p->name, diff, tp_plural(diff), (unsigned long long)tid,
				 p->name);
		free(ids);
		return 0;
	}
	if (tid + 1 != want) {
		log_error("pool %s: transaction id mismatch: the VG metadata says %llu, the thin "
			  "metadata says %llu; this was not made by an interrupted tptools "
			  "command. Run 'tpcheck %s' and see tprepair(8)", p->name,
			  (unsigned long long)want, (unsigned long long)tid, p->name);
		free(ids);
		return -EUCLEAN;
	}
	if (!write) {
		log_warn("pool %s: transaction %llu was interrupted (the VG metadata was written, "
			 "the thin metadata was not); the next change to the pool completes it",
			 p->name, (unsigned long long)want);
		free(ids);
		return 0;
	}
	tp_critical_begin();
	r = replay(p, ids, n, &rl);
	if (!r)
		r = thin_set_transaction_id(p->md, tid, want);
	if (!r)
		r = thin_commit(p->md);
	tp_critical_end();
	free(ids);
	if (r) {
		int a = thin_abort(p->md);

		log_error("pool %s: could not complete interrupted transaction %llu: %s; run "
			  "'tpcheck %s'", p->name, (unsigned long long)want, strerror(-r), p->name);
		if (a)
			pool_latch_read_only(p, "dropping the uncommitted part of the completion "
					     "failed too");
		return r;
	}
	p->commits++;
	log_warn("pool %s: transaction %llu had been interrupted; it is now complete", p->name,
		 (unsigned long long)want);
	return 0;
}

int pool_live_settle(struct pool *p, uint64_t tid, struct vg *undo, int err)
{
	struct tp_dm_pool_status st;
	uint64_t *ids = NULL;
	size_t n = 0;
	int r = tp_dm_pool_status(p->pool_dm, TP_DM_NOFLUSH, &st);

	if (!r)
		r = pool_live_list_devices(p, &ids, &n);
	if (r) {
		vg_free(undo);
		log_error("pool %s: the change failed and the kernel's state cannot be read (%s); "
			  "the VG keeps transaction %llu, which the next command completes",
			  p->name, strerror(-r), (unsigned long long)tid + 1);
		return err;
	}
	if (!count_diff(p->vg, ids, n) && (st.transaction_id == tid + 1 ||
	    (st.transaction_id == tid && !(r = pool_op_set_tid(p, tid, tid + 1))))) {
		free(ids);
		vg_free(undo);
		log_warn("pool %s: the kernel had applied the change; transaction %llu is "
			 "complete", p->name, (unsigned long long)tid + 1);
		return 0;
	}
	if (st.transaction_id == tid && !count_diff(undo, ids, n)) {
		free(ids);
		r = pool_commit_vg(p, undo);
		if (r)
			pool_latch_read_only(p, "could not undo the VG metadata of the failed "
					     "change");
		return err;
	}
	free(ids);
	vg_free(undo);
	log_error("pool %s: the kernel holds part of transaction %llu%s%s; the next tptools "
		  "command on the pool completes it", p->name, (unsigned long long)tid + 1,
		  r ? ": " : "", r ? strerror(-r) : "");
	return err;
}

int pool_live_reconcile(struct pool *p, int write)
{
	struct tp_dm_pool_status st;
	uint64_t want = p->vg->transaction_id, *ids = NULL;
	struct reload rl = { 0 };
	size_t n = 0;
	int r = tp_dm_pool_status(p->pool_dm, TP_DM_NOFLUSH, &st);

	if (r)
		return r;
	if (st.fail || st.error) {
		if (!write)
			return 0;	/* a reader reports it (tpstatus: the way back) */
		log_error("pool %s: the kernel reports the pool as failed; deactivate it and run "
			  "'tpcheck %s'", p->name, p->name);
		return -EIO;
	}
	/* what killed commands left (a tprecv's device and thin id), before
	 * the ids are compared */
	if ((r = pool_features_live_leftovers(p, write)))
		return r;
	if (st.transaction_id == want)
		return 0;
	if (st.transaction_id + 1 != want) {
		log_error("pool %s: transaction id mismatch: the VG metadata says %llu, the "
			  "kernel's pool says %llu; deactivate the pool and run 'tpcheck %s'",
			  p->name, (unsigned long long)want,
			  (unsigned long long)st.transaction_id, p->name);
		return -EUCLEAN;
	}
	if (!write) {
		log_warn("pool %s: transaction %llu was interrupted; the next change completes it",
			 p->name, (unsigned long long)want);
		return 0;
	}
	tp_critical_begin();
	r = pool_live_list_devices(p, &ids, &n);
	if (!r)
		r = replay(p, ids, n, &rl);
	if (!r)
		r = pool_op_set_tid(p, want - 1, want);
	tp_critical_end();
	free(ids);
	if (r) {
		log_error("pool %s: could not complete interrupted transaction %llu", p->name,
			  (unsigned long long)want);
		return r;
	}
	p->commits++;
	log_warn("pool %s: transaction %llu had been interrupted; it is now complete", p->name,
		 (unsigned long long)want);
	reload_volumes(p, &rl);
	return 0;
}
