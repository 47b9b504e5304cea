/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_dump.c - tpdump, tprestore and tprmap. See pool_dump.h, pool_rmap.h. */
#include "lib/pool/pool_dump.h"
#include "lib/pool/pool_rmap.h"
#include "lib/pool/check/pool_check_int.h"

#include "lib/base/crc32c.h"
#include "lib/base/critical.h"
#include "lib/base/le.h"
#include "lib/dev/discard.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "metadata/pdata/pack.h"
#include "metadata/pdata/space_map.h"
#include "metadata/thin/rmap.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"
#include "metadata/thin/xml_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(POOL_MAX_DEV_ID == THIN_MAX_DEV_ID, "pool and thin device id ranges differ");
_Static_assert((int)POOL_DUMP_XML == (int)THIN_EMIT_XML &&
	       (int)POOL_DUMP_HUMAN == (int)THIN_EMIT_HUMAN,
	       "enum pool_dump_format differs from enum thin_emit_format");

/* Past the caller's input, an error is a failure of the work (exit 5). */
static int work_failed(int r)
{
	return r == -EINVAL || r == -ERANGE ? -EIO : r;
}

int pool_dump_source_is_pool(const char *source)
{
	return access(source, F_OK) && vg_name_valid(source, NULL);
}

struct pack_dest {
	int fd;
	const char *name;
};

static int pack_out(void *ctx, const void *buf, size_t len)
{
	const struct pack_dest *d = ctx;
	int r = tp_write_all(d->fd, buf, len);

	if (r)
		log_error("%s: cannot write: %s", d->name, strerror(-r));
	return r;
}

/* Every metadata block of the area, whole blocks (a partial last one is
 * not metadata). */
static int pack_dump(const struct pool_dump_params *p, struct io_engine *meta, int fd)
{
	struct pack_dest d = { fd, p->output ? p->output : "standard output" };
	uint64_t n = meta->size / PACK_BLOCK_SIZE;

	if (!n) {
		log_error("%s: %" PRIu64 " bytes, not one 4 KiB metadata block to pack", meta->name,
			  meta->size);
		return -EIO;
	}
	return pack_write(meta, n, pack_out, &d, p->progress, p->progress_ctx);
}

static int dump_to(const struct pool_dump_params *p, struct io_engine *meta, int fd)
{
	struct thin_dump_opts d = {
		.format = (enum thin_emit_format)p->format,
		.walk_flags = (p->metadata_snap ? THIN_WALK_METADATA_SNAP : 0) |
			      (p->skip_mappings ? THIN_WALK_SKIP_MAPPINGS : 0),
		.one_device = p->one_device,
		.dev_id = p->dev_id,
		.progress = p->progress,
		.progress_ctx = p->progress_ctx,
	};

	if (p->format == POOL_DUMP_PACK)
		return pack_dump(p, meta, fd);
	return thin_xml_dump(meta, &d, fd);
}

/* The source: a pool's active thin metadata, read through the pool (a
 * mirrored pool's legs, the first copy that validates: core.h
 * pool_meta_area_io; offline only, the kernel's may be ahead of the
 * disk), else a bare area. */
struct source {
	struct pool *pool;
	struct io_engine *area;	/* the pool's */
	struct pool_area a;	/* a bare area's */
};

static int open_source(const struct pool_dump_params *p, struct source *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	if (!pool_dump_source_is_pool(p->source))
		return pool_area_open_read(p->source, p->offset, p->size, &s->a);
	if ((r = pool_open(p->source, p->devices, POOL_RDONLY, &s->pool)))
		return r;
	if (!(r = pool_refuse_live(s->pool, "reading its thin metadata from the disk (the "
					      "kernel's may be ahead of it)")) &&
	    !(r = pool_meta_area_io(s->pool, 0, &s->area)))
		s->area->read_only = 1;
	return r;
}

static void close_source(struct source *s)
{
	io_destroy(s->area);
	pool_close(s->pool);
	pool_area_close(&s->a);
}

/* Before -o FILE is opened for writing: never the source itself (-EINVAL,
 * exit 3), never a block device without --force, never a file or device
 * that carries a tptools label, a pool's VG metadata or another signature
 * without --force (the checks of a restore's target: -EBUSY). *EXISTS,
 * *OST: FILE as it is. */
