/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair_scan.c - thin_repair_scan(): find device-tree roots when the
 * superblock or a root is lost (format doc 6.2). Every block is read once
 * (1 MiB at a time) and kept if it is a valid btree node; then nodes are
 * typed (details: 24-byte leaves; top-level: 8-byte leaves whose keys are
 * device ids and whose values all name valid nodes; internal nodes take
 * their first child's type), roots are the nodes no internal node of a
 * valid tree points at. The top-level root is the caller's (its superblock
 * root, when usable) or the one whose mappings carry the newest time (then
 * the most devices); it is paired with the details root holding the same
 * device ids whose details carry the newest time. */
#include "metadata/thin/repair.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/pdata/btree_node.h"
#include "lib/base/le.h"
#include "metadata/pdata/u64map.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#define SCAN_CHUNK 256	/* blocks per read */

enum ntype { N_NONE, N_INTERNAL, N_LEAF8, N_LEAF24, N_TOP, N_BOTTOM, N_DETAILS };

struct scan {
	struct io_engine *in;
	uint64_t nr;
	uint8_t *type;		/* enum ntype per block */
	uint8_t *referenced;	/* a valid internal node points at it */
	uint32_t *age;		/* newest mapping time below a node; AGE_UNKNOWN */
};

#define AGE_UNKNOWN UINT32_MAX

/* A node of a thin tree (leaf values of 8 or 24 bytes) under RULES. */
static int usable(const unsigned char *n, uint64_t b, unsigned rules)
{
	return !btree_node_check(n, b, 0, rules, NULL) &&
	       (!bn_is_leaf(n) || bn_vsize(n) == 8 || bn_vsize(n) == THIN_DETAILS_SIZE);
}

/* Usable, with the max_entries a writer of this format uses. */
static int valid_node(const unsigned char *n, uint64_t b)
{
	return usable(n, b, BTREE_RULE_STD_MAX);
}

/* What a leg of mirrored metadata must hold for its copy to be taken. */
static int node_copy_ok(const void *n, uint64_t b, void *arg)
{
	(void)arg;
	return usable(n, b, 0);
}

static int read_node(struct scan *s, uint64_t b, unsigned char *n)
{
	return io_read_valid(s->in, b * BM_BLOCK_SIZE, n, 1, BM_BLOCK_SIZE, node_copy_ok, NULL, IO_HEAL);
}

static int pass_valid(struct scan *s)
{
	unsigned char *buf = malloc((size_t)SCAN_CHUNK * BM_BLOCK_SIZE);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (uint64_t b = 1; b < s->nr && !r; b += SCAN_CHUNK) {
		uint64_t n = TP_MIN((uint64_t)SCAN_CHUNK, s->nr - b);
		if ((r = io_read_valid(s->in, b * BM_BLOCK_SIZE, buf, n, BM_BLOCK_SIZE,
				       node_copy_ok, NULL, IO_HEAL)))
			break;
		for (uint64_t i = 0; i < n; i++) {
			const unsigned char *node = buf + i * BM_BLOCK_SIZE;
			if (!valid_node(node, b + i))
				continue;
			s->type[b + i] = bn_flags(node) == BTREE_NODE_INTERNAL ? N_INTERNAL :
					 bn_vsize(node) == 8 ? N_LEAF8 : N_LEAF24;
			if (s->type[b + i] == N_LEAF8) {	/* as a bottom-level leaf */
				uint32_t a = 0;
				for (uint32_t k = 0; k < bn_nr(node); k++)
					a = TP_MAX(a, thin_bt_time(bn_value64(node, k)));
				s->age[b + i] = a;
			}
		}
	}
	free(buf);
	return r;
}

