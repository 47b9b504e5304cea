/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_monitor.c - what tpmonitor does about one look at a pool
 * (monitor.h: pool_monitor_decide). Pure: figures in, actions out, so
 * every rule is unit tested without a kernel.
 *
 * Rules, for data and metadata each:
 * - Warnings (as dmeventd's thin plugin): at the warn threshold, then
 *   every POOL_MONITOR_WARN_STEP percent above it; a level is logged once
 *   (the state remembers it across restarts) and forgotten when use falls
 *   back below the threshold, which is said once too.
 * - Autoextension: at or above the autoextend threshold (below 100), the
 *   area grows by the policy's step (a percentage of the area, or a size:
 *   the metadata then grows by 20%), at least one chunk of data or 1 MiB
 *   of metadata, as far as the device has room; none left is said.
 *   The data area never grows past the policy's autoextend_max (when
 *   set): a step is cut down to it, and a pool already there gets
 *   POOL_MON_CAP_DATA instead of a growth (said once, like no room).
 *   When the data devices have no room left and the policy names an
 *   autoextend device that is not yet the pool's, it is added whole
 *   (POOL_MON_ADD_DATA), unless that would pass autoextend_max (then
 *   POOL_MON_CAP_DATA) or adding that device failed since the data rose
 *   above the threshold (st->add_failed: then no room, said once; below
 *   the threshold it is forgotten, and another device is tried at once).
 * - Error when full: data use at or above POOL_MONITOR_CRITICAL, or the
 *   kernel already out of data space, with no growth possible now
 *   (autoextension off or no room): a pool that queues writes when full
 *   is switched to failing them, so filesystems get ENOSPC instead of
 *   hanging. Metadata has no such switch (a pool out of metadata turns
 *   read-only): it gets the warnings and the growth. */
#include "lib/pool/monitor.h"

#include <string.h>

#define MIB (1024ull * 1024)
#define META_BLOCK 4096ull
#define META_STEP_DEFAULT 20u	/* percent, when the policy gives a size */

static unsigned percent(uint64_t used, uint64_t total)
{
	return total ? (unsigned)((unsigned __int128)used * 100 / total) : 0;
}

/* Warning levels of one area: *WARNED is the level logged last. */
static void warnings(unsigned warn, unsigned pct, unsigned *warned, unsigned *level,
		     unsigned act_warn, unsigned act_calm, unsigned *actions)
{
	unsigned lvl;

	if (!warn || pct < warn) {
		if (warn && *warned)
			*actions |= act_calm;
		*warned = 0;
		return;
	}
	lvl = warn + (pct - warn) / POOL_MONITOR_WARN_STEP * POOL_MONITOR_WARN_STEP;
	if (lvl > 100)
		lvl = 100;
	if (lvl > *warned) {
		*warned = lvl;
		*level = lvl;
		*actions |= act_warn;
	}
}

/* The size after one growth step of an area of SIZE bytes. */
static uint64_t grown(const struct pool_monitor_policy *pol, uint64_t size, int meta,
		      uint64_t min_step)
{
	unsigned pct = pol->autoextend_percent;
	uint64_t step;

	if (pol->autoextend_size && !meta)
		step = pol->autoextend_size;
	else
		step = (uint64_t)((unsigned __int128)size * (pct ? pct : META_STEP_DEFAULT) / 100);
	if (step < min_step)
		step = min_step;
	return size + step < size ? UINT64_MAX : size + step;
}

void pool_monitor_decide(const struct pool_monitor_policy *pol,
			 const struct pool_monitor_sample *s, struct pool_monitor_state *st,
			 struct pool_monitor_decision *d)
{
	int extend = pol->autoextend_threshold < POOL_AUTOEXTEND_OFF;
	uint64_t to;

	d->actions = 0;
	d->data_level = d->meta_level = 0;
	d->data_to = d->meta_to = 0;
	d->data_pct = percent(s->data_used, s->data_total);
	d->meta_pct = percent(s->meta_used, s->meta_total);
	warnings(pol->warn, d->data_pct, &st->data_warned, &d->data_level, POOL_MON_WARN_DATA,
		 POOL_MON_CALM_DATA, &d->actions);
	warnings(pol->warn, d->meta_pct, &st->meta_warned, &d->meta_level, POOL_MON_WARN_META,
		 POOL_MON_CALM_META, &d->actions);
	if (extend && d->data_pct >= pol->autoextend_threshold && s->chunk) {
		int capped = 0;

		to = grown(pol, s->data_size, 0, s->chunk);
		if (to > s->data_max)
			to = s->data_max;
		if (pol->autoextend_max && to > pol->autoextend_max) {
			to = pol->autoextend_max;
			capped = 1;
		}
		to = to / s->chunk * s->chunk;
		if (to >= s->data_size + s->chunk) {
			d->actions |= POOL_MON_EXTEND_DATA;
			d->data_to = to;
		} else if (!capped && s->add_room >= s->chunk &&
			   strcmp(st->add_failed, pol->autoextend_device)) {
			if (pol->autoextend_max && s->data_size + s->add_room > pol->autoextend_max)
				d->actions |= POOL_MON_CAP_DATA;
			else
				d->actions |= POOL_MON_ADD_DATA;
		} else {
			d->actions |= capped ? POOL_MON_CAP_DATA : POOL_MON_NO_ROOM_DATA;
		}
	}
	if (!extend || d->data_pct < pol->autoextend_threshold)
		st->add_failed[0] = '\0';
	if (extend && d->meta_pct >= pol->autoextend_threshold) {
		to = grown(pol, s->meta_size, 1, MIB);
		if (to > s->meta_max)
			to = s->meta_max;
		to = to / META_BLOCK * META_BLOCK;
		if (to > s->meta_size) {
			d->actions |= POOL_MON_EXTEND_META;
			d->meta_to = to;
		} else {
			d->actions |= POOL_MON_NO_ROOM_META;
		}
	}
	if (!s->error_if_no_space && !(d->actions & (POOL_MON_EXTEND_DATA | POOL_MON_ADD_DATA)) &&
	    (s->out_of_data || d->data_pct >= POOL_MONITOR_CRITICAL))
		d->actions |= POOL_MON_ERROR_WHEN_FULL;
}

unsigned pool_monitor_room_news(struct pool_monitor_state *st, unsigned actions)
{
	unsigned now = (actions & POOL_MON_NO_ROOM_DATA ? 1u : 0u) |
		       (actions & POOL_MON_NO_ROOM_META ? 2u : 0u) |
		       (actions & POOL_MON_CAP_DATA ? 4u : 0u);
	unsigned news = now & ~st->no_room;

	st->no_room = now;
	return news;
}
