/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_md.c - open, format, commit, abort, sizes, metadata snapshot.
 * Devices and mappings are in thin_dev.c. Contract in thin.h. */
#include "metadata/thin/thin_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "lib/base/le.h"

#define THIN_CACHE_BLOCKS 4096u	/* 16 MiB */
/* A reader's: it writes nothing, and walks each tree once (tpstatus of
 * 100,000 volumes reads 2,500 blocks, which the larger cache kept) */
#define THIN_CACHE_BLOCKS_RDONLY 1024u	/* 4 MiB */

/* ---- value types ---- */

static int bottom_inc(void *ctx, const void *v)
{
	struct thin_md *md = ctx;
	return sm_inc(md->dsm, thin_bt_block(le64_get(v)));
}

static int bottom_dec(void *ctx, const void *v)
{
	struct thin_md *md = ctx;
	return sm_dec(md->dsm, thin_bt_block(le64_get(v)));
}

static int top_inc(void *ctx, const void *v)
{
	struct thin_md *md = ctx;
	return tm_inc(md->tm, le64_get(v));
}

static int top_dec(void *ctx, const void *v)
{
	struct thin_md *md = ctx;
	return btree_del(&md->bottom, le64_get(v));
}

static void setup_infos(struct thin_md *md)
{
	md->bottom = (struct btree_info){ md->tm, { 8, md, bottom_inc, bottom_dec } };
	md->top = (struct btree_info){ md->tm, { 8, md, top_inc, top_dec } };
	md->details = (struct btree_info){ md->tm, { THIN_DETAILS_SIZE, md, NULL, NULL } };
}

/* ---- load / unload ---- */

static void unload(struct thin_md *md)
{
	tm_destroy(md->tm);
	sm_destroy(md->dsm);
	sm_destroy(md->msm);
	md->tm = NULL;
	md->dsm = md->msm = NULL;
	free(md->devs);
	md->devs = NULL;
	md->nr_devs = md->cap_devs = 0;
	md->nr_marked = 0;
	md->marked_all = 0;
	if (md->bm)
		bm_forget(md->bm);
}

static int load(struct thin_md *md)
{
	unsigned faults;
	int r;

	if ((r = thin_sb_read(md->io, 0, &md->sb))) {
		if (r == -ENODATA)
			log_error("%s: no thin metadata (the superblock is zeroed)", md->io->name);
		return r;
	}
	faults = thin_sb_check(&md->sb, 0, bm_nr_blocks(md->bm)) & THIN_SB_FATAL;
	if (faults & THIN_SB_BIT(THIN_SBF_META_SIZE)) {
		log_error("%s: metadata space map covers %" PRIu64 " blocks but the area has %"
			  PRIu64 " (truncated?)", md->io->name, md->sb.meta_sm.nr_blocks,
			  bm_nr_blocks(md->bm));
		return -EUCLEAN;
	}
	if (faults & THIN_SB_BIT(THIN_SBF_COMPAT_RO)) {
		if (!(md->flags & THIN_RDONLY)) {
			log_error("%s: read-only compatible features %#" PRIx32
				  " present: open read-only", md->io->name, md->sb.compat_ro);
			return -EROFS;
		}
		faults &= ~THIN_SB_BIT(THIN_SBF_COMPAT_RO);
	}
	for (int f = 0; f < THIN_SBF_NR_FAULTS; f++) {
		if (faults & THIN_SB_BIT(f)) {
			log_error("%s: superblock: %s: run tpcheck", md->io->name,
				  thin_sb_fault_str((enum thin_sb_fault)f));
			return -EUCLEAN;
		}
	}
	if ((r = sm_open(md->bm, SM_METADATA, &md->sb.meta_sm, &md->msm)))
		return r;
	if ((r = sm_open(md->bm, SM_DATA, &md->sb.data_sm, &md->dsm)))
		return r;
	sm_set_meta(md->dsm, md->msm);
	if ((r = tm_create(md->bm, md->msm, &md->tm)))
		return r;
	setup_infos(md);
	md->changed = 0;
	return thin_load_devices(md);
}

