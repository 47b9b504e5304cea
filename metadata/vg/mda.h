/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mda.h - the VG metadata area: two slots of VG text on EACH pool device.
 *
 * Owns: the on-disk slot format (byte offsets in mda.c and
 * man/tp-metadata.5) and the commit / read protocol. It stores opaque
 * text; vg.h turns text into a struct vg and back.
 *
 * Geometry: the area is label.mda of each device. It holds two slots of
 * mda.size / 2 bytes each; a slot is a 512-byte header (magic, crc of the
 * header, pool uuid, seqno, text length, crc of the text, own offset)
 * followed by the text. Text capacity per slot: mda.size / 2 - 512 bytes
 * (about 510 KiB with the default area: thousands of volumes).
 *
 * Commit (vg_mda_commit): on each device in turn, the text with the new
 * seqno goes into the slot that does NOT hold that device's newest valid
 * copy (one write of header + text), then the device is flushed. So at
 * every moment each device keeps its previous valid copy, and a torn or
 * lost write leaves the old commit readable. A pool of VG format 2 (a
 * journal) appends a change record to that same slot instead, most of the
 * time, after the copies it holds: the other slot's newest copy, the
 * commit before, stays as in format 1.
 *
 * Read (vg_mda_read): every slot of every device is validated (a slot's
 * copy: its text, or its text with its newest good change record
 * applied); the copy with the highest seqno wins. Slots that are corrupt, or devices that do
 * not hold the winning seqno, are reported (struct vg_mda_status) so the
 * caller can say so and repair them: the next commit rewrites every device.
 * Two valid copies with the same seqno but different text are -EUCLEAN
 * (never happens in a correct history: say so rather than guess).
 *
 * All functions return 0 or -errno: -ENOSPC for text that does not fit a
 * slot (logged with both sizes), -ENODATA when no device holds a valid
 * copy (a freshly formatted area, or every copy destroyed), -EUCLEAN for
 * inconsistencies that must not be guessed at, -EPROTONOSUPPORT when a
 * slot is of a newer format (VG_SLOT_NEWER: the read and the commit
 * refuse the area, the status says where; not logged by the read). */
#ifndef TP_VG_MDA_H
#define TP_VG_MDA_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"
#include "metadata/vg/label.h"

#define VG_MDA_MAGIC "TPVGMDA\x01"	/* 8 bytes at slot offset 4 */
#define VG_MDA_SLOT_HEADER 512u
#define VG_MDA_CSUM_SALT 0x41444d56u	/* xor into the slot header crc */
#define VG_MDA_SLOTS 2
/* change records after a slot's text (mda.c has the layout) */
#define VG_MDA_FLAG_JOURNAL 1u		/* slot header flag: records may follow */
#define VG_MDA_REC_MAGIC "TPVGREC\x01"	/* 8 bytes at record offset 4 */
#define VG_MDA_REC_HEADER 96u
#define VG_MDA_REC_SALT 0x43455256u	/* xor into the record header crc */
/* the most records after one checkpoint, and the delta a record may
 * always take (more: up to 1/8 of the checkpoint's text) */
#define VG_MDA_REC_MAX 64u
#define VG_MDA_REC_DELTA_MIN (32u * 1024u)
/* the most devices a VG is read from (label.h: VG_DATA_DEVICES_MAX) */
#define VG_MDA_MAX_DEVICES (VG_DATA_DEVICES_MAX + 2)	/* the data devices and both metas */

/* One labelled pool device: an open engine and its label (read with
 * vg_label_read or just written). The caller owns both. */
struct vg_pv {
	struct io_engine *io;
	struct vg_label label;
};

enum vg_slot_state {
	VG_SLOT_EMPTY = 0,	/* no magic: never written (or wiped) */
	VG_SLOT_VALID,		/* header and text check out */
	VG_SLOT_CORRUPT,	/* our magic, but a crc / bound / uuid check failed */
	/* formatted and never written (vg_mda_format: the header with seqno
	 * 0 and no text): a slot with no magic on a device formatted so is
	 * a copy wiped or overwritten */
	VG_SLOT_BLANK,
	/* our magic, checksum, place and pool, but a version field above
	 * what this tptools reads (the slot header's, or that of the change
	 * record where its chain ends): a newer tptools' write, never damage
	 * to fall back past and write over; a read of the area refuses it
	 * (-EPROTONOSUPPORT) */
	VG_SLOT_NEWER,
};

