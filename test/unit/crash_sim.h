/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crash_sim.h - what the crash tests share around the power-cut simulator
 * (test/lib/io_crash.h): the plan of cuts at each cut point and the seed
 * of each one.
 *
 * At each cut point (before every write and flush, and after the last) a test cuts
 * once keeping every cached write, once keeping none, and
 * crash_random_cuts() times keeping a random subset. The default is small
 * and fixed so the unit run stays fast; TP_CRASH_ITER=N asks for N random
 * cuts per point (a soak), TP_CRASH_SEED=S changes the base seed. Every
 * cut's seed is derived from the base seed, the cut point and the round, so
 * a failure prints what reproduces it. */
#ifndef TP_TEST_CRASH_SIM_H
#define TP_TEST_CRASH_SIM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "test/lib/io_crash.h"

#define CRASH_RANDOM_CUTS_DEFAULT 2u

static inline unsigned crash_random_cuts(void)
{
	const char *s = getenv("TP_CRASH_ITER");
	unsigned long n = s ? strtoul(s, NULL, 10) : CRASH_RANDOM_CUTS_DEFAULT;

	return n ? (unsigned)n : 1;
}

static inline uint64_t crash_base_seed(void)
{
	const char *s = getenv("TP_CRASH_SEED");

	return s ? strtoull(s, NULL, 0) : 0x7470746f6f6c73ull;	/* "tptools" */
}

/* Round ROUND at cut point AT: round 0 keeps all, 1 keeps none, the
 * others are random. */
static inline enum io_crash_mode crash_mode(unsigned round)
{
	return round == 0 ? IO_CRASH_ALL : round == 1 ? IO_CRASH_NONE : IO_CRASH_RANDOM;
}

static inline unsigned crash_rounds(void)
{
	return 2 + crash_random_cuts();
}

static inline uint64_t crash_seed(uint64_t at, unsigned round)
{
	uint64_t x = crash_base_seed() ^ (at * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)round << 48);

	x ^= x >> 31;
	return x * 0xbf58476d1ce4e5b9ull;
}

/* Say which cut broke WHAT (the test also fails an assertion). */
static inline void crash_report(const char *what, uint64_t at, unsigned round,
				const char *why)
{
	fprintf(stderr, "crash simulator: %s: cut before event %llu, round %u, seed 0x%llx "
		"(TP_CRASH_SEED=0x%llx): %s\n", what, (unsigned long long)at, round,
		(unsigned long long)crash_seed(at, round),
		(unsigned long long)crash_base_seed(), why);
}

#endif
