/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdwriter.c - see fdwriter.h. One mutex guards a ring of queued items
 * and a stack of free buffers; the caller waits on "room" (a free slot or
 * buffer), the writer on "work". */
#include "lib/base/fdwriter.h"
#include "lib/base/fileio.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define RING 256u

struct item {
	unsigned char head[TP_FDWRITER_HEAD];
	size_t headlen, len;
	const void *data;
	uint64_t skip;		/* a seek instead of a write */
	int owned;		/* DATA is one of our buffers */
};

struct tp_fdwriter {
	int fd;
	tp_fdwriter_seal_fn *seal;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work, room;
	struct item ring[RING];
	unsigned head, count;	/* ring[head] is the next to write */
	void **free_buf;
	unsigned nfree, nbuf;
	size_t bufsize;
	int err, done;
	void *bufs;
};

static int write_item(int fd, struct item *it)
{
	struct iovec v[2];
	size_t left = it->headlen + it->len;
	int n = 0;

	if (it->skip)
		return lseek(fd, (off_t)it->skip, SEEK_CUR) < 0 ? -errno : 0;
	if (it->headlen)
		v[n++] = (struct iovec){ it->head, it->headlen };
	if (it->len)
		v[n++] = (struct iovec){ (void *)it->data, it->len };
	while (left) {
		ssize_t k = writev(fd, v, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		left -= (size_t)k;
		for (int i = 0; i < n && k; i++) {	/* a short write: step over K bytes */
			size_t s = (size_t)k < v[i].iov_len ? (size_t)k : v[i].iov_len;
			v[i].iov_base = (char *)v[i].iov_base + s;
			v[i].iov_len -= s;
			k -= (ssize_t)s;
		}
		while (n && !v[0].iov_len) {
			v[0] = v[1];
			n--;
		}
	}
	return 0;
}

/* The writer's lock, conditions and buffers, and W itself (the thread
 * has ended or never started). */
static void writer_free(struct tp_fdwriter *w)
{
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->room);
	free(w->bufs);
	free(w->free_buf);
	free(w);
}

static void *writer(void *arg)
{
	struct tp_fdwriter *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct item it;
		int r = 0;

		while (!w->count && !w->done)
			pthread_cond_wait(&w->work, &w->lock);
		if (!w->count)
			break;
		it = w->ring[w->head];
		pthread_mutex_unlock(&w->lock);
		if (!w->err) {	/* after an error the rest is dropped */
			if (w->seal && !it.skip)
				w->seal(it.head, it.headlen, it.data, it.len);
			r = write_item(w->fd, &it);
		}
		pthread_mutex_lock(&w->lock);
		if (r && !w->err)
			w->err = r;
		if (it.owned)
			w->free_buf[w->nfree++] = (void *)it.data;
		w->head = (w->head + 1) % RING;
		w->count--;
		pthread_cond_broadcast(&w->room);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int tp_fdwriter_start(int fd, unsigned nbuf, size_t bufsize, tp_fdwriter_seal_fn *seal,
		      struct tp_fdwriter **out)
{
	struct tp_fdwriter *w = calloc(1, sizeof(*w));
	int r;

	*out = NULL;
	if (!w || !nbuf || !(w->free_buf = calloc(nbuf, sizeof(void *))) ||
	    tp_copybuf_alloc(nbuf * bufsize, &w->bufs)) {
		if (w)
			free(w->free_buf);
		free(w);
		return -ENOMEM;
	}
	w->fd = fd;
	w->seal = seal;
	w->nbuf = w->nfree = nbuf;
	w->bufsize = bufsize;
	for (unsigned i = 0; i < nbuf; i++)
		w->free_buf[i] = (char *)w->bufs + i * bufsize;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->room, NULL);
	if ((r = pthread_create(&w->thread, NULL, writer, w))) {
		writer_free(w);
		return -r;
	}
	*out = w;
	return 0;
}

void *tp_fdwriter_buf(struct tp_fdwriter *w)
{
	void *b = NULL;

	pthread_mutex_lock(&w->lock);
	while (!w->nfree && !w->err)
		pthread_cond_wait(&w->room, &w->lock);
	if (!w->err)
		b = w->free_buf[--w->nfree];
	pthread_mutex_unlock(&w->lock);
	return b;
}

static int queue(struct tp_fdwriter *w, const struct item *it)
{
	int r;

	pthread_mutex_lock(&w->lock);
	while (w->count == RING && !w->err)
		pthread_cond_wait(&w->room, &w->lock);
	if (!(r = w->err)) {
		w->ring[(w->head + w->count) % RING] = *it;
		w->count++;
		pthread_cond_signal(&w->work);
	} else if (it->owned) {
		w->free_buf[w->nfree++] = (void *)it->data;
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}

static int is_ours(const struct tp_fdwriter *w, const void *data)
{
	const char *b = w->bufs, *d = data;

	return d >= b && d < b + (size_t)w->nbuf * w->bufsize;
}

int tp_fdwriter_put(struct tp_fdwriter *w, const void *head, size_t headlen, const void *data,
		    size_t len)
{
	struct item it = { .headlen = headlen, .len = len, .data = data };

	if (headlen > TP_FDWRITER_HEAD || (len && !data))
		return -EINVAL;
	if (headlen)
		memcpy(it.head, head, headlen);
	it.owned = data && is_ours(w, data);
	return queue(w, &it);
}

int tp_fdwriter_skip(struct tp_fdwriter *w, uint64_t n)
{
	struct item it = { .skip = n };

	return n ? queue(w, &it) : 0;
}

int tp_fdwriter_finish(struct tp_fdwriter *w)
{
	int r;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	r = w->err;
	writer_free(w);
	return r;
}
