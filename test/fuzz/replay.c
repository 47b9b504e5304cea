/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c - main() for a fuzz harness built as a plain program: feed every
 * file named on the command line, or found (one level) in the directories
 * named, to LLVMFuzzerTestOneInput. Exit 0 when all were replayed (a crash
 * or a sanitizer report ends the process with its own code), 1 when a file
 * could not be read, 2 on usage. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	/* an exact-size copy, as libFuzzer passes it, so that a sanitizer
	 * build catches reads one byte past the input */
	uint8_t *exact = malloc(len ? len : 1);
	if (exact) {
		memcpy(exact, buf, len);
		LLVMFuzzerTestOneInput(exact, len);
	}
	free(exact);
	free(buf);
	return exact ? 0 : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, unsigned *count)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort), bad = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
			bad |= replay_file(path);
			(*count)++;
		}
		free(list[i]);
	}
	free(list);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	qsort(argv + 1, (size_t)argc - 1, sizeof(*argv), cmp_str);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			bad |= replay_dir(argv[i], &count);
		} else {
			bad |= replay_file(argv[i]);
			count++;
		}
	}
	printf("%s: replayed %u inputs\n", argv[0], count);
	return bad;
}
