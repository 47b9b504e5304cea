/* btree.c - lookup, insert (top-down splitting), walk and delete.
 * Removal is in btree_remove.c. See btree.h. */
#include "metadata/pdata/btree.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"

static int check_leaf(const struct btree_info *info, const void *n, uint64_t b)
{
	if (bn_is_leaf(n) && bn_vsize(n) != info->vt.size) {
		log_error("btree node %" PRIu64 ": value size %" PRIu32 ", expected %" PRIu32, b,
			  bn_vsize(n), info->vt.size);
		return -EUCLEAN;
	}
	return 0;
}

static int lock_ro(const struct btree_info *info, uint64_t b, struct bm_block **blk)
{
	int r = tm_read_lock(info->tm, b, &btree_node_validator, blk);

	if (!r && (r = check_leaf(info, bm_block_data(*blk), b)))
		tm_unlock(info->tm, *blk);
	return r;
}

int btree_shadow(const struct btree_info *info, uint64_t b, struct bm_block **out)
{
	int inc, r;
	const unsigned char *n;

	if ((r = tm_shadow_block(info->tm, b, &btree_node_validator, out, &inc)))
		return r;
	n = bm_block_data(*out);
	if ((r = check_leaf(info, n, b)))
		goto fail;
	if (inc) {
		for (uint32_t i = 0; i < bn_nr(n); i++) {
			if (!bn_is_leaf(n))
				r = tm_inc(info->tm, bn_value64(n, i));
			else if (info->vt.inc)
				r = info->vt.inc(info->vt.ctx, bn_value(n, i));
			if (r)
				goto fail;
		}
	}
	return 0;
fail:
	tm_unlock(info->tm, *out);
	return r;
}

int btree_empty(const struct btree_info *info, uint64_t *root)
{
	struct bm_block *blk;
	int r = tm_new_block(info->tm, &btree_node_validator, &blk);

	if (r)
		return r;
	bn_init(bm_block_data(blk), BTREE_NODE_LEAF, info->vt.size);
	*root = bm_block_location(blk);
	tm_unlock(info->tm, blk);
	return 0;
}

/* Descend to the leaf that may hold KEY; with GE, find the first key >= KEY. */
static int lookup(const struct btree_info *info, uint64_t root, uint64_t key, int ge,
		  uint64_t *found, void *value)
{
	struct bm_block *blk;
	uint64_t b = root;
	int r;

	for (int depth = 0;; depth++) {
		const unsigned char *n;
		int i;

		if (depth >= BTREE_MAX_DEPTH) {
			log_error("btree node %" PRIu64 ": tree too deep (a loop?)", b);
			return -EUCLEAN;
		}
		if ((r = lock_ro(info, b, &blk)))
			return r;
		n = bm_block_data(blk);
		i = bn_lower_bound(n, key);
		if (bn_is_leaf(n)) {
			if (i >= 0 && bn_key(n, (uint32_t)i) == key) {
				/* exact */
			} else if (ge && (uint32_t)(i + 1) < bn_nr(n)) {
				i++;
			} else {
				tm_unlock(info->tm, blk);
				return -ENODATA;
			}
			if (found)
				*found = bn_key(n, (uint32_t)i);
			if (value)
				memcpy(value, bn_value(n, (uint32_t)i), info->vt.size);
			tm_unlock(info->tm, blk);
			return 0;
		}
		if (i < 0) {
			if (!ge || !bn_nr(n)) {
				tm_unlock(info->tm, blk);
				return -ENODATA;
			}
			i = 0;
		}
		if (ge) {
			/* the answer may be in a later child: try each in turn */
			for (uint32_t c = (uint32_t)i; c < bn_nr(n); c++) {
				r = lookup(info, bn_value64(n, c), key, 1, found, value);
				if (r != -ENODATA)
					break;
			}
			tm_unlock(info->tm, blk);
			return r;
		}
		b = bn_value64(n, (uint32_t)i);
		tm_unlock(info->tm, blk);
	}
}

