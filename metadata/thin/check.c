/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check.c - thin_check_io(): the superblock, one walk of the live and
 * one of the snapshot trees (thin_walk.h) with the checker's value, damage
 * and node visitors, then the space maps against the expected counts.
 * See check.h. Reference counting is check_counts.c (the node visitor),
 * the space maps check_sm.c, the findings check_report.c. */
#include "metadata/thin/check.h"
#include "metadata/thin/check_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/thin/thin.h"
#include "metadata/thin/thin_walk.h"

/* ---- superblock ---- */

static int check_superblock(struct chk *c)
{
	struct thin_sb *sb = &c->sb;
	int r = thin_sb_read(c->io, 0, sb);
	unsigned faults;

	if (r == -ENOMEM)
		return r;
	if (r) {
		thin_chk_problem(c, 1, 0, r == -ENODATA ? "superblock: zeroed or missing, no metadata"
						     : "superblock: unreadable (checksum, magic or "
						       "block number wrong)");
		return 1;
	}
	c->rep->sb_ok = 1;
	c->rep->transaction_id = sb->trans_id;
	c->rep->time = sb->time;
	c->rep->data_block_size = sb->data_block_size;
	c->rep->metadata_snap = sb->held_root;
	faults = thin_sb_check(sb, 0, c->io_blocks);
	if (faults & (THIN_SB_BIT(THIN_SBF_VERSION) | THIN_SB_BIT(THIN_SBF_VERSION_OLD)))
		thin_chk_problem(c, !(faults & THIN_SB_BIT(THIN_SBF_VERSION_OLD)), 0,
				 "superblock: version %" PRIu32 " (expected 2)", sb->version);
	if (faults & THIN_SB_BIT(THIN_SBF_METADATA_BLOCK_SIZE))
		thin_chk_problem(c, 1, 0, "superblock: metadata block size %" PRIu32
				 " sectors (must be 8)", sb->metadata_block_size);
	if (faults & THIN_SB_BIT(THIN_SBF_COMPAT_RO))
		thin_chk_problem(c, 1, 0, "superblock: unknown read-only features %#" PRIx32,
				 sb->compat_ro);
	if (faults & THIN_SB_BIT(THIN_SBF_META_SIZE)) {
		thin_chk_problem(c, 1, 0, "superblock: the metadata space map covers %" PRIu64
				 " blocks but the area has %" PRIu64 " (truncated?)",
				 sb->meta_sm.nr_blocks, c->io_blocks);
		return 1;
	}
	if (faults & THIN_SB_BIT(THIN_SBF_DATA_SIZE)) {
		thin_chk_problem(c, 1, 0, "superblock: impossible data device size %" PRIu64
				 " blocks", sb->data_sm.nr_blocks);
		return 1;
	}
	if (faults & THIN_SB_BIT(THIN_SBF_METADATA_NR_BLOCKS))
		thin_chk_problem(c, 0, 0, "superblock: metadata_nr_blocks %" PRIu64
				 " does not fit the metadata space map (%" PRIu64 " blocks)",
				 sb->metadata_nr_blocks, sb->meta_sm.nr_blocks);
	if (faults & THIN_SB_BIT(THIN_SBF_HELD_ROOT)) {
		thin_chk_problem(c, 1, 0, "superblock: metadata snapshot at block %" PRIu64
				 " beyond the end", sb->held_root);
		sb->held_root = 0;
	}
	c->nr_meta = sb->meta_sm.nr_blocks;
	c->nr_data = sb->data_sm.nr_blocks;
	return 0;
}

/* ---- the walk (thin_walk.h) ---- */

static int fast(const struct chk *c)
{
	return c->o && (c->o->flags & THIN_CHECK_FAST);
}

