/* test_env.c - see test_env.h. */
#include "test/unit/test_env.h"

#include "lib/base/io.h"
#include "metadata/pdata/block_manager.h"
#include "metadata/pdata/space_map.h"
#include "metadata/pdata/transaction_manager.h"
#include "test/unit/tp_test.h"

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
