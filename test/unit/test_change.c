/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core's change protocol (lib/pool/core/pool_change.c, pool.h) on an
 * offline pool on image files: a change commits the VG first, as the
 * journal, with transaction id + 1, then the thin side with the same id;
 * a change that fails before its VG commit writes nothing; one that fails
 * after it (the apply callback, or the thin commit itself) is settled: the
 * thin transaction aborted and the VG put back, so that the devices hold
 * what they held before, but for the VG's seqno; and the forward
 * completion at open (pool_reconcile, lib/pool/core/pool_txn.c) of a VG at
 * tid + 1 over thin metadata at tid: reported by a reader, replayed by a
 * writer (a created volume, a snapshot, a removal), refused when the two
 * are further apart.
 *
 * What the devices hold is read back from the image files without the
 * pool (vg_read over the labels, the thin metadata of the active area),
 * so the tests say what a later command would find. */
#include "lib/base/io.h"
#include "lib/base/io_area.h"
#include "lib/base/log.h"
#include "lib/pool/core/core_int.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_internal.h"
#include "metadata/vg/label.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POOL "chg"
#define DATA_SIZE (8u << 20)
#define META_SIZE (6u << 20)

static char data_path[640], meta_path[640];
static unsigned nr_pools;

/* The one place that reads a field of struct pool (core.h): the open
 * thin metadata, for the test that makes its commit fail. */
static struct thin_md *pool_md_of(struct pool *p)
{
	return p->md;
}

/* ---- what the devices hold, read without the pool ---- */

struct disk {
	struct vg *vg;		/* the newest VG on the devices */
	uint64_t tid;		/* the thin metadata's transaction id */
	uint64_t *ids;		/* its thin devices, ascending */
	size_t n;
};

static const char *path_of(int role)
{
	return role == VG_ROLE_META ? meta_path : data_path;
}

static void disk_read(struct disk *d)
{
	struct vg_pv pv[VG_NR_ROLES];
	struct io_engine *area;
	struct thin_md *md;
	const struct vg_area *a;

	memset(d, 0, sizeof(*d));
	memset(pv, 0, sizeof(pv));
	for (int i = 0; i < VG_NR_ROLES; i++) {
		CU_ASSERT_FATAL(io_fd_open(path_of(i), IO_RDONLY, &pv[i].io) == 0);
		CU_ASSERT_FATAL(vg_label_read(pv[i].io, &pv[i].label) == VG_LABEL_FOUND);
	}
	CU_ASSERT_FATAL(vg_read(pv, VG_NR_ROLES, &d->vg, NULL) == 0);
	for (int i = 0; i < VG_NR_ROLES; i++)
		io_destroy(pv[i].io);
	a = &d->vg->dev[VG_ROLE_META].area[d->vg->metadata_area];
	CU_ASSERT_FATAL(io_open_area(meta_path, IO_RDONLY, a->offset, a->size, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, THIN_RDONLY, &md) == 0);
	CU_ASSERT_FATAL(thin_get_transaction_id(md, &d->tid) == 0);
	CU_ASSERT_FATAL(thin_list_devices(md, &d->ids, &d->n) == 0);
	thin_close(md);
	io_destroy(area);
}

static void disk_free(struct disk *d)
{
	vg_free(d->vg);
	free(d->ids);
	memset(d, 0, sizeof(*d));
}

static int disk_has(const struct disk *d, uint64_t id)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->ids[i] == id)
			return 1;
	return 0;
}

/* The same thin devices and transaction id in A and B. */
static int thin_same(const struct disk *a, const struct disk *b)
{
	return a->tid == b->tid && a->n == b->n &&
	       (!a->n || !memcmp(a->ids, b->ids, a->n * sizeof(*a->ids)));
}

/* A and B export to the same text but for their seqno (a change undone
 * by a second commit of the old VG). */
static int vg_same(const struct vg *a, const struct vg *b)
{
	struct vg *x, *y;
	char *tx = NULL, *ty = NULL;
	size_t nx = 0, ny = 0;
	int same;

	CU_ASSERT_FATAL(vg_clone(a, &x) == 0);
	CU_ASSERT_FATAL(vg_clone(b, &y) == 0);
	x->seqno = y->seqno = 1;
	CU_ASSERT_FATAL(vg_export(x, &tx, &nx) == 0);
	CU_ASSERT_FATAL(vg_export(y, &ty, &ny) == 0);
	same = nx == ny && !memcmp(tx, ty, nx);
	free(tx);
	free(ty);
	vg_free(x);
	vg_free(y);
	return same;
}