/* Type of a node: leaves by content, internal nodes by their first child. */
static int node_type(struct scan *s, uint64_t b, int depth)
{
	unsigned char n[BM_BLOCK_SIZE];
	int t = s->type[b];

	if (t == N_LEAF24)
		s->type[b] = N_DETAILS;
	if (t >= N_TOP || t == N_NONE || t == N_LEAF24)
		return s->type[b];
	if (depth > BTREE_MAX_DEPTH || read_node(s, b, n))
		return N_NONE;
	if (t == N_INTERNAL) {
		uint64_t c = bn_nr(n) ? bn_value64(n, 0) : 0;
		t = c && c < s->nr && c != b ? node_type(s, c, depth + 1) : N_NONE;
		s->type[b] = (uint8_t)(t == N_NONE ? N_INTERNAL : t);
		return t;
	}
	/* an 8-byte leaf */
	t = bn_nr(n) ? N_TOP : N_BOTTOM;
	for (uint32_t i = 0; i < bn_nr(n) && t == N_TOP; i++) {
		uint64_t v = bn_value64(n, i);
		if (bn_key(n, i) > THIN_MAX_DEV_ID || v >= s->nr ||
		    (s->type[v] != N_LEAF8 && s->type[v] != N_INTERNAL && s->type[v] != N_TOP &&
		     s->type[v] != N_BOTTOM) || v == b)
			t = N_BOTTOM;
	}
	s->type[b] = (uint8_t)t;
	return t;
}

/* Newest mapping time under node B of a top-level or bottom-level tree
 * (bottom-level nodes memoized; leaves were measured by the scan). */
static uint32_t node_age(struct scan *s, uint64_t b, int depth)
{
	unsigned char n[BM_BLOCK_SIZE];
	uint32_t a = 0;
	int t;

	if (b >= s->nr || depth > 2 * BTREE_MAX_DEPTH)
		return 0;
	t = s->type[b];
	if (t != N_BOTTOM && t != N_TOP)
		return 0;
	if (t == N_BOTTOM && s->age[b] != AGE_UNKNOWN)
		return s->age[b];
	if (read_node(s, b, n))
		return 0;
	for (uint32_t i = 0; i < bn_nr(n); i++) {
		uint64_t c = bn_value64(n, i);
		if (c != b)
			a = TP_MAX(a, node_age(s, c, depth + 1));
	}
	if (t == N_BOTTOM)
		s->age[b] = a;
	return a;
}

struct cand {
	uint64_t root;
	uint64_t *ids;
	size_t n;
	uint32_t age;
};

/* Collect the keys (device ids) of a tree, and for details the newest time. */
static int collect(struct scan *s, uint64_t b, int details, struct cand *c, int depth)
{
	unsigned char n[BM_BLOCK_SIZE];
	int r;

	if (depth > BTREE_MAX_DEPTH || b >= s->nr || (s->type && s->type[b] == N_NONE))
		return 0;
	if ((r = read_node(s, b, n)))
		return r;
	if (!s->type && !usable(n, b, 0))
		return 0;
	for (uint32_t i = 0; i < bn_nr(n); i++) {
		if (bn_flags(n) == BTREE_NODE_INTERNAL) {
			if ((r = collect(s, bn_value64(n, i), details, c, depth + 1)))
				return r;
			continue;
		}
		if (u64_push(&c->ids, &c->n, bn_key(n, i)))
			return -ENOMEM;
		if (details) {
			struct thin_ir_device d;
			thin_details_unpack(bn_value(n, i), &d);
			c->age = TP_MAX(c->age, TP_MAX(d.creation_time, d.snap_time));
		}
	}
	return 0;
}

static int same_ids(const struct cand *a, const struct cand *b)
{
	return a->n == b->n && !memcmp(a->ids, b->ids, a->n * sizeof(*a->ids));
}

static void free_cands(struct cand *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].ids);
	free(c);
}

int thin_repair_tree_keys(struct io_engine *in, uint64_t root, uint64_t **ids, size_t *n)
{
	struct scan s = { in, in->size / BM_BLOCK_SIZE, NULL, NULL, NULL };
	struct cand c = { root, NULL, 0, 0 };
	int r = collect(&s, root, 0, &c, 0);

	if (r) {
		free(c.ids);
		return r;
	}
	*ids = c.ids;
	*n = c.n;
	return 0;
}

