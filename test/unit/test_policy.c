/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The geometry policy (lib/pool/policy): table tests over md geometries.
 *
 * The md rules that produce each topology (what the kernel's md drivers
 * report as minimum_io_size / optimal_io_size) are modelled here; the
 * expected policy results are computed by brute force from the rules in
 * policy.h, independently of the closed forms in policy.c. */
#include "lib/pool/policy.h"
#include "test/unit/test_rand.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define K TP_KiB
#define M TP_MiB
#define G TP_GiB
#define T TP_TiB
#define P TP_PiB

enum md_level { RAID0, RAID1, RAID5, RAID6, RAID10 };
static const char *const level_name[] = { "raid0", "raid1", "raid5", "raid6", "raid10" };

/* What md reports for LEVEL over DISKS members with md chunk CHUNK. */
static void md_topology(enum md_level level, unsigned disks, uint64_t chunk, uint64_t align,
			struct tp_topology *t)
{
	tp_topology_init(t);
	t->source = TP_TOPO_BLKID;
	t->min_io = chunk;
	switch (level) {
	case RAID0:
		t->opt_io = chunk * disks;
		break;
	case RAID1:
		t->min_io = 512;	/* mirrors: no chunk, no stripe */
		t->opt_io = 0;
		break;
	case RAID5:
		t->opt_io = chunk * (disks - 1);
		break;
	case RAID6:
		t->opt_io = chunk * (disks - 2);
		break;
	case RAID10:	/* near=2: stripes over disks/2 pairs; odd counts stripe over all */
		t->opt_io = chunk * (disks % 2 ? disks : disks / 2);
		break;
	}
	t->align_offset = align;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* The invariant, written from its statement in policy.h: chunk C never
 * straddles a boundary of md chunk MD or stripe S (0 = none): C divides MD,
 * or C is a multiple of MD that divides or is a multiple of S. */
static int no_straddle(uint64_t c, uint64_t md, uint64_t s)
{
	if (md && md % c == 0)
		return 1;
	if (md && c % md)
		return 0;
	return !s || s % c == 0 || c % s == 0;
}

/* The md chunk the policy respects (min_io in whole sectors up to 1 GiB). */
static uint64_t md_of(const struct tp_topology *t)
{
	return t->min_io && t->min_io % 512 == 0 && t->min_io <= TP_CHUNK_MAX ? t->min_io : 0;
}

/* PROFILE's auto chunk by brute force: the smallest 64K multiple within
 * 64K..1G that is >= the profile's floor, keeps the invariant (whole
 * stripes for throughput) and whose estimate for DATA fits BUDGET. 0 if
 * none. */
static uint64_t brute_chunk(const struct tp_topology *t, enum tp_profile profile, uint64_t data,
			    uint64_t budget)
{
	uint64_t s = tp_policy_stripe(t, NULL, 0), md = md_of(t);
	int whole = profile == TP_PROFILE_THROUGHPUT;
	uint64_t floor = whole ? TP_CHUNK_FLOOR : TP_CHUNK_MIN;

	for (uint64_t c = floor; c <= TP_CHUNK_MAX; c += 64 * K) {
		if (!no_straddle(c, md, s) || tp_policy_meta_estimate(data, c) > budget)
			continue;
		if (whole && (s ? c % s : md ? c % md : 0))
			continue;
		return c;
	}
	return 0;
}

static unsigned checked_cases, whole_stripe_cases, fallback_cases, small_cases;
static unsigned grown_cases;

/* All the invariants of one plan. */
static void check_plan(const struct tp_policy_input *in, const struct tp_policy_plan *p,
		       const char *what)
{
	const struct tp_topology *t = &in->topo;
	uint64_t stripe = tp_policy_stripe(t, NULL, 0);
	uint64_t c = p->chunk.chunk, off = p->data_offset.offset;
	uint64_t data = in->data_dev_size - off;
	uint64_t align = t->align_offset < (stripe ? stripe : M) ? t->align_offset : 0;
	uint64_t budget = TP_META_MAX, want;
	int ok = 1;

	checked_cases++;
	/* chunk: dm-thin's limits */
	ok &= c >= TP_CHUNK_MIN && c <= TP_CHUNK_MAX && c % (64 * K) == 0;
	/* the profile's chunk (brute force) whenever one keeps the invariant:
	 * no chunk straddles an md-chunk or stripe boundary */
	if (in->meta_dev_size)
		budget = tp_policy_meta_room(in->meta_dev_size, in->meta_header);
	want = brute_chunk(t, in->profile, data, budget);
	if (want) {
		ok &= c == want && !p->chunk.warning && p->chunk.fits;
		ok &= no_straddle(c, md_of(t), stripe);
		if (in->profile == TP_PROFILE_THROUGHPUT && stripe) {
			whole_stripe_cases++;
			ok &= c % stripe == 0 && p->chunk.whole_stripe;
		} else if (stripe && c < stripe) {
			small_cases++;
		}
		/* grown past the unbudgeted choice by the metadata budget only,
		 * in a step that keeps the invariant (checked above) */
		if (c > brute_chunk(t, in->profile, data, UINT64_MAX))
			grown_cases++;
	} else {
		fallback_cases++;
		ok &= p->chunk.warning;
	}
	/* data offset: stripe grid plus alignment_offset, at least 1 MiB, the first */
	ok &= off >= M && off >= in->data_header;
	if (stripe) {
		ok &= (off - align) % stripe == 0;
		ok &= off - stripe < TP_MAX(M, in->data_header) || off == align;
	}
	/* zeroing rule: on for the snapshots profile only */
	ok &= p->zero.zero == (in->profile == TP_PROFILE_SNAPSHOTS);
	/* metadata */
	ok &= p->meta.size >= TP_META_MIN && p->meta.size <= TP_META_MAX &&
	      p->meta.size % 4096 == 0;
	ok &= p->meta.active_offset >= in->meta_header && p->meta.active_offset % M == 0;
	ok &= p->meta.spare_offset >= p->meta.active_offset + p->meta.size &&
	      p->meta.spare_offset % M == 0;
	if (in->meta_dev_size)
		ok &= p->meta.end <= in->meta_dev_size;
	ok &= p->meta.estimate <= p->meta.size || p->meta.warning;
	/* the data area */
	ok &= p->data_blocks == data / c && p->data_blocks > 0;
	ok &= off + p->data_blocks * c <= in->data_dev_size;
	/* every decision has a reason */
	ok &= p->chunk.reason[0] && p->zero.reason[0] && p->data_offset.reason[0] &&
	      p->meta.reason[0] && p->discards.reason[0];
	if (!ok) {
		char d[200];
		fprintf(stderr, "\n%s: %s\n chunk %llu offset %llu meta %llu\n %s\n", what,
			tp_topology_describe(t, d, sizeof(d)), (unsigned long long)c,
			(unsigned long long)off, (unsigned long long)p->meta.size, p->chunk.reason);
	}
	CU_ASSERT(ok);
}

/* RAID0/1/5/6/10 x 3..16 disks (wide stripes: 14-disk RAID6 at 512K is
 * 6 MiB) x 4K..1M md chunks x alignment offsets x pool sizes from 16 GiB
 * to 1 PiB x metadata devices (none/8M/1G/64G), for each profile. */
static void test_md_table(void)
{
	static const uint64_t sizes[] = { 16 * G, 16 * T, 256 * T, 1 * P };
	static const uint64_t metas[] = { 0, 8 * M, 1 * G, 64 * G };
	unsigned failed = 0, per_profile[3] = { 0 };

	checked_cases = whole_stripe_cases = fallback_cases = small_cases = grown_cases = 0;
	for (int pr = TP_PROFILE_BALANCED; pr <= TP_PROFILE_SNAPSHOTS; pr++)
	for (int lv = RAID0; lv <= RAID10; lv++)
		for (unsigned disks = (lv == RAID1 ? 2 : 3); disks <= 16; disks++)
			for (uint64_t mc = 4 * K; mc <= 1 * M; mc *= 2)
				for (int ai = 0; ai < 3; ai++)
					for (size_t si = 0; si < TP_ARRAY_SIZE(sizes); si++)
						for (size_t mi = 0; mi < TP_ARRAY_SIZE(metas); mi++) {
	struct tp_policy_input in = { 0 };
	struct tp_policy_plan p;
	char what[96];
	uint64_t align = ai == 0 ? 0 : ai == 1 ? 4 * K : mc / 2 + 512;
	int r;

	in.profile = (enum tp_profile)pr;
	md_topology(lv, disks, mc, align, &in.topo);
	if (in.topo.opt_io && align >= in.topo.opt_io)
		in.topo.align_offset = 0;
	in.data_dev_size = sizes[si];
	in.meta_dev_size = metas[mi];
	in.data_header = 1 * M;
	in.meta_header = 1 * M + 4 * K;
	snprintf(what, sizeof(what), "%s: %s %u disks %lluK chunk align %llu size %llu meta %llu",
		 tp_profile_name(in.profile), level_name[lv], disks, (unsigned long long)(mc / K),
		 (unsigned long long)in.topo.align_offset, (unsigned long long)sizes[si],
		 (unsigned long long)metas[mi]);
	r = tp_policy_plan(&in, &p);
	if (r == -ENOSPC) {
		/* only a metadata device that cannot hold the minimum may refuse */
		if (!(metas[mi] && p.meta.min_dev_size > metas[mi])) {
			fprintf(stderr, "\n%s: unexpected ENOSPC: %s\n", what, p.error);
			failed++;
		}
		continue;
	}
	if (r) {
		fprintf(stderr, "\n%s: r=%d %s\n", what, r, p.error);
		failed++;
		continue;
	}
	check_plan(&in, &p, what);
	per_profile[pr]++;
						}
	CU_ASSERT_EQUAL(failed, 0);
	/* the table really ran, over 20000 geometries a profile (RAID1 has no
	 * stripe; 8 MiB metadata devices refuse the largest pools); balanced
	 * chunks below the stripe and budget-grown chunks both happened */
	for (int pr = 0; pr < 3; pr++)
		CU_ASSERT(per_profile[pr] > 20000);
	CU_ASSERT(whole_stripe_cases > 15000);
	CU_ASSERT(small_cases > 8000);
	CU_ASSERT(grown_cases > 1000);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)	/* xorshift64: fixed seed, same cases every run */
{
	return tp_test_xorshift64(&rnd_state);
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Random geometries, sizes and options, plausible or not: the plan either
 * fails with a usage or a size error and says why, or keeps every
 * invariant of policy.h. Run under UBSan this also proves no overflow. */
static void test_random_inputs(void)
{
	unsigned bad = 0, planned = 0, refused = 0;

	for (int i = 0; i < 30000; i++) {
		struct tp_policy_input in = { 0 };
		struct tp_policy_plan p;
		uint64_t stripe, grid, align, lim;
		int r;

		tp_topology_init(&in.topo);
		switch (rnd_below(4)) {
		case 0:
			break;
		case 1:
			in.topo.min_io = 512ull << rnd_below(13);
			in.topo.opt_io = in.topo.min_io * (1 + rnd_below(20));
			break;
		case 2:
			in.topo.min_io = 512 * rnd_below(8192);
			in.topo.opt_io = 512 * rnd_below(4ull << 20);
			break;
		default:
			in.topo.min_io = rnd_below(8 * M);
			in.topo.opt_io = rnd_below(3 * G);
			break;
		}
		if (rnd_below(3) == 0)
			in.topo.align_offset = 512 * rnd_below(4096);
		in.topo.discard = (int)rnd_below(2);
		in.data_dev_size = rnd_below(1ull << (20 + rnd_below(41)));
		in.meta_dev_size = rnd_below(2) ? rnd_below(1ull << (20 + rnd_below(17))) : 0;
		in.data_header = rnd_below(4) ? 1 * M : rnd_below(8 * M);
		in.meta_header = in.data_header;
		if (rnd_below(4) == 0)
			in.chunk = rnd_below(2) ? 64 * K * (1 + rnd_below(16384)) : rnd_below(2 * G);
		if (rnd_below(6) == 0)
			in.metadata_size = rnd_below(20 * G);
		in.zero = (enum tp_choice)rnd_below(3);
		in.profile = (enum tp_profile)rnd_below(3);

		r = tp_policy_plan(&in, &p);
		if (r) {
			refused++;
			bad += !((r == -EINVAL || r == -ENOSPC) && p.error[0]);
			continue;
		}
		planned++;
		stripe = tp_policy_stripe(&in.topo, NULL, 0);
		grid = p.data_offset.grid;
		align = in.topo.align_offset < grid ? in.topo.align_offset : 0;
		lim = TP_MAX(M, in.data_header);
		bad += !(p.chunk.chunk >= TP_CHUNK_MIN && p.chunk.chunk <= TP_CHUNK_MAX &&
			 p.chunk.chunk % (64 * K) == 0);
		bad += in.chunk && p.chunk.chunk != in.chunk;
		bad += !in.chunk && !p.chunk.warning && !tp_policy_chunk_fits(&in.topo, p.chunk.chunk);
		bad += !in.chunk && !p.chunk.warning && in.profile == TP_PROFILE_THROUGHPUT &&
		       stripe && p.chunk.chunk % stripe;
		bad += p.chunk.fits != tp_policy_chunk_fits(&in.topo, p.chunk.chunk);
		bad += !(p.data_offset.offset >= lim && (p.data_offset.offset - align) % grid == 0 &&
			 p.data_offset.offset - align < lim + grid);
		bad += !(p.data_blocks >= 1 &&
			 p.data_offset.offset + p.data_blocks * p.chunk.chunk <= in.data_dev_size);
		bad += !(p.meta.size >= TP_META_MIN && p.meta.size <= TP_META_MAX &&
			 p.meta.size % 4096 == 0 && p.meta.active_offset >= in.meta_header &&
			 p.meta.spare_offset >= p.meta.active_offset + p.meta.size);
		bad += in.meta_dev_size && p.meta.end > in.meta_dev_size;
		bad += in.zero == TP_CHOICE_AUTO &&
		       p.zero.zero != (in.profile == TP_PROFILE_SNAPSHOTS);
		bad += in.zero == TP_CHOICE_YES && !p.zero.zero;
		bad += in.zero == TP_CHOICE_NO && p.zero.zero;
		bad += p.discards.passdown != in.topo.discard;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(planned > 5000);	/* both outcomes really happened */
	CU_ASSERT(refused > 1000);
}

/* The evidence of issue 14 (README, bench/): 7-disk RAID6, 512K md chunk =
 * 2.5 MiB stripe. */
static void test_design_evidence(void)
{
	struct tp_topology t;
	struct tp_chunk_decision d;
	struct tp_chunk_request thr = { .data_size = 1 * T, .profile = TP_PROFILE_THROUGHPUT };
	struct tp_chunk_request bal = { .data_size = 1 * T };
	struct tp_chunk_request lvm = { .requested = 512 * K, .data_size = 1 * T };
	struct tp_offset_decision o;

	md_topology(RAID6, 7, 512 * K, 0, &t);
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, NULL, 0), 5 * 512 * K);
	/* throughput: one full stripe, 2.5 MiB (the policy before profiles) */
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &thr, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 5 * 512 * K);
	CU_ASSERT(d.whole_stripe && !d.warning && d.fits);
	/* balanced (the default) and snapshots: 64 KiB, which divides the md chunk */
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &bal, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 64 * K);
	CU_ASSERT(!d.whole_stripe && !d.warning && d.fits);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "divides the 512 KiB md chunk"));
	bal.profile = TP_PROFILE_SNAPSHOTS;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &bal, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 64 * K);
	/* LVM's default 512K chunk is the md chunk: it keeps the boundaries */
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &lvm, &d), 0);
	CU_ASSERT(!d.warning && !d.whole_stripe && d.fits);
	/* 1 MiB straddles stripes (2.5 MiB is no multiple of it): warned */
	lvm.requested = 1 * M;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &lvm, &d), 0);
	CU_ASSERT(d.warning && !d.fits);
	CU_ASSERT_EQUAL(d.better, 64 * K);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "2.50 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "WARNING"));
	/* LVM starts data 1.5 MiB off a stripe boundary; ours is on one */
	tp_policy_data_offset(&t, 1 * M, &o);
	CU_ASSERT_EQUAL(o.offset % (5 * 512 * K), 0);
	CU_ASSERT(o.offset >= 1 * M);
	/* 16 TiB: 64 KiB chunks would need 16 GiB of metadata, past the
	 * kernel's limit: balanced grows to 128 KiB, still dividing the md
	 * chunk; throughput stays one stripe (LVM picks 16 MiB, not a
	 * multiple of 2.5 MiB) */
	bal.profile = TP_PROFILE_BALANCED;
	bal.data_size = 16 * T;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &bal, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 128 * K);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "metadata"));
	thr.data_size = 16 * T;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &thr, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 5 * 512 * K);
}

