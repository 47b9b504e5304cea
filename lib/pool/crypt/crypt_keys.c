/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_keys.c - tvchange --add-key, --remove-key, --change-key of an
 * encrypted volume, offline (pool_crypt.h: pool_crypt_key_change).
 *
 * Keyslots change without a byte of data rewritten: the volume's header
 * is copied into a private temporary file (pool_crypt_header_open, its
 * uuid checked against the VG's), libcryptsetup changes the keyslots
 * there (the existing key checked first: a key that opens no keyslot
 * changes nothing anywhere), and the chunks of the header whose bytes
 * changed are written back into new data blocks, mapped in one change
 * (pool_volume_heads_rewrite): a cut leaves the old header whole or the
 * new one, never a mix, and never a header no key opens. A snapshot that
 * shared the old chunks keeps them: its keyslots are the old ones until
 * it is changed too. With --with-snapshots every writable volume that
 * shares the volume key (the same LUKS uuid: its snapshots, their
 * snapshots, the volumes rolled back to them) gets the same change in
 * the same one change; each header is changed from its own keyslots, so
 * the existing key must open each of them (else nothing is changed).
 *
 * The last keyslot is never removed: a volume with no keyslot can never
 * be unlocked again, and the way to make it unreadable on purpose is
 * tvremove --wipe (crypt_erase.c). Offline only (a live pool: enc-live's
 * twin, later). */
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/core/core.h"
#include "lib/pool/crypt/crypt_int.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Add NAME to the list BUF ("a, b"). */
static void list_add(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);

	if (used + strlen(name) + 3 < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* The keyslots of CD in use. */
static int slots_used(struct crypt_device *cd)
{
	int n = 0, max = crypt_keyslot_max(CRYPT_LUKS2);

	for (int i = 0; i < max; i++) {
		crypt_keyslot_info s = crypt_keyslot_status(cd, i);
		n += s == CRYPT_SLOT_ACTIVE || s == CRYPT_SLOT_ACTIVE_LAST;
	}
	return n;
}

/* The keyslot operation KC->op on header H (the volume's temporary copy):
 * *SLOT the keyslot the existing key opened, *NEW_SLOT the one added or
 * changed into (-1: none). 0 or -errno, logged naming P/VOL. */
static int change_slots(struct pool *p, struct pool_crypt_header *h,
			const struct pool_key_change *kc, int *slot, int *new_slot)
{
	struct crypt_device *cd = h->cd;
	const char *vol = h->volume;
	struct crypt_pbkdf_type pbkdf;
	int r;

	*new_slot = -1;
	pc_clear_error();
	/* no name: the key is tried on the keyslots, nothing is activated */
	r = crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, (const char *)kc->key->data,
					 kc->key->len, 0);
	if (r == -EPERM) {
		log_error("volume %s/%s: the key given opens none of its keyslots; nothing was "
			  "changed", pool_name(p), vol);
		return -EPERM;
	}
	if (r < 0) {
		log_error("volume %s/%s: libcryptsetup could not try the key: %s; nothing was "
			  "changed", pool_name(p), vol, pc_last_error());
		return r;
	}
	*slot = r;
	if (kc->op == POOL_KEY_REMOVE) {
		if (slots_used(cd) <= 1) {
			log_error("volume %s/%s: the key given is in its last keyslot (%d); removed, "
				  "no key could ever unlock the volume again, so it is refused: add "
				  "another key first (tvchange --add-key), or erase the volume on "
				  "purpose with 'tvremove --wipe %s/%s'; nothing was changed",
				  pool_name(p), vol, r, pool_name(p), vol);
			return -EPERM;
		}
		if ((r = crypt_keyslot_destroy(cd, *slot)) < 0) {
			log_error("volume %s/%s: libcryptsetup could not remove keyslot %d: %s; "
				  "nothing was changed", pool_name(p), vol, *slot, pc_last_error());
			return r;
		}
		return 0;
	}
	pc_pbkdf_of(&kc->pbkdf, &pbkdf);
	if ((r = crypt_set_pbkdf_type(cd, &pbkdf)) < 0) {
		log_error("volume %s/%s: libcryptsetup refuses the PBKDF asked for: %s; nothing "
			  "was changed", pool_name(p), vol, pc_last_error());
		return r;
	}
	/* a full header is the pool's state, not a bad command line:
	 * libcryptsetup says it with -EINVAL, so it is found here first */
	if (kc->op == POOL_KEY_ADD && slots_used(cd) >= crypt_keyslot_max(CRYPT_LUKS2)) {
		log_error("volume %s/%s: every keyslot is in use (%d): remove one first "
			  "(tvchange --remove-key); nothing was changed", pool_name(p), vol,
			  crypt_keyslot_max(CRYPT_LUKS2));
		return -ENOSPC;
	}
	if (kc->op == POOL_KEY_ADD)
		r = crypt_keyslot_add_by_passphrase(cd, CRYPT_ANY_SLOT,
						    (const char *)kc->key->data, kc->key->len,
						    (const char *)kc->new_key->data,
						    kc->new_key->len);
	else
		r = crypt_keyslot_change_by_passphrase(cd, *slot, CRYPT_ANY_SLOT,
						       (const char *)kc->key->data, kc->key->len,
						       (const char *)kc->new_key->data,
						       kc->new_key->len);
	if (r < 0) {
		log_error("volume %s/%s: libcryptsetup could not %s: %s; nothing was changed",
			  pool_name(p), vol, kc->op == POOL_KEY_ADD ? "add the new key"
								    : "change the key",
			  r == -ENOSPC ? "no room for another keyslot" : pc_last_error());
		/* the command line was checked before: what libcryptsetup
		 * refuses now is the header's state (exit 5, not 3) */
		return r == -EINVAL ? -EIO : r;
	}
	*new_slot = r;
	return 0;
}

/* The volumes to change: VOL, and with KC->with_snapshots every other
 * volume of P with VOL's LUKS uuid (read-only ones named in RES->kept). */
static int pick(struct pool *p, const char *vol, const struct pool_key_change *kc,
		struct pool_key_result *res, const char ***out, unsigned *n)
{
	const struct vg *vg = pool_vg(p);
	const struct vg_volume *v = vg_find_volume(vg, vol);
	const char **names = calloc(vg->nr_volumes + 1, sizeof(*names));

	*n = 0;
	if (!names)
		return -ENOMEM;
	names[(*n)++] = v->name;
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		const struct vg_volume *o = &vg->volumes[i];

		if (o == v || strcmp(o->luks_uuid, v->luks_uuid))
			continue;
		if (!kc->with_snapshots) {
			list_add(res->others, sizeof(res->others), o->name);
			continue;
		}
		if (o->read_only) {
			list_add(res->kept, sizeof(res->kept), o->name);
			res->nr_kept++;
			continue;
		}
		names[(*n)++] = o->name;
	}
	*out = names;
	return 0;
}

