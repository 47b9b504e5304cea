/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.h - the geometry policy of a pool, as pure functions.
 *
 * Owns: every geometry decision tpcreate makes - chunk size, zeroing,
 * data offset, thin-metadata size and meta-device layout, discards - and
 * the human reason for each (printed by `tpcreate --explain`). No I/O, no
 * logging, no allocation: the inputs are a struct tp_topology (lib/dev,
 * or synthesised by tests) and sizes; the outputs are values plus text.
 * The caller prints warnings (`warning` set) and errors (the reason text of
 * the failing decision) itself. The stripe sentence (tp_policy_stripe's
 * WHY) is not repeated in the chunk reason: --explain prints it once.
 *
 * Return values: 0 = decided; -EINVAL = the user's explicit value is not
 * valid (a usage error, exit 3; the reason names the nearest valid
 * values); -ENOSPC = a device is too small (exit 5; the reason names the
 * minimum needed). tp_exit_from_errno() maps both correctly.
 *
 * The rules (docs/ARCHITECTURE.md "The geometry policy"); all sizes in bytes:
 *
 * Stripe: the full stripe is topology opt_io. It is ignored (with a reason)
 *   when it is not a multiple of 512, not a multiple of min_io (when min_io
 *   is reported), or larger than TP_CHUNK_MAX - the values some USB/SCSI
 *   devices report that are not a RAID geometry.
 *
 * Invariant (every profile; --chunk SIZE that breaks it is warned about):
 *   a chunk never straddles a member-chunk or stripe boundary. With M the
 *   md chunk (min_io, when a whole number of sectors) and S the usable
 *   stripe: the chunk divides M, or it is a multiple of M that divides or
 *   is a multiple of S. tp_policy_chunk_fits() is this test.
 *
 * Chunk, auto, by profile (enum tp_profile; default balanced):
 *   balanced, snapshots: the smallest chunk >= the floor (64 KiB unless
 *     the caller says otherwise) that keeps the invariant and keeps the
 *     metadata estimate of the data area within the metadata budget.
 *   throughput: the same over whole stripes only: the smallest multiple
 *     of lcm(S, 64 KiB) >= the floor (TP_CHUNK_FLOOR) and the budget
 *     (the policy before profiles). Without a usable stripe the unit is
 *     lcm(M, 64 KiB) (64 KiB when M is not reported).
 *   So the chunk grows with the pool size only where the metadata would
 *   pass its budget (the metadata device's room, capped at the kernel's
 *   limit TP_META_MAX), in steps that keep the invariant. When nothing
 *   within 64 KiB..1 GiB keeps it, the chunk falls back to a multiple of
 *   min_io rounded up to 64 KiB and `warning` is set.
 *   Criterion (README "Geometry policy"): the default is the configuration
 *   whose worst ratio to the best configuration of each measured workload
 *   (fresh and after-snapshot writes) is highest.
 * Chunk, explicit: must be a multiple of 64 KiB in 64 KiB..1 GiB, else
 *   -EINVAL naming the nearest valid values. Accepted with `warning` set
 *   and `better` = the profile's auto choice when it breaks the invariant
 *   or its metadata estimate exceeds the budget.
 *
 * Zeroing: auto = on for profile snapshots, off for balanced and
 *   throughput. The reason states both sides: with zeroing off a newly
 *   provisioned chunk may expose stale data (of deleted volumes too) until
 *   it is written; with zeroing on every first write to a chunk also
 *   writes the whole chunk.
 *
 * Data offset: the smallest (multiple of the stripe) + alignment_offset
 *   that is >= max(1 MiB, the header the caller needs before the data area:
 *   label + VG metadata area). No stripe: a multiple of
 *   lcm(1 MiB, min_io rounded to 64 KiB) + alignment_offset. An
 *   alignment_offset >= the grid is ignored (with a reason).
 *
 * Metadata size (one thin-metadata area; the spare area has the same
 *   size): estimate = 64 bytes per data chunk (a mapping costs 16 bytes in
 *   a b-tree leaf, leaves may be only 1/3 full, plus the data space map:
 *   this leaves room for snapshots to diverge) + 1 MiB fixed, rounded up to
 *   4 KiB, at least TP_META_MIN. That is about twice what
 *   thin_metadata_size(8) gives for a fully provisioned pool (about 32
 *   bytes a chunk): room for one full set of snapshot mappings more
 *   (t-probe-policy.sh checks the ratio). Auto: the whole room the metadata device
 *   offers (header | active | spare), capped at TP_META_MAX, provided it is
 *   >= the estimate; without a known device size, the estimate. Explicit:
 *   a multiple of 4 KiB (rounded up) in TP_META_MIN..TP_META_MAX, else
 *   -EINVAL; below the estimate it is accepted with `warning`. A metadata
 *   device that cannot hold header + 2 areas of the needed size is refused
 *   with -ENOSPC naming the minimum device size.
 *   Layout of the metadata device: [0, header) label + VG area |
 *   [active_offset, +size) active area | [spare_offset, +size) spare area;
 *   both offsets are multiples of 1 MiB (TP_META_ALIGN).
 *
 * Discards: passdown when the data device supports discard, else
 *   nopassdown (the pool still frees chunks on discard). */
