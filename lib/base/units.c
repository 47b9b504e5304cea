/* SPDX-License-Identifier: GPL-2.0-or-later */
/* units.c - see units.h. */
#include "lib/base/units.h"
#include "lib/base/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int unit_shift(char u, uint64_t *mult)
{
	switch (tolower((unsigned char)u)) {
	case 'b': *mult = 1; return 0;
	case 's': *mult = TP_SECTOR_SIZE; return 0;
	case 'k': *mult = TP_KiB; return 0;
	case 'm': *mult = TP_MiB; return 0;
	case 'g': *mult = TP_GiB; return 0;
	case 't': *mult = TP_TiB; return 0;
	case 'p': *mult = TP_PiB; return 0;
	default: return -EINVAL;
	}
}

#define FAIL(code, ...)                                          \
	do {                                                     \
		if (errbuf && errlen)                            \
			snprintf(errbuf, errlen, __VA_ARGS__);   \
		return (code);                                   \
	} while (0)

int tp_size_parse(const char *str, char default_unit, uint64_t *bytes, char *errbuf,
		  size_t errlen)
{
	const char *p = str;
	uint64_t whole = 0, mult, frac_num = 0, frac_den = 1, result;
	int ndigits = 0, nfrac = 0;

	if (!str || !*str)
		FAIL(-EINVAL, "the size is empty; give a number with an optional unit, e.g. 10G");
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		FAIL(-EINVAL, "sizes cannot be negative");
	if (*p == '+')
		FAIL(-EINVAL, "a size takes no sign; write e.g. 10G");
	for (; isdigit((unsigned char)*p); p++, ndigits++) {
		unsigned d = (unsigned)(*p - '0');
		if (whole > (UINT64_MAX - d) / 10)
			FAIL(-ERANGE, "the number is too large");
		whole = whole * 10 + d;
	}
	if (*p == '.') {
		p++;
		for (; isdigit((unsigned char)*p); p++, nfrac++) {
			if (nfrac >= 12)
				FAIL(-EINVAL, "too many decimal places (12 at most)");
			frac_num = frac_num * 10 + (uint64_t)(*p - '0');
			frac_den *= 10;
		}
		if (!nfrac)
			FAIL(-EINVAL, "a decimal point must be followed by digits");
	}
	if (!ndigits && !nfrac)
		FAIL(-EINVAL, "expected a number, e.g. 10G or 512M");
	if (*p) {
		const char *u = p;
		if (unit_shift(*u, &mult))
			FAIL(-EINVAL, "unknown unit '%c'; use b, s (512-byte sectors), K, M, G, T or P",
			     *u);
		u++;
		/* Accept 10GiB, 10GB, 10g; 'b' and 's' take no suffix. */
		if (tolower((unsigned char)*p) != 'b' && tolower((unsigned char)*p) != 's') {
			if ((u[0] == 'i' || u[0] == 'I') && (u[1] == 'B' || u[1] == 'b'))
				u += 2;
			else if (u[0] == 'B' || u[0] == 'b')
				u += 1;
		}
		while (isspace((unsigned char)*u))
			u++;
		if (*u)
			FAIL(-EINVAL, "unexpected '%s' after the unit", u);
	} else if (unit_shift(default_unit, &mult)) {
		return TP_BUG("size '%s': bad default unit '%c'", str, default_unit);
	}
	if (whole && mult > UINT64_MAX / whole)
		FAIL(-ERANGE, "the size does not fit in 64 bits (16 EiB at most)");
	result = whole * mult;
	if (nfrac) {
		/* frac_num/frac_den * mult, rounded up to a whole byte. */
		unsigned __int128 f = (unsigned __int128)frac_num * mult;
		uint64_t extra = (uint64_t)((f + frac_den - 1) / frac_den);
		if (result > UINT64_MAX - extra)
			FAIL(-ERANGE, "the size does not fit in 64 bits (16 EiB at most)");
		result += extra;
	}
	*bytes = result;
	return 0;
}

