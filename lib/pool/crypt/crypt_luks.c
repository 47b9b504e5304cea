/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_luks.c - a new encrypted volume (pool_crypt.h): its LUKS2 header
 * made by libcryptsetup in a private temporary file, then imported as the
 * volume's first bytes by the raw import (pool_recv_raw.c).
 *
 * Why a file and the raw import: offline the pool's volumes are no block
 * devices, and the raw import already is what a new volume from bytes
 * needs (a chunk of zeros left unmapped, so the header's empty keyslot
 * area costs nothing; whole or nothing under the transaction-id
 * protocol; a crash leaves an unfinished receive that is no volume). The
 * header is all the file holds: the keyslot's key material is encrypted
 * by the passphrase, as on the volume; the volume key itself never
 * leaves libcryptsetup's memory. The rest of the volume stays unmapped:
 * once unlocked it reads as whatever zeros decrypt to, random-looking
 * bytes, which tvcreate says.
 *
 * The cipher is cryptsetup's compiled-in default for LUKS2 (the library
 * does not export it): aes-xts-plain64 with a 512-bit key (two AES-256
 * keys). The encryption sector is 4096 bytes when the volume's size is a
 * multiple of it, else 512 (dm-crypt needs the payload to be whole
 * sectors). The PBKDF is libcryptsetup's default unless the command gave
 * one. */
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_recv.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/core/core.h"
#include "lib/pool/crypt/crypt_int.h"

#include "lib/base/critical.h"
#include "lib/base/dmlog.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LUKS_CIPHER "aes"
#define LUKS_MODE "xts-plain64"
#define LUKS_KEY_BYTES 64u		/* 512 bits: XTS takes two keys */
#define LUKS_HEADER_BYTES (16u << 20)	/* libcryptsetup's LUKS2 layout: metadata + keyslots */
#define SECTOR_BIG 4096u

/* ---- libcryptsetup's messages ---- */

static char last_error[512];

static void log_from_cs(int level, const char *msg, void *usrptr)
{
	size_t n;

	(void)usrptr;
	if (level != CRYPT_LOG_ERROR)
		return;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	n = strlen(last_error);
	while (n && (last_error[n - 1] == '\n' || last_error[n - 1] == '.'))
		last_error[--n] = '\0';
}

void pc_log_setup(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	crypt_set_log_callback(NULL, log_from_cs, NULL);
}

const char *pc_last_error(void)
{
	return last_error[0] ? last_error : "no reason given";
}

void pc_clear_error(void)
{
	last_error[0] = '\0';
}

