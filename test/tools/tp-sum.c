/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-sum - a checksum of each file's bytes that reads only its data
 * (test-only: test/shell/lib.sh's `sums`, which `unchanged` runs over
 * every image of a test's directory before and after a command).
 *
 *   tp-sum FILE...    one line per file: "SUM SIZE FILE" (cksum's columns)
 *
 * The sum covers the size and every 4 KiB block that holds a byte other
 * than zero, with its offset: two files have the same sum when their bytes
 * are the same, whether a run of zeros is a hole or was written. Only the
 * data extents (SEEK_DATA/SEEK_HOLE) are read, so a sparse 4 GiB image of
 * a few megabytes of data costs those megabytes, where cksum reads 4 GiB.
 * Not a cryptographic hash: it tells a test that bytes changed, no more.
 * Exit: 0, or 1 when a file cannot be read (said on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096u
#define CHUNK (256u * BLOCK)

/* FNV-1a, 64 bits, over N bytes into H. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int all_zero(const unsigned char *b, size_t n)
{
	static const unsigned char zero[BLOCK];

	return !memcmp(b, zero, n);
}

/* The sum of FD's bytes (SIZE of them) into *OUT: 0 or -errno. */
static int sum_fd(int fd, uint64_t size, uint64_t *out)
{
	static unsigned char buf[CHUNK];
	uint64_t h = fnv(0xcbf29ce484222325ull, &size, sizeof(size));
	off_t pos = 0;

	while ((uint64_t)pos < size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0) {
			if (errno == ENXIO)	/* only a hole is left */
				break;
			return -errno;
		}
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		/* whole blocks, so a block's offset does not depend on where
		 * an extent begins */
		for (off_t at = data - data % BLOCK; at < hole;) {
			size_t want = (size_t)((uint64_t)(hole - at) < CHUNK ? (uint64_t)(hole - at) : CHUNK);
			ssize_t got = pread(fd, buf, want, at);

			if (got < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (got == 0)
				break;
			for (size_t o = 0; o < (size_t)got; o += BLOCK) {
				size_t n = (size_t)got - o < BLOCK ? (size_t)got - o : BLOCK;
				uint64_t where = (uint64_t)at + o;

				if (all_zero(buf + o, n))
					continue;
				h = fnv(h, &where, sizeof(where));
				h = fnv(h, buf + o, n);
			}
			at += got;
		}
		pos = hole;
	}
	*out = h;
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: tp-sum FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		uint64_t h = 0;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC), r;

		if (fd < 0 || fstat(fd, &st)) {
			fprintf(stderr, "tp-sum: %s: %s\n", argv[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			rc = 1;
			continue;
		}
		r = sum_fd(fd, (uint64_t)st.st_size, &h);
		close(fd);
		if (r) {
			fprintf(stderr, "tp-sum: %s: %s\n", argv[i], strerror(-r));
			rc = 1;
			continue;
		}
		printf("%" PRIu64 " %" PRIu64 " %s\n", h, (uint64_t)st.st_size, argv[i]);
	}
	return rc;
}
