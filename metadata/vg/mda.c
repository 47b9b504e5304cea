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
 *    64  448 reserved    0
 */
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include "lib/base/crc32c.h"
#include "lib/base/log.h"

#include <errno.h>
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
};

/* The bytes of one slot of an area of MDA_SIZE bytes. */
static uint64_t slot_bytes(uint64_t mda_size)
{
	return (mda_size / VG_MDA_SLOTS) & ~(uint64_t)511;
}

static uint64_t slot_size(const struct vg_label *l)
{
	return slot_bytes(l->mda.size);
}

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

	for (k = 0; k < VG_MDA_SLOTS && !r; k++)
		r = write_blank(io, label, k);
	if (!r)
		r = io_flush(io);
	if (r)
		log_error("%s: cannot format the VG metadata area: %s", io->name, strerror(-r));
	return r;
}

/* One slot as read: state, and for VALID its seqno and malloc'd text.
 * A slot read for a commit (read_slot's LAZY) is VALID with UNCHECKED
 * set once its header is sound and its text read: slot_valid compares
 * the text's checksum only when the commit's choice depends on it. */
struct slot_copy {
	enum vg_slot_state state;
	uint64_t seqno;
	uint32_t crc;		/* the text's; UNCHECKED: the header's, not yet compared */
	int unchecked;
	char *text;
	size_t len;
};

static enum vg_slot_state slot_bad(struct io_engine *io, unsigned k, const char *why,
				   int quiet)
{
	if (quiet)
		return VG_SLOT_CORRUPT;
	log_warn("%s: VG metadata slot %u is corrupt (%s); it will be rewritten on the next "
		 "change", io->name, k, why);
	return VG_SLOT_CORRUPT;
}

/* Read and validate slot K of PV. Returns 0 with C filled (c->text only
 * for VALID), or -errno for an I/O error / ENOMEM. LAZY: no warnings, and
 * the text's checksum left to slot_valid (the commit that is about to
 * rewrite the slot: each of its texts is read, so a device it cannot read
 * fails it as before, but the commit's choice seldom needs more than one
 * copy a device checked). */
static int read_slot(struct vg_pv *pv, unsigned k, struct slot_copy *c, int lazy)
{
	int quiet = lazy;
	const struct vg_label *l = &pv->label;
	uint8_t h[VG_MDA_SLOT_HEADER], raw[VG_UUID_BYTES];
	uint64_t off = slot_offset(l, k), len;
	char *buf;
	int r;

	memset(c, 0, sizeof(*c));
	r = io_read(pv->io, off, h, sizeof(h));
	if (r)
		return r;
	if (memcmp(h + MO_MAGIC, VG_MDA_MAGIC, 8)) {
		c->state = VG_SLOT_EMPTY;
		return 0;
	}
	if (le32_get(h + MO_CSUM) != tp_block_csum(h, sizeof(h), VG_MDA_CSUM_SALT)) {
		c->state = slot_bad(pv->io, k, "bad header checksum", quiet);
		return 0;
	}
	if (le32_get(h + MO_VERSION) != VG_MDA_VERSION || le64_get(h + MO_OFFSET) != off ||
	    le32_get(h + MO_SLOT) != k) {
		c->state = slot_bad(pv->io, k, "wrong version or location", quiet);
		return 0;
	}
	if (vg_uuid_parse(l->pool_uuid, raw) || memcmp(raw, h + MO_POOL_UUID, sizeof(raw))) {
		c->state = slot_bad(pv->io, k, "belongs to another pool", quiet);
		return 0;
	}
	len = le64_get(h + MO_TEXT_LEN);
	c->seqno = le64_get(h + MO_SEQNO);
	if (!c->seqno && !len) {
		c->state = VG_SLOT_BLANK;	/* formatted, never written */
		return 0;
	}
	if (!c->seqno || !len || len > vg_mda_capacity(l)) {
		c->state = slot_bad(pv->io, k, "seqno or text length out of range", quiet);
		return 0;
	}
	buf = malloc(round512((size_t)len) + 1);
	if (!buf)
		return -ENOMEM;
	r = io_read(pv->io, off + VG_MDA_SLOT_HEADER, buf, round512((size_t)len));
	if (r) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	if (lazy) {
		c->state = VG_SLOT_VALID;
		c->unchecked = 1;
		c->crc = le32_get(h + MO_TEXT_CRC);
		c->text = buf;
		c->len = (size_t)len;
		return 0;
	}
	c->crc = text_crc(buf, (size_t)len);
	if (c->crc != le32_get(h + MO_TEXT_CRC)) {
		free(buf);
		c->state = slot_bad(pv->io, k, "bad text checksum: torn or damaged write", quiet);
		return 0;
	}
	c->state = VG_SLOT_VALID;
	c->text = buf;
	c->len = (size_t)len;
	return 0;
}

