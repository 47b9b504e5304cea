/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rand.h - the tests' one pseudo-random generator (xorshift64):
 * fixed seeds give the same cases every run. Header only, no CUnit, so
 * the test tools include it too. Each user keeps its own state. */
#ifndef TP_TEST_RAND_H
#define TP_TEST_RAND_H

#include <stdint.h>

static inline uint64_t tp_test_xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
