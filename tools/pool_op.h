/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_op.h - the shape of the commands that change one open pool
 * (tvcreate, tvsnap, tvremove, tpchange, tpextend and the others that call
 * tool_pool_op): open the pool for writing, run the command's operation
 * on it (its lib/pool calls, then what it prints), close it. */
#ifndef TP_TOOLS_POOL_OP_H
#define TP_TOOLS_POOL_OP_H

struct pool;

/* One operation on an open pool: 0 or -errno (logged by lib/pool). */
typedef int (*tool_pool_fn)(struct pool *p, void *arg);

/* Open pool NAME (DEVICES: the --devices option, or NULL), run FN(P, ARG),
 * close it. Returns the exit code. */
int tool_pool_op(const char *name, const char *devices, tool_pool_fn fn, void *arg);
/* The same with pool_open FLAGS (POOL_ALLOW_COMPONENT). */
int tool_pool_op_flags(const char *name, const char *devices, unsigned flags, tool_pool_fn fn,
		       void *arg);

#endif
