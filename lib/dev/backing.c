/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backing.c - the same backing storage (stack.h): what two devices are
 * and what they lie on, and whether one is or lies on the other. */
#include "lib/dev/stack.h"

#include "lib/base/log.h"
#include "lib/dev/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static int same_id(const struct tp_backing_id *x, const struct tp_backing_id *y)
{
	return x->kind == y->kind && x->a == y->a && x->b == y->b;
}

static void add_id(struct tp_backing *out, char kind, uint64_t a, uint64_t b, const char *how)
{
	struct tp_backing_id *id;

	for (unsigned i = 0; i < out->nr; i++)
		if (out->id[i].kind == kind && out->id[i].a == a && out->id[i].b == b)
			return;
	if (out->nr >= TP_BACKING_MAX)
		return;
	id = &out->id[out->nr++];
	id->kind = kind;
	id->a = a;
	id->b = b;
	snprintf(id->how, sizeof(id->how), "%s", how);
}

int tp_backing_overlap(const struct tp_backing *a, const char *a_name,
		       const struct tp_backing *b, const char *b_name, char *why, size_t len)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct tp_backing *x = pass ? b : a, *y = pass ? a : b;
		const char *y_name = pass ? a_name : b_name, *x_name = pass ? b_name : a_name;

		for (unsigned i = 0; i < x->nr_own; i++)
			for (unsigned j = 0; j < y->nr; j++) {
				const struct tp_backing_id *yid = &y->id[j];

				if (!same_id(&x->id[i], yid))
					continue;
				if (yid->how[0])
					tp_dev_fmt(why, len, "%s %s", y_name, yid->how);
				else if (x->id[i].how[0])
					tp_dev_fmt(why, len, "%s %s", x_name, x->id[i].how);
				else
					snprintf(why, len, "they are the same %s",
						 yid->kind == 'f' ? "file (a hard link or a symlink)"
								  : "device");
				return 1;
			}
	}
	return 0;
}

/* DEVDIR's dev ("M:m") as an id; 0 or -1. */
static int dev_of(const char *devdir, unsigned *maj, unsigned *min)
{
	char v[32];

	return tp_sysfs_attr(devdir, "dev", v, sizeof(v)) && sscanf(v, "%u:%u", maj, min) == 2
		       ? 0 : -1;
}

static void add_loop_file(const char *devdir, const char *name, int depth,
			  struct tp_backing *out)
{
	char file[PATH_MAX_SYSFS], how[160];
	struct stat st;

	if (!tp_sysfs_attr(devdir, "loop/backing_file", file, sizeof(file)) || stat(file, &st))
		return;
	if (depth)
		tp_dev_fmt(how, sizeof(how), "is built on loop device /dev/%s over %s", name, file);
	else
		tp_dev_fmt(how, sizeof(how), "is a loop device over %s", file);
	add_id(out, 'f', (uint64_t)st.st_dev, (uint64_t)st.st_ino, how);
}

static void walk(const char *devdir, const char *name, const char *how, struct tp_backing *out,
		 int depth)
{
	char sub[PATH_MAX_SYSFS], h[160];
	unsigned maj, min;
	struct dirent *e;
	DIR *d;

	if (depth > 8 || out->nr >= TP_BACKING_MAX)
		return;
	if (!dev_of(devdir, &maj, &min))
		add_id(out, 'b', maj, min, how);
	add_loop_file(devdir, name, depth, out);
	if (!depth)
		out->nr_own = out->nr;
	snprintf(sub, sizeof(sub), "%s/slaves", devdir);
	if ((d = opendir(sub))) {
		while ((e = readdir(d))) {
			char sdir[PATH_MAX_SYSFS];

			if (e->d_name[0] == '.')
				continue;
			tp_dev_fmt(sdir, sizeof(sdir), "%s/%s", sub, e->d_name);
			tp_dev_fmt(h, sizeof(h), "is built on /dev/%s", e->d_name);
			walk(sdir, e->d_name, h, out, depth + 1);
		}
		closedir(d);
	}
	if (tp_sysfs_exists(devdir, "partition")) {
		char *real = realpath(devdir, NULL), *slash = real ? strrchr(real, '/') : NULL;

		if (slash) {
			*slash = '\0';
			slash = strrchr(real, '/');
			tp_dev_fmt(h, sizeof(h), "is a partition of /dev/%s", slash ? slash + 1 : real);
			walk(real, slash ? slash + 1 : real, h, out, depth + 1);
		}
		free(real);
	}
}

void tp_backing_read_sysfs(const char *devdir, struct tp_backing *out)
{
	const char *slash = strrchr(devdir, '/');

	walk(devdir, slash ? slash + 1 : devdir, "", out, 0);
}

/* What PATH is and lies on. 0 or -errno (logged). */
static int gather(const char *path, struct tp_backing *out)
{
	char devdir[PATH_MAX_SYSFS], name[64];
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st)) {
		int r = -errno;
		if (r != -ENOENT)	/* (a missing path: the caller says it) */
			log_error("%s: %s", path, strerror(errno));
		return r;
	}
	if (!S_ISBLK(st.st_mode)) {
		add_id(out, 'f', (uint64_t)st.st_dev, (uint64_t)st.st_ino, "");
		out->nr_own = 1;
		return 0;
	}
	snprintf(devdir, sizeof(devdir), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	/* the loop device's name for messages: the sysfs directory's */
	{
		char *real = realpath(devdir, NULL), *slash = real ? strrchr(real, '/') : NULL;
		snprintf(name, sizeof(name), "%s", slash ? slash + 1 : "");
		free(real);
	}
	if (name[0]) {
		walk(devdir, name, "", out, 0);
	}
	if (!out->nr) {
		add_id(out, 'b', major(st.st_rdev), minor(st.st_rdev), "");
		out->nr_own = 1;
	}
	return 0;
}

int tp_dev_same_storage(const char *a, const char *b, char *why, size_t len)
{
	struct tp_backing ba, bb;
	int r;

	if ((r = gather(a, &ba)) || (r = gather(b, &bb)))
		return r;
	r = tp_backing_overlap(&ba, a, &bb, b, why, len);
	log_debug(TP_DBG_DEV, "%s, %s: %s", a, b, r ? why : "separate storage");
	return r;
}
