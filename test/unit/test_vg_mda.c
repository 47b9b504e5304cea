/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata/vg metadata areas and whole-VG commits: slot alternation,
 * a corrupted copy, lost writes at every write index (fault engine,
 * IO_FAULT_DROP at N), torn writes at every sector, failing writes,
 * text too large, stale seqnos, vg_read/vg_commit (no backups: those are
 * lib/pool's, test_pool_host.c). */
#include "lib/base/paths.h"
#include "test/unit/test_vg_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static int mda_init(void)
{
	static char dir[600];

	snprintf(dir, sizeof(dir), "%s/vg-mda", tp_test_tmpdir());
	setenv("TPTOOLS_DIR", dir, 1);
	return 0;
}

static char *text_for(uint64_t seqno)
{
	char *t = malloc(64);
	snprintf(t, 64, "text of commit %llu\n", (unsigned long long)seqno);
	return t;
}

static void commit_seq(struct fx_pool *p, uint64_t seqno)
{
	char *t = text_for(seqno);
	CU_ASSERT_EQUAL(vg_mda_commit(p->pvs, 2, seqno, t, strlen(t), 0, 0), 0);
	free(t);
}

/* Read and expect the text of commit SEQNO. */
static void expect_seq(struct fx_pool *p, uint64_t seqno, struct vg_mda_status *st)
{
	char *t, *want = text_for(seqno);
	size_t len;

	CU_ASSERT_EQUAL_FATAL(vg_mda_read(p->pvs, 2, &t, &len, st), 0);
	CU_ASSERT_STRING_EQUAL(t, want);
	CU_ASSERT_EQUAL(len, strlen(want));
	free(t);
	free(want);
}

static void test_empty_and_alternation(void)
{
	struct fx_pool p;
	struct vg_mda_status st;
	char *t;
	size_t len;
	uint64_t s;

	fx_pool_open(&p, 0);
	CU_ASSERT_EQUAL(vg_mda_read(p.pvs, 2, &t, &len, &st), -ENODATA);
	CU_ASSERT_EQUAL(st.slot[0][0].state, VG_SLOT_BLANK);	/* formatted, never written */
	commit_seq(&p, 1);
	expect_seq(&p, 1, &st);
	CU_ASSERT_EQUAL(st.seqno, 1);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	CU_ASSERT_EQUAL(st.slot[0][0].state, VG_SLOT_VALID);
	CU_ASSERT_EQUAL(st.slot[0][1].state, VG_SLOT_BLANK);
	for (s = 2; s <= 5; s++) {
		commit_seq(&p, s);
		expect_seq(&p, s, &st);
		/* each device keeps the previous commit in its other slot */
		for (int d = 0; d < 2; d++) {
			CU_ASSERT_EQUAL(st.slot[d][s % 2 ? 0 : 1].seqno, s);
			CU_ASSERT_EQUAL(st.slot[d][s % 2 ? 1 : 0].seqno, s - 1);
		}
		CU_ASSERT_EQUAL(st.needs_repair, 0);
	}
	fx_pool_close(&p);
}

/* Flip a byte of the newest copy (header or text) on one device, or on
 * both: the read falls back, reports it, and the next commit repairs. */
static void test_corrupt_copy(void)
{
	static const uint64_t where[] = { 0, 8, 44, 100, 512, 520 };
	struct tp_log_capture cap;
	struct vg_mda_status st;
	unsigned i;

	for (i = 0; i < TP_ARRAY_SIZE(where); i++) {
		struct fx_pool p;
		uint64_t slot3 = p.pvs[0].label.mda.offset;	/* seqno 3 is in slot 0 */

		fx_pool_open(&p, 0);
		slot3 = p.pvs[0].label.mda.offset;
		commit_seq(&p, 1);
		commit_seq(&p, 2);
		commit_seq(&p, 3);
		tp_log_capture(&cap);
		io_mem_data(p.mem[0])[slot3 + where[i]] ^= 0x10;
		expect_seq(&p, 3, &st);	/* the data device still has it */
		/* a flipped magic byte reads as an empty slot, anything else as corrupt */
		CU_ASSERT_EQUAL(st.slot[0][0].state,
				where[i] >= 4 && where[i] < 12 ? VG_SLOT_EMPTY : VG_SLOT_CORRUPT);
		CU_ASSERT_EQUAL(st.needs_repair, 1);
		io_mem_data(p.mem[1])[slot3 + where[i]] ^= 0x10;
		expect_seq(&p, 2, &st);	/* both copies of 3 gone: 2 survives */
		/* (with the magic gone, both devices hold 2 as newest beside a
		 * slot that is no blank one: a copy lost, to be rewritten) */
		CU_ASSERT_EQUAL(st.needs_repair, 1);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "stale"));
		/* the next commit goes into the corrupt slots: both clean again */
		commit_seq(&p, 3);
		expect_seq(&p, 3, &st);
		CU_ASSERT_EQUAL(st.needs_repair, 0);
		fx_pool_close(&p);
	}
}

