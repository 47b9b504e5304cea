/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h - what is already on a device: signature probing via libblkid.
 *
 * Owns: one low-level libblkid probe of a path (block device or image
 * file) over the superblocks chain (filesystems, swap, RAID members,
 * LVM2_member, crypto, ...) and the partitions chain (partition table
 * type), listing EVERY signature found (like wipefs), not only the first,
 * plus an optional caller-supplied hook for signatures libblkid does not
 * know (our own pool label: lib/dev does not include metadata/, so
 * lib/pool passes a hook that recognises metadata/vg's label).
 *
 * Three-way result: 1 = something found (res->count > 0), 0 = nothing
 * found (res->count == 0), -errno = the probe failed (could not open or
 * read PATH, -ENOTBLK for a path that is neither a block device nor a
 * regular file, or the hook's error; logged, naming PATH). A found signature is a reason for
 * tpcreate to refuse the device unless --force; the decision is the
 * caller's, lib/dev only reports.
 *
 * Strings are copied into the result (bounded, NUL-terminated, truncated
 * if longer); the result owns nothing on the heap and needs no free. At
 * most TP_PROBE_MAX signatures are kept; `truncated` says more existed. */
#ifndef TP_DEV_PROBE_H
#define TP_DEV_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

#define TP_PROBE_MAX 8
/* The hook sees the first TP_PROBE_HOOK_BYTES of the device (less if the
 * device is smaller). */
#define TP_PROBE_HOOK_BYTES (64 * 1024)

enum tp_sig_kind {
	TP_SIG_FILESYSTEM,	/* blkid USAGE "filesystem" (ext4, xfs, btrfs, vfat, ...) */
	TP_SIG_SWAP,		/* swap space (blkid: filesystem usage "other", type "swap") */
	TP_SIG_RAID,		/* USAGE "raid": linux_raid_member, LVM2_member, ... */
	TP_SIG_LVM,		/* TYPE LVM2_member / LVM1_member (a subset of raid usage) */
	TP_SIG_CRYPTO,		/* USAGE "crypto": crypto_LUKS, ... */
	TP_SIG_PTABLE,		/* a partition table (PTTYPE dos, gpt, ...) */
	TP_SIG_TPTOOLS,		/* reported by the caller's hook: our own pool label */
	TP_SIG_OTHER,		/* anything else libblkid recognised */
};

struct tp_signature {
	enum tp_sig_kind kind;
	char type[32];		/* blkid TYPE or PTTYPE ("ext4", "gpt", ...) or the hook's name */
	char label[64];		/* "" if none */
	char uuid[64];		/* "" if none (PTUUID for partition tables) */
	uint64_t offset;	/* byte offset of the magic on the device; UINT64_MAX if unknown */
};

struct tp_probe_result {
	unsigned count;
	int truncated;		/* more than TP_PROBE_MAX were found */
	struct tp_signature sig[TP_PROBE_MAX];
};

/* A recogniser for a signature libblkid does not know. MATCH gets the
 * first bytes of the device; it returns 1 after filling SIG (kind, type
 * and whatever else it knows; offset defaults to 0), 0 when BUF is not
 * its signature, or -errno (-EUCLEAN is NOT an error here: a damaged
 * label should be reported as found, with the damage said in `label`). */
struct tp_probe_hook {
	int (*match)(const void *buf, size_t len, struct tp_signature *sig, void *arg);
	void *arg;
};

/* Probe PATH. HOOK may be NULL. Returns 1 / 0 / -errno as above; *RES is
 * always initialised (count 0 on error). Opens PATH read-only; never
 * writes. */
int tp_dev_probe(const char *path, const struct tp_probe_hook *hook,
		 struct tp_probe_result *res) TP_MUST_CHECK;

/* "filesystem", "swap", "RAID member", "LVM physical volume", "encrypted
 * volume", "partition table", "tptools label", "signature" */
const char *tp_sig_kind_name(enum tp_sig_kind k);

/* One phrase for messages: "ext4 filesystem (label \"home\", UUID 1234-...)
 * at offset 1080". Returns BUF. */
const char *tp_signature_describe(const struct tp_signature *s, char *buf, size_t len);

#endif