/* Wide stripes and huge arrays: 14-disk RAID6 at 512K (6 MiB stripe) from
 * 1 TiB to 1 PiB. Balanced steps through the md chunk's divisors, then
 * whole stripes; every step keeps the boundaries. */
static void test_wide_stripes(void)
{
	static const struct {
		uint64_t size, chunk;
	} steps[] = { { 1 * T, 64 * K },   { 16 * T, 128 * K },	  { 32 * T, 256 * K },
		      { 64 * T, 512 * K }, { 128 * T, 1 * M },	  { 256 * T, 1536 * K },
		      { 512 * T, 3 * M },  { 1 * P, 6 * M } };
	struct tp_topology t;
	struct tp_chunk_decision d;

	md_topology(RAID6, 14, 512 * K, 0, &t);
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, NULL, 0), 6 * M);
	for (size_t i = 0; i < TP_ARRAY_SIZE(steps); i++) {
		struct tp_chunk_request req = { .data_size = steps[i].size };
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT_EQUAL(d.chunk, steps[i].chunk);
		CU_ASSERT(d.fits && !d.warning);
		CU_ASSERT(tp_policy_meta_estimate(steps[i].size, d.chunk) <= TP_META_MAX);
		CU_ASSERT_EQUAL(d.chunk, brute_chunk(&t, TP_PROFILE_BALANCED, steps[i].size,
						     TP_META_MAX));
		req.profile = TP_PROFILE_THROUGHPUT;
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT_EQUAL(d.chunk % (6 * M), 0);
		CU_ASSERT(d.chunk >= steps[i].chunk);
	}
}

