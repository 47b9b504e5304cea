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

static void test_backup(void)
{
	uint64_t *seq, got;
	size_t n, len;
	char text[64], *t, *dir;
	uint64_t s;

	fresh_dir("backup");
	CU_ASSERT_EQUAL(pool_backup_list("vault", &seq, &n), 0);	/* no dir yet */
	CU_ASSERT_EQUAL(n, 0);
	free(seq);
	CU_ASSERT_EQUAL(pool_backup_read("vault", 0, &t, &len, NULL), -ENOENT);
	for (s = 1; s <= 60; s++) {
		snprintf(text, sizeof(text), "commit %llu\n", (unsigned long long)s);
		CU_ASSERT_EQUAL_FATAL(pool_backup_write("vault", s, text, strlen(text), 0), 0);
	}
	CU_ASSERT_EQUAL(pool_backup_list("vault", &seq, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, POOL_BACKUP_KEEP);
	CU_ASSERT_EQUAL(seq[0], 60 - POOL_BACKUP_KEEP + 1);
	CU_ASSERT_EQUAL(seq[n - 1], 60);
	free(seq);
	dir = pool_backup_dir("vault");
	CU_ASSERT_EQUAL(count_files(dir), POOL_BACKUP_KEEP);	/* no temp file left */
	CU_ASSERT_PTR_NOT_NULL(strstr(dir, cfgdir));
	free(dir);
	CU_ASSERT_EQUAL(pool_backup_read("vault", 0, &t, &len, &got), 0);
	CU_ASSERT_EQUAL(got, 60);
	CU_ASSERT_STRING_EQUAL(t, "commit 60\n");
	CU_ASSERT_EQUAL(len, strlen("commit 60\n"));
	free(t);
	CU_ASSERT_EQUAL(pool_backup_read("vault", 30, &t, &len, &got), 0);
	CU_ASSERT_STRING_EQUAL(t, "commit 30\n");
	free(t);
	CU_ASSERT_EQUAL(pool_backup_read("vault", 5, &t, &len, NULL), -ENOENT);
	/* rewriting a seqno replaces it; an explicit keep prunes further */
	CU_ASSERT_EQUAL(pool_backup_write("vault", 60, "again", 5, 3), 0);
	CU_ASSERT_EQUAL(pool_backup_list("vault", &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	free(seq);
	CU_ASSERT_EQUAL(pool_backup_read("vault", 0, &t, &len, NULL), 0);
	CU_ASSERT_STRING_EQUAL(t, "again");
	free(t);
	/* pools are kept apart; bad names refused */
	CU_ASSERT_EQUAL(pool_backup_write("other", 1, "o", 1, 0), 0);
	CU_ASSERT_EQUAL(pool_backup_list("vault", &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	free(seq);
	CU_ASSERT_EQUAL(pool_backup_write("../x", 1, "o", 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(pool_backup_list("a/b", &seq, &n), -EINVAL);
	CU_ASSERT_EQUAL(pool_backup_prune("vault", 0), 0);
	CU_ASSERT_EQUAL(pool_backup_list("vault", &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(seq);
}

/* The backup of a commit: one file per seqno, holding that commit's text. */
static void test_backup_commit(void)
{
	struct vg *vg = fx_vg(), *b;
	uint64_t *seq, got;
	size_t n, len;
	char *t;

	fresh_dir("commit");
	vg->seqno = 1;
	pool_backup_commit(vg);
	vg->seqno = 2;
	vg->transaction_id++;
	pool_backup_commit(vg);
	CU_ASSERT_EQUAL(pool_backup_list("vault", &seq, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	if (n == 2)
		CU_ASSERT(seq[0] == 1 && seq[1] == 2);
	free(seq);
	CU_ASSERT_EQUAL_FATAL(pool_backup_read("vault", 0, &t, &len, &got), 0);
	CU_ASSERT_EQUAL(got, 2);
	CU_ASSERT_EQUAL_FATAL(vg_import(t, len, &b), 0);
	CU_ASSERT_EQUAL(b->seqno, 2);
	CU_ASSERT_EQUAL(b->transaction_id, vg->transaction_id);
	vg_free(b);
	free(t);
	vg_free(vg);
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
	size_t len;
	char *t;

	fresh_dir("described");
	tp_log_set_command(6, words);
	CU_ASSERT_STRING_EQUAL(tp_log_command(),
			       "tvrename vault/a \"b c\" \"say \\\"hi\\\"\\\\\" \"tab?here\" \"\"");
	vg->seqno = 1;
	pool_backup_commit(vg);
	CU_ASSERT_EQUAL_FATAL(pool_backup_read("vault", 1, &t, &len, NULL), 0);
	CU_ASSERT_EQUAL(strncmp(t, "# description: after 'tvrename vault/a \"b c\" ", 45), 0);
	CU_ASSERT_EQUAL_FATAL(vg_import(t, len, &b), 0);
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
	CU_ASSERT_EQUAL_FATAL(pool_backup_read("vault", 2, &t, &len, NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(t, "# description"));
	free(t);
	vg_free(vg);
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

#define U1 "11111111-2222-4333-8444-555555555555"
#define U2 "22222222-2222-4333-8444-555555555555"

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
		struct io_engine *io;
		int fd;

		snprintf(paths[i], sizeof(paths[i]), "%s/dev%d.img", cfgdir, i);
		fd = open(paths[i], O_CREAT | O_RDWR | O_TRUNC, 0600);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(ftruncate(fd, (off_t)FX_DEV_SIZE) == 0);
		close(fd);
		CU_ASSERT_FATAL(io_fd_open(paths[i], 0, &io) == 0);
		fx_label(i ? VG_ROLE_DATA : VG_ROLE_META, &l);
		CU_ASSERT_EQUAL(vg_label_write(io, &l), 0);
		io_destroy(io);
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

TP_TEST_SUITE(pool_host, NULL, NULL,
	      { "backups written, listed, read and pruned", test_backup },
	      { "a commit's backup holds its text", test_backup_commit },
	      { "a command's backup names the command", test_backup_description },
	      { "devices file add/replace/remove/lookup", test_devices },
	      { "devices file entries by pool uuid, first format kept", test_devices_uuid },
	      { "a lost entry is found again by labels", test_find_by_label })
