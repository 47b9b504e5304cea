/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_crash.h - a power-cut simulator: devices with a volatile write cache.
 *
 * A crash domain is one power supply. Every engine wrapped into it
 * (io_crash_wrap, or every io_fd_open while io_crash_hook is installed)
 * writes into its disk's cache, not the medium: reads see the cache, and
 * only a flush of that disk makes its cached writes durable (written to the
 * medium in order). The medium itself is never synced: the domain is the
 * model of durability, and a test's image file never loses power. Engines
 * on one medium (the same file opened twice, a window of it) share one
 * disk and one cache, as opens of one device share the kernel's cache.
 *
 * The cut: armed at event N (the writes and flushes of the whole domain,
 * counted from 0), the power fails just before that write or flush. Each
 * disk's medium then keeps, for each 4 KiB unit (offset / 4096) written
 * since that disk's last flush, the
 * content the unit had after ANY ONE of those writes, or the content from
 * before them; units choose independently (IO_CRASH_RANDOM, from the
 * domain's seed), so any subset of the writes persists, in any order. The
 * granularity is 4 KiB because that is the metadata block size and the
 * atomic write unit of the devices we run on (4Kn disks, SSDs, the page
 * cache): a torn write smaller than that is not modelled. IO_CRASH_NONE
 * keeps none of the cached writes, IO_CRASH_ALL every one (a prefix cut).
 * After the cut, writes and flushes fail with -EIO (the device is gone);
 * reads return the medium as the cut left it.
 *
 * A test can also lose flush number N (io_crash_lose_flush): it returns 0
 * but makes nothing durable, as if the code path had not called it. This
 * is how the tests prove the simulator finds a missing flush.
 *
 * Owns: the domain's disks and their caches; a disk keeps its own handle
 * on the medium (a second open of a file, or the caller's engine for any
 * other kind, which must outlive the domain). All functions return 0 or
 * -errno. */
#ifndef TP_TEST_IO_CRASH_H
#define TP_TEST_IO_CRASH_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

#define IO_CRASH_UNIT 4096u

struct io_crash;

enum io_crash_mode {
	IO_CRASH_RANDOM,	/* each unit: a random one of its versions */
	IO_CRASH_NONE,		/* every cached write lost */
	IO_CRASH_ALL,		/* every cached write kept */
};

int io_crash_create(uint64_t seed, struct io_crash **out) TP_MUST_CHECK;
/* Drops the caches (unflushed writes are lost, as in a cut with
 * IO_CRASH_NONE) and closes the disks' own media. Destroy the domain's
 * engines first. NULL ok. */
void io_crash_destroy(struct io_crash *c);

/* An engine over INNER in domain C (see above). An fd engine's disk is
 * found by its file (device and inode) and opens the file again as its
 * medium; with OWN the wrapper destroys INNER. Any other engine is its own
 * disk's medium: OWN must be 0 (-EINVAL) and INNER outlive the domain. */
int io_crash_wrap(struct io_crash *c, struct io_engine *inner, int own, struct io_engine **out)
	TP_MUST_CHECK;

/* Wrap every engine io_fd_open returns from now on into C (NULL: stop). */
void io_crash_hook(struct io_crash *c);

/* Cut the power just before domain event NTH (a write or a flush;
 * UINT64_MAX: never), keeping what MODE says. */
void io_crash_arm(struct io_crash *c, uint64_t nth, enum io_crash_mode mode);
/* Cut now (if not cut yet). 0, or -errno writing the medium. */
int io_crash_cut(struct io_crash *c) TP_MUST_CHECK;
int io_crash_is_cut(const struct io_crash *c);
/* Flush number NTH (0-based, domain-wide) makes nothing durable. */
void io_crash_lose_flush(struct io_crash *c, uint64_t nth);

uint64_t io_crash_writes(const struct io_crash *c);	/* writes issued so far */
uint64_t io_crash_flushes(const struct io_crash *c);	/* flushes issued so far */
uint64_t io_crash_events(const struct io_crash *c);	/* writes + flushes so far */
/* Units that a RANDOM cut kept / lost (over all cuts of the domain). */
void io_crash_counts(const struct io_crash *c, uint64_t *kept, uint64_t *lost);

#endif
