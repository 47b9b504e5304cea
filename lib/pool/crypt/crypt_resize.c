/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_resize.c - the sizes an encrypted volume may take (pool_crypt.h:
 * pool_crypt_resize_check), asked by tvresize before any change.
 *
 * dm-crypt maps the volume's bytes after the header's data offset in
 * whole encryption sectors (512 to 4096 bytes, the header says which): a
 * size that leaves no sector after the header, or a part of one, makes a
 * volume no key can unlock (cryptsetup refuses a payload that is not a
 * whole number of sectors). The offset and the sector size come from the
 * volume's own header, read as tpcheck reads it. */
#include "lib/pool/pool_crypt.h"
#include "lib/pool/core/core.h"
#include "lib/pool/crypt/crypt_int.h"

#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <string.h>

/* SIZE bytes as tvresize -V takes it back: K when whole KiB, else b. */
static void size_arg(uint64_t size, char *buf, size_t len)
{
	if (size % 1024)
		snprintf(buf, len, "%" PRIu64 "b", size);
	else
		snprintf(buf, len, "%" PRIu64 "K", size / 1024);
}

int pool_crypt_resize_check(struct pool *p, const char *vol, int relative, uint64_t size)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);
	struct pool_crypt_header h;
	uint64_t want, off, sector, lo, hi;
	char a[40], b[40], c[40], d[40];
	int r;

	if (!v || !v->luks_uuid[0])
		return 0;	/* not encrypted (or missing: the resize says so) */
	if (relative < 0 && size >= v->size)
		return 0;	/* the resize refuses it */
	if (relative > 0)
		size = size > POOL_VOLUME_MAX_BYTES - v->size ? POOL_VOLUME_MAX_BYTES
							       : v->size + size;
	else if (relative < 0)
		size = v->size - size;
	if (pool_volume_size_check(vol, size, &want))
		return 0;	/* the resize says what is wrong with it */
	if (want == v->size)
		return 0;
	if ((r = pool_crypt_header_open(p, vol, &h))) {
		log_error("volume %s/%s: its size is not changed while its LUKS2 header cannot "
			  "be read (the new size must fit it); nothing was changed", pool_name(p),
			  vol);
		return r;
	}
	off = h.data_offset;
	sector = (uint64_t)crypt_get_sector_size(h.cd);
	pool_crypt_header_close(&h);
	if (!sector)
		sector = 512;
	if (want >= off + sector && !((want - off) % sector))
		return 0;
	lo = want >= off + sector ? off + (want - off) / sector * sector : 0;
	hi = want >= off + sector ? lo + sector : off + sector;
	size_arg(lo, a, sizeof(a));
	size_arg(hi, b, sizeof(b));
	log_error("volume %s/%s is encrypted: its data begins at %s, after its LUKS2 header, and "
		  "is encrypted in %" PRIu64 "-byte sectors, so its size is the header and a whole "
		  "number of sectors, at least one; %s is not (no key could unlock it): give -V %s "
		  "%s -V %s, the nearest valid sizes; nothing was changed", pool_name(p), vol,
		  tp_size_format(off, 'h', c, sizeof(c)), sector,
		  tp_size_format(want, 'h', d, sizeof(d)), lo ? a : b, lo ? "or" : "or more, as",
		  b);
	return -ERANGE;
}
