/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.c - see crc32c.h. Table: slicing-by-8 generated at first use. */
#include "lib/base/crc32c.h"
#include "lib/base/critical.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define POLY 0x82f63b78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t tp_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	pthread_once(&table_once, table_init);
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= crc; /* little-endian host assumed (x86_64, the target) */
		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][(w >> 56) & 0xff];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
/* The instruction has a latency of three cycles and a throughput of one:
 * a metadata block is cut into three lanes of LANE bytes whose registers
 * are updated in the same loop, then joined. Joining uses linearity: the
 * register after A then B is shift(reg after A) ^ (reg of B from 0), where
 * shift advances a register over LANE zero bytes, a linear map kept as
 * four byte tables. */
#define LANE 1360u	/* 3 lanes: 4080 bytes, one block's checksummed part */

static uint32_t lane_shift[4][256];
static pthread_once_t lane_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2"))) static void lane_init(void)
{
	for (unsigned j = 0; j < 4; j++)
		for (uint32_t v = 0; v < 256; v++) {
			uint64_t c = v << (8 * j);
			for (unsigned k = 0; k < LANE / 8; k++)
				c = __builtin_ia32_crc32di(c, 0);
			lane_shift[j][v] = (uint32_t)c;
		}
}

static uint32_t shift(uint32_t c)
{
	return lane_shift[0][c & 0xff] ^ lane_shift[1][(c >> 8) & 0xff] ^
	       lane_shift[2][(c >> 16) & 0xff] ^ lane_shift[3][c >> 24];
}

/* STEP bytes of each of the three lanes from P into their sums: ten
 * words a lane, unrolled, so that a word costs little more than its one
 * instruction (issue 40: a 2 MB VG text is summed several times a change;
 * a loop of one word a lane took 0.4 instructions a byte, this 0.15). */
#define STEP 80u
_Static_assert(LANE % STEP == 0, "a lane is a whole number of steps");

__attribute__((target("sse4.2"), always_inline)) static inline void
lanes_step(const unsigned char *p, uint64_t *c, uint64_t *b, uint64_t *d)
{
	uint64_t x = *c, y = *b, z = *d;

#pragma GCC unroll 10
	for (unsigned i = 0; i < STEP; i += 8) {
		uint64_t w0, w1, w2;

		memcpy(&w0, p + i, 8);
		memcpy(&w1, p + LANE + i, 8);
		memcpy(&w2, p + 2 * LANE + i, 8);
		x = __builtin_ia32_crc32di(x, w0);
		y = __builtin_ia32_crc32di(y, w1);
		z = __builtin_ia32_crc32di(z, w2);
	}
	*c = x;
	*b = y;
	*d = z;
}

__attribute__((target("sse4.2"))) uint32_t tp_crc32c_hw(uint32_t crc, const void *buf,
							 size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	if (len >= 3 * LANE)
		pthread_once(&lane_once, lane_init);
	while (len >= 3 * LANE) {
		uint64_t b = 0, d = 0;
		/* When another block follows, it is asked for from memory
		 * while this one is summed (three lines for every line of a
		 * lane, four lines a step of 80 bytes): a long buffer that is
		 * not in the cache sums twice as fast. A single block (a
		 * metadata block, just read and in the cache) takes the plain
		 * loop: no prefetch past its end (issue 40: a test per word
		 * made every metadata block's sum 50% dearer in instructions). */
		if (len >= 6 * LANE) {
			for (unsigned k = 0; k < LANE; k += STEP) {
				const unsigned char *next = p + 3 * LANE + 3 * k;

				__builtin_prefetch(next);
				__builtin_prefetch(next + 64);
				__builtin_prefetch(next + 128);
				__builtin_prefetch(next + 192);
				lanes_step(p + k, &c, &b, &d);
			}
		} else {
			for (unsigned k = 0; k < LANE; k += STEP)
				lanes_step(p + k, &c, &b, &d);
		}
		c = shift(shift((uint32_t)c) ^ (uint32_t)b) ^ (uint32_t)d;
		p += 3 * LANE;
		len -= 3 * LANE;
	}
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

int tp_crc32c_hw_available(void)
{
	static int cached = -1;
	if (cached < 0) {
		__builtin_cpu_init();
		cached = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	}
	return cached;
}
#else
uint32_t tp_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	return tp_crc32c_sw(crc, buf, len);
}

