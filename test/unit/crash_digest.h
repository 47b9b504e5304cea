/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crash_digest.h - one digest of thin metadata for the crash tests
 * (test_thin_crash.c, test_pool_crash.c): after a simulated power cut the
 * metadata must read back as the state before the change or the state
 * after it, whole, so each state is reduced to a crc32c of everything a
 * walk (metadata/thin/thin_walk.h) reports and the digests are compared.
 *
 * What counts: the superblock's time, transaction id, flags, number of
 * data blocks, data block size and metadata-snapshot root; each device's
 * id, mapped blocks, transaction, creation and snapshot times; and every
 * mapping (virtual block, data block, time). Block numbers of metadata
 * nodes do not count: equal states may be laid out differently. */
#ifndef TP_TEST_CRASH_DIGEST_H
#define TP_TEST_CRASH_DIGEST_H

#include <stdint.h>

#include "lib/base/io.h"

/* Fold V, or the string S with its NUL, into *CRC (callers digest their
 * own state, e.g. the VG, with these too). */
void crash_mix(uint32_t *crc, uint64_t v);
void crash_mix_str(uint32_t *crc, const char *s);

/* Fold the thin metadata on IO into *CRC as above: 0, or the walk's
 * -errno (-ENODATA: no superblock). */
int crash_digest_thin(struct io_engine *io, uint32_t *crc);

#endif