/* Is C (read lazily) a valid copy? Its text checked now if it was not. */
static int slot_valid(struct slot_copy *c)
{
	if (c->state == VG_SLOT_VALID && c->unchecked) {
		c->unchecked = 0;
		if (text_crc(c->text, c->len) != c->crc) {
			free(c->text);
			c->text = NULL;
			c->state = VG_SLOT_CORRUPT;
		}
	}
	return c->state == VG_SLOT_VALID;
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

/* Read every slot of every pv into C[pv][slot] and fill ST. A device that
 * cannot be read gets ST->read_error and EMPTY slots. LAZY: read_slot's
 * (ST then says VALID of a slot whose text is not checked yet). */
static int scan(struct vg_pv *pvs, unsigned n, struct slot_copy c[][VG_MDA_SLOTS],
		struct vg_mda_status *st, int lazy)
{
	unsigned i, k;
	int r;

	memset(st, 0, sizeof(*st));
	st->nr_pvs = n;
	for (i = 0; i < n; i++) {
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			r = read_slot(&pvs[i], k, &c[i][k], lazy);
			if (r == -ENOMEM)
				return r;
			if (r) {
				log_error("%s: cannot read VG metadata slot %u: %s", pvs[i].io->name,
					  k, strerror(-r));
				st->read_error[i] = r;
				c[i][k].state = VG_SLOT_EMPTY;
			}
			st->slot[i][k].state = c[i][k].state;
			st->slot[i][k].seqno = c[i][k].seqno;
		}
	}
	return 0;
}

static void free_scan(struct slot_copy c[][VG_MDA_SLOTS], unsigned n)
{
	unsigned i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < VG_MDA_SLOTS; k++)
			free(c[i][k].text);
}