static int md_alloc(struct io_engine *io, unsigned flags, struct thin_md **out)
{
	struct thin_md *md = calloc(1, sizeof(*md));
	int r;

	if (!md)
		return -ENOMEM;
	md->io = io;
	md->flags = flags;
	if (io->read_only)
		md->flags |= THIN_RDONLY;
	if ((r = bm_create(io, (md->flags & THIN_RDONLY) ? THIN_CACHE_BLOCKS_RDONLY :
			   THIN_CACHE_BLOCKS, &md->bm))) {
		free(md);
		return r;
	}
	*out = md;
	return 0;
}

void thin_close(struct thin_md *md)
{
	if (!md)
		return;
	unload(md);
	bm_destroy(md->bm);
	free(md);
}

int thin_open(struct io_engine *meta, unsigned flags, struct thin_md **out)
{
	struct thin_md *md;
	int r = md_alloc(meta, flags, &md);

	if (r)
		return r;
	if ((r = load(md))) {
		thin_close(md);
		return r;
	}
	*out = md;
	return 0;
}

int thin_format(struct io_engine *meta, uint32_t data_block_size, uint64_t nr_data_blocks,
		struct thin_md **out)
{
	struct thin_md *md;
	uint64_t nr_meta = TP_MIN(meta->size / BM_BLOCK_SIZE, THIN_METADATA_MAX_BLOCKS);
	int r;

	if (data_block_size < THIN_DATA_BLOCK_SIZE_MIN || data_block_size > THIN_DATA_BLOCK_SIZE_MAX ||
	    data_block_size % THIN_DATA_BLOCK_SIZE_MIN) {
		log_error("data block size %" PRIu32 " sectors: must be 128..2097152 and a "
			  "multiple of 128", data_block_size);
		return -EINVAL;
	}
	if (nr_data_blocks > THIN_MAX_DATA_BLOCKS) {
		log_error("%" PRIu64 " data blocks: at most 2^40", nr_data_blocks);
		return -EINVAL;
	}
	if (nr_meta < 16) {
		log_error("%s: a metadata area needs at least 64 KiB", meta->name);
		return -ENOSPC;
	}
	if (meta->read_only)
		return -EROFS;
	if ((r = md_alloc(meta, 0, &md)))
		return r;
	/* whatever was there stops being metadata before any block of it is
	 * overwritten: a crash during the format leaves an unformatted area */
	{
		struct bm_block *blk;
		if ((r = bm_write_lock_zero(md->bm, 0, NULL, &blk)))
			goto fail;
		bm_unlock(blk);
		if ((r = bm_flush(md->bm)))
			goto fail;
	}
	memset(&md->sb, 0, sizeof(md->sb));
	md->sb.version = THIN_SB_VERSION;
	md->sb.data_block_size = data_block_size;
	md->sb.metadata_block_size = BM_BLOCK_SIZE / 512;
	md->sb.metadata_nr_blocks = nr_meta;
	if ((r = sm_create(md->bm, SM_METADATA, nr_meta, &md->msm)) ||
	    (r = sm_set(md->msm, 0, 1)) ||	/* the superblock */
	    (r = sm_create(md->bm, SM_DATA, nr_data_blocks, &md->dsm)) ||
	    (r = tm_create(md->bm, md->msm, &md->tm)))
		goto fail;
	sm_set_meta(md->dsm, md->msm);
	setup_infos(md);
	if ((r = btree_empty(&md->top, &md->sb.mapping_root)) ||
	    (r = btree_empty(&md->details, &md->sb.details_root)))
		goto fail;
	md->changed = 1;
	if ((r = thin_commit(md)))
		goto fail;
	*out = md;
	return 0;
fail:
	log_error("%s: formatting thin metadata failed: %s", meta->name, strerror(-r));
	thin_close(md);
	return r;
}

