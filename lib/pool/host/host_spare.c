/* host_spare.c - the damaged thin-metadata copies tprepair keeps, in the
 * config dir next to the VG backups. See host.h. */
#include "lib/pool/host/host.h"

#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

static int pwrite_all(int fd, const uint8_t *b, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, b, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Copy AREA's non-zero chunks into a sparse FD (opened on the first one:
 * *FD stays -1 for an area of zeroes). */
static int copy_area(struct io_engine *area, const char *tmp, int *fd)
{
	uint8_t *buf = malloc(CHUNK);
	int r = buf ? 0 : -ENOMEM;

	for (uint64_t off = 0; !r && off < area->size; off += CHUNK) {
		size_t n = area->size - off < CHUNK ? (size_t)(area->size - off) : CHUNK;
		if ((r = io_read(area, off, buf, n)) || is_zero(buf, n))
			continue;
		if (*fd < 0 && (*fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
			r = -errno;
		else
			r = pwrite_all(*fd, buf, n, off);
	}
	if (!r && *fd >= 0 && (ftruncate(*fd, (off_t)area->size) || fsync(*fd)))
		r = -errno;
	free(buf);
	return r;
}

int pool_spare_save(const char *pool, uint64_t seqno, struct io_engine *area, char **saved)
{
	char name[NAME_LEN + 1], stamp[17];
	char *dir = pool_backup_dir(pool), *tmp = NULL, *file = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int fd = -1, r;

	*saved = NULL;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(name, sizeof(name), PREFIX "%020" PRIu64 "-%s" SUFFIX, seqno, stamp);
	tmp = dir ? tp_path_join(dir, ".tmp.spare") : NULL;
	file = dir ? tp_path_join(dir, name) : NULL;
	if (!tmp || !file) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = tp_mkdir_p(dir)))
		goto out;
	r = copy_area(area, tmp, &fd);
	if (fd >= 0 && close(fd) && !r)
		r = -errno;
	if (!r && fd >= 0 && rename(tmp, file))
		r = -errno;
	if (r && fd >= 0)
		unlink(tmp);
	if (r || fd < 0)
		goto out;
	prune(dir, POOL_SPARE_KEEP);
	*saved = file;
	file = NULL;
out:
	if (r)
		log_error("pool %s: cannot keep the damaged thin-metadata copy in %s: %s", pool,
			  dir ? dir : "", strerror(-r));
	free(file);
	free(tmp);
	free(dir);
	return r;
}
