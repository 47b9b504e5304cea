/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Encrypted volumes (lib/pool/crypt, pool_crypt.h): the key sources (a
 * file, standard input, the kernel keyring), a configured key file's
 * permissions, the PBKDF options' checks, and on a pool on image files a
 * new encrypted volume whose header loads with the VG's uuid and whose
 * keyslot takes its key and refuses another. */
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char *path_of(const char *name)
{
	static char buf[4][600];
	static unsigned i;
	char *p = buf[i++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tp_test_tmpdir(), name);
	return p;
}

static void put(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, data, len) == (ssize_t)len);
	CU_ASSERT_FATAL(fchmod(fd, mode) == 0);
	close(fd);
}

/* pool_key_read of SRC with FLAGS: its result, the key's bytes in *K. */
static int read_key(enum pool_key_kind kind, const char *arg, unsigned flags,
		    struct pool_key **k)
{
	struct pool_key_source src = { kind, arg };
	struct tp_log_capture cap;
	int r;

	tp_log_capture(&cap);
	r = pool_key_read(&src, "volume t/v", flags, k);
	tp_log_capture(NULL);
	if (r)
		CU_ASSERT(strstr(cap.buf, "error") != NULL);	/* every refusal says why */
	return r;
}

static void test_key_file(void)
{
	unsigned char big[POOL_KEY_MAX + 1];
	const unsigned char odd[] = { 's', 0, 'x', '\n' };	/* any byte, newline kept */
	struct pool_key *k = NULL;

	put(path_of("odd"), odd, sizeof(odd), 0600);
	CU_ASSERT_EQUAL_FATAL(read_key(POOL_KEY_FILE, path_of("odd"), 0, &k), 0);
	CU_ASSERT_EQUAL(k->len, sizeof(odd));
	CU_ASSERT(!memcmp(k->data, odd, sizeof(odd)));
	pool_key_free(k);

	memset(big, 'k', sizeof(big));
	put(path_of("max"), big, POOL_KEY_MAX, 0600);
	CU_ASSERT_EQUAL_FATAL(read_key(POOL_KEY_FILE, path_of("max"), 0, &k), 0);
	CU_ASSERT_EQUAL(k->len, POOL_KEY_MAX);
	pool_key_free(k);

	put(path_of("big"), big, sizeof(big), 0600);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, path_of("big"), 0, &k), -EFBIG);
	CU_ASSERT_PTR_NULL(k);
	put(path_of("empty"), "", 0, 0600);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, path_of("empty"), 0, &k), -ENODATA);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, path_of("missing"), 0, &k), -ENOENT);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, tp_test_tmpdir(), 0, &k), -EISDIR);
	CU_ASSERT_PTR_NULL(k);
}

static void test_key_private(void)
{
	struct pool_key *k = NULL;

	put(path_of("open"), "key", 3, 0644);
	/* a key given on the command line may be any file the user can read */
	CU_ASSERT_EQUAL_FATAL(read_key(POOL_KEY_FILE, path_of("open"), 0, &k), 0);
	pool_key_free(k);
	k = NULL;
	/* one from configuration must be private */
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, path_of("open"), POOL_KEY_PRIVATE, &k), -EPERM);
	put(path_of("group"), "key", 3, 0620);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, path_of("group"), POOL_KEY_PRIVATE, &k), -EPERM);
	put(path_of("private"), "key", 3, 0400);
	CU_ASSERT_EQUAL_FATAL(read_key(POOL_KEY_FILE, path_of("private"), POOL_KEY_PRIVATE, &k),
			      0);
	CU_ASSERT_EQUAL(k->len, 3);
	pool_key_free(k);
}

static void test_key_stdin(void)
{
	struct pool_key *k = NULL;
	int saved = dup(STDIN_FILENO), fd = -1;

	put(path_of("in"), "from stdin\n", 11, 0600);
	CU_ASSERT_FATAL(saved >= 0 && (fd = open(path_of("in"), O_RDONLY)) >= 0);
	CU_ASSERT_FATAL(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	close(fd);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_FILE, "-", 0, &k), 0);
	CU_ASSERT_FATAL(dup2(saved, STDIN_FILENO) == STDIN_FILENO);
	close(saved);
	CU_ASSERT_FATAL(k != NULL);
	CU_ASSERT_EQUAL(k->len, 11);
	CU_ASSERT(!memcmp(k->data, "from stdin\n", 11));
	pool_key_free(k);
}

