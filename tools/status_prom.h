/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status_prom.h - the pools' figures as Prometheus metrics: the text
 * exposition format 0.0.4, for `tpstatus --format prometheus` and the
 * textfile of `tpmonitor --textfile DIR` (node_exporter's textfile
 * collector). The metric families and what each means are listed in
 * tpstatus(8), METRICS, and docs/prometheus.md.
 *
 * A report is read first, pool by pool (prom_add_pool: each pool opened
 * read-only, read as tpstatus reads it, closed again), then written
 * (prom_write): the format wants every sample of a family on adjacent
 * lines, so the families are the outer loop and the pools the inner one.
 * A pool's volumes are kept packed (POOL_INFO_BY_VOLUME), each made again
 * (pool_info_volume) as its samples are written. A pool that cannot be read is still in the report: its
 * tptools_pool_up is 0, and the series its VG metadata gives (when that
 * could be read) are there without the figures of its allocation. */
#ifndef TP_TOOLS_STATUS_PROM_H
#define TP_TOOLS_STATUS_PROM_H

#include "lib/pool/pool.h"

#include <stddef.h>
#include <stdio.h>

struct prom_pool {
	char name[POOL_NAME_MAX + 1];	/* as asked for (the label) */
	int vg;			/* its VG metadata was read: settings, volumes */
	int up;			/* and its allocation: the figures too */
	struct pool_info in;	/* valid with vg; dev_path, profile cleared */
	/* (read by prom_add_pool: in.volumes NULL, its volumes packed) */
	long *keep;		/* the indexes of the volumes kept, ascending; NULL: all */
	unsigned nkeep;
	char profile[32];	/* in.profile's text */
	unsigned trash;		/* entries in the pool's trash (with vg) */
	uint64_t trash_bytes;	/* data their thin devices map (with up) */
};

struct prom_report {
	struct prom_pool *pools;
	unsigned n;
};

/* Read pool NAME (DEVICES and FLAGS | POOL_RDONLY as for pool_open) into
 * R. VOLS (N_VOLS of them; 0: every volume): the volumes to keep, each of
 * which must exist. 0 when the pool was read, else the -errno of the
 * first failure (logged where it arose); the pool is in R either way,
 * unless the return is -ENOMEM. */
int prom_add_pool(struct prom_report *r, const char *name, const char *devices, unsigned flags,
		  const char *const *vols, unsigned n_vols) TP_MUST_CHECK;
/* Add a pool that was not read at all (tptools_pool_up 0 only):
 * 0 or -ENOMEM. */
int prom_add_down(struct prom_report *r, const char *name) TP_MUST_CHECK;
/* Write R to F in the text format: 0, or -EIO when F failed. */
int prom_write(const struct prom_report *r, FILE *f) TP_MUST_CHECK;
void prom_free(struct prom_report *r);

/* S as a label value between double quotes: backslash, double quote and
 * newline escaped (\\, \", \n). Writes at most LEN bytes with the NUL;
 * returns the length the whole escaped value needs. */
size_t prom_escape_label(const char *s, char *out, size_t len);

#endif