static int output_check(const struct pool_dump_params *p, int *exists, struct stat *ost)
{
	struct pool_area a;
	struct stat in;
	int r;

	*exists = 0;
	if (stat(p->output, ost)) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		log_error("%s: %s", p->output, strerror(errno));
		return r;
	}
	*exists = 1;
	if (!pool_dump_source_is_pool(p->source) && !stat(p->source, &in) &&
	    ((ost->st_dev == in.st_dev && ost->st_ino == in.st_ino) ||
	     (S_ISBLK(ost->st_mode) && S_ISBLK(in.st_mode) && ost->st_rdev == in.st_rdev))) {
		log_error("%s: refusing to write: it is the metadata being dumped (%s); nothing "
			  "was written: give -o another file", p->output, p->source);
		return -EINVAL;
	}
	if (S_ISBLK(ost->st_mode) && !p->force) {
		log_error("%s: refusing to write: it is a block device; write the dump to a file, "
			  "or add --force to write it onto the device", p->output);
		return -EBUSY;
	}
	if (!S_ISBLK(ost->st_mode) && !(S_ISREG(ost->st_mode) && ost->st_size > 0))
		return 0;
	r = pool_area_open_write(p->output, 0, 0, 0, p->force, "write the dump to another "
				 "file, or", &a);
	pool_area_close(&a);
	return r;
}

/* Where the dump goes: a regular file (or a new one) through a temporary
 * file next to it, renamed over it once the dump is whole (*TMP, caller
 * frees), anything else (a device, a pipe) opened as it is, not
 * truncated. */
static int output_open(const struct pool_dump_params *p, int exists, const struct stat *ost,
		       char **tmp, char **final)
{
	int fd;

	*tmp = *final = NULL;
	if (exists && !S_ISREG(ost->st_mode)) {
		fd = open(p->output, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			log_error("%s: cannot open: %s", p->output, strerror(errno));
		}
		return fd;
	}
	/* a symbolic link keeps pointing at the file it names */
	if (!(*final = exists ? realpath(p->output, NULL) : strdup(p->output)) ||
	    !(*tmp = malloc(strlen(*final) + 16))) {
		free(*final);
		*final = NULL;
		return -ENOMEM;
	}
	sprintf(*tmp, "%s.tmp-XXXXXX", *final);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		fd = -errno;
		log_error("%s: cannot create a temporary file next to it: %s", p->output,
			  strerror(errno));
		free(*tmp);
		free(*final);
		*tmp = *final = NULL;
		return fd;
	}
	if (fchmod(fd, exists ? (ost->st_mode & 07777) : 0644))
		log_warn("%s: cannot set its mode: %s", *tmp, strerror(errno));
	return fd;
}

int pool_dump(const struct pool_dump_params *p)
{
	struct source s;
	struct stat ost;
	char *tmp = NULL, *final = NULL;
	int fd = STDOUT_FILENO, exists = 0, r = 0;

	if (p->output && (r = output_check(p, &exists, &ost)))
		return r == -EINVAL ? r : work_failed(r);
	if ((r = open_source(p, &s))) {
		close_source(&s);
		return r;
	}
	if (p->output && (fd = output_open(p, exists, &ost, &tmp, &final)) < 0) {
		close_source(&s);
		return work_failed(fd);
	}
	r = dump_to(p, s.area ? s.area : s.a.io, fd);
	if (p->output && !r && tmp && fsync(fd)) {
		r = -errno;
		log_error("%s: %s", p->output, strerror(errno));
	}
	if (p->output && close(fd) && !r) {
		r = -errno;
		log_error("%s: %s", p->output, strerror(errno));
	}
	if (tmp && !r && rename(tmp, final)) {
		r = -errno;
		log_error("%s: cannot put the dump in place: %s", p->output, strerror(errno));
	}
	if (tmp && r)
		unlink(tmp);
	free(tmp);
	free(final);
	close_source(&s);
	return work_failed(r);
}