static void test_key_keyring(void)
{
	static char payload[POOL_KEY_MAX + 1];
	struct pool_key *k = NULL;
	long id = syscall(SYS_add_key, "user", "tptools-unit:key", "ring key", 8L,
			  (long)KEY_SPEC_PROCESS_KEYRING), big;

	if (id < 0 && (errno == ENOSYS || errno == EPERM || errno == EACCES)) {
		fprintf(stderr, "(no kernel keyring here: %s) ", strerror(errno));
		return;
	}
	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_KEYRING, "tptools-unit:key", 0, &k), 0);
	CU_ASSERT_FATAL(k != NULL);
	CU_ASSERT_EQUAL(k->len, 8);
	CU_ASSERT(!memcmp(k->data, "ring key", 8));
	pool_key_free(k);
	k = NULL;
	memset(payload, 'r', sizeof(payload));
	big = syscall(SYS_add_key, "user", "tptools-unit:big", payload, (long)sizeof(payload),
		      (long)KEY_SPEC_PROCESS_KEYRING);
	if (big >= 0) {
		CU_ASSERT_EQUAL(read_key(POOL_KEY_KEYRING, "tptools-unit:big", 0, &k), -EFBIG);
		syscall(SYS_keyctl, KEYCTL_INVALIDATE, big);
	}
	syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_KEYRING, "tptools-unit:key", 0, &k), -ENOENT);
	CU_ASSERT_EQUAL(read_key(POOL_KEY_KEYRING, "tptools-unit:none", 0, &k), -ENOENT);
	CU_ASSERT_PTR_NULL(k);
}

static void test_pbkdf_check(void)
{
	static const struct {
		struct pool_pbkdf p;
		int ok;
	} cases[] = {
		{ { NULL, 0, 0, 0 }, 1 },
		{ { "argon2id", 500, 65536, 0 }, 1 },
		{ { "argon2i", 0, 0, 4 }, 1 },
		{ { "pbkdf2", 0, 0, 1000 }, 1 },
		{ { "pbkdf2", 100, 0, 0 }, 1 },
		{ { "scrypt", 0, 0, 0 }, 0 },
		{ { "PBKDF2", 0, 0, 0 }, 0 },
		{ { "pbkdf2", 0, 1024, 0 }, 0 },	/* memory is argon2's */
		{ { "pbkdf2", 0, 0, 999 }, 0 },
		{ { "argon2id", 0, 0, 3 }, 0 },
		{ { "argon2id", 100, 0, 4 }, 0 },	/* a time and a count */
		{ { "argon2id", 0, 16, 0 }, 0 },
		{ { "argon2id", 0, 4194305, 0 }, 0 },
	};
	char why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why[0] = '\0';
		int r = pool_pbkdf_check(&cases[i].p, why, sizeof(why));
		CU_ASSERT_EQUAL(r, cases[i].ok ? 0 : -EINVAL);
		if (!cases[i].ok)
			CU_ASSERT(strlen(why) > 20);
	}
}

/* pool_crypt_format onto a file of its own, with the uuid asked for */
static void test_format_path(void)
{
	static const char want[] = "0b6f5c0e-6d1a-4c55-9e59-3a1d2f1e9c01";
	struct pool_key key = { (unsigned char *)"format key", 10 };
	struct pool_crypt_new n = { &key, { "pbkdf2", 0, 0, 1000 }, 1 };
	char uuid[POOL_UUID_LEN + 1] = "";
	struct tp_log_capture cap;
	uint64_t off = 0;
	int fd;

	CU_ASSERT_FATAL((fd = open(path_of("dev.img"), O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, 20u << 20) == 0);
	close(fd);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_crypt_format(path_of("dev.img"), "t", "v", 20u << 20, &n, want, uuid,
					  &off), 0);
	CU_ASSERT_STRING_EQUAL(uuid, want);
	CU_ASSERT_EQUAL(off, 16u << 20);
	/* the header alone: smaller than it and a sector of data is refused */
	CU_ASSERT_EQUAL(pool_crypt_format(path_of("dev.img"), "t", "v", 16u << 20, &n, NULL, uuid,
					  &off), -ERANGE);
	tp_log_capture(NULL);
	CU_ASSERT(strstr(cap.buf, "give -V 16388K or more") != NULL);	/* exact, not rounded */
	CU_ASSERT(strstr(cap.buf, "too small for an encrypted volume") != NULL);
}

