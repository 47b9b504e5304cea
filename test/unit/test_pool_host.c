/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/pool's files in the config dir (host.h): VG backups (atomic write,
 * list, read, prune, one per pool commit) and the devices file (add/replace/remove/lookup, hand-made
 * lines kept), and finding a pool by labels when its entry is lost. */
#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "lib/pool/host/host.h"
#include "test/unit/test_vg_fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static char cfgdir[600];

/* A fresh, empty config dir per test. */
static void fresh_dir(const char *name)
{
	snprintf(cfgdir, sizeof(cfgdir), "%s/pool-host-%s", tp_test_tmpdir(), name);
	setenv("TPTOOLS_DIR", cfgdir, 1);
}

static unsigned count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			n++;
	closedir(d);
	return n;
}

#define U1 "11111111-2222-4333-8444-555555555555"
#define U2 "22222222-2222-4333-8444-555555555555"
#define U3 "33333333-2222-4333-8444-555555555555"

/* The text of backup SEQNO in UUID's directory (caller frees), or NULL. */
static char *read_backup(const char *uuid, uint64_t seqno)
{
	char *path = pool_backup_path(uuid, seqno), *t = NULL;
	size_t len;

	if (path && pool_backup_read_file(path, &t, &len))
		t = NULL;
	free(path);
	return t;
}

