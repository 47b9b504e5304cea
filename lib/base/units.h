/* SPDX-License-Identifier: GPL-2.0-or-later */
/* units.h - size parsing and printing, LVM-style.
 *
 * Parsing: "<digits>[.<digits>][unit]" where unit is one of b (bytes),
 * s (512-byte sectors), k/K, m/M, g/G, t/T, p/P (binary: 1024^n); an
 * optional trailing "iB"/"B" is accepted ("10GiB", "10G", "10g").
 * A number without a unit is taken in the caller's default unit.
 * Rejected with a message naming the option: empty strings, signs,
 * garbage, unknown units, fractions that do not come to whole bytes
 * (fractions of a sector are rounded up to a byte), and overflow of
 * 64-bit byte counts.
 *
 * Printing: tp_size_format() prints bytes in a unit ('h' = human, the
 * largest binary unit giving a value >= 1; 'b','s','k','m','g','t','p' =
 * that unit, powers of 1024) with two decimals where the value is not
 * whole, e.g. "1.50 GiB" for 'h', "204800s" for sectors, "1.50m" style
 * for explicit units. Upper case is SI as in lvs(8) --units: 'H' the
 * largest power of 1000 ("1.61 GB"), 'K','M','G','T','P' powers of 1000
 * with an upper-case suffix ("1.61G"); 'B' and 'S' are 'b' and 's'.
 * (Parsing stays binary in either case: -V 10G is 10 GiB, as in LVM.) */
#ifndef TP_BASE_UNITS_H
#define TP_BASE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

#define TP_SECTOR_SIZE 512u
#define TP_KiB (1024ull)
#define TP_MiB (1024ull * TP_KiB)
#define TP_GiB (1024ull * TP_MiB)
#define TP_TiB (1024ull * TP_GiB)
#define TP_PiB (1024ull * TP_TiB)

/* Parse STR into *BYTES. DEFAULT_UNIT is the unit of a bare number
 * (one of "bskmgtp"). Returns 0, or -EINVAL (garbage) / -ERANGE (overflow)
 * after storing a human explanation in ERRBUF (if not NULL). */
int tp_size_parse(const char *str, char default_unit, uint64_t *bytes, char *errbuf,
		  size_t errlen) TP_MUST_CHECK;

/* The same, logging "invalid size 'STR' for WHAT: reason" on error. */
int tp_size_parse_arg(const char *what, const char *str, char default_unit,
		      uint64_t *bytes) TP_MUST_CHECK;

/* Is UNIT a valid --units letter (h or one of bskmgtp, any case)? */
int tp_units_valid(char unit);

/* BYTES for a message that states a device's size: 'h' when that is
 * exact ("1 GiB"), else the rounded form and the exact one in the largest
 * unit that divides it ("1.00 GiB (1025 MiB)"), which agree. */
const char *tp_size_format_exact(uint64_t bytes, char *buf, size_t len);

/* BYTES as a lower bound ("must be at least ..."), one figure that is
 * never below it: 'h' when exact, else exact in the largest unit of KiB or
 * more that divides it ("1088 KiB", "1025 MiB"), else rounded UP to a
 * whole MiB (KiB, B below 1 MiB, 1 KiB). So the bound never reads as the
 * device's own rounded size ("1.00 GiB" for what a 1 GiB device lacks). */
const char *tp_size_format_min(uint64_t bytes, char *buf, size_t len);

/* Print BYTES in UNIT (an --units letter, or 0 for 'h') into BUF (at
 * least 32 bytes); returns BUF. */
const char *tp_size_format(uint64_t bytes, char unit, char *buf, size_t len);
/* A and B in one unit with two decimals (the unit of the smaller), so
 * they compare at a glance; in bytes when that unit makes two different
 * sizes look the same. */
void tp_size_format_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t len);

/* A duration: a whole number with one unit, s, m, h, d or w (seconds,
 * minutes, hours, days, weeks; a bare number is seconds), e.g. "12h",
 * "7d"; "off" is 0 ("0", "0s" are refused: -EINVAL). Into *SECONDS (at most TP_DURATION_MAX, ten
 * years of 365 days): 0, or -EINVAL (garbage, a sign, a fraction) / -ERANGE (too
 * long) with a human explanation in ERRBUF (if not NULL). */
#define TP_DURATION_MAX (3650ull * 24 * 3600)
int tp_duration_parse(const char *str, uint64_t *seconds, char *errbuf, size_t errlen)
	TP_MUST_CHECK;
/* SECONDS in the largest unit that divides it ("12h", "90m", "45s"; 0 is
 * "off"); returns BUF (at least 24 bytes). */
const char *tp_duration_format(uint64_t seconds, char *buf, size_t len);
/* An age or time left, rounded down to its largest unit ("3d", "5h",
 * "42s"), for listings; returns BUF (at least 24 bytes). */
const char *tp_duration_format_approx(uint64_t seconds, char *buf, size_t len);

#endif
