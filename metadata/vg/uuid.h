/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uuid.h - random 128-bit identifiers for pools (VG uuid) and pool devices
 * (PV uuid).
 *
 * In memory and in VG text a uuid is its 36-character lower-case string
 * "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (RFC 4122 version 4 layout); on
 * disk (the label) it is the 16 raw bytes. Functions return 0 or -errno. */
#ifndef TP_VG_UUID_H
#define TP_VG_UUID_H

#include <stdint.h>

#include "lib/base/compiler.h"

#define VG_UUID_BYTES 16
#define VG_UUID_LEN 36	/* string length, without the NUL */

/* A fresh random version-4 uuid string into OUT (VG_UUID_LEN + 1 bytes).
 * Uses getrandom(2); -errno if the kernel gives no randomness. */
int vg_uuid_generate(char out[VG_UUID_LEN + 1]) TP_MUST_CHECK;

/* Is S a well-formed uuid string (36 chars, hex and dashes in place,
 * either case)? 1 or 0. */
int vg_uuid_valid(const char *s);

/* String <-> raw bytes. parse: -EINVAL unless vg_uuid_valid(S). format
 * writes lower case. An all-zero raw uuid is the "none" value. */
int vg_uuid_parse(const char *s, uint8_t raw[VG_UUID_BYTES]) TP_MUST_CHECK;
void vg_uuid_format(const uint8_t raw[VG_UUID_BYTES], char out[VG_UUID_LEN + 1]);

#endif
