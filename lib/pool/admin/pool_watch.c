/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_watch.c - a pool's monitoring policy (pool.h: warn threshold,
 * autoextend threshold and step), kept in the VG's monitor section and
 * changed by one VG commit; how full a pool is, cheaply (space maps or the
 * kernel's status line, no walk of the mappings); and the warning that
 * tvcreate and tvsnap give above the warn threshold. */
#include "lib/pool/admin/admin_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/host/host.h"

#include "kernel/dm.h"
#include "lib/base/devopen.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

_Static_assert(POOL_WARN_DEFAULT == VG_MONITOR_WARN_DEFAULT &&
	       POOL_AUTOEXTEND_OFF == VG_MONITOR_THRESHOLD_OFF &&
	       POOL_AUTOEXTEND_MIN == VG_MONITOR_THRESHOLD_MIN &&
	       POOL_AUTOEXTEND_PERCENT_MAX == VG_MONITOR_PERCENT_MAX &&
	       POOL_DEVICE_PATH_MAX == VG_PATH_MAX,
	       "pool and VG monitor limits differ");

void pool_monitor_policy_default(struct pool_monitor_policy *m)
{
	struct vg_monitor v;

	vg_monitor_default(&v);
	m->warn = v.warn;
	m->autoextend_threshold = v.autoextend_threshold;
	m->autoextend_percent = v.autoextend_percent;
	m->autoextend_size = v.autoextend_size;
	m->autoextend_max = v.autoextend_max;
	memcpy(m->autoextend_device, v.autoextend_device, sizeof(m->autoextend_device));
}

void pool_monitor_policy_to_vg(const struct pool_monitor_policy *m, struct vg_monitor *v)
{
	v->warn = m->warn;
	v->autoextend_threshold = m->autoextend_threshold;
	v->autoextend_percent = m->autoextend_percent;
	v->autoextend_size = m->autoextend_size;
	v->autoextend_max = m->autoextend_max;
	memcpy(v->autoextend_device, m->autoextend_device, sizeof(v->autoextend_device));
}

int pool_monitor_policy_check(const char *pool, const struct pool_monitor_policy *m)
{
	if (m->warn > 100) {
		log_error("pool %s: --warn %u is not a percentage (0..100; 0 = never warn)", pool,
			  m->warn);
		return -EINVAL;
	}
	if (m->autoextend_threshold < POOL_AUTOEXTEND_MIN ||
	    m->autoextend_threshold > POOL_AUTOEXTEND_OFF) {
		log_error("pool %s: --autoextend-threshold %u is out of range: give %u..%u "
			  "(%u or 'off' = never extend)", pool, m->autoextend_threshold,
			  POOL_AUTOEXTEND_MIN, POOL_AUTOEXTEND_OFF, POOL_AUTOEXTEND_OFF);
		return -EINVAL;
	}
	if (!m->autoextend_percent == !m->autoextend_size ||
	    m->autoextend_percent > POOL_AUTOEXTEND_PERCENT_MAX ||
	    m->autoextend_size % 512 || m->autoextend_size > (uint64_t)INT64_MAX) {
		log_error("pool %s: --autoextend-by takes a percentage (1..%u%%) or a size of at "
			  "least one sector", pool, POOL_AUTOEXTEND_PERCENT_MAX);
		return -EINVAL;
	}
	if (m->autoextend_max % 512 || m->autoextend_max > (uint64_t)INT64_MAX) {
		log_error("pool %s: --autoextend-max takes a size of whole sectors, or none", pool);
		return -EINVAL;
	}
	if (m->autoextend_device[0] != '\0' && m->autoextend_device[0] != '/') {
		log_error("pool %s: --autoextend-device takes an absolute path, not '%s'", pool,
			  m->autoextend_device);
		return -EINVAL;
	}
	return 0;
}

void pool_get_monitor_policy(const struct pool *p, struct pool_monitor_policy *m)
{
	const struct vg_monitor *v = &pool_vg(p)->monitor;

	m->warn = v->warn;
	m->autoextend_threshold = v->autoextend_threshold;
	m->autoextend_percent = v->autoextend_percent;
	m->autoextend_size = v->autoextend_size;
	m->autoextend_max = v->autoextend_max;
	memcpy(m->autoextend_device, v->autoextend_device, sizeof(m->autoextend_device));
}

/* DEV, the new --autoextend-device of P: a device that exists, is a block
 * device or an image file, is none of P's and carries nothing tpextend
 * --data refuses. 0; -ENOENT, -ENOTBLK or -EINVAL (the caller's input);
 * -EBUSY (another pool's, or a signature); each logged. */
static int check_autoextend_device(struct pool *p, const char *dev)
{
	const char *kind = io_dev_wrong_kind(dev);
	struct stat st;

	if (stat(dev, &st)) {
		log_error("pool %s: --autoextend-device %s: %s; name an existing block device or "
			  "image file (or none)", pool_name(p), dev, strerror(errno));
		return -ENOENT;
	}
	if (kind) {
		log_error("pool %s: --autoextend-device %s is %s, not a block device or image "
			  "file", pool_name(p), dev, kind);
		return -ENOTBLK;
	}
	if (pool_is_member_device(p, dev)) {
		log_error("pool %s: %s is one of its devices already; --autoextend-device names a "
			  "device to add", pool_name(p), dev);
		return -EINVAL;
	}
	return pool_device_unused(pool_name(p), pool_vg(p)->uuid, pool_vg(p), dev,
				  "tpmonitor's autoextension (--autoextend-device)");
}

int pool_set_monitor_policy(struct pool *p, const struct pool_monitor_policy *m)
{
	struct vg *next;
	int r;

	if (pool_monitor_policy_check(pool_name(p), m))
		return -EINVAL;
	/* a new autoextend device: one tpextend --data would take (the one the
	 * VG names already is left as it is: tpmonitor may have added it) */
	if (m->autoextend_device[0] &&
	    strcmp(m->autoextend_device, pool_vg(p)->monitor.autoextend_device) &&
	    (r = check_autoextend_device(p, m->autoextend_device)))
		return r;
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	pool_monitor_policy_to_vg(m, &next->monitor);
	return pool_commit_vg(p, next);
}

int pool_set_max_overprovision(struct pool *p, unsigned percent)
{
	struct vg *next;
	unsigned __int128 sum;
	uint64_t limit;
	char a[32], b[32], ratio[24];
	int r;

	if (percent > POOL_OVERPROVISION_MAX) {
		log_error("pool %s: --max-overprovision is out of range", pool_name(p));
		return -EINVAL;
	}
	if ((r = vg_clone(pool_vg(p), &next)))
		return r;
	next->max_overprovision = percent;
	sum = pool_vg_virtual_sum(next);
	limit = pool_vg_overprovision_limit(next);
	if ((r = pool_commit_vg(p, next)))
		return r;
	if (sum > limit) {
		pool_ratio_format(percent, ratio, sizeof(ratio));
		log_warn("pool %s: its volumes already add up to %s, above the new limit of %s "
			 "(%s x its data size): they are kept, but no volume is added or grown "
			 "until the sum is under the limit (remove volumes or 'tpextend %s')",
			 pool_name(p), (pool_sum_format(sum, a, sizeof(a)), a),
			 tp_size_format(limit, 'h', b, sizeof(b)), ratio, pool_name(p));
	}
	return 0;
}

/* How full the pool is, cheaply (the space maps offline, the kernel's
 * status live; no walk of the mappings). Bytes. -errno, not logged. */
struct pool_fill {
	uint64_t data_used, data_size, meta_used, meta_size;
	int live;
};

static int pool_get_fill(struct pool *p, struct pool_fill *f)
{
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, mu, mt, du, dt;
	int r;

	memset(f, 0, sizeof(*f));
	r = pool_fill_blocks(p, &mu, &mt, &du, &dt);
	if (r)
		return r;
	f->data_used = du * chunk;
	f->data_size = dt * chunk;
	f->meta_used = mu * THIN_METADATA_BLOCK_SIZE;
	f->meta_size = mt * THIN_METADATA_BLOCK_SIZE;
	f->live = pool_is_live(p);
	return 0;
}

/* Percent of WHOLE that PART is, rounded down. */
static unsigned percent(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned)((unsigned __int128)part * 100 / whole) : 0;
}

