/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c - see policy.h. Pure: no I/O, no logging, no allocation. */
#include "lib/pool/policy.h"

#include "lib/base/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define GRAIN (64 * TP_KiB)	/* every chunk is a multiple of this */

/* ---- arithmetic (saturating where it could overflow) -------------------- */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* lcm, or UINT64_MAX when it does not fit */
static uint64_t lcm64(uint64_t a, uint64_t b)
{
	uint64_t q;

	if (!a || !b)
		return a ? a : b;
	q = a / gcd64(a, b);
	if (q > UINT64_MAX / b)
		return UINT64_MAX;
	return q * b;
}

/* smallest multiple of UNIT >= V, or UINT64_MAX when it does not fit */
static uint64_t round_up(uint64_t v, uint64_t unit)
{
	uint64_t r = v % unit;

	if (!r)
		return v;
	if (v > UINT64_MAX - (unit - r))
		return UINT64_MAX;
	return v + (unit - r);
}

static uint64_t div_up(uint64_t n, uint64_t d)
{
	return n / d + (n % d != 0);
}

/* ---- text --------------------------------------------------------------- */

/* Append to a reason buffer (always NUL-terminated, silently truncated). */
static void say(char *buf, const char *fmt, ...) TP_PRINTF(2, 3);
static void say(char *buf, const char *fmt, ...)
{
	size_t used = strnlen(buf, TP_REASON_LEN);
	va_list ap;

	if (used + 1 >= TP_REASON_LEN)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, TP_REASON_LEN - used, fmt, ap);
	va_end(ap);
}

/* Sizes for people, each in a buffer of its own with the lifetime of the
 * enclosing block (a compound literal), so H(x) may appear several times
 * in one call and the policy keeps no state between calls. */
#define SIZE_BUF (char[48]){ 0 }
/* Human size. */
#define H(bytes) tp_size_format((bytes), 'h', SIZE_BUF, 48)
/* A device's size, exact ("1 GiB", "1.00 GiB (1025 MiB)"). */
#define H_exact(bytes) tp_size_format_exact((bytes), SIZE_BUF, 48)
/* A lower bound, rounded up, one figure ("1025 MiB", never "1.00 GiB"
 * for what a 1 GiB device lacks). */
#define H_min(bytes) tp_size_format_min((bytes), SIZE_BUF, 48)

int tp_choice_parse(const char *s, enum tp_choice *out)
{
	if (!s)
		return -EINVAL;
	if (!strcasecmp(s, "auto"))
		*out = TP_CHOICE_AUTO;
	else if (!strcasecmp(s, "y") || !strcasecmp(s, "yes"))
		*out = TP_CHOICE_YES;
	else if (!strcasecmp(s, "n") || !strcasecmp(s, "no"))
		*out = TP_CHOICE_NO;
	else
		return -EINVAL;
	return 0;
}

int tp_policy_parse_auto_size(const char *option, const char *arg, char default_unit,
			      uint64_t *bytes, char *errbuf, size_t errlen)
{
	char why[160] = "";
	uint64_t v;
	int r;

	if (arg && !strcasecmp(arg, "auto")) {
		*bytes = 0;
		return 0;
	}
	r = tp_size_parse(arg, default_unit, &v, why, sizeof(why));
	if (!r && !v) {
		snprintf(why, sizeof(why), "a size of 0 is not valid (use auto to let tpcreate "
					   "choose)");
		r = -EINVAL;
	}
	if (r) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "invalid value '%s' for %s: %s", arg ? arg : "",
				 option, why);
		return r;
	}
	*bytes = v;
	return 0;
}

/* ---- stripe ------------------------------------------------------------- */