/* Stripes that are not 64 KiB multiples: the chunk is lcm-based. */
static void test_odd_stripes(void)
{
	static const struct {
		unsigned data_disks;
		uint64_t md_chunk;
	} cases[] = { { 3, 64 * K }, { 5, 64 * K }, { 7, 4 * K }, { 13, 8 * K }, { 11, 32 * K },
		      { 3, 1 * M }, { 15, 128 * K } };

	for (size_t i = 0; i < TP_ARRAY_SIZE(cases); i++) {
		struct tp_topology t;
		struct tp_chunk_decision d;
		struct tp_chunk_request req = { .data_size = 1 * T,
						.profile = TP_PROFILE_THROUGHPUT };
		uint64_t stripe = cases[i].data_disks * cases[i].md_chunk;

		md_topology(RAID0, cases[i].data_disks, cases[i].md_chunk, 0, &t);
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT_EQUAL(d.chunk % stripe, 0);
		CU_ASSERT_EQUAL(d.chunk % (64 * K), 0);
		CU_ASSERT(d.chunk >= TP_CHUNK_FLOOR);
		/* minimal: one stripe-and-grain multiple less would be below the floor */
		CU_ASSERT(d.chunk - stripe / gcd_u64(stripe, 64 * K) * 64 * K < TP_CHUNK_FLOOR);
		CU_ASSERT_EQUAL(d.chunk, brute_chunk(&t, TP_PROFILE_THROUGHPUT, 1 * T, TP_META_MAX));
		/* balanced: the smallest chunk that keeps the boundaries */
		req.profile = TP_PROFILE_BALANCED;
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT(d.fits && !d.warning);
		CU_ASSERT_EQUAL(d.chunk, brute_chunk(&t, TP_PROFILE_BALANCED, 1 * T, TP_META_MAX));
	}
	/* 5-disk RAID6 at 32K: stripe 96K; 64K and 128K straddle it, 192K is
	 * two stripes */
	{
		struct tp_topology t;
		struct tp_chunk_decision d;
		struct tp_chunk_request req = { .data_size = 1 * T };

		md_topology(RAID6, 5, 32 * K, 0, &t);
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT_EQUAL(d.chunk, 192 * K);
		CU_ASSERT(d.whole_stripe);
		/* 12-disk RAID6 at 32K: stripe 320K; 64K = 2 md chunks divides it */
		md_topology(RAID6, 12, 32 * K, 0, &t);
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT_EQUAL(d.chunk, 64 * K);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "divides the 320 KiB full stripe"));
	}
}

