/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host_backup.c - VG metadata backups in the config dir, one directory
 * per pool uuid; the first layout's directories (one per pool name) are
 * read too, and emptied into the new one by the commits of their pools.
 * See host.h. */
#include "lib/pool/host/host.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_delta.h"

#include "lib/base/atomic.h"
#include "lib/base/compiler.h"
#include "lib/base/config.h"
#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/base/paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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

/* A backup file of a directory: its seqno, and whether it is a delta
 * (SEQNO.vgd) or a whole text (SEQNO.vg). */
struct bent {
	uint64_t seq;
	int delta;
};

/* Is NAME "<20 digits>.vg" or "<20 digits>.vgd"? Then its seqno into
 * *SEQ and its kind into *DELTA. */
static int parse_name(const char *name, uint64_t *seq, int *delta)
{
	size_t len = strlen(name);
	char *end;
	unsigned long long v;

	if (len == SEQ_DIGITS + 3 && !strcmp(name + SEQ_DIGITS, ".vg"))
		*delta = 0;
	else if (len == SEQ_DIGITS + 4 && !strcmp(name + SEQ_DIGITS, ".vgd"))
		*delta = 1;
	else
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

static int cmp_bent(const void *a, const void *b)
{
	const struct bent *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->delta - y->delta;
}

/* The backup files in directory DIR, by seqno ascending, one a seqno (a
 * whole text before a delta of the same seqno, which only a crash between
 * a write and the unlink after it leaves). */
static char *backup_file(const char *dir, uint64_t seqno, int delta);
static int read_raw(const char *file, char **text, size_t *len);
static int is_delta(const char *buf, size_t len);
static int peek_text(const char *text, size_t len, char name[VG_NAME_MAX + 1],
		     char uuid[VG_UUID_LEN + 1]);

/* DIR holds SEQNO.vg and SEQNO.vgd: is the whole one a backup of DIR's
 * pool (a text, not a delta, of the uuid DIR is named for when it is
 * named for one)? A stray or foreign SEQNO.vg must not hide the pool's
 * own SEQNO.vgd (a hostile trial of issue 40 found --list-backups and
 * tpcheck blind to the delta). */
static int whole_belongs(const char *dir, uint64_t seqno)
{
	const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	char name[VG_NAME_MAX + 1], uuid[VG_UUID_LEN + 1];
	char *file = backup_file(dir, seqno, 0), *text = NULL;
	size_t len = 0;
	int ok = file && !read_raw(file, &text, &len) && !is_delta(text, len) &&
		 peek_text(text, len < PEEK_BYTES ? len : PEEK_BYTES, name, uuid) &&
		 (!vg_uuid_valid(base) || !strcmp(uuid, base));

	free(text);
	free(file);
	return ok;
}

static int list_dir(const char *dir, struct bent **out, size_t *n)
{
	DIR *d;
	struct dirent *de;
	struct bent *v = NULL;
	size_t nr = 0, alloc = 0;
	int r = 0;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct bent e;

		if (!parse_name(de->d_name, &e.seq, &e.delta))
			continue;
		if (nr == alloc) {
			size_t a = alloc ? 2 * alloc : 64;
			struct bent *p = realloc(v, a * sizeof(*p));
			if (!p) {
				r = -ENOMEM;
				break;
			}
			v = p;
			alloc = a;
		}
		v[nr++] = e;
	}
	closedir(d);
	if (r) {
		free(v);
		return r;
	}
	if (nr) {
		size_t o = 0;

		qsort(v, nr, sizeof(*v), cmp_bent);
		for (size_t i = 0; i < nr; i++) {
			if (!o || v[o - 1].seq != v[i].seq)
				v[o++] = v[i];
			else if (v[i].delta && !v[o - 1].delta && !whole_belongs(dir, v[i].seq))
				v[o - 1] = v[i];	/* the delta, not the stray whole */
		}
		nr = o;
	}
	*out = v;
	*n = nr;
	return 0;
}

