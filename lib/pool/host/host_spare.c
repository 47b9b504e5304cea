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
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define PREFIX "spare-"
#define SUFFIX ".img"
/* "spare-" + 20 digits + "-" + YYYYmmddTHHMMSSZ + ".img"; a name taken
 * (two saves in one second under one seqno: runs killed before their
 * commit) gets "-N" (1..999) before ".img" */
#define STEM_LEN (sizeof(PREFIX) - 1 + 20 + 1 + 16)
#define NAME_LEN (STEM_LEN + sizeof(SUFFIX) - 1)
#define NAME_MAX_LEN (NAME_LEN + 4)

/* The "-N" of a spare name (0: none), or -1 when NAME is not one. */
static int spare_number(const char *name)
{
	size_t n = strlen(name);
	int k = 0;

	if (n < NAME_LEN || n > NAME_MAX_LEN || strncmp(name, PREFIX, sizeof(PREFIX) - 1) ||
	    strcmp(name + n - (sizeof(SUFFIX) - 1), SUFFIX))
		return -1;
	if (n == NAME_LEN)
		return 0;
	if (name[STEM_LEN] != '-' || n == NAME_LEN + 1)
		return -1;
	for (size_t i = STEM_LEN + 1; i < n - (sizeof(SUFFIX) - 1); i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		k = k * 10 + (name[i] - '0');
	}
	return k;
}

static int is_spare_name(const char *name)
{
	return spare_number(name) >= 0;
}

/* Oldest first: by seqno and time, then by the number a taken name got. */
static int cmp_str(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int c = strncmp(x, y, STEM_LEN);

	return c ? c : spare_number(x) - spare_number(y);
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

/* Does the file FILE hold AREA byte for byte (its holes read as zeroes)? */
static int same_content(struct io_engine *area, const char *file, uint8_t *a, uint8_t *b)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC), same;

	if (fd < 0)
		return 0;
	same = !fstat(fd, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size == area->size;
	for (uint64_t off = 0; same && off < area->size; off += CHUNK) {
		size_t n = area->size - off < CHUNK ? (size_t)(area->size - off) : CHUNK;

		same = !io_read(area, off, a, n) && pread(fd, b, n, (off_t)off) == (ssize_t)n &&
		       !memcmp(a, b, n);
	}
	close(fd);
	return same;
}

/* The copy in DIR that holds AREA already (caller frees), or NULL: a run
 * killed after it wrote the spare (its own rebuild) and run again finds
 * there what the killed run kept, or what it wrote itself. */
static char *kept_already(const char *dir, struct io_engine *area)
{
	uint8_t *a = malloc(CHUNK), *b = malloc(CHUNK);
	char *found = NULL;
	struct dirent *de;
	DIR *d = a && b ? opendir(dir) : NULL;

	while (d && !found && (de = readdir(d))) {
		char *f;

		if (!is_spare_name(de->d_name) || !(f = tp_path_join(dir, de->d_name)))
			continue;
		if (same_content(area, f, a, b))
			found = f;
		else
			free(f);
	}
	if (d)
		closedir(d);
	free(a);
	free(b);
	return found;
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
	char name[NAME_MAX_LEN + 1], stamp[17];
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
	if (!dir) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = tp_mkdir_p(dir)))
		goto out;
	/* a copy kept already is not kept twice (nor its older twin pruned) */
	if ((*saved = kept_already(dir, area)))
		goto out;
	/* never over an existing file: a taken name gets a number */
	for (unsigned k = 0; k < 1000; k++) {
		free(file);
		if (k)
			snprintf(name, sizeof(name), PREFIX "%020" PRIu64 "-%s-%u" SUFFIX, seqno,
				 stamp, k);
		else
			snprintf(name, sizeof(name), PREFIX "%020" PRIu64 "-%s" SUFFIX, seqno,
				 stamp);
		if (!(file = tp_path_join(dir, name))) {
			r = -ENOMEM;
			goto out;
		}
		if (access(file, F_OK) && errno == ENOENT)
			break;
	}
	if (!access(file, F_OK)) {
		r = -EEXIST;
		goto out;
	}
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
