/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_walk_int.h - the walker's node reader (thin_walk_read.c), shared
 * with the walk itself (thin_walk.c). Not for use outside them.
 *
 * The walk knows the nodes of a whole tree level before it reads any, so
 * it hands them to the reader a batch (at most WALK_BATCH nodes) at a time
 * and processes one batch while the next is read: a second thread reads,
 * sorted by block number with consecutive blocks merged into one read
 * (at most WALK_MAX_RUN blocks), and validates each node (checksum, own
 * block number, bounds, key order and the key range its parent allows,
 * btree_node_check). Two batches are in use at a time: the one the walk
 * processes and the one being read. Without a thread (before the first
 * batch of WALK_THREAD_MIN nodes, or pthread_create failed) submit reads
 * synchronously; results are identical. */
#ifndef TP_THIN_WALK_INT_H
#define TP_THIN_WALK_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/io.h"

#define WALK_BATCH 256		/* nodes per batch (1 MiB) */
#define WALK_MAX_RUN 64		/* blocks per read */
/* the reader's thread starts at the first batch of this many nodes: a walk
 * of a few small batches (a pool's device trees at 20,000 volumes) is done
 * sooner without one than with its start and a handover per batch */
#define WALK_THREAD_MIN 64

struct node_ref {
	uint64_t block;
	uint64_t lo, hi;	/* keys allowed: [lo, hi) */
	int seen;		/* below a node the node visitor has seen */
};

/* A batch read: per ref i, node[i] (NULL when err[i]) and, for a node
 * that was read, what[i]: NULL when valid, else the fault. */
struct walk_batch {
	unsigned char *bufs;	/* WALK_BATCH blocks, in block order */
	const unsigned char *node[WALK_BATCH];
	int err[WALK_BATCH];	/* 0, -ENXIO (beyond the end) or the read error */
	const char *what[WALK_BATCH];
	uint32_t order[WALK_BATCH];
	/* the request */
	const struct node_ref *refs;
	size_t n;
	uint32_t leaf_vsize;
};

struct walk_reader {
	struct io_engine *io;
	uint64_t nr_blocks;
	struct walk_batch b[2];
	unsigned next;		/* the batch the next submit fills */
	int threaded, stop, pending, done;
	int sync;		/* lock and cond made */
	int tried;		/* the thread's start tried (WALK_THREAD_MIN) */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* 0 or -ENOMEM. */
int walk_reader_init(struct walk_reader *rd, struct io_engine *io, uint64_t nr_blocks)
	TP_MUST_CHECK;
void walk_reader_exit(struct walk_reader *rd);
/* Read and validate REFS[0..N) (N <= WALK_BATCH; REFS stay unchanged until
 * the batch is waited for) as leaf nodes of values LEAF_VSIZE. At most one
 * batch may be submitted and not yet waited for. */
void walk_reader_submit(struct walk_reader *rd, const struct node_ref *refs, size_t n,
			uint32_t leaf_vsize);
/* The batch submitted last, once read. Valid until the submit after next. */
const struct walk_batch *walk_reader_wait(struct walk_reader *rd);

#endif