/* ---- commit / abort ---- */

static int write_superblock(struct thin_md *md)
{
	struct bm_block *blk;
	int r = bm_write_lock_zero(md->bm, THIN_SB_BLOCK, &thin_sb_validator, &blk);

	if (r)
		return r;
	md->sb.blocknr = THIN_SB_BLOCK;
	thin_sb_pack(bm_block_data(blk), &md->sb);
	bm_unlock(blk);
	return 0;
}

int thin_commit(struct thin_md *md)
{
	int r;

	if (md->flags & THIN_RDONLY)
		return 0;
	if ((r = thin_write_details(md)) ||
	    (r = sm_commit(md->dsm, md->msm, &md->sb.data_sm)) ||
	    (r = sm_commit(md->msm, NULL, &md->sb.meta_sm)) ||
	    (r = tm_pre_commit(md->tm, THIN_SB_BLOCK)) ||
	    (r = write_superblock(md)) ||
	    (r = tm_commit(md->tm, THIN_SB_BLOCK))) {
		log_error("%s: commit failed: %s", md->io->name, strerror(-r));
		return r;
	}
	thin_clear_marks(md);
	md->changed = 0;
	return 0;
}

int thin_abort(struct thin_md *md)
{
	if (md->flags & THIN_RDONLY)
		return 0;
	unload(md);
	return load(md);
}

/* ---- superblock fields ---- */

int thin_superblock_info(struct thin_md *md, struct thin_ir_superblock *sb)
{
	sb->time = md->sb.time;
	sb->transaction = md->sb.trans_id;
	sb->flags = md->sb.flags;
	sb->version = md->sb.version;
	sb->data_block_size = md->sb.data_block_size;
	sb->nr_data_blocks = sm_nr_blocks(md->dsm);
	sb->metadata_snap = md->sb.held_root;
	return 0;
}

int thin_get_transaction_id(struct thin_md *md, uint64_t *id)
{
	*id = md->sb.trans_id;
	return 0;
}

int thin_set_transaction_id(struct thin_md *md, uint64_t old_id, uint64_t new_id)
{
	int r;

	if (md->sb.trans_id != old_id && !(md->flags & THIN_RDONLY)) {
		log_error("transaction id is %" PRIu64 ", not %" PRIu64, md->sb.trans_id, old_id);
		return -EINVAL;
	}
	if ((r = thin_writable(md)))
		return r;
	md->sb.trans_id = new_id;
	return 0;
}

uint32_t thin_get_time(struct thin_md *md)
{
	return md->sb.time;
}

int thin_needs_check(struct thin_md *md)
{
	return !!(md->sb.flags & THIN_SB_FLAG_NEEDS_CHECK);
}

int thin_set_needs_check(struct thin_md *md, int on)
{
	int r = thin_writable(md);

	if (r)
		return r;
	if (on)
		md->sb.flags |= THIN_SB_FLAG_NEEDS_CHECK;
	else
		md->sb.flags &= ~THIN_SB_FLAG_NEEDS_CHECK;
	return 0;
}

/* ---- space ---- */

int thin_alloc_data_block(struct thin_md *md, uint64_t *dblock)
{
	int r = thin_writable(md);
	return r ? r : sm_new_block(md->dsm, dblock);
}

int thin_data_dec(struct thin_md *md, uint64_t dblock)
{
	int r;

	if (dblock >= sm_nr_blocks(md->dsm))
		return -EINVAL;
	if ((r = thin_writable(md)))
		return r;
	return sm_dec(md->dsm, dblock);
}

int thin_data_count(struct thin_md *md, uint64_t dblock, uint32_t *count)
{
	if (dblock >= sm_nr_blocks(md->dsm))
		return -EINVAL;
	return sm_get(md->dsm, dblock, count);
}