static void test_no_topology(void)
{
	struct tp_topology t;
	struct tp_chunk_decision d;
	struct tp_chunk_request req = { .data_size = 100 * G };
	struct tp_offset_decision o;

	tp_topology_init(&t);
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, NULL, 0), 0);
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 64 * K);	/* balanced: nothing to keep clear of */
	CU_ASSERT(!d.warning && !d.whole_stripe);
	req.profile = TP_PROFILE_THROUGHPUT;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, TP_CHUNK_FLOOR);
	CU_ASSERT(!d.warning && !d.whole_stripe);
	tp_policy_data_offset(&t, 0, &o);
	CU_ASSERT_EQUAL(o.offset, 1 * M);
	tp_policy_data_offset(&t, 1 * M + 1, &o);
	CU_ASSERT_EQUAL(o.offset, 2 * M);

	/* only minimum_io_size: a multiple of it, at least the floor */
	t.min_io = 1 * M;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 1 * M);
	t.min_io = 192 * K;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk % (192 * K), 0);
	CU_ASSERT(d.chunk >= TP_CHUNK_FLOOR && d.chunk - 192 * K < TP_CHUNK_FLOOR);
	t.min_io = 4 * K;	/* a plain disk: the floor */
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, TP_CHUNK_FLOOR);

	/* a custom floor */
	req.floor = 64 * K;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 64 * K);

	/* balanced below and above a lone min_io: divisors, then multiples */
	req.floor = 0;
	req.profile = TP_PROFILE_BALANCED;
	t.min_io = 1 * M;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 64 * K);
	t.min_io = 192 * K;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 64 * K);	/* divides 192K */
	t.min_io = 96 * K;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT_EQUAL(d.chunk, 192 * K);	/* 64K, 128K straddle 96K chunks */
}