int pool_backup_list(const char *uuid, uint64_t **seqnos, size_t *n)
{
	struct bent *e = NULL;
	size_t nr = 0;
	char *dir;
	int r;

	*seqnos = NULL;
	*n = 0;
	if (!vg_uuid_valid(uuid))
		return -EINVAL;
	if (!(dir = pool_backup_dir(uuid)))
		return -ENOMEM;
	r = list_dir(dir, &e, &nr);
	free(dir);
	if (!r && nr && !(*seqnos = malloc(nr * sizeof(**seqnos))))
		r = -ENOMEM;
	for (size_t i = 0; !r && i < nr; i++)
		(*seqnos)[i] = e[i].seq;
	if (!r)
		*n = nr;
	free(e);
	return r;
}

static char *backup_file(const char *dir, uint64_t seqno, int delta)
{
	char name[SEQ_DIGITS + 8];

	snprintf(name, sizeof(name), "%0*" PRIu64 ".vg%s", SEQ_DIGITS, seqno, delta ? "d" : "");
	return tp_path_join(dir, name);
}

char *pool_backup_path(const char *uuid, uint64_t seqno)
{
	char *dir = pool_backup_dir(uuid), *file = NULL;

	if (dir && (file = backup_file(dir, seqno, 1)) && access(file, F_OK)) {
		free(file);
		file = backup_file(dir, seqno, 0);
	}
	free(dir);
	return file;
}

/* ---- deltas: SEQNO.vgd ---- */

/* A delta's first line (how a reader tells one, whatever its file name). */
#define DELTA_COMMENT "# tptools VG metadata backup delta: the text of the commit below is " \
		      "the base backup (in this directory) with the delta after this header " \
		      "applied; see tp-metadata(5)\n"
/* A whole text is kept after at most this many deltas of it. */
#define DELTA_RUN 25u
/* A delta is written when it is at most an eighth of the text, or this. */
#define DELTA_SMALL 4096u
#define HEAD_MAX 1024u
/* A text shorter than this is always written whole: up to a few pages, a
 * whole text costs about what a delta does (one fsync either way) and
 * needs no other file to be read. */
#define DELTA_MIN_TEXT (64u << 10)

static size_t delta_min_text(void)
{
#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
	/* test hook (test builds only): TP_TEST_BACKUP_DELTA_MIN=BYTES, so
	 * that the tests' small pools write deltas (0: every text) */
	const char *e = getenv("TP_TEST_BACKUP_DELTA_MIN");

	if (e && *e)
		return (size_t)strtoull(e, NULL, 10);
#endif
	return DELTA_MIN_TEXT;
}

/* A delta's header: whose and which commit it is, the base it applies to
 * (SEQNO.vg of the same directory) and the text it makes. */
struct dhead {
	char name[VG_NAME_MAX + 1];
	char uuid[VG_UUID_LEN + 1];
	uint64_t seqno, base_seqno, base_len, len, dlen;
	uint32_t base_crc, crc;
};

static int peek_text(const char *text, size_t len, char name[VG_NAME_MAX + 1],
		     char uuid[VG_UUID_LEN + 1]);

static uint32_t crc_of(const void *buf, size_t len)
{
	return tp_crc32c(0xffffffffu, buf, len) ^ 0xffffffffu;
}

/* H as its header text into BUF (HEAD_MAX bytes): its length. */
static size_t render_head(const struct dhead *h, char *buf)
{
	int n = snprintf(buf, HEAD_MAX, DELTA_COMMENT
			 "pool {\n\tname = \"%s\"\n\tuuid = \"%s\"\n\tseqno = %" PRIu64 "\n}\n"
			 "base {\n\tseqno = %" PRIu64 "\n\tlength = %" PRIu64 "\n"
			 "\tcrc32c = 0x%08" PRIx32 "\n}\n"
			 "result {\n\tlength = %" PRIu64 "\n\tcrc32c = 0x%08" PRIx32 "\n}\n"
			 "delta = %" PRIu64 "\n",
			 h->name, h->uuid, h->seqno, h->base_seqno, h->base_len, h->base_crc,
			 h->len, h->crc, h->dlen);

	return n > 0 && (size_t)n < HEAD_MAX ? (size_t)n : 0;
}

