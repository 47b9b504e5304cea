/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_table.c - table lines for the linear, thin-pool and thin targets
 * (the thin ones: the kernel's
 * Documentation/admin-guide/device-mapper/thin-provisioning.rst,
 * "Constructor"). Pure: no ioctls. */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool valid_dev(const char *dev)
{
	if (!dev || !*dev)
		return false;
	for (; *dev; dev++)
		if ((unsigned char)*dev <= ' ')
			return false;
	return true;
}

static void set_type(struct tp_dm_target *t, uint64_t start, uint64_t length, const char *type)
{
	memset(t, 0, sizeof(*t));
	t->start = start;
	t->length = length;
	snprintf(t->type, sizeof(t->type), "%s", type);
}

/* printf into t->params, -ENAMETOOLONG if it does not fit */
static int put_params(struct tp_dm_target *t, size_t *pos, const char *fmt, ...)
	TP_PRINTF(3, 4);

static int put_params(struct tp_dm_target *t, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->params + *pos, sizeof(t->params) - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(t->params) - *pos)
		return -ENAMETOOLONG;
	*pos += (size_t)n;
	return 0;
}

int tp_dm_linear(struct tp_dm_target *t, uint64_t start, const char *dev, uint64_t offset,
		 uint64_t length)
{
	size_t pos = 0;

	if (!valid_dev(dev) || !length || offset % TP_SECTOR_SIZE || length % TP_SECTOR_SIZE)
		return -EINVAL;
	set_type(t, start, length / TP_SECTOR_SIZE, "linear");
	return put_params(t, &pos, "%s %" PRIu64, dev, offset / TP_SECTOR_SIZE);
}

static const struct {
	unsigned bit;
	const char *arg;
} pool_features[] = {
	{ TP_DM_SKIP_BLOCK_ZEROING, "skip_block_zeroing" },
	{ TP_DM_IGNORE_DISCARD, "ignore_discard" },
	{ TP_DM_NO_DISCARD_PASSDOWN, "no_discard_passdown" },
	{ TP_DM_POOL_READ_ONLY, "read_only" },
	{ TP_DM_ERROR_IF_NO_SPACE, "error_if_no_space" },
};

int tp_dm_thin_pool(struct tp_dm_target *t, uint64_t data_sectors,
		    const struct tp_dm_pool_params *p)
{
	const unsigned all = TP_DM_SKIP_BLOCK_ZEROING | TP_DM_IGNORE_DISCARD |
			     TP_DM_NO_DISCARD_PASSDOWN | TP_DM_POOL_READ_ONLY |
			     TP_DM_ERROR_IF_NO_SPACE;
	unsigned i, count = 0;
	size_t pos = 0;
	int r;

	if (!p || !valid_dev(p->meta_dev) || !valid_dev(p->data_dev) ||
	    !strcmp(p->meta_dev, p->data_dev) || p->block_sectors < TP_DM_POOL_BLOCK_MIN ||
	    p->block_sectors > TP_DM_POOL_BLOCK_MAX || p->block_sectors % TP_DM_POOL_BLOCK_MIN ||
	    !data_sectors || data_sectors % p->block_sectors || (p->features & ~all) ||
	    ((p->features & TP_DM_IGNORE_DISCARD) && (p->features & TP_DM_NO_DISCARD_PASSDOWN)))
		return -EINVAL;
	for (i = 0; i < TP_ARRAY_SIZE(pool_features); i++)
		count += !!(p->features & pool_features[i].bit);
	set_type(t, 0, data_sectors, "thin-pool");
	r = put_params(t, &pos, "%s %s %" PRIu32 " %" PRIu64 " %u", p->meta_dev, p->data_dev,
		       p->block_sectors, p->low_water_blocks, count);
	for (i = 0; !r && i < TP_ARRAY_SIZE(pool_features); i++)
		if (p->features & pool_features[i].bit)
			r = put_params(t, &pos, " %s", pool_features[i].arg);
	return r;
}

int tp_dm_thin(struct tp_dm_target *t, uint64_t length, const char *pool_dev, uint32_t dev_id,
	       const char *origin)
{
	size_t pos = 0;
	int r;

	if (!valid_dev(pool_dev) || !length || dev_id > TP_DM_THIN_ID_MAX ||
	    (origin && !valid_dev(origin)))
		return -EINVAL;
	set_type(t, 0, length, "thin");
	r = put_params(t, &pos, "%s %" PRIu32, pool_dev, dev_id);
	if (!r && origin)
		r = put_params(t, &pos, " %s", origin);
	return r;
}

/* The pool's thin-pool table in T, for layout L. */
int tp_dm_pool_table(const struct tp_dm_pool_layout *l, const char *meta, const char *data,
		      struct tp_dm_target *t)
{
	struct tp_dm_pool_params p;
	char meta_devno[32], data_devno[32];
	int r;

	if ((r = tp_dm_devno(meta, meta_devno, sizeof(meta_devno))) ||
	    (r = tp_dm_devno(data, data_devno, sizeof(data_devno))))
		return r;
	p.meta_dev = meta_devno;
	p.data_dev = data_devno;
	p.block_sectors = l->block_sectors;
	p.low_water_blocks = l->low_water_blocks;
	p.features = l->features;
	return tp_dm_thin_pool(t, l->data_length / TP_SECTOR_SIZE, &p);
}

int tp_dm_pool_data_table(const struct tp_dm_pool_layout *l, struct tp_dm_target *t,
			  unsigned *n)
{
	uint64_t start = 0, sum = 0;
	int r;

	*n = 0;
	if (!l->nr_data_segs) {
		*n = 1;
		return tp_dm_linear(t, 0, l->data_dev, l->data_offset, l->data_length);
	}
	if (l->nr_data_segs > TP_DM_DATA_SEGS_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < l->nr_data_segs; i++) {
		const struct tp_dm_data_seg *s = &l->data_seg[i];

		if ((r = tp_dm_linear(&t[i], start, s->dev, s->offset, s->length)))
			return r;
		start += s->length / TP_SECTOR_SIZE;
		sum += s->length;
	}
	if (sum != l->data_length)
		return -EINVAL;
	*n = l->nr_data_segs;
	return 0;
}
