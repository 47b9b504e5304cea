/* test_env.h - what the tests of metadata/pdata set up for each case: an
 * in-memory metadata device of BLOCKS 4 KiB blocks under a block manager
 * (CACHE blocks), a metadata space map with block 0 (the superblock's)
 * taken, and a transaction manager over the two (test_pdata.c,
 * test_commit_guard.c). */
#ifndef TP_TEST_ENV_H
#define TP_TEST_ENV_H

#include <stdint.h>

struct tm_env {
	struct io_engine *io;
	struct block_manager *bm;
	struct space_map *sm;
	struct tm *tm;
};

/* Fill *E (a failed step fails the running test, CU_ASSERT_FATAL); NAME
 * names the device in messages. */
void tm_env_open(struct tm_env *e, const char *name, uint64_t blocks, unsigned cache);
/* Release everything tm_env_open made, in reverse order. */
void tm_env_close(struct tm_env *e);

#endif