#ifndef TP_POOL_POLICY_H
#define TP_POOL_POLICY_H

#include <stdint.h>

#include "lib/base/compiler.h"
#include "lib/base/units.h"
#include "lib/dev/topology.h"

#define TP_CHUNK_MIN (64 * TP_KiB)	/* dm-thin: 128 sectors */
#define TP_CHUNK_MAX TP_GiB		/* dm-thin: 2097152 sectors */
#define TP_CHUNK_FLOOR (512 * TP_KiB)	/* floor of profile throughput */
#define TP_DATA_OFFSET_MIN TP_MiB
#define TP_META_BLOCK 4096ull
#define TP_META_MIN (2 * TP_MiB)
#define TP_META_MAX (4161600ull * TP_META_BLOCK)	/* the format's limit, ~15.88 GiB */
#define TP_META_ALIGN TP_MiB
#define TP_META_BYTES_PER_CHUNK 64ull
#define TP_META_FIXED TP_MiB

#define TP_REASON_LEN 640

/* --zero and similar auto|y|n options */
enum tp_choice {
	TP_CHOICE_AUTO = 0,
	TP_CHOICE_YES,
	TP_CHOICE_NO,
};

/* --profile: what the auto chunk and zeroing optimise for */
enum tp_profile {
	TP_PROFILE_BALANCED = 0,	/* small chunks within the invariant, zeroing off */
	TP_PROFILE_THROUGHPUT,		/* whole stripes, zeroing off */
	TP_PROFILE_SNAPSHOTS,		/* small chunks, zeroing on */
};

/* "balanced", "throughput", "snapshots" ("unknown" out of range). */
const char *tp_profile_name(enum tp_profile p);
/* The reverse (any case): 0 or -EINVAL. */
int tp_profile_parse(const char *s, enum tp_profile *out) TP_MUST_CHECK;

/* Parse "auto", "y"/"yes", "n"/"no" (any case). 0 or -EINVAL. */
int tp_choice_parse(const char *s, enum tp_choice *out) TP_MUST_CHECK;

/* Parse the value of an auto|SIZE option (--chunk, --metadata-size):
 * "auto" (any case) gives *BYTES = 0; anything else is a size in
 * lib/base/units syntax with bare numbers in DEFAULT_UNIT ('k' for
 * --chunk and 'm' for --metadata-size, as LVM). A size of 0 is refused
 * (it would read as auto), as is garbage: -EINVAL (-ERANGE on overflow)
 * with a sentence naming OPTION in ERRBUF. The range checks are
 * tp_policy_chunk's and tp_policy_meta's. */
int tp_policy_parse_auto_size(const char *option, const char *arg, char default_unit,
			      uint64_t *bytes, char *errbuf, size_t errlen) TP_MUST_CHECK;

/* Is C a chunk size dm-thin takes (a multiple of 64 KiB, 64 KiB..1 GiB)?
 * 0, or -EINVAL with a sentence naming NAME (an option, or a setting of
 * tptools.conf; NULL: the size alone) and the nearest valid values in WHY. */