/* A commit checks a copy's text only where its choice turns on it (issue
 * 40): a copy whose header is sound but whose text is damaged is still no
 * copy to keep, nor one that makes the commit stale, and the copy a
 * device keeps is a valid one. Slots after commits 1, 2, 3: 3 in slot 0,
 * 2 in slot 1, on both devices; a text is 17 bytes from byte 512. */
static void commit_keep_seq(struct fx_pool *p, uint64_t seqno, uint64_t keep, int want)
{
	char *t = text_for(seqno);
	CU_ASSERT_EQUAL(vg_mda_commit(p->pvs, 2, seqno, t, strlen(t), keep, 0), want);
	free(t);
}

/* A fresh pool with commits 1..N on both devices. */
static void history(struct fx_pool *p, uint64_t n)
{
	fx_pool_open(p, 0);
	for (uint64_t k = 1; k <= n; k++)
		commit_seq(p, k);
}

static void test_commit_damaged_text(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	uint64_t slot0, slot1;

	/* the copy to keep (3) damaged on the meta device: the commit goes
	 * into its slot there and keeps 2; the data device keeps 3 */
	history(&p, 3);
	slot0 = p.pvs[0].label.mda.offset;
	slot1 = slot0 + p.pvs[0].label.mda.size / 2;
	io_mem_data(p.mem[0])[slot0 + 520] ^= 0x10;
	commit_keep_seq(&p, 4, 3, 0);
	expect_seq(&p, 4, &st);
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 4);
	CU_ASSERT_EQUAL(st.slot[0][1].state, VG_SLOT_VALID);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 2);
	CU_ASSERT_EQUAL(st.slot[1][0].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[1][1].seqno, 4);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	fx_pool_close(&p);

	/* the older copy (2) damaged: overwritten, 3 kept, as always */
	history(&p, 3);
	io_mem_data(p.mem[1])[slot1 + 517] ^= 0x10;
	commit_keep_seq(&p, 4, 3, 0);
	expect_seq(&p, 4, &st);
	CU_ASSERT_EQUAL(st.slot[1][0].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[1][1].seqno, 4);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	fx_pool_close(&p);

	/* 3 damaged on both devices, kept 2: a commit of 3 again is not
	 * stale (its copies are no copies); with 3 whole it is */
	history(&p, 3);
	tp_log_capture(&cap);
	commit_keep_seq(&p, 3, 2, -ESTALE);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "is not newer than the 3 on disk"));
	io_mem_data(p.mem[0])[slot0 + 513] ^= 0x10;
	io_mem_data(p.mem[1])[slot0 + 513] ^= 0x10;
	commit_keep_seq(&p, 3, 2, 0);
	expect_seq(&p, 3, &st);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 2);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	fx_pool_close(&p);

	/* the newest copy's text damaged where no copy is kept: the commit
	 * goes after the valid one, into the damaged slot */
	history(&p, 2);
	io_mem_data(p.mem[0])[slot1 + 522] ^= 0x10;
	commit_keep_seq(&p, 3, 0, 0);
	expect_seq(&p, 3, &st);
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 1);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[1][0].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[1][1].seqno, 2);
	fx_pool_close(&p);
}

/* A whole device's area destroyed: the other device carries on; the next
 * commit rewrites it. */
static void test_device_lost_area(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;

	fx_pool_open(&p, 0);
	commit_seq(&p, 1);
	commit_seq(&p, 2);
	memset(io_mem_data(p.mem[1]) + p.pvs[1].label.mda.offset, 0x5a, p.pvs[1].label.mda.size);
	tp_log_capture(&cap);
	expect_seq(&p, 2, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 1);	/* no magic left: empty, so stale */
	CU_ASSERT_EQUAL(st.slot[1][0].state, VG_SLOT_EMPTY);
	tp_log_capture(NULL);
	memset(io_mem_data(p.mem[1]) + p.pvs[1].label.mda.offset, 0, p.pvs[1].label.mda.size);
	tp_log_capture(&cap);
	expect_seq(&p, 2, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	CU_ASSERT_EQUAL(st.slot[1][0].state, VG_SLOT_EMPTY);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "stale"));
	tp_log_capture(NULL);
	commit_seq(&p, 3);
	expect_seq(&p, 3, &st);
	/* the commit wrote the other, wiped slot blank: nothing to repair */
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	CU_ASSERT_EQUAL(st.slot[1][0].state, VG_SLOT_VALID);
	CU_ASSERT_EQUAL(st.slot[1][1].state, VG_SLOT_BLANK);
	fx_pool_close(&p);
}

/* IO_FAULT_DROP at every write index N of a commit (over both devices, in
 * commit order): the read returns the new commit exactly when a device got
 * it, else the old one; the old commit stays readable wherever the new
 * write was lost; the next commit repairs everything. */