int btree_lookup(const struct btree_info *info, uint64_t root, uint64_t key, void *value)
{
	return lookup(info, root, key, 0, NULL, value);
}

int btree_lookup_ge(const struct btree_info *info, uint64_t root, uint64_t key,
		    uint64_t *found, void *value)
{
	return lookup(info, root, key, 1, found, value);
}

/* Insert slot I of N (which has room): shift the tail right. */
static void insert_at(unsigned char *n, uint32_t i, uint64_t key, const void *value)
{
	uint32_t nr = bn_nr(n), vs = bn_vsize(n);

	memmove(n + BTREE_HEADER_SIZE + 8 * (size_t)(i + 1), n + BTREE_HEADER_SIZE + 8 * (size_t)i,
		8 * (size_t)(nr - i));
	memmove(bn_value(n, i + 1), bn_value(n, i), (size_t)vs * (nr - i));
	bn_set_key(n, i, key);
	memcpy(bn_value(n, i), value, vs);
	bn_set_nr(n, nr + 1);
}

/* Move the upper half of LEFT into the empty node RIGHT. */
static void split_half(unsigned char *left, unsigned char *right)
{
	uint32_t nr = bn_nr(left), vs = bn_vsize(left), keep = nr / 2, move = nr - keep;

	bn_init(right, bn_flags(left), vs);
	memcpy(right + BTREE_HEADER_SIZE, left + BTREE_HEADER_SIZE + 8 * (size_t)keep, 8 * (size_t)move);
	memcpy(bn_value(right, 0), bn_value(left, keep), (size_t)vs * move);
	bn_set_nr(right, move);
	bn_set_nr(left, keep);
}

/* The root is full: move its entries into two new children and make it
 * an internal node over them (the tree grows by one level). */
static int split_beneath(const struct btree_info *info, unsigned char *root)
{
	struct bm_block *lb, *rb;
	unsigned char *l, *rn, v[8];
	int r;

	if ((r = tm_new_block(info->tm, &btree_node_validator, &lb)))
		return r;
	if ((r = tm_new_block(info->tm, &btree_node_validator, &rb))) {
		tm_unlock(info->tm, lb);
		return r;
	}
	l = bm_block_data(lb);
	rn = bm_block_data(rb);
	memcpy(l, root, BM_BLOCK_SIZE);
	split_half(l, rn);
	bn_init(root, BTREE_NODE_INTERNAL, 8);
	le64_put(v, bm_block_location(lb));
	insert_at(root, 0, bn_key(l, 0), v);
	le64_put(v, bm_block_location(rb));
	insert_at(root, 1, bn_key(rn, 0), v);
	tm_unlock(info->tm, lb);
	tm_unlock(info->tm, rb);
	return 0;
}