/* optimal_io_size values that are not a RAID geometry are ignored. */
static void test_implausible_stripe(void)
{
	struct tp_topology t;
	char why[200];

	tp_topology_init(&t);
	t.min_io = 4096;
	t.opt_io = 33553920;	/* what some USB bridges report: not a multiple of 4K */
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "ignored"));
	t.opt_io = 2 * G;	/* bigger than any chunk */
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, why, sizeof(why)), 0);
	t.opt_io = 1000;	/* not whole sectors */
	t.min_io = 0;
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, why, sizeof(why)), 0);
	t.opt_io = 3 * 64 * K;
	t.min_io = 64 * K;
	CU_ASSERT_EQUAL(tp_policy_stripe(&t, why, sizeof(why)), 3 * 64 * K);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "3 x 64 KiB"));
}

static void test_alignment_offset(void)
{
	struct tp_topology t;
	struct tp_offset_decision o;

	md_topology(RAID5, 4, 64 * K, 7 * 512, &t);	/* stripe 192K, misaligned by 3.5K */
	tp_policy_data_offset(&t, 1 * M, &o);
	CU_ASSERT_EQUAL((o.offset - 7 * 512) % (192 * K), 0);
	CU_ASSERT(o.offset >= 1 * M && o.offset - 192 * K < 1 * M);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.reason, "alignment_offset"));
	/* an offset as large as the stripe is not an offset: ignored, said */
	t.align_offset = 192 * K;
	tp_policy_data_offset(&t, 1 * M, &o);
	CU_ASSERT_EQUAL(o.offset % (192 * K), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.reason, "ignored"));
	/* a large header pushes the data area further, still on the grid */
	t.align_offset = 0;
	tp_policy_data_offset(&t, 5 * M + 3, &o);
	CU_ASSERT(o.offset >= 5 * M + 3 && o.offset % (192 * K) == 0 &&
		  o.offset - 192 * K < 5 * M + 3);
}