static void test_drop_at_every_write(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	uint64_t writes[2], base[2], n, total;
	struct fx_pool p;
	int d;

	/* count the writes of one commit per device */
	fx_pool_open(&p, 1);
	commit_seq(&p, 1);
	for (d = 0; d < 2; d++)
		base[d] = io_fault_writes(p.pvs[d].io);
	commit_seq(&p, 2);
	for (d = 0; d < 2; d++)
		writes[d] = io_fault_writes(p.pvs[d].io) - base[d];
	fx_pool_close(&p);
	CU_ASSERT_FATAL(writes[0] >= 1 && writes[1] >= 1);
	total = writes[0] + writes[1];

	for (n = 0; n <= total; n++) {
		fx_pool_open(&p, 1);
		commit_seq(&p, 1);
		commit_seq(&p, 2);
		for (d = 0; d < 2; d++) {
			uint64_t before = d ? writes[0] : 0;	/* writes of earlier devices */
			uint64_t from = n > before ? n - before : 0;
			base[d] = io_fault_writes(p.pvs[d].io);
			if (from < writes[d])
				io_fault_set(p.pvs[d].io, IO_FAULT_DROP, base[d] + from);
		}
		commit_seq(&p, 3);	/* dropped writes report success */
		for (d = 0; d < 2; d++)
			io_fault_set(p.pvs[d].io, IO_FAULT_NONE, 0);
		tp_log_capture(&cap);
		expect_seq(&p, n >= writes[0] ? 3 : 2, &st);
		CU_ASSERT_EQUAL(st.needs_repair, n > 0 && n < total);
		for (d = 0; d < 2; d++) {
			/* commit 2 is never lost on a device that missed 3 */
			int has2 = st.slot[d][0].seqno == 2 || st.slot[d][1].seqno == 2;
			int has3 = st.slot[d][0].seqno == 3 || st.slot[d][1].seqno == 3;
			CU_ASSERT(has3 || has2);
		}
		tp_log_capture(NULL);
		commit_seq(&p, 4);
		expect_seq(&p, 4, &st);
		CU_ASSERT_EQUAL(st.needs_repair, 0);
		fx_pool_close(&p);
	}
}

/* A write torn at every sector boundary (and mid-sector) of the slot, on
 * the first device and, with the first complete, on the second: the read
 * returns the old or the new commit, never an error or garbage. */
#define AREA_END (VG_MDA_DEFAULT_OFFSET + VG_MDA_DEFAULT_SIZE)

static void test_torn_write_every_sector(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	unsigned char *before[2], *after[2];
	char *big, *t;
	size_t len, biglen = 3000, wlen;
	uint64_t slot, cut;
	int d;

	big = malloc(biglen + 1);
	for (size_t i = 0; i < biglen; i++)
		big[i] = (char)('a' + i % 26);
	big[biglen] = '\0';
	fx_pool_open(&p, 0);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 1, "old", 3, 0, 0), 0);
	for (d = 0; d < 2; d++) {
		before[d] = malloc(AREA_END);
		memcpy(before[d], io_mem_data(p.mem[d]), AREA_END);
	}
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 2, big, biglen, 0, 0), 0);
	for (d = 0; d < 2; d++) {
		after[d] = malloc(AREA_END);
		memcpy(after[d], io_mem_data(p.mem[d]), AREA_END);
	}
	slot = p.pvs[0].label.mda.offset + p.pvs[0].label.mda.size / 2;	/* seqno 2: slot 1 */
	wlen = VG_MDA_SLOT_HEADER + ((biglen + 511) & ~(size_t)511);
	tp_log_capture(&cap);
	for (d = 0; d < 2; d++) {
		for (cut = 0; cut <= wlen; cut += 256) {
			/* devices before D complete, D torn at CUT, after D untouched */
			for (int e = 0; e < 2; e++)
				memcpy(io_mem_data(p.mem[e]), e < d ? after[e] : before[e], AREA_END);
			memcpy(io_mem_data(p.mem[d]) + slot, after[d] + slot, cut);
			CU_ASSERT_EQUAL_FATAL(vg_mda_read(p.pvs, 2, &t, &len, &st), 0);
			/* new once any device holds all of it */
			CU_ASSERT_STRING_EQUAL(t, d == 0 && cut < wlen ? "old" : big);
			free(t);
		}
	}
	tp_log_capture(NULL);
	for (d = 0; d < 2; d++) {
		free(before[d]);
		free(after[d]);
	}
	free(big);
	fx_pool_close(&p);
}