/* Does BUF (LEN bytes) begin as a delta does? */
static int is_delta(const char *buf, size_t len)
{
	size_t c = strlen(DELTA_COMMENT);

	return len >= c && !memcmp(buf, DELTA_COMMENT, c);
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* The header at the start of BUF (LEN bytes) into H, its length into
 * *HLEN: 1, or 0 for anything but the exact form render_head writes (a
 * valid name and uuid, the base older than the commit, the delta's
 * length the rest of the file's; LEN may be the first part of a file
 * when FILE_LEN is the whole length). */
static int parse_head(const char *buf, size_t len, uint64_t file_len, struct dhead *h,
		      size_t *hlen)
{
	char copy[HEAD_MAX], again[HEAD_MAX];
	size_t n = len < HEAD_MAX - 1 ? len : HEAD_MAX - 1, k;
	int end = -1;

	memset(h, 0, sizeof(*h));
	if (!is_delta(buf, len))
		return 0;
	memcpy(copy, buf, n);
	copy[n] = '\0';
	if (sscanf(copy + strlen(DELTA_COMMENT),
		   "pool {\n\tname = \"%" STR(VG_NAME_MAX) "[^\"]\"\n\tuuid = \"%" STR(VG_UUID_LEN)
		   "[^\"]\"\n\tseqno = %" SCNu64 "\n}\nbase {\n\tseqno = %" SCNu64
		   "\n\tlength = %" SCNu64 "\n\tcrc32c = 0x%8" SCNx32 "\n}\nresult {\n\tlength = %"
		   SCNu64 "\n\tcrc32c = 0x%8" SCNx32 "\n}\ndelta = %" SCNu64 "%n",
		   h->name, h->uuid, &h->seqno, &h->base_seqno, &h->base_len, &h->base_crc,
		   &h->len, &h->crc, &h->dlen, &end) != 9 || end < 0)
		return 0;
	k = strlen(DELTA_COMMENT) + (size_t)end;
	if (k >= n || copy[k] != '\n')
		return 0;
	*hlen = k + 1;
	return render_head(h, again) == *hlen && !memcmp(again, buf, *hlen) &&
	       vg_uuid_valid(h->uuid) && vg_name_valid(h->name, NULL) &&
	       h->base_seqno < h->seqno && h->dlen == file_len - *hlen;
}

/* FILE's bytes into a malloc'd NUL-terminated *TEXT, *LEN: 0 or -errno;
 * -EINVAL for what is not a regular file. */
static int read_raw(const char *file, char **text, size_t *len)
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
	buf = malloc(tp_alloc_class((size_t)stt.st_size + 1));	/* (a text's class) */
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

/* The path of the base of delta FILE: BASE.vg beside it (caller frees). */
static char *base_path(const char *file, uint64_t base)
{
	const char *slash = strrchr(file, '/');
	char name[SEQ_DIGITS + 8], *p;
	size_t d = slash ? (size_t)(slash - file) + 1 : 0;

	snprintf(name, sizeof(name), "%0*" PRIu64 ".vg", SEQ_DIGITS, base);
	if ((p = malloc(d + strlen(name) + 1))) {
		memcpy(p, file, d);
		strcpy(p + d, name);
	}
	return p;
}

/* The text delta FILE (its bytes BUF, LEN) makes, checked, into *TEXT and
 * *OUT_LEN: 0; -EUCLEAN, WHY saying what does not match (the header, the
 * base: missing, damaged, another text; the delta; the text it makes);
 * -ENOMEM. Quiet. */
static int apply_file(const char *file, const char *buf, size_t len, char **text,
		      size_t *out_len, char *why, size_t wlen)
{
	struct tp_log_capture quiet, *outer;
	char name[VG_NAME_MAX + 1], uuid[VG_UUID_LEN + 1];
	char *bpath = NULL, *base = NULL, *res = NULL;
	const char *bname;
	struct dhead h;
	size_t hlen, blen = 0, rlen = 0;
	int r;

	*text = NULL;
	if (!parse_head(buf, len, len, &h, &hlen)) {
		snprintf(why, wlen, "%s: a VG metadata backup delta whose header is malformed",
			 file);
		return -EUCLEAN;
	}
	if (!(bpath = base_path(file, h.base_seqno)))
		return -ENOMEM;
	bname = strrchr(bpath, '/') ? strrchr(bpath, '/') + 1 : bpath;
	if ((r = read_raw(bpath, &base, &blen))) {
		if (r != -ENOMEM) {	/* the delta is there: its text is not */
			snprintf(why, wlen, "%s: a delta of the backup %s beside it, which cannot be "
				 "read: %s", file, bname,
				 r == -EINVAL ? "not a regular file" : strerror(-r));
			r = -EUCLEAN;
		}
		goto out;
	}
	r = -EUCLEAN;
	if (blen != h.base_len || crc_of(base, blen) != h.base_crc) {
		snprintf(why, wlen, "%s: a delta of the backup %s beside it, which is not the text "
			 "it was made from (%" PRIu64 " bytes, crc32c 0x%08" PRIx32 "; it has %zu "
			 "bytes%s): damaged, or another file", file, bname, h.base_len,
			 h.base_crc, blen, blen == h.base_len ? ", another crc32c" : "");
		goto out;
	}
	outer = tp_log_capture_push(&quiet);	/* the codec's message: WHY says it */
	r = vg_delta_apply(base, blen, buf + hlen, (size_t)h.dlen, (size_t)h.len, &res, &rlen);
	tp_log_capture_pop(outer);
	if (r == -EUCLEAN)
		snprintf(why, wlen, "%s: its delta from the backup %s beside it is malformed", file,
			 bname);
	if (r)
		goto out;
	r = -EUCLEAN;
	if (rlen != h.len || crc_of(res, rlen) != h.crc) {
		snprintf(why, wlen, "%s: the text its delta makes from the backup %s beside it is "
			 "not the one it records (length %" PRIu64 ", crc32c 0x%08" PRIx32 "): the "
			 "delta is damaged", file, bname, h.len, h.crc);
		goto out;
	}
	if (!peek_text(res, rlen < PEEK_BYTES ? rlen : PEEK_BYTES, name, uuid) ||
	    strcmp(uuid, h.uuid)) {
		snprintf(why, wlen, "%s: the text its delta makes from the backup %s beside it is "
			 "not of the pool uuid its header records, %s", file, bname, h.uuid);
		goto out;
	}
	*text = res;
	*out_len = rlen;
	res = NULL;
	r = 0;
out:
	free(res);
	free(base);
	free(bpath);
	return r;
}

int pool_backup_read_why(const char *file, char **text, size_t *len, char *why, size_t wlen)
{
	char *buf;
	size_t blen;
	int r;

	*text = NULL;
	if (wlen)
		why[0] = '\0';
	if ((r = read_raw(file, &buf, &blen)))
		return r;
	if (!is_delta(buf, blen)) {
		*text = buf;
		*len = blen;
		return 0;
	}
	r = apply_file(file, buf, blen, text, len, why, wlen);
	free(buf);
	return r;
}

int pool_backup_read_file(const char *file, char **text, size_t *len)
{
	char why[3 * PATH_MAX];
	int r = pool_backup_read_why(file, text, len, why, sizeof(why));

	if (r == -EUCLEAN)
		log_error("%s", why);
	return r;
}

int pool_backup_delta_base(const char *file, uint64_t *base)
{
	char buf[HEAD_MAX];
	struct dhead h;
	struct stat st;
	size_t hlen;
	ssize_t got;
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ok = 0;

	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (got = pread(fd, buf, sizeof(buf), 0)) > 0 &&
	    parse_head(buf, (size_t)got, (uint64_t)st.st_size, &h, &hlen)) {
		*base = h.base_seqno;
		ok = 1;
	}
	close(fd);
	return ok;
}

