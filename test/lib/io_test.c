/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_test.c - the tests' memory and fault-injecting engines. See io_test.h. */
#include "test/lib/io_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory engine ---- */

struct io_mem {
	struct io_engine e;
	unsigned char *data;
	uint64_t read_bytes;
};

static int mem_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	struct io_mem *m = TP_CONTAINER_OF(e, struct io_mem, e);

	memcpy(buf, m->data + off, len);
	m->read_bytes += len;
	return 0;
}

static int mem_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	memcpy(TP_CONTAINER_OF(e, struct io_mem, e)->data + off, buf, len);
	return 0;
}

static void mem_destroy(struct io_engine *e)
{
	struct io_mem *m = TP_CONTAINER_OF(e, struct io_mem, e);
	free(m->data);
	free(e->name);
	free(m);
}

static const struct io_ops mem_ops = { mem_read, mem_write, NULL, mem_destroy };

int io_mem_create(uint64_t size, const char *name, struct io_engine **out)
{
	struct io_mem *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->data = calloc(1, size ? size : 1);
	m->e.name = strdup(name ? name : "memory");
	if (!m->data || !m->e.name) {
		free(m->data);
		free(m->e.name);
		free(m);
		return -ENOMEM;
	}
	m->e.ops = &mem_ops;
	m->e.size = size;
	*out = &m->e;
	return 0;
}

unsigned char *io_mem_data(struct io_engine *e)
{
	return e->ops == &mem_ops ? TP_CONTAINER_OF(e, struct io_mem, e)->data : NULL;
}

uint64_t io_mem_read_bytes(struct io_engine *e)
{
	return e->ops == &mem_ops ? TP_CONTAINER_OF(e, struct io_mem, e)->read_bytes : 0;
}

int io_mem_resize(struct io_engine *e, uint64_t size)
{
	struct io_mem *m;
	unsigned char *n;

	if (e->ops != &mem_ops)
		return -EINVAL;
	m = TP_CONTAINER_OF(e, struct io_mem, e);
	n = realloc(m->data, size ? size : 1);
	if (!n)
		return -ENOMEM;
	if (size > e->size)
		memset(n + e->size, 0, size - e->size);
	m->data = n;
	e->size = size;
	return 0;
}

/* ---- fault-injecting engine ---- */

struct io_fault {
	struct io_engine e;
	struct io_engine *inner;
	int own;
	enum io_fault_mode mode;
	uint64_t nth, writes;
};

static int fault_read(struct io_engine *e, uint64_t off, void *buf, size_t len)
{
	return io_read(TP_CONTAINER_OF(e, struct io_fault, e)->inner, off, buf, len);
}

static int fault_write(struct io_engine *e, uint64_t off, const void *buf, size_t len)
{
	struct io_fault *f = TP_CONTAINER_OF(e, struct io_fault, e);
	uint64_t n = f->writes++;

	if (f->mode != IO_FAULT_NONE && n >= f->nth)
		return f->mode == IO_FAULT_FAIL ? -EIO : 0;
	return io_write(f->inner, off, buf, len);
}

static int fault_flush(struct io_engine *e)
{
	struct io_fault *f = TP_CONTAINER_OF(e, struct io_fault, e);
	if (f->mode == IO_FAULT_FAIL && f->writes > f->nth)
		return -EIO;
	return io_flush(f->inner);
}

static void fault_destroy(struct io_engine *e)
{
	struct io_fault *f = TP_CONTAINER_OF(e, struct io_fault, e);
	if (f->own)
		io_destroy(f->inner);
	free(e->name);
	free(f);
}

static struct io_engine *fault_under(struct io_engine *e, uint64_t *off)
{
	(void)off;
	return TP_CONTAINER_OF(e, struct io_fault, e)->inner;
}

static const struct io_ops fault_ops = { fault_read, fault_write, fault_flush, fault_destroy,
					 fault_under };

int io_fault_create(struct io_engine *inner, int own, struct io_engine **out)
{
	struct io_fault *f = calloc(1, sizeof(*f));
	size_t n = strlen(inner->name) + 16;

	if (!f || !(f->e.name = malloc(n))) {
		free(f);
		return -ENOMEM;
	}
	snprintf(f->e.name, n, "fault(%s)", inner->name);
	f->e.ops = &fault_ops;
	f->e.size = inner->size;
	f->e.read_only = inner->read_only;
	f->inner = inner;
	f->own = own;
	*out = &f->e;
	return 0;
}

void io_fault_set(struct io_engine *e, enum io_fault_mode mode, uint64_t nth)
{
	struct io_fault *f;

	if (e->ops != &fault_ops)
		return;
	f = TP_CONTAINER_OF(e, struct io_fault, e);
	f->mode = mode;
	f->nth = nth;
}

uint64_t io_fault_writes(struct io_engine *e)
{
	return e->ops == &fault_ops ? TP_CONTAINER_OF(e, struct io_fault, e)->writes : 0;
}