int tp_size_parse_arg(const char *what, const char *str, char default_unit, uint64_t *bytes)
{
	char why[160];
	int r = tp_size_parse(str, default_unit, bytes, why, sizeof(why));

	if (r)
		log_error("invalid size '%s' for %s: %s", str ? str : "", what, why);
	return r;
}

int tp_units_valid(char unit)
{
	return unit && strchr("hHbBsSkKmMgGtTpP", unit) != NULL;
}

static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
static const char *const si[] = { "B", "kB", "MB", "GB", "TB", "PB" };

/* The human form of BYTES in powers of BASE (1024: KiB.. or 1000: kB..):
 * the largest unit giving a value >= 1, whole or with two decimals. */
static void format_human(uint64_t bytes, uint64_t base, const char *const names[6], char *buf,
			 size_t len)
{
	uint64_t mult = 1;
	int i = 0;

	while (i < 5 && bytes / mult >= base) {
		mult *= base;
		i++;
	}
	if (bytes % mult == 0)
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / mult), names[i]);
	else
		snprintf(buf, len, "%.2f %s", (double)bytes / (double)mult, names[i]);
}

/* Is BYTES printed whole by 'h' (no decimals)? */
static int human_whole(uint64_t bytes)
{
	uint64_t mult = 1;

	while (mult < TP_PiB && bytes / mult >= 1024)
		mult *= 1024;
	return bytes % mult == 0;
}

const char *tp_size_format_exact(uint64_t bytes, char *buf, size_t len)
{
	char h[32];
	int i = 0;

	format_human(bytes, 1024, bin, h, sizeof(h));
	if (human_whole(bytes)) {
		snprintf(buf, len, "%s", h);
		return buf;
	}
	/* the largest unit that divides it: the rounded form, then the exact one */
	while (i < 5 && bytes % (1ull << (10 * (i + 1))) == 0)
		i++;
	snprintf(buf, len, "%s (%llu %s)", h, (unsigned long long)(bytes >> (10 * i)), bin[i]);
	return buf;
}

const char *tp_size_format_min(uint64_t bytes, char *buf, size_t len)
{
	uint64_t unit = bytes >= TP_MiB ? TP_MiB : bytes >= TP_KiB ? TP_KiB : 1;
	int i = 0;

	if (human_whole(bytes))
		return tp_size_format(bytes, 'h', buf, len);
	/* exact in a unit of KiB or more ("1088 KiB"), else rounded up */
	while (i < 5 && bytes % (1ull << (10 * (i + 1))) == 0)
		i++;
	if (i) {
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes >> (10 * i)), bin[i]);
		return buf;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / unit + (bytes % unit != 0)),
		 unit == TP_MiB ? "MiB" : unit == TP_KiB ? "KiB" : "B");
	return buf;
}

const char *tp_size_format(uint64_t bytes, char unit, char *buf, size_t len)
{
	static const char letters[] = "bkmgtp";
	char lower = (char)tolower((unsigned char)unit), suffix;
	uint64_t mult;
	int i;

	if (lower == 's') {
		if (bytes % TP_SECTOR_SIZE)
			snprintf(buf, len, "%.2fs", (double)bytes / TP_SECTOR_SIZE);
		else
			snprintf(buf, len, "%llus", (unsigned long long)(bytes / TP_SECTOR_SIZE));
		return buf;
	}
	if (unit == 'H') {
		format_human(bytes, 1000, si, buf, len);
		return buf;
	}
	if (lower == 'h' || !unit) {
		format_human(bytes, 1024, bin, buf, len);
		return buf;
	}
	if (unit_shift(lower, &mult))
		mult = 1, lower = 'b';
	i = (int)(strchr(letters, lower) - letters);
	suffix = letters[i];
	if (unit != lower && lower != 'b') {
		/* upper case: SI, as lvs(8) --units: K = 1000, M = 1000^2, ... */
		mult = 1;
		while (i--)
			mult *= 1000;
		suffix = unit;
	}
	if (bytes % mult == 0)
		snprintf(buf, len, "%llu%c", (unsigned long long)(bytes / mult), suffix);
	else
		snprintf(buf, len, "%.2f%c", (double)bytes / (double)mult, suffix);
	return buf;
}