int pool_backup_name_seqno(const char *file, uint64_t *seqno)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	int delta;

	return parse_name(base, seqno, &delta);
}

/* ---- writing and pruning ---- */

/* tptools.conf backup/max_size in bytes (POOL_BACKUP_MAX_BYTES unset). */
static uint64_t max_bytes(void)
{
	const char *v = tp_config_str("backup/max_size");
	uint64_t b;

	if (!v || tp_size_parse(v, 'm', &b, NULL, 0) || !b)
		return POOL_BACKUP_MAX_BYTES;
	return b;
}

static uint64_t file_size(const char *dir, const struct bent *e)
{
	char *f = backup_file(dir, e->seq, e->delta);
	struct stat st;
	uint64_t s = 0;

	if (f && !stat(f, &st))
		s = (uint64_t)st.st_size;
	free(f);
	return s;
}

/* The index in E (before I) of the whole text delta E[I] applies to, or
 * -1 (none there, or a header that does not say). */
static long base_index(const char *dir, const struct bent *e, size_t i)
{
	char *f = backup_file(dir, e[i].seq, 1);
	uint64_t base;
	int ok = f && pool_backup_delta_base(f, &base);

	free(f);
	for (size_t j = i; ok && j-- > 0;)
		if (e[j].seq == base)
			return e[j].delta ? -1 : (long)j;
	return -1;
}

