/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mda.c - the VG metadata area: two text slots per device. See mda.h.
 *
 * Area geometry: slot size S = (mda.size / 2) rounded down to 512 bytes;
 * slot k starts at mda.offset + k * S. A slot is a 512-byte header and
 * then the text (padded with zeros to a multiple of 512 when written).
 *
 * Slot header (little-endian):
 *
 *   off size field
 *     0    4 csum        crc32c of header bytes 4..511 xor VG_MDA_CSUM_SALT
 *     4    8 magic       "TPVGMDA\x01"
 *    12    4 version     1
 *    16    8 offset      the slot's own byte offset on the device
 *    24   16 pool_uuid   must match the device label's pool uuid
 *    40    8 seqno       commit number, >= 1, grows by one per commit; 0 with
 *                        text_len 0: formatted, never written (a blank slot)
 *    48    8 text_len    bytes of text, <= S - 512
 *    56    4 text_crc    standard CRC-32C of the text
 *    60    4 slot        slot index (0 or 1)
 *    64    4 flags       bit 0 (VG_MDA_FLAG_JOURNAL): change records may
 *                        follow the text (a pool of VG format 2); written
 *                        0 before, and ignored by the readers before it
 *    68  444 reserved    0
 *
 * Change records (a slot with the journal flag): from the first sector
 * after the text, each record is a header and a delta (metadata/vg/
 * vg_delta.h) from the slot's text (its checkpoint) to the whole VG text
 * after one commit, padded with zeros to a sector; the next record starts
 * at the sector after it. Deltas are cumulative (each from the
 * checkpoint), so a reader applies one: the newest record that checks
 * out. Record header (little-endian):
 *
 *   off size field
 *     0    4 csum        crc32c of header bytes 4..95 xor VG_MDA_REC_SALT
 *     4    8 magic       "TPVGREC\x01"
 *    12    4 version     1
 *    16    8 offset      the record's own byte offset on the device
 *    24   16 pool_uuid   the slot's
 *    40    8 seqno       the VG seqno the record makes: greater than the
 *                        checkpoint's and than every record's before it
 *    48    8 base_seqno  the checkpoint's seqno
 *    56    4 base_crc    the checkpoint's text_crc
 *    60    4 delta_len   bytes of delta after the header, >= 1
 *    64    8 text_len    bytes of the text the delta makes
 *    72    4 text_crc    standard CRC-32C of that text
 *    76    4 delta_crc   standard CRC-32C of the delta
 *    80    4 slot        slot index
 *    84   12 reserved    0
 *
 * A record chains to its slot when its magic, header crc, version,
 * offset, slot, pool uuid and base (seqno and crc) are right and its seqno
 * is greater than the one before: records of an earlier checkpoint in the
 * same place never chain. The chain ends at the first sector that does
 * not chain. A record is written with a sector of zeros after it (room
 * allowing): after a damaged record a commit takes its seqno again, in
 * its place, and an old record of the same checkpoint further on must not
 * chain after it (test_vg_journal, "a seqno taken again"). The newest
 * chained record whose delta's crc is right and whose result has the
 * recorded length and crc gives the slot's copy; a record after it, and a
 * sector ending the chain with the record magic and a bad header crc or
 * this checkpoint named (rec_damaged), was torn or damaged: said, in the
 * status (damaged_off), and the next commit writes over it.
 *
 * The version fields are what a newer tptools raises for a slot or a
 * record this one cannot read. A header whose checksum, place and pool
 * are right and whose version is above VG_MDA_VERSION, or a record where
 * a chain ends that is right in all rec_damaged looks at but its version,
 * above VG_MDA_REC_VERSION, is that tptools' write: the slot is
 * VG_SLOT_NEWER and a read or a commit of the area refuses it
 * (-EPROTONOSUPPORT), as vg_import refuses a text of a newer format;
 * falling back past it, the next commit would write over what that
 * tptools did. A bad checksum stays damage.
 */
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"
#include "metadata/vg/vg_delta.h"

#include "lib/base/compiler.h"
#include "lib/base/crc32c.h"
#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VG_MDA_VERSION 1u
#define MAX_COPIES (VG_MDA_MAX_DEVICES * VG_MDA_SLOTS)

_Static_assert(VG_AREA_RAID_META == VG_RAID_META_BYTES, "mda.h keeps vg.h's raid metadata size");

enum {
	MO_CSUM = 0,
	MO_MAGIC = 4,
	MO_VERSION = 12,
	MO_OFFSET = 16,
	MO_POOL_UUID = 24,
	MO_SEQNO = 40,
	MO_TEXT_LEN = 48,
	MO_TEXT_CRC = 56,
	MO_SLOT = 60,
	MO_FLAGS = 64,
};

/* a change record's header (see the top) */
enum {
	RO_CSUM = 0,
	RO_MAGIC = 4,
	RO_VERSION = 12,
	RO_OFFSET = 16,
	RO_POOL_UUID = 24,
	RO_SEQNO = 40,
	RO_BASE_SEQNO = 48,
	RO_BASE_CRC = 56,
	RO_DELTA_LEN = 60,
	RO_TEXT_LEN = 64,
	RO_TEXT_CRC = 72,
	RO_DELTA_CRC = 76,
	RO_SLOT = 80,
};
#define VG_MDA_REC_VERSION 1u

/* The bytes of one slot of an area of MDA_SIZE bytes. */
static uint64_t slot_bytes(uint64_t mda_size)
{
	return (mda_size / VG_MDA_SLOTS) & ~(uint64_t)511;
}

static uint64_t slot_size(const struct vg_label *l)
{
	return slot_bytes(l->mda.size);
}

static void memo_forget(const struct vg_label *l);

static uint64_t slot_offset(const struct vg_label *l, unsigned k)
{
	return l->mda.offset + k * slot_size(l);
}

size_t vg_mda_capacity_of(uint64_t mda_size)
{
	uint64_t s = slot_bytes(mda_size);
	return s > VG_MDA_SLOT_HEADER ? (size_t)(s - VG_MDA_SLOT_HEADER) : 0;
}

size_t vg_mda_capacity(const struct vg_label *label)
{
	return vg_mda_capacity_of(label->mda.size);
}

uint64_t vg_area_mda_size(uint64_t span, int raid_meta)
{
	uint64_t room = VG_MDA_DEFAULT_OFFSET + (raid_meta ? VG_AREA_RAID_META : 0);

	return span > room ? (span - room) & ~(uint64_t)1023 : 0;
}

uint64_t vg_area_span_for(uint64_t volumes, int mirrored)
{
	/* each slot: its header, the pool's text and the volumes' */
	uint64_t slot = VG_MDA_SLOT_HEADER + VG_AREA_POOL_TEXT + volumes * VG_AREA_VOLUME_TEXT_MAX;
	uint64_t span = VG_MDA_DEFAULT_OFFSET + VG_MDA_SLOTS * slot +
			(mirrored ? VG_AREA_RAID_META : 0);

	return (span + VG_AREA_SPAN_DEFAULT - 1) / VG_AREA_SPAN_DEFAULT * VG_AREA_SPAN_DEFAULT;
}

uint64_t vg_area_span_auto(uint64_t smallest, int mirrored)
{
	uint64_t span = smallest / VG_AREA_AUTO_FRACTION / VG_AREA_SPAN_DEFAULT *
			VG_AREA_SPAN_DEFAULT;
	uint64_t cap = vg_area_span_for(VG_AREA_AUTO_VOLUMES, mirrored);

	if (smallest <= VG_AREA_AUTO_SMALL)
		return VG_AREA_SPAN_DEFAULT;
	return span < VG_AREA_SPAN_DEFAULT ? VG_AREA_SPAN_DEFAULT : span > cap ? cap : span;
}