int pool_warn_if_full(struct pool *p)
{
	unsigned warn = pool_vg(p)->monitor.warn, dp, mp;
	struct pool_fill f;
	char a[32], b[32];
	int r, warned = 0;

	if (!warn)
		return 0;
	if ((r = pool_get_fill(p, &f))) {
		log_warn("pool %s: cannot read how full it is (%s); see 'tpstatus %s'", pool_name(p),
			 strerror(-r), pool_name(p));
		return r;
	}
	dp = percent(f.data_used, f.data_size);
	mp = percent(f.meta_used, f.meta_size);
	if (dp >= warn) {
		log_warn("pool %s: data is %u%% full (%s of %s), at or above its warn threshold of "
			 "%u%%: grow it with 'tpextend %s' or free space", pool_name(p), dp,
			 tp_size_format(f.data_used, 'h', a, sizeof(a)),
			 tp_size_format(f.data_size, 'h', b, sizeof(b)), warn, pool_name(p));
		warned = 1;
	}
	if (mp >= warn) {
		log_warn("pool %s: metadata is %u%% full (%s of %s), at or above its warn "
			 "threshold of %u%%: grow it with 'tpextend --metadata-size auto %s'",
			 pool_name(p), mp, tp_size_format(f.meta_used, 'h', a, sizeof(a)),
			 tp_size_format(f.meta_size, 'h', b, sizeof(b)), warn, pool_name(p));
		warned = 1;
	}
	return warned;
}