static void test_explicit_chunk(void)
{
	static const struct {
		uint64_t c;
		const char *says;
	} bad[] = { { 32 * K, "smallest valid value is 64 KiB" },
		    { 100 * K, "64 KiB and 128 KiB" },
		    { 1 * M + 512, "1 MiB and 1.06 MiB" },
		    { 2 * G, "largest valid value is 1 GiB" },
		    { 1 * G + 64 * K, "largest valid value is 1 GiB" },
		    { 4 * K, "smallest valid value is 64 KiB" } };
	struct tp_topology t;
	struct tp_chunk_decision d;

	md_topology(RAID6, 8, 64 * K, 0, &t);	/* stripe 384K */
	for (size_t i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		struct tp_chunk_request req = { .requested = bad[i].c };
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, bad[i].says));
	}
	/* valid and a whole number of stripes: no warning */
	struct tp_chunk_request ok = { .requested = 3 * 384 * K, .data_size = 1 * T };
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
	CU_ASSERT(!d.warning && d.whole_stripe && d.chunk == 3 * 384 * K);
	/* valid, straddling stripes: accepted with the better value */
	ok.requested = 1 * M;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
	CU_ASSERT(d.warning && !d.whole_stripe && !d.fits && d.chunk == 1 * M);
	CU_ASSERT_EQUAL(d.better, 64 * K);	/* balanced: one md chunk */
	ok.profile = TP_PROFILE_THROUGHPUT;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
	CU_ASSERT_EQUAL(d.better % (384 * K), 0);
	CU_ASSERT_EQUAL(d.better % (64 * K), 0);
	ok.profile = TP_PROFILE_BALANCED;
	/* 128K: two md chunks that divide the 384K stripe: no warning */
	ok.requested = 128 * K;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
	CU_ASSERT(!d.warning && d.fits);
	/* 256K: four md chunks that do not divide 384K: warned */
	ok.requested = 256 * K;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
	CU_ASSERT(d.warning && !d.fits);
	/* the limits themselves are valid */
	ok.requested = TP_CHUNK_MIN;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
	ok.requested = TP_CHUNK_MAX;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &ok, &d), 0);
}

/* 1 PiB: the metadata budget, not the floor, sets the chunk. */
static void test_metadata_budget(void)
{
	struct tp_topology t;
	struct tp_chunk_decision d;
	struct tp_chunk_request req = { .data_size = 1 * P };

	md_topology(RAID6, 10, 64 * K, 0, &t);	/* stripe 512K */
	for (int pr = TP_PROFILE_BALANCED; pr <= TP_PROFILE_SNAPSHOTS; pr++) {
		req.profile = (enum tp_profile)pr;
		CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
		CU_ASSERT(d.chunk > TP_CHUNK_FLOOR);
		CU_ASSERT_EQUAL(d.chunk % (512 * K), 0);
		CU_ASSERT(tp_policy_meta_estimate(1 * P, d.chunk) <= TP_META_MAX);
		CU_ASSERT(tp_policy_meta_estimate(1 * P, d.chunk - 512 * K) > TP_META_MAX);
	}
	req.profile = TP_PROFILE_BALANCED;
	/* a smaller budget (a small metadata device) needs a bigger chunk */
	req.meta_budget = 1 * G;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT(tp_policy_meta_estimate(1 * P, d.chunk) <= 1 * G);
	/* explicit 64K on 1 PiB: accepted, warned about the metadata */
	req.requested = 64 * K;
	req.meta_budget = 0;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT(d.warning);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "metadata"));
	/* a budget no chunk can meet: the largest chunk, with a warning */
	req.requested = 0;
	req.data_size = 1 * P;
	req.meta_budget = 2 * M;
	CU_ASSERT_EQUAL(tp_policy_chunk(&t, &req, &d), 0);
	CU_ASSERT(d.warning);
	CU_ASSERT(d.chunk <= TP_CHUNK_MAX && d.chunk % (64 * K) == 0);
}