/* ---- the image files, byte for byte ---- */

struct image {
	struct file_copy f[VG_NR_ROLES];
};

static void image_read(struct image *im)
{
	for (int i = 0; i < VG_NR_ROLES; i++)
		file_copy_read(path_of(i), &im->f[i]);
}

static void image_free(struct image *im)
{
	for (int i = 0; i < VG_NR_ROLES; i++)
		file_copy_free(&im->f[i]);
}

/* A and B are the same, but (when VG is not NULL) for the VG metadata
 * areas VG gives each device. */
static int image_same(const struct image *a, const struct image *b, const struct vg *vg)
{
	for (int i = 0; i < VG_NR_ROLES; i++) {
		const struct file_copy *x = &a->f[i], *y = &b->f[i];
		uint64_t skip_from = x->size, skip_to = x->size;

		if (x->size != y->size)
			return 0;
		if (vg) {
			skip_from = vg->dev[i].mda.offset;
			skip_to = skip_from + vg->dev[i].mda.size;
			CU_ASSERT_FATAL(skip_to <= x->size);
		}
		if (memcmp(x->data, y->data, skip_from) ||
		    memcmp(x->data + skip_to, y->data + skip_to, x->size - skip_to))
			return 0;
	}
	return 1;
}

/* The bytes of the metadata image in [OFF, OFF + LEN): saved, and put
 * back (the thin side of a change lost, as if cut before its commit). */
static unsigned char *area_save(uint64_t off, uint64_t len)
{
	unsigned char *b = malloc(len);
	int fd = open(meta_path, O_RDONLY);

	CU_ASSERT_FATAL(b != NULL && fd >= 0);
	CU_ASSERT_FATAL(pread(fd, b, len, (off_t)off) == (ssize_t)len);
	close(fd);
	return b;
}

static void area_load(const unsigned char *b, uint64_t off, uint64_t len)
{
	int fd = open(meta_path, O_WRONLY);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pwrite(fd, b, len, (off_t)off) == (ssize_t)len);
	close(fd);
}

/* The active thin-metadata area, from the VG on the devices. */
static void active_area(uint64_t *off, uint64_t *len)
{
	struct disk d;
	const struct vg_area *a;

	disk_read(&d);
	a = &d.vg->dev[VG_ROLE_META].area[d.vg->metadata_area];
	*off = a->offset;
	*len = a->size;
	disk_free(&d);
}

/* Change the thin metadata on the image directly (no pool open), with
 * FN, then commit it. */
static void thin_edit(void (*fn)(struct thin_md *md, void *arg), void *arg)
{
	struct io_engine *area;
	struct thin_md *md;
	uint64_t off, len;

	active_area(&off, &len);
	CU_ASSERT_FATAL(io_open_area(meta_path, 0, off, len, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, 0, &md) == 0);
	fn(md, arg);
	CU_ASSERT_FATAL(thin_commit(md) == 0);
	thin_close(md);
	CU_ASSERT_FATAL(io_flush(area) == 0);
	io_destroy(area);
}

/* ---- the pool ---- */

/* A fresh pool on new image files, with its own config dir: volumes a
 * (16 MiB) and b (8 MiB). */
static void fresh_pool(void)
{
	struct tp_log_capture cap;
	char dir[600], etc[620];
	struct pool *p;
	uint64_t over;

	snprintf(dir, sizeof(dir), "%s/change-%u", tp_test_tmpdir(), nr_pools++);
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0 && mkdir(etc, 0700) == 0);
	setenv("TPTOOLS_DIR", etc, 1);
	snprintf(data_path, sizeof(data_path), "%s/data.img", dir);
	snprintf(meta_path, sizeof(meta_path), "%s/meta.img", dir);
	tp_log_capture(&cap);
	pool_on_images(POOL, data_path, DATA_SIZE, meta_path, META_SIZE);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "a", 16u << 20, 0, &over) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "b", 8u << 20, 0, &over) == 0);
	pool_close(p);
	tp_log_capture(NULL);
}

static struct pool *open_pool(unsigned flags)
{
	struct pool *p = NULL;

	CU_ASSERT_FATAL(pool_open(POOL, NULL, flags, &p) == 0);
	return p;
}

