/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pack.c - thin_metadata_pack's format. See pack.h. */
#include "metadata/pdata/pack.h"

#include "lib/base/crc32c.h"
#include "lib/base/le.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The byte code's tags, high nibble of an instruction byte. */
enum {
	OP_SET,		/* base = operand (width in nibble); emit */
	OP_POS,		/* base += nibble; emit */
	OP_POSW,	/* base += operand; emit */
	OP_NEG,		/* base -= nibble; emit */
	OP_NEGW,	/* base -= operand; emit */
	OP_CONST,	/* emit base nibble times */
	OP_CONST8,	/* emit base (nibble << 8 | byte) times */
	OP_COUNT,	/* the next instruction runs nibble times */
	OP_COUNT8,	/* ... (nibble << 8 | byte) times */
	OP_LIT,		/* nibble bytes follow, emitted as they are */
	OP_LITW,	/* operand bytes follow */
	OP_SHIFTED,	/* (nibble << 8 | byte) u64s: high 40 bits, then low 24 */
	OP_NR
};

/* The persistent-data block types, by checksum salt. */
static const uint32_t block_salts[] = {
	160774,		/* thin superblock */
	9031977,	/* cache superblock */
	146538381,	/* era superblock */
	121107,		/* btree node */
	240779,		/* space-map bitmap */
	160478,		/* space-map index */
	595846735,	/* array block */
};
#define SALT_NODE 121107u

/* 0 for no metadata block, else its salt. */
static uint32_t block_salt(const unsigned char *block)
{
	uint32_t x = tp_crc32c(0xffffffffu, block + 4, PACK_BLOCK_SIZE - 4) ^ le32_get(block);

	for (size_t i = 0; i < sizeof(block_salts) / sizeof(block_salts[0]); i++)
		if (x == block_salts[i])
			return x;
	return 0;
}

/* ---- encoding ---- */

/* A record's byte code; the largest (a node of 508 keys and values, each
 * delta its own 11-byte instruction) is well under the buffer. */
struct enc {
	unsigned char buf[32768];
	size_t len;
	int over;
};