static int on_damage(void *ctx, const struct thin_damage *d)
{
	struct chk *c = ctx;
	const char *which = c->snap_pass ? "metadata snapshot: " : "";

	c->tree_damage = 1;
	switch (d->kind) {
	case THIN_DAMAGE_SUPERBLOCK:
		thin_chk_problem(c, 1, d->block, "%ssuperblock unreadable", which);
		break;
	case THIN_DAMAGE_DETAILS:
	case THIN_DAMAGE_TOP:
		thin_chk_problem(c, 1, d->block, "%s%s tree node %" PRIu64 ": %s (devices %" PRIu64
			      "..%s lost)", which,
			      d->kind == THIN_DAMAGE_DETAILS ? "device details" : "top-level mapping",
			      d->block, d->what, d->begin,
			      d->end == UINT64_MAX ? "end" : "");
		break;
	case THIN_DAMAGE_MAPPINGS:
		c->cur_damaged = 1;
		if (fast(c)) {	/* only the root was read: once per top-level reference */
			if (!d->seen)
				thin_chk_problem(c, 1, d->block, "thin device %" PRIu64
						 ": mapping tree root %" PRIu64 " unreadable",
						 d->dev_id, d->block);
			break;
		}
		if (d->end == UINT64_MAX)
			thin_chk_problem(c, 1, d->block, "%sthin device %" PRIu64 ": mapping tree node %"
				      PRIu64 ": %s (blocks %" PRIu64 "..end lost)", which,
				      d->dev_id, d->block, d->what, d->begin);
		else
			thin_chk_problem(c, 1, d->block, "%sthin device %" PRIu64 ": mapping tree node %"
				      PRIu64 ": %s (blocks %" PRIu64 "..%" PRIu64 " lost)", which,
				      d->dev_id, d->block, d->what, d->begin, d->end - 1);
		break;
	case THIN_DAMAGE_MISMATCH:
		thin_chk_problem(c, 1, d->block, "%sthin device %" PRIu64 ": %s", which, d->dev_id,
			      d->what);
		break;
	}
	return 0;
}

/* Is ID one of the roots to read (opts->roots, ascending)? The devices
 * come in ascending order within a pass, so a cursor that only moves
 * forward answers at a compare or two a device (a search from the start
 * again for an id below the last). */
static int wanted_root(struct chk *c, uint64_t id)
{
	const uint64_t *v = c->o->roots;
	size_t n = c->o->nr_roots;

	if (c->root_next && v[c->root_next - 1] >= id)
		c->root_next = 0;
	while (c->root_next < n && v[c->root_next] < id)
		c->root_next++;
	return c->root_next < n && v[c->root_next] == id;
}

/* What is wrong with device D's details, once a test found something:
 * apart, so that a sound device's test costs a few compares. */
static __attribute__((noinline, cold)) void device_problems(struct chk *c, const struct thin_ir_device *d)
{
	const char *which = c->snap_pass ? "metadata snapshot: " : "";

	if (d->creation_time > c->sb.time || d->snap_time > c->sb.time)
		thin_chk_problem(c, 0, UINT64_MAX, "%sthin device %" PRIu64 ": creation time %" PRIu32
			      " or snapshot time %" PRIu32 " is after the pool time %" PRIu32,
			      which, d->dev_id, d->creation_time, d->snap_time, c->sb.time);
	if (d->dev_id > THIN_MAX_DEV_ID)
		thin_chk_problem(c, 1, UINT64_MAX, "%sthin device id %" PRIu64 " above the limit",
			      which, d->dev_id);
}

