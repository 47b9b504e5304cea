/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_int.h - what the files of lib/pool/crypt share. */
#ifndef TP_POOL_CRYPT_INT_H
#define TP_POOL_CRYPT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/pool/pool_crypt.h"

/* libcryptsetup's messages routed into ours (once per process): its
 * errors are kept, the last one returned by pc_last_error ("" when
 * none since pc_clear_error), never printed by the library itself. */
void pc_log_setup(void);
const char *pc_last_error(void);
void pc_clear_error(void);

/* A private temporary file of SIZE bytes (sparse) under $TMPDIR (or
 * /tmp), its path into PATH: the open descriptor, or -errno
 * (logged, naming WHAT it was for). */
int pc_tmpfile(const char *what, uint64_t size, char path[POOL_CRYPT_PATH_MAX]);

#endif
