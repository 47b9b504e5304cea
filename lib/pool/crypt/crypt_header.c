/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_header.c - an encrypted volume's LUKS2 header read out of the
 * pool and loaded by libcryptsetup (pool_crypt.h).
 *
 * The volume is no block device offline, so its first bytes, up to the
 * header's data offset, are copied chunk by chunk through the committed
 * thin metadata (pool_meta_view: live, the kernel's metadata snapshot)
 * into a private temporary file that has no name (pc_tmpfile: nothing is
 * left behind, whatever stops the command), sparse where the volume maps
 * nothing.
 * First the volume's first 16 MiB (all of the header as libcryptsetup
 * lays it out by default), then, should the loaded header say its data
 * begins further on, the rest of it. Nothing after the data offset, the
 * ciphertext, is read. The header must be LUKS2 and carry the uuid the
 * VG recorded for the volume before any key is tried on it: a header
 * with another uuid (another volume's bytes copied in, a guest's own
 * LUKS) is never taken for the volume's. */
#include "lib/pool/pool_crypt.h"
#include "lib/pool/core/core.h"
#include "lib/pool/crypt/crypt_int.h"
#include "metadata/thin/delta.h"

#include "lib/base/critical.h"
#include "lib/base/dmlog.h"
#include "lib/base/log.h"
#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define FIRST_READ (16ull << 20)	/* bytes of the volume read before the header is loaded */
#define PIECE (1u << 20)		/* bytes read at a time */
#define FILE_MAX (1ull << 30)		/* the temporary file's size, at most (sparse) */

struct reader {
	struct pool *p;
	uint32_t dev_id;
	uint64_t chunk, area;
	struct pool_meta_view view;
	int view_open;
	struct io_engine *rd, *own;
	unsigned char *buf;
};

/* Bytes [FROM, TO) of the volume (FROM a multiple of the chunk size) into
 * FD at the same offsets; what the volume does not map is left a hole.
 * 0 or -errno with WHY filled. */
static int copy_range(struct reader *rd, int fd, uint64_t from, uint64_t to, char *why,
		      size_t len)
{
	for (uint64_t c = from / rd->chunk; c * rd->chunk < to; c++) {
		uint64_t dblock, end = TP_MIN((c + 1) * rd->chunk, to);
		int r = thin_lookup_io(rd->view.io, rd->view.flags, rd->dev_id, c, &dblock);

		if (r == -ENODATA)
			continue;	/* unmapped: zeros */
		if (r) {
			snprintf(why, len, "cannot read the mapping of its chunk %" PRIu64 ": %s", c,
				 strerror(-r));
			return r;
		}
		if (dblock >= vg_data_chunks(pool_vg(rd->p))) {
			snprintf(why, len, "its chunk %" PRIu64 " maps data chunk %" PRIu64
				 " beyond the data area", c, dblock);
			return -EUCLEAN;
		}
		for (uint64_t at = c * rd->chunk; at < end; at += PIECE) {
			size_t n = (size_t)TP_MIN((uint64_t)PIECE, end - at);
			/* whole 4 KiB blocks: the reader may be O_DIRECT */
			size_t rn = (n + 4095) & ~(size_t)4095;
			uint64_t src = rd->area + dblock * rd->chunk + (at - c * rd->chunk);

			if ((r = io_read(rd->rd, src, rd->buf, rn))) {
				snprintf(why, len, "cannot read data chunk %" PRIu64 ": %s", dblock,
					 strerror(-r));
				return r;
			}
			if (pwrite(fd, rd->buf, n, (off_t)at) != (ssize_t)n) {
				r = -errno;
				snprintf(why, len, "cannot write the temporary file: %s",
					 strerror(errno));
				return r;
			}
		}
	}
	return 0;
}

static int reader_begin(struct pool *p, const struct vg_volume *v, struct reader *rd)
{
	int r;

	memset(rd, 0, sizeof(*rd));
	rd->p = p;
	rd->dev_id = v->dev_id;
	rd->chunk = (uint64_t)pool_vg(p)->chunk_size * 512;
	rd->area = pool_pv(p, VG_ROLE_DATA)->label.area[0].offset;
	if (posix_memalign((void **)&rd->buf, 4096, PIECE))
		return -ENOMEM;
	if ((r = pool_meta_view_begin(p, &rd->view)))
		return r;
	rd->view_open = 1;
	return pool_data_reader(p, &rd->rd, &rd->own);
}

static int reader_end(struct reader *rd)
{
	int r = rd->view_open ? pool_meta_view_end(&rd->view) : 0;

	io_destroy(rd->own);
	free(rd->buf);
	return r;
}

void pool_crypt_header_close(struct pool_crypt_header *h)
{
	if (h->cd)
		crypt_free(h->cd);
	h->cd = NULL;
	if (h->fd >= 0)
		close(h->fd);	/* the file has no name: it is gone */
	h->fd = -1;
	h->path[0] = '\0';
	tp_dmlog_reclaim();	/* libcryptsetup resets libdevmapper's log when done */
}

