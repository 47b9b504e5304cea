/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_test.h - the tests' own I/O engines (lib/base/io.h has the rest):
 * mem, a zeroed buffer in memory, and fault, a wrapper over another engine
 * that fails or silently drops every write from the Nth on. Built into
 * the test programs only (the unit runner, the fuzz harnesses: the
 * Makefile's TESTLIB_SRCS), never into tp: no product code may use them
 * (test/shell/t-release-build.sh).
 *
 * All functions return 0 or -errno, as lib/base/io.h's. */
#ifndef TP_TEST_IO_TEST_H
#define TP_TEST_IO_TEST_H

#include <stdint.h>

#include "lib/base/io.h"

int io_mem_create(uint64_t size, const char *name, struct io_engine **out) TP_MUST_CHECK;
/* The buffer of a mem engine (NULL for any other engine). */
unsigned char *io_mem_data(struct io_engine *e);
/* The bytes read from a mem engine so far (0 for any other engine). */
uint64_t io_mem_read_bytes(struct io_engine *e);
/* Grow (zeros) or shrink a mem engine; -EINVAL for any other engine. */
int io_mem_resize(struct io_engine *e, uint64_t size) TP_MUST_CHECK;

enum io_fault_mode {
	IO_FAULT_NONE,
	IO_FAULT_FAIL,	/* writes from the Nth on return -EIO, nothing written */
	IO_FAULT_DROP,	/* writes from the Nth on report success, nothing written */
};
/* Wrap INNER; with OWN the wrapper destroys INNER. The wrapper keeps
 * INNER's copies (io.h: io_copies, io_read_valid see through it). */
int io_fault_create(struct io_engine *inner, int own, struct io_engine **out) TP_MUST_CHECK;
/* Arm: write number NTH (0-based, counted from creation) and later ones fault. */
void io_fault_set(struct io_engine *e, enum io_fault_mode mode, uint64_t nth);
uint64_t io_fault_writes(struct io_engine *e);	/* writes attempted so far */

#endif
