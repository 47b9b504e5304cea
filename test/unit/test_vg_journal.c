/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata/vg's change records (VG format 2, mda.h: vg_mda_commit with
 * VG_MDA_JOURNAL): a commit appends a record where a checkpoint would go,
 * the slot that does not hold the newest copy, after that slot's copies,
 * so that each device keeps its newest copy whole as in format 1, and it
 * leaves the checkpoints as they were; the record limit and a delta past its
 * bound give a checkpoint in the other slot; records of an earlier
 * checkpoint never chain; a torn record at every 64 bytes, a lost write at
 * every index, damaged and foreign records: the read gives the old or the
 * new commit, never an error or garbage, and the next commit goes on; a
 * device that missed commits gets its record; the first journal commit
 * beside copies of format 1 leaves none of them. */
#include "lib/base/crc32c.h"
#include "lib/base/le.h"
#include "test/unit/test_vg_fixture.h"

#include <errno.h>
#include <stdlib.h>

/* The text of commit SEQNO: a header line, then 20 + SEQNO entry lines
 * (each commit adds one at the end, as tvcreate does). */
/* A text for SEQNO with BASE + SEQNO volumes (BASE 3,000: about 100 KB,
 * large beside the sectors of headers and records). */
static char *jtext_of(uint64_t seqno, uint64_t base, size_t *len)
{
	size_t cap = 64 + (base + seqno) * 48, n;
	char *t = malloc(cap);

	CU_ASSERT_FATAL(t != NULL);
	n = (size_t)snprintf(t, cap, "pool {\n\tseqno=%llu\n\tvolumes {\n",
			     (unsigned long long)seqno);
	for (uint64_t i = 0; i < base + seqno; i++)
		n += (size_t)snprintf(t + n, cap - n, "\t\tvolume-%04llu { dev_id=%llu }\n",
				      (unsigned long long)i, (unsigned long long)i);
	n += (size_t)snprintf(t + n, cap - n, "\t}\n}\n");
	*len = n;
	return t;
}

static char *jtext(uint64_t seqno, size_t *len)
{
	return jtext_of(seqno, 20, len);
}

static int jcommit_keep(struct fx_pool *p, unsigned n, uint64_t seqno, uint64_t keep)
{
	size_t len;
	char *t = jtext(seqno, &len);
	int r = vg_mda_commit(p->pvs, n, seqno, t, len, keep, VG_MDA_JOURNAL);

	free(t);
	return r;
}

static void jcommit(struct fx_pool *p, uint64_t seqno)
{
	CU_ASSERT_EQUAL(jcommit_keep(p, 2, seqno, 0), 0);
}

static void jexpect(struct fx_pool *p, uint64_t seqno, struct vg_mda_status *st)
{
	size_t len, wlen;
	char *t, *want = jtext(seqno, &wlen);

	CU_ASSERT_EQUAL_FATAL(vg_mda_read(p->pvs, 2, &t, &len, st), 0);
	CU_ASSERT_EQUAL(len, wlen);
	CU_ASSERT(len == wlen && !memcmp(t, want, len));
	free(t);
	free(want);
}

static uint64_t slot_off(struct fx_pool *p, unsigned k)
{
	return p->pvs[0].label.mda.offset + k * ((p->pvs[0].label.mda.size / 2) & ~511ull);
}

static uint32_t slot_flags(struct fx_pool *p, int d, unsigned k)
{
	return le32_get(io_mem_data(p->mem[d]) + slot_off(p, k) + 64);
}

/* Checkpoints of commits 1 and 2 (the second slot was blank), then
 * records into the slots in turn: each device keeps the commit before in
 * its other slot; the checkpoints' bytes stay as they were; each read
 * gives the newest commit. */