static void put(struct enc *e, const void *p, size_t n)
{
	if (e->over || n > sizeof(e->buf) - e->len) {
		e->over = 1;
		return;
	}
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void put_tag(struct enc *e, unsigned op, unsigned nibble)
{
	unsigned char b = (unsigned char)(op << 4 | (nibble & 15));

	put(e, &b, 1);
}

static void put_u8(struct enc *e, unsigned v)
{
	unsigned char b = (unsigned char)v;

	put(e, &b, 1);
}

/* OP with an operand of the smallest width of 1, 2, 4 and 8 bytes. */
static void put_wide(struct enc *e, unsigned op, uint64_t v)
{
	unsigned char b[8];
	unsigned w = v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffu ? 4 : 8;

	le64_put(b, v);
	put_tag(e, op, w);
	put(e, b, w);
}

static void put_count(struct enc *e, uint64_t count)
{
	if (count == 1)
		return;
	if (count < 16) {
		put_tag(e, OP_COUNT, (unsigned)count);
	} else {
		put_tag(e, OP_COUNT8, (unsigned)(count >> 8));
		put_u8(e, (unsigned)(count & 0xff));
	}
}

static void put_step(struct enc *e, unsigned op, unsigned opw, uint64_t delta, uint64_t count)
{
	put_count(e, count);
	if (delta < 16)
		put_tag(e, op, (unsigned)delta);
	else
		put_wide(e, opw, delta);
}

/* N u64s (N < 4096) as a base and runs of equal steps up, down or none. */
static void put_u64s(struct enc *e, const uint64_t *ns, size_t n)
{
	uint64_t base;
	size_t i = 1;

	if (!n)
		return;
	base = ns[0];
	put_wide(e, OP_SET, base);
	while (i < n) {
		uint64_t x = ns[i], count = 0;

		if (x == base) {
			while (i < n && ns[i] == base) {
				i++;
				count++;
			}
			if (count < 16) {
				put_tag(e, OP_CONST, (unsigned)count);
			} else {
				put_tag(e, OP_CONST8, (unsigned)(count >> 8));
				put_u8(e, (unsigned)(count & 0xff));
			}
		} else if (x > base) {
			uint64_t d = x - base;

			while (i < n && ns[i] == base + (count + 1) * d) {
				i++;
				count++;
			}
			put_step(e, OP_POS, OP_POSW, d, count);
			base += d * count;
		} else {
			uint64_t d = base - x;

			while (i < n && ns[i] + (count + 1) * d == base) {
				i++;
				count++;
			}
			put_step(e, OP_NEG, OP_NEGW, d, count);
			base -= d * count;
		}
	}
}

static void put_literal(struct enc *e, const void *p, size_t n)
{
	if (n < 16)
		put_tag(e, OP_LIT, (unsigned)n);
	else
		put_wide(e, OP_LITW, n);
	put(e, p, n);
}

static void get_u64s(const unsigned char *p, uint64_t *ns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ns[i] = le64_get(p + 8 * i);
}

/* A btree node: its 32-byte header as a literal, the keys as deltas, the
 * values as deltas (internal node) or a shifted run (leaf of u64 values)
 * or a literal (other leaves), then whatever is left as a literal. 0, or
 * -1 when the header's max_entries does not fit the block. */
static int put_node(struct enc *e, const unsigned char *block)
{
	uint64_t keys[(PACK_BLOCK_SIZE - 32) / 8], vals[(PACK_BLOCK_SIZE - 32) / 8];
	uint32_t flags = le32_get(block + 4), max = le32_get(block + 20);
	uint32_t vsize = le32_get(block + 24);
	int leaf = flags == 2, u64_vals = !leaf || vsize == 8;
	size_t room = PACK_BLOCK_SIZE - 32, used;

	if (max > room / 8 || (u64_vals && max > room / 16))
		return -1;
	used = 32 + (size_t)max * (u64_vals ? 16 : 8);
	get_u64s(block + 32, keys, max);
	put_literal(e, block, 32);
	put_u64s(e, keys, max);
	if (leaf && !u64_vals) {
		put_literal(e, block + 32 + 8 * (size_t)max, PACK_BLOCK_SIZE - used);
		return 0;
	}
	get_u64s(block + 32 + 8 * (size_t)max, vals, max);
	if (leaf) {
		uint64_t hi[(PACK_BLOCK_SIZE - 32) / 16], lo[(PACK_BLOCK_SIZE - 32) / 16];

		put_tag(e, OP_SHIFTED, max >> 8);
		put_u8(e, max & 0xff);
		for (size_t i = 0; i < max; i++) {
			hi[i] = vals[i] >> 24;
			lo[i] = vals[i] & 0xffffff;
		}
		put_u64s(e, hi, max);
		put_u64s(e, lo, max);
	} else {
		put_u64s(e, vals, max);
	}
	if (used < PACK_BLOCK_SIZE)
		put_literal(e, block + used, PACK_BLOCK_SIZE - used);
	return 0;
}

static void encode_block(struct enc *e, uint64_t b, const unsigned char *block, uint32_t salt)
{
	unsigned char nr[8];

	e->len = 0;
	e->over = 0;
	le64_put(nr, b);
	put(e, nr, 8);
	if (salt == SALT_NODE && !put_node(e, block) && !e->over)
		return;
	e->len = 8;
	e->over = 0;
	put_literal(e, block, PACK_BLOCK_SIZE);
}

struct zout {
	z_stream z;
	int open;
	unsigned blocks;	/* records in the open stream */
	unsigned char *buf;	/* the open stream's compressed bytes */
	size_t len, cap;
	pack_out_fn *out;
	void *ctx;
};

#define ZOUT_STEP (256u << 10)

static int zout_deflate(struct zout *o, const void *p, size_t n, int flush)
{
	o->z.next_in = (Bytef *)(uintptr_t)p;
	o->z.avail_in = (uInt)n;
	for (;;) {
		int zr;

		if (o->cap - o->len < ZOUT_STEP) {
			unsigned char *nb = realloc(o->buf, o->cap + ZOUT_STEP);

			if (!nb)
				return -ENOMEM;
			o->buf = nb;
			o->cap += ZOUT_STEP;
		}
		o->z.next_out = o->buf + o->len;
		o->z.avail_out = (uInt)(o->cap - o->len);
		zr = deflate(&o->z, flush);
		o->len = o->cap - o->z.avail_out;
		if (zr == Z_STREAM_END)
			return 0;
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return TP_BUG("deflate: %d", zr);
		if (flush == Z_NO_FLUSH && !o->z.avail_in)
			return 0;
	}
}

/* End the open stream and write it as one chunk. */
static int zout_chunk(struct zout *o)
{
	unsigned char len[8];
	int r;

	if (!o->open)
		return 0;
	r = zout_deflate(o, NULL, 0, Z_FINISH);
	deflateEnd(&o->z);
	o->open = 0;
	o->blocks = 0;
	if (r)
		return r;
	le64_put(len, o->len);
	if (!(r = o->out(o->ctx, len, 8)))
		r = o->out(o->ctx, o->buf, o->len);
	o->len = 0;
	return r;
}

static int zout_record(struct zout *o, const void *p, size_t n)
{
	int r;

	if (!o->open) {
		memset(&o->z, 0, sizeof(o->z));
		if (deflateInit(&o->z, Z_DEFAULT_COMPRESSION) != Z_OK)
			return -ENOMEM;
		o->open = 1;
	}
	if ((r = zout_deflate(o, p, n, Z_NO_FLUSH)))
		return r;
	if (++o->blocks == PACK_CHUNK_BLOCKS)
		return zout_chunk(o);
	return 0;
}

#define READ_BLOCKS 256u	/* 1 MiB reads */

int pack_write(struct io_engine *src, uint64_t nr_blocks, pack_out_fn *out, void *out_ctx,
	       tp_progress_fn *progress, void *progress_ctx)
{
	struct zout o = { .out = out, .ctx = out_ctx };
	unsigned char head[PACK_HEADER_SIZE];
	unsigned char *in = malloc((size_t)READ_BLOCKS * PACK_BLOCK_SIZE);
	struct enc *e = malloc(sizeof(*e));
	int r = 0;

	if (!in || !e) {
		r = -ENOMEM;
		goto out;
	}
	if (!nr_blocks || nr_blocks > src->size / PACK_BLOCK_SIZE) {
		log_error("%s: %" PRIu64 " blocks to pack, it holds %" PRIu64, src->name, nr_blocks,
			  src->size / PACK_BLOCK_SIZE);
		r = -EINVAL;
		goto out;
	}
	le64_put(head, PACK_MAGIC);
	le64_put(head + 8, PACK_VERSION);
	le64_put(head + 16, PACK_BLOCK_SIZE);
	le64_put(head + 24, nr_blocks);
	if ((r = out(out_ctx, head, sizeof(head))))
		goto out;
	for (uint64_t b = 0; b < nr_blocks && !r;) {
		unsigned n = nr_blocks - b < READ_BLOCKS ? (unsigned)(nr_blocks - b) : READ_BLOCKS;

		if ((r = io_read(src, b * PACK_BLOCK_SIZE, in, (size_t)n * PACK_BLOCK_SIZE))) {
			log_error("%s: cannot read blocks %" PRIu64 "-%" PRIu64 ": %s", src->name, b,
				  b + n - 1, strerror(-r));
			break;
		}
		for (unsigned i = 0; i < n && !r; i++) {
			const unsigned char *blk = in + (size_t)i * PACK_BLOCK_SIZE;
			uint32_t salt = block_salt(blk);

			if (!salt)
				continue;
			encode_block(e, b + i, blk, salt);
			r = zout_record(&o, e->buf, e->len);
		}
		b += n;
		if (progress)
			progress(progress_ctx, b, nr_blocks);
	}
	if (!r)
		r = zout_chunk(&o);
out:
	if (o.open)
		deflateEnd(&o.z);
	free(o.buf);
	free(in);
	free(e);
	return r;
}

/* ---- decoding ---- */

struct zin {
	z_stream z;
	int ended;
	unsigned char buf[16384];
	size_t pos, len;
	const char *why;	/* what is wrong, for the message */
};

/* Make bytes available: 1 when there are some, 0 at the stream's end, -1
 * on a damaged stream (why set). */
static int zin_fill(struct zin *in)
{
	while (in->pos >= in->len) {
		int zr;

		if (in->ended)
			return 0;
		in->z.next_out = in->buf;
		in->z.avail_out = sizeof(in->buf);
		zr = inflate(&in->z, Z_NO_FLUSH);
		in->pos = 0;
		in->len = sizeof(in->buf) - in->z.avail_out;
		if (zr == Z_STREAM_END) {
			in->ended = 1;
			if (in->z.avail_in) {
				in->why = "bytes follow the end of its zlib stream";
				return -1;
			}
		} else if (zr == Z_BUF_ERROR || (zr == Z_OK && !in->len && !in->z.avail_in)) {
			in->why = "its zlib stream is cut short";
			return -1;
		} else if (zr != Z_OK) {
			in->why = zr == Z_MEM_ERROR ? "out of memory inflating it"
						    : "its zlib stream is damaged";
			return -1;
		}
	}
	return 1;
}

/* Exactly N bytes: 0, or -1 (why set) on a damaged or short stream. */
static int zin_get(struct zin *in, void *dst, size_t n)
{
	unsigned char *d = dst;

	while (n) {
		int f = zin_fill(in);
		size_t k;

		if (f <= 0) {
			if (!f)
				in->why = "its last block record is cut short";
			return -1;
		}
		k = in->len - in->pos < n ? in->len - in->pos : n;
		memcpy(d, in->buf + in->pos, k);
		in->pos += k;
		d += k;
		n -= k;
	}
	return 0;
}

static int get_width(struct zin *in, unsigned w, uint64_t *v)
{
	unsigned char b[8] = { 0 };

	if (w != 1 && w != 2 && w != 4 && w != 8) {
		in->why = "an instruction has an operand width other than 1, 2, 4 or 8";
		return -1;
	}
	if (zin_get(in, b, w))
		return -1;
	*v = le64_get(b);
	return 0;
}

struct vm {
	uint64_t base;
};

static int emit_base(struct zin *in, struct vm *m, unsigned char *out, size_t *at, size_t end)
{
	if (end - *at < 8) {
		in->why = "a block's instructions write past its 4096 bytes";
		return -1;
	}
	le64_put(out + *at, m->base);
	*at += 8;
	return 0;
}

/* Run instructions until OUT holds exactly SIZE bytes (-1, why set, when
 * one would write more). SHIFTED: inside a shifted run (no nesting). */
static int vm_exec(struct zin *in, struct vm *m, unsigned char *out, size_t size, int shifted)
{
	size_t at = 0;

	while (at < size) {
		unsigned char b, x;
		uint64_t count = 1, v = 0;
		unsigned op, nib;

		if (zin_get(in, &b, 1))
			return -1;
		for (;;) {
			op = b >> 4;
			nib = b & 15;
			if (op == OP_COUNT) {
				count = nib;
			} else if (op == OP_COUNT8) {
				if (zin_get(in, &x, 1))
					return -1;
				count = (uint64_t)nib << 8 | x;
			} else {
				break;
			}
			if (zin_get(in, &b, 1))
				return -1;
		}
		switch (op) {
		case OP_SET:
			if (get_width(in, nib, &m->base))
				return -1;
			for (uint64_t i = 0; i < count; i++)
				if (emit_base(in, m, out, &at, size))
					return -1;
			break;
		case OP_POS:
		case OP_POSW:
		case OP_NEG:
		case OP_NEGW:
			v = nib;
			if ((op == OP_POSW || op == OP_NEGW) && get_width(in, nib, &v))
				return -1;
			for (uint64_t i = 0; i < count; i++) {
				m->base = op <= OP_POSW ? m->base + v : m->base - v;
				if (emit_base(in, m, out, &at, size))
					return -1;
			}
			break;
		case OP_CONST:
		case OP_CONST8:
		case OP_LIT:
		case OP_LITW:
			if (count != 1) {
				in->why = "a repeat count precedes a constant run or a literal";
				return -1;
			}
			v = nib;
			if (op == OP_CONST8) {
				if (zin_get(in, &x, 1))
					return -1;
				v = (uint64_t)nib << 8 | x;
			} else if (op == OP_LITW && get_width(in, nib, &v)) {
				return -1;
			}
			if (op == OP_CONST || op == OP_CONST8) {
				for (uint64_t i = 0; i < v; i++)
					if (emit_base(in, m, out, &at, size))
						return -1;
			} else {
				if (v > size - at) {
					in->why = "a literal runs past its block's 4096 bytes";
					return -1;
				}
				if (zin_get(in, out + at, (size_t)v))
					return -1;
				at += (size_t)v;
			}
			break;
		case OP_SHIFTED: {
			uint64_t hi[PACK_BLOCK_SIZE / 8], lo[PACK_BLOCK_SIZE / 8];
			unsigned char hb[PACK_BLOCK_SIZE], lb[PACK_BLOCK_SIZE];
			size_t n;

			if (shifted) {
				in->why = "a shifted run is nested in another";
				return -1;
			}
			if (zin_get(in, &x, 1))
				return -1;
			n = (size_t)nib << 8 | x;
			if (n * 8 > size - at) {
				in->why = "a shifted run runs past its block's 4096 bytes";
				return -1;
			}
			if (vm_exec(in, m, hb, n * 8, 1) || vm_exec(in, m, lb, n * 8, 1))
				return -1;
			get_u64s(hb, hi, n);
			get_u64s(lb, lo, n);
			for (size_t i = 0; i < n; i++) {
				le64_put(out + at, hi[i] << 24 | (lo[i] & 0xffffff));
				at += 8;
			}
			break;
		}
		default:
			in->why = "an instruction has an unknown tag";
			return -1;
		}
	}
	return 0;
}

struct unpack {
	const char *name;
	uint64_t nr_blocks, packed;
	unsigned char *seen;	/* a bit a block */
	pack_block_fn *fn;
	void *ctx;
};

static int damaged(const struct unpack *u, uint64_t off, const char *fmt, ...) TP_PRINTF(3, 4);

static int damaged(const struct unpack *u, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	log_error("%s: not a usable thin_metadata_pack file: at byte %" PRIu64 ": %s", u->name, off,
		  what);
	return -EUCLEAN;
}

/* The chunk of LEN bytes at P, at byte OFF of the pack. */
static int read_chunk(struct unpack *u, const unsigned char *p, size_t len, uint64_t off,
		      struct zin *in, unsigned char *block)
{
	int r = 0;

	memset(&in->z, 0, sizeof(in->z));
	in->ended = 0;
	in->pos = in->len = 0;
	in->why = NULL;
	if (inflateInit(&in->z) != Z_OK)
		return -ENOMEM;
	in->z.next_in = (Bytef *)(uintptr_t)p;
	in->z.avail_in = (uInt)len;
	for (;;) {
		unsigned char nr[8];
		struct vm m = { 0 };
		uint64_t b;
		int f = zin_fill(in);

		if (f < 0) {
			r = damaged(u, off, "chunk of %zu bytes: %s", len, in->why);
			break;
		}
		if (!f)
			break;
		if (zin_get(in, nr, 8) || vm_exec(in, &m, block, PACK_BLOCK_SIZE, 0)) {
			r = damaged(u, off, "chunk of %zu bytes: %s", len, in->why);
			break;
		}
		b = le64_get(nr);
		if (b >= u->nr_blocks) {
			r = damaged(u, off, "block %" PRIu64 " lies past the pack's %" PRIu64 " blocks",
				    b, u->nr_blocks);
			break;
		}
		if (!block_salt(block)) {
			r = damaged(u, off, "block %" PRIu64 " unpacks to no metadata block (its "
					    "checksum matches no block type)", b);
			break;
		}
		if (u->seen[b / 8] & (1u << (b % 8))) {
			r = damaged(u, off, "block %" PRIu64 " is packed twice", b);
			break;
		}
		u->seen[b / 8] |= (unsigned char)(1u << (b % 8));
		u->packed++;
		if (u->fn && (r = u->fn(u->ctx, b, block)))
			break;
	}
	inflateEnd(&in->z);
	return r;
}

/* Does P (at least 32 bytes) start like XML? */
static int looks_like_xml(const unsigned char *p)
{
	size_t i = 0;

	if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		i = 3;	/* a UTF-8 byte order mark */
	while (i < PACK_HEADER_SIZE && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
					p[i] == '\r'))
		i++;
	return i < PACK_HEADER_SIZE && p[i] == '<';
}