int btree_insert(const struct btree_info *info, uint64_t root, uint64_t key, const void *value,
		 uint64_t *new_root, int *inserted, unsigned flags)
{
	struct bm_block *blk, *cblk, *rblk;
	unsigned char *n;
	int r;

	if ((r = btree_shadow(info, root, &blk)))
		return r;
	*new_root = bm_block_location(blk);
	n = bm_block_data(blk);
	if (bn_nr(n) == bn_max(n) && (r = split_beneath(info, n)))
		goto out;
	for (int depth = 0;; depth++) {
		int i = bn_lower_bound(n, key);

		if (depth >= BTREE_MAX_DEPTH) {
			log_error("btree node %" PRIu64 ": tree too deep (a loop?)",
				  bm_block_location(blk));
			r = -EUCLEAN;
			goto out;
		}
		if (bn_is_leaf(n)) {
			if (i >= 0 && bn_key(n, (uint32_t)i) == key) {
				if (!(flags & BTREE_KEEP_OLD_REF) && info->vt.dec &&
				    (r = info->vt.dec(info->vt.ctx, bn_value(n, (uint32_t)i))))
					goto out;
				memcpy(bn_value(n, (uint32_t)i), value, info->vt.size);
				if (inserted)
					*inserted = 0;
			} else {
				insert_at(n, (uint32_t)(i + 1), key, value);
				if (inserted)
					*inserted = 1;
			}
			r = 0;
			goto out;
		}
		if (!bn_nr(n)) {
			log_error("btree node %" PRIu64 ": empty internal node",
				  bm_block_location(blk));
			r = -EUCLEAN;
			goto out;
		}
		if (i < 0) {
			i = 0;
			bn_set_key(n, 0, key);
		}
		if ((r = btree_shadow(info, bn_value64(n, (uint32_t)i), &cblk)))
			goto out;
		bn_set_value64(n, (uint32_t)i, bm_block_location(cblk));
		unsigned char *c = bm_block_data(cblk);
		if (bn_nr(c) == bn_max(c)) {
			unsigned char v[8];
			if ((r = tm_new_block(info->tm, &btree_node_validator, &rblk))) {
				tm_unlock(info->tm, cblk);
				goto out;
			}
			unsigned char *rn = bm_block_data(rblk);
			split_half(c, rn);
			le64_put(v, bm_block_location(rblk));
			insert_at(n, (uint32_t)i + 1, bn_key(rn, 0), v);
			if (key >= bn_key(rn, 0)) {
				tm_unlock(info->tm, cblk);
				cblk = rblk;
			} else {
				tm_unlock(info->tm, rblk);
			}
		}
		tm_unlock(info->tm, blk);
		blk = cblk;
		n = bm_block_data(blk);
	}
out:
	tm_unlock(info->tm, blk);
	return r;
}

static int del(const struct btree_info *info, uint64_t b, int depth)
{
	struct bm_block *blk;
	const unsigned char *n;
	uint32_t count;
	int r;

	if (depth >= BTREE_MAX_DEPTH) {
		log_error("btree node %" PRIu64 ": tree too deep (a loop?)", b);
		return -EUCLEAN;
	}
	if ((r = tm_ref(info->tm, b, &count)))
		return r;
	if (count > 1)
		return tm_dec(info->tm, b);
	if ((r = lock_ro(info, b, &blk)))
		return r;
	n = bm_block_data(blk);
	for (uint32_t i = 0; i < bn_nr(n) && !r; i++) {
		if (!bn_is_leaf(n))
			r = del(info, bn_value64(n, i), depth + 1);
		else if (info->vt.dec)
			r = info->vt.dec(info->vt.ctx, bn_value(n, i));
	}
	tm_unlock(info->tm, blk);
	return r ? r : tm_dec(info->tm, b);
}

int btree_del(const struct btree_info *info, uint64_t root)
{
	return del(info, root, 0);
}

static int walk(const struct btree_info *info, uint64_t b, int depth,
		int (*fn)(void *ctx, uint64_t key, const void *value), void *ctx)
{
	struct bm_block *blk;
	const unsigned char *n;
	int r;

	if (depth >= BTREE_MAX_DEPTH) {
		log_error("btree node %" PRIu64 ": tree too deep (a loop?)", b);
		return -EUCLEAN;
	}
	if ((r = lock_ro(info, b, &blk)))
		return r;
	n = bm_block_data(blk);
	for (uint32_t i = 0; i < bn_nr(n) && !r; i++) {
		if (bn_is_leaf(n))
			r = fn(ctx, bn_key(n, i), bn_value(n, i));
		else
			r = walk(info, bn_value64(n, i), depth + 1, fn, ctx);
	}
	tm_unlock(info->tm, blk);
	return r;
}

int btree_walk(const struct btree_info *info, uint64_t root,
	       int (*fn)(void *ctx, uint64_t key, const void *value), void *ctx)
{
	return walk(info, root, 0, fn, ctx);
}
