/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h - I/O geometry of a device (block device or image file).
 *
 * Owns: reading the I/O topology of one path through libblkid
 * (minimum_io_size = md chunk, optimal_io_size = full stripe,
 * alignment_offset, logical and physical sector size) and the device's
 * discard support (sysfs queue/discard_max_bytes), and the override
 * TPTOOLS_TOPOLOGY (for tests and experts).
 *
 * TPTOOLS_TOPOLOGY (documented in tpcreate(8) as a test and expert
 * override) replaces what libblkid reports, for every path:
 *     TPTOOLS_TOPOLOGY="min_io=524288,opt_io=2097152,align=0"
 * Keys (comma separated, any order, each at most once): min_io, opt_io,
 * align, logical, physical, discard (0|1). Values are byte counts in
 * lib/base/units syntax (a bare number is bytes; "512k", "2m" work too).
 * min_io, opt_io and align are required; logical defaults to 512,
 * physical to logical; discard defaults to 0. Sector sizes must be powers of two in
 * 512..65536 with logical <= physical; min_io and opt_io multiples of the
 * logical sector size; align < opt_io (or < min_io when opt_io is 0).
 * An empty value of the variable means "not set". Bad syntax is an error
 * (-EINVAL) with a message naming the variable and the bad key; it is never
 * silently ignored.
 *
 * Results (all byte counts). A value the device does not report is 0 for
 * min_io/opt_io/align; sector sizes default to 512. `source` says where the
 * numbers came from: TP_TOPO_BLKID (libblkid reported a topology with a
 * non-zero min_io or opt_io), TP_TOPO_OVERRIDE (the environment), or
 * TP_TOPO_NONE (an image file, or a device that reports nothing useful;
 * the geometry policy then falls back to its defaults).
 * libblkid's alignment_offset is taken as is (the kernel reports a device
 * it cannot align as misaligned; we pass a value >= opt_io through and let
 * the policy ignore it with a reason). */
#ifndef TP_DEV_TOPOLOGY_H
#define TP_DEV_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/compiler.h"

#define TP_TOPOLOGY_ENV "TPTOOLS_TOPOLOGY"

enum tp_topo_source {
	TP_TOPO_NONE = 0,	/* nothing reported: defaults */
	TP_TOPO_BLKID,		/* read from the device through libblkid */
	TP_TOPO_OVERRIDE,	/* from $TPTOOLS_TOPOLOGY */
};

struct tp_topology {
	uint64_t min_io;		/* minimum_io_size (md chunk); 0 = not reported */
	uint64_t opt_io;		/* optimal_io_size (full stripe); 0 = not reported */
	uint64_t align_offset;		/* alignment_offset; 0 = aligned / not reported */
	uint32_t logical_sector;	/* bytes; 512 when not reported */
	uint32_t physical_sector;	/* bytes; 512 when not reported */
	int discard;			/* 1: device supports discard; 0: no / unknown */
	enum tp_topo_source source;
};

/* Fill *OUT with the topology of PATH (block device or regular file).
 * $TPTOOLS_TOPOLOGY, when set and non-empty, replaces the device's values
 * (PATH must still exist). Returns 0; -EINVAL for a bad override (logged,
 * naming the variable); -ENOTBLK when PATH is neither a block device
 * nor a regular file; -errno when PATH cannot be opened or probed
 * (logged, naming PATH). *OUT is fully initialised on success only. */
int tp_topology_get(const char *path, struct tp_topology *out) TP_MUST_CHECK;

/* Parse an override string (the syntax above) into *OUT with
 * source = TP_TOPO_OVERRIDE. Returns 0 or -EINVAL with an explanation in
 * ERRBUF (when not NULL). Does not log. */
int tp_topology_parse(const char *spec, struct tp_topology *out, char *errbuf,
		      size_t errlen) TP_MUST_CHECK;

/* Defaults for a device that reports nothing (source TP_TOPO_NONE). */
void tp_topology_init(struct tp_topology *t);

/* "blkid", "TPTOOLS_TOPOLOGY", "none" */
const char *tp_topology_source_name(enum tp_topo_source s);

/* One line for --explain / debug: "min_io 512 KiB, opt_io 2.50 MiB,
 * align 0 B, sectors 512/4096, discard no (from blkid)". Returns BUF. */
const char *tp_topology_describe(const struct tp_topology *t, char *buf, size_t len);

#endif