int vg_mda_commit_keep(struct vg_pv *pvs, unsigned n, uint64_t seqno, const char *text,
		       size_t len, uint64_t keep)
{
	struct slot_copy c[VG_MDA_MAX_DEVICES][VG_MDA_SLOTS];
	struct vg_mda_status st;
	uint8_t raw[VG_UUID_BYTES];
	uint8_t *buf = NULL;
	unsigned i, k, target[VG_MDA_MAX_DEVICES];
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
	r = scan(pvs, n, c, &st, 1);
	if (r)
		goto out;
	/* The target of each device: the slot after the one holding KEEP, else
	 * after its newest copy. A copy's text is checked only where that
	 * choice, the refusal of a stale commit or the blanking below turn on
	 * whether it is valid (slot_valid): one copy a device as a rule. */
	for (i = 0; i < n; i++) {
		struct slot_copy *s = c[i];
		uint64_t best = 0;
		int kept = 0;

		if (st.read_error[i]) {
			r = st.read_error[i];
			goto out;
		}
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			if (s[k].state == VG_SLOT_VALID && s[k].seqno >= seqno && slot_valid(&s[k])) {
				log_error("%s: VG metadata seqno %llu is not newer than the %llu on "
					  "disk: was the pool changed meanwhile?", pvs[i].io->name,
					  (unsigned long long)seqno, (unsigned long long)s[k].seqno);
				r = -ESTALE;
				goto out;
			}
		}
		target[i] = 0;
		for (k = 0; k < VG_MDA_SLOTS; k++)
			if (keep && s[k].state == VG_SLOT_VALID && s[k].seqno == keep &&
			    slot_valid(&s[k])) {
				target[i] = (k + 1) % VG_MDA_SLOTS;
				kept = 1;
			}
		for (k = 0; k < VG_MDA_SLOTS && !kept; k++) {
			if (s[k].state == VG_SLOT_VALID && s[k].seqno > best && slot_valid(&s[k])) {
				best = s[k].seqno;
				target[i] = (k + 1) % VG_MDA_SLOTS;
			}
		}
		slot_valid(&s[1 - target[i]]);	/* (the blanking below asks) */
	}
	/* the slot as written: the header, the text, zeros to a sector */
	buf = malloc(VG_MDA_SLOT_HEADER + round512(len));
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	memset(buf, 0, VG_MDA_SLOT_HEADER);
	memset(buf + VG_MDA_SLOT_HEADER + len, 0, round512(len) - len);
	memcpy(buf + MO_MAGIC, VG_MDA_MAGIC, 8);
	le32_put(buf + MO_VERSION, VG_MDA_VERSION);
	memcpy(buf + MO_POOL_UUID, raw, sizeof(raw));
	le64_put(buf + MO_SEQNO, seqno);
	le64_put(buf + MO_TEXT_LEN, len);
	le32_put(buf + MO_TEXT_CRC, text_crc(text, len));
	memcpy(buf + VG_MDA_SLOT_HEADER, text, len);
	for (i = 0; i < n; i++) {
		uint64_t off = slot_offset(&pvs[i].label, target[i]);

		le64_put(buf + MO_OFFSET, off);
		le32_put(buf + MO_SLOT, target[i]);
		le32_put(buf + MO_CSUM, tp_block_csum(buf, VG_MDA_SLOT_HEADER, VG_MDA_CSUM_SALT));
		r = io_write(pvs[i].io, off, buf, VG_MDA_SLOT_HEADER + round512(len));
		/* the other slot holding no copy (the area wiped, damaged, or
		 * another pool's): blank now, so that it does not read as a
		 * copy lost or damaged until the commit after this one */
		if (!r && (c[i][1 - target[i]].state == VG_SLOT_EMPTY ||
			   c[i][1 - target[i]].state == VG_SLOT_CORRUPT))
			r = write_blank(pvs[i].io, &pvs[i].label, 1 - target[i]);
		if (!r)
			r = io_flush(pvs[i].io);
		if (r) {
			log_error("%s: cannot write VG metadata (seqno %llu): %s", pvs[i].io->name,
				  (unsigned long long)seqno, strerror(-r));
			goto out;
		}
		log_debug(TP_DBG_VG, "%s: VG metadata seqno %llu in slot %u", pvs[i].io->name,
			  (unsigned long long)seqno, target[i]);
	}
out:
	free(buf);
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

int vg_mda_read_copies(struct vg_pv *pvs, unsigned n, struct vg_mda_copy *copies, unsigned max,
		       struct vg_mda_status *status)
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
	r = scan(pvs, n, c, &st, 0);
	if (r)
		goto done;
	/* distinct valid copies, newest first (insertion sort of <= 4) */
	for (i = 0; i < n; i++) {
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			struct slot_copy *s = &c[i][k];
			unsigned j, dup = 0;

			if (s->state != VG_SLOT_VALID)
				continue;
			for (j = 0; j < nr; j++) {
				if (list[j]->seqno != s->seqno)
					continue;
				if (list[j]->crc != s->crc || list[j]->len != s->len ||
				    memcmp(list[j]->text, s->text, s->len)) {
					log_error("%s: two different VG metadata copies carry seqno "
						  "%llu; restore the pool's VG metadata from a backup "
						  "(tprepair --restorefile)",
						  pvs[i].io->name, (unsigned long long)s->seqno);
					r = -EUCLEAN;
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
	st.seqno = list[0]->seqno;
	for (i = 0; i < n; i++) {
		int has = 0;
		for (k = 0; k < VG_MDA_SLOTS; k++) {
			/* a slot without our magic beside a copy: wiped or
			 * overwritten (a formatted slot is blank, not empty) */
			if (c[i][k].state == VG_SLOT_CORRUPT ||
			    (c[i][k].state == VG_SLOT_EMPTY &&
			     c[i][1 - k].state == VG_SLOT_VALID && !st.read_error[i]))
				st.needs_repair = 1;
			if (c[i][k].state == VG_SLOT_VALID && c[i][k].seqno == st.seqno)
				has = 1;
		}
		if (!has) {
			st.needs_repair = 1;
			log_warn("%s: VG metadata is stale (newest seqno %llu is missing); it will "
				 "be rewritten on the next change", pvs[i].io->name,
				 (unsigned long long)st.seqno);
		}
	}
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