int vg_area_span_valid(const char *opt, uint64_t span, int mirrored, char *why, size_t len)
{
	uint64_t min = mirrored ? VG_AREA_SPAN_MIN_MIRROR : VG_AREA_SPAN_MIN;

	if (span < min)
		snprintf(why, len, "%s must be at least %s%s, not %llu bytes", opt,
			 mirrored ? "1 MiB" : "64 KiB",
			 mirrored ? " with mirrored thin metadata (the kernel raid1's metadata "
				    "takes 512 KiB of it)" : "", (unsigned long long)span);
	else if (span > VG_AREA_SPAN_MAX)
		snprintf(why, len, "%s must be at most 1 GiB (about %llu volumes), not %llu bytes",
			 opt, (unsigned long long)vg_area_volumes(
				      vg_mda_capacity_of(vg_area_mda_size(VG_AREA_SPAN_MAX, mirrored)),
				      VG_AREA_POOL_TEXT, VG_AREA_VOLUME_TEXT_MAX),
			 (unsigned long long)span);
	else if (span % VG_AREA_SPAN_ALIGN)
		snprintf(why, len, "%s must be a multiple of 64 KiB, not %llu bytes", opt,
			 (unsigned long long)span);
	else
		return 0;
	return -EINVAL;
}

uint64_t vg_area_volumes(size_t capacity, size_t pool_text, size_t volume_text)
{
	return capacity > pool_text && volume_text ? (capacity - pool_text) / volume_text : 0;
}

static uint32_t text_crc(const char *text, size_t len)
{
	return tp_crc32c(0xffffffffu, text, len) ^ 0xffffffffu;
}

static size_t round512(size_t n)
{
	return (n + 511) & ~(size_t)511;
}

/* Slot K of LABEL's area on IO blank: the header of no copy (seqno 0, no
 * text), so that a slot found without our magic later was wiped, not
 * never written. Not flushed. */
static int write_blank(struct io_engine *io, const struct vg_label *label, unsigned k)
{
	uint8_t h[VG_MDA_SLOT_HEADER];

	memset(h, 0, sizeof(h));
	memcpy(h + MO_MAGIC, VG_MDA_MAGIC, 8);
	le32_put(h + MO_VERSION, VG_MDA_VERSION);
	le64_put(h + MO_OFFSET, slot_offset(label, k));
	if (vg_uuid_parse(label->pool_uuid, h + MO_POOL_UUID))
		memset(h + MO_POOL_UUID, 0, VG_UUID_BYTES);
	le32_put(h + MO_SLOT, k);
	le32_put(h + MO_CSUM, tp_block_csum(h, sizeof(h), VG_MDA_CSUM_SALT));
	return io_write(io, slot_offset(label, k), h, sizeof(h));
}

int vg_mda_format(struct io_engine *io, const struct vg_label *label)
{
	unsigned k;
	int r = 0;

	memo_forget(label);
	for (k = 0; k < VG_MDA_SLOTS && !r; k++)
		r = write_blank(io, label, k);
	if (!r)
		r = io_flush(io);
	if (r)
		log_error("%s: cannot format the VG metadata area: %s", io->name, strerror(-r));
	return r;
}

/* One record header that chains (see the top): where it is and what its
 * delta must give. */
struct rec_desc {
	uint64_t off;		/* device offset of the record */
	uint64_t seqno;
	uint32_t delta_len, delta_crc, text_crc;
	size_t text_len;
};

/* One slot as read: state, and for VALID its seqno and malloc'd text (the
 * newest state the slot holds: the checkpoint, or the checkpoint with its
 * newest good record applied). A slot read for a commit (read_slot's
 * COMMIT) keeps the checkpoint instead (CK: the base of the next record)
 * and its records are checked by their delta's crc, not applied. */
struct slot_copy {
	enum vg_slot_state state;
	uint64_t seqno;
	uint32_t crc;		/* the text's */
	uint32_t flags;		/* the slot header's */
	char *text;
	size_t len;
	/* the checkpoint: its seqno, crc and length, and (COMMIT) text */
	uint64_t ck_seqno;
	uint32_t ck_crc;
	size_t ck_len;
	char *ck;
	unsigned nrec;		/* records applied (0: the checkpoint is the copy) */
	uint64_t rec_off;	/* the newest one's offset */
	uint64_t rec_end;	/* where the next record goes */
	uint64_t slot_end;	/* the slot's end on the device */
	uint64_t damaged_off;	/* a damaged record after the copy's (status) */
	/* NEWER: the version found and the record's offset (0: the header) */
	uint32_t newer_version;
	uint64_t newer_off;
	/* VALID without a text: from the memo (below), or its newest record
	 * not applied yet (read_records); fill_texts reads it WHOLE */
	int memo;
	/* what read_records warned of it, a line each, and whether that was
	 * seen (not said into a capture): the memo says it again once to a
	 * reader that is not quiet, when the read it remembers was */
	char warn[1024];
	int warn_shown;
};

static void slot_warn(struct slot_copy *c, int quiet, const char *fmt, ...) TP_PRINTF(3, 4);
static void slot_warn(struct slot_copy *c, int quiet, const char *fmt, ...)
{
	size_t at = strlen(c->warn);
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (at + strlen(line) + 2 <= sizeof(c->warn))
		snprintf(c->warn + at, sizeof(c->warn) - at, "%s\n", line);
	if (quiet)
		return;
	log_warn("%s", line);
	c->warn_shown = !tp_log_capturing();
}

/* The warnings of C (slot_warn) again, one by one. */
static void slot_rewarn(const struct slot_copy *c)
{
	const char *l = c->warn, *nl;

	for (; (nl = strchr(l, '\n')); l = nl + 1)
		log_warn("%.*s", (int)(nl - l), l);
}

enum { READ_COPY, READ_COMMIT };

/* How read_slot reads a slot (its WHOLE): MEMO, from the memo when it has
 * the slot, else the text read and checked but its newest record not
 * applied; WHOLE, read and applied, the memo passed by (fill_texts, and
 * every slot of a read with VG_MDA_READ_WHOLE); APPLY, from the
 * memo when it has the slot, else read and applied (the slot a scan
 * expects a reader to want: scan, slot_claim). */
enum { SLOT_MEMO, SLOT_WHOLE, SLOT_APPLY };

static enum vg_slot_state slot_bad(struct io_engine *io, unsigned k, const char *why,
				   int quiet)
{
	if (quiet)
		return VG_SLOT_CORRUPT;
	log_warn("%s: VG metadata slot %u is corrupt (%s); it will be rewritten on the next "
		 "change", io->name, k, why);
	return VG_SLOT_CORRUPT;
}

/* Does the sector at OFF hold a record that chains to slot K's checkpoint
 * C after seqno AFTER (H: its first sector)? Fills D. */
static int rec_chains(const uint8_t *h, uint64_t off, unsigned k, const uint8_t *uuid,
		      const struct slot_copy *c, uint64_t after, uint64_t cap, struct rec_desc *d)
{
	uint64_t dlen;

	if (memcmp(h + RO_MAGIC, VG_MDA_REC_MAGIC, 8) ||
	    le32_get(h + RO_CSUM) != tp_block_csum(h, VG_MDA_REC_HEADER, VG_MDA_REC_SALT) ||
	    le32_get(h + RO_VERSION) != VG_MDA_REC_VERSION || le64_get(h + RO_OFFSET) != off ||
	    le32_get(h + RO_SLOT) != k || memcmp(h + RO_POOL_UUID, uuid, VG_UUID_BYTES) ||
	    le64_get(h + RO_BASE_SEQNO) != c->ck_seqno || le32_get(h + RO_BASE_CRC) != c->ck_crc)
		return 0;
	d->off = off;
	d->seqno = le64_get(h + RO_SEQNO);
	dlen = le32_get(h + RO_DELTA_LEN);
	d->delta_len = (uint32_t)dlen;
	d->delta_crc = le32_get(h + RO_DELTA_CRC);
	d->text_crc = le32_get(h + RO_TEXT_CRC);
	d->text_len = (size_t)le64_get(h + RO_TEXT_LEN);
	return d->seqno > after && dlen && le64_get(h + RO_TEXT_LEN) &&
	       le64_get(h + RO_TEXT_LEN) <= cap &&
	       off + round512(VG_MDA_REC_HEADER + dlen) <= c->slot_end;
}