int tp_crc32c_hw_available(void) { return 0; }
#endif

uint32_t tp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return tp_crc32c_hw_available() ? tp_crc32c_hw(crc, buf, len) : tp_crc32c_sw(crc, buf, len);
}

/* ---- joining the sums of two pieces ---- */

/* A times B modulo the polynomial, both reflected (bit 31 is x^0). */
static uint32_t mult_mod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;

	for (uint32_t m = 1u << 31; m; m >>= 1) {
		if (a & m)
			p ^= b;
		b = (b & 1) ? (b >> 1) ^ POLY : b >> 1;	/* b times x */
	}
	return p;
}

static uint32_t x_pow[64];	/* x^(2^k) modulo the polynomial, reflected */
static pthread_once_t pow_once = PTHREAD_ONCE_INIT;

static void pow_init(void)
{
	x_pow[0] = 1u << 30;	/* x^1 */
	for (unsigned k = 1; k < 64; k++)
		x_pow[k] = mult_mod(x_pow[k - 1], x_pow[k - 1]);
}

uint32_t tp_crc32c_shift(uint32_t crc, uint64_t len)
{
	uint32_t f = 1u << 31;	/* x^0 */
	uint64_t bits = len << 3;	/* (lengths below 2^61 bytes) */

	pthread_once(&pow_once, pow_init);
	for (unsigned k = 0; bits; k++, bits >>= 1)
		if (bits & 1)
			f = mult_mod(x_pow[k], f);
	return mult_mod(f, crc);
}

/* ---- two threads over one buffer ---- */

struct tp_crc32c_pair {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	const unsigned char *buf;	/* the job: LEN bytes from BUF, from 0 */
	size_t len;
	uint32_t out;
	int busy, quit;
};

static void *pair_main(void *arg)
{
	struct tp_crc32c_pair *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->busy && !p->quit)
			pthread_cond_wait(&p->go, &p->mu);
		if (!p->busy)
			break;
		pthread_mutex_unlock(&p->mu);
		uint32_t c = tp_crc32c(0, p->buf, p->len);
		pthread_mutex_lock(&p->mu);
		p->out = c;
		p->busy = 0;
		pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int tp_crc32c_pair_start(struct tp_crc32c_pair **out)
{
	struct tp_crc32c_pair *p = calloc(1, sizeof(*p));
	int e;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	/* the helper takes no signal: the caller's thread sees them all */
	e = tp_thread_start_unsignalled(&p->th, pair_main, p);
	if (e) {
		pthread_cond_destroy(&p->done);
		pthread_cond_destroy(&p->go);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return -e;
	}
	*out = p;
	return 0;
}

uint32_t tp_crc32c_pair(struct tp_crc32c_pair *p, uint32_t crc, const void *buf, size_t len)
{
	size_t half = len / 2 / 64 * 64;
	uint32_t a, b;

	if (!p || len < TP_CRC32C_PAIR_MIN)
		return tp_crc32c(crc, buf, len);
	pthread_mutex_lock(&p->mu);
	p->buf = (const unsigned char *)buf + half;
	p->len = len - half;
	p->busy = 1;
	pthread_cond_signal(&p->go);
	pthread_mutex_unlock(&p->mu);
	a = tp_crc32c(crc, buf, half);
	pthread_mutex_lock(&p->mu);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->mu);
	b = p->out;
	pthread_mutex_unlock(&p->mu);
	return tp_crc32c_shift(a, len - half) ^ b;
}

void tp_crc32c_pair_end(struct tp_crc32c_pair *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_signal(&p->go);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->go);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

uint32_t tp_block_csum(const void *block, size_t len, uint32_t salt)
{
	return tp_crc32c(0xffffffffu, (const unsigned char *)block + 4, len - 4) ^ salt;
}