/* IO_FAULT_FAIL: the commit reports the error; reading gives old or new. */
static void test_failing_writes(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	uint64_t n;
	int d;

	for (n = 0; n < 3; n++) {
		fx_pool_open(&p, 1);
		commit_seq(&p, 1);
		for (d = 0; d < 2; d++)
			io_fault_set(p.pvs[d].io, IO_FAULT_FAIL,
				     io_fault_writes(p.pvs[d].io) + (d == 0 ? n : n > 0 ? n - 1 : 0));
		tp_log_capture(&cap);
		{
			char *t = text_for(2);
			int r = vg_mda_commit(p.pvs, 2, 2, t, strlen(t), 0, 0);
			CU_ASSERT_EQUAL(r, n < 2 ? -EIO : 0);
			free(t);
		}
		for (d = 0; d < 2; d++)
			io_fault_set(p.pvs[d].io, IO_FAULT_NONE, 0);
		expect_seq(&p, n >= 1 ? 2 : 1, &st);
		tp_log_capture(NULL);
		fx_pool_close(&p);
	}
}

static void test_limits(void)
{
	struct tp_log_capture cap;
	struct fx_pool p;
	size_t cap_bytes;
	char *big;

	fx_pool_open(&p, 0);
	cap_bytes = vg_mda_capacity(&p.pvs[0].label);
	CU_ASSERT_EQUAL(cap_bytes, VG_MDA_DEFAULT_SIZE / 2 - 512);
	big = malloc(cap_bytes + 1);
	memset(big, 'x', cap_bytes + 1);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 1, big, cap_bytes + 1, 0, 0), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "does not fit"));
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 1, big, cap_bytes, 0, 0), 0);	/* exactly full */
	{
		char *t;
		size_t len;
		CU_ASSERT_EQUAL(vg_mda_read(p.pvs, 2, &t, &len, NULL), 0);
		CU_ASSERT_EQUAL(len, cap_bytes);
		free(t);
	}
	/* a seqno that is not newer is refused before anything is written */
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 1, "x", 1, 0, 0), -ESTALE);
	tp_log_capture(NULL);
	free(big);
	fx_pool_close(&p);
}

/* A slot copied from another pool's device is not taken for ours. */
static void test_foreign_slot(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool a, b;
	char *t;
	size_t len;

	fx_pool_open(&a, 0);
	fx_pool_open(&b, 0);
	strcpy(b.pvs[0].label.pool_uuid, "99999999-2222-4333-8444-555555555555");
	strcpy(b.pvs[1].label.pool_uuid, b.pvs[0].label.pool_uuid);
	CU_ASSERT_EQUAL(vg_mda_commit(b.pvs, 2, 7, "foreign", 7, 0, 0), 0);
	memcpy(io_mem_data(a.mem[0]), io_mem_data(b.mem[0]), 1 << 20);
	memcpy(io_mem_data(a.mem[1]), io_mem_data(b.mem[1]), 1 << 20);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_read(a.pvs, 2, &t, &len, &st), -ENODATA);
	CU_ASSERT_EQUAL(st.slot[0][0].state, VG_SLOT_CORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "another pool"));
	tp_log_capture(NULL);
	/* devices of different pools are refused together */
	a.pvs[1] = b.pvs[1];
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_commit(a.pvs, 2, 1, "x", 1, 0, 0), -EINVAL);
	tp_log_capture(NULL);
	a.pvs[1].io = a.mem[1];
	fx_pool_close(&a);
	fx_pool_close(&b);
}

/* Whole-VG commit and read: model in, same model out; seqno grows; a
 * newest copy that does not import falls back; nothing is written to the
 * config dir. */