/* The sector H at OFF, where slot K's chain of records ends: a record a
 * newer tptools wrote after slot K's checkpoint C? Everything of it that
 * this format knows right (its magic, header checksum, place, pool and
 * this checkpoint named) but a version above VG_MDA_REC_VERSION: that
 * version, else 0. (Not damage: a read that fell back past it to the
 * seqno before would let the next commit write over that tptools'
 * change.) */
static uint32_t rec_newer(const uint8_t *h, uint64_t off, unsigned k, const uint8_t *uuid,
			  const struct slot_copy *c)
{
	uint32_t v = le32_get(h + RO_VERSION);

	if (memcmp(h + RO_MAGIC, VG_MDA_REC_MAGIC, 8) || v <= VG_MDA_REC_VERSION ||
	    le32_get(h + RO_CSUM) != tp_block_csum(h, VG_MDA_REC_HEADER, VG_MDA_REC_SALT) ||
	    le64_get(h + RO_OFFSET) != off || le32_get(h + RO_SLOT) != k ||
	    memcmp(h + RO_POOL_UUID, uuid, VG_UUID_BYTES) ||
	    le64_get(h + RO_BASE_SEQNO) != c->ck_seqno || le32_get(h + RO_BASE_CRC) != c->ck_crc)
		return 0;
	return v;
}

/* The sector H at OFF, where slot K's chain of records ends: a damaged
 * record rather than the zeros a record leaves after it or a record of
 * an older checkpoint? Its magic, and a bad header checksum or, with a
 * good one, this pool, slot and checkpoint named. */
static int rec_damaged(const uint8_t *h, unsigned k, const uint8_t *uuid,
		       const struct slot_copy *c)
{
	if (memcmp(h + RO_MAGIC, VG_MDA_REC_MAGIC, 8))
		return 0;
	if (le32_get(h + RO_CSUM) != tp_block_csum(h, VG_MDA_REC_HEADER, VG_MDA_REC_SALT))
		return 1;
	return le32_get(h + RO_SLOT) == k && !memcmp(h + RO_POOL_UUID, uuid, VG_UUID_BYTES) &&
	       le64_get(h + RO_BASE_SEQNO) == c->ck_seqno && le32_get(h + RO_BASE_CRC) == c->ck_crc;
}