/* The VG a change starts from (what the open pool read: the newest on
 * the devices), with volume NAME added on a new thin device *ID. */
static struct vg *next_with(const char *name, uint32_t *id)
{
	struct disk d;
	struct vg *next;
	struct vg_volume v;

	disk_read(&d);
	CU_ASSERT_FATAL(vg_clone(d.vg, &next) == 0);
	disk_free(&d);
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.size = 4u << 20;
	v.creation_time = (int64_t)time(NULL);
	v.dev_id = next->next_dev_id;
	next->next_dev_id = v.dev_id + 1;
	CU_ASSERT_FATAL(vg_add_volume(next, &v) == 0);
	*id = v.dev_id;
	return next;
}

/* ---- apply callbacks ---- */

struct apply {
	uint32_t id;		/* the thin device to create */
	int err;		/* returned after creating it (0: the change goes on) */
	int leak;		/* leave a write lock on its root: the thin commit fails */
	int calls;
	/* what the devices held while it ran */
	uint64_t vg_tid, thin_tid;
	int vg_has, thin_has;
};

static int apply_create(struct pool *p, const void *arg)
{
	struct apply *a = (struct apply *)arg;
	struct disk d;
	int r;

	a->calls++;
	disk_read(&d);
	a->vg_tid = d.vg->transaction_id;
	a->vg_has = vg_find_dev_id(d.vg, a->id) != NULL;
	a->thin_tid = d.tid;
	a->thin_has = disk_has(&d, a->id);
	disk_free(&d);
	if ((r = pool_op_create(p, a->id)))
		return r;
	if (a->leak) {
		/* freed with the cache by the abort (bm_forget); never unlocked */
		struct thin_md *md = pool_md_of(p);
		struct thin_dev *dev = thin_find_dev(md, a->id);
		struct bm_block *leak;

		CU_ASSERT_FATAL(dev != NULL);
		CU_ASSERT_FATAL(bm_state(md->bm, dev->root) & BM_STATE_DIRTY);
		CU_ASSERT_FATAL(bm_write_lock(md->bm, dev->root, NULL, &leak) == 0);
	}
	return a->err;
}

static int apply_never(struct pool *p, const void *arg)
{
	(void)p;
	(*(int *)arg)++;
	return 0;
}

/* ---- the tests ---- */

/* The VG is committed first with tid + 1 and the new volume while the
 * thin metadata still says tid; then both say tid + 1. */
static void test_commit(void)
{
	struct disk before, after;
	struct apply a = { 0 };
	struct pool_info info;
	struct tp_log_capture cap;
	struct pool *p;
	uint64_t t;

	fresh_pool();
	disk_read(&before);
	t = before.vg->transaction_id;
	CU_ASSERT_EQUAL(before.tid, t);
	p = open_pool(0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_change(p, next_with("j", &a.id), apply_create, &a), 0);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(a.calls, 1);
	/* while the thin side ran: the journal on the devices, the thin
	 * metadata not yet changed */
	CU_ASSERT_EQUAL(a.vg_tid, t + 1);
	CU_ASSERT(a.vg_has);
	CU_ASSERT_EQUAL(a.thin_tid, t);
	CU_ASSERT(!a.thin_has);
	/* the open pool's view */
	CU_ASSERT_FATAL(pool_get_info(p, 0, &info) == 0);
	CU_ASSERT_EQUAL(info.transaction_id, t + 1);
	CU_ASSERT_EQUAL(info.nr_volumes, 3);
	pool_info_free(&info);

	disk_read(&after);
	CU_ASSERT_EQUAL(after.vg->transaction_id, t + 1);
	CU_ASSERT_EQUAL(after.vg->seqno, before.vg->seqno + 1);
	CU_ASSERT_EQUAL(after.vg->next_dev_id, a.id + 1);
	CU_ASSERT_PTR_NOT_NULL(vg_find_volume(after.vg, "j"));
	CU_ASSERT_EQUAL(after.tid, t + 1);
	CU_ASSERT(disk_has(&after, a.id));
	CU_ASSERT_EQUAL(after.n, before.n + 1);
	disk_free(&after);

	/* the next change: tid + 2 on both */
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(pool_change(p, next_with("k", &a.id), apply_create, &a), 0);
	CU_ASSERT_EQUAL(a.vg_tid, t + 2);
	CU_ASSERT_EQUAL(a.thin_tid, t + 1);
	pool_close(p);
	disk_read(&after);
	CU_ASSERT_EQUAL(after.vg->transaction_id, t + 2);
	CU_ASSERT_EQUAL(after.tid, t + 2);
	CU_ASSERT(disk_has(&after, a.id));
	disk_free(&after);

	/* in step: the next open says nothing of an interrupted change */
	tp_log_capture(&cap);
	p = open_pool(0);
	pool_close(p);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "interrupted"));
	disk_free(&before);
}

