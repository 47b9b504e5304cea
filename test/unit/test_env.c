/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_env.c - see test_env.h. */
#include "test/lib/io_test.h"
#include "test/unit/test_env.h"

#include "lib/base/io.h"
#include "lib/pool/pool.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/transaction_manager.h"
#include "test/unit/tp_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tm_env_open(struct tm_env *e, const char *name, uint64_t blocks, unsigned cache)
{
	CU_ASSERT_FATAL(io_mem_create(blocks * BM_BLOCK_SIZE, name, &e->io) == 0);
	CU_ASSERT_FATAL(bm_create(e->io, cache, &e->bm) == 0);
	CU_ASSERT_FATAL(sm_create(e->bm, SM_METADATA, blocks, &e->sm) == 0);
	CU_ASSERT_FATAL(sm_set(e->sm, 0, 1) == 0);
	CU_ASSERT_FATAL(tm_create(e->bm, e->sm, &e->tm) == 0);
}

void tm_env_close(struct tm_env *e)
{
	tm_destroy(e->tm);
	sm_destroy(e->sm);
	bm_destroy(e->bm);
	io_destroy(e->io);
}

void pool_on_images(const char *name, const char *data, uint64_t data_size,
		    const char *meta, uint64_t meta_size)
{
	struct pool_create_params cp = { .name = name, .data_path = data, .meta_path = meta };
	struct pool_create_plan plan;
	const char *path[2] = { data, meta };
	uint64_t size[2] = { data_size, meta_size };

	for (int i = 0; i < 2; i++) {
		int fd = open(path[i], O_CREAT | O_TRUNC | O_RDWR, 0600);

		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(ftruncate(fd, (off_t)size[i]) == 0);
		close(fd);
	}
	CU_ASSERT_FATAL(pool_plan(&cp, &plan) == 0);
	CU_ASSERT_FATAL(pool_create(&cp, &plan) == 0);
}

void file_copy_read(const char *path, struct file_copy *c)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	CU_ASSERT_FATAL(fd >= 0 && fstat(fd, &st) == 0);
	c->size = (size_t)st.st_size;
	c->data = malloc(c->size ? c->size : 1);
	CU_ASSERT_FATAL(c->data != NULL);
	CU_ASSERT_FATAL(pread(fd, c->data, c->size, 0) == (ssize_t)c->size);
	close(fd);
}

void file_copy_free(struct file_copy *c)
{
	free(c->data);
	memset(c, 0, sizeof(*c));
}