uint64_t tp_policy_stripe(const struct tp_topology *t, char *why, size_t whylen)
{
	uint64_t opt = t->opt_io, min = t->min_io;
	const char *ignore = NULL;

	if (!opt) {
		if (why)
			snprintf(why, whylen, "No full stripe reported (optimal_io_size 0, source %s)",
				 tp_topology_source_name(t->source));
		return 0;
	}
	if (opt % TP_SECTOR_SIZE)
		ignore = "is not a whole number of sectors";
	else if (min && opt % min)
		ignore = "is not a multiple of minimum_io_size, so it is not a RAID stripe";
	else if (opt > TP_CHUNK_MAX)
		ignore = "is larger than the largest chunk (1 GiB)";
	if (ignore) {
		if (why)
			snprintf(why, whylen, "Reported optimal_io_size %s ignored: it %s", H(opt), ignore);
		return 0;
	}
	if (why) {
		if (min && opt / min > 1)
			snprintf(why, whylen, "Full stripe %s (optimal_io_size = %llu x %s md chunk)",
				 H(opt), (unsigned long long)(opt / min), H(min));
		else
			snprintf(why, whylen, "Full stripe %s (optimal_io_size)", H(opt));
	}
	return opt;
}

/* ---- metadata estimate and room ------------------------------------------ */

int tp_policy_shrink(uint64_t old, uint64_t last_first, uint64_t chunk, uint64_t want,
		     uint64_t *new_chunks)
{
	uint64_t n;

	*new_chunks = 0;
	if (!chunk)
		return -EINVAL;
	n = want / chunk + (want % chunk != 0);	/* no overflow: a quotient plus 1 */
	*new_chunks = n;
	if (n == old)
		return -EEXIST;
	if (n > old)
		return -EFBIG;
	if (n <= last_first)
		return -ERANGE;
	return 0;
}

uint64_t tp_policy_meta_estimate(uint64_t data_size, uint64_t chunk)
{
	uint64_t n, bytes;

	if (!chunk)
		return UINT64_MAX;
	n = div_up(data_size, chunk);
	if (n > (UINT64_MAX - TP_META_FIXED - TP_META_BLOCK) / TP_META_BYTES_PER_CHUNK)
		return UINT64_MAX;
	bytes = round_up(n * TP_META_BYTES_PER_CHUNK + TP_META_FIXED, TP_META_BLOCK);
	return TP_MAX(bytes, TP_META_MIN);
}

/* The layout of two areas of SIZE after HEADER: returns the end. */
static uint64_t layout_end(uint64_t header, uint64_t size, uint64_t *active, uint64_t *spare)
{
	uint64_t a = round_up(header, TP_META_ALIGN);
	uint64_t s = a + round_up(size, TP_META_ALIGN);

	if (active)
		*active = a;
	if (spare)
		*spare = s;
	return s + size;
}

uint64_t tp_policy_meta_room(uint64_t dev_size, uint64_t header)
{
	uint64_t a = round_up(header, TP_META_ALIGN), avail, whole, part = 0;

	if (a == UINT64_MAX || dev_size <= a)
		return 0;
	if (layout_end(header, TP_META_MAX, NULL, NULL) <= dev_size)
		return TP_META_MAX;
	avail = dev_size - a;
	/* the area is q whole alignment units, or q units plus a part r (then
	 * the spare area starts q + 1 units after the active one) */
	whole = avail / (2 * TP_META_ALIGN) * TP_META_ALIGN;
	if (avail > TP_META_ALIGN) {
		uint64_t q = (avail - TP_META_ALIGN) / (2 * TP_META_ALIGN);
		uint64_t rest = avail - (2 * q + 1) * TP_META_ALIGN;
		uint64_t r = TP_MIN(rest, TP_META_ALIGN - TP_META_BLOCK) / TP_META_BLOCK *
			     TP_META_BLOCK;
		if (r)
			part = q * TP_META_ALIGN + r;
	}
	return TP_MAX(whole, part);
}

/* ---- profiles --------------------------------------------------------------- */

static const char *const profile_names[] = { "balanced", "throughput", "snapshots" };

const char *tp_profile_name(enum tp_profile p)
{
	return (unsigned)p < TP_ARRAY_SIZE(profile_names) ? profile_names[p] : "unknown";
}

