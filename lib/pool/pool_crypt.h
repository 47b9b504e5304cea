/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_crypt.h - encrypted volumes (lib/pool/crypt, lib/pool's public
 * face; issue 39): the key sources every command that asks for a key
 * shares (tvcreate --encrypt, tvchange's key changes, tpactivate), the
 * PBKDF parameters of a new keyslot, and the volume's LUKS2 header
 * through libcryptsetup.
 *
 * An encrypted volume is one whose VG entry has a luks_uuid (struct
 * vg_volume, pool_volume_info.luks_uuid): its content begins with a
 * standard LUKS2 header with that uuid, the ciphertext follows it. A
 * LUKS header that merely appears in a plain volume's content is never
 * taken for the volume's. Errors are 0 or -errno, logged where found,
 * naming the volume or the key source and what to do. */
#ifndef TP_POOL_POOL_CRYPT_H
#define TP_POOL_POOL_CRYPT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"

/* ---- key sources (crypt_key.c) ---- */

/* The most bytes a key (a key file, a keyring key or a passphrase) may
 * hold: 8 KiB, far above any passphrase and any sensible key file (a
 * bigger file is more likely the wrong file than a key; cryptsetup itself
 * takes up to 8 MiB). */
#define POOL_KEY_MAX 8192u

enum pool_key_kind {
	POOL_KEY_TERMINAL = 0,	/* a passphrase asked on /dev/tty, echo off */
	POOL_KEY_FILE,		/* --key-file FILE: the whole file is the key; "-" stdin */
	POOL_KEY_KEYRING,	/* --key-keyring DESC: a "user" key of the kernel keyring */
};

struct pool_key_source {
	enum pool_key_kind kind;
	const char *arg;	/* FILE or DESC; NULL for the terminal */
};

/* Key material: LEN bytes at DATA (not NUL-terminated, may hold any byte),
 * locked in memory where possible and wiped (explicit_bzero) by
 * pool_key_free. */
struct pool_key {
	unsigned char *data;
	size_t len;
};

/* Flags of pool_key_read: */
#define POOL_KEY_NEW 1u		/* a new key: the terminal asks twice and compares */
#define POOL_KEY_PRIVATE 2u	/* a file from configuration: refused when group or
				   world may read it (pool_key_file_private) */
#define POOL_KEY_REPLACES 4u	/* the new key of a volume that has keys (tvchange):
				   messages say "the new key of FOR" */

/* Read the key of SRC into *OUT (pool_key_free's). FOR names what the key
 * is for in prompts and messages ("volume vault/www"). Errors, logged
 * naming the source: -ENOENT (no such file; no such keyring key),
 * -ENODATA (empty), -EFBIG (more than POOL_KEY_MAX bytes), -EPERM
 * (POOL_KEY_PRIVATE and too open), -ENXIO (no terminal to ask on),
 * -EKEYREJECTED (POOL_KEY_NEW: the two passphrases differ), -EINTR (the
 * terminal's read was interrupted), or the read's error. The file "-" is
 * standard input, read to its end. */
int pool_key_read(const struct pool_key_source *src, const char *what, unsigned flags,
		  struct pool_key **out) TP_MUST_CHECK;
/* Wipe and free K (NULL ok). */
void pool_key_free(struct pool_key *k);
/* Whether the key file PATH (open as FD, or -1 to stat PATH) is private
 * enough to hold a key named in configuration: a regular file that
 * neither its group nor others may read or write. 0, or -EPERM (logged,
 * naming PATH, its mode and 'chmod 600 PATH'), or the stat's error. */
int pool_key_file_private(const char *path, int fd) TP_MUST_CHECK;

/* ---- PBKDF of a new keyslot, as cryptsetup names them ---- */

/* Every field 0/NULL: libcryptsetup's default for LUKS2 (argon2id, 2 s,
 * 1 GiB, 4 threads, capped by the memory this host has). */
struct pool_pbkdf {
	const char *type;	/* "argon2id", "argon2i", "pbkdf2"; NULL: default */
	uint32_t iter_time_ms;	/* --iter-time */
	uint32_t memory_kib;	/* --pbkdf-memory (argon2 only) */
	uint32_t iterations;	/* --pbkdf-force-iterations: no benchmark */
};
/* Check P as a whole (a known type; memory only with argon2; the
 * iterations at least 1000 for pbkdf2, 4 for argon2): 0 or -EINVAL with
 * a message in WHY (LEN bytes), nothing logged, for the tools' usage
 * errors. */
int pool_pbkdf_check(const struct pool_pbkdf *p, char *why, size_t len) TP_MUST_CHECK;

/* ---- a new encrypted volume (crypt_luks.c) ---- */

struct pool_crypt_new {
	const struct pool_key *key;	/* keyslot 0's passphrase */
	struct pool_pbkdf pbkdf;
	int allow_discards;		/* the LUKS2 persistent allow-discards flag */
};

/* The smallest size of an encrypted volume: its LUKS2 header (16 MiB as
 * libcryptsetup lays it out) and one 4 KiB sector of data. */
uint64_t pool_crypt_min_size(void);

/* The LUKS2 header of encrypted volume POOL/NAME (for messages) of SIZE
 * bytes written by libcryptsetup onto PATH (a file or a block device of
 * at least the header's size: the volume itself when it is a device, as
 * a live creation has it), as pool_crypt_create makes it: the cipher,
 * sector size, keyslot 0 from N->key with N->pbkdf, allow-discards.
 * UUID_IN: the uuid to give it (one the VG records already), NULL for a
 * new one; the uuid into UUID (POOL_UUID_LEN + 1), the data offset in
 * bytes into *DATA_OFF. 0, -ERANGE (SIZE too small for the header,
 * naming the size needed), or libcryptsetup's error, logged. Only the
 * header's bytes are written (its keyslot area filled with random bytes
 * by libcryptsetup); the rest of PATH is not touched. */
int pool_crypt_format(const char *path, const char *pool, const char *name, uint64_t size,
		      const struct pool_crypt_new *n, const char *uuid_in, char *uuid,
		      uint64_t *data_off) TP_MUST_CHECK;

/* Whether encrypted volume NAME of SIZE bytes can be made in P, before a
 * key is asked for or anything is written: the name free (-EEXIST), the
 * size at least pool_crypt_min_size (-ERANGE), the over-provisioning
 * limit (-EDQUOT), and room in the data area for the header's chunks
 * (-ENOSPC: 16 MiB, every chunk of it allocated); each logged, naming
 * what to do. 0 when it can. pool_crypt_create asks it too. */
int pool_crypt_create_check(struct pool *p, const char *name, uint64_t size) TP_MUST_CHECK;

/* Make encrypted volume NAME of SIZE bytes in the inactive pool P: a
 * LUKS2 header made by libcryptsetup (its default cipher,
 * aes-xts-plain64 with a 512-bit key, a new random volume key, keyslot 0
 * from N->key) in a temporary file, imported as the volume's first bytes
 * through the raw import (pool_recv.h: the rest of the volume unmapped;
 * whole or nothing) with the header's uuid as the VG's luks_uuid. The
 * LUKS uuid goes into LUKS_UUID (POOL_UUID_LEN + 1) when not NULL.
 * Refused, nothing written: a live pool (-EBUSY, naming tpdeactivate;
 * pool_crypt_create_live is the live creation), a
 * size under pool_crypt_min_size (-ERANGE, naming it), the name taken
 * (-EEXIST), and libcryptsetup's errors (logged). FLAGS:
 * POOL_VOLUME_NO_AUTOACTIVATE (pool_volume.h). */
int pool_crypt_create(struct pool *p, const char *name, uint64_t size, unsigned flags,
		      const struct pool_crypt_new *n, char *luks_uuid) TP_MUST_CHECK;

/* The same in pool P that the kernel runs (crypt_live.c): the header is
 * written by libcryptsetup onto the new thin device itself through
 * pool_recv_live_fill (pool_recv.h), so the VG lists the volume as an
 * unfinished raw receive with its LUKS2 uuid until the header is flushed,
 * and a change makes it a volume after that: killed before, 'tprecv
 * --abort NAME POOL' drops it. The volume is not unlocked here (the
 * caller activates it with the key, pool_unlock_key). Refused, nothing
 * changed: the name taken (-EEXIST), a size under pool_crypt_min_size
 * (-ERANGE), a pool the kernel reports failed or read-only, too little
 * free space (-ENOSPC); a later failure or a signal drops what it made. */
int pool_crypt_create_live(struct pool *p, const char *name, uint64_t size, unsigned flags,
			   const struct pool_crypt_new *n, char *luks_uuid) TP_MUST_CHECK;

/* ---- an encrypted volume's header (crypt_header.c) ---- */

/* A volume's LUKS2 header copied out of the pool into a private temporary
 * file (the volume's first bytes up to the header's data offset; nothing
 * of the ciphertext) and loaded by libcryptsetup. CD is libcryptsetup's
 * struct crypt_device (libcryptsetup.h) for the commands that go on with
 * it (tvchange's keyslots; write the file back with the volume module). */
#define POOL_CRYPT_PATH_MAX 4096
struct pool_crypt_header {
	void *cd;			/* struct crypt_device *, loaded */
	char path[POOL_CRYPT_PATH_MAX];	/* the temporary file; unlinked by _close */
	int fd;
	uint64_t data_offset;		/* bytes: where the ciphertext begins */
	uint64_t vol_size;
	char uuid[POOL_UUID_LEN + 1];
	char volume[POOL_NAME_MAX + 1];
};
/* Read the header of encrypted volume VOL of open pool P (offline or live,
 * through the committed thin metadata) and load it: 0, or, logged naming
 * the volume and what to do: -EINVAL (VOL is not encrypted), -ENOENT (no
 * such volume), -EUCLEAN (no LUKS2 header there, or one that
 * libcryptsetup refuses), -ESTALE (a header whose uuid is not the VG's
 * luks_uuid), or the read's error. */
int pool_crypt_header_open(struct pool *p, const char *vol, struct pool_crypt_header *h)
	TP_MUST_CHECK;
void pool_crypt_header_close(struct pool_crypt_header *h);

/* The checks of pool_crypt_header_open without the messages, for tpcheck:
 * 0 when VOL's header is a LUKS2 header with the VG's uuid, else the
 * error as above with a sentence into WHY (LEN bytes). */
int pool_crypt_header_probe(struct pool *p, const char *vol, char *why, size_t len)
	TP_MUST_CHECK;

/* Whether KEY opens a keyslot of encrypted volume VOL (libcryptsetup's
 * activation with no name: verify only, nothing activated): 0, -EPERM
 * (logged: the key opens no keyslot of VOL), or the header's error. */
int pool_crypt_check_key(struct pool *p, const char *vol, const struct pool_key *key)
	TP_MUST_CHECK;

/* Whether encrypted volume VOL of P may take the size tvresize asks for
 * (RELATIVE and SIZE as pool_volume_resize takes them): 0 when VOL is not
 * encrypted, keeps its size, or the new size is its header's data offset
 * plus a whole number of its encryption sectors, at least one (the
 * offset and crypt_get_sector_size from its own header); else -ERANGE,
 * logged naming the nearest valid sizes, or the header's error (logged).
 * Sizes the resize itself refuses pass here (0): it says why. Nothing is
 * written. (crypt_resize.c) */
int pool_crypt_resize_check(struct pool *p, const char *vol, int relative, uint64_t size)
	TP_MUST_CHECK;

/* ---- key changes and crypto-erase, offline (crypt_keys.c, crypt_erase.c) ---- */

enum pool_key_op {
	POOL_KEY_ADD = 1,	/* tvchange --add-key: a new keyslot for NEW_KEY */
	POOL_KEY_REMOVE,	/* --remove-key: the keyslot KEY opens destroyed */
	POOL_KEY_CHANGE,	/* --change-key: KEY's keyslot replaced by one for NEW_KEY */
};
struct pool_key_change {
	enum pool_key_op op;
	const struct pool_key *key;	/* a key the volume has */
	const struct pool_key *new_key;	/* ADD, CHANGE */
	struct pool_pbkdf pbkdf;	/* of the new keyslot */
	int with_snapshots;		/* every writable volume with the same LUKS uuid too */
};
#define POOL_KEY_VOLS_MAX 64
struct pool_key_volume {
	char vol[POOL_NAME_MAX + 1];
	int slot;		/* the keyslot KEY opened */
	int new_slot;		/* the keyslot added or changed into; -1: none */
	unsigned chunks;	/* chunks of its header written anew */
};
struct pool_key_result {
	unsigned nr;			/* volumes changed (the first POOL_KEY_VOLS_MAX in VOLS) */
	struct pool_key_volume vols[POOL_KEY_VOLS_MAX];
	uint64_t chunks;		/* chunks written, in all */
	char others[512];		/* without with_snapshots: the volumes sharing the key, unchanged */
	char kept[512];			/* with it: the read-only ones, unchanged */
	unsigned nr_kept;
};
/* Change the keyslots of encrypted volume VOL of the inactive pool P
 * (KC->with_snapshots: and of every writable volume sharing its volume
 * key) without rewriting data: each header changed by libcryptsetup in a
 * temporary copy, then its changed chunks written into new data blocks,
 * all in one change (pool_volume_heads_rewrite). Refused with nothing
 * changed, logged: a live pool (-EBUSY, naming tpdeactivate), VOL not
 * encrypted (-EINVAL), read-only (-EROFS), a key that opens no keyslot of
 * one of the headers (-EPERM), the removal of a header's last keyslot
 * (-EPERM), a header that is not the volume's (pool_crypt_header_open).
 * Test pause: keys-prepared (every header changed in its copy, the pool
 * not yet touched). */
int pool_crypt_key_change(struct pool *p, const char *vol, const struct pool_key_change *kc,
			  struct pool_key_result *res) TP_MUST_CHECK;

struct pool_crypt_erase_result {
	uint64_t header_len;		/* bytes of the volume taken as its header */
	int header_unreadable;		/* no header loaded: libcryptsetup's default length */
	struct pool_head_erase head;	/* pool_volume.h: chunks erased, shared, their holders */
};
/* tvremove --wipe's crypto-erase of encrypted volume VOL of the inactive
 * pool P: the chunks of its header only VOL maps overwritten with random
 * bytes (pool_volume_head_erase); the caller removes it afterwards. 1 when
 * VOL is not encrypted (nothing done), 0, or -errno (logged; a live pool
 * -EBUSY naming tpdeactivate; a signal -EINTR). */
int pool_crypt_erase(struct pool *p, const char *vol, struct pool_crypt_erase_result *res)
	TP_MUST_CHECK;

#endif
