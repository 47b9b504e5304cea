/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_recv_replay.c - a checked send stream read again, record by
 * record, into a receiver's sink (pool_recv_int.h): runs of whole chunks
 * and runs of holes, in the stream's order; and the view both the check
 * and the replay read a stream file through.
 *
 * The view maps a window of the file (WINDOW bytes, moved forward as the
 * reader goes) so the check's crc and the receive's writes take the
 * bytes from the page cache where they are: no copy into a buffer of
 * ours. A file that cannot be mapped is read into a buffer instead. */
#include "lib/pool/stream/pool_recv_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW (64u << 20)	/* bytes mapped at a time, at least */

ssize_t pool_recv_read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

void recv_view_init(struct recv_view *v, int fd, uint64_t size)
{
	memset(v, 0, sizeof(*v));
	v->fd = fd;
	v->size = size;
	v->page = (uint64_t)sysconf(_SC_PAGESIZE);
}

static void unmap_window(struct recv_view *v)
{
	if (v->map && !v->copied)
		munmap(v->map, v->mlen);
	else
		free(v->map);
	v->map = NULL;
	v->mlen = 0;
}

void recv_view_end(struct recv_view *v)
{
	unmap_window(v);
}

/* The window [OFF rounded down to a page, ...) covering LEN bytes from
 * OFF: mapped, or (a file that cannot be) read into a buffer. */
static int move_window(struct recv_view *v, uint64_t off, size_t len)
{
	uint64_t start = off - off % v->page, end = off + len, want = start + WINDOW;
	struct stat st;
	int copied = v->copied;

	unmap_window(v);
	if (want < end)
		want = end;
	if (want > v->size)
		want = v->size;
	/* a stream file cut shorter since the check would fault the mapping
	 * (SIGBUS): its size is looked at first */
	if (fstat(v->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < want)
		return -EIO;
	v->mlen = (size_t)(want - start);
	v->moff = start;
	if (!copied) {
		/* populated at once (fewer faults), and the next window read
		 * ahead meanwhile */
		void *m = mmap(NULL, v->mlen, PROT_READ, MAP_SHARED | MAP_POPULATE, v->fd,
			       (off_t)start);
		if (m != MAP_FAILED) {
			v->map = m;
			if (want < v->size)
				(void)posix_fadvise(v->fd, (off_t)want, WINDOW, POSIX_FADV_WILLNEED);
			return 0;
		}
		v->copied = 1;	/* (and from now on) */
	}
	if (!(v->map = malloc(v->mlen))) {
		v->mlen = 0;
		return -ENOMEM;
	}
	for (size_t done = 0; done < v->mlen;) {
		ssize_t n = pread(v->fd, v->map + done, v->mlen - done, (off_t)(start + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? -errno : -EIO;
			unmap_window(v);
			return e;
		}
		done += (size_t)n;
	}
	return 0;
}

int recv_view_get(struct recv_view *v, uint64_t off, size_t len, const unsigned char **out)
{
	int e;

	*out = NULL;
	if (off > v->size || len > v->size - off)
		return -EIO;
	if (!v->map || off < v->moff || off + len > v->moff + v->mlen) {
		if ((e = move_window(v, off, len)))
			return e;
	}
	*out = v->map + (off - v->moff);
	return 0;
}

int pool_recv_replay(struct pool_recv *r, uint64_t chunk, uint64_t from,
		     const struct recv_sink *s)
{
	unsigned char head[STREAM_RECORD_SIZE], *chunk_buf = NULL;
	struct recv_view v;
	struct stream_record x;
	struct stat st;
	uint64_t pos = STREAM_HEADER_SIZE;
	int e = 0;

	if (fstat(r->fd, &st))
		return -errno;
	if (posix_memalign((void **)&chunk_buf, 4096, chunk))
		return -ENOMEM;
	recv_view_init(&v, r->fd, (uint64_t)st.st_size);
	while (!e) {
		const unsigned char *p;
		if ((e = recv_view_get(&v, pos, sizeof(head), &p)))
			break;
		memcpy(head, p, sizeof(head));
		pos += sizeof(head);
		stream_record_unpack(head, &x);
		if (x.type == STREAM_END)
			break;
		if (x.offset + x.length <= from) {	/* applied before */
			if (x.type == STREAM_DATA)
				pos += x.length;
			continue;
		}
		if (x.type == STREAM_HOLE) {
			uint64_t first = x.offset / chunk;
			e = s->hole(s->ctx, first, (x.offset + x.length + chunk - 1) / chunk - first);
			if (!e && s->record)
				e = s->record(s->ctx, x.offset + x.length);
			pool_recv_report(r, x.offset + x.length, r->h.size);
			continue;
		}
		if ((e = recv_view_get(&v, pos, (size_t)x.length, &p)))
			break;
		pos += x.length;
		for (uint64_t done = 0; !e && done < x.length;) {
			uint64_t off = x.offset + done, in = off % chunk;
			uint64_t n = chunk - in < x.length - done ? chunk - in : x.length - done;
			uint64_t whole = in ? 0 : (x.length - done) / chunk;
			if (whole) {	/* whole chunks: written from where they are */
				e = s->chunks(s->ctx, off / chunk, p + done, whole);
				done += whole * chunk;
				continue;
			}
			/* a chunk begun in the record before, or the volume's
			 * last (zero-padded), or one the next record ends */
			memcpy(chunk_buf + in, p + done, (size_t)n);
			done += n;
			if (in + n == chunk || off + n == r->h.size) {
				memset(chunk_buf + in + n, 0, (size_t)(chunk - in - n));
				e = s->chunks(s->ctx, off / chunk, chunk_buf, 1);
			}
		}
		/* a record ending inside a chunk continues in the next one */
		if (!e && s->record && ((x.offset + x.length) % chunk == 0 ||
					x.offset + x.length == r->h.size))
			e = s->record(s->ctx, x.offset + x.length);
		pool_recv_report(r, x.offset + x.length, r->h.size);
	}
	recv_view_end(&v);
	free(chunk_buf);
	return e;
}