/* Load H's file as a LUKS header: 0, or -EUCLEAN with WHY. */
static int load(struct pool_crypt_header *h, char *why, size_t len)
{
	struct crypt_device *cd = NULL;
	int r;

	if (h->cd)
		crypt_free(h->cd);
	h->cd = NULL;
	pc_clear_error();
	if ((r = crypt_init(&cd, h->path)) < 0) {
		snprintf(why, len, "libcryptsetup cannot open the copy of its header: %s",
			 pc_last_error());
		return r;
	}
	if ((r = crypt_load(cd, CRYPT_LUKS, NULL)) < 0) {
		/* the host's failure (memory, the temporary file's I/O) is no
		 * verdict on the header: the caller says it could not check */
		if (r == -ENOMEM || r == -EIO || r == -ENOSPC || r == -EBUSY || r == -EACCES ||
		    r == -EPERM || r == -ENOENT) {
			snprintf(why, len, "libcryptsetup could not read the copy of its header: %s",
				 pc_last_error());
			crypt_free(cd);
			return r;
		}
		snprintf(why, len, "it begins with no LUKS header that libcryptsetup can read (%s)",
			 r == -EINVAL ? "no valid header found" : pc_last_error());
		crypt_free(cd);
		return -EUCLEAN;
	}
	if (strcmp(crypt_get_type(cd), CRYPT_LUKS2)) {
		snprintf(why, len, "it begins with a %s header, not the LUKS2 header tptools made",
			 crypt_get_type(cd));
		crypt_free(cd);
		return -EUCLEAN;
	}
	h->cd = cd;
	return 0;
}

/* The work of pool_crypt_header_open and _probe: 0, or the error with a
 * sentence in WHY (about VOL: "volume P/V: " comes before it). */
static int header_open(struct pool *p, const char *vol, struct pool_crypt_header *h, char *why,
		       size_t len)
{
	const struct vg_volume *v = vg_find_volume(pool_vg(p), vol);
	struct reader rd;
	const char *u;
	uint64_t first, off;
	int r, e;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	pc_log_setup();
	if (!v) {
		snprintf(why, len, "no such volume (tpstatus %s lists them)", pool_name(p));
		return -ENOENT;
	}
	if (!v->luks_uuid[0]) {
		snprintf(why, len, "not an encrypted volume");
		return -EINVAL;
	}
	snprintf(h->volume, sizeof(h->volume), "%s", vol);
	h->vol_size = v->size;
	if ((h->fd = pc_tmpfile("a copy of a LUKS2 header", TP_MIN(v->size, FILE_MAX),
				   h->path)) < 0) {
		r = h->fd;
		h->fd = -1;
		snprintf(why, len, "no temporary file for its header: %s", strerror(-r));
		return r;
	}
	first = TP_MIN(v->size, FIRST_READ);
	if ((r = reader_begin(p, v, &rd))) {
		snprintf(why, len, "cannot read the pool: %s", strerror(-r));
		goto out;
	}
	if ((r = copy_range(&rd, h->fd, 0, first, why, len)) || (r = load(h, why, len)))
		goto out;
	tp_test_pause("crypt-header-loaded");
	off = crypt_get_data_offset(h->cd) * 512;
	if (off > v->size) {
		char a[32], b[32];
		snprintf(why, len, "its LUKS2 header puts the data at %s, beyond the volume's %s",
			 tp_size_format(off, 'h', a, sizeof(a)),
			 tp_size_format(v->size, 'h', b, sizeof(b)));
		r = -EUCLEAN;
		goto out;
	}
	if (off > first) {	/* a header larger than libcryptsetup's default layout */
		if (off > TP_MIN(v->size, FILE_MAX) && ftruncate(h->fd, (off_t)off)) {
			r = -errno;
			snprintf(why, len, "cannot size the temporary file: %s", strerror(errno));
			goto out;
		}
		first = first / rd.chunk * rd.chunk;
		if ((r = copy_range(&rd, h->fd, first, off, why, len)) || (r = load(h, why, len)))
			goto out;
	}
	h->data_offset = off;
	u = crypt_get_uuid(h->cd);
	snprintf(h->uuid, sizeof(h->uuid), "%s", u ? u : "");
	if (strcasecmp(h->uuid, v->luks_uuid)) {
		snprintf(why, len, "its LUKS2 header has uuid %s, not the %s the pool recorded "
			 "for it: these are not the volume's own bytes", h->uuid[0] ? h->uuid : "(none)",
			 v->luks_uuid);
		r = -ESTALE;
	}
out:
	e = reader_end(&rd);
	if (!r && e) {
		snprintf(why, len, "releasing the pool's metadata view: %s", strerror(-e));
		r = e;
	}
	if (r)
		pool_crypt_header_close(h);
	tp_dmlog_reclaim();
	return r;
}

/* What to do after a header error R of volume VOL. */
static const char *advice(int r)
{
	switch (r) {
	case -EUCLEAN:
	case -ESTALE:
		return "its data cannot be unlocked; 'tpcheck' of the pool names a snapshot "
		       "that holds a sound copy of its header, if one does";
	default:
		return "nothing was changed";
	}
}

int pool_crypt_header_open(struct pool *p, const char *vol, struct pool_crypt_header *h)
{
	char why[512] = "";
	int r = header_open(p, vol, h, why, sizeof(why));

	if (r)
		log_error("volume %s/%s: %s; %s", pool_name(p), vol, why, advice(r));
	return r;
}

int pool_crypt_header_probe(struct pool *p, const char *vol, char *why, size_t len)
{
	struct pool_crypt_header h;
	int r = header_open(p, vol, &h, why, len);

	if (!r)
		pool_crypt_header_close(&h);
	return r;
}

int pool_crypt_check_key(struct pool *p, const char *vol, const struct pool_key *key)
{
	struct pool_crypt_header h;
	int r;

	if ((r = pool_crypt_header_open(p, vol, &h)))
		return r;
	pc_clear_error();
	/* no name: the key is checked against the keyslots, nothing is activated */
	r = crypt_activate_by_passphrase(h.cd, NULL, CRYPT_ANY_SLOT, (const char *)key->data,
					 key->len, 0);
	if (r == -EPERM)
		log_error("volume %s/%s: the key given opens none of its keyslots", pool_name(p),
			  vol);
	else if (r < 0)
		log_error("volume %s/%s: libcryptsetup could not try the key: %s", pool_name(p),
			  vol, pc_last_error());
	pool_crypt_header_close(&h);
	return r < 0 ? r : 0;
}