int pc_tmpfile(const char *what, uint64_t size, char path[POOL_CRYPT_PATH_MAX])
{
	const char *dir = getenv("TMPDIR");
	uint64_t room = TP_MIN(size, (uint64_t)LUKS_HEADER_BYTES);
	int fd, e;

	path[0] = '\0';
	if (!dir || !*dir)
		dir = "/tmp";
	/* no name, ever (O_TMPFILE; else named and unlinked at once, before
	 * a byte is written): nothing is left in TMPDIR however the command
	 * ends, SIGKILL included */
	if ((fd = tp_spool_open(what)) < 0)
		return fd;
	/* libcryptsetup opens a path: the descriptor's own */
	snprintf(path, POOL_CRYPT_PATH_MAX, "/proc/self/fd/%d", fd);
	if (access(path, F_OK)) {
		e = -errno;
		log_error("cannot name the temporary file for %s as %s (is /proc mounted?): %s",
			  what, path, strerror(errno));
		goto fail;
	}
	if (ftruncate(fd, (off_t)size)) {
		e = -errno;
		log_error("cannot size the temporary file in %s for %s: %s (set TMPDIR to a "
			  "directory with room)", dir, what, strerror(errno));
		goto fail;
	}
	/* the header's room taken now: a full TMPDIR is said as such, not as
	 * a header libcryptsetup cannot write or read (a file system without
	 * fallocate is written as it goes) */
	if (room && fallocate(fd, 0, 0, (off_t)room) && errno != EOPNOTSUPP) {
		e = -errno;
		log_error("TMPDIR %s has no room for %s (%llu MiB): %s (set TMPDIR to a directory "
			  "with room)", dir, what, (unsigned long long)(room >> 20), strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	path[0] = '\0';
	return e;
}

uint64_t pool_crypt_min_size(void)
{
	return (uint64_t)LUKS_HEADER_BYTES + SECTOR_BIG;
}

void pc_pbkdf_of(const struct pool_pbkdf *n, struct crypt_pbkdf_type *t)
{
	const struct crypt_pbkdf_type *d = crypt_get_pbkdf_default(CRYPT_LUKS2);

	memset(t, 0, sizeof(*t));
	if (d)
		*t = *d;
	if (n->type)
		t->type = n->type;
	if (!t->type)
		t->type = CRYPT_KDF_ARGON2ID;
	if (!strcmp(t->type, CRYPT_KDF_PBKDF2)) {
		t->max_memory_kb = 0;
		t->parallel_threads = 0;
	} else if (!t->max_memory_kb || !t->parallel_threads) {
		/* argon2 asked where the default is pbkdf2 */
		const struct crypt_pbkdf_type *a = crypt_get_pbkdf_type_params(t->type);
		if (a) {
			t->max_memory_kb = a->max_memory_kb;
			t->parallel_threads = a->parallel_threads;
		}
	}
	if (!t->hash)
		t->hash = "sha256";
	if (n->iter_time_ms)
		t->time_ms = n->iter_time_ms;
	if (n->memory_kib)
		t->max_memory_kb = n->memory_kib;
	if (n->iterations) {
		t->iterations = n->iterations;
		t->flags |= CRYPT_PBKDF_NO_BENCHMARK;
	}
}

int pool_crypt_format(const char *path, const char *pool, const char *name, uint64_t size,
		      const struct pool_crypt_new *n, const char *uuid_in, char *uuid,
		      uint64_t *data_off)
{
	struct crypt_pbkdf_type pbkdf;
	struct crypt_params_luks2 params;
	struct crypt_device *cd = NULL;
	const char *u;
	int r;

	pc_log_setup();
	pc_pbkdf_of(&n->pbkdf, &pbkdf);
	memset(&params, 0, sizeof(params));
	params.pbkdf = &pbkdf;
	params.sector_size = size % SECTOR_BIG ? 512 : SECTOR_BIG;
	pc_clear_error();
	if ((r = crypt_init(&cd, path)) < 0) {
		log_error("volume %s/%s: libcryptsetup cannot open its new header's file %s: %s",
			  pool, name, path, pc_last_error());
		return r;
	}
	if ((r = crypt_format(cd, CRYPT_LUKS2, LUKS_CIPHER, LUKS_MODE, uuid_in, NULL,
			      LUKS_KEY_BYTES, &params)) < 0) {
		log_error("volume %s/%s: libcryptsetup could not make its LUKS2 header: %s; nothing "
			  "was written", pool, name, pc_last_error());
		goto out;
	}
	*data_off = crypt_get_data_offset(cd) * 512;
	if (size < *data_off + params.sector_size) {
		char a[32], b[32];
		log_error("volume %s/%s: %s is too small for an encrypted volume, whose LUKS2 "
			  "header takes %s: give -V %" PRIu64 "K or more; nothing was written", pool,
			  name, tp_size_format(size, 'h', a, sizeof(a)),
			  tp_size_format(*data_off, 'h', b, sizeof(b)),
			  (*data_off + SECTOR_BIG + 1023) / 1024);
		r = -ERANGE;
		goto out;
	}
	/* the PBKDF runs here: seconds by default, by design */
	if ((r = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0,
						 (const char *)n->key->data, n->key->len)) < 0) {
		log_error("volume %s/%s: libcryptsetup could not add its keyslot: %s; nothing "
			  "was written", pool, name, pc_last_error());
		goto out;
	}
	if (n->allow_discards &&
	    (r = crypt_persistent_flags_set(cd, CRYPT_FLAGS_ACTIVATION,
					    CRYPT_ACTIVATE_ALLOW_DISCARDS)) < 0) {
		log_error("volume %s/%s: libcryptsetup could not record allow-discards in its "
			  "header: %s; nothing was written", pool, name, pc_last_error());
		goto out;
	}
	if (!(u = crypt_get_uuid(cd)) || strlen(u) > POOL_UUID_LEN) {
		r = TP_BUG("libcryptsetup gave the new header of %s/%s no uuid", pool, name);
		goto out;
	}
	snprintf(uuid, POOL_UUID_LEN + 1, "%s", u);
	r = 0;
out:
	crypt_free(cd);
	tp_dmlog_reclaim();
	return r;
}

int pool_crypt_create_check(struct pool *p, const char *name, uint64_t size)
{
	uint64_t chunk = (uint64_t)pool_vg(p)->chunk_size * 512, rounded, need, mu, mt, du, dt;
	struct vg_volume v;
	struct vg *next;
	char a[32], b[32];
	int e;

	if ((e = pool_name_free(p, name)) || (e = pool_volume_size_check(name, size, &rounded)))
		return e;
	if (rounded < pool_crypt_min_size()) {
		log_error("volume %s/%s: %s is too small for an encrypted volume, whose LUKS2 "
			  "header takes 16 MiB: give -V %" PRIu64 "K or more; nothing was written",
			  pool_name(p), name, tp_size_format(rounded, 'h', a, sizeof(a)),
			  pool_crypt_min_size() / 1024);
		return -ERANGE;
	}
	/* the over-provisioning limit, as the import's first change will ask */
	if ((e = vg_clone(pool_vg(p), &next)))
		return e;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.size = rounded;
	v.dev_id = next->next_dev_id++;
	v.read_only = v.raw = 1;	/* as the import lists it */
	if (!(e = vg_uuid_generate(v.content_uuid)) && !(e = vg_add_receive(next, &v)))
		e = pool_provision_check(p, next);
	vg_free(next);
	if (e)
		return e;
	/* the header's chunks: libcryptsetup fills its keyslot area with
	 * random bytes, so every chunk of it is allocated */
	need = (TP_MIN(rounded, (uint64_t)LUKS_HEADER_BYTES) + chunk - 1) / chunk;
	if ((e = pool_fill_blocks(p, &mu, &mt, &du, &dt))) {
		log_error("pool %s: cannot read how much data space is free: %s; nothing was "
			  "changed", pool_name(p), strerror(-e));
		return e;
	}
	if (dt - TP_MIN(du, dt) < need) {
		log_error("pool %s has %s of data space free, and the LUKS2 header of encrypted "
			  "volume %s takes %s: extend the pool ('tpextend %s') or free space, then "
			  "run tvcreate again; nothing was changed", pool_name(p),
			  tp_size_format((dt - TP_MIN(du, dt)) * chunk, 'h', a, sizeof(a)), name,
			  tp_size_format(need * chunk, 'h', b, sizeof(b)), pool_name(p));
		return -ENOSPC;
	}
	return 0;
}

int pool_crypt_create(struct pool *p, const char *name, uint64_t size, unsigned flags,
		      const struct pool_crypt_new *n, char *luks_uuid)
{
	char path[POOL_CRYPT_PATH_MAX], uuid[POOL_UUID_LEN + 1];
	struct pool_recv_result res;
	struct pool_recv *r = NULL;
	uint64_t rounded, data_off = 0;
	int fd, e;

	pc_log_setup();
	if ((e = pool_refuse_live(p, "making an encrypted volume (tvcreate --encrypt)")) ||
	    (e = pool_crypt_create_check(p, name, size)) ||
	    (e = pool_volume_size_check(name, size, &rounded)))
		return e;
	/* The temporary file has no name (pc_tmpfile): nothing of the header
	 * is left in TMPDIR whatever ends the command. A signal waits for the
	 * PBKDF (seconds by default) and stops the command before the
	 * import. The file needs the header's room only; sparse either way. */
	tp_critical_begin();
	if ((fd = pc_tmpfile("a new LUKS2 header", TP_MIN(rounded, (uint64_t)1 << 30), path)) < 0) {
		tp_critical_end();
		return fd;
	}
	if ((e = pool_crypt_format(path, pool_name(p), name, rounded, n, NULL, uuid, &data_off)))
		goto out;
	if (tp_critical_pending()) {
		log_error("volume %s/%s: stopped by a signal before the import; nothing was "
			  "written", pool_name(p), name);
		e = -EINTR;
		goto out;
	}
	/* the header is the image: the ciphertext after it is never written */
	if (ftruncate(fd, (off_t)data_off)) {
		e = -errno;
		log_error("cannot cut the temporary file of the header: %s", strerror(errno));
		goto out;
	}
	if ((e = pool_recv_raw_open(path, &r)))
		goto out;
	pool_recv_raw_encrypted(r, uuid, !!(flags & POOL_VOLUME_NO_AUTOACTIVATE));
	if ((e = pool_recv_raw_size(r, name, rounded)) || (e = pool_recv_raw_apply(p, r, &res)))
		goto out;
	if (luks_uuid)
		snprintf(luks_uuid, POOL_UUID_LEN + 1, "%s", uuid);
out:
	pool_recv_free(r);
	close(fd);	/* the file had no name: it is gone */
	tp_dmlog_reclaim();	/* libcryptsetup reset libdevmapper's log */
	tp_critical_end();	/* a signal that came meanwhile takes effect here */
	return e;
}