/* ---- a pool ---- */

#define POOL "cryptunit"

static void test_volume_key(void)
{
	char dir[600], etc[620], data[640], meta[640], uuid[POOL_UUID_LEN + 1];
	struct pool_key right = { (unsigned char *)"right key", 9 };
	struct pool_key wrong = { (unsigned char *)"wrong key", 9 };
	struct pool_crypt_new n = { &right, { "pbkdf2", 0, 0, 1000 }, 0 };
	struct pool_crypt_header h;
	struct tp_log_capture cap;
	struct pool_info info;
	struct pool *p = NULL;
	char why[512];

	snprintf(dir, sizeof(dir), "%s/pool", tp_test_tmpdir());
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0 && mkdir(etc, 0700) == 0);
	setenv("TPTOOLS_DIR", etc, 1);
	setenv("TMPDIR", dir, 1);
	snprintf(data, sizeof(data), "%s/data.img", dir);
	snprintf(meta, sizeof(meta), "%s/meta.img", dir);
	tp_log_capture(&cap);
	pool_on_images(POOL, data, 256u << 20, meta, 16u << 20);
	CU_ASSERT_FATAL(pool_open(POOL, NULL, 0, &p) == 0);
	CU_ASSERT_EQUAL_FATAL(pool_crypt_create(p, "e", 32u << 20, 0, &n, uuid), 0);
	CU_ASSERT_EQUAL(strlen(uuid), 36);
	/* too small, and a plain volume */
	CU_ASSERT_EQUAL(pool_crypt_create(p, "small", pool_crypt_min_size() - 512, 0, &n, NULL),
			-ERANGE);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "plain", 32u << 20, 0, &(uint64_t){ 0 }) == 0);
	pool_close(p);
	p = NULL;

	CU_ASSERT_FATAL(pool_open(POOL, NULL, POOL_RDONLY, &p) == 0);
	CU_ASSERT_FATAL(pool_get_info(p, 0, &info) == 0);
	CU_ASSERT_EQUAL(info.nr_volumes, 2);
	for (unsigned i = 0; i < info.nr_volumes; i++)
		CU_ASSERT_STRING_EQUAL(info.volumes[i].luks_uuid,
				       strcmp(info.volumes[i].name, "e") ? "" : uuid);
	pool_info_free(&info);
	CU_ASSERT_EQUAL_FATAL(pool_crypt_header_open(p, "e", &h), 0);
	CU_ASSERT_STRING_EQUAL(h.uuid, uuid);
	CU_ASSERT_EQUAL(h.data_offset, 16u << 20);
	pool_crypt_header_close(&h);
	CU_ASSERT_EQUAL(pool_crypt_header_probe(p, "e", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(pool_crypt_header_probe(p, "plain", why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(pool_crypt_header_probe(p, "none", why, sizeof(why)), -ENOENT);
	CU_ASSERT_EQUAL(pool_crypt_check_key(p, "e", &right), 0);
	cap.len = 0;
	cap.buf[0] = '\0';
	CU_ASSERT_EQUAL(pool_crypt_check_key(p, "e", &wrong), -EPERM);
	CU_ASSERT(strstr(cap.buf, "opens none of its keyslots") != NULL);
	pool_close(p);
	tp_log_capture(NULL);
	unsetenv("TMPDIR");
}

TP_TEST_SUITE(crypt, NULL, NULL,
	      { "key file: whole, any byte, 8 KiB at most, not empty", test_key_file },
	      { "key file from configuration: private only", test_key_private },
	      { "key from standard input", test_key_stdin },
	      { "key from the kernel keyring", test_key_keyring },
	      { "PBKDF options checked", test_pbkdf_check },
	      { "a header onto a path, with the uuid given", test_format_path },
	      { "encrypted volume: header loads, right key opens, wrong refused",
		test_volume_key })