static void test_backup(void)
{
	uint64_t *seq;
	size_t n;
	char text[64], *t, *dir;
	uint64_t s;

	fresh_dir("backup");
	CU_ASSERT_EQUAL(pool_backup_list(U1, &seq, &n), 0);	/* no dir yet */
	CU_ASSERT_EQUAL(n, 0);
	free(seq);
	for (s = 1; s <= 60; s++) {
		snprintf(text, sizeof(text), "commit %llu\n", (unsigned long long)s);
		CU_ASSERT_EQUAL_FATAL(pool_backup_write(U1, "vault", s, text, strlen(text), 0), 0);
	}
	CU_ASSERT_EQUAL(pool_backup_list(U1, &seq, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, POOL_BACKUP_KEEP);
	CU_ASSERT_EQUAL(seq[0], 60 - POOL_BACKUP_KEEP + 1);
	CU_ASSERT_EQUAL(seq[n - 1], 60);
	free(seq);
	dir = pool_backup_dir(U1);
	CU_ASSERT_EQUAL(count_files(dir), POOL_BACKUP_KEEP);	/* no temp file left */
	CU_ASSERT_PTR_NOT_NULL(strstr(dir, cfgdir));
	CU_ASSERT_PTR_NOT_NULL(strstr(dir, "/backup/" U1));
	free(dir);
	t = read_backup(U1, 60);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "commit 60\n");
	free(t);
	CU_ASSERT_PTR_NULL(read_backup(U1, 5));	/* pruned */
	/* rewriting a seqno replaces it; an explicit keep prunes further */
	CU_ASSERT_EQUAL(pool_backup_write(U1, "vault", 60, "again", 5, 3), 0);
	CU_ASSERT_EQUAL(pool_backup_list(U1, &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	free(seq);
	t = read_backup(U1, 60);
	CU_ASSERT_STRING_EQUAL(t, "again");
	free(t);
	/* pools are kept apart by uuid, whatever their names: another pool
	 * of the same name neither overwrites nor prunes these */
	CU_ASSERT_EQUAL(pool_backup_write(U2, "vault", 60, "o", 1, 1), 0);
	CU_ASSERT_EQUAL(pool_backup_list(U1, &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	free(seq);
	t = read_backup(U1, 60);
	CU_ASSERT_STRING_EQUAL(t, "again");
	free(t);
	/* bad uuids refused */
	CU_ASSERT_EQUAL(pool_backup_write("vault", "vault", 1, "o", 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(pool_backup_write("../x", "x", 1, "o", 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(pool_backup_list("a/b", &seq, &n), -EINVAL);
	CU_ASSERT_EQUAL(pool_backup_prune(U1, 0), 0);
	CU_ASSERT_EQUAL(pool_backup_list(U1, &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(seq);
}

/* The backup of a commit: one file per seqno in the directory of the
 * pool's uuid, holding that commit's text. */
static void test_backup_commit(void)
{
	struct vg *vg = fx_vg(), *b;
	uint64_t *seq;
	char *t;

	fresh_dir("commit");
	vg->seqno = 1;
	pool_backup_commit(vg);
	vg->seqno = 2;
	vg->transaction_id++;
	pool_backup_commit(vg);
	{
		size_t n;
		CU_ASSERT_EQUAL(pool_backup_list(FX_POOL_UUID, &seq, &n), 0);
		CU_ASSERT_EQUAL(n, 2);
		if (n == 2)
			CU_ASSERT(seq[0] == 1 && seq[1] == 2);
		free(seq);
	}
	t = read_backup(FX_POOL_UUID, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL_FATAL(vg_import(t, strlen(t), &b), 0);
	CU_ASSERT_EQUAL(b->seqno, 2);
	CU_ASSERT_EQUAL(b->transaction_id, vg->transaction_id);
	CU_ASSERT_EQUAL(pool_backup_newest_seqno(FX_POOL_UUID), 2);
	vg_free(b);
	free(t);
	vg_free(vg);
}

/* ---- delta backups ---- */

/* The text of fixture pool UUID at commit SEQNO (caller frees); EXTRA
 * bytes of a comment line appended (a large change). */
static char *delta_text(const char *uuid, uint64_t seqno, size_t extra, size_t *len)
{
	struct vg *vg = fx_vg();
	char *text = NULL, *big;

	snprintf(vg->uuid, sizeof(vg->uuid), "%s", uuid);
	vg->seqno = seqno;
	vg->transaction_id = seqno;
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &text, len), 0);
	vg_free(vg);
	if (!extra)
		return text;
	big = malloc(*len + extra + 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memcpy(big, text, *len);
	big[*len] = '#';
	memset(big + *len + 1, 'x', extra);
	memcpy(big + *len + 1 + extra, "\n", 2);
	*len += extra + 2;
	free(text);
	return big;
}

/* Is there a file of seqno SEQNO in UUID's directory, DELTA its kind? */
static int has_kind(const char *uuid, uint64_t seqno, int delta)
{
	char *dir = pool_backup_dir(uuid), path[1024];
	int yes;

	snprintf(path, sizeof(path), "%s/%020llu.vg%s", dir, (unsigned long long)seqno,
		 delta ? "d" : "");
	yes = !access(path, F_OK);
	free(dir);
	return yes;
}

static void file_path(const char *uuid, uint64_t seqno, int delta, char *path, size_t size)
{
	char *dir = pool_backup_dir(uuid);

	snprintf(path, size, "%s/%020llu.vg%s", dir, (unsigned long long)seqno, delta ? "d" : "");
	free(dir);
}

static void put_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Reading delta PATH fails with -EUCLEAN, says why naming NEEDLE, gives
 * no text. */
static void assert_refused(const char *path, const char *needle)
{
	char why[8192], *t = (char *)"x";
	size_t len;

	CU_ASSERT_EQUAL(pool_backup_read_why(path, &t, &len, why, sizeof(why)), -EUCLEAN);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, needle));
	if (!strstr(why, needle))
		fprintf(stderr, "why: %s\n", why);
}

/* A commit after a whole text writes a delta of it, which reads back to
 * the exact text; a base damaged, missing, truncated or of another pool,
 * or a damaged delta, is an error naming both files, never a text. */
static void test_backup_delta(void)
{
	char path[1024], bpath[1024], *t1, *t2, *t, *other, *saved;
	size_t l1, l2, lo, ls, len;

	fresh_dir("delta");
	t1 = delta_text(FX_POOL_UUID, 1, 0, &l1);
	t2 = delta_text(FX_POOL_UUID, 2, 0, &l2);
	CU_ASSERT_EQUAL_FATAL(pool_backup_write(FX_POOL_UUID, "vault", 1, t1, l1, 0), 0);
	/* a text below 64 KiB is written whole */
	unsetenv("TP_TEST_BACKUP_DELTA_MIN");
	CU_ASSERT_EQUAL_FATAL(pool_backup_write(FX_POOL_UUID, "vault", 2, t2, l2, 0), 0);
	CU_ASSERT(has_kind(FX_POOL_UUID, 2, 0) && !has_kind(FX_POOL_UUID, 2, 1));
	/* (the tests' small texts: as a pool of many volumes) */
	setenv("TP_TEST_BACKUP_DELTA_MIN", "0", 1);
	{
		char *p2 = pool_backup_path(FX_POOL_UUID, 2);
		CU_ASSERT_EQUAL_FATAL(unlink(p2), 0);
		free(p2);
	}
	CU_ASSERT_EQUAL_FATAL(pool_backup_write(FX_POOL_UUID, "vault", 2, t2, l2, 0), 0);
	CU_ASSERT(has_kind(FX_POOL_UUID, 1, 0) && !has_kind(FX_POOL_UUID, 1, 1));
	CU_ASSERT(has_kind(FX_POOL_UUID, 2, 1) && !has_kind(FX_POOL_UUID, 2, 0));
	file_path(FX_POOL_UUID, 2, 1, path, sizeof(path));
	file_path(FX_POOL_UUID, 1, 0, bpath, sizeof(bpath));
	{
		char *p = pool_backup_path(FX_POOL_UUID, 2);
		CU_ASSERT_STRING_EQUAL(p, path);
		free(p);
	}
	CU_ASSERT_EQUAL_FATAL(pool_backup_read_file(path, &t, &len), 0);
	CU_ASSERT_EQUAL(len, l2);
	CU_ASSERT(len == l2 && !memcmp(t, t2, l2));
	CU_ASSERT_EQUAL(t[len], '\0');
	free(t);
	{	/* small: a header and a few bytes, not the text */
		struct stat st;
		CU_ASSERT(!stat(path, &st) && (size_t)st.st_size < 1024 && (size_t)st.st_size < l2);
	}
	/* found by uuid and by name, the newest seqno counted */
	CU_ASSERT_EQUAL(pool_backup_newest_seqno(FX_POOL_UUID), 2);
	{
		struct pool_backup_set s;
		CU_ASSERT_EQUAL_FATAL(pool_backup_find("vault", NULL, &s), 0);
		CU_ASSERT_EQUAL(s.n, 2);
		if (s.n == 2) {
			CU_ASSERT_STRING_EQUAL(s.f[1].path, path);
			CU_ASSERT_STRING_EQUAL(s.f[1].uuid, FX_POOL_UUID);
		}
		pool_backup_set_free(&s);
	}

	/* the base damaged: one byte */
	CU_ASSERT_EQUAL_FATAL(pool_backup_read_file(bpath, &saved, &ls), 0);
	saved[ls / 2] ^= 1;
	put_bytes(bpath, saved, ls);
	assert_refused(path, "00000000000000000001.vg");
	/* truncated */
	saved[ls / 2] ^= 1;
	put_bytes(bpath, saved, ls / 2);
	assert_refused(path, "damaged, or another file");
	/* another pool's text of the same seqno */
	other = delta_text(U2, 1, 0, &lo);
	put_bytes(bpath, other, lo);
	assert_refused(path, "00000000000000000001.vg");
	free(other);
	/* missing */
	CU_ASSERT_EQUAL(unlink(bpath), 0);
	assert_refused(path, "cannot be read");
	{	/* the listing's reader logs it, naming both */
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(pool_backup_read_file(path, &t, &len), -EUCLEAN);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, path));
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "00000000000000000001.vg"));
	}
	put_bytes(bpath, saved, ls);
	CU_ASSERT_EQUAL(pool_backup_read_file(path, &t, &len), 0);
	free(t);
	/* the delta itself damaged: its header, its last byte */
	{
		char *d;
		size_t dl;

		CU_ASSERT_EQUAL_FATAL(pool_backup_read_why(path, &t, &len, NULL, 0), 0);
		free(t);
		{
			int fd = open(path, O_RDONLY);
			struct stat st;
			CU_ASSERT_FATAL(fd >= 0 && !fstat(fd, &st));
			dl = (size_t)st.st_size;
			d = calloc(1, dl + 1);	/* NUL-terminated, for strstr */
			CU_ASSERT_PTR_NOT_NULL_FATAL(d);
			CU_ASSERT_EQUAL_FATAL(read(fd, d, dl), (ssize_t)dl);
			close(fd);
		}
		d[dl - 2] ^= 0x20;
		put_bytes(path, d, dl);
		{
			char why[8192];
			CU_ASSERT_EQUAL(pool_backup_read_why(path, &t, &len, why, sizeof(why)),
					-EUCLEAN);
			CU_ASSERT_PTR_NULL(t);
		}
		d[dl - 2] ^= 0x20;
		{	/* the header's crc changed: the text it makes does not match */
			char *c = strstr(d, "result {");
			CU_ASSERT_PTR_NOT_NULL_FATAL(c);
			char was;

			c = strstr(c, "crc32c = 0x");
			was = c[11];
			c[11] = was == '0' ? '1' : '0';
			put_bytes(path, d, dl);
			assert_refused(path, "the delta is damaged");
			c[11] = was;
		}
		{	/* a header that is not in its exact form */
			char *c = strstr(d, "seqno = 2");
			CU_ASSERT_PTR_NOT_NULL_FATAL(c);
			c[7] = '\t';
			put_bytes(path, d, dl);
			assert_refused(path, "header is malformed");
			c[7] = ' ';
		}
		put_bytes(path, d, dl);
		free(d);
	}
	CU_ASSERT_EQUAL(pool_backup_read_file(path, &t, &len), 0);
	CU_ASSERT(len == l2 && !memcmp(t, t2, l2));
	free(t);

	/* a large change: the whole text */
	{
		size_t l3;
		char *t3 = delta_text(FX_POOL_UUID, 3, 20000, &l3);
		CU_ASSERT_EQUAL(pool_backup_write(FX_POOL_UUID, "vault", 3, t3, l3, 0), 0);
		CU_ASSERT(has_kind(FX_POOL_UUID, 3, 0) && !has_kind(FX_POOL_UUID, 3, 1));
		free(t3);
	}
	/* a base of another pool (its uuid): the whole text */
	other = delta_text(U2, 4, 0, &lo);
	file_path(FX_POOL_UUID, 4, 0, bpath, sizeof(bpath));
	put_bytes(bpath, other, lo);
	free(other);
	{
		size_t l5;
		char *t5 = delta_text(FX_POOL_UUID, 5, 0, &l5);
		CU_ASSERT_EQUAL(pool_backup_write(FX_POOL_UUID, "vault", 5, t5, l5, 0), 0);
		CU_ASSERT(has_kind(FX_POOL_UUID, 5, 0) && !has_kind(FX_POOL_UUID, 5, 1));
		free(t5);
	}
	free(saved);
	free(t1);
	free(t2);
	unsetenv("TP_TEST_BACKUP_DELTA_MIN");
}

/* A whole text after every run of 25 deltas (so that the newest 50 hold
 * one); every kept backup reads back to its text; pruning keeps the base
 * of every kept delta, also past a small keep. */
static void test_backup_delta_prune(void)
{
	uint64_t *seq;
	size_t n, len, full = 0;
	char *texts[81] = { NULL };

	fresh_dir("delta-prune");
	setenv("TP_TEST_BACKUP_DELTA_MIN", "0", 1);
	for (uint64_t s = 1; s <= 80; s++) {
		texts[s] = delta_text(FX_POOL_UUID, s, 0, &len);
		CU_ASSERT_EQUAL_FATAL(pool_backup_write(FX_POOL_UUID, "vault", s, texts[s], len, 0),
				      0);
	}
	/* 1, 27, 53, 79 whole; the newest 50 (31..80) and 27, the base of 31..52 */
	for (uint64_t s = 1; s <= 80; s++) {
		int whole = s % 26 == 1, kept = s >= 27;

		CU_ASSERT_EQUAL(has_kind(FX_POOL_UUID, s, 0), kept && whole);
		CU_ASSERT_EQUAL(has_kind(FX_POOL_UUID, s, 1), kept && !whole && s > 30);
		full += kept && whole;
	}
	CU_ASSERT_EQUAL(full, 3);
	CU_ASSERT_EQUAL(pool_backup_list(FX_POOL_UUID, &seq, &n), 0);
	CU_ASSERT_EQUAL(n, POOL_BACKUP_KEEP + 1);
	for (size_t i = 0; i < n; i++) {
		char *p = pool_backup_path(FX_POOL_UUID, seq[i]), *t;
		size_t l;

		CU_ASSERT_EQUAL_FATAL(pool_backup_read_file(p, &t, &l), 0);
		CU_ASSERT(l == strlen(texts[seq[i]]) && !memcmp(t, texts[seq[i]], l));
		free(t);
		free(p);
	}
	free(seq);
	/* keep 3: the newest 3 (78..80: 79 whole) and 53, the base of 78 */
	CU_ASSERT_EQUAL(pool_backup_prune(FX_POOL_UUID, 3), 0);
	CU_ASSERT_EQUAL(pool_backup_list(FX_POOL_UUID, &seq, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT(seq[0] == 53 && seq[1] == 78 && seq[2] == 79 && seq[3] == 80);
	free(seq);
	/* a rewrite of a seqno kept as a whole text stays whole */
	CU_ASSERT_EQUAL(pool_backup_write(FX_POOL_UUID, "vault", 79, texts[79], strlen(texts[79]),
					  0), 0);
	CU_ASSERT(has_kind(FX_POOL_UUID, 79, 0) && !has_kind(FX_POOL_UUID, 79, 1));
	for (int s = 1; s <= 80; s++)
		free(texts[s]);
	unsetenv("TP_TEST_BACKUP_DELTA_MIN");
}

/* A backup a command wrote says which, in its first line: the command
 * line, a word with a space, a quote or a control character quoted; the
 * text still imports. Without a command line, no such line. */
static void test_backup_description(void)
{
	const char *words[] = { "tvrename", "vault/a", "b c", "say \"hi\"\\", "tab\there", "" };
	char big[3000];
	const char *long_words[] = { "tvcreate", big };
	struct vg *vg = fx_vg(), *b;
	char *t;

	fresh_dir("described");
	tp_log_set_command(6, words);
	CU_ASSERT_STRING_EQUAL(tp_log_command(),
			       "tvrename vault/a \"b c\" \"say \\\"hi\\\"\\\\\" \"tab?here\" \"\"");
	vg->seqno = 1;
	pool_backup_commit(vg);
	t = read_backup(FX_POOL_UUID, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(strncmp(t, "# description: after 'tvrename vault/a \"b c\" ", 45), 0);
	CU_ASSERT_EQUAL_FATAL(vg_import(t, strlen(t), &b), 0);
	CU_ASSERT_EQUAL(b->seqno, 1);
	vg_free(b);
	free(t);
	/* a long command line is cut, and says so */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tp_log_set_command(2, long_words);
	CU_ASSERT(strlen(tp_log_command()) < 1024);
	CU_ASSERT_STRING_EQUAL(tp_log_command() + strlen(tp_log_command()) - 4, "x...");
	/* no command line: no description */
	tp_log_set_command(0, NULL);
	CU_ASSERT_STRING_EQUAL(tp_log_command(), "");
	vg->seqno = 2;
	pool_backup_commit(vg);
	t = read_backup(FX_POOL_UUID, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NULL(strstr(t, "# description"));
	free(t);
	vg_free(vg);
}

/* The text of a backup of pool NAME (uuid UUID) at SEQNO, into a file
 * under the backup root at DIR/SEQNO.vg (DIR a name or a uuid). */
static void put_backup(const char *dir, const char *name, const char *uuid, uint64_t seqno)
{
	struct vg *vg = fx_vg();
	char *text, *root = pool_backup_root(), *d, file[64];
	size_t len;
	FILE *f;

	snprintf(vg->name, sizeof(vg->name), "%s", name);
	snprintf(vg->uuid, sizeof(vg->uuid), "%s", uuid);
	vg->seqno = seqno;
	CU_ASSERT_EQUAL_FATAL(vg_export(vg, &text, &len), 0);
	d = tp_path_join(root, dir);
	CU_ASSERT_EQUAL_FATAL(tp_mkdir_p(d), 0);
	snprintf(file, sizeof(file), "/%020llu.vg", (unsigned long long)seqno);
	{
		char *path = malloc(strlen(d) + sizeof(file));
		strcpy(path, d);
		strcat(path, file);
		f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fwrite(text, 1, len, f);
		fclose(f);
		free(path);
	}
	free(d);
	free(root);
	free(text);
	vg_free(vg);
}

static int has_file(const struct pool_backup_set *s, const char *uuid, uint64_t seqno,
		    const char *dir_part)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].uuid, uuid) && s->f[i].seqno == seqno &&
		    strstr(s->f[i].path, dir_part))
			return 1;
	return 0;
}

/* Backups are found by pool uuid or by a name any of a pool's backups
 * records, in both layouts, each by what its text says; a pool that had
 * the name is listed whole (its commits under other names too); the first
 * layout's directory is emptied into the uuid directories by a commit. */
static void test_backup_find(void)
{
	struct pool_backup_set s;
	char *root, *legacy, *bad;
	FILE *f;

	fresh_dir("find");
	/* U1: vault, then renamed to cellar; U2: a later vault, first layout */
	put_backup(U1, "vault", U1, 1);
	put_backup(U1, "cellar", U1, 2);
	put_backup("vault", "vault", U2, 1);
	put_backup("vault", "vault", U2, 2);
	put_backup("cellar", "cellar", U1, 2);	/* a copy left in both layouts */
	put_backup("vault.1700000000", "vault", U1, 3);	/* moved aside by an old tpcreate */
	put_backup(FX_POOL_UUID, "other", FX_POOL_UUID, 1);
	root = pool_backup_root();
	bad = malloc(strlen(root) + 100);
	sprintf(bad, "%s/vault/00000000000000000009.vg", root);
	f = fopen(bad, "w");	/* unreadable: belongs to the directory's name */
	fputs("not VG metadata {", f);
	fclose(f);

	CU_ASSERT_EQUAL_FATAL(pool_backup_find("vault", NULL, &s), 0);
	CU_ASSERT_EQUAL(s.n, 6);	/* U1 1 2 (once) 3, U2 1 2, the unreadable one */
	CU_ASSERT(has_file(&s, U1, 1, "/" U1 "/"));
	CU_ASSERT(has_file(&s, U1, 2, "/" U1 "/"));	/* recorded as cellar */
	CU_ASSERT(has_file(&s, U1, 3, "/vault.1700000000/"));
	CU_ASSERT(has_file(&s, U2, 1, "/vault/"));
	CU_ASSERT(has_file(&s, "", 9, "/vault/"));
	/* sorted: by uuid, then seqno; the unreadable one ("") first */
	CU_ASSERT_EQUAL(s.f[0].seqno, 9);
	CU_ASSERT_STRING_EQUAL(s.f[1].uuid, U1);
	CU_ASSERT_EQUAL(s.f[3].seqno, 3);
	CU_ASSERT_STRING_EQUAL(s.f[4].uuid, U2);
	pool_backup_set_free(&s);
	CU_ASSERT_EQUAL_FATAL(pool_backup_find("cellar", NULL, &s), 0);
	CU_ASSERT_EQUAL(s.n, 3);	/* U1 whole */
	pool_backup_set_free(&s);
	CU_ASSERT_EQUAL_FATAL(pool_backup_find(NULL, U2, &s), 0);
	CU_ASSERT_EQUAL(s.n, 2);
	pool_backup_set_free(&s);
	CU_ASSERT_EQUAL(pool_backup_newest_seqno(U1), 3);
	CU_ASSERT_EQUAL_FATAL(pool_backup_find("nosuch", NULL, &s), 0);
	CU_ASSERT_EQUAL(s.n, 0);
	pool_backup_set_free(&s);

	/* the move into the new layout: by each file's uuid; the copy that
	 * is already there (the same bytes) dropped, and its directory; the
	 * unreadable one stays */
	pool_backup_migrate("vault");
	legacy = tp_path_join(root, "vault");
	CU_ASSERT_EQUAL(count_files(legacy), 1);
	free(legacy);
	pool_backup_migrate("cellar");
	legacy = tp_path_join(root, "cellar");
	CU_ASSERT_EQUAL(access(legacy, F_OK), -1);
	free(legacy);
	CU_ASSERT_EQUAL_FATAL(pool_backup_find(NULL, U1, &s), 0);
	CU_ASSERT_EQUAL(s.n, 3);
	pool_backup_set_free(&s);
	CU_ASSERT_EQUAL_FATAL(pool_backup_find(NULL, U2, &s), 0);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT(has_file(&s, U2, 1, "/" U2 "/"));
	CU_ASSERT(has_file(&s, U2, 2, "/" U2 "/"));
	pool_backup_set_free(&s);
	CU_ASSERT_EQUAL_FATAL(pool_backup_find("vault", NULL, &s), 0);
	CU_ASSERT_EQUAL(s.n, 6);
	pool_backup_set_free(&s);
	/* a different file of the same seqno there is never replaced */
	put_backup("vault", "vault", U2, 2);
	{
		char *p2 = pool_backup_path(U2, 2);
		f = fopen(p2, "a");
		fputs("# changed\n", f);
		fclose(f);
		free(p2);
	}
	pool_backup_migrate("vault");
	legacy = tp_path_join(root, "vault");
	CU_ASSERT_EQUAL(count_files(legacy), 2);
	free(legacy);
	free(bad);
	free(root);
}

static void entry(struct pool_devices_entry *e, const char *pool, enum vg_role role,
		  const char *uuid, const char *path)
{
	memset(e, 0, sizeof(*e));
	strcpy(e->pool, pool);
	e->role = role;
	strcpy(e->pv_uuid, uuid);
	strcpy(e->path, path);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	if (f) {
		size_t n = fread(buf, 1, 65535, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static void test_devices(void)
{
	struct pool_devices_entry e, out[4], *all;
	size_t n;
	char *path, *content;
	FILE *f;

	fresh_dir("devices");
	CU_ASSERT_EQUAL(pool_devices_list(&all, &n), 0);	/* no file */
	CU_ASSERT_EQUAL(n, 0);
	free(all);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 4), 0);
	entry(&e, "vault", VG_ROLE_META, FX_META_UUID, "/dev/sdb");
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	entry(&e, "vault", VG_ROLE_DATA, FX_DATA_UUID, "/tmp/with space/data.img");
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	entry(&e, "other", VG_ROLE_DATA, "0b1c2d3e-4f50-4617-8293-000000000001", "/dev/md1");
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 4), 2);
	CU_ASSERT_EQUAL(out[0].role, VG_ROLE_META);
	CU_ASSERT_STRING_EQUAL(out[0].path, "/dev/sdb");
	CU_ASSERT_STRING_EQUAL(out[1].path, "/tmp/with space/data.img");
	CU_ASSERT_STRING_EQUAL(out[1].pv_uuid, FX_DATA_UUID);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 1), 2);	/* count beyond max */
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("nope", out, 4), 0);
	/* the same pv moved: replaced, not duplicated */
	entry(&e, "vault", VG_ROLE_META, FX_META_UUID, "/dev/sdc");
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	CU_ASSERT_EQUAL(pool_devices_list(&all, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	free(all);
	CU_ASSERT_EQUAL(pool_devices_lookup_pv(FX_META_UUID, &e), 0);
	CU_ASSERT_STRING_EQUAL(e.path, "/dev/sdc");
	/* an unparsable line survives a rewrite (an entry replaced) */
	path = pool_devices_path();
	f = fopen(path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("# my note\nthis is not an entry\n\n", f);
	fclose(f);
	{
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		entry(&e, "vault", VG_ROLE_META, FX_META_UUID, "/dev/sdd");
		CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
		tp_log_capture(NULL);
		CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "ignoring a line"));
	}
	content = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "this is not an entry\n"));
	CU_ASSERT_PTR_NULL(strstr(content, "/dev/sdc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "vault meta " FX_META_UUID " /dev/sdd\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "vault data " FX_DATA_UUID " /tmp/with space/data.img\n"));
	free(content);
	CU_ASSERT_EQUAL(pool_devices_lookup_pv(FX_META_UUID, &e), 0);
	CU_ASSERT_STRING_EQUAL(e.path, "/dev/sdd");
	CU_ASSERT_EQUAL(pool_devices_remove_pool("vault"), 0);
	CU_ASSERT_EQUAL(pool_devices_remove_pool("vault"), 0);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 4), 0);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("other", out, 4), 1);
	/* bad entries are refused and change nothing */
	{
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		entry(&e, "bad name", VG_ROLE_DATA, FX_DATA_UUID, "/dev/x");
		CU_ASSERT_EQUAL(pool_devices_add(&e), -EINVAL);
		entry(&e, "vault", VG_ROLE_DATA, "nope", "/dev/x");
		CU_ASSERT_EQUAL(pool_devices_add(&e), -EINVAL);
		entry(&e, "vault", VG_ROLE_DATA, FX_DATA_UUID, "/dev/x\ny");
		CU_ASSERT_EQUAL(pool_devices_add(&e), -EINVAL);
		entry(&e, "vault", VG_ROLE_DATA, FX_DATA_UUID, "");
		CU_ASSERT_EQUAL(pool_devices_add(&e), -EINVAL);
		tp_log_capture(NULL);
	}
	CU_ASSERT_EQUAL(pool_devices_list(&all, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	free(all);
	free(path);
}

/* Damaged thin-metadata copies go to the directory of their pool's uuid:
 * the newest POOL_SPARE_KEEP of each pool are kept, whatever other pool
 * had its name; a pool without a uuid gets none (and the caller does not
 * overwrite the area). */
static void test_spare(void)
{
	struct io_engine *area;
	char *saved = NULL, *d1, *d2;
	unsigned char b = 0xa5;

	fresh_dir("spare");
	CU_ASSERT_EQUAL_FATAL(io_mem_create(1u << 20, "spare", &area), 0);
	CU_ASSERT_EQUAL(pool_spare_save(U1, "vault", 1, area, &saved), 0);
	CU_ASSERT_PTR_NULL(saved);	/* zeroes: nothing to keep */
	CU_ASSERT_EQUAL_FATAL(io_write(area, 4096, &b, 1), 0);
	for (uint64_t seq = 10; seq < 15; seq++) {
		b = (unsigned char)seq;	/* each save another content */
		CU_ASSERT_EQUAL_FATAL(io_write(area, 4096, &b, 1), 0);
		CU_ASSERT_EQUAL(pool_spare_save(U1, "vault", seq, area, &saved), 0);
		CU_ASSERT_PTR_NOT_NULL(saved);
		CU_ASSERT(saved && access(saved, F_OK) == 0);
		free(saved);
		saved = NULL;
	}
	{
		/* the same content again (a run killed after writing the
		 * spare, run again): the copy kept already, no new file; the
		 * same seqno and second with another content: a file of its
		 * own beside the first, which is never overwritten */
		char *first = NULL, *again = NULL, *other = NULL, *d = pool_backup_dir(U3);

		CU_ASSERT_EQUAL(pool_spare_save(U3, "vault", 7, area, &first), 0);
		CU_ASSERT_EQUAL(pool_spare_save(U3, "vault", 7, area, &again), 0);
		CU_ASSERT(first && again && !strcmp(first, again));
		CU_ASSERT_EQUAL(count_files(d), 1);
		b = 0x11;
		CU_ASSERT_EQUAL_FATAL(io_write(area, 8192, &b, 1), 0);
		CU_ASSERT_EQUAL(pool_spare_save(U3, "vault", 7, area, &other), 0);
		CU_ASSERT(first && other && strcmp(first, other));
		CU_ASSERT_EQUAL(count_files(d), 2);
		{
			/* the first file still holds the first content */
			FILE *f = first ? fopen(first, "rb") : NULL;
			unsigned char c = 0xff;

			CU_ASSERT_PTR_NOT_NULL(f);
			if (f) {
				CU_ASSERT_EQUAL(fseek(f, 8192, SEEK_SET), 0);
				CU_ASSERT_EQUAL(fread(&c, 1, 1, f), 1);
				CU_ASSERT_EQUAL(c, 0);
				fclose(f);
			}
		}
		free(first);
		free(again);
		free(other);
		free(d);
	}
	/* a later pool named vault, its seqnos lower: its own copy is kept,
	 * and the first pool's are not pruned for it */
	CU_ASSERT_EQUAL(pool_spare_save(U2, "vault", 2, area, &saved), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(saved);
	CU_ASSERT_EQUAL(access(saved, F_OK), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(saved, "/" U2 "/spare-00000000000000000002-"));
	free(saved);
	d1 = pool_backup_dir(U1);
	d2 = pool_backup_dir(U2);
	CU_ASSERT_EQUAL(count_files(d1), POOL_SPARE_KEEP);
	CU_ASSERT_EQUAL(count_files(d2), 1);
	{
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		CU_ASSERT_EQUAL(pool_spare_save("", "vault", 3, area, &saved), -EINVAL);
		tp_log_capture(NULL);
	}
	free(d1);
	free(d2);
	io_destroy(area);
}

/* Entries record their pool's uuid; a line of the first format (no pool
 * uuid) still reads, is written back as it was, and gets the uuid from
 * the next commit of its pool; entries of two pools of one name make the
 * name's pool uuid unknown. */
static void test_devices_uuid(void)
{
	struct pool_devices_entry e, out[4];
	struct vg *vg = fx_vg();
	char uuid[VG_UUID_LEN + 1], *path, *content;
	FILE *f;

	fresh_dir("devices-uuid");
	CU_ASSERT_EQUAL_FATAL(tp_mkdir_p(cfgdir), 0);
	path = pool_devices_path();
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "# tptools devices file: POOL ROLE PV_UUID PATH (one line per pool device)\n"
		   "vault data %s /dev/md0\n"
		   "vault meta %s /dev/sdb\n", FX_DATA_UUID, FX_META_UUID);
	fclose(f);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 4), 2);
	CU_ASSERT_STRING_EQUAL(out[0].pool_uuid, "");
	CU_ASSERT_STRING_EQUAL(out[0].path, "/dev/md0");
	CU_ASSERT_EQUAL(pool_devices_pool_uuid("vault", uuid), -ENOENT);
	/* another pool's entry added: the old lines stay as they were */
	entry(&e, "other", VG_ROLE_DATA, "0b1c2d3e-4f50-4617-8293-000000000001", "/dev/md1");
	strcpy(e.pool_uuid, U2);
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	content = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "\nvault data " FX_DATA_UUID " /dev/md0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "\nother " U2 " data "
					       "0b1c2d3e-4f50-4617-8293-000000000001 /dev/md1\n"));
	free(content);
	CU_ASSERT_EQUAL(pool_devices_pool_uuid("other", uuid), 0);
	CU_ASSERT_STRING_EQUAL(uuid, U2);
	/* a commit of vault: its entries get its uuid */
	CU_ASSERT_EQUAL(pool_devices_adopt(vg), 0);
	content = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "\nvault " FX_POOL_UUID " data " FX_DATA_UUID
					       " /dev/md0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(content, "\nvault " FX_POOL_UUID " meta " FX_META_UUID
					       " /dev/sdb\n"));
	free(content);
	CU_ASSERT_EQUAL(pool_devices_pool_uuid("vault", uuid), 0);
	CU_ASSERT_STRING_EQUAL(uuid, FX_POOL_UUID);
	/* an update without a pool uuid keeps the recorded one */
	entry(&e, "vault", VG_ROLE_META, FX_META_UUID, "/dev/sdc");
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	CU_ASSERT_EQUAL(pool_devices_lookup_pv(FX_META_UUID, &e), 0);
	CU_ASSERT_STRING_EQUAL(e.pool_uuid, FX_POOL_UUID);
	CU_ASSERT_STRING_EQUAL(e.path, "/dev/sdc");
	/* a pool of another uuid under the name: neither is trusted */
	entry(&e, "vault", VG_ROLE_DATA, "0b1c2d3e-4f50-4617-8293-000000000002", "/dev/md2");
	strcpy(e.pool_uuid, U1);
	CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	CU_ASSERT_EQUAL(pool_devices_pool_uuid("vault", uuid), -EEXIST);
	CU_ASSERT_STRING_EQUAL(uuid, "");
	/* a bad pool uuid is refused */
	{
		struct tp_log_capture cap;
		tp_log_capture(&cap);
		entry(&e, "vault", VG_ROLE_DATA, FX_DATA_UUID, "/dev/x");
		strcpy(e.pool_uuid, "not-a-uuid");
		CU_ASSERT_EQUAL(pool_devices_add(&e), -EINVAL);
		tp_log_capture(NULL);
	}
	free(path);
	vg_free(vg);
}