static void test_records_append(void)
{
	struct vg_mda_status st;
	struct fx_pool p;
	unsigned char *ck[2][2];

	fx_pool_open(&p, 0);
	jcommit(&p, 1);
	jcommit(&p, 2);
	for (int d = 0; d < 2; d++)
		for (unsigned k = 0; k < 2; k++) {
			CU_ASSERT_EQUAL(slot_flags(&p, d, k), VG_MDA_FLAG_JOURNAL);
			ck[d][k] = malloc(1536);
			memcpy(ck[d][k], io_mem_data(p.mem[d]) + slot_off(&p, k), 1536);
		}
	for (uint64_t s = 3; s <= 14; s++) {
		jcommit(&p, s);
		jexpect(&p, s, &st);
		CU_ASSERT_EQUAL(st.needs_repair, 0);
		for (int d = 0; d < 2; d++) {
			CU_ASSERT_EQUAL(st.slot[d][s % 2 ? 0 : 1].seqno, s);
			CU_ASSERT_EQUAL(st.slot[d][s % 2 ? 0 : 1].records, (s - 1) / 2);
			CU_ASSERT_EQUAL(st.slot[d][s % 2 ? 1 : 0].seqno, s - 1);
			/* header and text of each checkpoint (1,5 KiB) untouched */
			for (unsigned k = 0; k < 2; k++)
				CU_ASSERT(!memcmp(ck[d][k], io_mem_data(p.mem[d]) + slot_off(&p, k),
						  1536));
		}
	}
	for (int d = 0; d < 2; d++)
		for (unsigned k = 0; k < 2; k++)
			free(ck[d][k]);
	fx_pool_close(&p);
}

/* A slot with VG_MDA_REC_MAX records takes a checkpoint next, over its
 * records (shorter than they were: those never chain again), and so on
 * over several rounds. Every read gives the newest commit. */
static void test_record_limit_and_stale(void)
{
	struct vg_mda_status st;
	struct fx_pool p;
	uint64_t last = 6 * (VG_MDA_REC_MAX + 1) + 5;
	unsigned had[2] = { 0, 0 }, checkpoints = 0;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= last; s++) {
		unsigned k = s % 2 ? 0 : 1;

		jcommit(&p, s);
		jexpect(&p, s, &st);
		CU_ASSERT_EQUAL(st.needs_repair, 0);
		CU_ASSERT_EQUAL(st.slot[0][k].seqno, s);
		/* a record after the ones there, or a checkpoint once full */
		if (s > 2 && had[k] < VG_MDA_REC_MAX)
			CU_ASSERT_EQUAL(st.slot[0][k].records, had[k] + 1);
		if (!st.slot[0][k].records)
			checkpoints++;
		had[k] = st.slot[0][k].records;
	}
	CU_ASSERT(checkpoints >= 6);
	fx_pool_close(&p);
}

/* A record commit torn at every 64 bytes on the first device and, with
 * the first complete, on the second: old or new, and the next commit. */
static void test_torn_record(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	unsigned char *before[2], *after[2];
	uint64_t lo = UINT64_MAX, hi = 0, size = FX_DEV_SIZE;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 5; s++)
		jcommit(&p, s);
	for (int d = 0; d < 2; d++) {
		before[d] = malloc(size);
		memcpy(before[d], io_mem_data(p.mem[d]), size);
	}
	jcommit(&p, 6);
	for (int d = 0; d < 2; d++) {
		after[d] = malloc(size);
		memcpy(after[d], io_mem_data(p.mem[d]), size);
		for (uint64_t i = 0; i < size; i++)
			if (before[d][i] != after[d][i]) {
				lo = i < lo ? i : lo;
				hi = i + 1 > hi ? i + 1 : hi;
			}
	}
	CU_ASSERT_FATAL(lo < hi);
	CU_ASSERT(lo > slot_off(&p, 0) + 512);	/* after the checkpoint */
	CU_ASSERT(hi - lo < 4096);		/* a record, not a text */
	lo &= ~511ull;
	tp_log_capture(&cap);
	for (int d = 0; d < 2; d++) {
		for (uint64_t cut = lo; cut <= ((hi + 511) & ~511ull); cut += 64) {
			for (int e = 0; e < 2; e++)
				memcpy(io_mem_data(p.mem[e]), e < d ? after[e] : before[e], size);
			memcpy(io_mem_data(p.mem[d]) + lo, after[d] + lo, cut - lo);
			jexpect(&p, d == 0 && cut < hi ? 5 : 6, &st);
			/* the next commit over whatever the cut left */
			CU_ASSERT_EQUAL(jcommit_keep(&p, 2, 7, 0), 0);
			jexpect(&p, 7, &st);
			CU_ASSERT_EQUAL(st.needs_repair, 0);
		}
	}
	tp_log_capture(NULL);
	for (int d = 0; d < 2; d++) {
		free(before[d]);
		free(after[d]);
	}
	fx_pool_close(&p);
}

/* IO_FAULT_DROP from every write index on, over both devices in commit
 * order (a power cut), of a record commit (and of the journal's first
 * commit beside copies of format 1): the new commit once the first device
 * has its first write (a record is one; the first journal commit writes
 * its checkpoint before the copy of format 1 goes), the old never lost
 * where the new was not written, and the next commit repairs all. */