/* A change refused before its VG commit writes nothing and never calls
 * its thin side: a VG that does not validate (a volume on a thin id at or
 * above next_dev_id), and a pool whose thin metadata needs checking
 * (pool_guard). */
static void set_needs_check(struct thin_md *md, void *arg)
{
	(void)arg;
	CU_ASSERT_FATAL(thin_set_needs_check(md, 1) == 0);
}

static void test_refused(void)
{
	struct image before, after;
	struct tp_log_capture cap;
	struct pool *p;
	struct vg *next;
	uint32_t id;
	int calls = 0, r;

	fresh_pool();
	p = open_pool(0);
	image_read(&before);
	next = next_with("bad", &id);
	next->next_dev_id = id;	/* the new volume's id is not below it */
	tp_log_capture(&cap);
	r = pool_change(p, next, apply_never, &calls);
	tp_log_capture(NULL);
	CU_ASSERT(r < 0);
	CU_ASSERT_EQUAL(calls, 0);
	image_read(&after);
	CU_ASSERT(image_same(&before, &after, NULL));
	image_free(&after);
	pool_close(p);
	image_free(&before);

	thin_edit(set_needs_check, NULL);
	tp_log_capture(&cap);
	r = pool_open(POOL, NULL, 0, &p);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	image_read(&before);
	tp_log_capture(&cap);
	r = pool_change(p, next_with("late", &id), apply_never, &calls);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(r, -EUCLEAN);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "flagged needs_check"));
	CU_ASSERT_EQUAL(calls, 0);
	image_read(&after);
	CU_ASSERT(image_same(&before, &after, NULL));
	image_free(&after);
	image_free(&before);
	pool_close(p);
}

/* A thin side that fails after the VG commit (APPLY_ERR from the
 * callback, or with LEAK the thin commit itself): the change returns
 * WANT, the thin transaction is aborted and the VG put back. The devices
 * hold what they held before, byte for byte but for the VG metadata
 * areas, whose VG differs from the old one only in its seqno (committed,
 * then the old state committed again). The pool takes the next change. */
static void settle(int apply_err, int leak, int want, const char *said)
{
	struct disk before, after;
	struct image im0, im1;
	struct apply a = { 0 };
	struct tp_log_capture cap;
	struct pool *p;
	uint64_t t;

	fresh_pool();
	p = open_pool(0);
	disk_read(&before);
	image_read(&im0);
	t = before.vg->transaction_id;
	a.err = apply_err;
	a.leak = leak;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_change(p, next_with("lost", &a.id), apply_create, &a), want);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(a.calls, 1);
	CU_ASSERT_EQUAL(a.vg_tid, t + 1);	/* the VG had been committed */
	if (said)
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, said));
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "could not undo"));

	disk_read(&after);
	CU_ASSERT_EQUAL(after.vg->transaction_id, t);
	CU_ASSERT_PTR_NULL(vg_find_volume(after.vg, "lost"));
	CU_ASSERT_EQUAL(after.vg->seqno, before.vg->seqno + 2);
	CU_ASSERT(vg_same(before.vg, after.vg));
	CU_ASSERT(thin_same(&before, &after));
	CU_ASSERT(!disk_has(&after, a.id));
	image_read(&im1);
	CU_ASSERT(image_same(&im0, &im1, after.vg));
	image_free(&im1);
	image_free(&im0);
	disk_free(&after);

	/* the open pool took the old state back: the next change commits
	 * transaction t + 1 on both sides */
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(pool_change(p, next_with("next", &a.id), apply_create, &a), 0);
	CU_ASSERT_EQUAL(a.thin_tid, t);
	pool_close(p);
	disk_read(&after);
	CU_ASSERT_EQUAL(after.vg->transaction_id, t + 1);
	CU_ASSERT_EQUAL(after.tid, t + 1);
	CU_ASSERT(disk_has(&after, a.id));
	CU_ASSERT_EQUAL(after.n, before.n + 1);
	CU_ASSERT_PTR_NOT_NULL(vg_find_volume(after.vg, "next"));
	CU_ASSERT_PTR_NULL(vg_find_volume(after.vg, "lost"));
	disk_free(&after);
	disk_free(&before);
}

