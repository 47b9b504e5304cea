/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cryptsetup_dl.c - libcryptsetup loaded when first used, not at every
 * command's start.
 *
 * Linked as a NEEDED library, libcryptsetup and what it pulls in (the
 * crypto library above all) cost every command its load and relocations:
 * about 4.9M instructions of the dynamic loader, more than tvcreate's own
 * work on a small pool (issue 40: bench/volumes.md). Only encrypted
 * volumes need it. So no binary names it as a library it needs: the functions tptools
 * calls are defined here, with libcryptsetup.h's own prototypes (the
 * compiler holds each to the library's), and each resolves the library's
 * function on its first call, loading libcryptsetup.so.12 then. When it
 * cannot be loaded the call fails as the library fails, with -ENOSYS (a
 * NULL or 0 for a getter), after one message naming the library and the
 * package. The package depends on libcryptsetup12 explicitly
 * (scripts/mkdeb.sh), since dpkg-shlibdeps no longer sees it. */
#include "lib/base/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <libcryptsetup.h>
#include <stddef.h>

#define CRYPTSETUP_SO "libcryptsetup.so.12"

static void *sym(const char *name)
{
	static void *lib;
	static int failed;
	void *f;

	if (!lib && !failed && !(lib = dlopen(CRYPTSETUP_SO, RTLD_NOW | RTLD_LOCAL))) {
		failed = 1;
		log_error("%s cannot be loaded (%s): encrypted volumes need it; install the "
			  "libcryptsetup12 package", CRYPTSETUP_SO, dlerror());
	}
	if (!lib)
		return NULL;
	if (!(f = dlsym(lib, name)))
		log_error("%s has no %s: install the libcryptsetup12 package tptools was built "
			  "for", CRYPTSETUP_SO, name);
	return f;
}

/* NAME with PARAMS (the prototype's) calls the library's with ARGS, or
 * returns FAIL when it cannot be found. */
#define FWD(ret, name, params, args, fail)                                  \
	ret name params                                                     \
	{                                                                   \
		static ret(*fn) params;                                     \
		if (!fn && !(*(void **)&fn = sym(#name)))                   \
			return fail;                                        \
		return fn args;                                             \
	}
#define FWD_VOID(name, params, args)                                        \
	void name params                                                    \
	{                                                                   \
		static void(*fn) params;                                    \
		if (fn || (*(void **)&fn = sym(#name)))                     \
			fn args;                                            \
	}

FWD(int, crypt_init, (struct crypt_device **cd, const char *device), (cd, device), -ENOSYS)
FWD_VOID(crypt_free, (struct crypt_device *cd), (cd))
FWD(int, crypt_load, (struct crypt_device *cd, const char *requested_type, void *params),
    (cd, requested_type, params), -ENOSYS)
FWD(int, crypt_format,
    (struct crypt_device *cd, const char *type, const char *cipher, const char *cipher_mode,
     const char *uuid, const char *volume_key, size_t volume_key_size, void *params),
    (cd, type, cipher, cipher_mode, uuid, volume_key, volume_key_size, params), -ENOSYS)
FWD_VOID(crypt_set_log_callback,
	 (struct crypt_device *cd, void (*log)(int level, const char *msg, void *usrptr),
	  void *usrptr),
	 (cd, log, usrptr))
FWD(int, crypt_set_pbkdf_type, (struct crypt_device *cd, const struct crypt_pbkdf_type *pbkdf),
    (cd, pbkdf), -ENOSYS)
FWD(const struct crypt_pbkdf_type *, crypt_get_pbkdf_default, (const char *type), (type), NULL)
FWD(const struct crypt_pbkdf_type *, crypt_get_pbkdf_type_params, (const char *pbkdf_type),
    (pbkdf_type), NULL)
FWD(const char *, crypt_get_cipher, (struct crypt_device *cd), (cd), NULL)
FWD(const char *, crypt_get_cipher_mode, (struct crypt_device *cd), (cd), NULL)
FWD(const char *, crypt_get_type, (struct crypt_device *cd), (cd), NULL)
FWD(const char *, crypt_get_uuid, (struct crypt_device *cd), (cd), NULL)
FWD(uint64_t, crypt_get_data_offset, (struct crypt_device *cd), (cd), 0)
FWD(uint64_t, crypt_get_iv_offset, (struct crypt_device *cd), (cd), 0)
FWD(int, crypt_get_sector_size, (struct crypt_device *cd), (cd), -ENOSYS)
FWD(int, crypt_get_volume_key_size, (struct crypt_device *cd), (cd), -ENOSYS)
FWD(int, crypt_get_integrity_info, (struct crypt_device *cd, struct crypt_params_integrity *ip),
    (cd, ip), -ENOSYS)
FWD(int, crypt_keyslot_max, (const char *type), (type), -ENOSYS)
FWD(crypt_keyslot_info, crypt_keyslot_status, (struct crypt_device *cd, int keyslot),
    (cd, keyslot), CRYPT_SLOT_INVALID)
FWD(int, crypt_keyslot_destroy, (struct crypt_device *cd, int keyslot), (cd, keyslot), -ENOSYS)
FWD(int, crypt_keyslot_add_by_passphrase,
    (struct crypt_device *cd, int keyslot, const char *passphrase, size_t passphrase_size,
     const char *new_passphrase, size_t new_passphrase_size),
    (cd, keyslot, passphrase, passphrase_size, new_passphrase, new_passphrase_size), -ENOSYS)
FWD(int, crypt_keyslot_add_by_volume_key,
    (struct crypt_device *cd, int keyslot, const char *volume_key, size_t volume_key_size,
     const char *passphrase, size_t passphrase_size),
    (cd, keyslot, volume_key, volume_key_size, passphrase, passphrase_size), -ENOSYS)
FWD(int, crypt_keyslot_change_by_passphrase,
    (struct crypt_device *cd, int keyslot_old, int keyslot_new, const char *passphrase,
     size_t passphrase_size, const char *new_passphrase, size_t new_passphrase_size),
    (cd, keyslot_old, keyslot_new, passphrase, passphrase_size, new_passphrase,
     new_passphrase_size), -ENOSYS)
FWD(int, crypt_volume_key_get,
    (struct crypt_device *cd, int keyslot, char *volume_key, size_t *volume_key_size,
     const char *passphrase, size_t passphrase_size),
    (cd, keyslot, volume_key, volume_key_size, passphrase, passphrase_size), -ENOSYS)
FWD(int, crypt_activate_by_passphrase,
    (struct crypt_device *cd, const char *name, int keyslot, const char *passphrase,
     size_t passphrase_size, uint32_t flags),
    (cd, name, keyslot, passphrase, passphrase_size, flags), -ENOSYS)
FWD(int, crypt_persistent_flags_get,
    (struct crypt_device *cd, crypt_flags_type type, uint32_t *flags), (cd, type, flags),
    -ENOSYS)
FWD(int, crypt_persistent_flags_set,
    (struct crypt_device *cd, crypt_flags_type type, uint32_t flags), (cd, type, flags),
    -ENOSYS)