int pool_backup_prune(const char *uuid, unsigned keep)
{
	uint64_t total = 0, cap = max_bytes();
	struct bent *e = NULL;
	char *dir, *kept = NULL;
	size_t n = 0, c = 0;
	int r;

	if (!vg_uuid_valid(uuid))
		return -EINVAL;
	if (!(dir = pool_backup_dir(uuid)))
		return -ENOMEM;
	r = list_dir(dir, &e, &n);
	if (!r && n && !(kept = calloc(n, 1)))
		r = -ENOMEM;
	/* the newest KEEP, fewer past the byte cap counted from the newest
	 * (whose POOL_BACKUP_MIN stay whatever their size), and the whole
	 * text each kept delta applies to (its bytes counted with it) */
	for (size_t i = n; !r && i-- > 0 && c < keep;) {
		uint64_t size;
		long b = -1;

		if (kept[i]) {	/* a base already kept, and counted */
			c++;
			continue;
		}
		size = file_size(dir, &e[i]);
		if (e[i].delta && (b = base_index(dir, e, i)) >= 0 && !kept[b])
			size += file_size(dir, &e[b]);
		if (total + size > cap && c >= POOL_BACKUP_MIN)
			break;
		kept[i] = 1;
		if (b >= 0)
			kept[b] = 1;
		total += size;
		c++;
	}
	for (size_t i = 0; !r && i < n; i++) {
		for (int k = 0; k < 2 && !kept[i] && !r; k++) {	/* both names of a seqno */
			char *f = backup_file(dir, e[i].seq, k);
			if (!f)
				r = -ENOMEM;
			else if (unlink(f) && errno != ENOENT)
				r = -errno;
			free(f);
		}
	}
	free(kept);
	free(dir);
	free(e);
	return r;
}

/* tptools.conf backup/keep (POOL_BACKUP_KEEP unset). */
static unsigned backup_keep(void)
{
	long long k = tp_config_int("backup/keep");

	return k > 0 ? (unsigned)k : POOL_BACKUP_KEEP;
}

/* TEXT (LEN bytes) of commit SEQNO of pool UUID (NAME) as a delta in DIR
 * (whose files are E, N entries) from its newest whole text, when TEXT
 * is not small, that one is of this pool, not more than a run of deltas
 * old and the delta small: 1 written, 0 not (the caller writes the whole text), -errno
 * (logged by tp_atomic_replace). */
static int write_delta(const char *dir, const char *uuid, const char *name, uint64_t seqno,
		       const char *text, size_t len, unsigned keep, const struct bent *e, size_t n)
{
	char pname[VG_NAME_MAX + 1], puuid[VG_UUID_LEN + 1];
	char *bpath = NULL, *base = NULL, *file = NULL, *out = NULL;
	unsigned run = TP_MAX(1u, TP_MIN(DELTA_RUN, keep / 2)), since = 0;
	size_t blen, dlen, hlen;
	void *d = NULL;
	struct dhead h;
	long b = -1;
	int r = 0;

	if (len < delta_min_text())
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].seq == seqno && !e[i].delta)
			return 0;	/* a whole text of this seqno is never turned into a delta */
		if (e[i].seq < seqno && !e[i].delta)
			b = (long)i;
	}
	if (b < 0)
		return 0;
	for (size_t i = (size_t)b + 1; i < n; i++)
		since += e[i].delta && e[i].seq != seqno;
	if (since >= run || vg_name_valid(name, NULL) == 0 || strlen(name) > VG_NAME_MAX)
		return 0;
	if (!(bpath = backup_file(dir, e[b].seq, 0)) || read_raw(bpath, &base, &blen) ||
	    is_delta(base, blen) || !peek_text(base, blen < PEEK_BYTES ? blen : PEEK_BYTES, pname,
						 puuid) || strcmp(puuid, uuid))
		goto out;
	if (vg_delta_encode(base, blen, text, len, TP_MAX(len / 8, (size_t)DELTA_SMALL), &d, &dlen))
		goto out;
	/* checked before it is written: what it makes is the text */
	if (vg_delta_verify(base, blen, d, dlen, text, len)) {
		log_debug(TP_DBG_POOL, "pool %s: the backup delta of seqno %" PRIu64 " does not give its text "
			  "back; the whole text is written", name, seqno);
		goto out;
	}
	memset(&h, 0, sizeof(h));
	snprintf(h.name, sizeof(h.name), "%s", name);
	snprintf(h.uuid, sizeof(h.uuid), "%s", uuid);
	h.seqno = seqno;
	h.base_seqno = e[b].seq;
	h.base_len = blen;
	h.base_crc = crc_of(base, blen);
	h.len = len;
	h.crc = crc_of(text, len);
	h.dlen = dlen;
	if (!(out = malloc(HEAD_MAX + dlen)) || !(hlen = render_head(&h, out)) ||
	    !(file = backup_file(dir, seqno, 1))) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(out + hlen, d, dlen);
	r = tp_atomic_replace(file, ".tmp.vgd", 0600, out, hlen + dlen);
	if (!r)
		r = 1;