static void test_apply_fails(void)
{
	settle(-ENOSPC, 0, -ENOSPC, NULL);
}

static void test_thin_commit_fails(void)
{
	settle(0, 1, -EBUSY, "commit failed");
}

/* A change killed after its VG commit (SIGKILL at the after-vg-commit
 * pause) leaves the VG at tid + 1 over thin metadata at tid. A reader
 * reports it and writes nothing; the next writer completes it (creating
 * the volume's thin device, setting tid + 1) and says so. */
static void test_complete_killed(void)
{
	struct image im0, im1;
	struct disk d;
	struct apply a = { 0 };
	struct tp_log_capture cap;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	char file[700], want[128];
	struct pool *p;
	uint64_t t;
	int status;
	pid_t pid;

	fresh_pool();
	disk_read(&d);
	t = d.vg->transaction_id;
	disk_free(&d);
	snprintf(file, sizeof(file), "%s/pause", getenv("TPTOOLS_DIR"));
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		struct pool *cp;
		struct vg *next;

		tp_log_set_verbosity(-2);
		setenv("TP_TEST_PAUSE", "after-vg-commit", 1);
		setenv("TP_TEST_PAUSE_FILE", file, 1);
		if (pool_open(POOL, NULL, 0, &cp))
			_exit(2);
		next = next_with("k", &a.id);
		_exit(pool_change(cp, next, apply_create, &a) ? 3 : 4);	/* killed before */
	}
	while (access(file, F_OK) != 0 && waitpid(pid, &status, WNOHANG) == 0)
		nanosleep(&tick, NULL);
	CU_ASSERT_FATAL(access(file, F_OK) == 0);
	CU_ASSERT_EQUAL(kill(pid, SIGKILL), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	unlink(file);

	disk_read(&d);
	CU_ASSERT_EQUAL(d.vg->transaction_id, t + 1);
	CU_ASSERT_FATAL(vg_find_volume(d.vg, "k") != NULL);
	a.id = vg_find_volume(d.vg, "k")->dev_id;
	CU_ASSERT_EQUAL(d.tid, t);
	CU_ASSERT(!disk_has(&d, a.id));
	disk_free(&d);

	/* a reader: reported, nothing written */
	image_read(&im0);
	tp_log_capture(&cap);
	p = open_pool(POOL_RDONLY);
	pool_close(p);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "was interrupted"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "the next change to the pool completes it"));
	image_read(&im1);
	CU_ASSERT(image_same(&im0, &im1, NULL));
	image_free(&im1);
	image_free(&im0);

	/* a writer: completed */
	tp_log_capture(&cap);
	p = open_pool(0);
	pool_close(p);
	tp_log_capture(NULL);
	snprintf(want, sizeof(want), "completed the interrupted creation of volume k (thin device %u)",
		 a.id);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "had been interrupted; it is now complete"));
	disk_read(&d);
	CU_ASSERT_EQUAL(d.vg->transaction_id, t + 1);
	CU_ASSERT_EQUAL(d.tid, t + 1);
	CU_ASSERT(disk_has(&d, a.id));
	disk_free(&d);
	tp_log_capture(&cap);
	p = open_pool(0);
	pool_close(p);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "interrupted"));
}

/* Map virtual block 0 of thin device *ARG (committed with the same
 * transaction id: as the kernel writes data). */
static uint64_t mapped_block;

static void map_block(struct thin_md *md, void *arg)
{
	uint32_t id = *(uint32_t *)arg;

	CU_ASSERT_FATAL(thin_alloc_data_block(md, &mapped_block) == 0);
	CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, id, 0, mapped_block) == 0);
}

static uint32_t dev_id_of(const char *vol)
{
	struct disk d;
	uint32_t id;

	disk_read(&d);
	CU_ASSERT_FATAL(vg_find_volume(d.vg, vol) != NULL);
	id = vg_find_volume(d.vg, vol)->dev_id;
	disk_free(&d);
	return id;
}

/* The thin side of a change lost (its area put back as it was before
 * the change, as a cut between the two commits leaves it): the next
 * writer replays a snapshot (sharing the origin's mapping) and a
 * removal. */