static void journal_history(struct fx_pool *p, int upgrade)
{
	size_t len;
	char *t;

	fx_pool_open(p, 1);
	for (uint64_t s = 1; s <= 2; s++) {
		t = jtext(s, &len);
		CU_ASSERT_EQUAL(vg_mda_commit(p->pvs, 2, s, t, len, 0, upgrade ? 0 : VG_MDA_JOURNAL),
				0);
		free(t);
	}
}

static void drop_every_write(int upgrade)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	uint64_t writes[2], base[2], total;
	struct fx_pool p;

	journal_history(&p, upgrade);
	for (int d = 0; d < 2; d++)
		base[d] = io_fault_writes(p.pvs[d].io);
	jcommit(&p, 3);
	for (int d = 0; d < 2; d++)
		writes[d] = io_fault_writes(p.pvs[d].io) - base[d];
	fx_pool_close(&p);
	CU_ASSERT_EQUAL(writes[0], upgrade ? 2 : 1);
	total = writes[0] + writes[1];
	for (uint64_t n = 0; n <= total; n++) {
		journal_history(&p, upgrade);
		for (int d = 0; d < 2; d++) {
			uint64_t before = d ? writes[0] : 0;
			uint64_t from = n > before ? n - before : 0;

			base[d] = io_fault_writes(p.pvs[d].io);
			if (from < writes[d])
				io_fault_set(p.pvs[d].io, IO_FAULT_DROP, base[d] + from);
		}
		jcommit(&p, 3);	/* dropped writes report success */
		for (int d = 0; d < 2; d++)
			io_fault_set(p.pvs[d].io, IO_FAULT_NONE, 0);
		tp_log_capture(&cap);
		jexpect(&p, n >= 1 ? 3 : 2, &st);
		CU_ASSERT_EQUAL(st.needs_repair, n > 0 && n < total);
		for (int d = 0; d < 2; d++)
			CU_ASSERT(st.slot[d][0].seqno >= 2 || st.slot[d][1].seqno >= 2);
		tp_log_capture(NULL);
		jcommit(&p, 4);
		jexpect(&p, 4, &st);
		CU_ASSERT_EQUAL(st.needs_repair, 0);
		/* journal commits on every device: no slot without the flag */
		for (int d = 0; d < 2; d++)
			for (unsigned k = 0; k < VG_MDA_SLOTS; k++)
				CU_ASSERT(st.slot[d][k].state != VG_SLOT_VALID ||
					  slot_flags(&p, d, k) == VG_MDA_FLAG_JOURNAL);
		fx_pool_close(&p);
	}
}

static void test_drop_every_write(void)
{
	drop_every_write(0);
}

/* The first journal commit beside copies of format 1: the checkpoint in
 * both slots of each device (an older tptools would fall back to the
 * other one), then records. */
static void test_first_journal_commit(void)
{
	struct vg_mda_status st;
	struct fx_pool p;
	size_t len;
	char *t;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 2; s++) {
		t = jtext(s, &len);
		CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, s, t, len, 0, 0), 0);
		free(t);
	}
	CU_ASSERT_EQUAL(slot_flags(&p, 0, 0), 0);
	jcommit(&p, 3);
	jexpect(&p, 3, &st);
	for (int d = 0; d < 2; d++)
		for (unsigned k = 0; k < VG_MDA_SLOTS; k++) {
			CU_ASSERT_EQUAL(st.slot[d][k].seqno, 3);
			CU_ASSERT_EQUAL(slot_flags(&p, d, k), VG_MDA_FLAG_JOURNAL);
		}
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	jcommit(&p, 4);
	jexpect(&p, 4, &st);
	for (int d = 0; d < 2; d++) {	/* a record after one of them */
		CU_ASSERT_EQUAL(st.slot[d][0].seqno + st.slot[d][1].seqno, 7);
	}
	/* written in format 1 again: a checkpoint without the flag beside
	 * the journal's, nothing to repair, and format 2 again after it */
	t = jtext(5, &len);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 5, t, len, 4, 0), 0);
	free(t);
	jexpect(&p, 5, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	for (int d = 0; d < 2; d++)
		CU_ASSERT_EQUAL(slot_flags(&p, d, st.slot[d][0].seqno == 5 ? 0 : 1), 0);
	jcommit(&p, 6);
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	for (int d = 0; d < 2; d++)
		for (unsigned k = 0; k < VG_MDA_SLOTS; k++) {
			CU_ASSERT_EQUAL(st.slot[d][k].seqno, 6);
			CU_ASSERT_EQUAL(slot_flags(&p, d, k), VG_MDA_FLAG_JOURNAL);
		}
	fx_pool_close(&p);
	drop_every_write(1);
}