/* The record D as read (header and delta, padded), malloc'd in *BUF. */
static int rec_read(struct io_engine *io, const struct rec_desc *d, uint8_t **buf)
{
	size_t size = round512(VG_MDA_REC_HEADER + (size_t)d->delta_len);
	int r;

	*buf = malloc(size);
	if (!*buf)
		return -ENOMEM;
	r = io_read(io, d->off, *buf, size);
	if (r) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

/* C's copy is the one record E (the Nth) makes: where the next goes. */
static void take_record(struct slot_copy *c, const struct rec_desc *e, unsigned n)
{
	c->seqno = e->seqno;
	c->crc = e->text_crc;
	c->len = e->text_len;
	c->nrec = n;
	c->rec_off = e->off;
	c->rec_end = e->off + round512(VG_MDA_REC_HEADER + e->delta_len);
}

#define MEMO_MAX 16
struct slot_memo {
	int used;
	char pv_uuid[VG_UUID_LEN + 1], pool_uuid[VG_UUID_LEN + 1];
	unsigned k;
	uint8_t head[VG_MDA_SLOT_HEADER], rec[512], end[512];
	int has_end;
	struct slot_copy c;	/* its scalars (no text) */
};
static struct {
	unsigned depth, next;
	struct slot_memo e[MEMO_MAX];
} memo;

/* The records after slot K's checkpoint (C: VALID, its checkpoint in
 * C->text): the newest that checks out becomes the copy. Its delta's crc
 * is checked; COPY and WHOLE (SLOT_WHOLE, SLOT_APPLY): it is applied
 * too, and the result's length and crc checked, its text in C->text; COPY
 * and SLOT_MEMO: the copy is left without a text (C->memo), applied only
 * if a reader wants it (fill_texts: one apply a read, not one a slot;
 * scan asks it of the slot it expects wanted). 0 or -errno for an
 * I/O error or ENOMEM; a record that does not check out ends the chain
 * where it is (said unless QUIET). */
/* The records that chain after slot K's checkpoint (C: its seqno, crc,
 * rec_end and slot_end; RAW: the pool's uuid) into D (VG_MDA_REC_MAX at
 * most), their number into *N; their headers only, nothing else read.
 * 1 when the chain ends at a sector it read that does not chain (in H,
 * at *END), 0 when it ends at the slot's end or the record limit,
 * -errno for an I/O error. */
static int walk_chain(struct vg_pv *pv, unsigned k, const struct slot_copy *c,
		      const uint8_t *raw, struct rec_desc *d, unsigned *n, uint8_t h[512],
		      uint64_t *end)
{
	uint64_t after = c->ck_seqno;
	int r;

	*n = 0;
	for (*end = c->rec_end; *n < VG_MDA_REC_MAX && *end + 512 <= c->slot_end; (*n)++) {
		r = io_read(pv->io, *end, h, 512);
		if (r)
			return r;
		if (!rec_chains(h, *end, k, raw, c, after, vg_mda_capacity(&pv->label), &d[*n]))
			return 1;
		after = d[*n].seqno;
		*end += round512(VG_MDA_REC_HEADER + d[*n].delta_len);
	}
	return 0;
}

static int read_records(struct vg_pv *pv, unsigned k, struct slot_copy *c, int mode,
			int quiet, int whole)
{
	const struct vg_label *l = &pv->label;
	struct rec_desc d[VG_MDA_REC_MAX];
	uint8_t raw[VG_UUID_BYTES], h[512];
	uint64_t off;
	unsigned n;
	int r;

	if (vg_uuid_parse(l->pool_uuid, raw))
		return 0;
	r = walk_chain(pv, k, c, raw, d, &n, h, &off);
	if (r < 0)
		return r;
	if (r && (c->newer_version = rec_newer(h, off, k, raw, c))) {
		/* the slot is a newer tptools' (its records too: not applied) */
		c->state = VG_SLOT_NEWER;
		c->newer_off = off;
		free(c->text);
		c->text = NULL;
		return 0;
	}
	if (r && rec_damaged(h, k, raw, c)) {
		c->damaged_off = off;
		slot_warn(c, quiet, "%s: VG metadata slot %u: the change record at byte %llu is "
			  "damaged; using the seqno before it, rewritten on the next change",
			  pv->io->name, k, (unsigned long long)off);
	}
	while (n > 0) {
		const struct rec_desc *e = &d[n - 1];
		uint8_t *buf;
		char *text = NULL;
		size_t len = 0;
		const char *why = "bad delta checksum: torn or damaged write";

		r = rec_read(pv->io, e, &buf);
		if (r)
			return r;
		if (text_crc((const char *)buf + VG_MDA_REC_HEADER, e->delta_len) == e->delta_crc) {
			if (mode == READ_COMMIT || whole == SLOT_MEMO) {
				free(buf);
				take_record(c, e, n);
				if (mode == READ_COPY) {
					/* applied when its text is wanted (fill_texts) */
					free(c->text);
					c->text = NULL;
					c->memo = 1;
				}
				return 0;
			}
			r = vg_delta_apply(c->text, c->len, buf + VG_MDA_REC_HEADER, e->delta_len,
					   e->text_len, &text, &len);
			if (r == -ENOMEM) {
				free(buf);
				return r;
			}
			why = "its delta does not apply to the slot's text";
			if (!r && (len != e->text_len || text_crc(text, len) != e->text_crc))
				why = "its text's checksum does not match";
			else if (!r)
				why = NULL;
		}
		free(buf);
		if (!why) {
			free(c->text);
			c->text = text;
			take_record(c, e, n);
			return 0;
		}
		free(text);
		c->damaged_off = e->off;
		slot_warn(c, quiet, "%s: VG metadata slot %u: change record of seqno %llu is "
			  "corrupt (%s); using seqno %llu before it, rewritten on the next change",
			  pv->io->name, k, (unsigned long long)e->seqno, why,
			  (unsigned long long)(n > 1 ? d[n - 2].seqno : c->ck_seqno));
		n--;
	}
	return 0;
}

/* ---- the memo of slots checked ----
 * A command reads its pool's VG several times under one open: the device
 * search, the read after the lock, the commit's scan before it writes.
 * Each read checks every slot of every device: at 20,000 volumes a slot
 * is 2.2 MB read, checksummed and its newest record applied, twelve
 * times a tvcreate. Between vg_mda_memo_begin and vg_mda_memo_end (lib/
 * pool: a pool open), a slot a read found VALID (its text's crc and its
 * newest record's result checked) is remembered by its place with the
 * bytes of its header sector, of its newest record's first sector and of
 * the sector where its records end. A later scan that reads those three
 * sectors back byte for byte the same (the header carries the text's crc
 * and seqno, the record its delta's and result's) takes the slot's state
 * without reading its text; the copy a reader takes is still read whole
 * and checked (fill_texts). A commit forgets the device it writes. */

void vg_mda_memo_begin(void)
{
	memo.depth++;
}

void vg_mda_memo_end(void)
{
	if (memo.depth && !--memo.depth)
		memset(&memo, 0, sizeof(memo));
}

static struct slot_memo *memo_find(const struct vg_label *l, unsigned k)
{
	for (unsigned x = 0; memo.depth && x < MEMO_MAX; x++)
		if (memo.e[x].used && memo.e[x].k == k &&
		    !strcmp(memo.e[x].pv_uuid, l->pv_uuid) &&
		    !strcmp(memo.e[x].pool_uuid, l->pool_uuid))
			return &memo.e[x];
	return NULL;
}

/* Forget what the memo holds of the device of label L (about to be
 * written). */
static void memo_forget(const struct vg_label *l)
{
	struct slot_memo *e;

	for (unsigned k = 0; k < VG_MDA_SLOTS; k++)
		if ((e = memo_find(l, k)))
			e->used = 0;
}

/* The record sectors a memo compares: RECS the newest record's first,
 * END the one after the records (none past the slot). */
static int memo_sectors(struct io_engine *io, const struct slot_copy *c, uint8_t *rec,
			uint8_t *end, int *has_end)
{
	int r = 0;

	memset(rec, 0, 512);
	memset(end, 0, 512);
	*has_end = 0;
	if (!(c->flags & VG_MDA_FLAG_JOURNAL))
		return 0;
	if (c->nrec)
		r = io_read(io, c->rec_off, rec, 512);
	if (!r && c->rec_end + 512 <= c->slot_end) {
		*has_end = 1;
		r = io_read(io, c->rec_end, end, 512);
	}
	return r;
}

/* Slot K of PV just read whole and VALID (HEAD: its header sector): into
 * the memo. */
static void memo_put(struct vg_pv *pv, unsigned k, const uint8_t *head, const struct slot_copy *c)
{
	struct slot_memo *e;

	if (!memo.depth)
		return;
	e = memo_find(&pv->label, k);
	if (!e) {
		e = &memo.e[memo.next];
		memo.next = (memo.next + 1) % MEMO_MAX;
	}
	e->used = 0;
	if (memo_sectors(pv->io, c, e->rec, e->end, &e->has_end))
		return;
	snprintf(e->pv_uuid, sizeof(e->pv_uuid), "%s", pv->label.pv_uuid);
	snprintf(e->pool_uuid, sizeof(e->pool_uuid), "%s", pv->label.pool_uuid);
	e->k = k;
	memcpy(e->head, head, VG_MDA_SLOT_HEADER);
	e->c = *c;
	e->c.text = e->c.ck = NULL;
	e->c.memo = 0;
	e->used = 1;
}

/* Slot K of PV (HEAD: its header sector as read now) as the memo has it:
 * 1 with C filled when its three sectors read back the same, else 0. */
static int memo_take(struct vg_pv *pv, unsigned k, const uint8_t *head, struct slot_copy *c,
		     int quiet)
{
	struct slot_memo *e = memo_find(&pv->label, k);
	uint8_t rec[512], end[512];
	int has_end;

	if (!e || memcmp(e->head, head, VG_MDA_SLOT_HEADER) ||
	    memo_sectors(pv->io, &e->c, rec, end, &has_end) || has_end != e->has_end ||
	    memcmp(rec, e->rec, sizeof(rec)) || memcmp(end, e->end, sizeof(end)))
		return 0;
	/* what the read it remembers warned into a capture: said now */
	if (!quiet && e->c.warn[0] && !e->c.warn_shown) {
		slot_rewarn(&e->c);
		e->c.warn_shown = !tp_log_capturing();
	}
	*c = e->c;
	c->memo = 1;
	return 1;
}

/* Read and validate slot K of PV. Returns 0 with C filled (c->text only
 * for VALID), or -errno for an I/O error / ENOMEM. WHOLE (SLOT_*): unless
 * SLOT_WHOLE, a slot the memo has is taken from it; records are applied
 * unless SLOT_MEMO (read_records). COMMIT: no warnings, no text kept (load_ck reads the
 * target's checkpoint again) and records not applied (the commit that is
 * about to write needs their seqnos). */
/* What is wrong with slot K's header H (its magic found) beside L's
 * label, in slot_bad's words, or NULL: its checksum, its place, its pool,
 * its version. A header right but for a version above VG_MDA_VERSION is
 * a newer tptools' slot, not damage: that version in *NEWER (else 0). */
static const char *header_fault(const struct vg_label *l, unsigned k, const uint8_t *h,
				uint32_t *newer)
{
	uint8_t raw[VG_UUID_BYTES];
	uint32_t v = le32_get(h + MO_VERSION);

	*newer = 0;
	if (le32_get(h + MO_CSUM) != tp_block_csum(h, VG_MDA_SLOT_HEADER, VG_MDA_CSUM_SALT))
		return "bad header checksum";
	if (le64_get(h + MO_OFFSET) != slot_offset(l, k) || le32_get(h + MO_SLOT) != k)
		return "wrong location";
	if (vg_uuid_parse(l->pool_uuid, raw) || memcmp(raw, h + MO_POOL_UUID, sizeof(raw)))
		return "belongs to another pool";
	if (v > VG_MDA_VERSION)
		*newer = v;
	if (v != VG_MDA_VERSION)
		return "wrong version";
	return NULL;
}

static int read_slot(struct vg_pv *pv, unsigned k, struct slot_copy *c, int mode, int whole)
{
	int quiet = mode == READ_COMMIT;
	const struct vg_label *l = &pv->label;
	uint8_t h[VG_MDA_SLOT_HEADER];
	uint64_t off = slot_offset(l, k), len;
	const char *why;
	uint32_t newer;
	char *buf;
	int r;

	memset(c, 0, sizeof(*c));
	r = io_read(pv->io, off, h, sizeof(h));
	if (r)
		return r;
	if (whole != SLOT_WHOLE && memo_take(pv, k, h, c, quiet))
		return 0;
	if (memcmp(h + MO_MAGIC, VG_MDA_MAGIC, 8)) {
		c->state = VG_SLOT_EMPTY;
		return 0;
	}
	if ((why = header_fault(l, k, h, &newer)) && newer) {
		c->state = VG_SLOT_NEWER;	/* said by the caller (vg_read) */
		c->seqno = le64_get(h + MO_SEQNO);
		c->newer_version = newer;
		return 0;
	}
	if (why) {
		c->state = slot_bad(pv->io, k, why, quiet);
		return 0;
	}
	len = le64_get(h + MO_TEXT_LEN);
	c->seqno = le64_get(h + MO_SEQNO);
	c->flags = le32_get(h + MO_FLAGS);
	if (!c->seqno && !len) {
		c->state = VG_SLOT_BLANK;	/* formatted, never written */
		return 0;
	}
	if (!c->seqno || !len || len > vg_mda_capacity(l)) {
		c->state = slot_bad(pv->io, k, "seqno or text length out of range", quiet);
		return 0;
	}
	buf = malloc(tp_alloc_class(round512((size_t)len) + 1));
	if (!buf)
		return -ENOMEM;
	r = io_read(pv->io, off + VG_MDA_SLOT_HEADER, buf, round512((size_t)len));
	if (r) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	c->crc = text_crc(buf, (size_t)len);
	if (c->crc != le32_get(h + MO_TEXT_CRC)) {
		free(buf);
		c->state = slot_bad(pv->io, k, "bad text checksum: torn or damaged write", quiet);
		return 0;
	}
	c->state = VG_SLOT_VALID;
	c->text = buf;
	c->len = (size_t)len;
	c->ck_seqno = c->seqno;
	c->ck_crc = c->crc;
	c->ck_len = c->len;
	c->slot_end = off + slot_size(l);
	c->rec_end = off + VG_MDA_SLOT_HEADER + round512((size_t)len);
	if (mode == READ_COMMIT) {
		/* checked, not held: a commit needs one checkpoint, its
		 * target's, as the base of a record (load_ck) */
		free(c->text);
		c->text = NULL;
	}
	if ((c->flags & VG_MDA_FLAG_JOURNAL) &&
	    (r = read_records(pv, k, c, mode, quiet, whole)))
		return r;
	if (mode == READ_COPY && c->state == VG_SLOT_VALID)
		memo_put(pv, k, h, c);
	return 0;
}

static int check_pvs(struct vg_pv *pvs, unsigned n)
{
	unsigned i;

	if (!n || n > VG_MDA_MAX_DEVICES)
		return -EINVAL;
	for (i = 1; i < n; i++) {
		if (strcmp(pvs[i].label.pool_uuid, pvs[0].label.pool_uuid)) {
			log_error("%s and %s belong to different pools", pvs[0].io->name,
				  pvs[i].io->name);
			return -EINVAL;
		}
	}
	return 0;
}

static void free_slot(struct slot_copy *c)
{
	free(c->text);
	free(c->ck);
	c->text = c->ck = NULL;
}

/* C[I][K] just read for its copy: its text is let go (the slot still
 * VALID) when a slot before it holds the copy of the same seqno, length
 * and checksum (the same commit on another device), and the oldest texts
 * held go while more than HOLD seqnos are: a reader that wants the newest
 * copy holds one text of 100,000 volumes (11 MB) at a time, not one per
 * slot. */
static void hold_copies(struct slot_copy c[][VG_MDA_SLOTS], unsigned i, unsigned k,
			unsigned hold)
{
	struct slot_copy *s = &c[i][k], *t;
	unsigned last = i * VG_MDA_SLOTS + k, held;

	for (unsigned x = 0; x < last; x++) {
		t = &c[x / VG_MDA_SLOTS][x % VG_MDA_SLOTS];
		if (t->text && t->seqno == s->seqno && t->len == s->len && t->crc == s->crc) {
			free(s->text);
			s->text = NULL;
			return;
		}
	}
	for (;;) {
		uint64_t seen[MAX_COPIES], oldest = UINT64_MAX;

		held = 0;	/* distinct seqnos (two texts of one stay, for the check) */
		for (unsigned x = 0; x <= last; x++) {
			unsigned j;

			t = &c[x / VG_MDA_SLOTS][x % VG_MDA_SLOTS];
			if (!t->text || t->state != VG_SLOT_VALID)
				continue;
			for (j = 0; j < held && seen[j] != t->seqno; j++)
				;
			if (j == held)
				seen[held++] = t->seqno;
			if (t->seqno < oldest)
				oldest = t->seqno;
		}
		if (held <= hold)
			return;
		for (unsigned x = 0; x <= last; x++) {
			t = &c[x / VG_MDA_SLOTS][x % VG_MDA_SLOTS];
			if (t->text && t->state == VG_SLOT_VALID && t->seqno == oldest) {
				free(t->text);
				t->text = NULL;
			}
		}
	}
}

/* Slot K of PVS[I] read (whole unless the memo has it) into C[I][K] and
 * ST. */
static int scan_slot(struct vg_pv *pvs, unsigned i, unsigned k, struct slot_copy c[][VG_MDA_SLOTS],
		     struct vg_mda_status *st, int mode, unsigned hold, int whole)
{
	int r = read_slot(&pvs[i], k, &c[i][k], mode, whole);

	if (r == -ENOMEM)
		return r;
	if (r) {
		log_error("%s: cannot read VG metadata slot %u: %s", pvs[i].io->name, k,
			  strerror(-r));
		st->read_error[i] = r;
		free_slot(&c[i][k]);
		c[i][k].state = VG_SLOT_EMPTY;
	}
	if (mode == READ_COPY && c[i][k].state == VG_SLOT_VALID)
		hold_copies(c, i, k, hold);
	memset(&st->slot[i][k], 0, sizeof(st->slot[i][k]));
	st->slot[i][k].state = c[i][k].state;
	st->slot[i][k].seqno = c[i][k].seqno;
	if (c[i][k].state == VG_SLOT_VALID) {
		st->slot[i][k].damaged_off = c[i][k].damaged_off;
		st->slot[i][k].journal = !!(c[i][k].flags & VG_MDA_FLAG_JOURNAL);
	}
	if (c[i][k].state == VG_SLOT_NEWER) {
		st->slot[i][k].newer_version = c[i][k].newer_version;
		st->slot[i][k].newer_off = c[i][k].newer_off;
	}
	if (c[i][k].nrec) {
		st->slot[i][k].records = c[i][k].nrec;
		st->slot[i][k].record_off = c[i][k].rec_off;
		st->slot[i][k].record_len = c[i][k].rec_end - c[i][k].rec_off;
	}
	return 0;
}

/* The newest seqno slot K of PV claims, by its header and the headers of
 * the records that chain after its checkpoint (none of their texts read
 * or checked: a guess, which read_slot then checks); 0 for a slot that
 * holds no copy of this pool, or that cannot be read. */
static uint64_t slot_claim(struct vg_pv *pv, unsigned k)
{
	const struct vg_label *l = &pv->label;
	uint8_t h[VG_MDA_SLOT_HEADER], raw[VG_UUID_BYTES], end[512];
	struct slot_copy c = { 0 };
	struct rec_desc d[VG_MDA_REC_MAX];
	uint64_t off = slot_offset(l, k), len, at;
	uint32_t newer;
	unsigned n;

	if (io_read(pv->io, off, h, sizeof(h)) || memcmp(h + MO_MAGIC, VG_MDA_MAGIC, 8) ||
	    header_fault(l, k, h, &newer) || vg_uuid_parse(l->pool_uuid, raw))
		return 0;
	len = le64_get(h + MO_TEXT_LEN);
	c.ck_seqno = le64_get(h + MO_SEQNO);
	if (!c.ck_seqno || !len || len > vg_mda_capacity(l))
		return 0;
	if (!(le32_get(h + MO_FLAGS) & VG_MDA_FLAG_JOURNAL))
		return c.ck_seqno;
	c.ck_crc = le32_get(h + MO_TEXT_CRC);
	c.slot_end = off + slot_size(l);
	c.rec_end = off + VG_MDA_SLOT_HEADER + round512((size_t)len);
	(void)walk_chain(pv, k, &c, raw, d, &n, end, &at);	/* (what chained before an error) */
	return n ? d[n - 1].seqno : c.ck_seqno;
}

/* READ_COPY after a scan: each of the HOLD newest seqnos whose slots all
 * came from the memo gets a text, its first slot read whole (and
 * checked) again; what that read finds stands, and the newest seqnos are
 * looked at again. */
static int fill_texts(struct vg_pv *pvs, unsigned n, struct slot_copy c[][VG_MDA_SLOTS],
		      struct vg_mda_status *st, unsigned hold)
{
	/* (each turn reads one slot of the memo whole: at most one a slot) */
	for (unsigned turn = 0; turn <= MAX_COPIES; turn++) {
		uint64_t seen[MAX_COPIES];
		unsigned nseen = 0, x, j, need = MAX_COPIES;
		int r;

		/* the distinct seqnos, newest first (at most 8) */
		for (x = 0; x < n * VG_MDA_SLOTS; x++) {
			const struct slot_copy *t = &c[x / VG_MDA_SLOTS][x % VG_MDA_SLOTS];

			if (t->state != VG_SLOT_VALID)
				continue;
			for (j = 0; j < nseen && seen[j] != t->seqno; j++)
				;
			if (j < nseen)
				continue;
			for (j = nseen++; j > 0 && seen[j - 1] < t->seqno; j--)
				seen[j] = seen[j - 1];
			seen[j] = t->seqno;
		}
		for (j = 0; j < nseen && j < hold && need == MAX_COPIES; j++) {
			unsigned first = MAX_COPIES;
			int has = 0;

			for (x = 0; x < n * VG_MDA_SLOTS; x++) {
				const struct slot_copy *t = &c[x / VG_MDA_SLOTS][x % VG_MDA_SLOTS];

				if (t->state != VG_SLOT_VALID || t->seqno != seen[j])
					continue;
				if (t->text)
					has = 1;
				else if (t->memo && first == MAX_COPIES)
					first = x;
			}
			if (!has && first != MAX_COPIES)
				need = first;
		}
		if (need == MAX_COPIES)
			return 0;
		r = scan_slot(pvs, need / VG_MDA_SLOTS, need % VG_MDA_SLOTS, c, st, READ_COPY, hold,
			      SLOT_WHOLE);
		if (r)
			return r;
	}
	return TP_BUG("VG metadata slots read whole are still without a text");
}

/* Read every slot of every pv into C[pv][slot] and fill ST. A device that
 * cannot be read gets ST->read_error and EMPTY slots. READ_COPY: the
 * texts of at most HOLD seqnos are kept (hold_copies); with
 * VG_MDA_READ_WHOLE in FLAGS every slot is read whole (SLOT_WHOLE: its
 * newest record applied and checked, the memo passed by), not only the
 * one that claims the newest seqno. */
static int scan(struct vg_pv *pvs, unsigned n, struct slot_copy c[][VG_MDA_SLOTS],
		struct vg_mda_status *st, int mode, unsigned hold, unsigned flags)
{
	uint64_t best = 0, claim[VG_MDA_SLOTS];
	unsigned i, k;
	int r, apply;

	memset(st, 0, sizeof(*st));
	st->nr_pvs = n;
	for (i = 0; i < n; i++) {
		/* READ_COPY of a device the memo does not have: the slot whose
		 * records claim the newest seqno yet has its record applied as
		 * its text is read, not read again by fill_texts */
		apply = -1;
		if (mode == READ_COPY && !(flags & VG_MDA_READ_WHOLE) &&
		    (!memo_find(&pvs[i].label, 0) || !memo_find(&pvs[i].label, 1))) {
			for (k = 0; k < VG_MDA_SLOTS; k++)
				claim[k] = slot_claim(&pvs[i], k);
			k = claim[1] > claim[0];
			if (claim[k] > best) {
				best = claim[k];
				apply = (int)k;
			}
		}
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			r = scan_slot(pvs, i, k, c, st, mode, hold,
				      mode == READ_COPY && (flags & VG_MDA_READ_WHOLE) ? SLOT_WHOLE
				      : (int)k == apply ? SLOT_APPLY : SLOT_MEMO);
			if (r)
				return r;
		}
	}
	return mode == READ_COPY ? fill_texts(pvs, n, c, st, hold) : 0;
}

