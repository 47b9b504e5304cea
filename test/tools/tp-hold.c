/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-hold - hold a block device exclusively, as a mounted filesystem or a
 * running device-mapper target would, for shell tests of the live-or-
 * offline decision on a host without device-mapper. Test-only.
 *
 *   tp-hold PATH FILE     open PATH with O_EXCL, create FILE, and hold
 *                         PATH until FILE is removed
 * Exit: 0 released, 1 PATH could not be held or FILE made, 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int fd, marker;

	if (argc != 3) {
		fprintf(stderr, "usage: tp-hold PATH FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "tp-hold: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	marker = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (marker < 0) {
		fprintf(stderr, "tp-hold: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	close(marker);
	while (access(argv[2], F_OK) == 0)
		nanosleep(&tick, NULL);
	close(fd);
	return 0;
}