/* A device that missed commits: a record after its newest copy too. */
static void test_lagging_device(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 3; s++)
		jcommit(&p, s);
	CU_ASSERT_EQUAL(jcommit_keep(&p, 1, 4, 0), 0);	/* the meta device alone */
	tp_log_capture(&cap);
	jexpect(&p, 4, &st);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "stale"));
	jcommit(&p, 5);
	jexpect(&p, 5, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	/* the meta device: 4 then 5 in turn; the data device, which had 3
	 * and 2: 5 after 2's checkpoint, its delta from there */
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 5);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 4);
	CU_ASSERT_EQUAL(st.slot[1][0].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[1][1].seqno, 5);
	CU_ASSERT_EQUAL(st.slot[1][1].records, 1);
	fx_pool_close(&p);
}

/* The byte offset of record I (1: the first) after slot K's checkpoint. */
static uint64_t record_off(struct fx_pool *p, int d, unsigned k, unsigned i)
{
	const uint8_t *m = io_mem_data(p->mem[d]);
	uint64_t off = slot_off(p, k) + 512 + ((le64_get(m + slot_off(p, k) + 48) + 511) & ~511ull);

	while (--i)
		off += (VG_MDA_REC_HEADER + le32_get(m + off + 60) + 511) & ~511ull;
	return off;
}

/* Damaged records (slot 0: checkpoint 1, records 3 and 5; slot 1:
 * checkpoint 2, records 4 and 6): the newest on one device (the other has
 * it), on both (the other slot's newest, as in format 1), a header in the
 * middle of a chain (it ends there); the next commit goes after the last
 * good one. */
static void test_damaged_records(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 6; s++)
		jcommit(&p, s);
	tp_log_capture(&cap);
	io_mem_data(p.mem[0])[record_off(&p, 0, 1, 2) + VG_MDA_REC_HEADER + 3] ^= 0x20;
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 4);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	io_mem_data(p.mem[1])[record_off(&p, 1, 1, 2) + VG_MDA_REC_HEADER + 3] ^= 0x20;
	jexpect(&p, 5, &st);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "change record of seqno 6 is corrupt"));
	jcommit(&p, 7);	/* into slot 1, over the damaged 6 */
	jexpect(&p, 7, &st);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 7);
	CU_ASSERT_EQUAL(st.slot[0][1].records, 2);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	/* a header in the middle: slot 1's chain ends before record 4 */
	tp_log_capture(&cap);
	for (int d = 0; d < 2; d++)
		io_mem_data(p.mem[d])[record_off(&p, d, 1, 1) + 44] ^= 0x01;	/* its seqno */
	jexpect(&p, 5, &st);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 2);
	tp_log_capture(NULL);
	/* (a record that names this checkpoint and does not chain: damaged,
	 * said, and the copy to be rewritten) */
	CU_ASSERT_EQUAL(st.slot[0][1].damaged_off, record_off(&p, 0, 1, 1));
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "is damaged"));
	jcommit(&p, 8);	/* into slot 1 again, after its checkpoint */
	jexpect(&p, 8, &st);
	CU_ASSERT_EQUAL(st.slot[0][1].records, 1);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	fx_pool_close(&p);
}

/* Record I of slot K on device D with its result's crc (TEXT_CRC) or
 * its seqno (SEQNO) rewritten, the header's checksum made right again:
 * its header and delta check out, what it makes does not. */
static void forge_record(struct fx_pool *p, int d, unsigned k, unsigned i, unsigned field,
			 uint64_t value)
{
	uint8_t *h = io_mem_data(p->mem[d]) + record_off(p, d, k, i);

	if (field == 72)
		le32_put(h + 72, (uint32_t)value);
	else
		le64_put(h + field, value);
	le32_put(h, tp_block_csum(h, VG_MDA_REC_HEADER, VG_MDA_REC_SALT));
}

/* A read for a check (VG_MDA_READ_WHOLE) applies the newest record of
 * every slot, not only of the one that holds the newest copy (the trial
 * of issue 40: tpcheck said nothing of the older slot's): slot 0 holds
 * checkpoint 1 and records 3 and 5, slot 1 the newest, 6; record 5 of
 * device 0 makes a text of another crc than its header says. The check's
 * read names it and falls back to 3 in that slot; the newest copy is
 * still 6. A record stored under another seqno than its text's: the
 * slot reads as that seqno, the copy vg_read refuses. */
