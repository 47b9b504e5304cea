/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thin_walk_read.c - the walker's node reader: batches of tree nodes read
 * and validated on a second thread while the walk processes the previous
 * batch. See thin_walk_int.h. */
#include "metadata/thin/thin_walk_int.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/pdata/btree_node.h"

static int cmp_order(const void *a, const void *b, void *base)
{
	const struct node_ref *refs = base;
	uint64_t x = refs[*(const uint32_t *)a].block, y = refs[*(const uint32_t *)b].block;
	return x < y ? -1 : x > y;
}

/* Validate one node read for REF (btree_node_check, then the key range
 * its parent allows). Returns NULL or a description. */
static const char *node_problem(const unsigned char *n, const struct node_ref *ref,
				uint32_t leaf_vsize)
{
	enum btree_node_fault f;

	if (btree_node_check(n, ref->block, leaf_vsize, BTREE_RULE_NONEMPTY | BTREE_RULE_KEY_ORDER,
			     &f))
		return btree_node_fault_str(f);
	if (bn_nr(n) && (bn_key(n, 0) < ref->lo ||
			 (ref->hi != UINT64_MAX && bn_key(n, bn_nr(n) - 1) >= ref->hi)))
		return "key outside the range its parent allows";
	return NULL;
}

/* A run of a batch being read: node IDX is the ref at order[pos + IDX - first]. */
struct run_ctx {
	const struct walk_batch *b;
	size_t pos;
	uint64_t first;
};

static int node_ok(const void *n, uint64_t idx, void *arg)
{
	const struct run_ctx *c = arg;
	const struct node_ref *ref = &c->b->refs[c->b->order[c->pos + (idx - c->first)]];

	return !node_problem(n, ref, c->b->leaf_vsize);
}

/* Read the batch's refs in block order, runs of consecutive blocks in one
 * read straight into bufs, and validate every node read (a node one leg
 * of mirrored metadata holds bad is taken from the other: io_read_valid,
 * counted on the leg and, in a writer, rewritten at its next flush). */
static void read_batch(struct walk_reader *rd, struct walk_batch *b)
{
	const struct node_ref *refs = b->refs;
	size_t n = b->n;

	for (size_t i = 0; i < n; i++)
		b->order[i] = (uint32_t)i;
	qsort_r(b->order, n, sizeof(*b->order), cmp_order, (void *)refs);
	for (size_t i = 0; i < n;) {
		uint64_t first = refs[b->order[i]].block;
		size_t j = i + 1;
		int r;

		if (first >= rd->nr_blocks) {
			b->err[b->order[i]] = -ENXIO;
			b->node[b->order[i]] = NULL;
			i++;
			continue;
		}
		while (j < n && j - i < WALK_MAX_RUN && refs[b->order[j]].block == first + (j - i) &&
		       refs[b->order[j]].block < rd->nr_blocks)
			j++;
		struct run_ctx c = { b, i, first };
		r = io_read_valid(rd->io, first * BM_BLOCK_SIZE, b->bufs + i * BM_BLOCK_SIZE, j - i,
				  BM_BLOCK_SIZE, node_ok, &c, IO_HEAL);
		for (size_t k = i; k < j; k++) {
			uint32_t o = b->order[k];
			b->err[o] = r;
			b->node[o] = r ? NULL : b->bufs + k * BM_BLOCK_SIZE;
			b->what[o] = r ? NULL : node_problem(b->node[o], &refs[o], b->leaf_vsize);
		}
		i = j;
	}
}

static void *reader_main(void *arg)
{
	struct walk_reader *rd = arg;
	sigset_t all;

	sigfillset(&all);	/* signals are the calling thread's */
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&rd->lock);
	for (;;) {
		while (!rd->pending && !rd->stop)
			pthread_cond_wait(&rd->cond, &rd->lock);
		if (rd->stop)
			break;
		struct walk_batch *b = &rd->b[rd->next ^ 1];
		pthread_mutex_unlock(&rd->lock);
		read_batch(rd, b);
		pthread_mutex_lock(&rd->lock);
		rd->pending = 0;
		rd->done = 1;
		pthread_cond_broadcast(&rd->cond);
	}
	pthread_mutex_unlock(&rd->lock);
	return NULL;
}

int walk_reader_init(struct walk_reader *rd, struct io_engine *io, uint64_t nr_blocks)
{
	memset(rd, 0, sizeof(*rd));
	rd->io = io;
	rd->nr_blocks = nr_blocks;
	/* page aligned: O_DIRECT engines read straight into them */
	for (int i = 0; i < 2; i++)
		if (posix_memalign((void **)&rd->b[i].bufs, 4096, (size_t)WALK_BATCH * BM_BLOCK_SIZE)) {
			rd->b[i].bufs = NULL;
			walk_reader_exit(rd);
			return -ENOMEM;
		}
	if (pthread_mutex_init(&rd->lock, NULL))
		return 0;	/* reads in submit */
	if (pthread_cond_init(&rd->cond, NULL)) {
		pthread_mutex_destroy(&rd->lock);
		return 0;
	}
	rd->sync = 1;	/* the thread starts with the first large batch */
	return 0;
}

void walk_reader_exit(struct walk_reader *rd)
{
	if (rd->threaded) {
		pthread_mutex_lock(&rd->lock);
		while (rd->pending)
			pthread_cond_wait(&rd->cond, &rd->lock);
		rd->stop = 1;
		pthread_cond_broadcast(&rd->cond);
		pthread_mutex_unlock(&rd->lock);
		pthread_join(rd->thread, NULL);
		rd->threaded = 0;
	}
	if (rd->sync) {
		pthread_cond_destroy(&rd->cond);
		pthread_mutex_destroy(&rd->lock);
		rd->sync = 0;
	}
	for (int i = 0; i < 2; i++) {
		free(rd->b[i].bufs);
		rd->b[i].bufs = NULL;
	}
}

void walk_reader_submit(struct walk_reader *rd, const struct node_ref *refs, size_t n,
			uint32_t leaf_vsize)
{
	struct walk_batch *b = &rd->b[rd->next];

	b->refs = refs;
	b->n = n;
	b->leaf_vsize = leaf_vsize;
	if (!rd->threaded && rd->sync && !rd->tried && n >= WALK_THREAD_MIN) {
		rd->tried = 1;
		rd->threaded = !pthread_create(&rd->thread, NULL, reader_main, rd);
	}
	if (!rd->threaded || n < 4) {	/* a handover costs more than a few reads */
		read_batch(rd, b);
		rd->next ^= 1;
		rd->done = 1;
		return;
	}
	pthread_mutex_lock(&rd->lock);
	rd->next ^= 1;
	rd->done = 0;
	rd->pending = 1;
	pthread_cond_broadcast(&rd->cond);
	pthread_mutex_unlock(&rd->lock);
}

const struct walk_batch *walk_reader_wait(struct walk_reader *rd)
{
	if (rd->threaded) {
		pthread_mutex_lock(&rd->lock);
		while (!rd->done)
			pthread_cond_wait(&rd->cond, &rd->lock);
		pthread_mutex_unlock(&rd->lock);
	}
	return &rd->b[rd->next ^ 1];
}
