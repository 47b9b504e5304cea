/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_monitor_run.c - tpmonitor's work on the kernel's pools (monitor.h):
 * which pools are ours and active (our dm uuids only: a thin-pool another
 * program made is never listed, so never touched), one look at a pool
 * and the actions pool_monitor_decide asks for, and the pool's event
 * counter for the daemon's waits.
 *
 * A look opens the pool read-only (shared lock: commands go on), reads
 * the kernel's status without a metadata commit, and closes it; an action
 * reopens it for writing (exclusive lock) and checks again that it is the
 * same active pool (its uuid) before it changes anything. */
#include "lib/pool/monitor.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/mirror/mirror.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/host/host.h"

#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the list ---- */

struct list_ctx {
	struct pool_monitor_pool *v;
	unsigned n, alloc;
};

/* "<pool>-tpool" with '-' doubled inside the pool name (kernel/dm.h) back
 * to the pool name: 0, or -EINVAL when NAME is not of that form. */
static int pool_of_dm_name(const char *name, char *out, size_t len)
{
	static const char suffix[] = "-tpool";
	size_t n = strlen(name), o = 0;

	if (n <= sizeof(suffix) - 1 || strcmp(name + n - (sizeof(suffix) - 1), suffix))
		return -EINVAL;
	n -= sizeof(suffix) - 1;
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '-' && (i + 1 >= n || name[++i] != '-'))
			return -EINVAL;
		if (o + 1 >= len)
			return -EINVAL;
		out[o++] = name[i];
	}
	out[o] = '\0';
	return o ? 0 : -EINVAL;
}