static void test_whole_read_older_slot(void)
{
	struct vg_mda_copy copy;
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	size_t len;
	char *want;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 6; s++)
		jcommit(&p, s);
	forge_record(&p, 0, 0, 2, 72, 0x1234);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL_FATAL(vg_mda_read_copies_flags(p.pvs, 2, &copy, 1, VG_MDA_READ_WHOLE,
						       &st), 1);
	tp_log_capture(NULL);
	want = jtext(6, &len);
	CU_ASSERT(copy.seqno == 6 && copy.len == len && !memcmp(copy.text, want, len));
	free(want);
	vg_mda_free_copies(&copy, 1);
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[0][0].damaged_off, record_off(&p, 0, 0, 2));
	CU_ASSERT_EQUAL(st.slot[1][0].seqno, 5);
	CU_ASSERT_EQUAL(st.slot[1][0].damaged_off, 0);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "VG metadata slot 0: change record of seqno 5 is "
					       "corrupt (its text's checksum does not match)"));
	/* the next commit (into slot 0, after record 3) puts it right */
	jcommit(&p, 7);
	CU_ASSERT_EQUAL_FATAL(vg_mda_read_copies_flags(p.pvs, 2, &copy, 1, VG_MDA_READ_WHOLE,
						       &st), 1);
	vg_mda_free_copies(&copy, 1);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 7);
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 6);
	CU_ASSERT_EQUAL(st.slot[0][0].damaged_off, 0);
	/* record 6 of slot 1 on both devices stored under seqno 100 */
	for (int d = 0; d < 2; d++)
		forge_record(&p, d, 1, 2, 40, 100);
	CU_ASSERT_EQUAL_FATAL(vg_mda_read_copies_flags(p.pvs, 2, &copy, 1, VG_MDA_READ_WHOLE,
						       &st), 1);
	want = jtext(6, &len);
	CU_ASSERT(copy.seqno == 100 && copy.len == len && !memcmp(copy.text, want, len));
	free(want);
	vg_mda_free_copies(&copy, 1);
	fx_pool_close(&p);
}

/* A seqno taken again (the trial of issue 40): records 5 and 6 damaged
 * in their headers on both devices, the pool reads as 4 and says so; a
 * commit of 5 goes where the old 5 was, and the old 7 after it (the same
 * checkpoint, a greater seqno) must not chain after the new 5: a record
 * leaves a sector of zeros after it. */
static void test_seqno_again(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 7; s++)
		jcommit(&p, s);
	tp_log_capture(&cap);
	for (int d = 0; d < 2; d++) {
		io_mem_data(p.mem[d])[record_off(&p, d, 0, 2) + 20] ^= 0x01;	/* 5 */
		io_mem_data(p.mem[d])[record_off(&p, d, 1, 2) + 20] ^= 0x01;	/* 6 */
	}
	jexpect(&p, 4, &st);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	for (int d = 0; d < 2; d++) {
		CU_ASSERT_EQUAL(st.slot[d][0].damaged_off, record_off(&p, d, 0, 2));
		CU_ASSERT_EQUAL(st.slot[d][1].damaged_off, record_off(&p, d, 1, 2));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "is damaged"));
	jcommit(&p, 5);
	jexpect(&p, 5, &st);
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 5);
	CU_ASSERT_EQUAL(st.slot[0][0].damaged_off, 0);
	jcommit(&p, 6);
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	fx_pool_close(&p);
}

/* Another pool's record (its uuid) in this pool's place never chains. */
static void test_foreign_record(void)
{
	struct vg_mda_status st;
	struct fx_pool a, b;
	uint64_t off;

	fx_pool_open(&a, 0);
	fx_pool_open(&b, 0);
	for (int d = 0; d < 2; d++)
		strcpy(b.pvs[d].label.pool_uuid, "00000000-2222-4333-8444-555555555555");
	for (uint64_t s = 1; s <= 2; s++) {
		jcommit(&a, s);
		jcommit(&b, s);
	}
	jcommit(&b, 3);
	off = record_off(&b, 0, 0, 1);
	for (int d = 0; d < 2; d++)
		memcpy(io_mem_data(a.mem[d]) + off, io_mem_data(b.mem[d]) + off, 4096);
	jexpect(&a, 2, &st);
	jcommit(&a, 3);
	jexpect(&a, 3, &st);
	fx_pool_close(&a);
	fx_pool_close(&b);
}

