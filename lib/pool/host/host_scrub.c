/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host_scrub.c - the record of a pool's last metadata scrub (host.h). */
#include "lib/pool/host/host.h"

#include "lib/base/atomic.h"
#include "lib/base/fileio.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* <config dir>/scrub, or with UUID its file: malloc'd, NULL on ENOMEM. */
static char *scrub_path(const char *uuid)
{
	char *dir = tp_path_join(tp_config_dir(), "scrub"), *file;

	if (!dir || !uuid)
		return dir;
	file = tp_path_join(dir, uuid);
	free(dir);
	return file;
}

/* A uuid is a file name: no '/', not empty, no dot names. */
static int name_ok(const char *uuid)
{
	return uuid && uuid[0] && uuid[0] != '.' && !strchr(uuid, '/') &&
	       strlen(uuid) <= VG_UUID_LEN;
}

static const struct {
	const char *key;
	size_t off;
} keys[] = {
	{ "blocks", offsetof(struct pool_scrub_state, blocks) },
	{ "bad0", offsetof(struct pool_scrub_state, bad[0]) },
	{ "bad1", offsetof(struct pool_scrub_state, bad[1]) },
	{ "unreadable0", offsetof(struct pool_scrub_state, unreadable[0]) },
	{ "unreadable1", offsetof(struct pool_scrub_state, unreadable[1]) },
	{ "mismatched", offsetof(struct pool_scrub_state, mismatched) },
	{ "healed0", offsetof(struct pool_scrub_state, healed[0]) },
	{ "healed1", offsetof(struct pool_scrub_state, healed[1]) },
	{ "mixed", offsetof(struct pool_scrub_state, mixed) },
};

static int parse_line(char *line, void *ctx)
{
	struct pool_scrub_state *s = ctx;
	char *val = strchr(line, ' '), *end;
	unsigned long long u;

	if (!val)
		return *line ? -EUCLEAN : 0;
	*val++ = '\0';
	errno = 0;
	u = strtoull(val, &end, 10);
	if (errno || end == val || *end || *val == '-')
		return -EUCLEAN;
	if (!strcmp(line, "time")) {
		if (u > INT64_MAX)
			return -EUCLEAN;
		s->time = (int64_t)u;
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(line, keys[i].key)) {
			*(uint64_t *)((char *)s + keys[i].off) = u;
			return 0;
		}
	return 0;	/* a newer tptools' key */
}

int pool_scrub_state_read(const char *pool_uuid, struct pool_scrub_state *s)
{
	char *path;
	int r;

	memset(s, 0, sizeof(*s));
	if (!name_ok(pool_uuid))
		return -EINVAL;
	if (!(path = scrub_path(pool_uuid)))
		return -ENOMEM;
	r = tp_read_lines(path, 256, parse_line, s);
	free(path);
	if (!r && !s->time)
		r = -EUCLEAN;
	if (r)
		memset(s, 0, sizeof(*s));
	return r;
}

int pool_scrub_state_write(const char *pool_uuid, const struct pool_scrub_state *s)
{
	char *dir = NULL, *path = NULL;
	struct tp_atomic a;
	int r;

	if (!name_ok(pool_uuid))
		return -EINVAL;
	dir = scrub_path(NULL);
	path = scrub_path(pool_uuid);
	if (!dir || !path)
		r = -ENOMEM;
	else
		r = tp_mkdir_p(dir);
	if (r) {
		log_error("pool uuid %s: cannot write the scrub record %s: %s", pool_uuid,
			  path ? path : "", strerror(-r));
		goto out;
	}
	if ((r = tp_atomic_open(path, NULL, 0644, &a)))
		goto out;
	tp_atomic_printf(&a, "# the last scrub of the pool's metadata mirror (tpcheck, "
			 "tprepair); 'tpstatus' shows it\ntime %" PRId64 "\n", s->time);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tp_atomic_printf(&a, "%s %" PRIu64 "\n", keys[i].key,
				 *(const uint64_t *)((const char *)s + keys[i].off));
	r = tp_atomic_commit(&a);
out:
	free(dir);
	free(path);
	return r;
}

void pool_scrub_state_forget(const char *pool_uuid)
{
	char *path = name_ok(pool_uuid) ? scrub_path(pool_uuid) : NULL;

	if (path && unlink(path) && errno != ENOENT)
		log_warn("pool uuid %s: cannot remove the scrub record %s: %s", pool_uuid, path,
			 strerror(errno));
	free(path);
}