/* Does a slot of ST hold a newer tptools' write (VG_SLOT_NEWER)? */
static int any_newer(const struct vg_mda_status *st)
{
	for (unsigned i = 0; i < st->nr_pvs; i++)
		for (unsigned k = 0; k < VG_MDA_SLOTS; k++)
			if (st->slot[i][k].state == VG_SLOT_NEWER)
				return 1;
	return 0;
}

static void free_scan(struct slot_copy c[][VG_MDA_SLOTS], unsigned n)
{
	unsigned i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < VG_MDA_SLOTS; k++)
			free_slot(&c[i][k]);
}

/* The slot as written: the header, the text, zeros to a sector; the
 * header's place fields (offset, slot, checksum) are put by write_slot. */
static uint8_t *slot_image(const uint8_t *uuid, uint64_t seqno, const char *text, size_t len,
			   uint32_t flags)
{
	uint8_t *buf = malloc(VG_MDA_SLOT_HEADER + round512(len));

	if (!buf)
		return NULL;
	memset(buf, 0, VG_MDA_SLOT_HEADER);
	memset(buf + VG_MDA_SLOT_HEADER + len, 0, round512(len) - len);
	memcpy(buf + MO_MAGIC, VG_MDA_MAGIC, 8);
	le32_put(buf + MO_VERSION, VG_MDA_VERSION);
	memcpy(buf + MO_POOL_UUID, uuid, VG_UUID_BYTES);
	le64_put(buf + MO_SEQNO, seqno);
	le64_put(buf + MO_TEXT_LEN, len);
	le32_put(buf + MO_TEXT_CRC, text_crc(text, len));
	le32_put(buf + MO_FLAGS, flags);
	memcpy(buf + VG_MDA_SLOT_HEADER, text, len);
	return buf;
}

