/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io.h - I/O engines: everything that reads or writes a device goes
 * through one of these, so tests can swap in memory or inject faults.
 *
 * Engines: fd (a file or block device, optionally O_DIRECT; unaligned
 * buffers are bounced, offsets and lengths must be multiples of 512 with
 * O_DIRECT), window (a byte range of another engine, e.g. a metadata
 * area inside a pool device), concat (several engines end to end: a
 * pool's data area over its data devices) and mirror (two legs written
 * alike: mirrored thin metadata). The tests' own engines are built into
 * the test programs only, never into tp: mem (a zeroed buffer) and fault
 * (wraps another engine and fails or silently drops every write from the
 * Nth on) in test/lib/io_test.h, the power-cut simulator (writes volatile
 * until a flush) in test/lib/io_crash.h.
 *
 * All functions return 0 or -errno. Accesses beyond the engine's size
 * fail with -ENXIO; short reads of a file return -EIO. An engine owns its
 * name; destroy accepts NULL. */
#ifndef TP_BASE_IO_H
#define TP_BASE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

struct io_engine;

struct io_ops {
	int (*read)(struct io_engine *e, uint64_t off, void *buf, size_t len);
	int (*write)(struct io_engine *e, uint64_t off, const void *buf, size_t len);
	int (*flush)(struct io_engine *e);
	void (*destroy)(struct io_engine *e);
	/* A wrapper that keeps its inner engine's copies (a window, a test's
	 * fault injector): the engine it wraps, *OFF turned into the offset
	 * there; NULL for an engine whose copies are its own (io_copies). */
	struct io_engine *(*under)(struct io_engine *e, uint64_t *off);
};

struct io_engine {
	const struct io_ops *ops;
	uint64_t size;	/* bytes */
	char *name;	/* path or description, for messages */
	int read_only;
};

enum io_open_flags {
	IO_RDONLY = 1 << 0,
	IO_DIRECT = 1 << 1,	/* O_DIRECT */
	IO_EXCL = 1 << 2,	/* O_EXCL: refuse a block device in use */
};

int io_read(struct io_engine *e, uint64_t off, void *buf, size_t len) TP_MUST_CHECK;
int io_write(struct io_engine *e, uint64_t off, const void *buf, size_t len) TP_MUST_CHECK;
/* After an internal error (log.h: TP_BUG) the process writes nothing
 * more through any engine: every later io_write is -EROFS, for good (the
 * unit test provokes one in a child process). */
void io_fail_all_writes(void);
int io_flush(struct io_engine *e) TP_MUST_CHECK;
void io_destroy(struct io_engine *e);

/* PATH must be a block device or a regular file: anything else (a FIFO, a
 * character device, a directory, a socket) is -ENOTBLK, logged, at once
 * (devopen.h). */
int io_fd_open(const char *path, unsigned flags, struct io_engine **out) TP_MUST_CHECK;
/* The file descriptor of an fd engine (for ioctls and probing), else -1. */
int io_fd_get(struct io_engine *e);
/* Start writing LEN bytes from OFF of an fd engine back to the device
 * now, without waiting (sync_file_range WRITE), so that a long copy's
 * flush finds most of it written; nothing for other engines or an
 * O_DIRECT one. Durability still comes from io_flush only. */
void io_fd_writeback(struct io_engine *e, uint64_t off, uint64_t len);
/* Test seam (test/lib/io_crash.h): while set, every engine io_fd_open
 * makes is handed to WRAP, which returns the engine to give the caller or
 * destroys it and fails. WRAP runs with the seam unset. NULL unsets it. */
void io_fd_set_wrap(int (*wrap)(void *ctx, struct io_engine *e, struct io_engine **out),
		    void *ctx);

/* Test seam: while KEEP is set, io_mirror_take_out leaves the leg in use
 * (and primary) and io_read_valid takes the first copy read whatever it
 * holds: the deliberately broken fallback that the damage matrix
 * must catch (test/shell/t-damage-matrix.sh; a test build's tp_main sets
 * it for TP_TEST_FAIL=mirror-keep-bad-leg). */
void io_mirror_set_keep_bad_legs(int keep);

int io_window_create(struct io_engine *inner, uint64_t offset, uint64_t len, int own,
		     struct io_engine **out) TP_MUST_CHECK;

/* A linear concatenation (as device-mapper's linear target): bytes
 * LENGTH of segment 0 from its OFFSET, then segment 1's, and so on; an
 * access may cross segments. With OWN the segments' engines are destroyed
 * with it (each segment its own engine then); flush flushes each once.
 * NAME names the concatenation in messages. */
struct io_concat_seg {
	struct io_engine *io;
	uint64_t offset, length;	/* bytes */
};
int io_concat_create(const struct io_concat_seg *seg, unsigned n, const char *name, int own,
		     struct io_engine **out) TP_MUST_CHECK;

/* A mirror of two engines (mirrored thin metadata, both legs laid out
 * alike), as large as the smaller one (a leg's device grown first, before
 * the other's and the areas; tpextend --metadata-size): a write goes to each leg in use, leg 0 first, and
 * succeeds when one leg took it; a read goes to the PRIMARY leg and, on
 * an I/O error, to the other. A leg whose write or flush fails drops out
 * for the engine's life (io_mirror_in_use, io_mirror_error say which and
 * why), so a leg that missed a write is never read again; with no leg
 * left the error is returned. A leg that fails a read stays in use, as
 * md's raid1 keeps it: each 4 KiB block it cannot read is served by the
 * other leg, counted bad and unreadable on it (io_mirror_bad), and, on a
 * writable engine, rewritten there at the next flush (a leg that fails
 * that write drops out); a leg with more than 20 unreadable blocks drops
 * out. A block that reads on neither leg fails the read with -EIO. A NULL leg is a missing one (out
 * from the start, -ENODEV). With OWN the legs are destroyed with it. */