static void test_vg_commit_read(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	struct vg *vg = fx_vg(), *got;

	fx_pool_open(&p, 0);
	vg->seqno = 0;	/* never committed */
	CU_ASSERT_EQUAL(vg_commit(p.pvs, 2, vg), 0);
	CU_ASSERT_EQUAL(vg->seqno, 1);
	CU_ASSERT_EQUAL_FATAL(vg_read(p.pvs, 2, &got, &st), 0);
	CU_ASSERT_EQUAL(got->seqno, 1);
	CU_ASSERT_EQUAL(got->nr_volumes, 3);
	CU_ASSERT_STRING_EQUAL(got->volumes[2].origin, "www");
	fx_vol(got, "new", got->next_dev_id, NULL);
	got->transaction_id++;
	CU_ASSERT_EQUAL(vg_commit(p.pvs, 2, got), 0);
	CU_ASSERT_EQUAL(got->seqno, 2);
	vg_free(got);
	CU_ASSERT_EQUAL_FATAL(vg_read(p.pvs, 2, &got, &st), 0);
	CU_ASSERT_EQUAL(got->seqno, 2);
	CU_ASSERT_PTR_NOT_NULL(vg_find_volume(got, "new"));
	CU_ASSERT_EQUAL(got->transaction_id, vg->transaction_id + 1);
	CU_ASSERT(access(getenv("TPTOOLS_DIR"), F_OK) != 0);	/* no backup */
	/* a checksummed copy whose text does not import: fall back to 2 */
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 3, "pool { }", 8, 0, 0), 0);
	vg_free(got);
	CU_ASSERT_EQUAL_FATAL(vg_read(p.pvs, 2, &got, &st), 0);
	CU_ASSERT_PTR_NOT_NULL(vg_find_volume(got, "new"));	/* commit 2's content */
	CU_ASSERT_EQUAL(got->seqno, 3);	/* but the newest seqno on disk */
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	/* the slots of the copy fallen back past: unusable (tpcheck's finding) */
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 2; k++)
			CU_ASSERT_EQUAL(st.slot[d][k].unusable, st.slot[d][k].seqno == 3);
	/* committing from the fallback supersedes the unusable seqno 3 */
	CU_ASSERT_EQUAL(got->text_seqno, 2);
	CU_ASSERT_EQUAL(vg_commit(p.pvs, 2, got), 0);
	CU_ASSERT_EQUAL(got->seqno, 4);
	CU_ASSERT_EQUAL(got->text_seqno, 4);
	vg_free(got);
	CU_ASSERT_EQUAL_FATAL(vg_read(p.pvs, 2, &got, &st), 0);
	CU_ASSERT_EQUAL(got->seqno, 4);
	for (int d = 0; d < 2; d++)
		CU_ASSERT(!st.slot[d][0].unusable && !st.slot[d][1].unusable);
	/* the unusable 3 was overwritten, not 2, the last usable copy */
	for (int d = 0; d < 2; d++) {
		CU_ASSERT(st.slot[d][0].seqno == 2 || st.slot[d][1].seqno == 2);
		CU_ASSERT(st.slot[d][0].seqno == 4 || st.slot[d][1].seqno == 4);
	}
	CU_ASSERT_PTR_NOT_NULL(vg_find_volume(got, "new"));
	tp_log_capture(NULL);
	vg_free(got);
	/* labels of another device set: refused */
	char pv_uuid[sizeof(p.pvs[1].label.pv_uuid)];
	memcpy(pv_uuid, p.pvs[1].label.pv_uuid, sizeof(pv_uuid));
	strcpy(p.pvs[1].label.pv_uuid, "12345678-2222-4333-8444-555555555555");
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_read(p.pvs, 2, &got, NULL), -EUCLEAN);
	CU_ASSERT_EQUAL(vg_commit(p.pvs, 2, vg), -EINVAL);
	tp_log_capture(NULL);
	memcpy(p.pvs[1].label.pv_uuid, pv_uuid, sizeof(pv_uuid));
	/* a newest copy that a newer tptools wrote (its format_version above
	 * this one's, with a key this one does not know): refused as such, not
	 * fallen back past to seqno 4, whose next commit would undo it */
	{
		static const char newer[] = "contents = \"tptools VG metadata\"\nversion = 1\n"
					    "pool {\nformat_version = 9\nnew_key = 1\n}\n";

		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 5, newer, strlen(newer), 0, 0), 0);
		got = (struct vg *)1;
		CU_ASSERT_EQUAL(vg_read(p.pvs, 2, &got, &st), -EPROTONOSUPPORT);
		CU_ASSERT_PTR_NULL(got);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "newer format"));
		CU_ASSERT_PTR_NULL(strstr(cap.buf, "falling back"));
		tp_log_capture(NULL);
	}
	vg_free(vg);
	fx_pool_close(&p);
}

/* A check's read (VG_MDA_READ_WHOLE) imports the copies older than the
 * one it takes too, as a read would once the newer are lost: an older
 * copy that does not import is unusable (tpcheck names it), one of a
 * newer format is said so; a reader's read looks at the newest alone. */
static void test_check_imports_older(void)
{
	static const char newer[] = "contents = \"tptools VG metadata\"\nversion = 1\n"
				    "pool {\nformat_version = 9\n}\n";
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	struct vg *vg = fx_vg(), *got;
	unsigned jflags = vg->format_version >= 2 ? VG_MDA_JOURNAL : 0;

	fx_pool_open(&p, 0);
	vg->seqno = 2;
	tp_log_capture(&cap);
	/* (in the pool's format: a journal checkpoint beside a copy of
	 * format 1 would go over it too) */
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 2, "pool { }", 8, 0, jflags), 0);
	CU_ASSERT_EQUAL_FATAL(vg_commit(p.pvs, 2, vg), 0);	/* seqno 3 */
	CU_ASSERT_EQUAL_FATAL(vg_read(p.pvs, 2, &got, &st), 0);
	vg_free(got);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	CU_ASSERT_EQUAL_FATAL(vg_read_flags(p.pvs, 2, &got, VG_MDA_READ_WHOLE, &st), 0);
	CU_ASSERT_EQUAL(got->seqno, 3);
	vg_free(got);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 2; k++) {
			CU_ASSERT_EQUAL(st.slot[d][k].unusable, st.slot[d][k].seqno == 2);
			CU_ASSERT_EQUAL(st.slot[d][k].newer_copy, 0);
		}
	/* seqno 4 of a newer format, then 5 of this one: the older slot's
	 * newer-format copy is said, not refused */
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 4, newer, strlen(newer), 0, jflags), 0);
	vg->seqno = 4;
	vg->text_seqno = 0;	/* (no copy to keep: 5 goes beside 4) */
	CU_ASSERT_EQUAL_FATAL(vg_commit(p.pvs, 2, vg), 0);	/* seqno 5 */
	CU_ASSERT_EQUAL_FATAL(vg_read_flags(p.pvs, 2, &got, VG_MDA_READ_WHOLE, &st), 0);
	CU_ASSERT_EQUAL(got->seqno, 5);
	vg_free(got);
	/* the previous commit, a newer tptools': nothing to repair */
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 2; k++) {
			CU_ASSERT_EQUAL(st.slot[d][k].newer_copy, st.slot[d][k].seqno == 4);
			CU_ASSERT_EQUAL(st.slot[d][k].unusable, 0);
		}
	tp_log_capture(NULL);
	vg_free(vg);
	fx_pool_close(&p);
}

