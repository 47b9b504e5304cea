/* SPDX-License-Identifier: GPL-2.0-or-later */
/* discard.h - give a byte range of a device back to its storage: a block
 * device gets BLKDISCARD (an SSD or thin LUN frees it; reads of it are
 * then unspecified, as the device defines), a regular file a hole
 * (fallocate PUNCH_HOLE | KEEP_SIZE: its blocks are freed, it reads as
 * zeros, its size stays).
 *
 * Errors: 0 or -errno, nothing logged (the caller names the device):
 * -EOPNOTSUPP when the device or file system cannot discard or punch,
 * -ENOTBLK for anything else (a FIFO, a character device). */
#ifndef TP_DEV_DISCARD_H
#define TP_DEV_DISCARD_H

#include <stdint.h>

#include "lib/base/compiler.h"

enum tp_discard_kind {
	TP_DISCARD_BLOCK = 1,	/* BLKDISCARD */
	TP_DISCARD_PUNCH,	/* fallocate PUNCH_HOLE */
};

/* What FD is: its kind into *KIND, 0; -ENOTBLK, or fstat's -errno. */
int tp_discard_kind(int fd, enum tp_discard_kind *kind) TP_MUST_CHECK;
/* Discard LEN bytes at OFF of FD (of kind KIND). */
int tp_discard(int fd, enum tp_discard_kind kind, uint64_t off, uint64_t len) TP_MUST_CHECK;

/* Make LEN bytes at OFF of FD read as zeros without writing them: a
 * regular file's range punched out (its blocks freed, size kept), a block
 * device's zeroed by the device (BLKZEROOUT, never a discard, which need
 * not zero). -EOPNOTSUPP (or another -errno) when it cannot: the caller
 * writes zeros instead. */
int tp_zero_range(int fd, enum tp_discard_kind kind, uint64_t off, uint64_t len) TP_MUST_CHECK;

#endif