int tp_profile_parse(const char *s, enum tp_profile *out)
{
	for (unsigned i = 0; s && i < TP_ARRAY_SIZE(profile_names); i++)
		if (!strcasecmp(s, profile_names[i])) {
			*out = (enum tp_profile)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- chunk ---------------------------------------------------------------- */

/* The md chunk the invariant respects: min_io when it is a whole number
 * of sectors up to 1 GiB (a usable stripe is a multiple of it), else 0. */
static uint64_t md_chunk(const struct tp_topology *t)
{
	uint64_t m = t->min_io;

	return m && m % TP_SECTOR_SIZE == 0 && m <= TP_CHUNK_MAX ? m : 0;
}

/* The invariant for chunk C, md chunk M and stripe S (0 = none): C divides
 * M, or C is a multiple of M that divides or is a multiple of S. */
static int keeps_boundaries(uint64_t c, uint64_t m, uint64_t s)
{
	if (m && m % c == 0)
		return 1;
	if (m && c % m)
		return 0;
	return !s || s % c == 0 || c % s == 0;
}

int tp_policy_chunk_fits(const struct tp_topology *t, uint64_t chunk)
{
	return chunk && keeps_boundaries(chunk, md_chunk(t), tp_policy_stripe(t, NULL, 0));
}

/* The smallest chunk whose metadata estimate for DATA fits BUDGET
 * (0 when DATA is unknown; UINT64_MAX when no chunk can do it). */
static uint64_t budget_chunk(uint64_t data, uint64_t budget)
{
	uint64_t maxn, c;

	if (!data)
		return 0;
	budget = budget / TP_META_BLOCK * TP_META_BLOCK;
	if (budget < TP_META_MIN || budget < TP_META_FIXED + TP_META_BYTES_PER_CHUNK)
		return UINT64_MAX;
	maxn = (budget - TP_META_FIXED) / TP_META_BYTES_PER_CHUNK;
	c = div_up(data, maxn);
	/* the budget is whole 4 KiB blocks, so rounding the estimate up to a
	 * block cannot push it over */
	return c;
}

struct chunk_plan {
	enum tp_profile profile;
	uint64_t stripe, md, unit, floor, need_budget, chunk;
	int fits;		/* chunk keeps the invariant within the limits */
};

/* The smallest chunk >= WANT (a multiple of GRAIN) that keeps the
 * invariant; whole stripes only with WHOLE. Above the stripe (or the md
 * chunk without one) every valid chunk is a multiple of UNIT; below it
 * the candidates are few, so they are tried one by one. May exceed
 * TP_CHUNK_MAX (UINT64_MAX when it does not fit 64 bits). */
static uint64_t smallest_fit(const struct chunk_plan *p, uint64_t want, int whole)
{
	uint64_t lim = p->stripe ? p->stripe : p->md;

	if (!whole)
		for (uint64_t c = want; c < lim && c <= TP_CHUNK_MAX; c += GRAIN)
			if (keeps_boundaries(c, p->md, p->stripe))
				return c;
	return round_up(whole ? want : TP_MAX(want, lim), p->unit);
}

static void auto_chunk(const struct tp_topology *t, const struct tp_chunk_request *req,
		       struct chunk_plan *p)
{
	uint64_t budget = req->meta_budget ? req->meta_budget : TP_META_MAX;
	uint64_t want, base;
	int whole;

	memset(p, 0, sizeof(*p));
	p->profile = req->profile;
	whole = p->profile == TP_PROFILE_THROUGHPUT;
	p->stripe = tp_policy_stripe(t, NULL, 0);
	p->md = md_chunk(t);
	p->unit = lcm64(p->stripe ? p->stripe : p->md ? p->md : GRAIN, GRAIN);
	p->floor = req->floor ? req->floor : whole ? TP_CHUNK_FLOOR : TP_CHUNK_MIN;
	p->floor = TP_MIN(round_up(p->floor, GRAIN), TP_CHUNK_MAX);
	p->need_budget = budget_chunk(req->data_size, TP_MIN(budget, TP_META_MAX));
	want = round_up(TP_MAX(p->floor, p->need_budget), GRAIN);
	p->chunk = want > TP_CHUNK_MAX ? UINT64_MAX : smallest_fit(p, want, whole);
	if (p->chunk <= TP_CHUNK_MAX) {
		p->fits = 1;
		return;
	}
	/* Nothing within the limits keeps the invariant: fall back to the md
	 * chunk rounded to the 64 KiB grain, as close to WANT as the limits
	 * allow. */
	base = t->min_io ? round_up(t->min_io, GRAIN) : GRAIN;
	if (base > TP_CHUNK_MAX)
		base = GRAIN;
	p->chunk = want > TP_CHUNK_MAX ? TP_CHUNK_MAX / base * base : round_up(want, base);
	if (p->chunk > TP_CHUNK_MAX)
		p->chunk = TP_CHUNK_MAX / base * base;
}

/* The budget clause of an auto chunk's reason, when the budget raised it. */
static void say_budget(const struct chunk_plan *p, const struct tp_chunk_request *req,
		       struct tp_chunk_decision *out)
{
	if (p->need_budget > p->floor)
		say(out->reason, ", grown so the metadata of %s of data stays within %s (64 bytes "
				 "a chunk; the kernel's limit is %s)",
		    H(req->data_size), H(req->meta_budget ? req->meta_budget : TP_META_MAX),
		    H(TP_META_MAX));
}

/* How chunk C keeps the invariant, for the reason text. */
static void say_boundaries(const struct chunk_plan *p, uint64_t c, struct tp_chunk_decision *out)
{
	if (p->stripe && c % p->stripe == 0)
		say(out->reason, "%llu full stripe%s of %s", (unsigned long long)(c / p->stripe),
		    c / p->stripe > 1 ? "s" : "", H(p->stripe));
	else if (p->md && p->md % c == 0)
		say(out->reason, "%s the %s md chunk", c == p->md ? "exactly" : "divides",
		    H(p->md));
	else if (p->stripe)
		say(out->reason, "a multiple of the %s md chunk that divides the %s full stripe",
		    H(p->md), H(p->stripe));
	else if (p->md)
		say(out->reason, "a multiple of the %s minimum_io_size; no usable stripe is "
				 "reported", H(p->md));
	else
		say(out->reason, "no stripe or md chunk is reported");
}

static void explain_auto(const struct chunk_plan *p, const struct tp_chunk_request *req,
			 struct tp_chunk_decision *out)
{
	if (!p->fits) {
		say(out->reason, "WARNING: no chunk within 64 KiB..1 GiB keeps clear of the md "
				 "chunk and stripe boundaries (unit %s)", H(p->unit));
		if (p->need_budget > p->floor && p->need_budget != UINT64_MAX)
			say(out->reason, " and is at least %s (needed to keep the metadata within "
					 "its budget)", H(p->need_budget));
		else if (p->need_budget == UINT64_MAX)
			say(out->reason, " (the metadata budget is too small for any chunk)");
		say(out->reason, "; using %s.", H(out->chunk));
		return;
	}
	say(out->reason, "Chunk %s (profile %s): ", H(out->chunk), tp_profile_name(p->profile));
	if (p->profile == TP_PROFILE_THROUGHPUT)
		say(out->reason, "the smallest whole-stripe chunk of at least %s: ", H(p->floor));
	else
		say(out->reason, "the smallest chunk of at least %s that keeps clear of md-chunk "
				 "and stripe boundaries: ", H(p->floor));
	say_boundaries(p, out->chunk, out);
	say_budget(p, req, out);
	say(out->reason, ". ");
	if (p->profile == TP_PROFILE_THROUGHPUT)
		say(out->reason, "Provisioning never makes the RAID read-modify-write a partial "
				 "stripe, but the first write to a chunk shared with a snapshot copies "
				 "all %s of it.", H(out->chunk));
	else
		say(out->reason, "The first write to a chunk shared with a snapshot copies only "
				 "%s; --profile throughput chooses whole stripes instead (about 10%% "
				 "faster fresh writes, 10-100x slower small writes after a snapshot).",
		    H(out->chunk));
}

int tp_policy_chunk_valid(const char *name, uint64_t c, char *why, size_t len)
{
	uint64_t lo = c / GRAIN * GRAIN, hi = lo + GRAIN;
	char tail[128];

	if (c >= TP_CHUNK_MIN && c <= TP_CHUNK_MAX && !(c % GRAIN))
		return 0;
	if (c < TP_CHUNK_MIN)
		snprintf(tail, sizeof(tail), "the smallest valid value is 64 KiB.");
	else if (c > TP_CHUNK_MAX)
		snprintf(tail, sizeof(tail), "the largest valid value is 1 GiB.");
	else
		snprintf(tail, sizeof(tail), "the nearest valid values are %s and %s.", H(lo),
			 H(hi));
	snprintf(why, len, "%s%s%s is not valid: a chunk must be a multiple of 64 KiB from 64 KiB "
		 "to 1 GiB; %s", name ? name : "", name ? " " : "", H(c), tail);
	return -EINVAL;
}

static int bad_chunk(uint64_t c, struct tp_chunk_decision *out)
{
	return tp_policy_chunk_valid("--chunk", c, out->reason, sizeof(out->reason));
}

static void explain_explicit(const struct chunk_plan *p, const struct tp_chunk_request *req,
			     struct tp_chunk_decision *out)
{
	uint64_t c = req->requested, budget = req->meta_budget ? req->meta_budget : TP_META_MAX;
	int misfit = !keeps_boundaries(c, p->md, p->stripe);
	int overbudget = req->data_size && tp_policy_meta_estimate(req->data_size, c) > budget;

	say(out->reason, "Chunk %s as requested", H(c));
	if (!misfit && (p->stripe || p->md)) {
		say(out->reason, " (");
		say_boundaries(p, c, out);
		say(out->reason, ").");
	} else {
		say(out->reason, ".");
	}
	if (misfit)
		say(out->reason, " WARNING: %s straddles %s boundaries: a chunk should divide the "
				 "md chunk (%s) or be a multiple of it that divides or is a multiple "
				 "of the full stripe (%s), else writes to a chunk make the RAID "
				 "read-modify-write stripes it only partly covers;",
		    H(c), p->stripe ? "stripe" : "md-chunk", p->md ? H(p->md) : "not reported",
		    p->stripe ? H(p->stripe) : "none");
	if (overbudget)
		say(out->reason, " WARNING: the metadata for %s of data in %s chunks (about %s) "
				 "exceeds %s;",
		    H(req->data_size), H(c), H(tp_policy_meta_estimate(req->data_size, c)),
		    H(budget));
	if (misfit || overbudget) {
		out->warning = 1;
		out->better = p->chunk;
		say(out->reason, " --chunk %s (what --profile %s chooses) would fit.", H(p->chunk),
		    tp_profile_name(p->profile));
	}
}

int tp_policy_chunk(const struct tp_topology *t, const struct tp_chunk_request *req,
		    struct tp_chunk_decision *out)
{
	uint64_t c = req->requested;
	struct chunk_plan p;

	memset(out, 0, sizeof(*out));
	if (c && (c < TP_CHUNK_MIN || c > TP_CHUNK_MAX || c % GRAIN))
		return bad_chunk(c, out);
	auto_chunk(t, req, &p);
	out->stripe = p.stripe;
	if (!c) {
		out->chunk = p.chunk;
		out->warning = !p.fits;
		explain_auto(&p, req, out);
	} else {
		out->chunk = c;
		explain_explicit(&p, req, out);
	}
	out->whole_stripe = out->stripe && out->chunk % out->stripe == 0;
	out->fits = tp_policy_chunk_fits(t, out->chunk);
	return 0;
}

/* ---- zeroing --------------------------------------------------------------- */

void tp_policy_zero(enum tp_choice req, enum tp_profile profile, uint64_t chunk,
		    struct tp_zero_decision *out)
{
	memset(out, 0, sizeof(*out));
	if (req == TP_CHOICE_AUTO) {
		out->zero = profile == TP_PROFILE_SNAPSHOTS;
		say(out->reason, "Zeroing %s (auto for profile %s: on for snapshots, off for "
				 "balanced and throughput). ",
		    out->zero ? "on" : "off", tp_profile_name(profile));
	} else {
		out->zero = req == TP_CHOICE_YES;
		say(out->reason, "Zeroing %s (as requested with --zero %s). ",
		    out->zero ? "on" : "off", out->zero ? "y" : "n");
	}
	if (out->zero)
		say(out->reason, "Cost: the first write to each new chunk also writes the rest "
				 "of the chunk with zeros (%s per chunk), which can halve the speed "
				 "of fresh writes and cut small random ones to a fifth; in return no "
				 "stale data is ever visible.",
		    H(chunk));
	else
		say(out->reason, "Stale data: a newly provisioned chunk is not cleared, so until "
				 "a volume has written all of it, reads of its unwritten parts return "
				 "what the device held there before - possibly data of deleted "
				 "volumes. Use --zero y where volumes go to different users, and "
				 "'tvremove --wipe' to delete a volume's data for good.");
}

/* ---- data offset ----------------------------------------------------------- */

void tp_policy_data_offset(const struct tp_topology *t, uint64_t header,
			   struct tp_offset_decision *out)
{
	uint64_t stripe = tp_policy_stripe(t, NULL, 0);
	uint64_t min = TP_MAX(TP_DATA_OFFSET_MIN, header), align = t->align_offset, k;

	memset(out, 0, sizeof(*out));
	if (stripe) {
		out->grid = stripe;
	} else {
		uint64_t base = t->min_io ? round_up(t->min_io, GRAIN) : GRAIN;
		out->grid = lcm64(TP_MiB, base);
		if (out->grid > TP_CHUNK_MAX)
			out->grid = TP_MiB;
	}
	if (align >= out->grid)
		align = 0;
	k = align >= min ? 0 : div_up(min - align, out->grid);
	out->offset = k * out->grid + align;
	say(out->reason, "Data area at %s: the first multiple of %s%s at or after %s (room for "
			 "the label and VG metadata area)",
	    H(out->offset), H(out->grid), stripe ? " (the full stripe)" : " (no stripe)", H(min));
	if (align)
		say(out->reason, ", plus alignment_offset %s", H(align));
	else if (t->align_offset)
		say(out->reason, "; alignment_offset %s ignored (not smaller than %s)",
		    H(t->align_offset), H(out->grid));
	say(out->reason, "%s", stripe ? ", so every chunk starts on a stripe boundary." : ".");
}

/* ---- metadata size and layout ------------------------------------------------ */

int tp_policy_meta_size_valid(const char *name, uint64_t v, char *why, size_t len)
{
	uint64_t r = round_up(v, TP_META_BLOCK);

	if (r >= TP_META_MIN && r <= TP_META_MAX)
		return 0;
	snprintf(why, len, "%s%s%s is not valid: it must be from %s to %s (the format's limit of "
		 "4161600 blocks of 4 KiB).", name ? name : "", name ? " " : "", H(v),
		 H(TP_META_MIN), H(TP_META_MAX));
	return -EINVAL;
}

static int check_meta_size(uint64_t v, char *reason)
{
	return tp_policy_meta_size_valid("--metadata-size", v, reason, TP_REASON_LEN);
}

int tp_policy_meta(const struct tp_meta_request *req, struct tp_meta_decision *out)
{
	uint64_t need;

	memset(out, 0, sizeof(*out));
	out->estimate = tp_policy_meta_estimate(req->data_size, req->chunk);
	need = TP_MIN(out->estimate, TP_META_MAX);
	if (req->requested) {
		if (check_meta_size(req->requested, out->reason) < 0)
			return -EINVAL;
		out->size = round_up(req->requested, TP_META_BLOCK);
		need = out->size;
		say(out->reason, "Metadata area %s as requested (estimate for %s of data in %s "
				 "chunks: %s)",
		    H(out->size), H(req->data_size), H(req->chunk), H(out->estimate));
		if (out->size < out->estimate) {
			out->warning = 1;
			say(out->reason, "; WARNING: smaller than the estimate, the pool may run out "
					 "of metadata space before data space");
		}
		say(out->reason, ". ");
	} else if (req->meta_dev_size) {
		out->size = tp_policy_meta_room(req->meta_dev_size, req->header);
		say(out->reason, "Metadata area %s: all the metadata device offers for an "
				 "active and an equal spare area%s (estimate for %s of data in %s "
				 "chunks: %s). ",
		    H(out->size), out->size == TP_META_MAX ? ", capped at the format's limit" : "",
		    H(req->data_size), H(req->chunk), H(out->estimate));
	} else {
		out->size = need;
		say(out->reason, "Metadata area %s: the estimate for %s of data in %s chunks "
				 "(64 bytes per chunk + 1 MiB, at least 2 MiB). ",
		    H(out->size), H(req->data_size), H(req->chunk));
	}
	if (out->estimate > TP_META_MAX) {
		out->warning = 1;
		say(out->reason, "WARNING: the estimate %s exceeds the format's limit of %s; use a "
				 "larger chunk or expect metadata to fill before data. ",
		    H(out->estimate), H(TP_META_MAX));
	}
	out->min_dev_size = layout_end(req->header, need, NULL, NULL);
	out->end = layout_end(req->header, out->size, &out->active_offset, &out->spare_offset);
	if (req->meta_dev_size && (out->size < need || out->end > req->meta_dev_size)) {
		out->reason[0] = '\0';
		say(out->reason, "Metadata device too small: %s cannot hold the label and VG "
				 "area (%s) plus an active and a spare thin-metadata area of %s each "
				 "(%s), each starting on a MiB boundary; it must be at least %s, "
				 "or use a larger --chunk or a smaller --metadata-size.",
		    H_exact(req->meta_dev_size), H(round_up(req->header, TP_META_ALIGN)), H(need),
		    req->requested ? "as requested" : "the estimate for this data size and chunk",
		    H_min(out->min_dev_size));
		return -ENOSPC;
	}
	say(out->reason, "Layout: label and VG area, active area at %s, spare area (for "
			 "tprepair) at %s.",
	    H(out->active_offset), H(out->spare_offset));
	return 0;
}

/* ---- discards --------------------------------------------------------------- */

void tp_policy_discards(int dev_supports_discard, struct tp_discard_decision *out)
{
	memset(out, 0, sizeof(*out));
	out->passdown = dev_supports_discard != 0;
	if (out->passdown)
		say(out->reason, "Discards: passdown (the data device supports discard, so "
				 "freed chunks are discarded on it too).");
	else
		say(out->reason, "Discards: nopassdown (the data device does not report discard "
				 "support; the pool still frees chunks on discard).");
}

/* ---- everything ---------------------------------------------------------------- */

static int fail(struct tp_policy_plan *out, const char *reason, int err)
{
	snprintf(out->error, sizeof(out->error), "%s", reason);
	return err;
}

int tp_policy_plan(const struct tp_policy_input *in, struct tp_policy_plan *out)
{
	struct tp_chunk_request creq = { .requested = in->chunk,
					 .floor = in->chunk_floor,
					 .profile = in->profile };
	struct tp_meta_request mreq;
	uint64_t data_size;
	int r;

	memset(out, 0, sizeof(*out));
	/* usage errors first, before any device-size verdict */
	if (in->metadata_size && check_meta_size(in->metadata_size, out->meta.reason) < 0)
		return fail(out, out->meta.reason, -EINVAL);
	if (in->chunk && (r = tp_policy_chunk(&in->topo, &creq, &out->chunk)) < 0)
		return fail(out, out->chunk.reason, r);

	tp_policy_data_offset(&in->topo, in->data_header, &out->data_offset);
	if (in->data_dev_size <= out->data_offset.offset) {
		snprintf(out->error, sizeof(out->error),
			 "Data device too small: %s, but the data area starts at %s.",
			 H_exact(in->data_dev_size), H(out->data_offset.offset));
		return -ENOSPC;
	}
	data_size = in->data_dev_size - out->data_offset.offset;

	creq.data_size = data_size;
	if (in->metadata_size)
		creq.meta_budget = round_up(in->metadata_size, TP_META_BLOCK);
	else if (in->meta_dev_size &&
		 tp_policy_meta_room(in->meta_dev_size, in->meta_header) >= TP_META_MIN)
		creq.meta_budget = tp_policy_meta_room(in->meta_dev_size, in->meta_header);
	r = tp_policy_chunk(&in->topo, &creq, &out->chunk);
	if (r < 0)
		return fail(out, out->chunk.reason, r);
	out->data_blocks = data_size / out->chunk.chunk;
	if (!out->data_blocks) {
		snprintf(out->error, sizeof(out->error),
			 "Data device too small: the data area of %s (after the %s offset) holds no "
			 "whole %s chunk; the device must be at least %s.",
			 H_exact(data_size), H(out->data_offset.offset), H(out->chunk.chunk),
			 H_min(out->data_offset.offset + out->chunk.chunk));
		return -ENOSPC;
	}

	tp_policy_zero(in->zero, in->profile, out->chunk.chunk, &out->zero);

	mreq = (struct tp_meta_request){ .requested = in->metadata_size,
					 .data_size = out->data_blocks * out->chunk.chunk,
					 .chunk = out->chunk.chunk,
					 .meta_dev_size = in->meta_dev_size,
					 .header = in->meta_header };
	r = tp_policy_meta(&mreq, &out->meta);
	if (r < 0)
		return fail(out, out->meta.reason, r);

	tp_policy_discards(in->topo.discard, &out->discards);
	return 0;
}

int tp_policy_add_data(const struct tp_topology *t, uint64_t dev_size, uint64_t header,
		       uint64_t chunk, uint64_t max_chunks, struct tp_add_data_decision *out)
{
	char c[32], s[32];

	memset(out, 0, sizeof(*out));
	tp_policy_data_offset(t, header, &out->offset);
	out->stripe = tp_policy_stripe(t, NULL, 0);
	out->fits = tp_policy_chunk_fits(t, chunk);
	tp_size_format(chunk, 'h', c, sizeof(c));
	tp_size_format(out->stripe, 'h', s, sizeof(s));
	if (!out->stripe)
		snprintf(out->reason, sizeof(out->reason), "the device reports no stripe: any "
			 "chunk fits");
	else if (out->fits)
		snprintf(out->reason, sizeof(out->reason), "the chunk of %s %s the device's full "
			 "stripe of %s", c, chunk < out->stripe ? "divides" : "is a whole number of",
			 s);
	else
		snprintf(out->reason, sizeof(out->reason), "the pool's chunk of %s %s the "
			 "device's full stripe of %s: chunks would start or end inside a stripe, "
			 "and a parity array reads the rest of it first (read-modify-write)", c,
			 chunk < out->stripe ? "does not divide" : "is not a multiple of", s);
	if (dev_size <= out->offset.offset || (dev_size - out->offset.offset) / chunk == 0)
		return -ENOSPC;
	out->chunks = TP_MIN((dev_size - out->offset.offset) / chunk, max_chunks);
	return 0;
}
