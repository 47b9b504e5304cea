/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_resize.c - reloading the table stack of an active pool (dm.h:
 * tp_dm_pool_reload): bigger data or metadata areas (tpextend on a live
 * pool), other features (the switch to error_if_no_space).
 *
 * The order, as the kernel needs it: the pool is suspended first (its
 * presuspend suspends its active thin devices without flushing, so queued
 * I/O stays queued, and its postsuspend commits the metadata); then tmeta
 * and tdata get their longer linear tables (suspend, load, resume: no I/O
 * reaches them while the pool is suspended; a mirrored tmeta its longer
 * legs and raid1, dm_mirror.c, only when it grows); then the pool's new table
 * is loaded - the kernel checks it against the grown tdata - and resumed.
 * On resume the thin-pool target compares the new lengths with its space
 * maps and grows them (data: the target's length in blocks; metadata: the
 * size of tmeta), commits, and resumes the thin devices.
 *
 * A failure before the pool's resume leaves its old table live (a longer
 * tmeta or tdata under it is harmless); a failed resume of the new table
 * loads the old one back (captured first) and resumes that. */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Give linear device NAME (suspended pool above it) the table T. */
static int reload_linear(const char *pool, const char *name, const struct tp_dm_target *t,
			 unsigned n)
{
	int r;

	if ((r = tp_dm_load(name, t, n, 0)))
		return r;
	if ((r = tp_dm_suspend(name, 0))) {
		log_error("pool %s: cannot suspend %s: %s", pool, name, strerror(-r));
		return r;
	}
	if ((r = tp_dm_resume(name)))
		log_error("pool %s: cannot resume %s with its new table: %s", pool, name,
			  strerror(-r));
	return r;
}

int tp_dm_pool_reload(const struct tp_dm_pool_layout *l)
{
	char meta[TP_DM_NAME_MAX], data[TP_DM_NAME_MAX], pool[TP_DM_NAME_MAX];
	struct tp_dm_target tm, td[TP_DM_DATA_SEGS_MAX], tp, old;
	struct tp_dm_pool_status st;
	unsigned nd;
	int r, rr;

	if ((r = tp_dm_name(meta, sizeof(meta), l->pool, TP_DM_ROLE_TMETA, NULL)) ||
	    (r = tp_dm_name(data, sizeof(data), l->pool, TP_DM_ROLE_TDATA, NULL)) ||
	    (r = tp_dm_name(pool, sizeof(pool), l->pool, TP_DM_ROLE_POOL, NULL)))
		return r;
	/* a mirrored tmeta (dm_mirror.c) stays the raid1, grown below */
	if ((!l->meta_mirror &&
	     (r = tp_dm_linear(&tm, 0, l->meta_dev, l->meta_offset, l->meta_length))) ||
	    (r = tp_dm_pool_data_table(l, td, &nd)) ||
	    (r = tp_dm_pool_table(l, meta, data, &tp))) {
		log_error("pool %s: bad layout for a reload", l->pool);
		return r;
	}
	/* the table to go back to: its length from the status (whole blocks) */
	if ((r = tp_dm_pool_status(pool, TP_DM_NOFLUSH, &st)) ||
	    (r = tp_dm_target_line(pool, true, 0, old.type, sizeof(old.type), old.params,
				   sizeof(old.params)))) {
		log_error("pool %s: cannot read its live table: %s", l->pool, strerror(-r));
		return r;
	}
	if (st.total_data_blocks * l->block_sectors > tp.length) {
		log_error("pool %s: the kernel's data area (%" PRIu64 " blocks) is larger than "
			  "the new one; a pool never shrinks", l->pool, st.total_data_blocks);
		return -EUCLEAN;	/* the kernel and the VG disagree: no input of the user's */
	}
	old.start = 0;
	old.length = st.total_data_blocks * l->block_sectors;
	if ((r = tp_dm_suspend(pool, 0))) {
		log_error("pool %s: cannot suspend %s: %s", l->pool, pool, strerror(-r));
		return r;
	}
	/* a mirrored tmeta is reloaded only to grow (dm_mirror.c): a raid1
	 * table loaded again for nothing would disturb a running resync */
	if (!(r = !l->meta_mirror ? reload_linear(l->pool, meta, &tm, 1)
	      : l->meta_length / 4096 > st.total_meta_blocks ? tp_dm_meta_mirror_grow(l, meta)
							       : 0) &&
	    !(r = reload_linear(l->pool, data, td, nd)))
		r = tp_dm_load(pool, &tp, 1, 0);
	if (r) {
		log_error("pool %s: the kernel refused the new table: %s; the pool goes on with "
			  "its old one", l->pool, strerror(-r));
		if ((rr = tp_dm_resume(pool)))
			log_error("pool %s: cannot resume %s: %s; run 'dmsetup resume %s'",
				  l->pool, pool, strerror(-rr), pool);
		return r;
	}
	r = tp_dm_resume(pool);
	if (!r)
		return 0;
	log_error("pool %s: the kernel could not resume the pool with its new table: %s (the "
		  "kernel log says why); going back to the old one", l->pool, strerror(-r));
	if ((rr = tp_dm_load(pool, &old, 1, 0)) || (rr = tp_dm_resume(pool)))
		log_error("pool %s: cannot go back to its old table: %s; run 'dmsetup table %s' "
			  "and 'dmsetup resume %s'", l->pool, strerror(-rr), pool, pool);
	return r;
}