/* The version field (offset 12) of the header at OFF on device D (HEAD
 * bytes, SALT) set to V, its checksum made right again. */
static void set_version(struct fx_pool *p, int d, uint64_t off, unsigned head, uint32_t salt,
			uint32_t v)
{
	uint8_t *h = io_mem_data(p->mem[d]) + off;

	le32_put(h + 12, v);
	le32_put(h, tp_block_csum(h, head, salt));
}

/* A slot header or a change record whose version is above this tptools'
 * (everything else of it right) is a newer tptools' write: the read and
 * the commit refuse the area (-EPROTONOSUPPORT, the slot NEWER in the
 * status), never fall back past it nor write over it. A bad checksum
 * stays damage; a version below this one's too. Slot 0: checkpoint 1,
 * records 3 and 5; slot 1: checkpoint 2, records 4 and 6. */
static void test_newer_versions(void)
{
	struct tp_log_capture cap;
	struct vg_mda_status st;
	struct fx_pool p;
	uint8_t *before[2];
	size_t len, area;
	uint64_t rec;
	char *t;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 6; s++)
		jcommit(&p, s);
	area = (size_t)(p.pvs[0].label.mda.offset + p.pvs[0].label.mda.size);
	rec = record_off(&p, 0, 1, 2);
	for (int d = 0; d < 2; d++)
		set_version(&p, d, rec, VG_MDA_REC_HEADER, VG_MDA_REC_SALT, 2);
	for (int d = 0; d < 2; d++) {
		before[d] = malloc(area);
		CU_ASSERT_FATAL(before[d] != NULL);
		memcpy(before[d], io_mem_data(p.mem[d]), area);
	}
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_read(p.pvs, 2, &t, &len, &st), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(st.slot[0][1].state, VG_SLOT_NEWER);
	CU_ASSERT_EQUAL(st.slot[0][1].newer_version, 2);
	CU_ASSERT_EQUAL(st.slot[0][1].newer_off, rec);
	CU_ASSERT_EQUAL(st.slot[0][0].state, VG_SLOT_VALID);
	CU_ASSERT_EQUAL(jcommit_keep(&p, 2, 7, 0), -EPROTONOSUPPORT);
	tp_log_capture(NULL);
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "damaged"));
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "corrupt"));
	for (int d = 0; d < 2; d++)
		CU_ASSERT(!memcmp(before[d], io_mem_data(p.mem[d]), area));
	/* the same record with a bad checksum: damage, the seqno before */
	tp_log_capture(&cap);
	for (int d = 0; d < 2; d++)
		io_mem_data(p.mem[d])[rec + 40] ^= 0x01;
	jexpect(&p, 5, &st);
	tp_log_capture(NULL);
	CU_ASSERT_EQUAL(st.slot[0][1].state, VG_SLOT_VALID);
	CU_ASSERT_EQUAL(st.slot[0][1].damaged_off, rec);
	for (int d = 0; d < 2; d++)
		memcpy(io_mem_data(p.mem[d]), before[d], area);
	for (int d = 0; d < 2; d++)
		set_version(&p, d, rec, VG_MDA_REC_HEADER, VG_MDA_REC_SALT, 1);
	jexpect(&p, 6, &st);
	/* slot 0's header, on the metadata device alone: the same */
	set_version(&p, 1, slot_off(&p, 0), VG_MDA_SLOT_HEADER, VG_MDA_CSUM_SALT, 7);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(vg_mda_read(p.pvs, 2, &t, &len, &st), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(st.slot[1][0].state, VG_SLOT_NEWER);
	CU_ASSERT_EQUAL(st.slot[1][0].newer_version, 7);
	CU_ASSERT_EQUAL(st.slot[1][0].newer_off, 0);
	CU_ASSERT_EQUAL(jcommit_keep(&p, 2, 7, 0), -EPROTONOSUPPORT);
	tp_log_capture(NULL);
	/* a version below this one's, or a bad checksum: damage */
	set_version(&p, 1, slot_off(&p, 0), VG_MDA_SLOT_HEADER, VG_MDA_CSUM_SALT, 0);
	tp_log_capture(&cap);
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.slot[1][0].state, VG_SLOT_CORRUPT);
	set_version(&p, 1, slot_off(&p, 0), VG_MDA_SLOT_HEADER, VG_MDA_CSUM_SALT, 2);
	io_mem_data(p.mem[1])[slot_off(&p, 0) + 100] ^= 0x01;
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.slot[1][0].state, VG_SLOT_CORRUPT);
	tp_log_capture(NULL);
	for (int d = 0; d < 2; d++)
		free(before[d]);
	fx_pool_close(&p);
}