static int list_one(const char *name, const char *uuid, void *arg)
{
	struct list_ctx *c = arg;
	struct pool_monitor_pool pl;
	enum tp_dm_role role;
	uint32_t id;

	if (tp_dm_uuid_parse(uuid, pl.uuid, sizeof(pl.uuid), &role, &id) ||
	    role != TP_DM_ROLE_POOL || pool_of_dm_name(name, pl.name, sizeof(pl.name)))
		return 0;
	if (c->n == c->alloc) {
		unsigned a = c->alloc ? c->alloc * 2 : 8;
		struct pool_monitor_pool *v = realloc(c->v, a * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->v = v;
		c->alloc = a;
	}
	c->v[c->n++] = pl;
	return 0;
}

int pool_monitor_list(struct pool_monitor_pool **out, unsigned *n)
{
	struct list_ctx c = { NULL, 0, 0 };
	int r = tp_dm_list(TP_DM_UUID_PREFIX, list_one, &c);

	if (r) {
		free(c.v);
		return r;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

/* ---- events ---- */

static int pool_dm(const struct pool_monitor_pool *pl, char *buf, size_t len)
{
	return tp_dm_name(buf, len, pl->name, TP_DM_ROLE_POOL, NULL);
}

int pool_monitor_event_nr(const struct pool_monitor_pool *pl, uint32_t *nr)
{
	char name[TP_DM_NAME_MAX];
	struct tp_dm_info info;
	int r = pool_dm(pl, name, sizeof(name));

	if (!r)
		r = tp_dm_info(name, &info);
	if (!r)
		*nr = info.event_nr;
	return r;
}

int pool_monitor_wait(const struct pool_monitor_pool *pl, uint32_t nr, uint32_t *next)
{
	char name[TP_DM_NAME_MAX];
	int r = pool_dm(pl, name, sizeof(name));

	return r ? r : tp_dm_wait_event(name, nr, next);
}

/* ---- one look ---- */

/* Open PL for a look (FLAGS POOL_RDONLY) or an action (0), and make sure
 * it is still the active pool the kernel listed. */
static int open_same(const struct pool_monitor_pool *pl, unsigned flags, struct pool **out)
{
	int r = pool_open(pl->name, NULL, flags, out);

	if (r)
		return r;
	if (!pool_is_live(*out) || strcmp(pool_vg((*out))->uuid, pl->uuid)) {
		log_error("pool %s: the pool of that name is not the active pool with uuid %s "
			  "any more; left alone", pl->name, pl->uuid);
		pool_close(*out);
		*out = NULL;
		return -ESTALE;
	}
	return 0;
}

static int take_sample(struct pool *p, struct pool_monitor_sample *s)
{
	const struct vg *vg = pool_vg(p);
	uint64_t chunk = (uint64_t)vg->chunk_size * 512, dev, off;
	unsigned last;
	struct tp_dm_pool_status ks;
	int r = tp_dm_pool_status(pool_dm_name(p), TP_DM_NOFLUSH, &ks);

	if (r)
		return r;
	if (ks.fail || ks.error) {
		log_error("pool %s: the kernel reports the pool as failed; deactivate it and run "
			  "'tpcheck %s'", pool_name(p), pool_name(p));
		return -EIO;
	}
	memset(s, 0, sizeof(*s));
	s->data_used = ks.used_data_blocks;
	s->data_total = ks.total_data_blocks;
	s->meta_used = ks.used_meta_blocks;
	s->meta_total = ks.total_meta_blocks;
	s->out_of_data = ks.mode == TP_DM_MODE_OUT_OF_DATA;
	s->error_if_no_space = ks.nfields >= 7 && ks.error_if_no_space;
	s->chunk = chunk;
	s->data_size = vg_data_chunks(vg) * chunk;
	/* the last data device is the one that grows (pool_extend) */
	last = vg_nr_data(vg) - 1;
	dev = pool_data_dev_size(p, last);
	off = vg_data_dev(vg, last)->area[0].offset;
	s->data_max = dev > off ? TP_MIN(vg_data_first_chunk(vg, last) + (dev - off) / chunk,
					 THIN_MAX_DATA_BLOCKS) * chunk : 0;
	if (s->data_max < s->data_size)
		s->data_max = s->data_size;
	s->meta_size = vg->dev[VG_ROLE_META].area[vg->metadata_area].size;
	s->meta_max = TP_MAX(pool_meta_room(p), s->meta_size);
	return 0;
}

/* The bytes the policy's autoextend device would add to P's data area:
 * its size less a label and VG area, in whole chunks (tpextend --data
 * aligns the area, so this is an upper bound); 0 when none is named, it
 * is a device of P already, or it cannot be opened (the addition would
 * fail the same way: said when it is tried, not on every look). */
static uint64_t add_room(struct pool *p, const struct pool_monitor_policy *pol)
{
	/* (the pool's VG area: tpextend --data gives the device the same) */
	const struct vg_area *mda = &pool_vg(p)->dev[VG_ROLE_DATA].mda;
	const uint64_t header = mda->offset + mda->size;
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, size;
	struct io_engine *io;

	if (!pol->autoextend_device[0])
		return 0;
	for (unsigned i = 0; i < pool_nr_pvs(p); i++)
		if (pool_pv_at(p, i)->io &&
		    pool_same_device(pool_pv_at(p, i)->io->name, pol->autoextend_device))
			return 0;
	if (io_fd_open(pol->autoextend_device, IO_RDONLY, &io))
		return chunk;	/* tried, and the failure said once (st->add_failed) */
	size = io->size;
	io_destroy(io);
	return size > header ? (size - header) / chunk * chunk : 0;
}

static void record(struct pool_monitor_state *st, const char *fmt, ...) TP_PRINTF(2, 3);
static void record(struct pool_monitor_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->action, sizeof(st->action), fmt, ap);
	va_end(ap);
	st->time = (int64_t)time(NULL);
}

static void say_levels(const struct pool_monitor_pool *pl, const struct pool_monitor_policy *pol,
		       const struct pool_monitor_decision *d, struct pool_monitor_state *st)
{
	if (d->actions & POOL_MON_WARN_DATA) {
		log_warn("pool %s: data is %u%% full (warn threshold %u%%): grow it with "
			 "'tpextend %s' after growing its data device, or free space",
			 pl->name, d->data_pct, pol->warn, pl->name);
		record(st, "warned: data %u%% full", d->data_pct);
		st->counts.warnings++;
	}
	if (d->actions & POOL_MON_WARN_META) {
		log_warn("pool %s: metadata is %u%% full (warn threshold %u%%): grow it with "
			 "'tpextend --metadata-size auto %s'", pl->name, d->meta_pct, pol->warn,
			 pl->name);
		record(st, "warned: metadata %u%% full", d->meta_pct);
		st->counts.warnings++;
	}
	if (d->actions & POOL_MON_CALM_DATA)
		log_notice("pool %s: data is %u%% full, below its warn threshold again", pl->name,
			   d->data_pct);
	if (d->actions & POOL_MON_CALM_META)
		log_notice("pool %s: metadata is %u%% full, below its warn threshold again",
			   pl->name, d->meta_pct);
}

/* Say once that an area above the autoextend threshold has no room. */
static void say_no_room(const struct pool_monitor_pool *pl, const struct pool_monitor_policy *pol,
			const struct pool_monitor_decision *d, struct pool_monitor_state *st)
{
	unsigned news = pool_monitor_room_news(st, d->actions);
	char cap[32];

	if (news & 1) {
		log_warn("pool %s: data is %u%% full (autoextend threshold %u%%) and its data "
			 "device has no room to grow into: grow the device (the monitor then "
			 "extends the pool) or free space", pl->name, d->data_pct,
			 pol->autoextend_threshold);
		record(st, "data %u%% full: no room to extend", d->data_pct);
		st->counts.no_room++;
	}
	if (news & 2) {
		log_warn("pool %s: metadata is %u%% full (autoextend threshold %u%%) and its "
			 "metadata device has no room to grow into: grow the device",
			 pl->name, d->meta_pct, pol->autoextend_threshold);
		record(st, "metadata %u%% full: no room to extend", d->meta_pct);
		st->counts.no_room++;
	}
	if (news & 4) {
		tp_size_format(pol->autoextend_max, 'h', cap, sizeof(cap));
		log_warn("pool %s: data is %u%% full (autoextend threshold %u%%) and the pool has "
			 "reached its autoextend limit of %s (--autoextend-max): it is not grown "
			 "further; raise the limit with 'tpchange --autoextend-max SIZE %s', or "
			 "free space", pl->name, d->data_pct, pol->autoextend_threshold, cap,
			 pl->name);
		record(st, "data %u%% full: at autoextend-max %s, not extended", d->data_pct, cap);
		st->counts.no_room++;
	}
}

/* Carry out the growth and the switch D asks for. */
static int act(const struct pool_monitor_pool *pl, const struct pool_monitor_policy *pol,
	       const struct pool_monitor_decision *d, struct pool_monitor_state *st)
{
	struct pool_extend_params x;
	struct pool_extend_result res;
	struct pool *p;
	char a[32], b[32], c[32], e[32];
	int r = open_same(pl, 0, &p), rr = 0;

	if (r)
		return r;
	if (d->actions & POOL_MON_ADD_DATA) {
		struct pool_extend_data_params xd = { pol->autoextend_device, 0, 0 };
		struct pool_extend_data_result rd;

		r = pool_extend_data(p, &xd, &rd);
		if (!r) {
			tp_size_format(rd.old_data_size, 'h', a, sizeof(a));
			tp_size_format(rd.new_data_size, 'h', b, sizeof(b));
			log_notice("pool %s: data is %u%% full (autoextend threshold %u%%) and its data "
				   "devices have no room: added its autoextend device %s as data "
				   "device %u, data %s -> %s", pl->name, d->data_pct,
				   pol->autoextend_threshold, pol->autoextend_device, rd.index + 1,
				   a, b);
			record(st, "autoextended onto %s: data %s -> %s", pol->autoextend_device, a,
			       b);
			st->counts.autoextends++;
		} else {
			log_error("pool %s: could not add its autoextend device %s (see the message "
				  "above); not tried again while its data stays above the threshold. "
				  "Name another with 'tpchange --autoextend-device DEV %s'", pl->name,
				  pol->autoextend_device, pl->name);
			record(st, "autoextension onto %s failed (%s)", pol->autoextend_device,
			       strerror(-r));
			snprintf(st->add_failed, sizeof(st->add_failed), "%s",
				 pol->autoextend_device);
			st->counts.autoextend_failures++;
		}
	}
	if (d->actions & (POOL_MON_EXTEND_DATA | POOL_MON_EXTEND_META)) {
		memset(&x, 0, sizeof(x));
		x.data_size = d->actions & POOL_MON_EXTEND_DATA
				      ? d->data_to
				      : vg_data_chunks(pool_vg(p)) * ((uint64_t)pool_vg(p)->chunk_size * 512);
		x.metadata = !!(d->actions & POOL_MON_EXTEND_META);
		x.metadata_size = d->meta_to;
		r = pool_extend(p, &x, &res);
		if (!r) {
			char what[160] = "";
			if (res.new_data_size > res.old_data_size)
				snprintf(what, sizeof(what), "data %s -> %s",
					 tp_size_format(res.old_data_size, 'h', a, sizeof(a)),
					 tp_size_format(res.new_data_size, 'h', b, sizeof(b)));
			if (res.new_meta_size > res.old_meta_size)
				snprintf(what + strlen(what), sizeof(what) - strlen(what),
					 "%smetadata %s -> %s", what[0] ? ", " : "",
					 tp_size_format(res.old_meta_size, 'h', c, sizeof(c)),
					 tp_size_format(res.new_meta_size, 'h', e, sizeof(e)));
			log_notice("pool %s: autoextended (data %u%%, metadata %u%% full, threshold "
				   "%u%%): %s", pl->name, d->data_pct, d->meta_pct,
				   pol->autoextend_threshold, what);
			record(st, "autoextended: %s", what);
			st->counts.autoextends++;
		} else {
			log_error("pool %s: autoextension failed; see the message above", pl->name);
			record(st, "autoextension failed (%s)", strerror(-r));
			st->counts.autoextend_failures++;
		}
	}
	if ((d->actions & POOL_MON_ERROR_WHEN_FULL) ||
	    (r && (d->data_pct >= POOL_MONITOR_CRITICAL))) {
		rr = pool_set_when_full(p, POOL_WHEN_FULL_ERROR);
		if (!rr) {
			log_warn("pool %s: data is %u%% full and cannot grow: switched to "
				 "error-when-full, so writes beyond its free space fail (ENOSPC) "
				 "instead of queueing; grow its data device, run 'tpextend %s', then "
				 "'tpchange --when-full queue %s'", pl->name, d->data_pct, pl->name,
				 pl->name);
			record(st, "switched to error-when-full (data %u%% full, no room)",
				d->data_pct);
			st->error_set = 1;
			st->counts.error_switches++;
		} else {
			log_error("pool %s: could not switch it to error-when-full", pl->name);
		}
	}
	pool_close(p);
	return r ? r : rr;
}

/* A degraded metadata mirror (a leg failed, missing or stale) said once,
 * and once more when it is whole again. */
static void say_mirror(const struct pool_monitor_pool *pl, const struct pool *p,
		       struct pool_monitor_state *st)
{
	const char *h = pool_meta_health(p);
	int degraded = !strcmp(h, "degraded");

	if (degraded && !st->meta_degraded) {
		log_warn("pool %s: its metadata mirror is degraded (a leg failed, is missing or "
			 "stale): the pool runs on one metadata device; 'tpstatus -o "
			 "pool_meta_legs %s' says which, 'tpchange --meta-replace DEV %s' resyncs it",
			 pl->name, pl->name, pl->name);
		record(st, "warned: metadata mirror degraded");
		st->counts.warnings++;
	} else if (!degraded && st->meta_degraded && strcmp(h, "single")) {
		log_notice("pool %s: its metadata mirror is %s again", pl->name, h);
	}
	st->meta_degraded = degraded;
}

int pool_monitor_pass(const struct pool_monitor_pool *pl, struct pool_monitor_state *st)
{
	struct pool_monitor_state before = *st;
	struct pool_monitor_policy pol;
	struct pool_monitor_sample s;
	struct pool_monitor_decision d;
	struct pool *p;
	int r = open_same(pl, POOL_RDONLY, &p);

	if (r)
		return r;
	r = take_sample(p, &s);
	pool_get_monitor_policy(p, &pol);
	if (!r)
		s.add_room = add_room(p, &pol);
	say_mirror(pl, p, st);
	pool_close(p);
	if (r)
		return r;
	snprintf(st->pool, sizeof(st->pool), "%s", pl->name);
	pool_monitor_decide(&pol, &s, st, &d);
	say_levels(pl, &pol, &d, st);
	say_no_room(pl, &pol, &d, st);
	if (!s.error_if_no_space)
		st->error_set = 0;
	if (d.actions & (POOL_MON_EXTEND_DATA | POOL_MON_EXTEND_META | POOL_MON_ADD_DATA |
			 POOL_MON_ERROR_WHEN_FULL))
		r = act(pl, &pol, &d, st);
	if (memcmp(&before, st, sizeof(*st)) && pool_monitor_state_write(pl->uuid, st)) {
		/* logged there, once; the pass stands (the file is only what a
		 * restarted monitor remembers) */
	}
	return r;
}