int tp_dm_dev_sectors(const char *name, uint64_t *sectors)
{
	struct tp_dm_info info;
	char path[64];
	unsigned long long v = 0;
	FILE *f;
	int r = tp_dm_info(name, &info);

	if (r)
		return r;
	snprintf(path, sizeof(path), "/sys/dev/block/%" PRIu32 ":%" PRIu32 "/size", info.major,
		 info.minor);
	if (!(f = fopen(path, "r")))
		return -errno;
	r = fscanf(f, "%llu", &v) == 1 ? 0 : -EIO;
	fclose(f);
	*sectors = v;
	return r;
}

/* Give dm device NAME (a thin device of POOL_NAME) a thin table of SECTORS. */
static int thin_reload(const char *pool, const char *vol, const char *name,
		       const char *pool_name, uint32_t dev_id, uint64_t sectors)
{
	char pool_devno[32];
	struct tp_dm_info pinfo, vinfo;
	struct tp_dm_target t;
	int r, rr;

	if ((r = tp_dm_info(name, &vinfo)) || (r = tp_dm_info(pool_name, &pinfo)))
		return r;
	snprintf(pool_devno, sizeof(pool_devno), "%" PRIu32 ":%" PRIu32, pinfo.major,
		 pinfo.minor);
	if ((r = tp_dm_thin(&t, sectors, pool_devno, dev_id, NULL)))
		return r;
	if ((r = tp_dm_load(name, &t, 1, vinfo.read_only ? TP_DM_READ_ONLY : 0))) {
		log_error("%s/%s: the kernel refused the new table: %s", pool, vol, strerror(-r));
		return r;
	}
	/* flush and freeze a filesystem on top for the swap, as lvextend does */
	if ((r = tp_dm_suspend(name, 0))) {
		log_error("%s/%s: cannot suspend it: %s", pool, vol, strerror(-r));
		return r;
	}
	if ((rr = tp_dm_resume(name)))
		log_error("%s/%s: cannot resume it: %s; run 'dmsetup resume %s'", pool, vol,
			  strerror(-rr), name);
	return rr;
}

int tp_dm_vol_reload(const char *pool, const char *vol, uint32_t dev_id, uint64_t sectors)
{
	char name[TP_DM_NAME_MAX], luks[TP_DM_NAME_MAX], pool_name[TP_DM_NAME_MAX];
	struct tp_dm_info info;
	uint64_t old = 0;
	int r;

	if ((r = tp_dm_name(name, sizeof(name), pool, TP_DM_ROLE_THIN, vol)) ||
	    (r = tp_dm_luks_name(luks, sizeof(luks), pool, vol)) ||
	    (r = tp_dm_name(pool_name, sizeof(pool_name), pool, TP_DM_ROLE_POOL, NULL)))
		return r;
	if ((r = tp_dm_info(luks, &info)) == -ENXIO) {
		/* a plain volume; an encrypted one only when unlocked */
		return thin_reload(pool, vol, name, pool_name, dev_id, sectors);
	}
	if (r)
		return r;
	/* An unlocked encrypted volume: the dm-crypt device on top follows
	 * its thin device, never mapping past it: grown after it, shrunk
	 * before it. A locked one (only its thin device left) just the thin. */
	if ((r = tp_dm_info(name, &info)) == -ENXIO)
		return thin_reload(pool, vol, luks, pool_name, dev_id, sectors);
	if (r)
		return r;
	if ((r = tp_dm_dev_sectors(luks, &old)))
		return r;
	if (sectors < old && (r = tp_dm_crypt_resize(name, sectors)))
		return r;
	if ((r = thin_reload(pool, vol, luks, pool_name, dev_id, sectors)))
		return r;
	if (sectors >= old && (r = tp_dm_crypt_resize(name, sectors)))
		log_error("%s/%s: its thin device has its new size, its dm-crypt device %s not; "
			  "'tpdeactivate %s %s' and 'tpactivate %s %s' make it so", pool, vol, name,
			  pool, vol, pool, vol);
	return r;
}