int thin_usage(struct thin_md *md, uint64_t *meta_used, uint64_t *meta_total,
	       uint64_t *data_used, uint64_t *data_total)
{
	if (meta_used)
		*meta_used = sm_nr_allocated(md->msm);
	if (meta_total)
		*meta_total = sm_nr_blocks(md->msm);
	if (data_used)
		*data_used = sm_nr_allocated(md->dsm);
	if (data_total)
		*data_total = sm_nr_blocks(md->dsm);
	return 0;
}

int thin_resize_data(struct thin_md *md, uint64_t nr_blocks)
{
	int r;

	if (nr_blocks < sm_nr_blocks(md->dsm) || nr_blocks > THIN_MAX_DATA_BLOCKS) {
		log_error("data device: cannot resize from %" PRIu64 " to %" PRIu64 " blocks",
			  sm_nr_blocks(md->dsm), nr_blocks);
		return -EINVAL;
	}
	if ((r = thin_writable(md)))
		return r;
	return sm_extend(md->dsm, nr_blocks);
}

int thin_resize_metadata(struct thin_md *md, uint64_t nr_blocks)
{
	int r;

	if (nr_blocks < sm_nr_blocks(md->msm)) {
		log_error("metadata: cannot shrink from %" PRIu64 " to %" PRIu64 " blocks",
			  sm_nr_blocks(md->msm), nr_blocks);
		return -EINVAL;
	}
	if (nr_blocks > THIN_METADATA_MAX_BLOCKS || nr_blocks > bm_nr_blocks(md->bm)) {
		log_error("metadata: %" PRIu64 " blocks do not fit the area or the format",
			  nr_blocks);
		return -ENOSPC;
	}
	if ((r = thin_writable(md)))
		return r;
	return sm_extend(md->msm, nr_blocks);
}

/* ---- metadata snapshot ---- */

int thin_get_metadata_snap(struct thin_md *md, uint64_t *block)
{
	*block = md->sb.held_root;
	return 0;
}

int thin_reserve_metadata_snap(struct thin_md *md)
{
	struct bm_block *blk;
	struct thin_sb copy;
	uint64_t s;
	int r;

	if (md->sb.held_root && !(md->flags & THIN_RDONLY)) {
		log_error("a metadata snapshot is already held at block %" PRIu64, md->sb.held_root);
		return -EBUSY;
	}
	if ((r = thin_writable(md)))
		return r;
	if ((r = thin_commit(md)))
		return r;
	md->changed = 1;
	if ((r = sm_new_block(md->msm, &s)))
		return r;
	copy = md->sb;
	copy.blocknr = s;
	copy.held_root = 0;
	memset(&copy.data_sm, 0, sizeof(copy.data_sm));
	memset(&copy.meta_sm, 0, sizeof(copy.meta_sm));
	if ((r = bm_write_lock_zero(md->bm, s, &thin_sb_validator, &blk)))
		return r;
	thin_sb_pack(bm_block_data(blk), &copy);
	bm_unlock(blk);
	if ((r = tm_inc(md->tm, md->sb.mapping_root)) || (r = tm_inc(md->tm, md->sb.details_root)))
		return r;
	md->sb.held_root = s;
	return thin_commit(md);
}

int thin_release_metadata_snap(struct thin_md *md)
{
	struct bm_block *blk;
	struct thin_sb snap;
	int r;

	if (!md->sb.held_root && !(md->flags & THIN_RDONLY)) {
		log_error("no metadata snapshot is held");
		return -EINVAL;
	}
	if ((r = thin_writable(md)))
		return r;
	if ((r = bm_read_lock(md->bm, md->sb.held_root, &thin_sb_validator, &blk)))
		return r;
	thin_sb_unpack(bm_block_data(blk), &snap);
	bm_unlock(blk);
	if ((r = btree_del(&md->top, snap.mapping_root)) ||
	    (r = btree_del(&md->details, snap.details_root)) ||
	    (r = tm_dec(md->tm, md->sb.held_root)))
		return r;
	md->sb.held_root = 0;
	return thin_commit(md);
}