/* Image I of the test's directory, FX_DEV_SIZE long, labelled L. */
static void labelled_image(char *path, size_t len, int i, const struct vg_label *l)
{
	struct io_engine *io;
	int fd;

	snprintf(path, len, "%s/dev%d.img", cfgdir, i);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)FX_DEV_SIZE) == 0);
	close(fd);
	CU_ASSERT_FATAL(io_fd_open(path, 0, &io) == 0);
	CU_ASSERT_EQUAL(vg_label_write(io, l), 0);
	io_destroy(io);
}

/* The devices file lost its entries: the labels of candidate paths still
 * name the pool, its uuid and each device's role. */
static void test_find_by_label(void)
{
	char paths[2][700];
	struct pool_devices_entry e, out[2];
	struct vg_label l, r;
	int i, found = 0;

	fresh_dir("scan");
	CU_ASSERT_EQUAL_FATAL(tp_mkdir_p(cfgdir), 0);
	for (i = 0; i < 2; i++) {
		fx_label(i ? VG_ROLE_DATA : VG_ROLE_META, &l);
		labelled_image(paths[i], sizeof(paths[i]), i, &l);
		entry(&e, "vault", l.role, l.pv_uuid, paths[i]);
		CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
	}
	CU_ASSERT_EQUAL(pool_devices_remove_pool("vault"), 0);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 2), 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(vg_label_probe_path(paths[i], &r), VG_LABEL_FOUND);
		if (!strcmp(r.pool_name, "vault") && !strcmp(r.pool_uuid, FX_POOL_UUID)) {
			found |= 1 << r.role;
			entry(&e, r.pool_name, r.role, r.pv_uuid, paths[i]);
			CU_ASSERT_EQUAL(pool_devices_add(&e), 0);
		}
	}
	CU_ASSERT_EQUAL(found, 3);
	CU_ASSERT_EQUAL(pool_devices_lookup_pool("vault", out, 2), 2);
	unlink(paths[0]);
	unlink(paths[1]);
}

