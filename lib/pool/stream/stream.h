/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream.h - what the stream module (send and receive) offers the rest
 * of lib/pool beside the public face (pool_send.h, pool_recv.h). */
#ifndef TP_POOL_STREAM_H
#define TP_POOL_STREAM_H

/* Register the stream module's hooks with the core (pool_init). */
void pool_stream_register(void);

#endif