static void test_zeroing(void)
{
	struct tp_zero_decision z;

	/* auto: on for the snapshots profile only, whatever the chunk */
	tp_policy_zero(TP_CHOICE_AUTO, TP_PROFILE_SNAPSHOTS, 64 * K, &z);
	CU_ASSERT_EQUAL(z.zero, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(z.reason, "first write"));
	tp_policy_zero(TP_CHOICE_AUTO, TP_PROFILE_BALANCED, 64 * K, &z);
	CU_ASSERT_EQUAL(z.zero, 0);
	/* the stale-data exposure is stated, with the ways out */
	CU_ASSERT_PTR_NOT_NULL(strstr(z.reason, "deleted volumes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(z.reason, "tvremove --wipe"));
	tp_policy_zero(TP_CHOICE_AUTO, TP_PROFILE_THROUGHPUT, 4 * M, &z);
	CU_ASSERT_EQUAL(z.zero, 0);
	tp_policy_zero(TP_CHOICE_YES, TP_PROFILE_BALANCED, 4 * M, &z);
	CU_ASSERT_EQUAL(z.zero, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(z.reason, "--zero y"));
	tp_policy_zero(TP_CHOICE_NO, TP_PROFILE_SNAPSHOTS, 64 * K, &z);
	CU_ASSERT_EQUAL(z.zero, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(z.reason, "Stale data"));
}

static void test_profile_names(void)
{
	enum tp_profile pr;

	for (int i = TP_PROFILE_BALANCED; i <= TP_PROFILE_SNAPSHOTS; i++) {
		CU_ASSERT_EQUAL(tp_profile_parse(tp_profile_name((enum tp_profile)i), &pr), 0);
		CU_ASSERT_EQUAL((int)pr, i);
	}
	CU_ASSERT_EQUAL(tp_profile_parse("SNAPSHOTS", &pr), 0);
	CU_ASSERT_EQUAL(pr, TP_PROFILE_SNAPSHOTS);
	CU_ASSERT_EQUAL(tp_profile_parse("fast", &pr), -EINVAL);
	CU_ASSERT_EQUAL(tp_profile_parse("", &pr), -EINVAL);
	CU_ASSERT_EQUAL(tp_profile_parse(NULL, &pr), -EINVAL);
}

static void test_choice_parse(void)
{
	enum tp_choice c = TP_CHOICE_AUTO;

	CU_ASSERT(tp_choice_parse("y", &c) == 0 && c == TP_CHOICE_YES);
	CU_ASSERT(tp_choice_parse("No", &c) == 0 && c == TP_CHOICE_NO);
	CU_ASSERT(tp_choice_parse("AUTO", &c) == 0 && c == TP_CHOICE_AUTO);
	CU_ASSERT(tp_choice_parse("yes", &c) == 0 && c == TP_CHOICE_YES);
	CU_ASSERT_EQUAL(tp_choice_parse("maybe", &c), -EINVAL);
	CU_ASSERT_EQUAL(tp_choice_parse("", &c), -EINVAL);
	CU_ASSERT_EQUAL(tp_choice_parse(NULL, &c), -EINVAL);
}

static void test_parse_auto_size(void)
{
	char why[200];
	uint64_t v = 99;

	CU_ASSERT(tp_policy_parse_auto_size("--chunk", "auto", 'k', &v, why, sizeof(why)) == 0 &&
		  v == 0);
	CU_ASSERT(tp_policy_parse_auto_size("--chunk", "AUTO", 'k', &v, why, sizeof(why)) == 0 &&
		  v == 0);
	CU_ASSERT(tp_policy_parse_auto_size("--chunk", "2560", 'k', &v, why, sizeof(why)) == 0 &&
		  v == 2560 * K);
	CU_ASSERT(tp_policy_parse_auto_size("--chunk", "2.5m", 'k', &v, why, sizeof(why)) == 0 &&
		  v == 2560 * K);
	CU_ASSERT(tp_policy_parse_auto_size("--metadata-size", "16", 'm', &v, why,
					    sizeof(why)) == 0 && v == 16 * M);
	v = 99;
	CU_ASSERT_EQUAL(tp_policy_parse_auto_size("--chunk", "0", 'k', &v, why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_EQUAL(v, 99);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "--chunk"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "auto"));
	CU_ASSERT_EQUAL(tp_policy_parse_auto_size("--chunk", "big", 'k', &v, why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "'big'"));
	CU_ASSERT_EQUAL(tp_policy_parse_auto_size("--chunk", "99999999P", 'k', &v, NULL, 0),
			-ERANGE);
	CU_ASSERT_EQUAL(tp_policy_parse_auto_size("--chunk", NULL, 'k', &v, why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_EQUAL(v, 99);
}

static void test_discards(void)
{
	struct tp_discard_decision d;

	tp_policy_discards(1, &d);
	CU_ASSERT(d.passdown && strstr(d.reason, "passdown"));
	tp_policy_discards(0, &d);
	CU_ASSERT(!d.passdown && strstr(d.reason, "nopassdown"));
}

static void test_meta_estimate(void)
{
	uint64_t e = tp_policy_meta_estimate(1 * T, 64 * K);

	CU_ASSERT(e >= (1 * T / (64 * K)) * TP_META_BYTES_PER_CHUNK);
	CU_ASSERT_EQUAL(e % 4096, 0);
	CU_ASSERT_EQUAL(tp_policy_meta_estimate(0, 64 * K), TP_META_MIN);
	CU_ASSERT_EQUAL(tp_policy_meta_estimate(1 * G, 1 * G), TP_META_MIN);
	/* monotone in chunk size, no overflow at the extremes */
	CU_ASSERT(tp_policy_meta_estimate(1 * P, 64 * K) > tp_policy_meta_estimate(1 * P, 1 * M));
	CU_ASSERT(tp_policy_meta_estimate(UINT64_MAX, 64 * K) > TP_META_MAX);
	CU_ASSERT_EQUAL(tp_policy_meta_estimate(UINT64_MAX, 1), UINT64_MAX);
	CU_ASSERT_EQUAL(tp_policy_meta_estimate(1 * G, 0), UINT64_MAX);
}

static void test_meta_layout(void)
{
	struct tp_meta_request req = { .data_size = 1 * T, .chunk = 1 * M, .header = 1 * M };
	struct tp_meta_decision d;
	uint64_t need;

	/* no device size: the estimate */
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), 0);
	CU_ASSERT_EQUAL(d.size, d.estimate);
	CU_ASSERT_EQUAL(d.active_offset, 1 * M);
	CU_ASSERT(d.spare_offset >= d.active_offset + d.size);
	/* a device: all the room it offers, both areas inside it */
	req.meta_dev_size = 1 * G;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), 0);
	CU_ASSERT(d.size >= d.estimate && d.end <= 1 * G);
	CU_ASSERT_EQUAL(d.size, tp_policy_meta_room(1 * G, 1 * M));
	/* a huge device: capped at the format's limit */
	req.meta_dev_size = 100 * G;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), 0);
	CU_ASSERT_EQUAL(d.size, TP_META_MAX);
	CU_ASSERT(d.end <= 100 * G);
	/* too small: refused with the minimum, and the minimum works */
	req.data_size = 16 * T;
	req.meta_dev_size = 64 * M;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), -ENOSPC);
	CU_ASSERT(d.min_dev_size > 64 * M);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "at least"));
	need = d.min_dev_size;
	req.meta_dev_size = need;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), 0);
	CU_ASSERT(d.end <= need && d.size >= d.estimate);
	req.meta_dev_size = need - 4096;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), -ENOSPC);
	/* explicit sizes: bounds, rounding, warnings */
	req.meta_dev_size = 0;
	req.requested = 1 * M;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "2 MiB"));
	req.requested = TP_META_MAX + 4096;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), -EINVAL);
	req.requested = 3 * M + 1;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), 0);
	CU_ASSERT_EQUAL(d.size, 3 * M + 4096);
	CU_ASSERT(d.warning);	/* 16 TiB in 1M chunks needs far more */
	req.requested = TP_META_MAX;
	req.meta_dev_size = 8 * M;
	CU_ASSERT_EQUAL(tp_policy_meta(&req, &d), -ENOSPC);
	/* room of small devices */
	CU_ASSERT_EQUAL(tp_policy_meta_room(1 * M, 1 * M), 0);
	CU_ASSERT_EQUAL(tp_policy_meta_room(5 * M, 1 * M), 2 * M);
}