/* How many times the devices file was opened since FD's watch was set. */
static unsigned opens_seen(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	unsigned n = 0;
	ssize_t len;

	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			n += !!(ev->mask & IN_OPEN);
			p += sizeof(*ev) + ev->len;
		}
	return n;
}

/* A label copied onto another device is told from the device the devices
 * file lists for it, the file read once for the whole question. */
static void test_label_copy(void)
{
	char paths[2][700], *file;
	struct pool_devices_entry e;
	struct vg_label l;
	int fd, w;

	fresh_dir("copy");
	CU_ASSERT_EQUAL_FATAL(tp_mkdir_p(cfgdir), 0);
	fx_label(VG_ROLE_META, &l);
	for (int i = 0; i < 2; i++)
		labelled_image(paths[i], sizeof(paths[i]), i, &l);
	entry(&e, "vault", l.role, l.pv_uuid, paths[0]);
	CU_ASSERT_EQUAL_FATAL(pool_devices_add(&e), 0);
	file = pool_devices_path();
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	/* closes too: two opens in a row would be one event (inotify(7)) */
	w = inotify_add_watch(fd, file, IN_OPEN | IN_CLOSE_NOWRITE);
	CU_ASSERT_FATAL(w >= 0);
	/* dev1 carries dev0's label: a copy; dev0 is the device itself */
	CU_ASSERT_EQUAL(pool_label_is_copy(paths[1], &l), 1);
	CU_ASSERT_EQUAL(opens_seen(fd), 1);
	CU_ASSERT_EQUAL(pool_label_is_copy(paths[0], &l), 0);
	CU_ASSERT_EQUAL(opens_seen(fd), 1);
	close(fd);
	free(file);
	unlink(paths[0]);
	unlink(paths[1]);
}