static int write_slot(struct vg_pv *pv, unsigned k, uint8_t *buf, size_t len)
{
	uint64_t off = slot_offset(&pv->label, k);

	le64_put(buf + MO_OFFSET, off);
	le32_put(buf + MO_SLOT, k);
	le32_put(buf + MO_CSUM, tp_block_csum(buf, VG_MDA_SLOT_HEADER, VG_MDA_CSUM_SALT));
	return io_write(pv->io, off, buf, VG_MDA_SLOT_HEADER + round512(len));
}

/* C->ck: the checkpoint of slot K of PV that the commit's scan checked
 * (READ_COMMIT keeps its seqno, length and crc, not its text), read
 * again. 0 with C->ck NULL when the bytes are no longer what the scan
 * found (the commit then writes a checkpoint); -errno. */
static int load_ck(struct vg_pv *pv, unsigned k, struct slot_copy *c)
{
	size_t n = round512(c->ck_len);
	char *buf;
	int r;

	if (c->ck)
		return 0;
	buf = malloc(tp_alloc_class(n + 1));
	if (!buf)
		return -ENOMEM;
	r = io_read(pv->io, slot_offset(&pv->label, k) + VG_MDA_SLOT_HEADER, buf, n);
	if (r) {
		free(buf);
		return r;
	}
	buf[c->ck_len] = '\0';
	if (text_crc(buf, c->ck_len) != c->ck_crc) {
		log_debug(TP_DBG_VG, "%s: VG metadata slot %u changed since it was read; a "
			  "checkpoint goes there", pv->io->name, k);
		free(buf);
		return 0;
	}
	c->ck = buf;
	return 0;
}

/* Whether slot S's checkpoint is BASE's (an earlier device's, loaded) by
 * its seqno, length and crc: the same commit's checkpoint on another
 * device. Its bytes were checked against that crc when this process
 * read the slot (whole, or by the memo of such a read), and a record
 * written on a checkpoint damaged since then does not read back: its
 * result's crc fails and the device reads as the seqno before it, stale
 * beside the other (mda.h: one command checks each slot once). */
static int same_ck(const struct slot_copy *base, const struct slot_copy *s)
{
	return base && base->ck && base->ck_seqno == s->ck_seqno && base->ck_crc == s->ck_crc &&
	       base->ck_len == s->ck_len;
}

/* The most delta bytes a record may take after a checkpoint of CK_LEN
 * bytes: past it a commit writes a checkpoint (the cumulative delta has
 * grown to a fair part of the text). */