/* A device the newest VG no longer names (taken away since: its label
 * and an older copy that names it are still there) ends the read: the
 * older copy is an earlier state of the pool, never its VG now; and a
 * copy of another pool in the same slots is never read as the pool's. */
static void test_older_copy_not_current(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p, q;
	struct vg *vg = fx_vg(), *got = NULL, *next;

	fx_pool_open(&p, 0);
	vg->seqno = 0;
	CU_ASSERT_EQUAL_FATAL(vg_commit(p.pvs, 2, vg), 0);	/* seqno 1: names both */
	/* seqno 2: the data device replaced by another (its uuid), written to
	 * the metadata device only, as a commit that drops a device is */
	CU_ASSERT_EQUAL_FATAL(vg_clone(vg, &next), 0);
	strcpy(next->dev[VG_ROLE_DATA].pv_uuid, "77777777-2222-4333-8444-555555555555");
	{
		struct vg_pv meta_only = p.pvs[0];
		struct vg_label *l = &meta_only.label;

		CU_ASSERT_EQUAL(l->role, VG_ROLE_META);
		CU_ASSERT_EQUAL_FATAL(vg_commit(&meta_only, 1, next), 0);
		CU_ASSERT_EQUAL(next->seqno, 2);
	}
	/* both devices together: seqno 2 does not name the data device's
	 * label, and seqno 1 (which does) is not taken instead */
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_read(p.pvs, 2, &got, &st), -EUCLEAN);
	CU_ASSERT_PTR_NULL(got);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "does not name its device uuid"));
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "falling back"));
	tp_log_capture(NULL);
	/* the data device alone still reads its own (older) copy: what a
	 * caller that asks about that device gets */
	CU_ASSERT_EQUAL_FATAL(vg_read(&p.pvs[1], 1, &got, &st), 0);
	CU_ASSERT_EQUAL(got->seqno, 1);
	vg_free(got);
	vg_free(next);

	/* another pool's copy over the metadata device's whole VG area (its
	 * slot headers carry the other pool's uuid): never read as ours; the
	 * data device's copy is the pool's VG, and the foreign slots are
	 * reported damaged */
	fx_pool_open(&q, 0);
	strcpy(q.pvs[0].label.pool_uuid, "99999999-2222-4333-8444-555555555555");
	strcpy(q.pvs[1].label.pool_uuid, q.pvs[0].label.pool_uuid);
	strcpy(vg->uuid, q.pvs[0].label.pool_uuid);
	vg->seqno = 40;	/* newer than anything of the pool */
	CU_ASSERT_EQUAL_FATAL(vg_commit(q.pvs, 2, vg), 0);
	memcpy(io_mem_data(p.mem[0]) + VG_MDA_DEFAULT_OFFSET,
	       io_mem_data(q.mem[0]) + VG_MDA_DEFAULT_OFFSET, VG_MDA_DEFAULT_SIZE);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL_FATAL(vg_read(&p.pvs[1], 1, &got, &st), 0);
	CU_ASSERT_STRING_EQUAL(got->uuid, FX_POOL_UUID);
	CU_ASSERT_EQUAL(got->seqno, 1);
	vg_free(got);
	got = NULL;
	/* the metadata device alone holds only the other pool's slots */
	CU_ASSERT_EQUAL(vg_read(&p.pvs[0], 1, &got, &st), -ENODATA);
	CU_ASSERT_EQUAL(st.slot[0][0].state, VG_SLOT_CORRUPT);
	CU_ASSERT_NOT_EQUAL(st.slot[0][1].state, VG_SLOT_VALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "belongs to another pool"));
	tp_log_capture(NULL);
	vg_free(vg);
	fx_pool_close(&q);
	fx_pool_close(&p);
}

/* Random byte damage anywhere in the written part of both areas: a read
 * returns one of the committed texts or no copy at all, never garbage. */