struct vg_mda_slot_status {
	enum vg_slot_state state;
	uint64_t seqno;		/* VALID only */
	/* VALID with change records: how many the copy applied, and the
	 * newest one's device offset and bytes (header, delta, padding) */
	unsigned records;
	uint64_t record_off, record_len;
	/* VALID: the device offset of a change record after the copy's that
	 * is damaged (its header's checksum, or it names this checkpoint
	 * and does not chain, or its delta or result does not check out;
	 * 0: none), and whether the slot is of format 2 (the journal flag) */
	uint64_t damaged_off;
	int journal;
	/* VALID: its copy is one vg_read refused and fell back past (its
	 * text does not import, or makes another seqno than the one it is
	 * stored under): damage, though every checksum of it is right */
	int unusable;
	/* VALID, a copy older than the one a check's read took (vg_read
	 * with VG_MDA_READ_WHOLE): of a format newer than this tptools reads
	 * (a newer tptools wrote it; the next commit writes over it) */
	int newer_copy;
	/* NEWER: the version found, and the device offset of the change
	 * record that carries it (0: the slot header's); seqno is then the
	 * header's */
	uint32_t newer_version;
	uint64_t newer_off;
};

/* What vg_mda_read found on each device (index = position in the pvs
 * array given to vg_mda_read). */
struct vg_mda_status {
	unsigned nr_pvs;
	struct vg_mda_slot_status slot[VG_MDA_MAX_DEVICES][VG_MDA_SLOTS];
	int read_error[VG_MDA_MAX_DEVICES];	/* -errno reading that device, or 0 */
	uint64_t seqno;		/* the winning (newest valid) seqno */
	/* 1 when some device lacks a valid copy of the winning seqno or has a
	 * corrupt slot; the next vg_mda_commit puts it right. */
	int needs_repair;
};

/* Largest text (bytes) one slot of LABEL's area can hold. */
size_t vg_mda_capacity(const struct vg_label *label);
/* The same for an area of MDA_SIZE bytes (what the label records). */
size_t vg_mda_capacity_of(uint64_t mda_size);

/* ---- the size of a pool's VG area (tpcreate --vg-area) ----
 * A pool's VG area SPAN is the room at the start of each of its devices
 * up to the end of the VG metadata area: sector 0, the label, then the
 * area from VG_MDA_DEFAULT_OFFSET to SPAN. Every device of a pool has the
 * same span (each label records its mda.offset/mda.size, so a pool keeps
 * the span it was made with; a device added later copies it); on a
 * mirrored pool's metadata devices the kernel raid1's metadata
 * (VG_RAID_META_BYTES, vg.h) takes the last 512 KiB of the span. Pools
 * made before --vg-area have a span of 1 MiB. */
#define VG_AREA_SPAN_DEFAULT (1024u * 1024u)
#define VG_AREA_SPAN_MIN (64u * 1024u)		/* --vg-area's smallest */
#define VG_AREA_SPAN_MIN_MIRROR (1024u * 1024u)	/* ... with mirrored thin metadata */
#define VG_AREA_SPAN_ALIGN (64u * 1024u)	/* --vg-area is a multiple of it */
#define VG_AREA_SPAN_MAX (1024ull * 1024u * 1024u)	/* --vg-area's largest */
#define VG_AREA_RAID_META (512u * 1024u)	/* = VG_RAID_META_BYTES (vg.h) */
/* What auto sizes the area for: VG_AREA_AUTO_VOLUMES volumes of the
 * largest VG text a volume can have (a snapshot with a 64-byte name and
 * origin, a 24-bit device id, a 19-digit size, read-only, activation
 * skip, content and LUKS uuids: 368 bytes in the VG text format of
 * version 1; an average volume takes about 104) and
 * VG_AREA_POOL_TEXT bytes of the pool's own (header, devices, removals
 * under way, trash), in each of the two slots; at most 1 /
 * VG_AREA_AUTO_FRACTION of the pool's smallest device, at least 1 MiB, */
