/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host_backup.c - VG metadata backups in the config dir, one directory
 * per pool uuid; the first layout's directories (one per pool name) are
 * read too, and emptied into the new one by the commits of their pools.
 * See host.h. */
#include "lib/pool/host/host.h"
#include "metadata/vg/vg.h"

#include "lib/base/atomic.h"
#include "lib/base/config.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
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
/* the pool's name and uuid lie near the top of the text, after the
 * description line: this much is read to find them before the whole file */
#define PEEK_BYTES 8192u

char *pool_backup_root(void)
{
	return tp_path_join(tp_config_dir(), "backup");
}

char *pool_backup_dir(const char *uuid)
{
	char *base = pool_backup_root(), *d;

	if (!base)
		return NULL;
	d = tp_path_join(base, uuid);
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

/* The seqnos of the backup files in directory DIR, ascending. */
static int list_dir(const char *dir, uint64_t **seqnos, size_t *n)
{
	DIR *d;
	struct dirent *de;
	uint64_t *v = NULL, s;
	size_t nr = 0, alloc = 0;
	int r = 0;

	*seqnos = NULL;
	*n = 0;
	d = opendir(dir);
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

int pool_backup_list(const char *uuid, uint64_t **seqnos, size_t *n)
{
	char *dir;
	int r;

	*seqnos = NULL;
	*n = 0;
	if (!vg_uuid_valid(uuid))
		return -EINVAL;
	if (!(dir = pool_backup_dir(uuid)))
		return -ENOMEM;
	r = list_dir(dir, seqnos, n);
	free(dir);
	return r;
}

static char *backup_file(const char *dir, uint64_t seqno)
{
	char name[SEQ_DIGITS + 8];

	snprintf(name, sizeof(name), "%0*" PRIu64 ".vg", SEQ_DIGITS, seqno);
	return tp_path_join(dir, name);
}

char *pool_backup_path(const char *uuid, uint64_t seqno)
{
	char *dir = pool_backup_dir(uuid), *file = NULL;

	if (dir)
		file = backup_file(dir, seqno);
	free(dir);
	return file;
}

/* tptools.conf backup/max_size in bytes (POOL_BACKUP_MAX_BYTES unset). */
static uint64_t max_bytes(void)
{
	const char *v = tp_config_str("backup/max_size");
	uint64_t b;

	if (!v || tp_size_parse(v, 'm', &b, NULL, 0) || !b)
		return POOL_BACKUP_MAX_BYTES;
	return b;
}

int pool_backup_prune(const char *uuid, unsigned keep)
{
	uint64_t *seq, total = 0, cap = max_bytes();
	size_t n, i, drop;
	char *dir;
	int r;

	r = pool_backup_list(uuid, &seq, &n);
	if (r)
		return r;
	dir = pool_backup_dir(uuid);
	if (!dir) {
		free(seq);
		return -ENOMEM;
	}
	/* past KEEP, or past the byte cap counted from the newest (whose
	 * POOL_BACKUP_MIN stay whatever their size) */
	drop = n > keep ? n - keep : 0;
	for (i = n; i > drop && !r; i--) {
		char *f = backup_file(dir, seq[i - 1]);
		struct stat st;

		if (!f) {
			r = -ENOMEM;
			break;
		}
		if (!stat(f, &st))
			total += (uint64_t)st.st_size;
		free(f);
		if (total > cap && n - i >= POOL_BACKUP_MIN) {
			drop = i;
			break;
		}
	}
	for (i = 0; i < drop && !r; i++) {
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

/* tptools.conf backup/keep (POOL_BACKUP_KEEP unset). */
static unsigned backup_keep(void)
{
	long long k = tp_config_int("backup/keep");

	return k > 0 ? (unsigned)k : POOL_BACKUP_KEEP;
}

int pool_backup_write(const char *uuid, const char *name, uint64_t seqno, const char *text,
		      size_t len, unsigned keep)
{
	char *dir = NULL, *file = NULL;
	int r, logged = 0;

	if (!vg_uuid_valid(uuid))
		return -EINVAL;
	dir = pool_backup_dir(uuid);
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
		r = pool_backup_prune(uuid, keep ? keep : backup_keep());
out:
	if (r && !logged)
		log_error("pool %s: cannot write VG metadata backup %s: %s", name,
			  file ? file : "", strerror(-r));
	free(file);
	free(dir);
	return r;
}

/* TEXT (LEN bytes, NUL-terminated) with the description line before it
 * into *OUT (malloc'd), *LEN grown by the line, when the command line is
 * known; else *OUT NULL (TEXT is the backup as it is): 0, or -ENOMEM. */
static int describe(const char *text, size_t *len, char **out)
{
	const char *cmd = tp_log_command();
	size_t n;
	char *d;

	*out = NULL;
	if (!*cmd)
		return 0;
	n = strlen(POOL_BACKUP_DESCRIPTION "after ''\n") + strlen(cmd);
	if (!(d = malloc(n + *len + 1)))
		return -ENOMEM;
	snprintf(d, n + 1, POOL_BACKUP_DESCRIPTION "after '%s'\n", cmd);
	memcpy(d + n, text, *len + 1);
	*out = d;
	*len += n;
	return 0;
}

static void backup_commit(const struct vg *vg, const char *committed, size_t len);

void pool_backup_commit(const struct vg *vg)
{
	backup_commit(vg, NULL, 0);
}

void pool_backup_commit_text(const struct vg *vg, const char *text, size_t len)
{
	backup_commit(vg, text, len);
}

/* COMMITTED: the text the commit wrote (NULL: exported here). */
static void backup_commit(const struct vg *vg, const char *committed, size_t len)
{
	char *exported = NULL, *described = NULL;
	const char *text = committed;
	int r = 0;

	/* the first layout's directory of this name goes first, so the
	 * commit's backup never lies beside another pool's of that name */
	pool_backup_migrate(vg->name);
	if (!text && !(r = vg_export(vg, &exported, &len)))
		text = exported;
	if (!r)
		r = describe(text, &len, &described);
	if (!r)
		r = pool_backup_write(vg->uuid, vg->name, vg->seqno,
				      described ? described : text, len, 0);
	if (r)
		log_warn("pool %s: VG metadata seqno %llu is committed but its backup could not "
			 "be written", vg->name, (unsigned long long)vg->seqno);
	free(described);
	free(exported);
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

/* ---- finding backups by pool uuid or name ---- */

/* KEY="VALUE" at the start of S (after blanks), VALUE into OUT (up to MAX
 * bytes): 1, else 0. */
static int key_value(const char *s, const char *end, const char *key, char *out, size_t max)
{
	size_t k = strlen(key), n;
	const char *q;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) < k || strncmp(s, key, k))
		return 0;
	s += k;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || *s++ != '=')
		return 0;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || *s++ != '"' || !(q = memchr(s, '"', (size_t)(end - s))))
		return 0;
	if ((n = (size_t)(q - s)) > max)
		return 0;
	memcpy(out, s, n);
	out[n] = '\0';
	return 1;
}

/* The pool name and uuid that TEXT (LEN bytes, maybe the first part of a
 * file) records in its pool section, in the layout vg_export writes (a
 * key a line): 1 both found, else 0 (the caller imports the whole text).
 * Only a hint for where the file belongs: every use imports it. */
static int peek_text(const char *text, size_t len, char name[VG_NAME_MAX + 1],
		     char uuid[VG_UUID_LEN + 1])
{
	const char *s = text, *end = text + len;
	int depth = 0, in_pool = 0;

	name[0] = uuid[0] = '\0';
	while (s < end && (!name[0] || !uuid[0])) {
		const char *eol = memchr(s, '\n', (size_t)(end - s)), *t = s;
		int quoted = 0;

		if (!eol)
			break;	/* a line cut by the peek's end */
		while (t < eol && (*t == ' ' || *t == '\t'))
			t++;
		if (t < eol && *t == '#') {
			s = eol + 1;
			continue;
		}
		if (depth == 0 && eol - t >= 4 && !memcmp(t, "pool", 4)) {
			const char *b = t + 4;
			while (b < eol && (*b == ' ' || *b == '\t'))
				b++;
			in_pool = b < eol && *b == '{';
		}
		if (depth == 1 && in_pool) {
			if (!name[0])
				key_value(t, eol, "name", name, VG_NAME_MAX);
			if (!uuid[0])
				key_value(t, eol, "uuid", uuid, VG_UUID_LEN);
		}
		for (const char *c = t; c < eol; c++) {
			if (*c == '"')
				quoted = !quoted;
			else if (!quoted && *c == '{')
				depth++;
			else if (!quoted && *c == '}' && --depth == 0)
				in_pool = 0;
		}
		s = eol + 1;
	}
	return name[0] && uuid[0] && vg_uuid_valid(uuid);
}

/* The pool name and uuid the backup FILE records: 0, or -errno (a file
 * that cannot be read, or does not import as VG metadata: -EUCLEAN). */
static int peek_file(const char *file, char name[VG_NAME_MAX + 1], char uuid[VG_UUID_LEN + 1])
{
	char buf[PEEK_BYTES], *text;
	struct vg *vg;
	size_t len;
	ssize_t got;
	int fd, r;

	name[0] = uuid[0] = '\0';
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = pread(fd, buf, sizeof(buf), 0);
	r = got < 0 ? -errno : 0;
	close(fd);
	if (r)
		return r;
	if (peek_text(buf, (size_t)got, name, uuid))
		return 0;
	if ((r = pool_backup_read_file(file, &text, &len)))
		return r;
	r = vg_import_why(text, len, &vg, NULL, 0) ? -EUCLEAN : 0;
	free(text);
	if (!r) {
		snprintf(name, VG_NAME_MAX + 1, "%s", vg->name);
		snprintf(uuid, VG_UUID_LEN + 1, "%s", vg->uuid);
		vg_free(vg);
	}
	return r;
}

static int add_file(struct pool_backup_set *s, size_t *alloc, const struct pool_backup_file *f)
{
	if (s->n == *alloc) {
		size_t a = *alloc ? 2 * *alloc : 64;
		struct pool_backup_file *p = realloc(s->f, a * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->f = p;
		*alloc = a;
	}
	s->f[s->n++] = *f;
	return 0;
}

/* Every backup file under the root, peeked, into ALL. */
static int scan_all(struct pool_backup_set *all)
{
	char *root = pool_backup_root();
	struct dirent *de;
	size_t alloc = 0;
	DIR *d;
	int r = 0;

	memset(all, 0, sizeof(*all));
	if (!root)
		return -ENOMEM;
	d = opendir(root);
	if (!d) {
		r = errno == ENOENT ? 0 : -errno;
		free(root);
		return r;
	}
	while (!r && (de = readdir(d))) {
		char *dir;
		uint64_t *seq;
		size_t n;

		/* pool names and uuids never begin with '.': '.', '..',
		 * temporary files */
		if (de->d_name[0] == '.' || !vg_name_valid(de->d_name, NULL))
			continue;
		if (!(dir = tp_path_join(root, de->d_name))) {
			r = -ENOMEM;
			break;
		}
		if (list_dir(dir, &seq, &n)) {	/* not a directory, or unreadable */
			free(dir);
			continue;
		}
		for (size_t i = 0; i < n && !r; i++) {
			struct pool_backup_file f;

			memset(&f, 0, sizeof(f));
			f.seqno = seq[i];
			if (vg_uuid_valid(de->d_name))
				snprintf(f.dir_uuid, sizeof(f.dir_uuid), "%.*s", VG_UUID_LEN,
					 de->d_name);
			else	/* a valid pool name: at most VG_NAME_MAX */
				snprintf(f.dir_name, sizeof(f.dir_name), "%.*s", VG_NAME_MAX,
					 de->d_name);
			if (!(f.path = backup_file(dir, seq[i]))) {
				r = -ENOMEM;
				break;
			}
			if (peek_file(f.path, f.name, f.uuid) == -ENOENT) {
				free(f.path);	/* moved meanwhile: found where it went */
				continue;
			}
			if ((r = add_file(all, &alloc, &f)))
				free(f.path);
		}
		free(seq);
		free(dir);
	}
	closedir(d);
	free(root);
	if (r)
		pool_backup_set_free(all);
	return r;
}

/* The pool a file belongs to: the uuid its text records, else (unreadable)
 * the uuid of the directory it lies in, else "". */
static const char *owner(const struct pool_backup_file *f)
{
	return f->uuid[0] ? f->uuid : f->dir_uuid;
}

static int cmp_file(const void *a, const void *b)
{
	const struct pool_backup_file *x = a, *y = b;
	int c = strcmp(owner(x), owner(y));

	if (c)
		return c;
	if (x->seqno != y->seqno)
		return x->seqno < y->seqno ? -1 : 1;
	/* the file in its own pool's directory first: it is the one kept */
	return (strcmp(y->dir_uuid, owner(y)) == 0) - (strcmp(x->dir_uuid, owner(x)) == 0);
}

/* Is U one of the N uuids in SET? */
static int in_set(char (*set)[VG_UUID_LEN + 1], size_t n, const char *u)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(set[i], u))
			return 1;
	return 0;
}

