/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-crashwriter - write verifiable blocks to block devices in fsync'd rounds,
 * and later check what survived a power cut or an I/O fault (test tool, not
 * installed; used by test/vm/s-powercut.sh and s-faults.sh).
 *
 *   tp-crashwriter write SEED FIRST LAST PER HOOK DEV...
 *       rounds FIRST..LAST: each writes PER 4 KiB blocks at places drawn from
 *       (SEED, round, device index) to every DEV (O_DIRECT), then fdatasyncs
 *       each DEV, then runs "HOOK ROUND" through the shell ("-": no hook).
 *       Prints "synced ROUND" after each round's syncs; exit 1 at the first
 *       failed write or sync (naming it), so a caller knows the last synced
 *       round.
 *   tp-crashwriter verify SEED SYNCED LAST PER DEV...
 *       every block of every DEV: zero if no round <= LAST wrote it; else the
 *       exact content of a round that wrote it, no older than the last round
 *       <= SYNCED that wrote it (fsync'd data must read back). A DEV written
 *       as "N:PATH" is checked as device index N (a snapshot of device N:
 *       pass SYNCED 0, any version is right).
 *       Prints one summary line per device; exit 1 with the first failures
 *       named when any block is wrong.
 *
 * Block content: a header (magic, seed, device, block, round) and a payload
 * derived from the same numbers, so a torn, stale, misplaced or foreign
 * block is told apart from the right one byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <unistd.h>

#define BLK 4096u
#define MAGIC 0x5450435241534857ull /* "TPCRASHW" */
#define MAX_SHOWN 8

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The i-th block written in ROUND to device DEV. */
static uint64_t pick(uint64_t seed, uint64_t round, unsigned dev, unsigned i, uint64_t nblocks)
{
	return mix(seed ^ mix(round << 20 ^ (uint64_t)dev << 8 ^ i)) % nblocks;
}

static void fill(uint64_t *b, uint64_t seed, unsigned dev, uint64_t block, uint64_t round)
{
	uint64_t s = mix(seed ^ mix(block ^ mix(round ^ ((uint64_t)dev << 32))));

	b[0] = MAGIC;
	b[1] = seed;
	b[2] = dev;
	b[3] = block;
	b[4] = round;
	for (unsigned i = 5; i < BLK / 8; i++)
		b[i] = s = mix(s);
}

static int open_dev(const char *path, int flags, uint64_t *nblocks)
{
	uint64_t bytes = 0;
	int fd = open(path, flags | O_DIRECT | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "tp-crashwriter: %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0 || bytes < BLK) {
		fprintf(stderr, "tp-crashwriter: %s: not a block device of 4 KiB or more\n", path);
		close(fd);
		return -1;
	}
	*nblocks = bytes / BLK;
	return fd;
}

static int cmd_write(uint64_t seed, uint64_t first, uint64_t last, unsigned per,
		     const char *hook, int n, char **devs)
{
	int fd[n], opened = 0, rc = 1;
	uint64_t nb[n], *buf;

	if (posix_memalign((void **)&buf, BLK, BLK))
		return 1;
	for (; opened < n; opened++)
		if ((fd[opened] = open_dev(devs[opened], O_RDWR, &nb[opened])) < 0)
			goto out;
	for (uint64_t r = first; r <= last; r++) {
		for (int d = 0; d < n; d++)
			for (unsigned i = 0; i < per; i++) {
				uint64_t b = pick(seed, r, d, i, nb[d]);

				fill(buf, seed, d, b, r);
				if (pwrite(fd[d], buf, BLK, (off_t)(b * BLK)) != BLK) {
					fprintf(stderr, "tp-crashwriter: round %" PRIu64 ": %s block %"
						PRIu64 ": write failed: %s\n", r, devs[d], b,
						strerror(errno));
					goto out;
				}
			}
		for (int d = 0; d < n; d++)
			if (fdatasync(fd[d])) {
				fprintf(stderr, "tp-crashwriter: round %" PRIu64 ": %s: sync failed: %s\n",
					r, devs[d], strerror(errno));
				goto out;
			}
		printf("synced %" PRIu64 "\n", r);
		fflush(stdout);
		if (strcmp(hook, "-")) {
			char cmd[4096];

			snprintf(cmd, sizeof(cmd), "%s %" PRIu64, hook, r);
			if (system(cmd)) {
				fprintf(stderr, "tp-crashwriter: hook '%s' failed\n", cmd);
				goto out;
			}
		}
	}
	rc = 0;
out:
	while (opened-- > 0)
		close(fd[opened]);
	free(buf);
	return rc;
}

static int is_zero(const uint64_t *b)
{
	for (unsigned i = 0; i < BLK / 8; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Check one device: 0 when every block is right, else the failures (shown
 * up to MAX_SHOWN in all through *shown). Reads RUN blocks at a time. */
#define RUN 256u
static uint64_t verify_dev(uint64_t seed, uint64_t synced, uint64_t last, unsigned per,
			   unsigned dev, const char *path, int *shown)
{
	uint64_t nb, *must, *run, *want, bad = 0, written = 0, proven = 0, have = 0, at = 0;
	unsigned char *any;
	int fd = open_dev(path, O_RDONLY, &nb);

	if (fd < 0)
		return 1;
	must = calloc(nb, sizeof(*must));
	any = calloc(nb, 1);
	if (!must || !any || posix_memalign((void **)&run, BLK, (size_t)BLK * RUN) ||
	    posix_memalign((void **)&want, BLK, BLK))
		return 1;
	for (uint64_t r = 1; r <= last; r++)
		for (unsigned i = 0; i < per; i++) {
			uint64_t b = pick(seed, r, dev, i, nb);

			any[b] = 1;
			if (r <= synced)
				must[b] = r;
		}
	for (uint64_t b = 0; b < nb; b++) {
		const char *why = NULL;
		uint64_t got = 0, *buf;

		if (b >= at + have) {
			uint64_t n = nb - b < RUN ? nb - b : RUN;
			ssize_t len = pread(fd, run, (size_t)(n * BLK), (off_t)(b * BLK));

			at = b;
			have = len > 0 ? (uint64_t)len / BLK : 0;
		}
		buf = run + (b - at) * (BLK / 8);
		if (b >= at + have) {
			why = "read failed";
			have = 0;
		} else if (is_zero(buf)) {
			if (must[b])
				why = "reads zero, fsync'd data lost";
		} else if (!any[b]) {
			why = "never written, reads data";
		} else {
			int wrote = 0;

			got = buf[4];
			for (unsigned i = 0; got >= 1 && got <= last && i < per; i++)
				wrote |= pick(seed, got, dev, i, nb) == b;
			if (!wrote)
				why = "holds no round that wrote it (garbage or misplaced)";
			else if (fill(want, seed, dev, b, got), memcmp(buf, want, BLK))
				why = "content wrong (torn or corrupt)";
			else if (got < must[b])
				why = "older than its fsync'd round";
		}
		written += any[b];
		proven += must[b] && !why;
		if (why) {
			if ((*shown)++ < MAX_SHOWN)
				printf("BAD %s block %" PRIu64 ": %s (round read %" PRIu64
				       ", fsync'd round %" PRIu64 ")\n",
				       path, b, why, got, must[b]);
			bad++;
		}
	}
	printf("%s: %" PRIu64 " blocks, %" PRIu64 " written, %" PRIu64
	       " fsync'd verified, %" PRIu64 " bad\n",
	       path, nb, written, proven, bad);
	close(fd);
	free(must);
	free(any);
	free(run);
	free(want);
	return bad;
}

static int num(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t a, b, c, per;

	if (argc >= 8 && !strcmp(argv[1], "write") && !num(argv[2], &a) && !num(argv[3], &b) &&
	    !num(argv[4], &c) && !num(argv[5], &per) && per > 0 && b >= 1 && c >= b)
		return cmd_write(a, b, c, (unsigned)per, argv[6], argc - 7, argv + 7);
	if (argc >= 7 && !strcmp(argv[1], "verify") && !num(argv[2], &a) && !num(argv[3], &b) &&
	    !num(argv[4], &c) && !num(argv[5], &per) && per > 0 && b <= c) {
		uint64_t bad = 0;
		int shown = 0;

		for (int i = 6; i < argc; i++) {
			const char *path = argv[i], *colon = strchr(path, ':');
			unsigned dev = (unsigned)(i - 6);

			if (colon) {
				dev = (unsigned)strtoul(path, NULL, 10);
				path = colon + 1;
			}
			bad += verify_dev(a, b, c, (unsigned)per, dev, path, &shown);
		}
		return bad ? 1 : 0;
	}
	fprintf(stderr, "tp-crashwriter: bad arguments (see the comment at the top of "
			"tp-crashwriter.c)\n");
	return 2;
}