out:
	free(out);
	free(file);
	free(d);
	free(base);
	free(bpath);
	return r;
}

int pool_backup_write(const char *uuid, const char *name, uint64_t seqno, const char *text,
		      size_t len, unsigned keep)
{
	char *dir = NULL, *file = NULL;
	struct bent *e = NULL;
	size_t n = 0;
	int r, logged = 0;

	if (!vg_uuid_valid(uuid))
		return -EINVAL;
	if (!keep)
		keep = backup_keep();
	dir = pool_backup_dir(uuid);
	file = dir ? backup_file(dir, seqno, 0) : NULL;
	if (!dir || !file) {
		r = -ENOMEM;
		goto out;
	}
	r = tp_mkdir_p(dir);
	if (!r)
		r = list_dir(dir, &e, &n);
	if (r)
		goto out;
	r = write_delta(dir, uuid, name, seqno, text, len, keep, e, n);
	if (r < 0) {
		logged = 1;	/* tp_atomic_replace names the file and the step */
		goto out;
	}
	if (!r) {
		r = tp_atomic_replace(file, ".tmp.vg", 0600, text, len);
		logged = r != 0;
		if (!r) {	/* a delta of this seqno written before is replaced */
			char *d = backup_file(dir, seqno, 1);
			if (d && unlink(d) && errno != ENOENT)
				log_debug(TP_DBG_POOL, "%s: %s", d, strerror(errno));
			free(d);
		}
	} else {
		r = 0;
	}
	if (!r)
		r = pool_backup_prune(uuid, keep);
out:
	if (r && !logged)
		log_error("pool %s: cannot write VG metadata backup %s: %s", name,
			  file ? file : "", strerror(-r));
	free(e);
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
	if (!(d = malloc(tp_alloc_class(n + *len + 1))))
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
	if ((r = pool_backup_read_why(file, &text, &len, NULL, 0)))
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
		struct bent *seq;
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
			f.seqno = seq[i].seq;
			if (vg_uuid_valid(de->d_name))
				snprintf(f.dir_uuid, sizeof(f.dir_uuid), "%.*s", VG_UUID_LEN,
					 de->d_name);
			else	/* a valid pool name: at most VG_NAME_MAX */
				snprintf(f.dir_name, sizeof(f.dir_name), "%.*s", VG_NAME_MAX,
					 de->d_name);
			if (!(f.path = backup_file(dir, seq[i].seq, seq[i].delta))) {
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
	int same = !read_raw(a, &x, &lx) && !read_raw(b, &y, &ly) &&
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
	struct bent *seq = NULL;
	size_t n = 0;
	unsigned moved = 0;

	/* a directory named like a uuid is this layout's (a pool named like
	 * a uuid keeps its old directory: it is still read) */
	if (!root || !vg_name_valid(name, NULL) || vg_uuid_valid(name) ||
	    !(dir = tp_path_join(root, name)) || list_dir(dir, &seq, &n) || !n)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char pname[VG_NAME_MAX + 1], uuid[VG_UUID_LEN + 1];
		char *from = backup_file(dir, seq[i].seq, seq[i].delta), *to_dir = NULL, *to = NULL;

		/* a file that does not say whose it is stays where it is */
		if (from && !peek_file(from, pname, uuid) && (to_dir = tp_path_join(root, uuid)) &&
		    (to = backup_file(to_dir, seq[i].seq, seq[i].delta)) && !tp_mkdir_p(to_dir)) {
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