static size_t delta_max(size_t ck_len)
{
	return ck_len / 8 > VG_MDA_REC_DELTA_MIN ? ck_len / 8 : VG_MDA_REC_DELTA_MIN;
}

/* Slot S (slot K of a device, read for a commit) with TEXT (LEN bytes) of SEQNO
 * appended as a record, in *REC (malloc'd, *SIZE bytes, place set), when
 * it can take it: a journal slot, fewer than VG_MDA_REC_MAX records, the
 * delta within delta_max and the room left. 0 with *REC NULL: it cannot
 * (the commit writes a checkpoint); -ENOMEM. DELTA / DELTA_LEN / BASE: a
 * delta made for an earlier device, reused when its checkpoint is S's. */
static int record_image(unsigned k, const struct slot_copy *s,
			const uint8_t *uuid, uint64_t seqno, const char *text, size_t len,
			void **delta, size_t *delta_len, const struct slot_copy **base,
			uint8_t **rec, size_t *size)
{
	uint64_t room = s->slot_end - s->rec_end;
	uint8_t *b;
	int r;

	*rec = NULL;
	if (!(s->flags & VG_MDA_FLAG_JOURNAL) || (!s->ck && !same_ck(*base, s)) ||
	    s->nrec >= VG_MDA_REC_MAX || room < 512)
		return 0;
	if (!same_ck(*base, s) || (s->ck && memcmp((*base)->ck, s->ck, s->ck_len))) {
		size_t max = delta_max(s->ck_len);

		if (max > room - VG_MDA_REC_HEADER)
			max = (size_t)(room - VG_MDA_REC_HEADER);
		free(*delta);
		*delta = NULL;
		*base = NULL;
		r = vg_delta_encode(s->ck, s->ck_len, text, len, max, delta, delta_len);
		if (r == -E2BIG)
			return 0;
		if (r)
			return r;
		*base = s;
	}
	if (!*delta_len || VG_MDA_REC_HEADER + *delta_len > room || *delta_len > UINT32_MAX)
		return 0;
	*size = round512(VG_MDA_REC_HEADER + *delta_len);
	/* and a sector of zeros after it, where the slot has one: whatever
	 * lay there (a record of this checkpoint whose seqno a commit after
	 * a damaged record took again) never chains after this one */
	if (*size + 512 <= room)
		*size += 512;
	b = calloc(1, *size);
	if (!b)
		return -ENOMEM;
	memcpy(b + RO_MAGIC, VG_MDA_REC_MAGIC, 8);
	le32_put(b + RO_VERSION, VG_MDA_REC_VERSION);
	le64_put(b + RO_OFFSET, s->rec_end);
	memcpy(b + RO_POOL_UUID, uuid, VG_UUID_BYTES);
	le64_put(b + RO_SEQNO, seqno);
	le64_put(b + RO_BASE_SEQNO, s->ck_seqno);
	le32_put(b + RO_BASE_CRC, s->ck_crc);
	le32_put(b + RO_DELTA_LEN, (uint32_t)*delta_len);
	le64_put(b + RO_TEXT_LEN, len);
	le32_put(b + RO_TEXT_CRC, text_crc(text, len));
	le32_put(b + RO_DELTA_CRC, text_crc(*delta, *delta_len));
	le32_put(b + RO_SLOT, k);
	memcpy(b + VG_MDA_REC_HEADER, *delta, *delta_len);
	le32_put(b + RO_CSUM, tp_block_csum(b, VG_MDA_REC_HEADER, VG_MDA_REC_SALT));
	*rec = b;
	return 0;
}

int vg_mda_commit(struct vg_pv *pvs, unsigned n, uint64_t seqno, const char *text, size_t len,
		  uint64_t keep, unsigned flags)
{
	struct slot_copy c[VG_MDA_MAX_DEVICES][VG_MDA_SLOTS];
	const struct slot_copy *base = NULL;
	struct vg_mda_status st;
	uint8_t raw[VG_UUID_BYTES];
	uint8_t *buf = NULL;
	void *delta = NULL;
	size_t delta_len = 0;
	unsigned i, k, target[VG_MDA_MAX_DEVICES];
	uint32_t slot_flags = flags & VG_MDA_JOURNAL ? VG_MDA_FLAG_JOURNAL : 0;
	int r;

	r = check_pvs(pvs, n);
	if (r)
		return r;
	memset(c, 0, sizeof(c));
	for (i = 0; i < n; i++) {
		if (len > vg_mda_capacity(&pvs[i].label)) {
			log_error("%s: VG metadata of %zu bytes does not fit the metadata area slot "
				  "of %zu bytes; remove volumes or recreate the pool with a larger "
				  "metadata area", pvs[i].io->name, len,
				  vg_mda_capacity(&pvs[i].label));
			return -ENOSPC;
		}
	}
	if (!len || !seqno || vg_uuid_parse(pvs[0].label.pool_uuid, raw))
		return -EINVAL;
	r = scan(pvs, n, c, &st, READ_COMMIT, 0, 0);
	if (r)
		goto out;
	/* a newer tptools' slot is never written over (the read refused it
	 * already; this is the last line) */
	for (i = 0; i < n && any_newer(&st); i++) {
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			if (st.slot[i][k].state != VG_SLOT_NEWER)
				continue;
			log_error("%s: VG metadata slot %u is of a newer format than this tptools "
				  "reads; nothing was written", pvs[i].io->name, k);
			r = -EPROTONOSUPPORT;
			goto out;
		}
	}
	/* The target of each device: the slot after the one holding KEEP, else
	 * after its newest copy. A record goes there as a checkpoint would (the
	 * other slot keeps the newest copy whole, whatever becomes of this
	 * one): after the copies that slot holds, from its own checkpoint. */
	for (i = 0; i < n; i++) {
		struct slot_copy *s = c[i];
		uint64_t best = 0;
		int kept = 0;

		if (st.read_error[i]) {
			r = st.read_error[i];
			goto out;
		}
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			if (s[k].state == VG_SLOT_VALID && s[k].seqno >= seqno) {
				log_error("%s: VG metadata seqno %llu is not newer than the %llu on "
					  "disk: was the pool changed meanwhile?", pvs[i].io->name,
					  (unsigned long long)seqno, (unsigned long long)s[k].seqno);
				r = -ESTALE;
				goto out;
			}
		}
		target[i] = 0;
		for (k = 0; k < VG_MDA_SLOTS; k++)
			if (keep && s[k].state == VG_SLOT_VALID && s[k].seqno == keep) {
				target[i] = (k + 1) % VG_MDA_SLOTS;
				kept = 1;
			}
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			if (s[k].state == VG_SLOT_VALID && s[k].seqno > best) {
				best = s[k].seqno;
				if (!kept)
					target[i] = (k + 1) % VG_MDA_SLOTS;
			}
		}
	}
	for (i = 0; i < n; i++) {
		uint8_t *rec = NULL;
		size_t size = 0;
		unsigned other = 1 - target[i];
		const char *what = "checkpoint";

		memo_forget(&pvs[i].label);
		/* (a record only where no copy of format 1 is left beside it:
		 * the checkpoint goes over that copy too) */
		if ((flags & VG_MDA_JOURNAL) &&
		    !(c[i][other].state == VG_SLOT_VALID &&
		      !(c[i][other].flags & VG_MDA_FLAG_JOURNAL)) &&
		    c[i][target[i]].state == VG_SLOT_VALID &&
		    (c[i][target[i]].flags & VG_MDA_FLAG_JOURNAL)) {
			/* (the checkpoint of an earlier device's target, the
			 * same: its delta is this one's, not read again) */
			if (!same_ck(base, &c[i][target[i]]))
				r = load_ck(&pvs[i], target[i], &c[i][target[i]]);
			if (!r)
				r = record_image(target[i], &c[i][target[i]], raw, seqno, text,
						 len, &delta, &delta_len, &base, &rec, &size);
			if (r)
				goto out;
		}
		if (rec) {
			what = "record";
			r = io_write(pvs[i].io, c[i][target[i]].rec_end, rec, size);
			free(rec);
		} else {
			if (!buf && !(buf = slot_image(raw, seqno, text, len, slot_flags))) {
				r = -ENOMEM;
				goto out;
			}
			r = write_slot(&pvs[i], target[i], buf, len);
		}
		/* the other slot holding no copy (the area wiped, damaged, or
		 * another pool's): blank now, so that it does not read as a
		 * copy lost or damaged until the commit after this one. A
		 * journal checkpoint beside a copy of a pool before the journal
		 * (an older tptools would fall back to it, missing the records
		 * to come): the same checkpoint there too, after this one is
		 * on the device. */
		if (!r && (c[i][other].state == VG_SLOT_EMPTY ||
			   c[i][other].state == VG_SLOT_CORRUPT))
			r = write_blank(pvs[i].io, &pvs[i].label, other);
		else if (!r && !rec && slot_flags && c[i][other].state == VG_SLOT_VALID &&
			 !(c[i][other].flags & VG_MDA_FLAG_JOURNAL)) {
			r = io_flush(pvs[i].io);
			tp_test_pause("vg-first-slot");
			if (!r)
				r = write_slot(&pvs[i], other, buf, len);
			log_debug(TP_DBG_VG, "%s: VG metadata seqno %llu in slot %u too, over a copy "
				  "of format 1", pvs[i].io->name, (unsigned long long)seqno, other);
		}
		if (!r)
			r = io_flush(pvs[i].io);
		if (r) {
			log_error("%s: cannot write VG metadata (seqno %llu): %s", pvs[i].io->name,
				  (unsigned long long)seqno, strerror(-r));
			goto out;
		}
		log_debug(TP_DBG_VG, "%s: VG metadata seqno %llu in slot %u (%s)", pvs[i].io->name,
			  (unsigned long long)seqno, target[i], what);
	}