int pool_backup_find(const char *name, const char *uuid, struct pool_backup_set *s)
{
	struct pool_backup_set all;
	char (*pools)[VG_UUID_LEN + 1] = NULL;
	size_t np = 0, alloc = 0;
	int r = scan_all(&all);

	memset(s, 0, sizeof(*s));
	if (r)
		return r;
	if (name && all.n && !(pools = calloc(all.n, sizeof(*pools)))) {
		pool_backup_set_free(&all);
		return -ENOMEM;
	}
	/* the pools that ever had NAME: their uuids */
	for (size_t i = 0; name && i < all.n; i++)
		if (all.f[i].uuid[0] && !strcmp(all.f[i].name, name) &&
		    !in_set(pools, np, all.f[i].uuid))
			snprintf(pools[np++], VG_UUID_LEN + 1, "%s", all.f[i].uuid);
	for (size_t i = 0; i < all.n && !r; i++) {
		struct pool_backup_file *f = &all.f[i];
		int take;

		if (uuid)
			take = !strcmp(owner(f), uuid);
		else
			take = f->uuid[0] ? in_set(pools, np, f->uuid)
					  : !strcmp(f->dir_name, name) || in_set(pools, np, f->dir_uuid);
		if (take && !(r = add_file(s, &alloc, f)))
			f->path = NULL;	/* S owns it now */
	}
	free(pools);
	pool_backup_set_free(&all);
	if (r) {
		pool_backup_set_free(s);
		return r;
	}
	if (s->n)
		qsort(s->f, s->n, sizeof(*s->f), cmp_file);
	/* a backup found twice (a copy the move to the new layout left, see
	 * pool_backup_migrate): the one in its pool's own directory */
	size_t o = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (o && s->f[o - 1].seqno == s->f[i].seqno && owner(&s->f[i])[0] &&
		    !strcmp(owner(&s->f[o - 1]), owner(&s->f[i]))) {
			free(s->f[i].path);
			continue;
		}
		s->f[o++] = s->f[i];
	}
	s->n = o;
	return 0;
}

