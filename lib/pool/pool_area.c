/* pool_area.c - bare thin-metadata areas (tpcheck --metadata, tpdump
 * FILE, tprepair --metadata -o, tprestore -o): opened through lib/base,
 * the file itself locked, and a write target that is a pool device
 * refused. See pool_check_int.h. */
#include "lib/pool/pool_check_int.h"
#include "lib/pool/pool_int.h"

#include "lib/base/io_area.h"
#include "lib/base/log.h"

#include <errno.h>
#include <string.h>

void pool_area_close(struct pool_area *a)
{
	io_destroy(a->io);
	tp_lock_release(a->lock);
	a->io = NULL;
	a->lock = NULL;
}

static int area_lock(const char *path, unsigned flags, struct pool_area *a)
{
	int r = tp_lock_file(path, flags, &a->lock);

	if (r == -EWOULDBLOCK) {
		log_error("%s: in use by another tptools command; try again when it has finished",
			  path);
		return -EBUSY;
	}
	if (r)
		log_error("%s: cannot lock: %s", path, strerror(-r));
	return r;
}

int pool_area_open_read(const char *path, uint64_t offset, uint64_t size, struct pool_area *a)
{
	int r;

	memset(a, 0, sizeof(*a));
	r = io_open_area(path, IO_RDONLY, offset, size, &a->io);
	if (!r)
		r = area_lock(path, TP_LOCK_SHARED, a);
	if (r)
		pool_area_close(a);
	return r;
}

/* Does writing [OFFSET, ...) of PATH destroy a pool device's label? */
static int refuse_label(const char *path, uint64_t offset, const char *what_else)
{
	struct vg_label l;
	int r;

	if (offset >= VG_LABEL_OFFSET + VG_LABEL_SIZE)
		return 0;
	r = pool_read_label(path, &l);
	if (r == -EUCLEAN) {
		log_error("%s: refusing to write: it carries a damaged tptools label (a pool "
			  "device?); %s add --force to overwrite it", path, what_else);
		return -EBUSY;
	}
	if (r)
		return 0;
	log_error("%s: refusing to write: it is the %s device of pool %s and writing here "
		  "would destroy the pool; %s add --force to overwrite it", path,
		  vg_role_name(l.role) ? vg_role_name(l.role) : "?", l.pool_name, what_else);
	return -EBUSY;
}

int pool_area_open_write(const char *path, unsigned io_flags, uint64_t offset, uint64_t size,
			 int force, const char *what_else, struct pool_area *a)
{
	int r;

	memset(a, 0, sizeof(*a));
	r = io_open_area(path, io_flags, offset, size, &a->io);
	if (!r)
		r = area_lock(path, TP_LOCK_EXCL | TP_LOCK_NOWAIT, a);
	if (!r && !force)
		r = refuse_label(path, offset, what_else);
	if (r)
		pool_area_close(a);
	return r;
}

int pool_area_check(const char *path, uint64_t offset, uint64_t size,
		    const struct thin_check_opts *opts, struct thin_check_report *rep)
{
	struct pool_area a;
	int r = pool_area_open_read(path, offset, size, &a);

	if (!r)
		r = thin_check_io(a.io, opts, rep);
	pool_area_close(&a);
	return r;
}

int pool_area_repair(const struct pool_repair_params *p, const struct thin_repair_opts *opts,
		     struct thin_repair_report *rep)
{
	struct pool_area in, out = { NULL, NULL };
	int r = pool_area_open_read(p->metadata, p->offset, p->size, &in);

	if (!r)
		r = pool_area_open_write(p->output, 0, 0, 0, p->force, "give another OUT, or", &out);
	if (!r)
		r = thin_repair_io(in.io, out.io, opts, rep);
	if (!r)
		r = io_flush(out.io);
	pool_area_close(&in);
	pool_area_close(&out);
	return r;
}