static void test_complete_replay(void)
{
	struct tp_log_capture cap;
	struct disk d;
	struct pool *p;
	struct io_engine *area;
	struct thin_md *md;
	unsigned char *saved;
	uint64_t off, len, t, dblock;
	uint32_t a_id, s_id, b_id;
	char want[128];

	fresh_pool();
	a_id = dev_id_of("a");
	b_id = dev_id_of("b");
	thin_edit(map_block, &a_id);
	active_area(&off, &len);

	/* a snapshot of a */
	saved = area_save(off, len);
	p = open_pool(0);
	tp_log_capture(&cap);
	CU_ASSERT_FATAL(pool_volume_snapshot(p, "a", "a-snap", 0) == 0);
	tp_log_capture(NULL);
	pool_close(p);
	area_load(saved, off, len);
	free(saved);
	s_id = dev_id_of("a-snap");
	disk_read(&d);
	t = d.tid;
	CU_ASSERT_EQUAL(d.vg->transaction_id, t + 1);
	CU_ASSERT(!disk_has(&d, s_id));
	disk_free(&d);
	tp_log_capture(&cap);
	p = open_pool(0);
	pool_close(p);
	tp_log_capture(NULL);
	snprintf(want, sizeof(want), "completed the interrupted creation of snapshot a-snap (thin "
		 "device %u)", s_id);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, want));
	disk_read(&d);
	CU_ASSERT_EQUAL(d.tid, t + 1);
	CU_ASSERT(disk_has(&d, s_id));
	disk_free(&d);
	/* a snapshot: it maps a's block */
	CU_ASSERT_FATAL(io_open_area(meta_path, IO_RDONLY, off, len, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, THIN_RDONLY, &md) == 0);
	CU_ASSERT_EQUAL(thin_lookup(md, s_id, 0, &dblock, NULL), 0);
	CU_ASSERT_EQUAL(dblock, mapped_block);
	thin_close(md);
	io_destroy(area);

	/* the removal of b */
	saved = area_save(off, len);
	p = open_pool(0);
	tp_log_capture(&cap);
	CU_ASSERT_FATAL(pool_volume_remove_progress(p, "b", NULL, NULL) == 0);
	tp_log_capture(NULL);
	pool_close(p);
	area_load(saved, off, len);
	free(saved);
	disk_read(&d);
	CU_ASSERT_EQUAL(d.vg->transaction_id, t + 2);
	CU_ASSERT_EQUAL(d.tid, t + 1);
	CU_ASSERT(disk_has(&d, b_id));
	disk_free(&d);
	tp_log_capture(&cap);
	p = open_pool(0);
	pool_close(p);
	tp_log_capture(NULL);
	snprintf(want, sizeof(want), "completed the interrupted removal of thin device %u", b_id);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, want));
	disk_read(&d);
	CU_ASSERT_EQUAL(d.tid, t + 2);
	CU_ASSERT(!disk_has(&d, b_id));
	CU_ASSERT(disk_has(&d, a_id) && disk_has(&d, s_id));
	disk_free(&d);
}

/* Anything but tid + 1 over tid is not guessed at: a VG two
 * transactions ahead, and thin metadata ahead of the VG, are refused by
 * readers and writers alike, with nothing written. */
static void bump_tid(struct thin_md *md, void *arg)
{
	uint64_t t;

	(void)arg;
	CU_ASSERT_FATAL(thin_get_transaction_id(md, &t) == 0);
	CU_ASSERT_FATAL(thin_set_transaction_id(md, t, t + 1) == 0);
}

static void refuse_open(void)
{
	static const unsigned flags[] = { POOL_RDONLY, 0 };
	struct image im0, im1;
	struct tp_log_capture cap;
	struct pool *p = NULL;

	image_read(&im0);
	for (unsigned i = 0; i < TP_ARRAY_SIZE(flags); i++) {
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(pool_open(POOL, NULL, flags[i], &p), -EUCLEAN);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "transaction id mismatch"));
	}
	image_read(&im1);
	CU_ASSERT(image_same(&im0, &im1, NULL));
	image_free(&im1);
	image_free(&im0);
}

