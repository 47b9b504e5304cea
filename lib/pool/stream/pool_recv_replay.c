/* pool_recv_replay.c - a checked send stream read again, record by
 * record, into a receiver's sink (pool_recv_int.h): whole chunks of data
 * and runs of holes, in the stream's order. */
#include "lib/pool/stream/pool_recv_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int pool_recv_replay(struct pool_recv *r, uint64_t chunk, uint64_t from,
		     const struct recv_sink *s)
{
	unsigned char head[STREAM_RECORD_SIZE], *chunk_buf = NULL, *buf = NULL;
	struct stream_record x;
	int e = 0;

	if (lseek(r->fd, STREAM_HEADER_SIZE, SEEK_SET) < 0)
		return -errno;
	if (posix_memalign((void **)&chunk_buf, 4096, chunk) ||
	    posix_memalign((void **)&buf, 4096, STREAM_MAX_DATA)) {
		free(chunk_buf);
		return -ENOMEM;
	}
	while (!e) {
		if (pool_recv_read_full(r->fd, head, sizeof(head)) != (ssize_t)sizeof(head)) {
			e = -EIO;
			break;
		}
		stream_record_unpack(head, &x);
		if (x.type == STREAM_END)
			break;
		if (x.offset + x.length <= from) {	/* applied before */
			if (x.type == STREAM_DATA && lseek(r->fd, (off_t)x.length, SEEK_CUR) < 0)
				e = -errno;
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
		if (pool_recv_read_full(r->fd, buf, (size_t)x.length) != (ssize_t)x.length) {
			e = -EIO;
			break;
		}
		for (uint64_t done = 0; !e && done < x.length;) {
			uint64_t off = x.offset + done, in = off % chunk;
			uint64_t n = chunk - in < x.length - done ? chunk - in : x.length - done;
			memcpy(chunk_buf + in, buf + done, (size_t)n);
			done += n;
			if (in + n == chunk || off + n == r->h.size) {
				memset(chunk_buf + in + n, 0, (size_t)(chunk - in - n));
				e = s->chunk(s->ctx, off / chunk, chunk_buf);
			}
		}
		/* a record ending inside a chunk continues in the next one */
		if (!e && s->record && ((x.offset + x.length) % chunk == 0 ||
					x.offset + x.length == r->h.size))
			e = s->record(s->ctx, x.offset + x.length);
		pool_recv_report(r, x.offset + x.length, r->h.size);
	}
	free(chunk_buf);
	free(buf);
	return e;
}