int pack_header(const void *head, const char *name, uint64_t max_blocks, uint64_t *nr_blocks)
{
	const unsigned char *p = head;
	struct unpack u = { .name = name };
	uint64_t v;

	if (le64_get(p) != PACK_MAGIC)
		return damaged(&u, 0, "no pack magic number%s",
			       looks_like_xml(p) ? "; it looks like XML (thin_dump's): drop "
						   "--format pack" : "");
	if ((v = le64_get(p + 8)) != PACK_VERSION)
		return damaged(&u, 8, "version %" PRIu64 "; only version %u is known", v,
			       PACK_VERSION);
	if ((v = le64_get(p + 16)) != PACK_BLOCK_SIZE)
		return damaged(&u, 16, "block size %" PRIu64 "; only %u is known", v,
			       PACK_BLOCK_SIZE);
	v = le64_get(p + 24);
	if (!v)
		return damaged(&u, 24, "the header counts no blocks");
	if (v > PACK_MAX_BLOCKS)
		return damaged(&u, 24, "the header counts %" PRIu64 " blocks of 4 KiB, more than "
			       "any device holds: the header is damaged", v);
	if (v > max_blocks) {
		log_error("%s: the pack's metadata is %" PRIu64 " blocks of 4 KiB; the target "
			  "holds only %" PRIu64, name, v, max_blocks);
		return -ENOSPC;
	}
	*nr_blocks = v;
	return 0;
}