int io_mirror_create(struct io_engine *leg0, struct io_engine *leg1, unsigned primary,
		     const char *name, int own, struct io_engine **out) TP_MUST_CHECK;
/* Bit I set: leg I is in use (0 for an engine that is no mirror). */
unsigned io_mirror_in_use(struct io_engine *e);
/* What took leg LEG out (-errno; -ENODEV missing, or what the caller gave
 * io_mirror_take_out), 0 while it is in use. */
int io_mirror_error(struct io_engine *e, unsigned leg);
unsigned io_mirror_primary(struct io_engine *e);
/* Take leg LEG out with ERR (a stale leg found at open); the last leg in
 * use stays. A leg out already (missing) gets ERR as the reason. */
void io_mirror_take_out(struct io_engine *e, unsigned leg, int err);
/* Leg LEG, out until now, in use again (the caller copied the other leg's
 * content onto it): written and read as before, its counts cleared.
 * -EINVAL for no mirror, -ENODEV for a missing or too small leg. */
int io_mirror_readmit(struct io_engine *e, unsigned leg) TP_MUST_CHECK;

/* dm-integrity's tags of a leg of mirrored thin metadata, kept offline
 * (io_integrity.c): LEG wrapped so that every write of a region's data
 * (DATA_OFF..+DATA_LEN on the leg, 4 KiB aligned) also writes the tags of
 * the 4 KiB blocks it touched into the region's integrity metadata
 * (META_OFF..+META_LEN: dm-integrity's superblock, journal, then one
 * 4-byte crc32c tag a block), as the kernel would have through the
 * integrity device; a region whose integrity superblock is new (zeros)
 * gets none, and one formatted another way has its superblock zeroed
 * before its first write (the kernel formats it anew and recalculates).
 * Reads pass through. With OWN the leg goes with it. */
struct io_integrity_region {
	uint64_t data_off, data_len, meta_off, meta_len;
};
int io_integrity_create(struct io_engine *leg, const struct io_integrity_region *reg, unsigned n,
			int own, struct io_engine **out) TP_MUST_CHECK;
/* The tag dm-integrity keeps for 4 KiB block BLOCK of a region holding
 * DATA (crc32c of the block's first sector number, le64, then DATA). */
int io_integrity_tag(uint64_t block, const void *data, uint32_t *tag);

/* Copies. A mirror (or a window or other wrapper over one: io_ops.under) keeps its
 * bytes twice: copy K is leg K. A reader that can tell good bytes from
 * bad (a checksum, the block's own location) reads through
 * io_read_valid, which takes each block from the first copy that
 * validates; the mirror's own read falls back only on an I/O error.
 * Other engines have one copy, copy 0. */
unsigned io_copies(struct io_engine *e);	/* 2 for a mirror, else 1 */
unsigned io_copy_first(struct io_engine *e);	/* the copy reads go to first */
int io_copy_in_use(struct io_engine *e, unsigned k);	/* 1: copy K is read and written */
/* Copy K alone (-ENODEV: out of use or none); a write also flushes the
 * leg, and a leg that fails it drops out as after any failed write. */
int io_read_copy(struct io_engine *e, unsigned k, uint64_t off, void *buf, size_t len)
	TP_MUST_CHECK;
int io_write_copy(struct io_engine *e, unsigned k, uint64_t off, const void *buf, size_t len)
	TP_MUST_CHECK;

enum io_read_valid_flags {
	IO_HEAL = 1 << 0,	/* rewrite a copy found bad (a writable engine only) */
};
/* NB blocks of BS bytes from OFF into BUF. VALID(block, its index OFF/BS
 * + i, CTX) says 1 for good bytes. A block the first copy read holds bad
 * is read from the other copy; the first that validates is taken, and
 * each copy that did not is counted on its leg (io_mirror_bad). With
 * IO_HEAL, on a writable engine, the good bytes are kept and written over
 * the bad copy at the mirror's next flush, before the legs are flushed:
 * a command that never flushes (a refusal) changes no byte, and a write
 * of the same bytes before the flush supersedes the rewrite. A block no
 * copy validates is left as the first copy holds it (the caller's own
 * check reports the damage). VALID may be called from any thread. */
int io_read_valid(struct io_engine *e, uint64_t off, void *buf, size_t nb, size_t bs,
		  int (*valid)(const void *blk, uint64_t idx, void *ctx), void *ctx,
		  unsigned flags) TP_MUST_CHECK;
/* What reads found on leg LEG of the mirror under E: blocks bad there
 * (invalid, or unreadable: io_mirror_create) and read from the other leg, how many of them were rewritten
 * (IO_HEAL, at a flush), and the first one's byte offset on the leg
 * (zeros for no mirror). */
struct io_mirror_bad {
	uint64_t bad, healed, first_off;
	uint64_t unreadable;	/* of BAD: the leg failed to read them */
};
void io_mirror_bad(struct io_engine *e, unsigned leg, struct io_mirror_bad *out);
/* A mirror made anew over the same legs (reopened) takes FROM's counts;
 * FROM's kept rewrites are dropped (a later read finds the blocks again). */
void io_mirror_carry(struct io_engine *to, struct io_engine *from);
/* Forget the counts and the kept rewrites (a scrub reported them and
 * rewrote what it could). */
void io_mirror_bad_clear(struct io_engine *e);

#endif
