/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-logreplay - read a dm-log-writes log and replay it onto a device, so a
 * test can look at the disk as a power cut at any logged point would have
 * left it (test tool, not installed; used by test/vm/s-powercut.sh).
 *
 *   tp-logreplay LOG list
 *       "entries N sectorsize S", then one line "INDEX FLAGS [MARK]" for each
 *       entry that is a flush (F), FUA write (U), discard (D) or mark (M).
 *   tp-logreplay LOG replay TARGET FROM TO
 *       applies entries FROM..TO (0-based, inclusive) to TARGET in log order:
 *       writes their data, zeroes discarded ranges; then fsyncs TARGET.
 *
 * The log format is the kernel's (drivers/md/dm-log-writes.c): a super block
 * in unit 0 (magic, version, nr_entries, sectorsize), then entries from unit
 * 1 on, each a header unit {sector, nr_sectors, flags, data_len} (a mark's
 * text follows the header in the same unit) and, unless a discard or a mark,
 * nr_sectors units of data; a unit is sectorsize bytes, all little endian.
 * Writes appear in the order they reached stable storage (completion order,
 * sealed by the next flush), so every prefix is a state a power cut could
 * leave. Exit 0, 1 with a message (short or damaged log), 2 bad arguments. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_MAGIC 0x6a736677736872ull
#define F_FLUSH (1u << 0)
#define F_FUA (1u << 1)
#define F_DISCARD (1u << 2)
#define F_MARK (1u << 3)
#define BUF_BYTES (1u << 20)

struct entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

static int logfd;
static uint32_t unit;

static int die(const char *what, uint64_t index)
{
	fprintf(stderr, "tp-logreplay: entry %" PRIu64 ": %s\n", index, what);
	return 1;
}

static int read_at(void *buf, size_t len, uint64_t off)
{
	return pread(logfd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The header unit at OFF: its entry and, for a mark, its text. */
static int read_entry(uint64_t off, struct entry *e, char *mark, size_t mark_size)
{
	unsigned char u[4096];

	if (read_at(u, unit, off))
		return -1;
	memcpy(e, u, sizeof(*e));
	e->sector = le64toh(e->sector);
	e->nr_sectors = le64toh(e->nr_sectors);
	e->flags = le64toh(e->flags);
	e->data_len = le64toh(e->data_len);
	mark[0] = 0;
	if (e->flags & F_MARK) {
		size_t n = e->data_len < mark_size - 1 ? e->data_len : mark_size - 1;

		if (n > unit - sizeof(*e))
			return -1;
		memcpy(mark, u + sizeof(*e), n);
		mark[n] = 0;
	}
	return 0;
}

static uint64_t next_entry(uint64_t off, const struct entry *e)
{
	uint64_t data = e->flags & (F_DISCARD | F_MARK) ? 0 : e->nr_sectors;

	return off + (1 + data) * unit;
}

static int apply(int tfd, uint64_t off, const struct entry *e, uint64_t index, char *buf)
{
	uint64_t done = 0, len = e->nr_sectors * unit, at = e->sector * unit;

	if (e->flags & F_MARK)
		return 0;
	if (e->flags & F_DISCARD)
		memset(buf, 0, BUF_BYTES);
	while (done < len) {
		size_t n = len - done < BUF_BYTES ? (size_t)(len - done) : BUF_BYTES;

		if (!(e->flags & F_DISCARD) && read_at(buf, n, off + unit + done))
			return die("its data is past the end of the log", index);
		if (pwrite(tfd, buf, n, (off_t)(at + done)) != (ssize_t)n)
			return die(strerror(errno), index);
		done += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char sb[32];
	uint64_t magic, nr, off, from = 0, to = 0;
	int list = argc == 3 && !strcmp(argv[2], "list");
	int replay = argc == 6 && !strcmp(argv[2], "replay");
	int tfd = -1;
	char mark[256], *buf = NULL;

	if (!list && !replay) {
		fprintf(stderr, "tp-logreplay: bad arguments (see the comment at the top of "
				"tp-logreplay.c)\n");
		return 2;
	}
	if ((logfd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0 || read_at(sb, sizeof(sb), 0)) {
		fprintf(stderr, "tp-logreplay: %s: cannot read: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memcpy(&magic, sb, 8);
	memcpy(&nr, sb + 16, 8);
	memcpy(&unit, sb + 24, 4);
	magic = le64toh(magic);
	nr = le64toh(nr);
	unit = le32toh(unit);
	if (magic != LOG_MAGIC || unit < 512 || unit > 4096 || (unit & (unit - 1))) {
		fprintf(stderr, "tp-logreplay: %s: not a dm-log-writes log\n", argv[1]);
		return 1;
	}
	if (replay) {
		from = strtoull(argv[4], NULL, 10);
		to = strtoull(argv[5], NULL, 10);
		if (to >= nr || from > to) {
			fprintf(stderr, "tp-logreplay: entries %" PRIu64 "..%" PRIu64
				" are not in the log (%" PRIu64 " entries)\n", from, to, nr);
			return 1;
		}
		tfd = open(argv[3], O_WRONLY | O_CLOEXEC);
		buf = malloc(BUF_BYTES);
		if (tfd < 0 || !buf) {
			fprintf(stderr, "tp-logreplay: %s: cannot open: %s\n", argv[3],
				strerror(errno));
			return 1;
		}
	} else {
		printf("entries %" PRIu64 " sectorsize %" PRIu32 "\n", nr, unit);
	}
	off = unit;
	for (uint64_t i = 0; i < nr && (list || i <= to); i++) {
		struct entry e;

		if (read_entry(off, &e, mark, sizeof(mark)))
			return die("cannot read its header", i);
		if (list && (e.flags & (F_FLUSH | F_FUA | F_DISCARD | F_MARK)))
			printf("%" PRIu64 " %s%s%s%s%s%s\n", i, e.flags & F_FLUSH ? "F" : "",
			       e.flags & F_FUA ? "U" : "", e.flags & F_DISCARD ? "D" : "",
			       e.flags & F_MARK ? "M" : "", mark[0] ? " " : "", mark);
		if (replay && i >= from && apply(tfd, off, &e, i, buf))
			return 1;
		off = next_entry(off, &e);
	}
	if (replay && fsync(tfd)) {
		fprintf(stderr, "tp-logreplay: %s: fsync: %s\n", argv[3], strerror(errno));
		return 1;
	}
	free(buf);
	return 0;
}