static void test_plan_errors(void)
{
	struct tp_policy_input in = { 0 };
	struct tp_policy_plan p;

	tp_topology_init(&in.topo);
	in.data_header = in.meta_header = 1 * M;
	in.data_dev_size = 1 * M;	/* nothing after the offset */
	in.meta_dev_size = 16 * M;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.error, "Data device too small"));
	in.data_dev_size = 1 * M + 32 * K;	/* less than one chunk */
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.error, "no whole"));
	/* usage errors win over size errors */
	in.chunk = 100 * K;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.error, "--chunk"));
	in.chunk = 0;
	in.metadata_size = 1 * K;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.error, "--metadata-size"));
	/* meta device too small */
	in.metadata_size = 0;
	in.data_dev_size = 64 * M;
	in.meta_dev_size = 2 * M;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.error, "Metadata device too small"));
	/* a small image-file pool works */
	in.meta_dev_size = 8 * M;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), 0);
	CU_ASSERT(p.data_blocks > 0 && p.meta.end <= 8 * M);
	/* the override topology, as the README demo uses it */
	CU_ASSERT_EQUAL(tp_topology_parse("min_io=512k,opt_io=2560k,align=0,discard=1", &in.topo,
					  NULL, 0), 0);
	in.data_dev_size = 1 * G;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), 0);
	CU_ASSERT_EQUAL(p.chunk.chunk, 64 * K);
	CU_ASSERT_EQUAL(p.data_offset.offset, 2560 * K);
	CU_ASSERT_EQUAL(p.zero.zero, 0);
	in.profile = TP_PROFILE_THROUGHPUT;
	CU_ASSERT_EQUAL(tp_policy_plan(&in, &p), 0);
	CU_ASSERT_EQUAL(p.chunk.chunk, 2560 * K);
	CU_ASSERT_EQUAL(p.data_offset.offset, 2560 * K);
	CU_ASSERT_EQUAL(p.zero.zero, 0);
	CU_ASSERT_EQUAL(p.discards.passdown, 1);
}

TP_TEST_SUITE(policy, NULL, NULL,
	      { "md geometry table: whole stripes, offsets, zeroing, metadata", test_md_table },
	      { "random inputs: refused with a reason, or every invariant", test_random_inputs },
	      { "DESIGN evidence: 7-disk RAID6 512K", test_design_evidence },
	      { "wide stripes: 14-disk RAID6 512K, 1 TiB to 1 PiB", test_wide_stripes },
	      { "profile names", test_profile_names },
	      { "stripes that are not 64K multiples", test_odd_stripes },
	      { "no topology / only min_io", test_no_topology },
	      { "implausible optimal_io_size ignored", test_implausible_stripe },
	      { "alignment_offset", test_alignment_offset },
	      { "explicit --chunk: validation and warning", test_explicit_chunk },
	      { "metadata budget on huge arrays", test_metadata_budget },
	      { "zeroing rule", test_zeroing },
	      { "auto|y|n parsing", test_choice_parse },
	      { "auto|SIZE parsing", test_parse_auto_size },
	      { "discards", test_discards },
	      { "metadata estimate", test_meta_estimate },
	      { "metadata size and layout", test_meta_layout },
	      { "plan errors and small pools", test_plan_errors })
