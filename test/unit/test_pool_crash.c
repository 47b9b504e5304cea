/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Power cuts over lib/pool's commit paths: every device a command opens
 * goes into one crash domain (test/lib/io_crash.h, io_crash_hook), and the
 * command is cut before each of its writes and flushes, keeping all, none
 * or random subsets of the unflushed writes on each device (crash_sim.h).
 *
 * Paths: a thin change under the transaction-id protocol (tvcreate,
 * tvsnap, tvremove, tvrollback: one VG commit on every device, one thin
 * commit), a VG commit alone (tvrename), tprepair's salvage and area
 * swap, tprepair's deletion of a stray thin device (a change of its own),
 * tpextend of the data area and of the metadata areas (VG, thin
 * superblock, labels), tpextend --data (the new device's label and VG
 * area, the VG commit on three devices, the space map grown), tpreduce
 * --data (the thin metadata rebuilt into the spare, the VG commit that
 * swaps the areas and drops the device, its label wiped; of a mirrored
 * pool too, the rebuild reaching both legs; of the first data device,
 * every mapping numbered down, the metadata device's VG copy before the
 * new first device's, the pool found through it), tprestore
 * into the pool's active area, and a raw
 * import (tprecv --format raw: an unfinished receive, the data, the
 * change that makes it a volume), and a removal in bounded steps (a
 * change, a thin commit per step, a change) of a shared origin; the trash
 * (a volume into it, its undo: a change each; the purge of a trashed shared
 * origin: a change, the removal's steps, a change, a cut one finished by
 * the next writer's open); a volume's head rewritten into new blocks
 * (tvchange's key changes: one change, the old head whole or the new one,
 * the snapshot taken before keeping the old); mirrored
 * thin metadata: a pool mirrored later (tpchange --meta-mirror: the areas
 * copied, the raid metadata zeroed, the new leg labelled, one VG commit), the
 * growth of a mirrored pool's metadata areas (tpextend --metadata), a
 * stale leg put on a new device (--meta-replace) and resynced in place
 * (tprepair), and by a writer before its first commit (the old state:
 * the leg stale, or resynced; the new: the change made, the leg in step,
 * its thin metadata digesting as the good leg's).
 *
 * The model: after the cut, the next writer opens the pool (completing an
 * interrupted transaction, pool.h); what it sees must be exactly the state
 * before or after the command (VG: settings, areas, volumes; thin: every
 * device and the superblock), one more change must commit, and tpcheck
 * must then find the pool clean. tprestore writes the area in place, so
 * there a third outcome is allowed and required to be detectable: an area
 * whose superblock is zeroed (what the builder writes first). A raw import
 * has a third outcome too: an unfinished receive (no volume), which
 * tprecv --abort drops, leaving the volumes as before; and when the
 * volume is there, it reads back as the image, byte for byte. A removal
 * cut between its steps is finished by that next writer's open, so it
 * too must then show the old or the new state; before that, tpcheck must
 * find a cut between its steps clean (and some cuts must leave one). */
#include "lib/base/crc32c.h"
#include "lib/base/io.h"
#include "lib/base/io_area.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/pool_check.h"
#include "lib/pool/pool_dump.h"
#include "lib/pool/pool_recv.h"
#include "lib/pool/pool_send.h"
#include "metadata/thin/thin.h"
#include "test/unit/crash_digest.h"
#include "test/unit/crash_sim.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL "crashp"
#define DATA_SIZE (8u << 20)
#define META_SIZE (6u << 20)

static char data_path[640], meta_path[640], xml_path[640], img_path[640], got_path[640];
/* the device tpextend --data adds (in every command's images: small) */
static char data2_path[640], data3_path[640], data4_path[640];
#define NR_IMAGES 5
#define DATA2_SIZE (4u << 20)

/* ---- the images ---- */

struct image {
	struct file_copy f[NR_IMAGES];
};

static const char *path_of(int i)
{
	return i == 4 ? data4_path : i == 3 ? data3_path : i == 2 ? data2_path
	       : i ? meta_path : data_path;
}

static void image_save(struct image *im)
{
	for (int i = 0; i < NR_IMAGES; i++)
		file_copy_read(path_of(i), &im->f[i]);
}

/* Put the saved images back, rewriting only the 64 KiB pieces that
 * differ (a command writes little; the page cache need not churn). */
static void image_load(const struct image *im)
{
	enum { PIECE = 64 << 10 };
	static unsigned char buf[PIECE];

	for (int i = 0; i < NR_IMAGES; i++) {
		const unsigned char *data = im->f[i].data;
		off_t size = (off_t)im->f[i].size;
		int fd = open(path_of(i), O_RDWR);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(ftruncate(fd, size) == 0);
		for (off_t at = 0; at < size; at += PIECE) {
			size_t n = size - at < PIECE ? (size_t)(size - at) : PIECE;
			if (pread(fd, buf, n, at) == (ssize_t)n && !memcmp(buf, data + at, n))
				continue;
			CU_ASSERT_FATAL(pwrite(fd, data + at, n, at) == (ssize_t)n);
		}
		close(fd);
	}
}

static void image_free(struct image *im)
{
	for (int i = 0; i < NR_IMAGES; i++)
		file_copy_free(&im->f[i]);
}

static void grow(const char *path, off_t size)
{
	CU_ASSERT_FATAL(truncate(path, size) == 0);
}

/* ---- digests (crash_digest.h) ---- */

/* The thin metadata in [OFF, OFF + LEN) of image PATH: 0 and its digest,
 * or -errno (-ENODATA: no superblock there). */
static int thin_digest_at(const char *path, uint64_t off, uint64_t len, uint32_t *out)
{
	struct io_engine *io;
	int r;

	*out = 0;
	if ((r = io_open_area(path, IO_RDONLY, off, len, &io)))
		return r;
	r = crash_digest_thin(io, out);
	io_destroy(io);
	return r;
}

/* ... of the metadata image */
static int thin_digest(uint64_t off, uint64_t len, uint32_t *out)
{
	return thin_digest_at(meta_path, off, len, out);
}

/* Open the pool as the next writer does (completing an interrupted
 * transaction; a stale mirror leg is left as it is, a state to judge)
 * and digest the VG and the thin metadata; with CHANGED, then make one
 * more change (a volume created and removed) and put its result there. */
static int pool_digest(uint32_t *out, int *changed)
{
	struct pool *p;
	struct pool_info info;
	uint64_t off, len, over;
	uint32_t d = 0, t;
	int r;

	if ((r = pool_open(POOL, NULL, POOL_META_KEEP_STALE, &p)))
		return r;
	if ((r = pool_get_info(p, 0, &info))) {
		pool_close(p);
		return r;
	}
	crash_mix(&d, info.chunk);
	crash_mix(&d, info.data_size);
	crash_mix(&d, info.transaction_id);
	crash_mix(&d, info.data_offset);
	crash_mix(&d, info.meta_offset);
	crash_mix(&d, info.meta_length);
	crash_mix(&d, info.spare_offset);
	crash_mix_str(&d, info.meta_legs);	/* mirrored: each leg's path and state */
	for (unsigned i = 0; i < info.nr_volumes; i++) {
		const struct pool_volume_info *v = &info.volumes[i];
		crash_mix_str(&d, v->name);
		crash_mix_str(&d, v->origin);
		crash_mix(&d, v->size);
		crash_mix(&d, v->dev_id);	/* not the creation time: the clock moves */
	}
	off = info.meta_offset;
	len = info.meta_length;
	pool_info_free(&info);
	{	/* the trash: each entry (not its time: the clock moves) */
		struct pool_trash_entry *e = NULL;
		unsigned nt = 0;

		if ((r = pool_volume_trash_list(p, 0, &e, &nt))) {
			pool_close(p);
			return r;
		}
		for (unsigned i = 0; i < nt; i++) {
			crash_mix_str(&d, e[i].name);
			crash_mix(&d, e[i].dev_id);
			crash_mix(&d, e[i].size);
			crash_mix(&d, (uint64_t)e[i].purging);
		}
		free(e);
	}
	r = thin_digest(off, len, &t);
	if (!r && changed) {
		*changed = pool_volume_create_as(p, "extra", 1u << 20, 0, &over);
		if (!*changed)
			*changed = pool_volume_remove_progress(p, "extra", NULL, NULL);
	}
	pool_close(p);
	if (r)
		return r;
	crash_mix(&d, t);
	*out = d;
	return 0;
}

/* tpcheck finds the pool clean. */
static const char *check_clean(void)
{
	struct pool_check_params cp = { .pool = POOL };
	struct pool_check_result res;
	int clean;

	memset(&res, 0, sizeof(res));
	if (pool_check_run(&cp, &res))
		return "tpcheck does not run";
	clean = res.pool.verdict == POOL_CLEAN && res.thin.verdict == POOL_CLEAN;
	if (!clean && getenv("TP_DEBUG_CUT"))
		for (size_t i = 0; i < res.pool.nr_kept; i++)
			fprintf(stderr, "  pool: %s\n", res.pool.kept[i].msg);
	pool_check_result_free(&res);
	return clean ? NULL : "tpcheck finds damage";
}

/* ---- the commands ---- */

static uint64_t restore_off, restore_len;	/* the active thin-metadata area */

struct command {
	const char *name;
	int (*run)(void);
	void (*setup)(void);	/* the world before (not under the simulator), or NULL */
	int area_level;		/* judged as a bare area (tprestore) */
	int dirty_before;	/* tpcheck rightly finds the state before unclean */
	int import;		/* a raw import of img_path as volume "imp" */
	int (*resume)(void);	/* a cut is resumed by this (the volumes reading the same
				 * at each cut), then judged by the new state */
	int check_cut;		/* tpcheck on the cut state too, before it is resumed */
	int mirror;		/* the pool's thin metadata mirrored onto data3 */
	int resync;		/* a cut between the legs' superblock writes leaves the
				 * second stale (as for every thin commit of a mirrored
				 * pool): tprepair resyncs it before the judgement */
	int legs_equal;		/* the new state: the second leg's (data3) active area
				 * digests as the first's */
	int synced_old;		/* the old state with the stale leg resynced is old too
				 * (a writer resyncs it before its own change) */
	int head;		/* volume a's head reads as before (the old state) or as
				 * rewritten (the new), whole; a-head, the snapshot
				 * taken before, as before in both; a third state, the
				 * old one with its transaction id moved on by the
				 * replay of a change whose VG carried nothing */
};

static uint32_t synced_old_d;	/* that state's digest (struct command: synced_old) */

/* (a stale mirror leg kept: the commands that resync it do it themselves) */
static int with_pool(int (*fn)(struct pool *p))
{
	struct pool *p;
	int r = pool_open(POOL, NULL, POOL_META_KEEP_STALE, &p);

	if (r)
		return r;
	r = fn(p);
	pool_close(p);
	return r;
}

static int do_create(struct pool *p)
{
	uint64_t over;
	return pool_volume_create_as(p, "new", 64u << 20, 0, &over);
}

static int do_snap(struct pool *p)
{
	return pool_volume_snapshot(p, "a", "a-snap2", 0);
}

static int do_remove(struct pool *p)
{
	return pool_volume_remove_progress(p, "b", NULL, NULL);
}

static int do_rename(struct pool *p)
{
	return pool_volume_rename(p, "b", "b-renamed");
}

static int do_rollback(struct pool *p)
{
	uint64_t old_size;
	return pool_volume_rollback(p, "a", "a-snap", &old_size);
}

static int run_rollback(void)
{
	return with_pool(do_rollback);
}

static int run_create(void)
{
	return with_pool(do_create);
}

static int run_snap(void)
{
	return with_pool(do_snap);
}

static int run_remove(void)
{
	return with_pool(do_remove);
}

static int run_rename(void)
{
	return with_pool(do_rename);
}

static int run_repair(void)
{
	struct pool_repair_params rp = { .pool = POOL, .force_salvage = 1 };
	struct pool_repair_result res;
	int r;

	memset(&res, 0, sizeof(res));
	r = pool_repair_run(&rp, &res);
	pool_repair_result_free(&res);
	return r;
}

static int do_extend(struct pool *p)
{
	struct pool_extend_params x = { 0, 0 };
	struct pool_extend_result res;
	return pool_extend(p, &x, &res);
}

static int do_extend_meta(struct pool *p)
{
	struct pool_extend_params x = { 1, 3u << 20 };
	struct pool_extend_result res;
	return pool_extend(p, &x, &res);
}

static int do_extend_data(struct pool *p)
{
	struct pool_extend_data_params x = { data2_path, 0, 0 };
	struct pool_extend_data_result res;
	return pool_extend_data(p, &x, &res);
}

static int run_extend_data(void)
{
	return with_pool(do_extend_data);
}

static int do_reduce_data(struct pool *p)
{
	struct pool_reduce_data_result res;
	return pool_reduce_data(p, data2_path, 0, &res);
}

static int run_reduce_data(void)
{
	return with_pool(do_reduce_data);
}

/* mirrored thin metadata: the stale leg (data3) put on data2, resynced */
static int do_meta_replace(struct pool *p)
{
	return pool_meta_replace(p, data2_path);
}

static int run_meta_replace(void)
{
	return with_pool(do_meta_replace);
}

/* tpchange --meta-mirror: the pool's thin metadata mirrored onto data2 */
static int do_meta_mirror(struct pool *p)
{
	return pool_meta_mirror_add(p, data2_path, 1);
}

static int run_meta_mirror(void)
{
	return with_pool(do_meta_mirror);
}

/* Three hundred volumes beside the fixture's: the VG text of a few
 * pages, each slot a checkpoint and its records, so that a writer's read
 * keeps the checkpoint its commit appends to (the writer's memo,
 * metadata/vg/mda.c) and the commands below run with it. */
static void setup_many(void)
{
	struct pool *p;
	uint64_t over;
	char name[16];

	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	for (unsigned i = 1; i <= 300; i++) {
		snprintf(name, sizeof(name), "m%03u", i);
		CU_ASSERT_FATAL(pool_volume_create_as(p, name, 1u << 20, 0, &over) == 0);
	}
	pool_close(p);
}

static void setup_meta_mirror(void)
{
	grow(data2_path, META_SIZE);
}

/* tprepair: the stale leg resynced onto its own device */
static int run_meta_resync(void)
{
	struct pool_repair_params rp = { .pool = POOL };
	struct pool_repair_result res;
	int r;

	memset(&res, 0, sizeof(res));
	r = pool_repair_run(&rp, &res);
	pool_repair_result_free(&res);
	return r;
}

static int do_extend_data3(struct pool *p)
{
	struct pool_extend_data_params x = { data3_path, 0, 0 };
	struct pool_extend_data_result res;
	return pool_extend_data(p, &x, &res);
}

/* the world before: a second and a third data device, holding nothing */
static void setup_reduce_middle(void)
{
	CU_ASSERT_FATAL(with_pool(do_extend_data) == 0);
	CU_ASSERT_FATAL(with_pool(do_extend_data3) == 0);
}

static int do_extend_data4(struct pool *p)
{
	struct pool_extend_data_params x = { data4_path, 0, 0 };
	struct pool_extend_data_result res;
	return pool_extend_data(p, &x, &res);
}

/* the same for a mirrored pool (data3 its second leg): data2 and data4 */
static void setup_reduce_middle_mirror(void)
{
	CU_ASSERT_FATAL(with_pool(do_extend_data) == 0);
	CU_ASSERT_FATAL(with_pool(do_extend_data4) == 0);
}

/* the middle one of three taken away: the third's range numbered down */
static int run_reduce_middle(void)
{
	return with_pool(do_reduce_data);
}

/* The world before tpmove: a second data device, and volume a (thin 0)
 * mapping 6 chunks there, 5 of them shared by its snapshot a-snap (3),
 * each chunk's data random, committed by the thin metadata alone as a
 * kernel that wrote them would leave it. */
#define MOVE_CHUNKS 6u
static void setup_move(void)
{
	struct pool_data_device dev[POOL_DATA_DEVICES_MAX];
	struct io_engine *io = NULL, *area = NULL;
	struct thin_md *md = NULL;
	struct pool *p;
	uint64_t first, off, chunk;
	uint32_t x = 0x9e3779b9u;
	unsigned char *buf;
	int fd;

	CU_ASSERT_FATAL(with_pool(do_extend_data) == 0);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, POOL_RDONLY, &p) == 0);
	CU_ASSERT_FATAL(pool_data_devices(p, dev, POOL_DATA_DEVICES_MAX) == 2);
	first = dev[1].first_chunk;
	off = dev[1].offset;
	{
		struct pool_info info;

		CU_ASSERT_FATAL(pool_get_info(p, 0, &info) == 0);
		chunk = info.chunk;
		pool_info_free(&info);
	}
	pool_close(p);
	CU_ASSERT_FATAL(io_fd_open(meta_path, 0, &io) == 0);
	CU_ASSERT_FATAL(io_window_create(io, restore_off, restore_len, 0, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, 0, &md) == 0);
	buf = malloc(chunk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	fd = open(data2_path, O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	for (uint64_t i = 0; i < MOVE_CHUNKS; i++) {
		uint64_t b = first + 2 * i;	/* every other chunk of the device */

		CU_ASSERT_FATAL(thin_insert_mapping(md, 0, i * 3, b) == 0);
		if (i != 4)	/* one chunk a alone maps */
			CU_ASSERT_FATAL(thin_insert_mapping(md, 3, i * 3, b) == 0);
		for (uint64_t j = 0; j < chunk; j++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			buf[j] = (unsigned char)x;
		}
		CU_ASSERT_FATAL(pwrite(fd, buf, chunk, (off_t)(off + 2 * i * chunk)) ==
				(ssize_t)chunk);
	}
	close(fd);
	free(buf);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(io_flush(area) == 0);
	io_destroy(area);
	io_destroy(io);
}

static int do_move(struct pool *p)
{
	struct pool_move_params x = { data2_path, 0, 2, NULL, NULL };
	struct pool_move_result res;
	int r = pool_move_data(p, &x, &res);

	return r ? r : res.used == MOVE_CHUNKS ? 0 : -EPROTO;
}

/* the move in steps of 2 mappings: 6 chunks, 11 mappings, 6 thin commits
 * (a resumed run finds fewer, so only a whole first run checks the count) */
static int run_move(void)
{
	return with_pool(do_move);
}

static int do_move_rest(struct pool *p)
{
	struct pool_move_params x = { data2_path, 0, 2, NULL, NULL };
	struct pool_move_result res;
	int r = pool_move_data(p, &x, &res);

	return r ? r : res.moved == res.used ? 0 : -EPROTO;
}

/* tpreduce --data of the first data device, emptied: what setup_move
 * maps on the second is numbered down by the first one's chunks */
static int do_reduce_first(struct pool *p)
{
	struct pool_reduce_data_result res;
	return pool_reduce_data(p, data_path, 0, &res);
}

static int run_reduce_first(void)
{
	return with_pool(do_reduce_first);
}

/* the same on a mirrored pool: what setup_move wrote into the first
 * leg's active area copied onto the second (data3) */
static void setup_reduce_first_mirror(void)
{
	struct file_copy area;
	int fd;

	setup_move();
	file_copy_read(meta_path, &area);
	CU_ASSERT_FATAL(area.size >= restore_off + restore_len);
	fd = open(data3_path, O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pwrite(fd, area.data + restore_off, restore_len, (off_t)restore_off) ==
			(ssize_t)restore_len);
	close(fd);
	file_copy_free(&area);
}

static int run_move_rest(void)
{
	return with_pool(do_move_rest);
}

/* tpreduce --size: the data area ending 3 chunks into the second device
 * (what setup_move maps there from its 5th chunk on moves below), in
 * steps of 2 mappings; a cut is resumed by the same command, which after
 * the commit finds nothing to do */
static int do_shrink(struct pool *p)
{
	struct pool_data_device dev[POOL_DATA_DEVICES_MAX];
	struct pool_shrink_params x;
	struct pool_shrink_result res;
	struct pool_info info;
	uint64_t chunk;
	int r;

	if (pool_data_devices(p, dev, POOL_DATA_DEVICES_MAX) != 2 ||
	    pool_get_info(p, 0, &info))
		return -EPROTO;
	chunk = info.chunk;
	pool_info_free(&info);
	memset(&x, 0, sizeof(x));
	x.size = (dev[1].first_chunk + 3) * chunk;
	x.step = 2;
	r = pool_shrink_data(p, &x, &res);
	return r ? r : res.already || res.written ? 0 : -EPROTO;
}

static int run_shrink(void)
{
	return with_pool(do_shrink);
}

/* the same opened as tpreduce opens it: a writer's open, which resyncs a
 * leg a cut left stale at its first commit (a cut inside a move step's
 * thin commit can leave the second leg behind) */
static int run_shrink_tool(void)
{
	struct pool *p;
	int r = pool_open(POOL, NULL, 0, &p);

	if (r)
		return r;
	r = do_shrink(p);
	pool_close(p);
	return r;
}

/* the world before tpreduce: the second data device added, holding nothing */
static void setup_reduce_data(void)
{
	CU_ASSERT_FATAL(with_pool(do_extend_data) == 0);
}

static int run_extend(void)
{
	return with_pool(do_extend);
}

/* a writer's first commit (a rename): a stale mirror leg resynced from
 * the good one before it (the open alone writes nothing) */
static int run_open_resync(void)
{
	struct pool *p;
	int r = pool_open(POOL, NULL, 0, &p);

	if (!r)
		r = pool_volume_rename(p, "b", "b-renamed");
	pool_close(p);
	return r;
}

static int run_extend_meta(void)
{
	return with_pool(do_extend_meta);
}

/* A mirrored pool whose second leg (data3) is stale: its active
 * superblock overwritten; data2 big enough to take its place. */
static void setup_meta_stale(void)
{
	static const char junk[4096] = "not a superblock";
	int fd = open(data3_path, O_RDWR);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pwrite(fd, junk, sizeof(junk), (off_t)restore_off) == (ssize_t)sizeof(junk));
	close(fd);
	grow(data2_path, META_SIZE);
}

static void setup_extend(void)
{
	grow(data_path, DATA_SIZE + (2u << 20));
}

static void setup_extend_meta(void)
{
	grow(meta_path, META_SIZE + (4u << 20));
}

/* a mirrored pool: both legs' devices grown alike */
static void setup_extend_meta_mirror(void)
{
	grow(meta_path, META_SIZE + (4u << 20));
	grow(data3_path, META_SIZE + (4u << 20));
}


/* A thin device no volume lists, committed by the thin metadata alone (a
 * live tprecv cut short after the kernel made it); tprepair deletes it. */
static void setup_stray(void)
{
	struct io_engine *io = NULL, *area = NULL;
	struct thin_md *md = NULL;

	CU_ASSERT_FATAL(io_fd_open(meta_path, 0, &io) == 0);
	CU_ASSERT_FATAL(io_window_create(io, restore_off, restore_len, 0, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, 0, &md) == 0);
	CU_ASSERT_FATAL(thin_create_thin(md, 9) == 0);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(io_flush(area) == 0);
	io_destroy(area);
	io_destroy(io);
}

/* Volume a (thin device 0) maps 7 chunks and its snapshot a-snap (3)
 * shares them, committed by the thin metadata alone, as a kernel that
 * wrote them would leave it: the removal of a below goes in steps. */
static void setup_mapped(void)
{
	struct io_engine *io = NULL, *area = NULL;
	struct thin_md *md = NULL;

	CU_ASSERT_FATAL(io_fd_open(meta_path, 0, &io) == 0);
	CU_ASSERT_FATAL(io_window_create(io, restore_off, restore_len, 0, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, 0, &md) == 0);
	for (uint64_t i = 0; i < 7; i++) {
		uint64_t b;

		CU_ASSERT_FATAL(thin_alloc_data_block(md, &b) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, 0, i * 3, b) == 0);
		if (i != 4)	/* one chunk a alone maps */
			CU_ASSERT_FATAL(thin_insert_mapping(md, 3, i * 3, b) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(io_flush(area) == 0);
	io_destroy(area);
	io_destroy(io);
}

static int do_remove_origin(struct pool *p)
{
	return pool_volume_remove_progress(p, "a", NULL, NULL);
}

/* the removal of a shared origin in steps of 2 mappings: a change, four
 * thin commits, a change */
static int run_remove_steps(void)
{
	int r;

	setenv("TP_TEST_REMOVE_STEP", "2", 1);
	r = with_pool(do_remove_origin);
	unsetenv("TP_TEST_REMOVE_STEP");
	return r;
}

/* ---- the trash (tvremove with a retention: into it, undo, purge) ---- */

static int set_retention(struct pool *p)
{
	return pool_volume_set_trash_retention(p, 3600);
}

static int trash_a(struct pool *p)
{
	int trashed;
	int r = pool_volume_remove_or_trash(p, "a", 0, 0, &trashed, NULL, NULL);

	return r ? r : trashed ? 0 : -EPROTO;
}

static int trash_b(struct pool *p)
{
	int trashed;
	int r = pool_volume_remove_or_trash(p, "b", 0, 0, &trashed, NULL, NULL);

	return r ? r : trashed ? 0 : -EPROTO;
}

static void setup_trash_on(void)
{
	CU_ASSERT_FATAL(with_pool(set_retention) == 0);
}

static void setup_trashed(void)
{
	setup_trash_on();
	CU_ASSERT_FATAL(with_pool(trash_b) == 0);
}

/* a shared origin (setup_mapped) in the trash, to be purged in steps */
static void setup_mapped_trashed(void)
{
	setup_mapped();
	setup_trash_on();
	CU_ASSERT_FATAL(with_pool(trash_a) == 0);
}

static int run_trash(void)
{
	return with_pool(trash_b);
}

static int do_undo(struct pool *p)
{
	return pool_volume_untrash(p, "b", NULL);
}

static int run_undo(void)
{
	return with_pool(do_undo);
}

static int do_purge(struct pool *p)
{
	unsigned nr;
	int r = pool_volume_trash_purge(p, "a", &nr, NULL, NULL);

	return r ? r : nr == 1 ? 0 : -EPROTO;
}

/* the purge of the trashed shared origin in steps of 2 mappings: a
 * change, four thin commits, a change */
static int run_purge_steps(void)
{
	int r;

	setenv("TP_TEST_REMOVE_STEP", "2", 1);
	r = with_pool(do_purge);
	unsetenv("TP_TEST_REMOVE_STEP");
	return r;
}

static int run_repair_strays(void)
{
	struct pool_repair_params rp = { .pool = POOL };
	struct pool_repair_result res;
	int r;

	memset(&res, 0, sizeof(res));
	r = pool_repair_run(&rp, &res);
	if (!r && res.strays_deleted != 1)
		r = -EPROTO;
	pool_repair_result_free(&res);
	return r;
}

static int run_restore(void)
{
	struct pool_restore_params rp = { xml_path, meta_path, restore_off, restore_len, 1 };
	return pool_restore(&rp);
}

/* The image a raw import reads: 1.5 MiB, data in some chunks of 64 KiB
 * (one partly), zeros in the others. */
#define IMPORT_SIZE (1536u << 10)

static void setup_import(void)
{
	static const unsigned data_chunks[] = { 0, 1, 2, 7, 8, 15, 23 };
	unsigned char *b = calloc(1, IMPORT_SIZE);
	uint32_t x = 0x2545f491u;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (unsigned i = 0; i < sizeof(data_chunks) / sizeof(data_chunks[0]); i++)
		for (unsigned j = 0; j < 65536; j++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			b[data_chunks[i] * 65536u + j] = (unsigned char)x;
		}
	memset(b + 15 * 65536u + 100, 0, 65536 - 100);	/* a chunk with a little data */
	f = fopen(img_path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FATAL(fwrite(b, 1, IMPORT_SIZE, f) == IMPORT_SIZE);
	CU_ASSERT_FATAL(fclose(f) == 0);
	free(b);
}

static struct pool_recv *import_in;

static int do_import(struct pool *p)
{
	struct pool_recv_result res;
	return pool_recv_raw_apply(p, import_in, &res);
}

static int run_import(void)
{
	int r = pool_recv_raw_open(img_path, &import_in);

	if (!r)
		r = pool_recv_raw_size(import_in, "imp", IMPORT_SIZE);
	if (!r)
		r = with_pool(do_import);
	pool_recv_free(import_in);
	import_in = NULL;
	return r;
}

/* ---- a volume's head rewritten (tvchange's key changes) ---- */

#define HEAD_LEN (256u << 10)	/* four chunks */
static unsigned char head_old[HEAD_LEN], head_new[HEAD_LEN];

static void head_patterns(void)
{
	uint32_t x = 0x9e3779b9u;

	for (unsigned i = 0; i < HEAD_LEN; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		head_old[i] = (unsigned char)x;
	}
	memcpy(head_new, head_old, HEAD_LEN);
	/* chunks 1 and 3 change, 0 and 2 stay */
	for (unsigned i = 0; i < 65536; i++) {
		head_new[65536 + i] ^= 0x5a;
		head_new[3 * 65536 + i] ^= 0xa5;
	}
}

static int write_old_head(struct pool *p)
{
	static const unsigned char zero[HEAD_LEN];
	struct pool_head_write w = { "a", zero, head_old, HEAD_LEN, 0 };
	int r = pool_volume_heads_rewrite(p, &w, 1);

	return r ? r : pool_volume_snapshot(p, "a", "a-head", 0);
}

/* a's head written, then snapshotted as a-head: the two share it */
static void setup_head(void)
{
	head_patterns();
	CU_ASSERT_FATAL(with_pool(write_old_head) == 0);
}

static int do_rewrite_head(struct pool *p)
{
	struct pool_head_write w = { "a", head_old, head_new, HEAD_LEN, 0 };
	int r = pool_volume_heads_rewrite(p, &w, 1);

	return r ? r : w.chunks == 2 ? 0 : -EPROTO;
}

static int run_rewrite_head(void)
{
	return with_pool(do_rewrite_head);
}

/* After a cut: a's head is the old whole in the old state, the new whole
 * in the new; a-head's the old in both. NULL, or what is wrong. */
static const char *judge_head(int is_new)
{
	static unsigned char got[HEAD_LEN];
	const char *why = NULL;
	struct pool *p;

	if (pool_open(POOL, NULL, POOL_RDONLY, &p))
		return "the pool does not open to read the heads";
	if (pool_volume_head_read(p, "a", HEAD_LEN, got))
		why = "a's head cannot be read";
	else if (memcmp(got, is_new ? head_new : head_old, HEAD_LEN))
		why = is_new ? "the new state, but a's head is not the new one whole"
			     : "the old state, but a's head is not the old one whole";
	else if (pool_volume_head_read(p, "a-head", HEAD_LEN, got))
		why = "the snapshot's head cannot be read";
	else if (memcmp(got, head_old, HEAD_LEN))
		why = "the snapshot taken before does not keep the old head";
	pool_close(p);
	return why;
}

static const struct command commands[] = {
	{ "tvcreate", run_create, NULL, 0 },
	{ "tvsnap", run_snap, NULL, 0 },
	{ "tvremove", run_remove, NULL, 0 },
	{ "tvrename (VG commit)", run_rename, NULL, 0 },
	{ "tprepair (salvage, area swap)", run_repair, NULL, 0 },
	{ "tpextend (data)", run_extend, setup_extend, 0 },
	{ "tpextend --metadata", run_extend_meta, setup_extend_meta, 0 },
	{ "tprestore into the active area", run_restore, NULL, 1 },
	{ "tvrollback", run_rollback, NULL, 0 },
	{ "tprepair (a stray thin device)", run_repair_strays, setup_stray, 0, 1 },
	{ "tprecv --format raw", run_import, setup_import, 0, 0, 1 },
	{ "tvremove in bounded steps", run_remove_steps, setup_mapped, 0, 0, 0, NULL, 1 },
	{ "tpextend --data", run_extend_data, NULL, 0 },
	{ "tpreduce --data", run_reduce_data, setup_reduce_data, 0 },
	{ "tpreduce --data of a middle device", run_reduce_middle, setup_reduce_middle, 0 },
	{ "tpmove in steps, resumed", run_move, setup_move, 0, 0, 0, run_move_rest },
	{ "tpchange --meta-replace", run_meta_replace, setup_meta_stale, 0, 1, 0, NULL, 0, 1 },
	{ "tprepair: a stale mirror leg resynced", run_meta_resync, setup_meta_stale, 0, 1, 0,
	  NULL, 0, 1 },
	{ "tpchange --meta-mirror", run_meta_mirror, setup_meta_mirror, 0 },
	{ "tpextend --metadata of a mirrored pool", run_extend_meta, setup_extend_meta_mirror, 0,
	  0, 0, NULL, 0, 1, 1 },
	{ "a writer's commit: a stale mirror leg resynced", run_open_resync, setup_meta_stale, 0, 1,
	  0, NULL, 0, 1, 0, 1, 1 },
	/* the rebuild goes to the spare area, flushed on both legs before
	 * the VG commit makes it active: no cut leaves a leg stale */
	{ "tpreduce --data of a mirrored pool", run_reduce_data, setup_reduce_data, 0, 0, 0,
	  NULL, 0, 1 },
	{ "tpreduce --data of a mirrored pool's middle device", run_reduce_middle,
	  setup_reduce_middle_mirror, 0, 0, 0, NULL, 0, 1 },
	{ "tpreduce --data of the first device", run_reduce_first, setup_move, 0 },
	{ "tpreduce --data of a mirrored pool's first device", run_reduce_first,
	  setup_reduce_first_mirror, 0, 0, 0, NULL, 0, 1 },
	{ "tpreduce --size", run_shrink, setup_move, 0, 0, 0, run_shrink },
	{ "tpreduce --size of a mirrored pool", run_shrink_tool, setup_reduce_first_mirror, 0, 0,
	  0, run_shrink_tool, 0, 1 },
	{ "tvremove into the trash", run_trash, setup_trash_on, 0 },
	{ "tvremove --undo", run_undo, setup_trashed, 0 },
	{ "tvremove --purge in bounded steps", run_purge_steps, setup_mapped_trashed, 0, 0, 0, NULL,
	  1 },
	{ "tvchange --change-key: a head rewritten", run_rewrite_head, setup_head, 0, 0, 0, NULL,
	  0, 0, 0, 0, 0, 1 },
	/* the writer's memo: a pool of three hundred volumes */
	{ "tvcreate among 300 volumes", run_create, setup_many, 0 },
	{ "tvsnap among 300 volumes", run_snap, setup_many, 0 },
	{ "tvremove among 300 volumes", run_remove, setup_many, 0 },
	{ "tvrename among 300 volumes", run_rename, setup_many, 0 },
};

/* The row of commands[] named NAME. */
static const struct command *command_named(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	CU_FAIL_FATAL("no such command row");
	return NULL;
}

/* ---- the pool and the driver ---- */

static void make_pool(int mirror)
{
	struct pool_dump_params dp = { .source = POOL, .format = POOL_DUMP_XML,
				       .output = xml_path };
	struct pool *p;
	uint64_t over;

	if (mirror) {
		struct pool_create_params cp = { .name = POOL, .data_path = data_path,
						 .meta_path = meta_path, .meta1_path = data3_path };
		struct pool_create_plan plan;

		const char *path[3] = { data_path, meta_path, data3_path };
		off_t size[3] = { DATA_SIZE, META_SIZE, META_SIZE };

		for (int i = 0; i < 3; i++) {
			int fd = open(path[i], O_CREAT | O_TRUNC | O_RDWR, 0600);

			CU_ASSERT_FATAL(fd >= 0);
			CU_ASSERT_FATAL(ftruncate(fd, size[i]) == 0);
			close(fd);
		}
		CU_ASSERT_FATAL(pool_plan(&cp, &plan) == 0);
		CU_ASSERT_FATAL(pool_create(&cp, &plan) == 0);
	} else {
		pool_on_images(POOL, data_path, DATA_SIZE, meta_path, META_SIZE);
	}
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "a", 64u << 20, 0, &over) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "gone", 64u << 20, 0, &over) == 0);
	pool_close(p);
	/* the XML tprestore writes: this state (volumes a, gone) */
	CU_ASSERT_FATAL(pool_dump(&dp) == 0);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	CU_ASSERT_FATAL(pool_volume_remove_progress(p, "gone", NULL, NULL) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "b", 32u << 20, 0, &over) == 0);
	CU_ASSERT_FATAL(pool_volume_snapshot(p, "a", "a-snap", 0) == 0);
	{
		struct pool_info info;
		CU_ASSERT_FATAL(pool_get_info(p, 0, &info) == 0);
		restore_off = info.meta_offset;
		restore_len = info.meta_length;
		pool_info_free(&info);
	}
	pool_close(p);
}