int tp_policy_chunk_valid(const char *name, uint64_t c, char *why, size_t len);
/* Is V a size one thin-metadata area can have (2 MiB..the format's limit,
 * rounded up to 4 KiB)? 0, or -EINVAL with a sentence naming NAME. */
int tp_policy_meta_size_valid(const char *name, uint64_t v, char *why, size_t len);

/* The usable full stripe of T: opt_io, or 0 when none is reported or the
 * reported value is ignored (see above). WHY (may be NULL) receives a
 * sentence about the stripe for --explain. */
uint64_t tp_policy_stripe(const struct tp_topology *t, char *why, size_t whylen);

/* --- chunk ------------------------------------------------------------- */
struct tp_chunk_request {
	uint64_t requested;	/* --chunk SIZE in bytes; 0 = auto */
	uint64_t floor;		/* 0 = the profile's (64 KiB, throughput 512 KiB) */
	enum tp_profile profile;
	uint64_t data_size;	/* bytes of the data area (for the budget); 0 = unknown */
	uint64_t meta_budget;	/* bytes one metadata area may use; 0 = TP_META_MAX */
};

struct tp_chunk_decision {
	uint64_t chunk;		/* bytes, a multiple of 64 KiB in 64 KiB..1 GiB */
	uint64_t stripe;	/* the usable full stripe, 0 if none */
	int whole_stripe;	/* stripe != 0 and chunk % stripe == 0 */
	int fits;		/* tp_policy_chunk_fits(chunk) */
	int warning;		/* reason is a warning the caller must print */
	uint64_t better;	/* with warning on an explicit chunk: the auto choice */
	char reason[TP_REASON_LEN];
};

int tp_policy_chunk(const struct tp_topology *t, const struct tp_chunk_request *req,
		    struct tp_chunk_decision *out) TP_MUST_CHECK;

/* 1 when CHUNK keeps the invariant on T (see above), else 0. */
int tp_policy_chunk_fits(const struct tp_topology *t, uint64_t chunk);

/* --- zeroing ------------------------------------------------------------ */
struct tp_zero_decision {
	int zero;		/* 1: zero newly provisioned chunks */
	char reason[TP_REASON_LEN];
};

void tp_policy_zero(enum tp_choice req, enum tp_profile profile, uint64_t chunk,
		    struct tp_zero_decision *out);

/* --- data offset -------------------------------------------------------- */
struct tp_offset_decision {
	uint64_t offset;	/* bytes from the start of the data device */
	uint64_t grid;		/* the alignment unit used (stripe, or the fallback) */
	char reason[TP_REASON_LEN];
};

/* HEADER: bytes the caller needs before the data area (label + VG area). */
void tp_policy_data_offset(const struct tp_topology *t, uint64_t header,
			   struct tp_offset_decision *out);

/* --- a smaller data area (tpreduce --size) ------------------------------- */
/* The decision on a new data size of WANT bytes for a data area of OLD
 * chunks of CHUNK bytes whose last device's range begins at chunk
 * LAST_FIRST: *NEW_CHUNKS is WANT rounded up to whole chunks (saturating).
 * 0 when it shrinks the area and leaves the last device a chunk; -EEXIST
 * when it is the size the area has (nothing to do), -EFBIG when it is
 * larger, -ERANGE when the last device would keep no chunk (the size lies
 * within the devices before it, or is 0), -EINVAL for a CHUNK of 0. */
int tp_policy_shrink(uint64_t old, uint64_t last_first, uint64_t chunk, uint64_t want,
		     uint64_t *new_chunks) TP_MUST_CHECK;

/* --- metadata size and layout ------------------------------------------- */
/* Bytes of thin metadata estimated for DATA_SIZE bytes in CHUNK chunks
 * (the rule above); saturates at UINT64_MAX instead of overflowing. */
uint64_t tp_policy_meta_estimate(uint64_t data_size, uint64_t chunk);

