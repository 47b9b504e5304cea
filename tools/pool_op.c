/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_op.c - open, run one operation, close. See pool_op.h. */
#include "tools/pool_op.h"
#include "lib/base/exitcodes.h"
#include "lib/pool/pool.h"

int tool_pool_op(const char *name, const char *devices, tool_pool_fn fn, void *arg)
{
	return tool_pool_op_flags(name, devices, 0, fn, arg);
}

int tool_pool_op_flags(const char *name, const char *devices, unsigned flags, tool_pool_fn fn,
		       void *arg)
{
	struct pool *pool = NULL;
	int r = pool_open(name, devices, flags, &pool);

	if (!r)
		r = fn(pool, arg);
	pool_close(pool);
	return tp_exit_from_errno(r);
}
