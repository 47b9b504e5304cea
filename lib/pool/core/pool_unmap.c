/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_unmap.c - the bounded steps a volume's removal is made of, as the
 * core offers them to the removal module (core.h: pool_unmap_step,
 * pool_unmap_end): the dispatch to P's backend, the step sizes both
 * backends take, and the live step's device. A leaf of the core: it
 * calls no other file of it. */
#include "lib/pool/core/core_int.h"

#include "lib/base/critical.h"

#include <unistd.h>

uint64_t pool_removal_step(uint64_t step)
{
	step = tp_test_count("TP_TEST_REMOVE_STEP", step);
	return step ? step : 1;
}

uint64_t pool_removal_flush_every(uint64_t every)
{
	every = tp_test_count("TP_TEST_REMOVE_FLUSH", every);
	return every ? every : 1;
}

void pool_removal_release(struct pool *p)
{
	if (p->removal_fd_open)
		close(p->removal_fd);
	p->removal_fd_open = 0;
}

int pool_unmap_step(struct pool *p, const struct vg_volume *rm, int do_step, uint64_t *pos,
		    uint64_t *left)
{
	return p->be->unmap_step(p, rm, do_step, pos, left);
}

void pool_unmap_end(struct pool *p)
{
	pool_removal_release(p);
}
