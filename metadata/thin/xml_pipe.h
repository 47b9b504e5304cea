/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_pipe.h - run a thin_ir stream's producer (a reader) in a second
 * thread while the calling thread feeds its consumer (the builder), so
 * that reading and building share two cores.
 *
 * Owns: the thread and a bounded queue of events (PIPE_SLOTS slots of up
 * to PIPE_SLOT_RUNS mapping runs: about 0.5 MiB) for one call. The
 * consumer sees the producer's calls in order; mapping batches may be cut
 * into smaller ones. When the consumer fails, the producer's next call
 * fails with -ECANCELED and the stream stops.
 *
 * Returns 0 or -errno (see thin_ir_pipe). */
#ifndef TP_THIN_XML_PIPE_H
#define TP_THIN_XML_PIPE_H

#include "lib/base/compiler.h"
#include "metadata/thin/thin_ir.h"

/* Drives V into CONSUMER; ARG is PRODUCE's. */
typedef int (*thin_ir_producer)(void *arg, const struct thin_ir_visitor *v);

/* Run PRODUCE(ARG, v) in a new thread with a visitor v that queues each
 * call, and make the same calls on CONSUMER here. Returns the consumer's
 * first error, else what PRODUCE returned (any value, positive ones
 * included); -errno when no thread could be started (nothing ran). */
int thin_ir_pipe(thin_ir_producer produce, void *arg, const struct thin_ir_visitor *consumer)
	TP_MUST_CHECK;

#endif