out:
	free(buf);
	free(delta);
	free_scan(c, n);
	return r;
}

void vg_mda_free_copies(struct vg_mda_copy *copies, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		free(copies[i].text);
		copies[i].text = NULL;
	}
}

/* Two copies of SEQNO that differ (DEV: where the second was): said;
 * -EUCLEAN. */
static int two_copies(const char *dev, uint64_t seqno)
{
	log_error("%s: two different VG metadata copies carry seqno %llu; restore the pool's VG "
		  "metadata from a backup (tprepair --restorefile)", dev,
		  (unsigned long long)seqno);
	return -EUCLEAN;
}

void vg_mda_warn_stale(const struct vg_pv *pvs, const struct vg_mda_status *st)
{
	for (unsigned i = 0; i < st->nr_pvs; i++) {
		int has = 0;

		for (unsigned k = 0; k < VG_MDA_SLOTS; k++)
			if (st->slot[i][k].state == VG_SLOT_VALID && st->slot[i][k].seqno == st->seqno)
				has = 1;
		if (!has)
			log_warn("%s: VG metadata is stale (newest seqno %llu is missing); it will "
				 "be rewritten on the next change", pvs[i].io->name,
				 (unsigned long long)st->seqno);
	}
}

int vg_mda_read_copies(struct vg_pv *pvs, unsigned n, struct vg_mda_copy *copies, unsigned max,
		       struct vg_mda_status *status)
{
	return vg_mda_read_copies_flags(pvs, n, copies, max, 0, status);
}

int vg_mda_read_copies_flags(struct vg_pv *pvs, unsigned n, struct vg_mda_copy *copies,
			     unsigned max, unsigned flags, struct vg_mda_status *status)
{
	struct slot_copy c[VG_MDA_MAX_DEVICES][VG_MDA_SLOTS];
	struct slot_copy *list[MAX_COPIES];
	struct vg_mda_status st;
	unsigned i, k, nr = 0, out = 0;
	int r;

	r = check_pvs(pvs, n);
	if (r)
		return r;
	memset(c, 0, sizeof(c));
	r = scan(pvs, n, c, &st, READ_COPY, max ? max : 1, flags);
	if (r)
		goto done;
	if (any_newer(&st)) {
		r = -EPROTONOSUPPORT;	/* the caller says where (ST) */
		goto done;
	}
	/* distinct valid copies, newest first (insertion sort of <= 4) */
	for (i = 0; i < n; i++) {
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			struct slot_copy *s = &c[i][k];
			unsigned j, dup = 0;

			if (s->state != VG_SLOT_VALID || !s->text)
				continue;	/* (no text: another's copy, or not held) */
			for (j = 0; j < nr; j++) {
				/* (a slot of the memo: told apart by its crc) */
				if (list[j]->seqno != s->seqno)
					continue;
				if (list[j]->crc != s->crc || list[j]->len != s->len ||
				    memcmp(list[j]->text, s->text, s->len)) {
					r = two_copies(pvs[i].io->name, s->seqno);
					goto done;
				}
				dup = 1;
			}
			if (dup)
				continue;
			for (j = nr; j > 0 && list[j - 1]->seqno < s->seqno; j--)
				list[j] = list[j - 1];
			list[j] = s;
			nr++;
		}
	}
	if (!nr) {
		r = -ENODATA;
		goto done;
	}
	/* a slot the memo gave, of a seqno held: the same commit, or two */
	for (i = 0; i < n * VG_MDA_SLOTS; i++) {
		const struct slot_copy *s = &c[i / VG_MDA_SLOTS][i % VG_MDA_SLOTS];

		for (k = 0; s->state == VG_SLOT_VALID && !s->text && k < nr; k++) {
			if (list[k]->seqno == s->seqno &&
			    (list[k]->crc != s->crc || list[k]->len != s->len)) {
				r = two_copies(pvs[i / VG_MDA_SLOTS].io->name, s->seqno);
				goto done;
			}
		}
	}
	st.seqno = list[0]->seqno;
	for (i = 0; i < n; i++) {
		int has = 0;
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			/* a slot without our magic beside a copy: wiped or
			 * overwritten (a formatted slot is blank, not empty) */
			if (c[i][k].state == VG_SLOT_CORRUPT || c[i][k].damaged_off ||
			    (c[i][k].state == VG_SLOT_EMPTY &&
			     c[i][1 - k].state == VG_SLOT_VALID && !st.read_error[i]))
				st.needs_repair = 1;
			if (c[i][k].state == VG_SLOT_VALID && c[i][k].seqno == st.seqno)
				has = 1;
			/* a copy of format 1 beside a newer journal one: the
			 * first journal commit cut short there (a newer copy
			 * of format 1: the pool written in format 1 again) */
			if (c[i][k].state == VG_SLOT_VALID && c[i][1 - k].state == VG_SLOT_VALID &&
			    (c[i][k].flags & VG_MDA_FLAG_JOURNAL) &&
			    !(c[i][1 - k].flags & VG_MDA_FLAG_JOURNAL) &&
			    c[i][k].seqno > c[i][1 - k].seqno)
				st.needs_repair = 1;
		}
		if (!has)
			st.needs_repair = 1;
	}
	if (!(flags & VG_MDA_READ_NO_STALE))
		vg_mda_warn_stale(pvs, &st);
	for (out = 0; out < nr && out < max; out++) {
		copies[out].seqno = list[out]->seqno;
		copies[out].len = list[out]->len;
		copies[out].text = list[out]->text;
		list[out]->text = NULL;	/* ownership moves to the caller */
	}
	r = (int)out;
done:
	free_scan(c, n);
	if (status)
		*status = st;
	return r;
}

int vg_mda_read(struct vg_pv *pvs, unsigned n, char **text, size_t *len,
		struct vg_mda_status *status)
{
	struct vg_mda_copy copy;
	int r = vg_mda_read_copies(pvs, n, &copy, 1, status);

	if (r < 0)
		return r;
	if (r == 0)
		return -ENODATA;
	*text = copy.text;
	*len = copy.len;
	return 0;
}
