/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A pool's owner (lib/pool/owner/pool_owner.c): a pool created on a host
 * with a system id records it; on another host every open but the
 * readers that ask for it (POOL_FOREIGN_OK) is refused with -EREMOTE and
 * nothing written, autoactivation's open (POOL_FOREIGN_QUIET) says
 * nothing, and the owner hands the pool over with one VG commit. */
#include "lib/base/config.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_owner.h"
#include "test/unit/test_env.h"
#include "test/unit/tp_test.h"
#include "tools/config_keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char dir[600], data_path[700], meta_path[700];

/* This host is ID ("" : no id). */
static void be_host(const char *id)
{
	char text[200];

	snprintf(text, sizeof(text), id[0] ? "global { system_id = \"%s\" }\n" : "# %s\n", id);
	CU_ASSERT_FATAL(tp_config_load_text(tp_conf_keys, tp_conf_nkeys, "owner.conf", text,
					    strlen(text)) == 0);
}

static int same(const struct file_copy *a, const char *path)
{
	struct file_copy b;
	int eq;

	file_copy_read(path, &b);
	eq = a->size == b.size && !memcmp(a->data, b.data, a->size);
	file_copy_free(&b);
	return eq;
}

static void test_foreign(void)
{
	struct tp_log_capture cap;
	struct file_copy d, m;
	struct pool *p = NULL;
	uint64_t over;
	char etc[620];

	snprintf(dir, sizeof(dir), "%s/owner", tp_test_tmpdir());
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0 && mkdir(etc, 0700) == 0);
	setenv("TPTOOLS_DIR", etc, 1);
	snprintf(data_path, sizeof(data_path), "%s/data.img", dir);
	snprintf(meta_path, sizeof(meta_path), "%s/meta.img", dir);
	be_host("hostA");
	tp_log_capture(&cap);
	pool_on_images("own", data_path, 64u << 20, meta_path, 8u << 20);
	CU_ASSERT_FATAL(pool_open("own", NULL, 0, &p) == 0);
	CU_ASSERT_STRING_EQUAL(pool_owner(p), "hostA");
	CU_ASSERT(!pool_is_foreign(p));
	CU_ASSERT_FATAL(pool_volume_create_as(p, "a", 16u << 20, 0, &over) == 0);
	pool_close(p);

	/* host B: refused, the devices unchanged */
	be_host("hostB");
	file_copy_read(data_path, &d);
	file_copy_read(meta_path, &m);
	p = NULL;
	CU_ASSERT_EQUAL(pool_open("own", NULL, 0, &p), -EREMOTE);
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT(strstr(cap.buf, "belongs to the host whose system id is \"hostA\"") != NULL);
	CU_ASSERT_EQUAL(pool_open("own", NULL, POOL_RDONLY, &p), -EREMOTE);
	/* as autoactivation opens it: no word */
	tp_log_capture(NULL);
	tp_log_capture(&cap);
	CU_ASSERT_EQUAL(pool_open("own", NULL, POOL_FOREIGN_QUIET, &p), -EREMOTE);
	CU_ASSERT_EQUAL(cap.len, 0);
	/* a reader that asks for it: listed, marked */
	CU_ASSERT_FATAL(pool_open("own", NULL, POOL_RDONLY | POOL_FOREIGN_OK, &p) == 0);
	CU_ASSERT(pool_is_foreign(p));
	CU_ASSERT_STRING_EQUAL(pool_owner(p), "hostA");
	pool_close(p);
	CU_ASSERT(same(&d, data_path));
	CU_ASSERT(same(&m, meta_path));
	/* a host without an id is refused too */
	be_host("");
	CU_ASSERT_EQUAL(pool_open("own", NULL, 0, &p), -EREMOTE);
	CU_ASSERT(same(&m, meta_path));
	file_copy_free(&d);
	file_copy_free(&m);

	/* the owner hands it over; then B writes and A is refused */
	be_host("hostA");
	CU_ASSERT_FATAL(pool_open("own", NULL, 0, &p) == 0);
	CU_ASSERT_EQUAL(pool_set_system_id(p, "bad id"), -EINVAL);
	CU_ASSERT_EQUAL(pool_set_system_id(p, "hostB"), 0);
	pool_close(p);
	CU_ASSERT_EQUAL(pool_open("own", NULL, 0, &p), -EREMOTE);
	be_host("hostB");
	CU_ASSERT_FATAL(pool_open("own", NULL, 0, &p) == 0);
	CU_ASSERT_FATAL(pool_volume_create_as(p, "b", 16u << 20, 0, &over) == 0);
	/* to no owner: anyone's, as a VG written before owners */
	CU_ASSERT_EQUAL(pool_set_system_id(p, ""), 0);
	pool_close(p);
	be_host("hostC");
	CU_ASSERT_FATAL(pool_open("own", NULL, 0, &p) == 0);
	CU_ASSERT_STRING_EQUAL(pool_owner(p), "");
	pool_close(p);
	tp_log_capture(NULL);
}

static int cleanup(void)
{
	tp_config_unload();
	unsetenv("TPTOOLS_DIR");
	return 0;
}

TP_TEST_SUITE(owner, NULL, cleanup,
	      { "another host's pool is refused, unchanged, and handed over", test_foreign })