void tp_size_format_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	uint64_t small = a < b ? a : b;
	int i;

	for (i = 5; i > 0 && small < (1ull << (10 * i)); i--)
		;
	snprintf(abuf, len, "%.2f %s", (double)a / (double)(1ull << (10 * i)), names[i]);
	snprintf(bbuf, len, "%.2f %s", (double)b / (double)(1ull << (10 * i)), names[i]);
	if (!strcmp(abuf, bbuf)) {
		snprintf(abuf, len, "%llu bytes", (unsigned long long)a);
		snprintf(bbuf, len, "%llu bytes", (unsigned long long)b);
	}
}

static const struct {
	char unit;
	uint64_t seconds;
} duration_units[] = {
	{ 'w', 7 * 24 * 3600 }, { 'd', 24 * 3600 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 },
};

int tp_duration_parse(const char *str, uint64_t *seconds, char *errbuf, size_t errlen)
{
	uint64_t v = 0, mult = 1;
	const char *p = str;
	size_t i;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!str || !*str) {
		if (errbuf)
			snprintf(errbuf, errlen, "empty (give e.g. 12h, 7d or off)");
		return -EINVAL;
	}
	if (!strcmp(str, "off")) {
		*seconds = 0;
		return 0;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > TP_DURATION_MAX) {
			if (errbuf)
				snprintf(errbuf, errlen, "longer than ten years (3650d)");
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == str) {
		if (errbuf)
			snprintf(errbuf, errlen, "not a number with a unit (s, m, h, d, w) or off");
		return -EINVAL;
	}
	if (*p) {
		for (i = 0; i < TP_ARRAY_SIZE(duration_units); i++)
			if (*p == duration_units[i].unit)
				break;
		if (i == TP_ARRAY_SIZE(duration_units) || p[1]) {
			if (errbuf)
				snprintf(errbuf, errlen, "unknown unit '%s' (s, m, h, d or w)", p);
			return -EINVAL;
		}
		mult = duration_units[i].seconds;
	}
	if (v > TP_DURATION_MAX / mult) {
		if (errbuf)
			snprintf(errbuf, errlen, "longer than ten years (3650d)");
		return -ERANGE;
	}
	if (!v) {	/* "0" or "0s" is no duration: "off" says what it means */
		if (errbuf)
			snprintf(errbuf, errlen, "a duration of 0 is none: write off to turn it off");
		return -EINVAL;
	}
	*seconds = v * mult;
	return 0;
}

const char *tp_duration_format(uint64_t seconds, char *buf, size_t len)
{
	size_t i;

	if (!seconds) {
		snprintf(buf, len, "off");
		return buf;
	}
	for (i = 0; i < TP_ARRAY_SIZE(duration_units); i++)
		if (seconds % duration_units[i].seconds == 0)
			break;
	snprintf(buf, len, "%llu%c", (unsigned long long)(seconds / duration_units[i].seconds),
		 duration_units[i].unit);
	return buf;
}

const char *tp_duration_format_approx(uint64_t seconds, char *buf, size_t len)
{
	size_t i;

	for (i = 1; i < TP_ARRAY_SIZE(duration_units); i++)	/* weeks read as days */
		if (seconds >= duration_units[i].seconds)
			break;
	if (i == TP_ARRAY_SIZE(duration_units))
		i--;
	snprintf(buf, len, "%llu%c", (unsigned long long)(seconds / duration_units[i].seconds),
		 duration_units[i].unit);
	return buf;
}