/* A backup file's name says its seqno only in the form the host writes. */
static void test_backup_name_seqno(void)
{
	uint64_t s = 0;

	CU_ASSERT_EQUAL(pool_backup_name_seqno("/x/backup/u/00000000000000000042.vg", &s), 1);
	CU_ASSERT_EQUAL(s, 42);
	CU_ASSERT_EQUAL(pool_backup_name_seqno("00000000000000000007.vgd", &s), 1);
	CU_ASSERT_EQUAL(s, 7);
	CU_ASSERT_EQUAL(pool_backup_name_seqno("/root/vault-42.vg", &s), 0);
	CU_ASSERT_EQUAL(pool_backup_name_seqno("/x/0000000000000000042.vg", &s), 0);
	CU_ASSERT_EQUAL(pool_backup_name_seqno("/x/0000000000000000004x.vg", &s), 0);
	CU_ASSERT_EQUAL(pool_backup_name_seqno("/x/00000000000000000042.vg.tmp", &s), 0);
}

TP_TEST_SUITE(pool_host, NULL, NULL,
	      { "a backup file name's seqno", test_backup_name_seqno },
	      { "backups written, listed, read and pruned", test_backup },
	      { "a commit's backup holds its text", test_backup_commit },
	      { "a command's backup names the command", test_backup_description },
	      { "a delta backup reads back, or is refused", test_backup_delta },
	      { "a whole text every 25 deltas, none pruned away", test_backup_delta_prune },
	      { "backups found by pool uuid or name, both layouts", test_backup_find },
	      { "damaged copies kept per pool uuid", test_spare },
	      { "devices file add/replace/remove/lookup", test_devices },
	      { "devices file entries by pool uuid, first format kept", test_devices_uuid },
	      { "a lost entry is found again by labels", test_find_by_label },
	      { "a label copy is told apart, the devices file read once", test_label_copy })