int thin_repair_scan(struct io_engine *in, uint64_t *details_root, uint64_t *mapping_root)
{
	struct scan s = { in, in->size / BM_BLOCK_SIZE, NULL, NULL, NULL };
	uint64_t preferred = *mapping_root;
	struct cand *dc = NULL, *tc = NULL;
	size_t nd = 0, nt = 0;
	unsigned char n[BM_BLOCK_SIZE];
	int r = -ENOMEM, best = -1, best_top = -1;

	s.type = calloc(s.nr ? s.nr : 1, 1);
	s.referenced = calloc(s.nr ? s.nr : 1, 1);
	s.age = malloc((s.nr ? s.nr : 1) * sizeof(*s.age));
	if (!s.type || !s.referenced || !s.age)
		goto out;
	memset(s.age, 0xff, (s.nr ? s.nr : 1) * sizeof(*s.age));
	if ((r = pass_valid(&s)))
		goto out;
	for (uint64_t b = 1; b < s.nr; b++)
		if (s.type[b] != N_NONE)
			node_type(&s, b, 0);
	/* what internal nodes point at is not a root */
	for (uint64_t b = 1; b < s.nr; b++) {
		if (s.type[b] == N_NONE)
			continue;
		if ((r = read_node(&s, b, n)))
			goto out;
		if (bn_flags(n) != BTREE_NODE_INTERNAL)
			continue;
		for (uint32_t i = 0; i < bn_nr(n); i++) {
			uint64_t c = bn_value64(n, i);
			if (c < s.nr)
				s.referenced[c] = 1;
		}
	}
	for (uint64_t b = 1; b < s.nr; b++) {
		nd += !s.referenced[b] && s.type[b] == N_DETAILS;
		nt += !s.referenced[b] && s.type[b] == N_TOP;
	}
	dc = calloc(nd + 1, sizeof(*dc));
	tc = calloc(nt + 1, sizeof(*tc));
	nd = nt = 0;
	r = -ENOMEM;
	if (!dc || !tc)
		goto out;
	for (uint64_t b = 1; b < s.nr; b++) {
		if (s.referenced[b])
			continue;
		if (s.type[b] == N_DETAILS) {
			dc[nd].root = b;
			if ((r = collect(&s, b, 1, &dc[nd++], 0)))
				goto out;
		} else if (s.type[b] == N_TOP) {
			tc[nt].root = b;
			if ((r = collect(&s, b, 0, &tc[nt++], 0)))
				goto out;
		}
	}
	/* the top-level tree: the caller's, else the newest (then the biggest) */
	for (size_t j = 0; j < nt; j++)
		if (tc[j].root == preferred)
			best_top = (int)j;
	for (size_t j = 0; j < nt && best_top < 0; j++)
		tc[j].age = node_age(&s, tc[j].root, 0);
	for (size_t j = 0; j < nt && (best_top < 0 || tc[best_top].root != preferred); j++)
		if (best_top < 0 || tc[j].age > tc[best_top].age ||
		    (tc[j].age == tc[best_top].age && tc[j].n > tc[best_top].n))
			best_top = (int)j;
	if (best_top < 0) {
		log_error("%s: no mapping tree was found (%zu details tree%s scanned); nothing to "
			  "salvage", in->name, nd, tp_plural(nd));
		r = -EUCLEAN;
		goto out;
	}
	/* the newest details tree naming the same devices */
	for (size_t i = 0; i < nd; i++)
		if (same_ids(&dc[i], &tc[best_top]) && (best < 0 || dc[i].age > dc[best].age))
			best = (int)i;
	*mapping_root = tc[best_top].root;
	if (best < 0) {
		*details_root = 0;
		r = 0;
		goto out;
	}
	*details_root = dc[best].root;
	log_info("%s: using device details root %" PRIu64 " and mapping root %" PRIu64
		 " (%zu device%s)", in->name, *details_root, *mapping_root, dc[best].n,
		 tp_plural(dc[best].n));
	r = 0;
out:
	free_cands(dc, nd);
	free_cands(tc, nt);
	free(s.type);
	free(s.referenced);
	free(s.age);
	return r;
}
