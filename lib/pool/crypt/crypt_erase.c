/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_erase.c - the crypto-erase of an encrypted volume, tvremove
 * --wipe's first step for it (pool_crypt.h: pool_crypt_erase).
 *
 * The data of an encrypted volume is ciphertext under a volume key that
 * exists only inside its header's keyslots: with every copy of the header
 * the volume alone maps overwritten by random bytes, no key opens it any
 * more, at once, without the hours a zeroing of the data would take. How
 * long the header is comes from the header itself (its data offset); a
 * header that no longer loads (an erase cut inside its first chunk, which
 * goes last) is taken at libcryptsetup's default layout, 16 MiB, which
 * every other chunk of it, erased before the first, already was. The
 * chunks a snapshot or trash entry shares stay theirs, and they are named:
 * they still hold a header and unlock with its keys. Offline only. */
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/core/core.h"
#include "lib/pool/crypt/crypt_int.h"

#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_HEADER (16ull << 20)	/* libcryptsetup's LUKS2 layout */

int pool_crypt_erase(struct pool *p, const char *vol, struct pool_crypt_erase_result *res)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);
	struct pool_crypt_header h;
	char why[512] = "";
	int r;

	memset(res, 0, sizeof(*res));
	if (!v)
		return pool_volume_missing(p, vol);
	if (!v->luks_uuid[0])
		return 1;	/* a plain volume: nothing of this kind to erase */
	if ((r = pool_refuse_live(p, "the crypto-erase of an encrypted volume (tvremove --wipe)")))
		return r;
	if ((r = pool_volume_held(p, v)))
		return r;
	r = pool_crypt_header_probe(p, vol, why, sizeof(why));
	if (!r && !(r = pool_crypt_header_open(p, vol, &h))) {
		res->header_len = h.data_offset;
		pool_crypt_header_close(&h);
	} else if (r == -EUCLEAN || r == -ESTALE) {
		/* its header is damaged or gone already (an erase cut short) */
		res->header_len = TP_MIN(v->size, DEFAULT_HEADER);
		res->header_unreadable = 1;
		log_info("volume %s/%s: %s; its first %llu MiB are erased as libcryptsetup lays "
			 "a header out", pool_name(p), vol, why,
			 (unsigned long long)(res->header_len >> 20));
	} else {
		log_error("volume %s/%s: %s; nothing was erased", pool_name(p), vol, why);
		return r;
	}
	return pool_volume_head_erase(p, vol, res->header_len, &res->head);
}
