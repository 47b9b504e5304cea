/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c - see topology.h. */
#include "lib/dev/topology.h"
#include "lib/base/devopen.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void tp_topology_init(struct tp_topology *t)
{
	memset(t, 0, sizeof(*t));
	t->logical_sector = TP_SECTOR_SIZE;
	t->physical_sector = TP_SECTOR_SIZE;
	t->source = TP_TOPO_NONE;
}

const char *tp_topology_source_name(enum tp_topo_source s)
{
	switch (s) {
	case TP_TOPO_BLKID:
		return "blkid";
	case TP_TOPO_OVERRIDE:
		return TP_TOPOLOGY_ENV;
	case TP_TOPO_NONE:
		break;
	}
	return "none";
}

const char *tp_topology_describe(const struct tp_topology *t, char *buf, size_t len)
{
	char a[32], b[32], c[32];

	snprintf(buf, len, "min_io %s, opt_io %s, align %s, sectors %u/%u, discard %s (from %s)",
		 tp_size_format(t->min_io, 'h', a, sizeof(a)),
		 tp_size_format(t->opt_io, 'h', b, sizeof(b)),
		 tp_size_format(t->align_offset, 'h', c, sizeof(c)), t->logical_sector,
		 t->physical_sector, t->discard ? "yes" : "no", tp_topology_source_name(t->source));
	return buf;
}

/* ---- the override ------------------------------------------------------ */

enum { K_MIN_IO, K_OPT_IO, K_ALIGN, K_LOGICAL, K_PHYSICAL, K_DISCARD, K_COUNT };
static const char *const key_names[K_COUNT] = { "min_io", "opt_io", "align",
						"logical", "physical", "discard" };

static int bad(char *errbuf, size_t errlen, const char *fmt, const char *arg)
{
	if (errbuf && errlen) {
		int n = snprintf(errbuf, errlen, "%s: ", TP_TOPOLOGY_ENV);
		if (n > 0 && (size_t)n < errlen)
			snprintf(errbuf + n, errlen - (size_t)n, fmt, arg);
	}
	return -EINVAL;
}

static int is_sector_size(uint64_t v)
{
	return v >= 512 && v <= 65536 && (v & (v - 1)) == 0;
}

static int check_values(const uint64_t *v, const int *seen, char *errbuf, size_t errlen)
{
	for (int k = K_MIN_IO; k <= K_ALIGN; k++)
		if (!seen[k])
			return bad(errbuf, errlen, "missing key '%s' (need min_io, opt_io and align)",
				   key_names[k]);
	if (!is_sector_size(v[K_LOGICAL]))
		return bad(errbuf, errlen, "%s must be a power of two in 512..65536", "logical");
	if (!is_sector_size(v[K_PHYSICAL]))
		return bad(errbuf, errlen, "%s must be a power of two in 512..65536", "physical");
	if (v[K_PHYSICAL] < v[K_LOGICAL])
		return bad(errbuf, errlen, "%s must not be smaller than logical", "physical");
	if (v[K_MIN_IO] % v[K_LOGICAL])
		return bad(errbuf, errlen, "%s must be a multiple of the logical sector size",
			   "min_io");
	if (v[K_OPT_IO] % v[K_LOGICAL])
		return bad(errbuf, errlen, "%s must be a multiple of the logical sector size",
			   "opt_io");
	if (v[K_DISCARD] > 1)
		return bad(errbuf, errlen, "%s must be 0 or 1", "discard");
	if (v[K_ALIGN]) {
		uint64_t unit = v[K_OPT_IO] ? v[K_OPT_IO] : v[K_MIN_IO];
		if (v[K_ALIGN] >= unit)
			return bad(errbuf, errlen,
				   "%s must be smaller than opt_io (or min_io when opt_io is 0)",
				   "align");
	}
	return 0;
}