/* A change whose delta is past the bound: a checkpoint. */
static void test_large_change_checkpoint(void)
{
	struct vg_mda_status st;
	struct fx_pool p;
	size_t len = 300000;
	char *big = malloc(len), *t;

	fx_pool_open(&p, 0);
	jcommit(&p, 1);
	jcommit(&p, 2);
	for (size_t i = 0; i < len; i++)
		big[i] = (char)('a' + (i * 7919) % 26);
	CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, 3, big, len, 0, VG_MDA_JOURNAL), 0);
	CU_ASSERT_EQUAL_FATAL(vg_mda_read(p.pvs, 2, &t, &len, &st), 0);
	CU_ASSERT(len == 300000 && !memcmp(t, big, len));
	free(t);
	CU_ASSERT_EQUAL(st.slot[0][0].seqno, 3);
	CU_ASSERT_EQUAL(st.slot[0][0].records, 0);	/* a checkpoint */
	CU_ASSERT_EQUAL(st.slot[0][1].seqno, 2);
	free(big);
	fx_pool_close(&p);
}

/* The memo of slots checked (mda.h: vg_mda_memo_begin/end). Inside it a
 * second read gives the same copy without reading again a slot whose
 * header and record sectors are unchanged (seen: a damaged text of the
 * copy it does not return goes unnoticed there, and is noticed outside);
 * the copy it returns is read and checked whole each time (a damaged one
 * is refused, the other device's taken); a commit inside it is read back;
 * and the memo's end forgets all. */
static void test_memo(void)
{
	struct vg_mda_status st;
	struct fx_pool p;
	unsigned char *t1;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 6; s++)
		jcommit(&p, s);
	vg_mda_memo_begin();
	jexpect(&p, 6, &st);	/* every slot read whole, into the memo */
	CU_ASSERT_EQUAL(st.slot[1][1].state, VG_SLOT_VALID);
	/* the second device's newest checkpoint damaged in its text only */
	t1 = io_mem_data(p.mem[1]) + slot_off(&p, 1) + 512 + 10;
	*t1 ^= 0x55;
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.slot[1][1].state, VG_SLOT_VALID);	/* the memo's */
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	/* (put right) the first device's, the copy a read returns: read
	 * whole, refused; the second device's, read whole, taken */
	*t1 ^= 0x55;
	*(io_mem_data(p.mem[0]) + slot_off(&p, 1) + 512 + 10) ^= 0x55;
	jexpect(&p, 6, &st);
	CU_ASSERT_EQUAL(st.slot[0][1].state, VG_SLOT_CORRUPT);
	CU_ASSERT_EQUAL(st.slot[1][1].state, VG_SLOT_VALID);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	*(io_mem_data(p.mem[0]) + slot_off(&p, 1) + 512 + 10) ^= 0x55;
	/* a commit inside the memo: read back */
	jcommit(&p, 7);
	jexpect(&p, 7, &st);
	CU_ASSERT_EQUAL(st.needs_repair, 0);
	vg_mda_memo_begin();	/* nested: the inner end keeps it */
	vg_mda_memo_end();
	*(io_mem_data(p.mem[1]) + slot_off(&p, 1) + 512 + 10) ^= 0x55;
	jexpect(&p, 7, &st);
	CU_ASSERT_EQUAL(st.slot[1][1].state, VG_SLOT_VALID);
	vg_mda_memo_end();
	/* outside it every slot is read whole again: the damage is seen */
	jexpect(&p, 7, &st);
	CU_ASSERT_EQUAL(st.slot[1][1].state, VG_SLOT_CORRUPT);
	CU_ASSERT_EQUAL(st.needs_repair, 1);
	fx_pool_close(&p);
}

/* A commit reads the checkpoint its record is made from once: the second
 * device's, the same by seqno, length and crc, takes the first one's
 * delta unread. Damaged inside the memo after the read that checked it,
 * the record written there does not read back: that device reads as
 * the seqno before, stale, and the first device gives the commit. Outside
 * the memo the commit's scan reads it whole, refuses it and writes a
 * checkpoint there instead: both devices give the commit. */
