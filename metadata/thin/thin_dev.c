/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_dev.c - thin devices and their mappings. Contract in thin.h.
 *
 * Each device's bottom-tree root is cached in struct thin_dev and is
 * always equal to its value in the top-level tree: when a change moves the
 * root, the top-level value is rewritten at once. Before the first change
 * to a device in a transaction its top-level path is shadowed (the
 * kernel's top-down order), so that a top-level leaf shared with a
 * metadata snapshot takes its extra references before the bottom root is
 * shadowed away from it. */
#include "metadata/thin/thin_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "lib/base/le.h"
#include "metadata/pdata/btree_node.h"
#include "metadata/pdata/btree_ro.h"

/* ---- the device table ---- */

static size_t dev_pos(struct thin_md *md, uint64_t id)
{
	size_t lo = 0, hi = md->nr_devs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (md->devs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct thin_dev *thin_find_dev(struct thin_md *md, uint64_t id)
{
	size_t i = dev_pos(md, id);
	return i < md->nr_devs && md->devs[i].id == id ? &md->devs[i] : NULL;
}

/* Room for one more device at the end of the table. */
static int dev_room(struct thin_md *md)
{
	size_t nc;
	struct thin_dev *nd;

	if (md->nr_devs < md->cap_devs)
		return 0;
	nc = md->cap_devs ? md->cap_devs * 2 : 16;
	nd = realloc(md->devs, nc * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	md->devs = nd;
	md->cap_devs = nc;
	return 0;
}

static int thin_add_dev(struct thin_md *md, uint64_t id, struct thin_dev **out)
{
	size_t i = dev_pos(md, id);
	int r = dev_room(md);

	if (r)
		return r;
	memmove(&md->devs[i + 1], &md->devs[i], (md->nr_devs - i) * sizeof(*md->devs));
	md->devs[i] = (struct thin_dev){ .id = id, .d.dev_id = id };
	md->nr_devs++;
	*out = &md->devs[i];
	return 0;
}

static void thin_del_dev(struct thin_md *md, struct thin_dev *dev)
{
	size_t i = (size_t)(dev - md->devs);

	memmove(&md->devs[i], &md->devs[i + 1], (md->nr_devs - i - 1) * sizeof(*md->devs));
	md->nr_devs--;
}

/* The details tree is walked in key order, a leaf at a time: each device
 * goes at the end of the table (no search, no move); a key not above the
 * last is damage. */
static int load_details(void *ctx, const void *leaf)
{
	struct thin_md *md = ctx;
	const unsigned char *keys = (const unsigned char *)leaf + BTREE_HEADER_SIZE;
	const unsigned char *vals = (const unsigned char *)bn_value(leaf, 0);
	uint32_t nr = bn_nr(leaf), vsize = bn_vsize(leaf);
	size_t n = md->nr_devs;
	struct thin_dev *devs;

	if (n + nr > md->cap_devs) {
		size_t nc = TP_MAX(md->cap_devs * 2, n + nr);

		if (!(devs = realloc(md->devs, nc * sizeof(*devs))))
			return -ENOMEM;
		md->devs = devs;
		md->cap_devs = nc;
	}
	devs = md->devs;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t key = le64_get(keys + 8 * (size_t)i);

		if (n && devs[n - 1].id >= key) {
			md->nr_devs = n;
			return -EUCLEAN;
		}
		devs[n] = (struct thin_dev){ .id = key, .d.dev_id = key };
		thin_details_unpack(vals + (size_t)i * vsize, &devs[n].d);
		n++;
	}
	md->nr_devs = n;
	return 0;
}

struct root_ctx {
	struct thin_md *md;
	size_t next;
};

/* The top-level tree's keys are the same devices, in the same order. */
static int load_roots(void *ctx, const void *leaf)
{
	struct root_ctx *c = ctx;
	const unsigned char *keys = (const unsigned char *)leaf + BTREE_HEADER_SIZE;
	const unsigned char *vals = (const unsigned char *)bn_value(leaf, 0);
	uint32_t nr = bn_nr(leaf);

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t key = le64_get(keys + 8 * (size_t)i);

		if (c->next >= c->md->nr_devs || c->md->devs[c->next].id != key) {
			log_error("thin device %" PRIu64 ": in the mapping tree but not in the "
				  "details tree (or the other way round)", key);
			return -EUCLEAN;
		}
		c->md->devs[c->next++].root = le64_get(vals + 8 * (size_t)i);
	}
	return 0;
}

int thin_load_devices(struct thin_md *md)
{
	struct root_ctx c = { md, 0 };
	uint64_t n;
	int r;

	/* the table sized once (a realloc's copies of 20,000 devices cost
	 * more than reading the tree's nodes twice: they are cached) */
	if ((r = btree_count(&md->details, md->sb.details_root, &n)))
		return r;
	if (n + 64 > md->cap_devs && n <= THIN_MAX_DEV_ID + 1) {
		struct thin_dev *nd;

		/* and room for the devices a change adds without a copy */
		if (!(nd = realloc(md->devs, (size_t)(n + 64) * sizeof(*nd))))
			return -ENOMEM;
		md->devs = nd;
		md->cap_devs = (size_t)n + 64;
	}
	if ((r = btree_walk_leaves(&md->details, md->sb.details_root, load_details, md)))
		return r;
	if ((r = btree_walk_leaves(&md->top, md->sb.mapping_root, load_roots, &c)))
		return r;
	if (c.next != md->nr_devs) {
		log_error("thin device %" PRIu64 ": in the details tree but not in the mapping tree",
			  md->devs[c.next].id);
		return -EUCLEAN;
	}
	return 0;
}

/* Record DEV among the devices the commit visits (md->marked); before
 * its first dirty or touched of the transaction is set. */
static void thin_mark_dev(struct thin_md *md, const struct thin_dev *dev)
{
	if (dev->dirty || dev->touched || md->marked_all)
		return;
	for (unsigned i = 0; i < md->nr_marked; i++)
		if (md->marked[i] == dev->id)
			return;	/* deleted and made again */
	if (md->nr_marked == THIN_MARKED_MAX)
		md->marked_all = 1;
	else
		md->marked[md->nr_marked++] = dev->id;
}

static int write_dev(struct thin_md *md, struct thin_dev *dev)
{
	unsigned char v[THIN_DETAILS_SIZE];
	int r;

	if (!dev->dirty)
		return 0;
	thin_details_pack(v, &dev->d);
	if ((r = btree_insert(&md->details, md->sb.details_root, dev->id, v,
			      &md->sb.details_root, NULL, 0)))
		return r;
	dev->dirty = 0;
	return 0;
}

/* The marked ids in ascending order: the details are written in id
 * order, as a walk of the table writes them. */
static void sort_marked(struct thin_md *md)
{
	for (unsigned i = 1; i < md->nr_marked; i++) {
		uint64_t id = md->marked[i];
		unsigned j = i;

		for (; j && md->marked[j - 1] > id; j--)
			md->marked[j] = md->marked[j - 1];
		md->marked[j] = id;
	}
}

int thin_write_details(struct thin_md *md)
{
	struct thin_dev *dev;
	int r;

	if (md->marked_all) {
		for (size_t i = 0; i < md->nr_devs; i++)
			if ((r = write_dev(md, &md->devs[i])))
				return r;
		return 0;
	}
	sort_marked(md);
	for (unsigned i = 0; i < md->nr_marked; i++)
		if ((dev = thin_find_dev(md, md->marked[i])) && (r = write_dev(md, dev)))
			return r;
	return 0;
}

void thin_clear_marks(struct thin_md *md)
{
	struct thin_dev *dev;

	if (md->marked_all) {
		for (size_t i = 0; i < md->nr_devs; i++)
			md->devs[i].touched = md->devs[i].dirty = 0;
	} else {
		for (unsigned i = 0; i < md->nr_marked; i++)
			if ((dev = thin_find_dev(md, md->marked[i])))
				dev->touched = dev->dirty = 0;
	}
	md->nr_marked = 0;
	md->marked_all = 0;
}

/* ---- devices ---- */

static int get_dev(struct thin_md *md, uint64_t id, struct thin_dev **out)
{
	*out = thin_find_dev(md, id);
	if (!*out) {
		log_debug(TP_DBG_THIN, "thin device %" PRIu64 " does not exist", id);
		return -ENODATA;
	}
	return 0;
}

static int set_top(struct thin_md *md, uint64_t id, uint64_t root)
{
	unsigned char v[8];

	le64_put(v, root);
	return btree_insert(&md->top, md->sb.mapping_root, id, v, &md->sb.mapping_root, NULL,
			    BTREE_KEEP_OLD_REF);
}

static int new_dev(struct thin_md *md, uint64_t id, uint64_t root, const struct thin_ir_device *d)
{
	struct thin_dev *dev;
	int r;

	if ((r = set_top(md, id, root)))
		return r;
	if ((r = thin_add_dev(md, id, &dev)))
		return r;
	dev->root = root;
	dev->d = *d;
	dev->d.dev_id = id;
	thin_mark_dev(md, dev);
	dev->dirty = dev->touched = 1;
	return 0;
}

static int check_new_id(struct thin_md *md, uint64_t id)
{
	if (id > THIN_MAX_DEV_ID) {
		log_error("thin device id %" PRIu64 " is above the limit %llu", id, THIN_MAX_DEV_ID);
		return -EINVAL;
	}
	if (thin_find_dev(md, id)) {
		log_error("thin device %" PRIu64 " already exists", id);
		return -EEXIST;
	}
	return 0;
}

int thin_create_thin(struct thin_md *md, uint64_t dev_id)
{
	struct thin_ir_device d = { dev_id, 0, md->sb.trans_id, md->sb.time, md->sb.time };
	uint64_t root;
	int r = check_new_id(md, dev_id);

	if (r || (r = thin_writable(md)) || (r = btree_empty(&md->bottom, &root)))
		return r;
	return new_dev(md, dev_id, root, &d);
}

int thin_create_snap(struct thin_md *md, uint64_t dev_id, uint64_t origin_id)
{
	struct thin_dev *o;
	struct thin_ir_device d;
	uint64_t root;
	int r = check_new_id(md, dev_id);

	if (r || (r = get_dev(md, origin_id, &o)) || (r = thin_writable(md)))
		return r;
	root = o->root;
	if ((r = tm_inc(md->tm, root)))
		return r;
	md->sb.time++;
	o->d.snap_time = md->sb.time;
	thin_mark_dev(md, o);
	o->dirty = 1;
	d = (struct thin_ir_device){ dev_id, o->d.mapped_blocks, md->sb.trans_id, md->sb.time,
				     md->sb.time };
	return new_dev(md, dev_id, root, &d);
}

int thin_delete(struct thin_md *md, uint64_t dev_id)
{
	struct thin_dev *dev;
	int r;

	if ((r = get_dev(md, dev_id, &dev)) || (r = thin_writable(md)))
		return r;
	if ((r = btree_remove(&md->top, md->sb.mapping_root, dev_id, &md->sb.mapping_root)))
		return r;
	r = btree_remove(&md->details, md->sb.details_root, dev_id, &md->sb.details_root);
	if (r && r != -ENODATA)
		return r;
	thin_del_dev(md, dev);
	return 0;
}

int thin_device_info(struct thin_md *md, uint64_t dev_id, struct thin_ir_device *out)
{
	struct thin_dev *dev;
	int r = get_dev(md, dev_id, &dev);

	if (!r)
		*out = dev->d;
	return r;
}

int thin_list_devices(struct thin_md *md, uint64_t **ids, size_t *nr)
{
	*ids = NULL;
	*nr = md->nr_devs;
	if (!md->nr_devs)
		return 0;
	*ids = malloc(md->nr_devs * sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	for (size_t i = 0; i < md->nr_devs; i++)
		(*ids)[i] = md->devs[i].id;
	return 0;
}

size_t thin_nr_devices(const struct thin_md *md)
{
	return md->nr_devs;
}

int thin_each_device(struct thin_md *md,
		     int (*fn)(void *ctx, uint64_t dev_id, const struct thin_ir_device *d),
		     void *ctx)
{
	int r = 0;

	for (size_t i = 0; i < md->nr_devs && !r; i++)
		r = fn(ctx, md->devs[i].id, &md->devs[i].d);
	return r;
}

/* ---- mappings ---- */

static int touch(struct thin_md *md, struct thin_dev *dev)
{
	int r;

	if (dev->touched)
		return 0;
	if ((r = set_top(md, dev->id, dev->root)))
		return r;
	thin_mark_dev(md, dev);
	dev->touched = 1;
	return 0;
}

static int update_root(struct thin_md *md, struct thin_dev *dev, uint64_t root)
{
	if (root == dev->root)
		return 0;
	dev->root = root;
	return set_top(md, dev->id, root);
}

static int insert(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t dblock,
		  int alloced, uint32_t time)
{
	struct thin_dev *dev;
	unsigned char v[8];
	uint64_t root;
	int inserted, r;

	if ((r = get_dev(md, dev_id, &dev)))
		return r;
	if (dblock >= sm_nr_blocks(md->dsm)) {
		log_error("data block %" PRIu64 " is beyond the data device (%" PRIu64 " blocks)",
			  dblock, sm_nr_blocks(md->dsm));
		return -EINVAL;
	}
	if ((r = thin_writable(md)) || (r = touch(md, dev)))
		return r;
	if (!alloced && (r = sm_inc(md->dsm, dblock)))
		return r;
	le64_put(v, thin_bt_pack(dblock, time));
	if ((r = btree_insert(&md->bottom, dev->root, vblock, v, &root, &inserted, 0)))
		return r;
	if (inserted) {
		dev->d.mapped_blocks++;
		thin_mark_dev(md, dev);
		dev->dirty = 1;
	}
	return update_root(md, dev, root);
}

int thin_insert_mapping(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t dblock)
{
	return insert(md, dev_id, vblock, dblock, 0, md->sb.time);
}

int thin_insert_mapping_alloced(struct thin_md *md, uint64_t dev_id, uint64_t vblock,
				uint64_t dblock)
{
	return insert(md, dev_id, vblock, dblock, 1, md->sb.time);
}

int thin_remap_mapping(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t from,
		       uint64_t to)
{
	uint64_t d;
	uint32_t time;
	int r = thin_lookup(md, dev_id, vblock, &d, &time);

	if (r)
		return r;
	if (d != from)
		return -ESTALE;
	return insert(md, dev_id, vblock, to, 0, time);
}

int thin_remove_mapping(struct thin_md *md, uint64_t dev_id, uint64_t vblock)
{
	struct thin_dev *dev;
	uint64_t root;
	int r;

	if ((r = get_dev(md, dev_id, &dev)) ||
	    (r = btree_lookup(&md->bottom, dev->root, vblock, NULL)) || (r = thin_writable(md)))
		return r;
	if ((r = touch(md, dev)) ||
	    (r = btree_remove(&md->bottom, dev->root, vblock, &root)))
		return r;
	dev->d.mapped_blocks--;
	thin_mark_dev(md, dev);
	dev->dirty = 1;
	return update_root(md, dev, root);
}

/* The first keys of a tree, in order, up to C->max. */
struct first_keys {
	uint64_t *keys;
	size_t n, max;
};

static int first_key(void *ctx, uint64_t key, const void *value)
{
	struct first_keys *c = ctx;

	(void)value;
	c->keys[c->n++] = key;
	return c->n == c->max;	/* 1 stops the walk */
}

int thin_unmap_first(struct thin_md *md, uint64_t dev_id, uint64_t max, uint64_t *removed)
{
	struct first_keys c = { NULL, 0, 0 };
	struct thin_dev *dev;
	uint64_t root;
	size_t i, done;
	int r;

	*removed = 0;
	if ((r = get_dev(md, dev_id, &dev)) || (r = thin_writable(md)))
		return r;
	if (!max || !dev->d.mapped_blocks)
		return 0;
	c.max = max < (1u << 20) ? (size_t)max : (1u << 20);
	if (!(c.keys = malloc(c.max * sizeof(*c.keys))))
		return -ENOMEM;
	r = btree_walk(&md->bottom, dev->root, first_key, &c);
	if (r < 0)
		goto out;
	if ((r = touch(md, dev)))
		goto out;
	/* the sorted keys leave one leaf at a time; each shadows its path once */
	for (i = 0; i < c.n; i += done) {
		if ((r = btree_remove_run(&md->bottom, dev->root, c.keys + i, c.n - i, &root,
					  &done)))
			goto out;
		dev->d.mapped_blocks = dev->d.mapped_blocks > done ? dev->d.mapped_blocks - done : 0;
		thin_mark_dev(md, dev);
		dev->dirty = 1;
		*removed += done;
		if ((r = update_root(md, dev, root)))
			goto out;
	}
out:
	free(c.keys);
	return r;
}

int thin_mapping_shared(struct thin_md *md, uint64_t dev_id, uint64_t vblock, int *shared)
{
	uint64_t path[BTREE_MAX_DEPTH];
	unsigned char v[8];
	struct thin_dev *dev;
	unsigned depth = 0;
	uint32_t count;
	int r;

	if ((r = get_dev(md, dev_id, &dev)) ||
	    (r = btree_ro_lookup_path(md->bm, dev->root, 8, vblock, v, NULL, path, &depth)))
		return r;
	if ((r = sm_get(md->dsm, thin_bt_block(le64_get(v)), &count)))
		return r;
	*shared = count > 1;
	/* a node of the way another tree holds too (a snapshot's): every leaf
	 * below it is the other tree's as well */
	for (unsigned i = 0; !*shared && i < depth; i++) {
		if ((r = sm_get(md->msm, path[i], &count)))
			return r;
		*shared = count > 1;
	}
	return 0;
}

int thin_lookup(struct thin_md *md, uint64_t dev_id, uint64_t vblock, uint64_t *dblock,
		uint32_t *time)
{
	struct thin_dev *dev;
	unsigned char v[8];
	int r;

	if ((r = get_dev(md, dev_id, &dev)) ||
	    (r = btree_lookup(&md->bottom, dev->root, vblock, v)))
		return r;
	*dblock = thin_bt_block(le64_get(v));
	if (time)
		*time = thin_bt_time(le64_get(v));
	return 0;
}

struct usage_ctx {
	struct thin_md *md;
	uint64_t mapped, exclusive;
};

static int usage_entry(void *ctx, uint64_t key, const void *value)
{
	struct usage_ctx *c = ctx;
	uint32_t count;
	int r = sm_get(c->md->dsm, thin_bt_block(le64_get(value)), &count);

	(void)key;
	if (r)
		return r;
	c->mapped++;
	if (count == 1)
		c->exclusive++;
	return 0;
}

int thin_device_usage(struct thin_md *md, uint64_t dev_id, uint64_t *mapped,
		      uint64_t *exclusive, uint64_t *shared)
{
	struct usage_ctx c = { md, 0, 0 };
	struct thin_dev *dev;
	int r;

	if ((r = get_dev(md, dev_id, &dev)) ||
	    (r = btree_walk(&md->bottom, dev->root, usage_entry, &c)))
		return r;
	if (mapped)
		*mapped = c.mapped;
	if (exclusive)
		*exclusive = c.exclusive;
	if (shared)
		*shared = c.mapped - c.exclusive;
	return 0;
}