static void test_mismatch(void)
{
	struct tp_log_capture cap;
	struct pool *p;
	unsigned char *saved;
	uint64_t off, len, over;

	/* the VG at tid + 2 */
	fresh_pool();
	active_area(&off, &len);
	saved = area_save(off, len);
	p = open_pool(0);
	tp_log_capture(&cap);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "c", 1u << 20, 0, &over) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "d", 1u << 20, 0, &over) == 0);
	tp_log_capture(NULL);
	pool_close(p);
	area_load(saved, off, len);
	free(saved);
	refuse_open();

	/* the thin metadata ahead */
	fresh_pool();
	thin_edit(bump_tid, NULL);
	refuse_open();
}

/* The thin devices at the same transaction as the VG but not the ones it
 * lists: b's device gone, and devices no entry names. */
struct stray {
	uint32_t drop;
	uint64_t add[2];
};

static void stray_devices(struct thin_md *md, void *arg)
{
	const struct stray *s = arg;

	if (s->drop != UINT32_MAX)
		CU_ASSERT_FATAL(thin_delete(md, s->drop) == 0);
	for (int i = 0; i < 2; i++)
		if (s->add[i])
			CU_ASSERT_FATAL(thin_create_thin(md, s->add[i]) == 0);
}

/* The count of differences an open warns of (0: no warning). */
static unsigned open_differences(void)
{
	struct tp_log_capture cap;
	struct pool *p = NULL;
	const char *w;
	unsigned n = 0;

	tp_log_capture(&cap);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, POOL_RDONLY, &p) == 0);
	tp_log_capture(NULL);
	pool_close(p);
	w = strstr(cap.buf, "list different volumes (");
	if (w)
		CU_ASSERT_FATAL(sscanf(w, "list different volumes (%u difference", &n) == 1);
	return n;
}

/* pool_reconcile at the same transaction: every volume without its thin
 * device and every thin device no VG entry names is counted, over ids
 * close together (a bitmap of their span) and far apart (the sorted
 * ids). */
static void test_same_tid_differences(void)
{
	struct stray s = { UINT32_MAX, { 0, 0 } };

	fresh_pool();
	CU_ASSERT_EQUAL(open_differences(), 0);
	s.drop = dev_id_of("b");
	s.add[0] = 40;
	thin_edit(stray_devices, &s);
	CU_ASSERT_EQUAL(open_differences(), 2);
	s = (struct stray){ UINT32_MAX, { 41, THIN_MAX_DEV_ID } };
	thin_edit(stray_devices, &s);
	CU_ASSERT_EQUAL(open_differences(), 4);
}

/* The guard of a change reads the mapping-tree roots of the entries the
 * change adds, drops or alters (and a new snapshot's origin), found by
 * comparing the VG before and after in runs of entries: in a pool of 150
 * volumes whose v70 has a damaged root, what relies on v70 is refused,
 * and changes around it in the lists (an entry dropped before it, one
 * added after it) go on. */
static void test_guard_reads_touched(void)
{
	char name[16];
	struct tp_log_capture cap;
	struct io_engine *area;
	struct thin_md *md;
	struct pool *p;
	uint64_t off, len, over, root, old_size;
	unsigned char zero[4096];
	uint32_t v70;
	int fd;

	fresh_pool();
	p = open_pool(0);
	tp_log_capture(&cap);
	for (int i = 0; i < 150; i++) {
		snprintf(name, sizeof(name), "v%d", i);
		CU_ASSERT_FATAL(pool_volume_create_as(p, name, 1u << 20, 0, &over) == 0);
	}
	/* s70 keeps the root v70 had: v70 writes a block apart from it */
	CU_ASSERT_FATAL(pool_volume_snapshot(p, "v70", "s70", 0) == 0);
	tp_log_capture(NULL);
	pool_close(p);
	v70 = dev_id_of("v70");
	thin_edit(map_block, &v70);
	active_area(&off, &len);
	CU_ASSERT_FATAL(io_open_area(meta_path, IO_RDONLY, off, len, &area) == 0);
	CU_ASSERT_FATAL(thin_open(area, THIN_RDONLY, &md) == 0);
	CU_ASSERT_FATAL(thin_find_dev(md, v70) != NULL);
	root = thin_find_dev(md, v70)->root;
	thin_close(md);
	io_destroy(area);
	memset(zero, 0, sizeof(zero));
	fd = open(meta_path, O_WRONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pwrite(fd, zero, sizeof(zero), (off_t)(off + root * 4096)) == 4096);
	close(fd);

	p = open_pool(0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_volume_snapshot(p, "v70", "s0", 0), -EUCLEAN);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "its thin metadata is damaged"));
	CU_ASSERT_EQUAL(pool_volume_remove_progress(p, "v30", NULL, NULL), 0);
	CU_ASSERT_EQUAL(pool_volume_snapshot(p, "v100", "s1", 0), 0);
	CU_ASSERT_EQUAL(pool_volume_remove_progress(p, "v120", NULL, NULL), 0);
	CU_ASSERT_EQUAL(pool_volume_remove_progress(p, "v70", NULL, NULL), -EUCLEAN);
	CU_ASSERT_EQUAL(pool_volume_rename(p, "v71", "w71"), 0);
	/* an entry altered in place, in the middle of the list: v70 rolled
	 * back to s70 drops v70's device, whose root the guard reads */
	tp_log_capture(NULL);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_volume_rollback(p, "v70", "s70", &old_size), -EUCLEAN);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "nothing was changed"));
	tp_log_capture(NULL);
	pool_close(p);
}