static void test_commit_reads_checkpoint_once(void)
{
	for (int memo = 1; memo >= 0; memo--) {
		struct vg_mda_status st;
		struct fx_pool p;
		unsigned t;

		fx_pool_open(&p, 0);
		for (uint64_t s = 1; s <= 6; s++)
			jcommit(&p, s);
		if (memo)
			vg_mda_memo_begin();
		jexpect(&p, 6, &st);
		/* the target of commit 7: the slot without seqno 6 */
		t = st.slot[1][0].seqno == 6 ? 1 : 0;
		CU_ASSERT(st.slot[1][t].journal && st.slot[1][t].seqno < 6);
		*(io_mem_data(p.mem[1]) + slot_off(&p, t) + 512 + 10) ^= 0x55;
		jcommit(&p, 7);
		if (memo)
			vg_mda_memo_end();
		jexpect(&p, 7, &st);
		CU_ASSERT_EQUAL(st.slot[0][t].seqno, 7);
		if (memo) {
			CU_ASSERT_EQUAL(st.slot[1][t].state, VG_SLOT_CORRUPT);
			CU_ASSERT_EQUAL(st.slot[1][1 - t].seqno, 6);
			CU_ASSERT_EQUAL(st.needs_repair, 1);
			/* the next commit mends it */
			jcommit(&p, 8);
			jexpect(&p, 8, &st);
			CU_ASSERT_EQUAL(st.needs_repair, 0);
		} else {
			CU_ASSERT_EQUAL(st.slot[1][t].state, VG_SLOT_VALID);
			CU_ASSERT_EQUAL(st.slot[1][t].seqno, 7);
			CU_ASSERT_EQUAL(st.slot[1][t].records, 0);
			CU_ASSERT_EQUAL(st.needs_repair, 0);
		}
		fx_pool_close(&p);
	}
}

/* A read outside the memo reads each slot's text once: the slot whose
 * records claim the newest seqno has its record applied as it is read,
 * not read again for the copy it returns (2.2 MB more a device at 20,000
 * volumes). Each device's two slots, whichever holds the newest, with
 * records or without. */
static void test_read_each_text_once(void)
{
	struct fx_pool p;

	fx_pool_open(&p, 0);
	for (uint64_t s = 1; s <= 9; s++) {
		uint64_t before[2];
		size_t len, got_len;
		char *t = jtext_of(s, 3000, &len), *got;

		CU_ASSERT_EQUAL(vg_mda_commit(p.pvs, 2, s, t, len, 0, VG_MDA_JOURNAL), 0);
		for (int d = 0; d < 2; d++)
			before[d] = io_mem_read_bytes(p.mem[d]);
		CU_ASSERT_EQUAL_FATAL(vg_mda_read(p.pvs, 2, &got, &got_len, NULL), 0);
		CU_ASSERT(got_len == len && !memcmp(got, t, len));
		for (int d = 0; d < 2 && s >= 2; d++) {
			uint64_t n = io_mem_read_bytes(p.mem[d]) - before[d];

			/* its two checkpoints (about a text each), headers and
			 * records' sectors: not a third text */
			CU_ASSERT(n < 2 * (uint64_t)len + len / 2);
			if (n >= 2 * (uint64_t)len + len / 2)
				fprintf(stderr, "seqno %llu, device %d: %llu bytes read, texts of "
					"%zu\n", (unsigned long long)s, d, (unsigned long long)n, len);
		}
		free(got);
		free(t);
	}
	fx_pool_close(&p);
}

TP_TEST_SUITE(vg_journal, NULL, NULL,
	      { "a read reads each slot's text once", test_read_each_text_once },
	      { "a commit reads its checkpoint once", test_commit_reads_checkpoint_once },
	      { "the memo of slots checked", test_memo },
	      { "records after the checkpoint, which stays", test_records_append },
	      { "the record limit, stale records never chain", test_record_limit_and_stale },
	      { "a record torn at every 64 bytes", test_torn_record },
	      { "IO_FAULT_DROP at every write of a record commit", test_drop_every_write },
	      { "the first journal commit beside format 1 copies", test_first_journal_commit },
	      { "a device that missed commits", test_lagging_device },
	      { "damaged records: the newest good one", test_damaged_records },
	      { "a seqno taken again after damaged records", test_seqno_again },
	      { "a check's read applies the older slot's record", test_whole_read_older_slot },
	      { "another pool's record never chains", test_foreign_record },
	      { "a newer slot or record version: refused, never damage", test_newer_versions },
	      { "a change past the delta's bound: a checkpoint", test_large_change_checkpoint })
