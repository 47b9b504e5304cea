/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_delta.h - a VG text as the change from another: the ops that turn a
 * BASE text into a NEW one, and NEW rebuilt from BASE and those ops.
 *
 * Owns: the delta encoding (byte by byte in vg_delta.c). It knows nothing
 * of slots, seqnos or checksums: the VG area's journal (mda.c) keeps a
 * whole text as a checkpoint and after it records, each the delta from
 * that checkpoint to the text of one commit, with the length and crc32c
 * of the text the delta makes in the record's header, so that a delta is
 * always checked by what it makes. Its own reader still takes no byte of
 * a delta on trust: a delta that is malformed in any way is -EUCLEAN.
 *
 * The encoder is made for the edits of VG commits (a few lines of the
 * pool's header, volume entries added, removed, renamed or changed, a
 * section that appears or goes): a delta is about as long as the bytes
 * that differ, not as the text, and its cost is O(BLEN + NLEN) whatever
 * the inputs (texts of thousands of identical lines included), memory
 * O(lines of BASE) at most. Any two byte strings round-trip exactly. */
#ifndef TP_VG_DELTA_H
#define TP_VG_DELTA_H

#include <stddef.h>

#include "lib/base/compiler.h"

/* The ops that turn BASE (BLEN bytes) into NEW (NLEN bytes), malloc'd in
 * *OUT (*OUT_LEN bytes). 0; -E2BIG when the encoding would be longer than
 * MAX bytes (nothing returned: the caller writes a whole checkpoint
 * instead); -ENOMEM. Logs no message (a debug trace of the vg class when
 * the edits need an index of the whole base). */
int vg_delta_encode(const char *base, size_t blen, const char *new, size_t nlen, size_t max,
		    void **out, size_t *out_len) TP_MUST_CHECK;

/* NEW rebuilt from BASE and the delta D (DLEN bytes): *TEXT malloc'd,
 * NUL-terminated (one byte more than *LEN). 0; -EUCLEAN for a delta that
 * is malformed in any way (an op past the end of BASE or of D, a length
 * that does not add up, trailing bytes, an unknown op, a result longer
 * than LIMIT bytes), logged once with log_error naming what is wrong;
 * -ENOMEM. Nothing is allocated for a malformed delta. */
int vg_delta_apply(const char *base, size_t blen, const void *d, size_t dlen, size_t limit,
		   char **text, size_t *len) TP_MUST_CHECK;

/* Does the delta D (DLEN bytes) turn BASE into TEXT (LEN bytes)? 0 when
 * it does, byte for byte, -EILSEQ when it makes another text (not
 * logged), -EUCLEAN when it is malformed (as vg_delta_apply, logged).
 * What vg_delta_apply and a memcmp would say, with nothing allocated: a
 * writer's check of a delta before it is written. */
int vg_delta_verify(const char *base, size_t blen, const void *d, size_t dlen, const char *text,
		    size_t len) TP_MUST_CHECK;

#endif
