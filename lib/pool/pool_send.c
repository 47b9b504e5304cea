/* pool_send.c - a volume's content as a plain image. See pool_send.h.
 *
 * The volume's mappings come from the delta walker (metadata/thin/delta.h,
 * one device against itself: runs of consecutive virtual and data
 * blocks); each run is read from the data area in pieces of at most
 * BUF_SIZE and written out, the gaps between runs as zeros or holes. */
#include "lib/pool/pool_send.h"
#include "lib/pool/pool_int.h"

#include "lib/base/log.h"
#include "metadata/thin/delta.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_SIZE (4u << 20)

struct raw {
	struct pool *p;
	const char *vol;
	int fd, seekable;
	uint64_t chunk, size;		/* bytes */
	uint64_t area_off, area_size;	/* the data area on the data device */
	uint64_t pos;			/* bytes of the image done */
	unsigned char *buf;
	struct pool_send_stats *st;
};

static int write_all(struct raw *w, const void *b, size_t len)
{
	const unsigned char *c = b;

	while (len) {
		ssize_t n = write(w->fd, c, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			log_error("writing the image of %s/%s: %s", w->p->name, w->vol, strerror(e));
			return -e;
		}
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Zeros (or a hole) up to byte END of the image. */
static int gap(struct raw *w, uint64_t end)
{
	int r;

	if (end <= w->pos)
		return 0;
	if (w->seekable) {
		if (lseek(w->fd, (off_t)(end - w->pos), SEEK_CUR) < 0) {
			r = -errno;
			log_error("seeking in the image of %s/%s: %s", w->p->name, w->vol,
				  strerror(errno));
			return r;
		}
		w->pos = end;
		return 0;
	}
	memset(w->buf, 0, BUF_SIZE);
	while (w->pos < end) {
		size_t n = end - w->pos < BUF_SIZE ? (size_t)(end - w->pos) : BUF_SIZE;
		if ((r = write_all(w, w->buf, n)))
			return r;
		w->pos += n;
	}
	return 0;
}

static int run(void *ctx, const struct thin_delta_range *x)
{
	struct raw *w = ctx;
	struct io_engine *data = w->p->pv[VG_ROLE_DATA].io;
	uint64_t off = x->begin * w->chunk, len = x->length * w->chunk;
	uint64_t src = x->left_data * w->chunk;
	int r;

	if (off >= w->size)
		return 0;	/* beyond the end (an interrupted shrink): not content */
	if (len > w->size - off)
		len = w->size - off;
	if (x->left_data >= w->area_size / w->chunk ||
	    x->length > w->area_size / w->chunk - x->left_data) {
		log_error("pool %s: volume %s maps data chunk %" PRIu64 " beyond the data area; "
			  "run tpcheck %s", w->p->name, w->vol, x->left_data + x->length - 1,
			  w->p->name);
		return -EUCLEAN;
	}
	if ((r = gap(w, off)))
		return r;
	while (len) {
		size_t n = len < BUF_SIZE ? (size_t)len : BUF_SIZE;
		if ((r = io_read(data, w->area_off + src, w->buf, n))) {
			log_error("pool %s: reading data chunk %" PRIu64 " of %s: %s", w->p->name,
				  src / w->chunk, w->vol, strerror(-r));
			return r;
		}
		if ((r = write_all(w, w->buf, n)))
			return r;
		w->pos += n;
		w->st->mapped += n;
		src += n;
		len -= n;
	}
	return 0;
}

static int send_raw(struct pool *p, const struct vg_volume *v, int fd,
		    struct pool_send_stats *st)
{
	const char *vol = v->name;
	struct thin_delta_visitor vis;
	struct raw w = { p, vol, fd };
	struct stat sb;
	int r;

	w.chunk = (uint64_t)p->vg->chunk_size * 512;
	w.size = v->size;
	w.area_off = p->pv[VG_ROLE_DATA].label.area[0].offset;
	w.area_size = p->vg->dev[VG_ROLE_DATA].area[0].size;
	w.st = st;
	w.seekable = !fstat(fd, &sb) && S_ISREG(sb.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0;
	if (posix_memalign((void **)&w.buf, 4096, BUF_SIZE))
		return -ENOMEM;
	vis = (struct thin_delta_visitor){ &w, NULL, run };
	r = thin_mappings_io(p->thin_io, 0, v->dev_id, &vis);
	if (!r)
		r = gap(&w, w.size);
	if (!r && w.seekable) {
		off_t end = lseek(fd, 0, SEEK_CUR);
		if (end < 0 || ftruncate(fd, end)) {
			r = -errno;
			log_error("setting the size of the image of %s/%s: %s", p->name, vol,
				  strerror(errno));
		}
	}
	free(w.buf);
	st->size = w.pos;
	return r;
}

int pool_send_raw(struct pool *p, const char *vol, const char *output,
		  struct pool_send_stats *st)
{
	const struct vg_volume *v = vg_find_volume(p->vg, vol);
	int fd = STDOUT_FILENO, r;

	memset(st, 0, sizeof(*st));
	if (!v) {
		log_error("pool %s has no volume '%s'; 'tpstatus %s' lists them", p->name, vol,
			  p->name);
		return -ENOENT;
	}
	if (p->live) {
		log_error("pool %s is active: its volumes change under a reader; deactivate it "
			  "first with 'tpdeactivate %s'", p->name, p->name);
		return -EBUSY;
	}
	if (output && (fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		r = -errno;
		log_error("%s: cannot create: %s", output, strerror(errno));
		return r;
	}
	r = send_raw(p, v, fd, st);
	if (output && close(fd) && !r) {
		r = -errno;
		log_error("%s: %s", output, strerror(errno));
	}
	return r;
}