static void test_random_damage(void)
{
	struct tp_log_capture cap;
	struct fx_pool p;
	unsigned char *at[4], bit[4];
	uint32_t x = 777;
	unsigned i, j, newest = 0;
	uint64_t span;
	int d;

	fx_pool_open(&p, 0);
	commit_seq(&p, 1);
	commit_seq(&p, 2);
	span = p.pvs[0].label.mda.size / 2 + 1024;	/* slot 0 and slot 1's start */
	for (i = 0; i < 2000; i++) {
		char *t;
		size_t len;
		int r;

		for (j = 0; j <= i % 4; j++) {
			x = x * 1103515245u + 12345u;
			d = (x >> 31) & 1;
			at[j] = io_mem_data(p.mem[d]) + VG_MDA_DEFAULT_OFFSET + (x >> 4) % span;
			bit[j] = (unsigned char)(1u << ((x >> 1) & 7));
			*at[j] ^= bit[j];
		}
		tp_log_capture(&cap);
		r = vg_mda_read(p.pvs, 2, &t, &len, NULL);
		tp_log_capture(NULL);
		CU_ASSERT(r == 0 || r == -ENODATA);
		if (!r) {
			CU_ASSERT(!strcmp(t, "text of commit 1\n") || !strcmp(t, "text of commit 2\n"));
			newest += !strcmp(t, "text of commit 2\n");
			free(t);
		}
		while (j--)	/* undo, newest flip first */
			*at[j] ^= bit[j];
	}
	CU_ASSERT(newest > 1000);	/* one damaged copy mostly leaves the newest */
	expect_seq(&p, 2, NULL);	/* all undone */
	fx_pool_close(&p);
}

/* The size of a pool's VG area (tpcreate --vg-area): the mda of a span,
 * the span auto picks on the smallest device, the bounds. */