/* pool_get_info: POOL_INFO_USAGE gives mapped from the device details
 * alone (exclusive and shared 0, sharing unset); with POOL_INFO_SHARING
 * the walk adds them, mapped the same. */
static void test_info_sharing(void)
{
	struct pool_info info;
	struct thin_md *md;
	struct pool *p;
	uint32_t a;
	uint64_t b;

	fresh_pool();
	a = dev_id_of("a");
	p = open_pool(0);
	md = pool_md_of(p);
	for (uint64_t v = 0; v < 3; v++) {
		CU_ASSERT_FATAL(thin_alloc_data_block(md, &b) == 0);
		CU_ASSERT_FATAL(thin_insert_mapping_alloced(md, a, v, b) == 0);
	}
	CU_ASSERT_FATAL(thin_commit(md) == 0);

	CU_ASSERT_FATAL(pool_get_info(p, POOL_INFO_USAGE, &info) == 0);
	CU_ASSERT_FATAL(info.nr_volumes == 2);
	CU_ASSERT(!info.sharing);
	CU_ASSERT_EQUAL(info.volumes[0].mapped, 3 * info.chunk);
	CU_ASSERT_EQUAL(info.volumes[0].exclusive, 0);
	CU_ASSERT_EQUAL(info.volumes[0].shared, 0);
	CU_ASSERT_EQUAL(info.volumes[1].mapped, 0);
	CU_ASSERT_EQUAL(info.data_used, 3 * info.chunk);
	pool_info_free(&info);

	CU_ASSERT_FATAL(pool_get_info(p, POOL_INFO_USAGE | POOL_INFO_SHARING, &info) == 0);
	CU_ASSERT(info.sharing);
	CU_ASSERT_EQUAL(info.volumes[0].mapped, 3 * info.chunk);
	CU_ASSERT_EQUAL(info.volumes[0].exclusive, 3 * info.chunk);
	CU_ASSERT_EQUAL(info.volumes[0].shared, 0);
	CU_ASSERT_EQUAL(info.volumes[1].mapped, 0);
	pool_info_free(&info);

	/* without POOL_INFO_USAGE no figures at all */
	CU_ASSERT_FATAL(pool_get_info(p, POOL_INFO_SHARING, &info) == 0);
	CU_ASSERT_EQUAL(info.volumes[0].mapped, 0);
	CU_ASSERT(!info.sharing);
	pool_info_free(&info);
	pool_close(p);
}

static int cleanup(void)
{
	unsetenv("TPTOOLS_DIR");
	return 0;
}

TP_TEST_SUITE(change, NULL, cleanup,
	      { "the VG commits first, with transaction id + 1, then the thin side",
		test_commit },
	      { "refused before the VG commit: nothing written", test_refused },
	      { "the thin side fails: VG put back, thin transaction aborted",
		test_apply_fails },
	      { "the thin commit fails: VG put back, thin transaction aborted",
		test_thin_commit_fails },
	      { "killed after the VG commit: reported, then completed at open",
		test_complete_killed },
	      { "a lost thin side replayed at open: snapshot, removal", test_complete_replay },
	      { "VG and thin further apart: refused, nothing written", test_mismatch },
	      { "the same transaction, other thin devices: counted", test_same_tid_differences },
	      { "the guard reads the roots of the entries a change touches",
		test_guard_reads_touched },
	      { "pool_get_info walks the mappings only with POOL_INFO_SHARING",
		test_info_sharing })