/* Read up to N bytes at most (short only at the end of the input). */
static ssize_t read_full(int fd, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* The whole pack into memory: its header checked as soon as it is read
 * (a pack of more than TARGET_BLOCKS blocks, or no pack, is refused before
 * more is read), then at most what a pack of the header's blocks can be
 * (a block packs into no more than its 4 KiB, its number and a few bytes
 * of code; zlib adds 5 bytes in 16 KiB at worst). 0 and *BUF (caller
 * frees), or -errno, logged. */
static int pack_slurp(int fd, const char *name, uint64_t target_blocks, unsigned char **buf,
		      size_t *len)
{
	unsigned char head[PACK_HEADER_SIZE];
	size_t cap, n = PACK_HEADER_SIZE;
	uint64_t nr, max;
	unsigned char *b;
	struct stat st;
	ssize_t k = read_full(fd, head, sizeof(head));
	int r;

	if (k < 0) {
		log_error("%s: cannot read: %s", name, strerror((int)-k));
		return (int)k;
	}
	if ((size_t)k < sizeof(head)) {
		log_error("%s: not a usable thin_metadata_pack file: %zd bytes, shorter than the "
			  "%u-byte header", name, k, PACK_HEADER_SIZE);
		return -EUCLEAN;
	}
	if ((r = pack_header(head, name, target_blocks, &nr)))
		return r;
	max = PACK_HEADER_SIZE + nr * (PACK_BLOCK_SIZE + 64) + (1u << 20);
	if (max > SIZE_MAX / 2)
		return -ENOMEM;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		log_error("%s: %" PRIu64 " bytes, more than any pack of %" PRIu64 " blocks can be",
			  name, (uint64_t)st.st_size, nr);
		return -EUCLEAN;
	}
	cap = max < (1u << 20) ? (size_t)max : 1u << 20;
	if (!(b = malloc(cap)))
		return -ENOMEM;
	memcpy(b, head, sizeof(head));
	for (;;) {
		if (n == cap) {
			unsigned char *nb;
			size_t ncap = cap * 2 < max ? cap * 2 : (size_t)max;

			if (n >= max) {
				/* one more byte says whether the input goes on */
				unsigned char x;

				k = read_full(fd, &x, 1);
				if (k == 0)
					break;
				free(b);
				if (k < 0) {
					log_error("%s: cannot read: %s", name, strerror((int)-k));
					return (int)k;
				}
				log_error("%s: more than %" PRIu64 " bytes, more than any pack of "
					  "%" PRIu64 " blocks can be", name, max, nr);
				return -EUCLEAN;
			}
			if (!(nb = realloc(b, ncap))) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap = ncap;
		}
		k = read_full(fd, b + n, cap - n);
		if (k < 0) {
			free(b);
			log_error("%s: cannot read: %s", name, strerror((int)-k));
			return (int)k;
		}
		n += (size_t)k;
		if (n < cap)
			break;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* ---- is the pack whole metadata? ----
 *
 * Both packers (ours and thin_metadata_pack) pack the blocks whose
 * checksum matches a block type and leave out the rest, so a pack cut at a
 * chunk boundary is a well-formed pack of fewer blocks. What tells it from
 * a whole one is the metadata itself: block 0 must be a thin superblock,
 * and every block its metadata space map marks in use (its index block
 * and bitmaps, the trees' roots among them) must be packed. */

struct pack_scan {
	unsigned char *seen;	/* a bit a packed block */
	uint64_t nr;		/* the header's blocks */
	const uint64_t *want;	/* sorted block numbers to copy */
	unsigned nr_want;
	unsigned char *got;	/* their contents, PACK_BLOCK_SIZE each */
	unsigned char *have;	/* a byte each: copied */
};

static int scan_put(void *ctx, uint64_t b, const unsigned char *block)
{
	struct pack_scan *s = ctx;
	unsigned lo = 0, hi = s->nr_want;

	s->seen[b / 8] |= (unsigned char)(1u << (b % 8));
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (s->want[mid] == b) {
			memcpy(s->got + (size_t)mid * PACK_BLOCK_SIZE, block, PACK_BLOCK_SIZE);
			s->have[mid] = 1;
			break;
		}
		if (s->want[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int scan_seen(const struct pack_scan *s, uint64_t b)
{
	return b < s->nr && (s->seen[b / 8] & (1u << (b % 8)));
}

static int csum_is(const unsigned char *block, uint32_t salt)
{
	return (tp_crc32c(0xffffffffu, block + 4, PACK_BLOCK_SIZE - 4) ^ salt) == le32_get(block);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One decode pass copying the blocks WANT (N of them, sorted in place). */
static int scan_pass(const unsigned char *pack, size_t len, const char *name, uint64_t max,
		     struct pack_scan *s, uint64_t *want, unsigned n)
{
	qsort(want, n, sizeof(*want), cmp_u64);
	s->want = want;
	s->nr_want = n;
	free(s->got);
	free(s->have);
	s->got = malloc((size_t)(n ? n : 1) * PACK_BLOCK_SIZE);
	s->have = calloc(n ? n : 1, 1);
	if (!s->got || !s->have)
		return -ENOMEM;
	memset(s->seen, 0, s->nr / 8 + 1);
	return pack_read(pack, len, name, max, scan_put, s, NULL, NULL);
}

#define MISSING_SHOWN 5

struct missing {
	uint64_t count, first[MISSING_SHOWN];
	char what[200];		/* the first reason, in words */
};

static void missing_add(struct missing *m, uint64_t b)
{
	if (m->count < MISSING_SHOWN)
		m->first[m->count] = b;
	m->count++;
}

/* 0 when the pack (decoded whole, without errors) is complete metadata,
 * else -EUCLEAN with M saying what is missing; -errno on other errors. */
static int pack_completeness(const unsigned char *pack, size_t len, const char *name,
			     uint64_t max, uint64_t nr, struct missing *m)
{
	struct pack_scan s = { .nr = nr };
	uint64_t want[SM_MAX_METADATA_BITMAPS + 1], bitmaps[SM_MAX_METADATA_BITMAPS];
	struct thin_sb sb;
	unsigned nb;
	int r;

	memset(m, 0, sizeof(*m));
	if (!(s.seen = calloc(nr / 8 + 1, 1)))
		return -ENOMEM;
	want[0] = THIN_SB_BLOCK;
	if ((r = scan_pass(pack, len, name, max, &s, want, 1)))
		goto out;
	if (!s.have[0] || !csum_is(s.got, THIN_SB_CSUM_XOR) ||
	    le64_get(s.got + 32) != THIN_SB_MAGIC) {
		snprintf(m->what, sizeof(m->what), "block 0 is %s",
			 s.have[0] ? "packed but no thin superblock" : "not packed: no thin "
								    "superblock");
		missing_add(m, 0);
		r = -EUCLEAN;
		goto out;
	}
	thin_sb_unpack(s.got, &sb);
	nb = (unsigned)((sb.meta_sm.nr_blocks + SM_ENTRIES_PER_BITMAP - 1) / SM_ENTRIES_PER_BITMAP);
	if (!sb.meta_sm.nr_blocks || nb > SM_MAX_METADATA_BITMAPS) {
		snprintf(m->what, sizeof(m->what), "its superblock's metadata space map counts "
			 "%" PRIu64 " blocks", sb.meta_sm.nr_blocks);
		r = -EUCLEAN;
		goto out;
	}
	{
		const uint64_t roots[] = { sb.meta_sm.bitmap_root, sb.mapping_root,
					   sb.details_root, sb.data_sm.bitmap_root };
		const char *names[] = { "metadata space map index", "mapping tree root",
					"device details root", "data space map root" };

		for (unsigned i = 0; i < 4; i++)
			if (!scan_seen(&s, roots[i])) {
				if (!m->count)
					snprintf(m->what, sizeof(m->what), "its %s (block %" PRIu64
						 ") is not packed", names[i], roots[i]);
				missing_add(m, roots[i]);
			}
		if (m->count) {
			r = -EUCLEAN;
			goto out;
		}
	}
	want[0] = sb.meta_sm.bitmap_root;
	if ((r = scan_pass(pack, len, name, max, &s, want, 1)))
		goto out;
	if (!csum_is(s.got, SM_INDEX_CSUM_XOR)) {
		snprintf(m->what, sizeof(m->what), "block %" PRIu64 ", its metadata space map's "
			 "index, is packed as another block type", want[0]);
		missing_add(m, want[0]);
		r = -EUCLEAN;
		goto out;
	}
	for (unsigned i = 0; i < nb; i++)
		bitmaps[i] = want[i] = le64_get(s.got + 16 + (size_t)i * SM_INDEX_ENTRY_SIZE);
	if ((r = scan_pass(pack, len, name, max, &s, want, nb)))
		goto out;
	for (unsigned i = 0; i < nb; i++) {
		const unsigned char *bm = NULL;

		for (unsigned k = 0; k < nb; k++)
			if (want[k] == bitmaps[i] && s.have[k])
				bm = s.got + (size_t)k * PACK_BLOCK_SIZE;
		if (!bm || !csum_is(bm, SM_BITMAP_CSUM_XOR)) {
			if (!m->count)
				snprintf(m->what, sizeof(m->what), "its metadata space map's bitmap "
					 "%u (block %" PRIu64 ") is not packed", i, bitmaps[i]);
			missing_add(m, bitmaps[i]);
			continue;
		}
		for (uint64_t j = 0; j < SM_ENTRIES_PER_BITMAP; j++) {
			uint64_t b = (uint64_t)i * SM_ENTRIES_PER_BITMAP + j;
			uint64_t w = le64_get(bm + 16 + 8 * (j / 32));

			if (b >= sb.meta_sm.nr_blocks)
				break;
			if ((w >> (2 * (j % 32)) & 3) && !scan_seen(&s, b)) {
				if (!m->count)
					snprintf(m->what, sizeof(m->what), "blocks its metadata space "
						 "map marks in use are not packed");
				missing_add(m, b);
			}
		}
	}
	r = m->count ? -EUCLEAN : 0;
out:
	free(s.seen);
	free(s.got);
	free(s.have);
	return r;
}

/* Refuse (unless FORCE: warn) a pack that is not complete metadata. */
static int pack_complete(const struct pool_restore_params *p, const unsigned char *pack,
			 size_t len, const char *name, uint64_t max, uint64_t nr,
			 const char *target)
{
	struct missing m;
	char list[MISSING_SHOWN * 24 + 8] = "";
	int r = pack_completeness(pack, len, name, max, nr, &m);

	if (r != -EUCLEAN)
		return r;
	for (uint64_t i = 0; i < m.count && i < MISSING_SHOWN; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%" PRIu64,
			 i ? ", " : "", m.first[i]);
	if (m.count > MISSING_SHOWN)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", ...");
	if (p->force) {
		log_warn("%s: not complete metadata: %s (%" PRIu64 " block%s missing%s%s); "
			 "restoring what it holds anyway (--force), the missing blocks zeroed",
			 name, m.what, m.count, m.count == 1 ? "" : "s", *list ? ": " : "", list);
		return 0;
	}
	log_error("%s: not complete metadata: %s (%" PRIu64 " block%s missing%s%s); the pack "
		  "is cut short or was packed from damaged metadata (a packer leaves out blocks "
		  "whose checksum fails)", name, m.what, m.count, m.count == 1 ? "" : "s",
		  *list ? ": " : "", list);
	log_error("%s: nothing was written; restore from an intact copy of the pack, or add "
		  "--force to restore the blocks it holds with the missing ones zeroed", target);
	return -EUCLEAN;
}

struct pack_target {
	struct io_engine *io;
	unsigned char *written;	/* a bit a block of the area */
	unsigned char *sb;	/* block 0 */
	uint64_t done, total;
	unsigned long writes;	/* for the restore-write=N test pause */
	const struct pool_restore_params *p;
};

static int pack_put(void *ctx, uint64_t b, const unsigned char *block)
{
	struct pack_target *t = ctx;
	int r;

	t->written[b / 8] |= (unsigned char)(1u << (b % 8));
	if (!b) {
		memcpy(t->sb, block, PACK_BLOCK_SIZE);	/* written last */
		return 0;
	}
	/* a cut here leaves the superblock zeroed (t-pack) */
	tp_test_pause_n("restore-write", ++t->writes);
	if ((r = io_write(t->io, b * PACK_BLOCK_SIZE, block, PACK_BLOCK_SIZE)))
		log_error("%s: cannot write block %" PRIu64 ": %s", t->io->name, b, strerror(-r));
	if (t->p->progress && !(++t->done % 256))
		t->p->progress(t->p->progress_ctx, t->done, t->total);
	return r;
}

#define ZERO_RUN 256u	/* blocks a write of zeros */

/* Zeros over every block of the area the pack did not write, but 0: a
 * regular file's gaps punched out (a sparse image stays sparse), a block
 * device's zeroed by BLKZEROOUT, through ZFD (the target opened again,
 * BASE the area's offset in it); zeros written where that cannot be. */
static int pack_zero_rest(struct pack_target *t, const unsigned char *zeros, int zfd,
			  uint64_t base)
{
	uint64_t nr = t->io->size / PACK_BLOCK_SIZE;
	enum tp_discard_kind kind;
	int fast = zfd >= 0 && !tp_discard_kind(zfd, &kind);

	for (uint64_t b = 1; b < nr;) {
		uint64_t n = 0;
		int r;

		if (t->written[b / 8] & (1u << (b % 8))) {
			b++;
			continue;
		}
		while (b + n < nr && (fast || n < ZERO_RUN) &&
		       !(t->written[(b + n) / 8] & (1u << ((b + n) % 8))))
			n++;
		if (fast && !tp_zero_range(zfd, kind, base + b * PACK_BLOCK_SIZE,
					   n * PACK_BLOCK_SIZE)) {
			b += n;
			continue;
		}
		fast = 0;	/* not supported here: zeros from now on */
		if (n > ZERO_RUN)
			n = ZERO_RUN;
		if ((r = io_write(t->io, b * PACK_BLOCK_SIZE, zeros, n * PACK_BLOCK_SIZE))) {
			log_error("%s: cannot zero blocks %" PRIu64 "-%" PRIu64 ": %s", t->io->name, b,
				  b + n - 1, strerror(-r));
			return r;
		}
		b += n;
	}
	if (zfd >= 0 && fsync(zfd)) {
		int r = -errno;

		log_error("%s: cannot flush: %s", t->io->name, strerror(errno));
		return r;
	}
	return 0;
}

static int pack_flush(struct io_engine *io)
{
	int r = io_flush(io);

	if (r)
		log_error("%s: cannot flush: %s", io->name, strerror(-r));
	return r;
}

/* What to do next when a pack could not be read (R): nothing was written. */
static int pack_refused(const struct io_engine *io, int r)
{
	if (r == -EUCLEAN)
		log_error("%s: nothing was written; restore from an intact copy of the pack",
			  io->name);
	else if (r == -ENOSPC)
		log_error("%s: nothing was written; restore into a file, device or area at "
			  "least as large as the pack's metadata", io->name);
	return r;
}

/* The pack validated whole, then written: superblock zeroed, the other
 * blocks and zeros, then the superblock. */
static int pack_restore(const struct pool_restore_params *p, int fd, const char *name,
			struct io_engine *io)
{
	struct pack_target t = { .io = io, .p = p };
	uint64_t nr = io->size / PACK_BLOCK_SIZE, packed, nr_pack;
	unsigned char *pack = NULL, *zeros = NULL, *sb = NULL;
	size_t len = 0;
	int zfd = -1, r;

	r = pack_slurp(fd, name, nr, &pack, &len);
	if (r)
		return pack_refused(io, r);
	if ((r = pack_read(pack, len, name, nr, NULL, NULL, &nr_pack, &packed))) {
		pack_refused(io, r);
		goto out;
	}
	if ((r = pack_complete(p, pack, len, name, nr, nr_pack, io->name)))
		goto out;
	t.total = packed;
	if (!(t.written = calloc(nr / 8 + 1, 1)) ||
	    !(zeros = calloc(ZERO_RUN, PACK_BLOCK_SIZE)) || !(t.sb = sb = calloc(1, PACK_BLOCK_SIZE))) {
		r = -ENOMEM;
		goto out;
	}
	/* the target again, for zeroing without writing (pack_zero_rest;
	 * none: zeros written) */
	zfd = open(p->output, O_WRONLY | O_CLOEXEC);
	if ((r = io_write(io, 0, zeros, PACK_BLOCK_SIZE)) || (r = io_flush(io))) {
		log_error("%s: cannot clear the superblock: %s", io->name, strerror(-r));
		goto out;
	}
	if ((r = pack_read(pack, len, name, nr, pack_put, &t, NULL, NULL)) ||
	    (r = pack_zero_rest(&t, zeros, zfd, p->offset)) || (r = pack_flush(io)))
		goto out;
	if (t.written[0] && (r = io_write(io, 0, sb, PACK_BLOCK_SIZE))) {
		log_error("%s: cannot write the superblock: %s", io->name, strerror(-r));
		goto out;
	}
	if ((r = pack_flush(io)))
		goto out;
	if (p->progress)
		p->progress(p->progress_ctx, packed, packed);
out:
	if (zfd >= 0)
		close(zfd);
	free(t.written);
	free(zeros);
	free(sb);
	free(pack);
	return r;
}

int pool_restore(const struct pool_restore_params *p)
{
	int named = strcmp(p->input, "-") != 0;
	int fd = named ? open(p->input, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	struct pool_area a;
	int r;

	if (fd < 0) {
		r = -errno;
		log_error("%s: cannot open: %s", p->input, strerror(errno));
		return work_failed(r);
	}
	if (!p->pack) {
		/* a pack given as XML: said at once (an input that cannot be
		 * read twice, a pipe, gets the XML parser's error) */
		unsigned char head[8];

		if (pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
		    pack_is_pack(head, sizeof(head))) {
			log_error("%s: this is a thin_metadata_pack file: add --format pack; "
				  "nothing was written", named ? p->input : "<stdin>");
			if (named)
				close(fd);
			return -EUCLEAN;
		}
	}
	r = pool_area_open_write(p->output, IO_EXCL, p->offset, p->size, p->force,
				 "restore into a file or device that is no pool's (and check "
				 "it with 'tpcheck --metadata'), or",
				 &a);
	if (!r && p->pack)
		r = work_failed(pack_restore(p, fd, named ? p->input : "<stdin>", a.io));
	else if (!r)
		r = work_failed(thin_xml_restore_watched(fd, named ? p->input : "<stdin>", a.io, 0,
							 NULL, p->progress, p->progress_ctx));
	pool_area_close(&a);
	if (named)
		close(fd);
	return r;
}

/* ---- tprmap (pool_rmap.h): the reverse map, from the same sources ---- */

_Static_assert(sizeof(struct pool_rmap_region) == sizeof(struct thin_rmap_region),
	       "struct pool_rmap_region differs from struct thin_rmap_region");

/* Name the runs' devices after P's volumes (the VG's; a thin device no
 * volume has, an unfinished receive's or a removal's, stays NULL). */
static int rmap_names(struct pool *p, struct pool_rmap *out)
{
	const struct vg *vg = pool_vg(p);

	out->names = calloc(vg->nr_volumes ? vg->nr_volumes : 1, sizeof(*out->names));
	if (!out->names)
		return -ENOMEM;
	for (unsigned v = 0; v < vg->nr_volumes; v++) {
		if (!(out->names[v] = strdup(vg->volumes[v].name)))
			return -ENOMEM;
		out->nr_names++;
		for (size_t i = 0; i < out->nr; i++)
			if (out->runs[i].dev_id == vg->volumes[v].dev_id)
				out->runs[i].volume = out->names[v];
	}
	return 0;
}

int pool_rmap(const struct pool_rmap_params *p, struct pool_rmap *out)
{
	struct pool_dump_params d = { .source = p->source, .devices = p->devices,
				      .offset = p->offset, .size = p->size };
	struct thin_rmap m;
	struct source s;
	int r = open_source(&d, &s);

	memset(out, 0, sizeof(*out));
	if (r) {
		close_source(&s);
		return r;
	}
	r = thin_rmap_walk(s.area ? s.area : s.a.io,
			   (p->metadata_snap ? THIN_RMAP_METADATA_SNAP : 0) |
				   (p->shared_once ? THIN_RMAP_SHARED_ONCE : 0),
			   (const struct thin_rmap_region *)p->regions, p->nr_regions, &m);
	if (!r && !(out->runs = calloc(m.nr ? m.nr : 1, sizeof(*out->runs))))
		r = -ENOMEM;
	if (!r) {
		for (size_t i = 0; i < m.nr; i++)
			out->runs[i] = (struct pool_rmap_run){ m.runs[i].data_begin, m.runs[i].data_end,
							       m.runs[i].dev_id, m.runs[i].thin_begin,
							       NULL };
		out->nr = m.nr;
		out->chunk = (uint64_t)m.data_block_size * 512;
		if (s.pool)
			r = rmap_names(s.pool, out);
	}
	thin_rmap_free(&m);
	close_source(&s);
	if (r)
		pool_rmap_free(out);
	return work_failed(r);
}

void pool_rmap_free(struct pool_rmap *m)
{
	for (size_t i = 0; i < m->nr_names; i++)
		free(m->names[i]);
	free(m->names);
	free(m->runs);
	memset(m, 0, sizeof(*m));
}