static void test_area_sizing(void)
{
	const uint64_t MiB = 1024 * 1024;
	uint64_t cap71 = vg_area_span_for(VG_AREA_AUTO_VOLUMES, 0);
	char why[256];

	/* today's pools: 1 MiB, the area from 4 KiB (less the raid1's 512
	 * KiB on a mirror's metadata devices) */
	CU_ASSERT_EQUAL(vg_area_mda_size(MiB, 0), VG_MDA_DEFAULT_SIZE);
	CU_ASSERT_EQUAL(vg_area_mda_size(MiB, 1), VG_MDA_DEFAULT_SIZE - VG_RAID_META_BYTES);
	CU_ASSERT_EQUAL(vg_area_mda_size(64 * 1024, 0), 61440);
	CU_ASSERT_EQUAL(vg_area_mda_size(4096, 0), 0);
	CU_ASSERT_EQUAL(vg_area_mda_size(MiB / 2, 1), 0);
	CU_ASSERT_EQUAL(vg_mda_capacity_of(61440), 30208);
	CU_ASSERT_EQUAL(vg_mda_capacity_of(VG_MDA_DEFAULT_SIZE), VG_MDA_DEFAULT_SIZE / 2 - 512);
	/* 100000 volumes of the largest text and the pool's own, in each slot:
	 * 71 MiB, on a mirror too (its 512 KiB fit the rounding) */
	CU_ASSERT_EQUAL(cap71, 71 * MiB);
	CU_ASSERT_EQUAL(vg_area_span_for(VG_AREA_AUTO_VOLUMES, 1), 71 * MiB);
	CU_ASSERT(vg_mda_capacity_of(vg_area_mda_size(cap71, 0)) >=
		  VG_AREA_POOL_TEXT + (uint64_t)VG_AREA_AUTO_VOLUMES * VG_AREA_VOLUME_TEXT_MAX);
	CU_ASSERT(vg_mda_capacity_of(vg_area_mda_size(cap71, 1)) >=
		  VG_AREA_POOL_TEXT + (uint64_t)VG_AREA_AUTO_VOLUMES * VG_AREA_VOLUME_TEXT_MAX);
	CU_ASSERT(vg_area_volumes(vg_mda_capacity_of(vg_area_mda_size(cap71, 1)),
				  VG_AREA_POOL_TEXT, VG_AREA_VOLUME_TEXT_MAX) >= VG_AREA_AUTO_VOLUMES);
	/* the area below 71 MiB does not hold them */
	CU_ASSERT(vg_mda_capacity_of(vg_area_mda_size(cap71 - MiB, 0)) <
		  VG_AREA_POOL_TEXT + (uint64_t)VG_AREA_AUTO_VOLUMES * VG_AREA_VOLUME_TEXT_MAX);
	/* auto: 1 MiB on devices up to 1 GiB; above, 1/64 of the smallest
	 * device in whole MiB, up to 71 MiB */
	CU_ASSERT_EQUAL(vg_area_span_auto(0, 0), MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(16 * MiB, 0), MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(64 * MiB, 0), MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(127 * MiB, 1), MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(128 * MiB, 0), MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(1024 * MiB, 0), MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(2048 * MiB, 1), 32 * MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(1024 * MiB + 1, 0), 16 * MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(4096 * MiB, 0), 64 * MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(71 * 64 * MiB, 0), 71 * MiB);
	CU_ASSERT_EQUAL(vg_area_span_auto(UINT64_MAX, 1), 71 * MiB);
	/* bounds and alignment, named */
	CU_ASSERT_EQUAL(vg_area_span_valid("--vg-area", 64 * 1024, 0, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(vg_area_span_valid("--vg-area", 1024 * MiB, 1, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(vg_area_span_valid("--vg-area", 32 * 1024, 0, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "--vg-area must be at least 64 KiB"));
	CU_ASSERT_EQUAL(vg_area_span_valid("--vg-area", MiB / 2, 1, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "at least 1 MiB with mirrored"));
	CU_ASSERT_EQUAL(vg_area_span_valid("--vg-area", 1025 * MiB, 0, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "at most 1 GiB"));
	CU_ASSERT_EQUAL(vg_area_span_valid("--vg-area", MiB + 512, 0, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "multiple of 64 KiB"));
}

/* A VG whose text does not fit the smallest device's slot: refused
 * before anything is written, naming the volumes and what to do; the
 * text's size is kept for tpstatus after a commit and a read. */
static void test_vg_commit_wall(void)
{
	struct tp_log_capture cap;
	struct fx_pool p;
	struct vg *vg = fx_vg(), *got;
	uint8_t *before[2];
	uint64_t seqno;
	char name[32];

	fx_pool_open(&p, 0);
	CU_ASSERT_EQUAL_FATAL(vg_commit(p.pvs, 2, vg), 0);
	CU_ASSERT(vg->text_len > 0);
	CU_ASSERT_EQUAL_FATAL(vg_read(p.pvs, 2, &got, NULL), 0);
	CU_ASSERT_EQUAL(got->text_len, vg->text_len);
	vg_free(got);
	/* the data device's area 4 KiB (two slots of 1536 bytes of text) */
	p.pvs[1].label.mda.size = 8192 - VG_MDA_DEFAULT_OFFSET;
	for (unsigned i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "volume-%02u", i);
		fx_vol(vg, name, vg->next_dev_id, NULL);
	}
	for (int d = 0; d < 2; d++) {
		before[d] = malloc(FX_DEV_SIZE);
		memcpy(before[d], io_mem_data(p.mem[d]), FX_DEV_SIZE);
	}
	seqno = vg->seqno;
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_commit(p.pvs, 2, vg), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "does not fit the VG metadata area slot of 1536 bytes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "(43 volumes)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "holds about"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "tpcreate --vg-area"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, p.pvs[1].io->name));
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(vg->seqno, seqno);
	for (int d = 0; d < 2; d++) {
		CU_ASSERT(!memcmp(before[d], io_mem_data(p.mem[d]), FX_DEV_SIZE));
		free(before[d]);
	}
	vg_free(vg);
	fx_pool_close(&p);
}

/* Two different copies with the newest seqno are refused, also when the
 * read holds one text at a time (vg_mda_read wants the newest alone); a
 * copy of the same commit on the other device is the same copy. */
static void test_same_seqno_other_text(void)
{
	struct tp_log_capture cap;
	struct fx_pool p;
	char *t;
	size_t len;

	fx_pool_open(&p, 0);
	commit_seq(&p, 1);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 1, 2, "text A", 6, 0, 0), 0);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs + 1, 1, 2, "text B", 6, 0, 0), 0);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_read(p.pvs, 2, &t, &len, NULL), -EUCLEAN);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "two different VG metadata copies carry seqno 2"));
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs + 1, 1, 3, "text C", 6, 0, 0), 0);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 1, 3, "text C", 6, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(vg_mda_read(p.pvs, 2, &t, &len, NULL), 0);
	CU_ASSERT(len == 6 && !memcmp(t, "text C", 6));
	free(t);
	fx_pool_close(&p);
}

TP_TEST_SUITE(vg_mda, mda_init, NULL,
	      { "two texts under the newest seqno", test_same_seqno_other_text },
	      { "empty area, slot alternation", test_empty_and_alternation },
	      { "a corrupted copy falls back and is repaired", test_corrupt_copy },
	      { "a device's whole area lost", test_device_lost_area },
	      { "a commit beside copies whose text is damaged", test_commit_damaged_text },
	      { "IO_FAULT_DROP at every write index", test_drop_at_every_write },
	      { "torn write at every sector", test_torn_write_every_sector },
	      { "failing writes", test_failing_writes },
	      { "text too large, stale seqno", test_limits },
	      { "a slot of another pool", test_foreign_slot },
	      { "vg_commit / vg_read with fallback, no backup", test_vg_commit_read },
	      { "a check's read imports the older copies too", test_check_imports_older },
	      { "an older copy or another pool's is never the VG now",
		test_older_copy_not_current },
	      { "random damage: an old or new copy, never garbage", test_random_damage },
	      { "the VG area's size: span, auto, bounds", test_area_sizing },
	      { "a VG past the area's slot: refused, nothing written", test_vg_commit_wall })