static char cfg_dir[600];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A fresh config dir and images for each command. The config dir (the
 * devices file and a VG backup per commit, each fsync'd) goes to a tmpfs
 * when there is one, or the hundreds of commits wait on the disk. */
static void use_dir(const struct command *cmd)
{
	char dir[600];

	snprintf(cfg_dir, sizeof(cfg_dir), "/dev/shm/tp-pool-crash-XXXXXX");
	if (!mkdtemp(cfg_dir)) {
		snprintf(cfg_dir, sizeof(cfg_dir), "%s/pool-crash-etc-%d", tp_test_tmpdir(),
			 (int)(cmd - commands));
		CU_ASSERT_FATAL(mkdir(cfg_dir, 0700) == 0);
	}
	setenv("TPTOOLS_DIR", cfg_dir, 1);
	snprintf(dir, sizeof(dir), "%s/pool-crash-%d", tp_test_tmpdir(), (int)(cmd - commands));
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	snprintf(data_path, sizeof(data_path), "%s/data.img", dir);
	snprintf(meta_path, sizeof(meta_path), "%s/meta.img", dir);
	snprintf(xml_path, sizeof(xml_path), "%s/restore.xml", dir);
	snprintf(img_path, sizeof(img_path), "%s/import.img", dir);
	snprintf(got_path, sizeof(got_path), "%s/got.img", dir);
	snprintf(data2_path, sizeof(data2_path), "%s/data2.img", dir);
	snprintf(data3_path, sizeof(data3_path), "%s/data3.img", dir);
	snprintf(data4_path, sizeof(data4_path), "%s/data4.img", dir);
	for (int i = 2; i < NR_IMAGES; i++) {
		int fd = open(path_of(i), O_RDWR | O_CREAT | O_TRUNC, 0600);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(ftruncate(fd, DATA2_SIZE) == 0);
		close(fd);
	}
}

/* The volumes of the pool (names, sizes, thin ids), without the
 * transaction ids: what a dropped import must leave as it found. */
static int volumes_digest(uint32_t *out)
{
	struct pool *p;
	struct pool_info info;
	int r;

	*out = 0;
	if ((r = pool_open(POOL, NULL, POOL_RDONLY, &p)))
		return r;
	if (!(r = pool_get_info(p, 0, &info))) {
		for (unsigned i = 0; i < info.nr_volumes; i++) {
			crash_mix_str(out, info.volumes[i].name);
			crash_mix(out, info.volumes[i].size);
			crash_mix(out, info.volumes[i].dev_id);
		}
		pool_info_free(&info);
	}
	pool_close(p);
	return r;
}

static uint32_t import_old_vols;

/* After a cut of the raw import: an unfinished receive is dropped by
 * tprecv --abort (*UNFINISHED counted), which gives back the volumes the
 * pool had; else the import's volume, when there, reads as the image.
 * NULL, or what is wrong. */
static const char *judge_import(int *unfinished, int *whole)
{
	struct pool_send_stats st;
	struct file_copy want, got;
	struct pool *p;
	uint32_t v;
	int r, same;

	if (pool_open(POOL, NULL, 0, &p))
		return "the pool does not open";
	r = pool_recv_abort(p, "imp");
	if (!r) {
		pool_close(p);
		(*unfinished)++;
		if (volumes_digest(&v) || v != import_old_vols)
			return "the dropped import left other volumes than before";
		return NULL;
	}
	if (r != -ENOENT) {
		pool_close(p);
		return "tprecv --abort of the unfinished import fails";
	}
	r = pool_send_raw(p, "imp", got_path, NULL, &st);
	pool_close(p);
	if (r == -ENOENT)
		return NULL;	/* no volume: the old state, judged by its digest */
	if (r)
		return "the imported volume cannot be read";
	file_copy_read(img_path, &want);
	file_copy_read(got_path, &got);
	same = want.size == got.size && !memcmp(want.data, got.data, want.size);
	file_copy_free(&want);
	file_copy_free(&got);
	(*whole)++;
	return same ? NULL : "the imported volume does not read as the image";
}

/* The first MiB of every volume's raw export, a crc32c each in turn
 * folded into *OUT (what the moved chunks hold lies there). */
static int volumes_read(uint32_t *out)
{
	static unsigned char buf[1u << 20];
	struct pool_send_stats st;
	struct pool_info info;
	struct pool *p;
	int r;

	*out = 0;
	if ((r = pool_open(POOL, NULL, POOL_RDONLY, &p)))
		return r;
	if (!(r = pool_get_info(p, 0, &info))) {
		for (unsigned i = 0; i < info.nr_volumes && !r; i++) {
			int fd;

			unlink(got_path);
			if ((r = pool_send_raw(p, info.volumes[i].name, got_path, NULL, &st)))
				break;
			fd = open(got_path, O_RDONLY);
			if (fd < 0 || pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
				r = -EIO;
			if (fd >= 0)
				close(fd);
			crash_mix_str(out, info.volumes[i].name);
			crash_mix(out, tp_crc32c(0, buf, sizeof(buf)));
		}
		pool_info_free(&info);
	}
	pool_close(p);
	return r;
}

static uint32_t resume_old_read;

/* A cut of a resumable command: every volume reads what it read, the
 * state is the old one, the new one or one between (*PARTS counted);
 * then the resumed command finishes, and the caller judges the new state. */
static const char *judge_resume(const struct command *cmd, uint32_t old_d, uint32_t new_d,
				int *olds, int *news, int *parts)
{
	uint32_t d, v;

	if (volumes_read(&v))
		return "the volumes cannot be read after the cut";
	if (v != resume_old_read)
		return "a volume reads other bytes after the cut";
	if (pool_digest(&d, NULL))
		return "the pool does not open after the cut";
	*olds += d == old_d;
	*news += d == new_d;
	*parts += d != old_d && d != new_d;
	if (cmd->resume())
		return "the resumed command fails";
	if (volumes_read(&v) || v != resume_old_read)
		return "a volume reads other bytes after the resumed command";
	return NULL;
}
/* A removal of volume a under way between its steps: a is no volume any
 * more, but its thin device (0, the first created) is still in the thin
 * metadata, and no change is half done (the VG's and the thin metadata's
 * transaction ids agree; a cut inside one of the removal's two changes is
 * an interrupted transaction, which tpcheck rightly reports until the next
 * change completes it, as for every change). */
static int removal_under_way(void)
{
	struct thin_ir_device dev;
	struct pool_info info;
	struct io_engine *io;
	struct thin_md *md;
	struct pool *p;
	uint64_t tid = 0, vg_tid = 0;
	int gone, there = 0;

	if (pool_open(POOL, NULL, POOL_RDONLY, &p))
		return 0;
	gone = pool_volume_get_readonly(p, "a") == -ENOENT;
	if (pool_get_info(p, 0, &info))
		gone = 0;
	else {
		vg_tid = info.transaction_id;
		pool_info_free(&info);
	}
	pool_close(p);
	if (!gone || io_open_area(meta_path, IO_RDONLY, restore_off, restore_len, &io))
		return 0;
	if (!thin_open(io, THIN_RDONLY, &md)) {
		there = thin_device_info(md, 0, &dev) == 0 &&
			!thin_get_transaction_id(md, &tid) && tid == vg_tid;
		thin_close(md);
	}
	io_destroy(io);
	return there;
}

/* cuts that left a removal under way (check_cut commands) */
static int mids;

/* What a cut left: NULL when it is the old or the new state, else why not. */
static int resyncs;	/* cuts that left a mirror leg stale (struct command: resync) */

/* 1 when a leg of the pool's mirror is stale, 0 not, -errno */
static int leg_stale(void)
{
	struct pool_info info;
	struct pool *p;
	int r = pool_open(POOL, NULL, POOL_RDONLY, &p);

	if (r)
		return r;
	if (!(r = pool_get_info(p, 0, &info))) {
		r = strstr(info.meta_legs, "stale") != NULL;
		pool_info_free(&info);
	}
	pool_close(p);
	return r;
}

static uint32_t head_replayed_d;	/* struct command: head */

static const char *judge_state(const struct command *cmd, uint32_t old_d, uint32_t new_d,
			       int *olds, int *news, int *blanks)
{
	uint32_t d;
	int r, changed = 0;
	const char *why;

	if (cmd->resume) {
		int o = 0, n = 0;

		if ((why = judge_resume(cmd, old_d, new_d, &o, &n, blanks)))
			return why;
		*olds += o;
		*news += n;
		if (pool_digest(&d, &changed))
			return "the pool does not open after the resumed command";
		if (d != new_d)
			return "the resumed command does not end in the new state";
		return changed ? "no change commits on top" : check_clean();
	}
	/* tpcheck finds a removal cut between its steps clean before anything
	 * resumes it */
	if (cmd->check_cut && removal_under_way()) {
		mids++;
		if ((why = check_clean()))
			return "tpcheck finds the cut removal (before it is resumed) unclean";
	}

	if (cmd->import) {
		int unfinished = 0, whole = 0;
		if ((why = judge_import(&unfinished, &whole)))
			return why;
		*blanks += unfinished;
		if (unfinished) {	/* dropped: one more change, then clean */
			if (pool_digest(&d, &changed))
				return "the pool does not open after the drop";
			return changed ? "no change commits on top" : check_clean();
		}
	}
	if (cmd->area_level) {
		r = thin_digest(restore_off, restore_len, &d);
		if (r == -ENODATA) {
			(*blanks)++;	/* superblock zeroed: detectably unformatted */
			return NULL;
		}
	} else {
		if (cmd->resync && (r = leg_stale())) {
			if (r < 0)
				return "the pool does not open after the cut";
			resyncs++;
			if (run_meta_resync())
				return "tprepair does not resync the stale leg";
			if (leg_stale())
				return "a leg is still stale after tprepair";
		}
		r = pool_digest(&d, &changed);
	}
	if (r)
		return "the pool or its thin metadata does not open";
	if (cmd->synced_old && d == synced_old_d)
		d = old_d;	/* the old state, its leg resynced */
	if (cmd->head && d != old_d && d != new_d) {
		/* a cut after the VG commit: the VG carries nothing of the
		 * change, so the next writer completes it as a change of the
		 * transaction id alone; the old head, whole, and always the
		 * same state */
		if (!head_replayed_d)
			head_replayed_d = d;
		if (d != head_replayed_d)
			return "neither the old nor the new state, nor the old one replayed";
		(*blanks)++;
		if ((why = judge_head(0)))
			return why;
		return changed ? "no change commits on top" : check_clean();
	}
	if (d != old_d && d != new_d)
		return "neither the old nor the new state";
	if (cmd->legs_equal && d == new_d) {
		uint32_t t0, t1;

		if (thin_digest(restore_off, restore_len, &t0) ||
		    thin_digest_at(data3_path, restore_off, restore_len, &t1) || t0 != t1)
			return "the resynced leg's thin metadata differs from the good leg's";
	}
	*olds += d == old_d;
	*news += d == new_d;
	if (changed)
		return "no change commits on top";
	if (cmd->head && (why = judge_head(d == new_d)))
		return why;
	if (cmd->dirty_before && d == old_d)
		return NULL;
	return cmd->area_level ? NULL : check_clean();
}

/* The same in a domain of its own that is never cut: the simulator's
 * durability replaces the image files' (fdatasync on every commit). */
static const char *judge(const struct command *cmd, uint32_t old_d, uint32_t new_d,
			 int *olds, int *news, int *blanks)
{
	struct io_crash *c;
	const char *why;

	CU_ASSERT_FATAL(io_crash_create(0, &c) == 0);
	io_crash_hook(c);
	why = judge_state(cmd, old_d, new_d, olds, news, blanks);
	io_crash_hook(NULL);
	io_crash_destroy(c);
	return why;
}

static uint32_t digest_for(const struct command *cmd)
{
	uint32_t d;
	int r = cmd->area_level ? thin_digest(restore_off, restore_len, &d) : pool_digest(&d, NULL);

	CU_ASSERT_FATAL(r == 0);
	return d;
}

static void cut_command(const struct command *cmd)
{
	struct image before;
	struct io_crash *c;
	uint32_t old_d, new_d;
	uint64_t events;
	int olds = 0, news = 0, blanks = 0;
	struct tp_log_capture cap;

	use_dir(cmd);
	tp_log_capture(&cap);
	make_pool(cmd->mirror);
	if (cmd->setup)
		cmd->setup();
	if (cmd->import)
		CU_ASSERT_FATAL(volumes_digest(&import_old_vols) == 0);
	if (cmd->resume)
		CU_ASSERT_FATAL(volumes_read(&resume_old_read) == 0);
	image_save(&before);
	old_d = digest_for(cmd);
	image_load(&before);
	if (cmd->synced_old) {
		CU_ASSERT_FATAL(run_meta_resync() == 0);
		synced_old_d = digest_for(cmd);
		image_load(&before);
	}
	/* the whole command under the simulator: its events, the new state */
	CU_ASSERT_FATAL(io_crash_create(1, &c) == 0);
	io_crash_hook(c);
	CU_ASSERT_EQUAL(cmd->run(), 0);
	io_crash_hook(NULL);
	events = io_crash_events(c);
	io_crash_destroy(c);
	new_d = digest_for(cmd);
	CU_ASSERT_NOT_EQUAL(old_d, new_d);

	for (uint64_t at = 0; at <= events; at++)
		for (unsigned round = 0; round < crash_rounds(); round++) {
			const char *why;

			image_load(&before);
			CU_ASSERT_FATAL(io_crash_create(crash_seed(at, round), &c) == 0);
			io_crash_arm(c, at, crash_mode(round));
			io_crash_hook(c);
			(void)cmd->run();	/* fails at the cut, but for the last point */
			io_crash_hook(NULL);
			CU_ASSERT_EQUAL(io_crash_cut(c), 0);
			io_crash_destroy(c);
			if ((why = judge(cmd, old_d, new_d, &olds, &news, &blanks))) {
				if (getenv("TP_DEBUG_CUT"))
					fprintf(stderr, "%.*s\n", (int)cap.len, cap.buf);
				cap.len = 0;
				crash_report(cmd->name, at, round, why);
				CU_FAIL("a power cut left a bad state");
			}
		}
	tp_log_capture(NULL);
	if (getenv("TP_TEST_VERBOSE"))
		fprintf(stderr, "%s: %llu events x %u cuts: %d old, %d new, %d %s\n",
			cmd->name, (unsigned long long)events + 1, crash_rounds(), olds, news,
			blanks, cmd->import ? "unfinished" : cmd->resume ? "between"
				: cmd->head ? "old replayed" : "unformatted");
	CU_ASSERT(olds > 0 && news > 0);
	if (cmd->resync && getenv("TP_TEST_VERBOSE"))
		fprintf(stderr, "%s: %d cuts left a leg stale, resynced\n", cmd->name, resyncs);
	/* the cuts reached between the legs' writes */
	CU_ASSERT(!cmd->resync || resyncs > 0);
	resyncs = 0;
	CU_ASSERT(!cmd->import || blanks > 0);
	CU_ASSERT(!cmd->resume || blanks > 0);
	if (cmd->check_cut && getenv("TP_TEST_VERBOSE"))
		fprintf(stderr, "%s: %d cuts left a removal under way\n", cmd->name, mids);
	/* the cuts reached the steps, not only the changes around them */
	CU_ASSERT(!cmd->check_cut || mids > 0);
	mids = 0;
	image_free(&before);
	for (int i = 0; i < NR_IMAGES; i++)
		unlink(path_of(i));
	unlink(img_path);
	unlink(got_path);
	CU_ASSERT(nftw(cfg_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

static void test_meta_replace(void)
{
	cut_command(&commands[16]);
}

static void test_meta_resync(void)
{
	cut_command(&commands[17]);
}

static void test_meta_mirror(void)
{
	cut_command(&commands[18]);
}

static void test_extend_meta_mirror(void)
{
	cut_command(&commands[19]);
}

static void test_open_resync(void)
{
	cut_command(&commands[20]);
}

static void test_reduce_mirror(void)
{
	cut_command(&commands[21]);
}

static void test_reduce_middle_mirror(void)
{
	cut_command(&commands[22]);
}

static void test_reduce_first(void)
{
	cut_command(&commands[23]);
}

static void test_reduce_first_mirror(void)
{
	cut_command(&commands[24]);
}

static void test_shrink(void)
{
	cut_command(command_named("tpreduce --size"));
}

static void test_shrink_mirror(void)
{
	cut_command(command_named("tpreduce --size of a mirrored pool"));
}

static void test_create(void)
{
	cut_command(&commands[0]);
}

static void test_snap(void)
{
	cut_command(&commands[1]);
}

static void test_remove(void)
{
	cut_command(&commands[2]);
}

static void test_rename(void)
{
	cut_command(&commands[3]);
}

static void test_repair(void)
{
	cut_command(&commands[4]);
}

static void test_extend(void)
{
	cut_command(&commands[5]);
}

static void test_extend_meta(void)
{
	cut_command(&commands[6]);
}

static void test_restore(void)
{
	cut_command(&commands[7]);
}

static void test_rollback(void)
{
	cut_command(&commands[8]);
}

static void test_repair_strays(void)
{
	cut_command(&commands[9]);
}

static void test_import(void)
{
	cut_command(&commands[10]);
}

static void test_remove_steps(void)
{
	cut_command(&commands[11]);
}

static void test_trash(void)
{
	cut_command(command_named("tvremove into the trash"));
}

static void test_undo(void)
{
	cut_command(command_named("tvremove --undo"));
}

static void test_purge_steps(void)
{
	cut_command(command_named("tvremove --purge in bounded steps"));
}

static void test_rewrite_head(void)
{
	cut_command(command_named("tvchange --change-key: a head rewritten"));
}

static void test_extend_data(void)
{
	cut_command(&commands[12]);
}

static void test_reduce_middle(void)
{
	cut_command(&commands[14]);
}

static void test_move(void)
{
	cut_command(&commands[15]);
}

static void test_reduce_data(void)
{
	cut_command(&commands[13]);
}

TP_TEST_SUITE(pool_crash, NULL, NULL,
	      { "tvcreate", test_create },
	      { "tvsnap", test_snap },
	      { "tvremove", test_remove },
	      { "tvrename: a VG commit", test_rename },
	      { "tprepair: salvage and area swap", test_repair },
	      { "tpextend: data area", test_extend },
	      { "tpextend --metadata", test_extend_meta },
	      { "tprestore into the active area", test_restore },
	      { "tvrollback: new device from the snapshot, old one deleted", test_rollback },
	      { "tprepair: a stray thin device deleted", test_repair_strays },
	      { "tprecv --format raw: unfinished, dropped, or whole", test_import },
	      { "tvremove in bounded steps: a shared origin, resumed", test_remove_steps },
	      { "tvremove into the trash", test_trash },
	      { "tvremove --undo from the trash", test_undo },
	      { "tvremove --purge in bounded steps: a trashed shared origin", test_purge_steps },
	      { "tpextend --data: a second data device", test_extend_data },
	      { "tpreduce --data: the second data device taken away", test_reduce_data },
	      { "tpreduce --data: the middle one of three taken away", test_reduce_middle },
	      { "tpmove: chunks shared by a snapshot moved in steps, resumed", test_move },
	      { "tpchange --meta-replace: a stale mirror leg onto a new device",
		test_meta_replace },
	      { "tprepair: a stale mirror leg resynced onto its own device", test_meta_resync },
	      { "tpchange --meta-mirror: an existing pool's thin metadata mirrored",
		test_meta_mirror },
	      { "tpextend --metadata: a mirrored pool's areas grown on both legs",
		test_extend_meta_mirror },
	      { "a writer's commit: a stale mirror leg resynced from the good one first",
		test_open_resync },
	      { "tpreduce --data: a mirrored pool's second data device taken away",
		test_reduce_mirror },
	      { "tpreduce --data: a mirrored pool's middle one of three taken away",
		test_reduce_middle_mirror },
	      { "tpreduce --data: the first data device taken away, the mappings numbered down",
		test_reduce_first },
	      { "tpreduce --data: a mirrored pool's first data device taken away",
		test_reduce_first_mirror },
	      { "tpreduce --size: the chunks behind the new end moved, resumed, the area shrunk",
		test_shrink },
	      { "tpreduce --size of a mirrored pool", test_shrink_mirror },
	      { "tvchange --change-key: a volume's head rewritten into new blocks, a snapshot "
		"keeping the old", test_rewrite_head })

/* The writer's memo (metadata/vg/mda.c) at every cut of a change on a
 * pool of three hundred volumes: the old state or the new, tpcheck clean. */
static void test_many_create(void)
{
	cut_command(command_named("tvcreate among 300 volumes"));
}

static void test_many_snap(void)
{
	cut_command(command_named("tvsnap among 300 volumes"));
}

static void test_many_remove(void)
{
	cut_command(command_named("tvremove among 300 volumes"));
}

static void test_many_rename(void)
{
	cut_command(command_named("tvrename among 300 volumes"));
}

TP_TEST_SUITE(pool_crash_many, NULL, NULL,
	      { "tvcreate among 300 volumes", test_many_create },
	      { "tvsnap among 300 volumes", test_many_snap },
	      { "tvremove among 300 volumes", test_many_remove },
	      { "tvrename among 300 volumes", test_many_rename });
