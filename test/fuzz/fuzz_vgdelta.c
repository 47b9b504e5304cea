/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vgdelta.c - the VG text delta (metadata/vg/vg_delta.c) on arbitrary
 * bytes. The first two bytes (little-endian) give the length of the base
 * (at most what follows), the base follows them, and the rest is X:
 *   - X as a delta of the base: vg_delta_apply refuses it (-EUCLEAN) or
 *     makes a NUL-terminated text within its limit, never crashes, and
 *     vg_delta_verify says 0 of that text and of no other (X itself,
 *     unless it is that text), and refuses what apply refuses;
 *   - X as a text, and any text that apply made: vg_delta_encode from the
 *     base, then vg_delta_apply, gives it back exactly, and a MAX one byte
 *     under that delta's length is -E2BIG. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/log.h"
#include "metadata/vg/vg_delta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT (4u << 20)

static void round_trip(const char *base, size_t blen, const char *text, size_t len)
{
	void *d, *none;
	size_t dlen, nlen, got;
	char *back;
	int r;

	r = vg_delta_encode(base, blen, text, len, SIZE_MAX, &d, &dlen);
	if (r == -ENOMEM)
		return;
	if (r || !d || !dlen)
		abort();	/* any two texts encode */
	r = vg_delta_apply(base, blen, d, dlen, len, &back, &got);
	if (r != 0 && r != -ENOMEM)
		abort();	/* its own delta refused */
	if (!r && (got != len || (len && memcmp(back, text, len)) || back[len]))
		abort();	/* not the text encoded */
	if (!r)
		free(back);
	r = vg_delta_encode(base, blen, text, len, dlen - 1, &none, &nlen);
	if (r != -E2BIG && r != -ENOMEM)
		abort();	/* longer than MAX, and not refused */
	free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *base;
	size_t blen, xlen, len;
	const uint8_t *x;
	char *text;
	int r;

	tp_log_set_verbosity(-2);
	if (size < 2)
		return 0;
	base = (const char *)data + 2;
	blen = (size_t)data[0] | (size_t)data[1] << 8;
	if (blen > size - 2)
		blen = size - 2;
	x = data + 2 + blen;
	xlen = size - 2 - blen;
	r = vg_delta_apply(base, blen, x, xlen, LIMIT, &text, &len);
	if (r != 0 && r != -EUCLEAN && r != -ENOMEM)
		abort();
	if (r == -EUCLEAN && !vg_delta_verify(base, blen, x, xlen, (const char *)x, xlen))
		abort();	/* refused by apply, taken by verify */
	if (!r) {
		if (len > LIMIT || text[len])
			abort();
		if (vg_delta_verify(base, blen, x, xlen, text, len))
			abort();	/* verify disagrees with apply */
		if ((xlen != len || memcmp(x, text, len)) &&
		    !vg_delta_verify(base, blen, x, xlen, (const char *)x, xlen))
			abort();	/* verify took another text */
		round_trip(base, blen, text, len);
		free(text);
	}
	round_trip(base, blen, (const char *)x, xlen);
	return 0;
}