#define VG_AREA_AUTO_VOLUMES 100000u
#define VG_AREA_VOLUME_TEXT_MAX 368u
#define VG_AREA_VOLUME_TEXT_TYPICAL 104u	/* measured: issue 40 */
#define VG_AREA_POOL_TEXT (64u * 1024u)
#define VG_AREA_AUTO_FRACTION 64u
/* ... on pools whose smallest device is larger than this: on smaller ones
 * auto keeps VG_AREA_SPAN_DEFAULT, the layout of every pool before
 * --vg-area */
#define VG_AREA_AUTO_SMALL (1024ull * 1024u * 1024u)

/* The mda.size of a device in a pool of SPAN bytes: SPAN less the label's
 * room (VG_MDA_DEFAULT_OFFSET), less VG_AREA_RAID_META on a metadata
 * device of a mirrored pool (RAID_META); 0 when SPAN is too small. */
uint64_t vg_area_mda_size(uint64_t span, int raid_meta);
/* The span whose every device's slots hold VOLUMES volumes of the
 * largest text and the pool's own (see above), rounded up to 1 MiB. */
uint64_t vg_area_span_for(uint64_t volumes, int mirrored);
/* tpcreate --vg-area auto: for a pool whose smallest device has SMALLEST
 * bytes: VG_AREA_SPAN_DEFAULT up to VG_AREA_AUTO_SMALL (small devices
 * keep today's layout), above 1/VG_AREA_AUTO_FRACTION of it rounded down
 * to 1 MiB, at most vg_area_span_for(VG_AREA_AUTO_VOLUMES, MIRRORED). */
uint64_t vg_area_span_auto(uint64_t smallest, int mirrored);
/* Is SPAN a valid --vg-area (alignment, bounds)? 0, or -EINVAL with the
 * reason in WHY naming OPT and the smallest or largest allowed value. */
int vg_area_span_valid(const char *opt, uint64_t span, int mirrored, char *why, size_t len)
	TP_MUST_CHECK;
/* How many volumes of VOLUME_TEXT bytes each the slots of CAPACITY bytes
 * (vg_mda_capacity) hold besides POOL_TEXT bytes of the pool's own. */
uint64_t vg_area_volumes(size_t capacity, size_t pool_text, size_t volume_text);

/* Zero both slot headers of the area on IO and flush (tpcreate on a fresh
 * device, so slots of an earlier pool are not mistaken; tpremove). */
int vg_mda_format(struct io_engine *io, const struct vg_label *label) TP_MUST_CHECK;

/* Write TEXT (LEN bytes, no NUL needed) with SEQNO to every device as
 * described above. SEQNO must be greater than any seqno on the devices
 * (the caller passes vg->seqno + 1 of what it read), else -ESTALE before
 * anything is written. Devices must carry the same pool uuid (-EINVAL);
 * a device that cannot be read first fails the commit before any write. On error some devices may hold the new commit and
 * some not: a following read returns the newest one fully written. A
 * slot holding a valid copy with seqno KEEP is never the one overwritten
 * (vg_commit passes the seqno its text was read from, so a newer copy
 * that checksums but does not import cannot make it overwrite the last
 * usable one); KEEP 0: none kept. FLAGS 0: a pool of VG format 1.
 * VG_MDA_JOURNAL: the text is of a pool whose slots
 * take change records (VG format 2): on each device the slot chosen as
 * above, when it holds a valid copy with the journal flag, takes the text
 * as a record after its copies (one write of a sector or a few, then the
 * flush), unless it has VG_MDA_REC_MAX records already, the delta from its
 * checkpoint is over its bound, or the room is short: then, and on every
 * other device, a checkpoint (the whole text, the slot flagged) as above.
 * The checkpoint a record is made from is read again and checked by its
 * crc, once: a later device whose target holds the same checkpoint (its
 * seqno, length and crc, checked when this process read the slot) takes
 * the same delta unread; had its bytes been damaged since, the record's
 * result fails its crc on the next read and that device reads as the
 * seqno before it, stale beside the other. A
 * journal checkpoint written beside a valid copy without the flag (the
 * pool's first commit in format 2) is then written over that copy too,
 * so that no tptools before the journal can fall back to a copy the
 * records leave behind. */
