/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_env.h - set-ups several unit tests share. A failed step fails the
 * running test (CU_ASSERT_FATAL). */
#ifndef TP_TEST_ENV_H
#define TP_TEST_ENV_H

#include <stddef.h>
#include <stdint.h>

/* ---- metadata/pdata (test_pdata.c, test_commit_guard.c) ----
 * An in-memory metadata device of BLOCKS 4 KiB blocks under a block
 * manager (CACHE blocks), a metadata space map with block 0 (the
 * superblock's) taken, and a transaction manager over the two. */

struct tm_env {
	struct io_engine *io;
	struct block_manager *bm;
	struct space_map *sm;
	struct tm *tm;
};

/* Fill *E; NAME names the device in messages. */
void tm_env_open(struct tm_env *e, const char *name, uint64_t blocks, unsigned cache);
/* Release everything tm_env_open made, in reverse order. */
void tm_env_close(struct tm_env *e);

/* ---- pools on image files (test_pool_crash.c, test_change.c) ---- */

/* New image files DATA and META (truncated to DATA_SIZE and META_SIZE
 * bytes, zero) and pool NAME created on them with tpcreate's defaults, in
 * the caller's TPTOOLS_DIR. */
void pool_on_images(const char *name, const char *data, uint64_t data_size,
		    const char *meta, uint64_t meta_size);

/* The whole of file PATH in memory (free with file_copy_free). */
struct file_copy {
	unsigned char *data;
	size_t size;
};
void file_copy_read(const char *path, struct file_copy *c);
void file_copy_free(struct file_copy *c);

#endif