int pool_crypt_key_change(struct pool *p, const char *vol, const struct pool_key_change *kc,
			  struct pool_key_result *res)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);
	struct pool_crypt_header *h = NULL;
	struct pool_head_write *w = NULL;
	unsigned char **bytes = NULL;
	const char **names = NULL;
	unsigned n = 0, opened = 0;
	int r;

	memset(res, 0, sizeof(*res));
	if (!v)
		return pool_volume_missing(p, vol);
	if ((r = pool_refuse_live(p, "changing an encrypted volume's keys")))
		return r;
	if (!v->luks_uuid[0]) {
		log_error("volume %s/%s is not encrypted: it has no keys to change (tvcreate "
			  "--encrypt makes an encrypted volume)", pool_name(p), vol);
		return -EINVAL;
	}
	if ((r = pool_volume_refuse_readonly(p, vol, "a key change")))
		return r;
	if ((kc->op != POOL_KEY_REMOVE && !kc->new_key) || !kc->key)
		return TP_BUG("a key change without its keys");
	if ((r = pick(p, vol, kc, res, &names, &n)))
		return r;
	/* signals wait until the temporary copies are gone again: a signal
	 * before the change stops it with nothing changed (-EINTR), one
	 * during it waits for its end */
	tp_critical_begin();
	h = calloc(n, sizeof(*h));
	w = calloc(n, sizeof(*w));
	bytes = calloc(2 * n, sizeof(*bytes));
	if (!h || !w || !bytes) {
		r = -ENOMEM;
		goto out;
	}
	/* every header copied, checked and changed in its file before the
	 * pool is touched: a wrong key anywhere changes nothing */
	for (unsigned i = 0; i < n && !r; i++) {
		struct pool_key_volume spare, *kv = i < POOL_KEY_VOLS_MAX ? &res->vols[i] : &spare;
		uint64_t len;

		if ((r = pool_crypt_header_open(p, names[i], &h[i])))
			break;
		opened++;
		len = h[i].data_offset;
		if (!(bytes[2 * i] = malloc(len)) || !(bytes[2 * i + 1] = malloc(len))) {
			r = -ENOMEM;
			break;
		}
		/* the old bytes as the volume maps them now: what the rewrite
		 * compares the changed header with, chunk by chunk */
		if ((r = pool_volume_head_read(p, names[i], len, bytes[2 * i])))
			break;
		if ((r = change_slots(p, &h[i], kc, &kv->slot, &kv->new_slot)))
			break;
		/* libcryptsetup wrote the file; its bytes are what goes back */
		if (fsync(h[i].fd) || pread(h[i].fd, bytes[2 * i + 1], len, 0) != (ssize_t)len) {
			r = -EIO;
			log_error("volume %s/%s: cannot read the changed header back", pool_name(p),
				  names[i]);
			break;
		}
		snprintf(kv->vol, sizeof(kv->vol), "%s", names[i]);
		/* (the header keeps the name: the VG NAMES points into is replaced
		 * by the change) */
		w[i] = (struct pool_head_write){ h[i].volume, bytes[2 * i], bytes[2 * i + 1], len, 0 };
	}
	tp_test_pause("keys-prepared");
	if (!r && tp_critical_pending())
		r = -EINTR;
	/* one change: every header's changed chunks into new blocks */
	if (!r)
		r = pool_volume_heads_rewrite(p, w, n);
	for (unsigned i = 0; !r && i < n; i++) {
		res->chunks += w[i].chunks;
		if (i < POOL_KEY_VOLS_MAX)
			res->vols[i].chunks = w[i].chunks;
	}
	res->nr = r ? 0 : n < POOL_KEY_VOLS_MAX ? n : POOL_KEY_VOLS_MAX;
out:
	for (unsigned i = 0; i < opened; i++)
		pool_crypt_header_close(&h[i]);
	for (unsigned i = 0; bytes && i < 2 * n; i++)
		free(bytes[i]);
	free(bytes);
	free(h);
	free(w);
	free(names);
	if (r == -EINTR)
		log_error("pool %s: the key change of volume %s was stopped by a signal before it "
			  "began; nothing was changed", pool_name(p), vol);
	tp_critical_end();
	return r;
}
