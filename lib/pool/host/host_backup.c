/* host_backup.c - VG metadata backups in the config dir. See host.h. */
#include "lib/pool/host/host.h"
#include "metadata/vg/vg.h"

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
#include <unistd.h>

#define SEQ_DIGITS 20

char *pool_backup_dir(const char *pool)
{
	char *base = tp_path_join(tp_config_dir(), "backup"), *d;

	if (!base)
		return NULL;
	d = tp_path_join(base, pool);
	free(base);
	return d;
}

/* Is NAME "<20 digits>.vg"? Then its seqno into *SEQ. */
static int parse_name(const char *name, uint64_t *seq)
{
	char *end;
	unsigned long long v;

	if (strlen(name) != SEQ_DIGITS + 3 || strcmp(name + SEQ_DIGITS, ".vg"))
		return 0;
	for (int i = 0; i < SEQ_DIGITS; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	errno = 0;
	v = strtoull(name, &end, 10);
	if (errno || end != name + SEQ_DIGITS)
		return 0;
	*seq = v;
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int pool_backup_list(const char *pool, uint64_t **seqnos, size_t *n)
{
	char *dir;
	DIR *d;
	struct dirent *de;
	uint64_t *v = NULL, s;
	size_t nr = 0, alloc = 0;
	int r = 0;

	*seqnos = NULL;
	*n = 0;
	if (!vg_name_valid(pool, NULL))
		return -EINVAL;
	dir = pool_backup_dir(pool);
	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	free(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!parse_name(de->d_name, &s))
			continue;
		if (nr == alloc) {
			size_t a = alloc ? 2 * alloc : 64;
			uint64_t *p = realloc(v, a * sizeof(*p));
			if (!p) {
				r = -ENOMEM;
				break;
			}
			v = p;
			alloc = a;
		}
		v[nr++] = s;
	}
	closedir(d);
	if (r) {
		free(v);
		return r;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_u64);
	*seqnos = v;
	*n = nr;
	return 0;
}

static char *backup_file(const char *dir, uint64_t seqno)
{
	char name[SEQ_DIGITS + 8];

	snprintf(name, sizeof(name), "%0*" PRIu64 ".vg", SEQ_DIGITS, seqno);
	return tp_path_join(dir, name);
}

int pool_backup_prune(const char *pool, unsigned keep)
{
	uint64_t *seq;
	size_t n, i;
	char *dir;
	int r;

	r = pool_backup_list(pool, &seq, &n);
	if (r)
		return r;
	dir = pool_backup_dir(pool);
	if (!dir) {
		free(seq);
		return -ENOMEM;
	}
	for (i = 0; i + keep < n && !r; i++) {
		char *f = backup_file(dir, seq[i]);
		if (!f)
			r = -ENOMEM;
		else if (unlink(f) && errno != ENOENT)
			r = -errno;
		free(f);
	}
	free(dir);
	free(seq);
	return r;
}

int pool_backup_write(const char *pool, uint64_t seqno, const char *text, size_t len,
		    unsigned keep)
{
	char *dir = NULL, *file = NULL;
	int r, logged = 0;

	if (!vg_name_valid(pool, NULL))
		return -EINVAL;
	dir = pool_backup_dir(pool);
	file = dir ? backup_file(dir, seqno) : NULL;
	if (!dir || !file) {
		r = -ENOMEM;
		goto out;
	}
	r = tp_mkdir_p(dir);
	if (r)
		goto out;
	r = tp_atomic_replace(file, ".tmp.vg", 0600, text, len);
	logged = r != 0;	/* tp_atomic_replace names the file and the step */
	if (!r)
		r = pool_backup_prune(pool, keep ? keep : POOL_BACKUP_KEEP);
out:
	if (r && !logged)
		log_error("pool %s: cannot write VG metadata backup %s: %s", pool,
			  file ? file : "", strerror(-r));
	free(file);
	free(dir);
	return r;
}

/* TEXT (LEN bytes, malloc'd) with the description line before it, when
 * the command line is known: 0, or -ENOMEM (TEXT kept). */
static int describe(char **text, size_t *len)
{
	const char *cmd = tp_log_command();
	size_t n;
	char *d;

	if (!*cmd)
		return 0;
	n = strlen(POOL_BACKUP_DESCRIPTION "after ''\n") + strlen(cmd);
	if (!(d = malloc(n + *len + 1)))
		return -ENOMEM;
	snprintf(d, n + 1, POOL_BACKUP_DESCRIPTION "after '%s'\n", cmd);
	memcpy(d + n, *text, *len + 1);
	free(*text);
	*text = d;
	*len += n;
	return 0;
}

void pool_backup_commit(const struct vg *vg)
{
	char *text = NULL;
	size_t len;
	int r = vg_export(vg, &text, &len);

	if (!r)
		r = describe(&text, &len);
	if (!r)
		r = pool_backup_write(vg->name, vg->seqno, text, len, 0);
	if (r)
		log_warn("pool %s: VG metadata seqno %llu is committed but its backup could not "
			 "be written", vg->name, (unsigned long long)vg->seqno);
	free(text);
	if (pool_devices_adopt(vg))
		log_warn("pool %s: its devices-file entries could not be given its uuid %s; the "
			 "next commit tries again", vg->name, vg->uuid);
}

int pool_backup_read_file(const char *file, char **text, size_t *len)
{
	char *buf = NULL;
	struct stat stt;
	size_t got = 0;
	int fd, r = 0;

	*text = NULL;
	/* non-blocking: a FIFO named by mistake is refused, not waited on */
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &stt)) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(stt.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	buf = malloc((size_t)stt.st_size + 1);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	while (got < (size_t)stt.st_size) {
		ssize_t rd = read(fd, buf + got, (size_t)stt.st_size - got);
		if (rd < 0 && errno == EINTR)
			continue;
		if (rd <= 0) {
			r = rd < 0 ? -errno : -EIO;
			goto out;
		}
		got += (size_t)rd;
	}
	buf[stt.st_size] = '\0';
	*text = buf;
	*len = (size_t)stt.st_size;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return r;
}

char *pool_backup_path(const char *pool, uint64_t seqno)
{
	char *dir, *file = NULL;

	if (!seqno) {
		uint64_t *seq;
		size_t n;
		if (!pool_backup_list(pool, &seq, &n) && n)
			seqno = seq[n - 1];
		free(seq);
		if (!seqno)
			return NULL;
	}
	dir = pool_backup_dir(pool);
	if (dir)
		file = backup_file(dir, seqno);
	free(dir);
	return file;
}

int pool_backup_read(const char *pool, uint64_t seqno, char **text, size_t *len,
		   uint64_t *got_seqno)
{
	uint64_t *seq;
	size_t n;
	char *file;
	int r;

	*text = NULL;
	r = pool_backup_list(pool, &seq, &n);
	if (r)
		return r;
	if (!seqno) {
		if (!n) {
			free(seq);
			return -ENOENT;
		}
		seqno = seq[n - 1];
	}
	free(seq);
	file = pool_backup_path(pool, seqno);
	if (!file)
		return -ENOMEM;
	r = pool_backup_read_file(file, text, len);
	free(file);
	if (!r && got_seqno)
		*got_seqno = seqno;
	return r;
}