int pack_is_pack(const void *head, size_t len)
{
	return len >= 8 && le64_get(head) == PACK_MAGIC;
}

int pack_read(const void *pack, size_t len, const char *name, uint64_t max_blocks,
	      pack_block_fn *fn, void *ctx, uint64_t *nr_blocks, uint64_t *nr_packed)
{
	const unsigned char *p = pack;
	struct unpack u = { .name = name, .fn = fn, .ctx = ctx };
	unsigned char *block = NULL;
	struct zin *in = NULL;
	size_t off = PACK_HEADER_SIZE;
	uint64_t v;
	int r = 0;

	if (len < PACK_HEADER_SIZE)
		return damaged(&u, 0, "%zu bytes, shorter than the %u-byte header", len,
			       PACK_HEADER_SIZE);
	if ((r = pack_header(p, name, max_blocks, &u.nr_blocks)))
		return r;
	/* bounded by MAX_BLOCKS, the caller's */
	if (!(u.seen = calloc(u.nr_blocks / 8 + 1, 1)) || !(in = malloc(sizeof(*in))) ||
	    !(block = malloc(PACK_BLOCK_SIZE))) {
		r = -ENOMEM;
		goto out;
	}
	while (off < len && !r) {
		if (len - off < 8) {
			r = damaged(&u, off, "%zu bytes where a chunk's 8-byte length belongs "
					     "(the pack is cut short?)", len - off);
			break;
		}
		v = le64_get(p + off);
		if (!v || v > len - off - 8) {
			r = damaged(&u, off, "a chunk of %" PRIu64 " bytes, %zu follow%s", v,
				    len - off - 8, v ? " (the pack is cut short?)" : "");
			break;
		}
		if (v > UINT32_MAX) {
			r = damaged(&u, off, "a chunk of %" PRIu64 " bytes, more than a pack has", v);
			break;
		}
		r = read_chunk(&u, p + off + 8, (size_t)v, off, in, block);
		off += 8 + (size_t)v;
	}
	if (!r) {
		if (nr_blocks)
			*nr_blocks = u.nr_blocks;
		if (nr_packed)
			*nr_packed = u.packed;
	}
out:
	free(u.seen);
	free(in);
	free(block);
	return r;
}