struct tp_meta_request {
	uint64_t requested;	/* --metadata-size SIZE; 0 = auto */
	uint64_t data_size;	/* bytes of the data area */
	uint64_t chunk;		/* the chosen chunk */
	uint64_t meta_dev_size;	/* bytes of the metadata device; 0 = unknown (no layout) */
	uint64_t header;	/* bytes needed before the active area (label + VG area) */
};

struct tp_meta_decision {
	uint64_t estimate;	/* tp_policy_meta_estimate(data_size, chunk) */
	uint64_t size;		/* bytes of ONE area (active == spare), multiple of 4 KiB */
	uint64_t active_offset;	/* multiple of TP_META_ALIGN, >= header */
	uint64_t spare_offset;	/* multiple of TP_META_ALIGN, >= active_offset + size */
	uint64_t end;		/* spare_offset + size: bytes of the device used */
	uint64_t min_dev_size;	/* the smallest metadata device this pool can use */
	int warning;
	char reason[TP_REASON_LEN];
};

int tp_policy_meta(const struct tp_meta_request *req, struct tp_meta_decision *out) TP_MUST_CHECK;

/* The largest single area a metadata device of DEV_SIZE with HEADER can
 * hold (both areas, aligned as above), capped at TP_META_MAX; 0 if none. */
uint64_t tp_policy_meta_room(uint64_t dev_size, uint64_t header);

/* --- discards ----------------------------------------------------------- */
struct tp_discard_decision {
	int passdown;		/* 1: discard_passdown, 0: no_discard_passdown */
	char reason[TP_REASON_LEN];
};

void tp_policy_discards(int dev_supports_discard, struct tp_discard_decision *out);

/* --- all decisions for tpcreate, in order -------------------------------- */
struct tp_policy_input {
	struct tp_topology topo;	/* of the data device (discard included) */
	uint64_t data_dev_size;		/* bytes */
	uint64_t data_header;		/* bytes before the data area: label + VG area */
	uint64_t meta_dev_size;		/* bytes; 0 = unknown */
	uint64_t meta_header;		/* bytes before the active area: label + VG area */
	uint64_t chunk;			/* --chunk; 0 = auto */
	uint64_t chunk_floor;		/* 0 = the profile's */
	enum tp_profile profile;	/* --profile */
	enum tp_choice zero;		/* --zero */
	uint64_t metadata_size;		/* --metadata-size; 0 = auto */
};

struct tp_policy_plan {
	struct tp_offset_decision data_offset;
	struct tp_chunk_decision chunk;
	struct tp_zero_decision zero;
	struct tp_meta_decision meta;
	struct tp_discard_decision discards;
	uint64_t data_blocks;		/* whole chunks in the data area */
	char error[TP_REASON_LEN];	/* on failure: why (copy of the failing reason) */
};

/* Decide everything: data offset, chunk (budget from the metadata device
 * or --metadata-size), zeroing, metadata size/layout, discards. Returns 0,
 * -EINVAL (bad explicit value) or -ENOSPC (a device too small, including a
 * data area that holds no whole chunk); the reason is in out->error. */
int tp_policy_plan(const struct tp_policy_input *in, struct tp_policy_plan *out) TP_MUST_CHECK;

/* --- another data device (tpextend --data) ---------------------------- */
struct tp_add_data_decision {
	struct tp_offset_decision offset;	/* the data area's start on the new device */
	uint64_t chunks;	/* whole chunks of the new device's data area */
	uint64_t stripe;	/* the new device's usable full stripe, 0 if none */
	int fits;		/* tp_policy_chunk_fits(chunk) on the new device */
	char reason[TP_REASON_LEN];	/* the chunk against the device's stripe */
};

/* The data area of a new data device of DEV_SIZE bytes with topology T in
 * a pool of CHUNK bytes (HEADER: label and VG area before the area),
 * aligned for that device alone; at most MAX_CHUNKS chunks. -ENOSPC
 * when not one whole chunk fits behind the header. */
int tp_policy_add_data(const struct tp_topology *t, uint64_t dev_size, uint64_t header,
		       uint64_t chunk, uint64_t max_chunks, struct tp_add_data_decision *out)
	TP_MUST_CHECK;

#endif