static int on_device_begin(void *ctx, const struct thin_ir_device *d)
{
	struct chk *c = ctx;

	if (d->creation_time > c->sb.time || d->snap_time > c->sb.time ||
	    d->dev_id > THIN_MAX_DEV_ID)
		device_problems(c, d);
	if (!c->snap_pass) {
		struct thin_check_report *rep = c->rep;

		if (rep->nr_dev_ids == c->dev_ids_cap) {
			size_t cap = c->dev_ids_cap ? c->dev_ids_cap * 2 : 64;
			uint64_t *v = realloc(rep->dev_ids, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			rep->dev_ids = v;
			c->dev_ids_cap = cap;
		}
		rep->dev_ids[rep->nr_dev_ids++] = d->dev_id;
		rep->nr_devices++;
	}
	/* a device whose tree is not read needs no more (on_device_end of
	 * the fast check reads nothing) */
	if (fast(c) && c->o->roots && !wanted_root(c, d->dev_id))
		return THIN_WALK_SKIP_DEVICE;
	c->cur = *d;
	c->cur_count = 0;
	c->cur_damaged = c->cur_beyond = c->cur_future = 0;
	return 0;
}

static int on_mappings(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct chk *c = ctx;
	uint64_t before = c->cur_count;

	for (size_t i = 0; i < n; i++) {
		const struct thin_ir_mapping *m = &runs[i];
		c->cur_count += m->length;
		if (m->data_begin + m->length > c->nr_data && !c->cur_beyond) {
			c->cur_beyond = 1;
			thin_chk_problem(c, 1, UINT64_MAX, "%sthin device %" PRIu64 ": block %" PRIu64
				      " is mapped to data block %" PRIu64 ", beyond the data device (%"
				      PRIu64 " blocks)", c->snap_pass ? "metadata snapshot: " : "",
				      c->cur.dev_id, m->origin_begin, m->data_begin, c->nr_data);
		}
		if (m->time > c->sb.time && !c->cur_future) {
			c->cur_future = 1;
			thin_chk_problem(c, 0, UINT64_MAX, "%sthin device %" PRIu64 ": block %" PRIu64
				      " has time %" PRIu32 ", after the pool time %" PRIu32,
				      c->snap_pass ? "metadata snapshot: " : "", c->cur.dev_id,
				      m->origin_begin, m->time, c->sb.time);
		}
	}
	c->done += c->cur_count - before;
	if (c->o && c->o->progress && c->done - c->last_progress >= (1u << 16)) {
		c->last_progress = c->done;
		c->o->progress(c->o->progress_ctx, c->done, c->total);
	}
	return 0;
}

static int on_device_end(void *ctx)
{
	struct chk *c = ctx;

	if (fast(c))
		return 0;	/* mappings are not walked */
	if (!c->cur_damaged && c->cur_count != c->cur.mapped_blocks)
		thin_chk_problem(c, 1, UINT64_MAX, "%sthin device %" PRIu64 ": details say %" PRIu64
			      " mapped blocks, the mapping tree holds %" PRIu64,
			      c->snap_pass ? "metadata snapshot: " : "", c->cur.dev_id,
			      c->cur.mapped_blocks, c->cur_count);
	if (!c->snap_pass)
		c->rep->nr_mappings += c->cur_count;
	return 0;
}

static int walk_trees(struct chk *c)
{
	const struct thin_ir_visitor v = { c, NULL, NULL, on_device_begin, on_device_end,
					   on_mappings };
	const struct thin_damage_visitor dv = { c, on_damage };
	const struct thin_node_visitor nv = { c, thin_chk_count_node };
	unsigned skip = fast(c) ? THIN_WALK_SKIP_MAPPINGS | THIN_WALK_MAPPING_ROOTS : 0;
	int r;

	c->snap_pass = 0;
	c->root_next = 0;
	r = thin_walk_nodes(c->io, skip, &v, &dv, &nv);
	if (r && r != -EUCLEAN && r != -ENODATA)
		return r;
	if (c->sb.held_root) {
		c->snap_pass = 1;
		c->root_next = 0;
		r = thin_walk_nodes(c->io, skip | THIN_WALK_METADATA_SNAP, &v, &dv, &nv);
		if (r && r != -EUCLEAN && r != -ENODATA)
			return r;
	}
	if (c->o && c->o->progress && !skip)
		c->o->progress(c->o->progress_ctx, c->total, c->total);
	return 0;
}

static int used_block(void *ctx, uint64_t b)
{
	const struct chk *c = ctx;
	return b < c->nr_meta && c->mexp[b];
}

int thin_check_io(struct io_engine *meta, const struct thin_check_opts *opts,
		  struct thin_check_report *rep)
{
	struct chk c = { .io = meta, .o = opts, .rep = rep };
	int r, counts;

	memset(rep, 0, sizeof(*rep));
	c.io_blocks = meta->size / THIN_METADATA_BLOCK_SIZE;
	if ((r = check_superblock(&c)))
		return r < 0 ? r : 0;
	rep->nr_meta_blocks = c.nr_meta;
	rep->nr_data_blocks = c.nr_data;
	if ((r = thin_chk_counts_alloc(&c)) || (r = thin_chk_sm_load(&c, 0)) ||
	    (r = thin_chk_sm_load(&c, 1)) || (r = walk_trees(&c)))
		goto out;
	/* after damage to the trees the counts would only echo it: bitmaps
	 * are still read and validated */
	counts = !fast(&c) && !c.tree_damage && !c.count_unsure;
	if (!(r = thin_chk_sm_compare(&c, 0, counts)))
		r = thin_chk_sm_compare(&c, 1, counts);
	if (!r && opts && (opts->flags & THIN_CHECK_SCRUB) && !fast(&c))
		r = thin_scrub(meta, used_block, &c, c.nr_meta,
			       ((opts->flags & THIN_CHECK_HEAL) ? THIN_SCRUB_HEAL : 0) |
				       ((opts->flags & THIN_CHECK_FROM_LEG0) ? THIN_SCRUB_FROM_LEG0 : 0) |
				       ((opts->flags & THIN_CHECK_FROM_LEG1) ? THIN_SCRUB_FROM_LEG1 : 0),
			       &rep->scrub);
out:
	thin_chk_counts_free(&c);
	thin_chk_sm_free(&c);
	return r;
}

void thin_check_report_free(struct thin_check_report *rep)
{
	if (!rep)
		return;
	thin_check_findings_free(&rep->f);
	free(rep->dev_ids);
	memset(rep, 0, sizeof(*rep));
}
