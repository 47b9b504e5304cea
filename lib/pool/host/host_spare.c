/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host_spare.c - the damaged thin-metadata copies tprepair keeps, in the
 * config dir next to the VG backups of the pool (its uuid's directory).
 * See host.h. */
#include "lib/pool/host/host.h"

#include "lib/base/atomic.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define PREFIX "spare-"
#define SUFFIX ".img"
/* "spare-" + 20 digits + "-" + YYYYmmddTHHMMSSZ + ".img" */
#define NAME_LEN (sizeof(PREFIX) - 1 + 20 + 1 + 16 + sizeof(SUFFIX) - 1)

static int is_spare_name(const char *name)
{
	size_t n = strlen(name);

	return n == NAME_LEN && !strncmp(name, PREFIX, sizeof(PREFIX) - 1) &&
	       !strcmp(name + n - (sizeof(SUFFIX) - 1), SUFFIX);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Delete all but the newest KEEP copies in DIR (names sort by seqno). */
static void prune(const char *dir, unsigned keep)
{
	char *names[64];
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) && n < TP_ARRAY_SIZE(names))
		if (is_spare_name(de->d_name) && (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i + keep < n) {
			char *f = tp_path_join(dir, names[i]);
			if (f && unlink(f) && errno != ENOENT)
				log_warn("cannot delete the old damaged copy %s: %s", f,
					 strerror(errno));
			free(f);
		}
		free(names[i]);
	}
}

static int is_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Copy AREA's non-zero chunks into a sparse replacement of FILE (begun
 * on the first one: *COPIED stays 0 for an area of zeroes, and no file is
 * made). *LOGGED: the failure returned is tp_atomic_*'s, logged there. */
static int copy_area(struct io_engine *area, const char *file, int *copied, int *logged)
{
	struct tp_atomic a = { .fd = -1 };
	uint8_t *buf = malloc(CHUNK);
	int r = buf ? 0 : -ENOMEM;

	for (uint64_t off = 0; !r && off < area->size; off += CHUNK) {
		size_t n = area->size - off < CHUNK ? (size_t)(area->size - off) : CHUNK;
		if ((r = io_read(area, off, buf, n)) || is_zero(buf, n))
			continue;
		if (!*copied) {
			if ((r = tp_atomic_open(file, ".tmp.spare", 0600, &a))) {
				*logged = 1;
				break;
			}
			*copied = 1;
		}
		if ((r = tp_atomic_pwrite(&a, buf, n, off)))
			*logged = 1;
	}
	free(buf);
	if (!*copied)
		return r;
	if (!r) {
		r = tp_atomic_set_size(&a, area->size);
		*logged = r != 0;
	}
	if (r) {
		tp_atomic_abort(&a);
		return r;
	}
	r = tp_atomic_commit(&a);
	*logged = r != 0;
	return r;
}

int pool_spare_save(const char *uuid, const char *pool, uint64_t seqno, struct io_engine *area,
		    char **saved)
{
	char name[NAME_LEN + 1], stamp[17];
	char *dir = NULL, *file = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int copied = 0, logged = 0, r;

	*saved = NULL;
	if (!vg_uuid_valid(uuid)) {
		log_error("pool %s: no pool uuid to keep the damaged thin-metadata copy under",
			  pool);
		return -EINVAL;
	}
	/* the pool's own directory, by uuid: a pool that had its name
	 * before it never prunes (or mixes with) this one's copies */
	dir = pool_backup_dir(uuid);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(name, sizeof(name), PREFIX "%020" PRIu64 "-%s" SUFFIX, seqno, stamp);
	file = dir ? tp_path_join(dir, name) : NULL;
	if (!file) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = tp_mkdir_p(dir)))
		goto out;
	r = copy_area(area, file, &copied, &logged);
	if (r || !copied)
		goto out;
	prune(dir, POOL_SPARE_KEEP);
	*saved = file;
	file = NULL;
out:
	if (r && !logged)
		log_error("pool %s: cannot keep the damaged thin-metadata copy in %s: %s", pool,
			  dir ? dir : "", strerror(-r));
	free(file);
	free(dir);
	return r;
}