void pool_backup_set_free(struct pool_backup_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->f[i].path);
	free(s->f);
	memset(s, 0, sizeof(*s));
}

uint64_t pool_backup_newest_seqno(const char *uuid)
{
	struct pool_backup_set s;
	uint64_t top = 0;

	if (pool_backup_find(NULL, uuid, &s))
		return 0;
	for (size_t i = 0; i < s.n; i++)
		top = TP_MAX(top, s.f[i].seqno);
	pool_backup_set_free(&s);
	return top;
}

/* ---- the first layout: backup/<pool name>/ ---- */

/* Are files A and B byte for byte the same? */
static int same_content(const char *a, const char *b)
{
	char *x = NULL, *y = NULL;
	size_t lx, ly;
	int same = !pool_backup_read_file(a, &x, &lx) && !pool_backup_read_file(b, &y, &ly) &&
		   lx == ly && !memcmp(x, y, lx);

	free(x);
	free(y);
	return same;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

void pool_backup_migrate(const char *name)
{
	char *root = pool_backup_root(), *dir = NULL;
	uint64_t *seq = NULL;
	size_t n = 0;
	unsigned moved = 0;

	/* a directory named like a uuid is this layout's (a pool named like
	 * a uuid keeps its old directory: it is still read) */
	if (!root || !vg_name_valid(name, NULL) || vg_uuid_valid(name) ||
	    !(dir = tp_path_join(root, name)) || list_dir(dir, &seq, &n) || !n)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char pname[VG_NAME_MAX + 1], uuid[VG_UUID_LEN + 1];
		char *from = backup_file(dir, seq[i]), *to_dir = NULL, *to = NULL;

		/* a file that does not say whose it is stays where it is */
		if (from && !peek_file(from, pname, uuid) && (to_dir = tp_path_join(root, uuid)) &&
		    (to = backup_file(to_dir, seq[i])) && !tp_mkdir_p(to_dir)) {
			/* link, never rename: a file of that seqno there is
			 * never replaced; a copy of it is dropped */
			if (!link(from, to) || (errno == EEXIST && same_content(from, to))) {
				sync_dir(to_dir);
				if (!unlink(from))
					moved++;
			}
		}
		free(from);
		free(to_dir);
		free(to);
	}
	if (moved) {
		sync_dir(dir);
		log_info("moved %u VG metadata backup%s from %s to the directory of each one's "
			 "pool uuid", moved, moved > 1 ? "s" : "", dir);
	}
	(void)rmdir(dir);	/* fails, harmlessly, when a file stayed */
out:
	free(seq);
	free(dir);
	free(root);
}