int tp_topology_parse(const char *spec, struct tp_topology *out, char *errbuf, size_t errlen)
{
	uint64_t v[K_COUNT] = { 0, 0, 0, TP_SECTOR_SIZE, TP_SECTOR_SIZE, 0 };
	int seen[K_COUNT] = { 0 };
	char *copy, *tok, *save = NULL;
	int r = 0;

	if (!spec || !*spec)
		return bad(errbuf, errlen, "%s", "empty value");
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		char why[160];
		int k;

		if (!eq) {
			r = bad(errbuf, errlen, "'%s' is not key=value", tok);
			break;
		}
		*eq = '\0';
		for (k = 0; k < K_COUNT; k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == K_COUNT) {
			r = bad(errbuf, errlen,
				"unknown key '%s' (known: min_io, opt_io, align, logical, physical, discard)",
				tok);
			break;
		}
		if (seen[k]) {
			r = bad(errbuf, errlen, "key '%s' given twice", tok);
			break;
		}
		seen[k] = 1;
		if (tp_size_parse(eq + 1, 'b', &v[k], why, sizeof(why)) < 0) {
			char what[200];
			snprintf(what, sizeof(what), "%s: %s", key_names[k], why);
			r = bad(errbuf, errlen, "bad value for %s", what);
		}
	}
	free(copy);
	if (!seen[K_PHYSICAL])
		v[K_PHYSICAL] = TP_MAX(v[K_LOGICAL], v[K_PHYSICAL]);
	if (!r)
		r = check_values(v, seen, errbuf, errlen);
	if (r)
		return r;
	tp_topology_init(out);
	out->min_io = v[K_MIN_IO];
	out->opt_io = v[K_OPT_IO];
	out->align_offset = v[K_ALIGN];
	out->logical_sector = (uint32_t)v[K_LOGICAL];
	out->physical_sector = (uint32_t)v[K_PHYSICAL];
	out->discard = (int)v[K_DISCARD];
	out->source = TP_TOPO_OVERRIDE;
	return 0;
}

/* ---- the device -------------------------------------------------------- */

/* discard_max_bytes of a block device from sysfs; a partition's queue/
 * lives in its parent's directory. 1 = supports discard, 0 = no/unknown. */
static int sysfs_discard(dev_t rdev)
{
	static const char *const rel[] = { "queue/discard_max_bytes",
					   "../queue/discard_max_bytes" };
	for (size_t i = 0; i < TP_ARRAY_SIZE(rel); i++) {
		char p[128];
		unsigned long long v = 0;
		FILE *f;
		int n;

		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/%s", major(rdev), minor(rdev), rel[i]);
		f = fopen(p, "re");
		if (!f)
			continue;
		n = fscanf(f, "%llu", &v);
		fclose(f);
		if (n == 1)
			return v > 0;
	}
	return 0;
}

static int read_blkid(const char *path, int fd, struct tp_topology *out)
{
	blkid_probe pr = blkid_new_probe();
	blkid_topology tp;
	int r = 0;

	if (!pr)
		return log_error("%s: cannot allocate a libblkid probe", path), -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		r = -EIO;
		log_error("%s: libblkid cannot probe this device", path);
		goto out;
	}
	tp = blkid_probe_get_topology(pr);
	if (tp) {
		out->min_io = blkid_topology_get_minimum_io_size(tp);
		out->opt_io = blkid_topology_get_optimal_io_size(tp);
		out->align_offset = blkid_topology_get_alignment_offset(tp);
		if (blkid_topology_get_logical_sector_size(tp))
			out->logical_sector = (uint32_t)blkid_topology_get_logical_sector_size(tp);
		if (blkid_topology_get_physical_sector_size(tp))
			out->physical_sector = (uint32_t)blkid_topology_get_physical_sector_size(tp);
		if (out->min_io || out->opt_io)
			out->source = TP_TOPO_BLKID;
	}
out:
	blkid_free_probe(pr);
	return r;
}

int tp_topology_get(const char *path, struct tp_topology *out)
{
	const char *env = getenv(TP_TOPOLOGY_ENV);
	struct tp_topology t;
	struct stat st;
	int fd, r = 0;

	fd = io_dev_open(path, O_RDONLY);
	if (fd < 0) {
		r = -errno;
		log_error("%s: cannot open: %s", path, strerror(errno));
		return r;
	}
	if (env && *env) {
		char why[256];
		close(fd);
		r = tp_topology_parse(env, out, why, sizeof(why));
		if (r < 0)
			log_error("%s (syntax: min_io=BYTES,opt_io=BYTES,align=BYTES"
				  "[,logical=BYTES,physical=BYTES,discard=0|1])", why);
		else
			log_debug(TP_DBG_DEV, "%s: topology from %s", path, TP_TOPOLOGY_ENV);
		return r;
	}
	tp_topology_init(&t);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		log_error("%s: cannot stat: %s", path, strerror(errno));
	} else if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		r = -ENOTBLK;
		log_error("%s: not a block device or a regular file", path);
	} else {
		/* a regular file reports nothing: defaults (source none) */
		r = read_blkid(path, fd, &t);
		if (S_ISBLK(st.st_mode))
			t.discard = sysfs_discard(st.st_rdev);
	}
	close(fd);
	if (r == 0) {
		char d[160];
		*out = t;
		log_debug(TP_DBG_DEV, "%s: %s", path, tp_topology_describe(&t, d, sizeof(d)));
	}
	return r;
}