#define VG_MDA_JOURNAL 1u
int vg_mda_commit(struct vg_pv *pvs, unsigned nr_pvs, uint64_t seqno, const char *text,
		  size_t len, uint64_t keep, unsigned flags) TP_MUST_CHECK;

/* Read the newest valid copy over all devices. On 0: *TEXT is a malloc'd,
 * NUL-terminated copy (caller frees), *LEN its length, and STATUS (may be
 * NULL) says what was found on each slot. A device that cannot be read is
 * tolerated while another holds a valid copy (recorded in
 * status->read_error). */
int vg_mda_read(struct vg_pv *pvs, unsigned nr_pvs, char **text, size_t *len,
		struct vg_mda_status *status) TP_MUST_CHECK;

/* All valid copies, newest first, for a caller that wants to fall back
 * when the newest copy's text does not import (vg_read does this).
 * Fills up to MAX entries; returns how many (>= 1; 0 only when MAX is
 * 0), or -errno (-ENODATA when there is no valid copy at all). Each
 * texts[i] is malloc'd and NUL-terminated; free with vg_mda_free_copies.
 * Every slot is read and checked, but only the texts of the MAX newest
 * seqnos are held meanwhile (a copy of one commit on several devices is
 * held once): MAX 1 holds one text at a time. */
struct vg_mda_copy {
	uint64_t seqno;
	char *text;
	size_t len;
};
int vg_mda_read_copies(struct vg_pv *pvs, unsigned nr_pvs, struct vg_mda_copy *copies,
		       unsigned max, struct vg_mda_status *status) TP_MUST_CHECK;
void vg_mda_free_copies(struct vg_mda_copy *copies, unsigned n);
/* The same with FLAGS: VG_MDA_READ_WHOLE reads every slot of every
 * device whole, its newest change record applied and its result checked
 * (a damaged one said, and in STATUS, as for the newest copy), the memo
 * passed by. Without it a slot that does not claim the newest seqno is
 * checked up to its newest record's delta, not applied (the readers' fast
 * path): for a check, which must name every damaged copy (tpcheck(8),
 * tprepair(8)). */
#define VG_MDA_READ_WHOLE 1u
/* VG_MDA_READ_NO_STALE: a device that lacks the newest copy is not said
 * (vg_read says it once it has taken a copy, vg_mda_warn_stale: not
 * before a refusal of the pool, whose next change is none) */
#define VG_MDA_READ_NO_STALE 2u
/* Say, for each device of PVS that lacks the newest copy in ST, that it
 * is stale and the next change rewrites it. */
void vg_mda_warn_stale(const struct vg_pv *pvs, const struct vg_mda_status *st);
int vg_mda_read_copies_flags(struct vg_pv *pvs, unsigned nr_pvs, struct vg_mda_copy *copies,
			     unsigned max, unsigned flags, struct vg_mda_status *status)
	TP_MUST_CHECK;

/* The memo of slots checked (mda.c): between vg_mda_memo_begin and the
 * vg_mda_memo_end that matches it (they nest), a slot a read found valid
 * is not read and checked again while its header, its newest change
 * record's first sector and the sector after its records read back byte
 * for byte the same; a read still reads and checks the copy it returns.
 * For the reads of one command under its pool's lock: a caller that
 * changes a slot's bytes itself other than through vg_mda_commit and
 * vg_mda_format (a test that damages a copy) reads outside them. */
void vg_mda_memo_begin(void);
void vg_mda_memo_end(void);

#endif
