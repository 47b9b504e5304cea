/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host_devices.c - the devices file. See host.h. */
#include "lib/pool/host/host.h"

#include "lib/base/atomic.h"
#include "lib/base/lock.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICES_LOCK "#devices"
#define DEVICES_HEADER "# tptools devices file: POOL POOL_UUID ROLE PV_UUID PATH (one line per pool device)\n"

/* One line of the file: a parsed entry, or a line kept verbatim. */
struct line {
	int parsed;
	struct pool_devices_entry e;
	char *raw;
};

struct file {
	struct line *lines;
	size_t n, alloc;
};

char *pool_devices_path(void)
{
	return tp_path_join(tp_config_dir(), "devices");
}

static void file_free(struct file *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->lines[i].raw);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

static struct line *file_add(struct file *f)
{
	if (f->n == f->alloc) {
		size_t a = f->alloc ? 2 * f->alloc : 16;
		struct line *p = realloc(f->lines, a * sizeof(*p));
		if (!p)
			return NULL;
		f->lines = p;
		f->alloc = a;
	}
	memset(&f->lines[f->n], 0, sizeof(f->lines[0]));
	return &f->lines[f->n++];
}

static int entry_valid(const struct pool_devices_entry *e)
{
	return vg_name_valid(e->pool, NULL) && (!e->pool_uuid[0] || vg_uuid_valid(e->pool_uuid)) &&
	       vg_role_name(e->role) && vg_uuid_valid(e->pv_uuid) && e->path[0] &&
	       !strchr(e->path, '\n') && strlen(e->path) <= VG_PATH_MAX;
}

/* "POOL POOL_UUID ROLE UUID PATH", or the first format's "POOL ROLE UUID
 * PATH" (no pool uuid: the second field is a role, never a uuid) -> E; 0
 * or -1. */
static int parse_line(const char *s, struct pool_devices_entry *e)
{
	const char *p = s, *sp;
	char role[8];
	size_t n;

	memset(e, 0, sizeof(*e));
	sp = strchr(p, ' ');
	if (!sp || (n = (size_t)(sp - p)) > VG_NAME_MAX)
		return -1;
	memcpy(e->pool, p, n);
	p = sp + 1;
	sp = strchr(p, ' ');
	if (sp && (size_t)(sp - p) == VG_UUID_LEN) {
		memcpy(e->pool_uuid, p, VG_UUID_LEN);
		if (!vg_uuid_valid(e->pool_uuid))
			return -1;
		p = sp + 1;
		sp = strchr(p, ' ');
	}
	if (!sp || (n = (size_t)(sp - p)) >= sizeof(role))
		return -1;
	memcpy(role, p, n);
	role[n] = '\0';
	if (vg_role_parse(role, &e->role))
		return -1;
	p = sp + 1;
	sp = strchr(p, ' ');
	if (!sp || (size_t)(sp - p) != VG_UUID_LEN)
		return -1;
	memcpy(e->pv_uuid, p, VG_UUID_LEN);
	p = sp + 1;
	if (strlen(p) > VG_PATH_MAX)
		return -1;
	strcpy(e->path, p);
	return entry_valid(e) ? 0 : -1;
}

static int file_read(struct file *f)
{
	char *path = pool_devices_path(), *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;
	static char said[81];
	int r = 0, warned = 0;

	memset(f, 0, sizeof(*f));
	if (!path)
		return -ENOMEM;
	fp = fopen(path, "re");
	if (!fp) {
		r = errno == ENOENT ? 0 : -errno;
		if (r)
			log_error("cannot read the devices file %s: %s", path, strerror(-r));
		free(path);
		return r;
	}
	while ((len = getline(&buf, &cap, fp)) >= 0) {
		struct line *l;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (!len || buf[0] == '#')
			continue;
		l = file_add(f);
		if (!l) {
			r = -ENOMEM;
			break;
		}
		if (!parse_line(buf, &l->e)) {
			l->parsed = 1;
			continue;
		}
		/* said once a command (the file is read many times) */
		if (!warned++ && strncmp(said, buf, sizeof(said) - 1)) {
			snprintf(said, sizeof(said), "%s", buf);
			log_warn("%s: ignoring a line that is not 'POOL POOL_UUID ROLE PV_UUID PATH' "
				 "(damaged: 'tprepair POOL' records a pool's devices again; then delete the "
				 "line): %.80s",
				 path, buf);
		}
		l->raw = strdup(buf);
		if (!l->raw) {
			f->n--;
			r = -ENOMEM;
			break;
		}
	}
	if (!r && ferror(fp))
		r = -EIO;
	fclose(fp);
	free(buf);
	free(path);
	if (r)
		file_free(f);
	return r;
}

static int file_write(const struct file *f)
{
	char *path = pool_devices_path();
	struct tp_atomic a;
	size_t i;
	int r;

	if (!path)
		return -ENOMEM;
	r = tp_mkdir_p(tp_config_dir());
	if (r) {
		log_error("cannot write the devices file %s: %s", path, strerror(-r));
		free(path);
		return r;
	}
	/* from here on tp_atomic_* name the file and the step of a failure */
	r = tp_atomic_open(path, ".devices.tmp", 0666, &a);
	free(path);
	if (r)
		return r;
	tp_atomic_write(&a, DEVICES_HEADER, sizeof(DEVICES_HEADER) - 1);
	for (i = 0; i < f->n; i++) {
		const struct line *l = &f->lines[i];
		if (l->parsed && l->e.pool_uuid[0])
			tp_atomic_printf(&a, "%s %s %s %s %s\n", l->e.pool, l->e.pool_uuid,
					 vg_role_name(l->e.role), l->e.pv_uuid, l->e.path);
		else if (l->parsed)	/* an entry of the first format, kept as it was */
			tp_atomic_printf(&a, "%s %s %s %s\n", l->e.pool, vg_role_name(l->e.role),
					 l->e.pv_uuid, l->e.path);
		else
			tp_atomic_printf(&a, "%s\n", l->raw);
	}
	return tp_atomic_commit(&a);
}

/* Lock, read, let EDIT change the file, write if it says so. */
static int modify(int (*edit)(struct file *f, const void *arg), const void *arg)
{
	struct tp_lock *lk;
	struct file f;
	int r;

	r = tp_lock_acquire(DEVICES_LOCK, TP_LOCK_EXCL, &lk);
	if (r) {
		log_error("cannot lock the devices file: %s", strerror(-r));
		return r;
	}
	r = file_read(&f);
	if (!r) {
		r = edit(&f, arg);
		if (r > 0)
			r = file_write(&f);
		file_free(&f);
	}
	tp_lock_release(lk);
	return r;
}

/* A line that does not parse but begins with POOL's name: a damaged (cut)
 * entry of that pool, since no two pools of a host share a name. */
static int damaged_for(const struct line *l, const char *pool)
{
	size_t n = strlen(pool);

	return !l->parsed && l->raw && !strncmp(l->raw, pool, n) &&
	       (l->raw[n] == ' ' || l->raw[n] == '\0');
}

/* Drop POOL's damaged lines (damaged_for); 1 if one went. */
static int drop_damaged(struct file *f, const char *pool)
{
	size_t i, o = 0;
	int any = 0;

	for (i = 0; i < f->n; i++) {
		if (damaged_for(&f->lines[i], pool)) {
			free(f->lines[i].raw);
			any = 1;
			continue;
		}
		f->lines[o++] = f->lines[i];
	}
	f->n = o;
	return any;
}

static int edit_add(struct file *f, const void *arg)
{
	const struct pool_devices_entry *e = arg;
	struct line *l = NULL;
	size_t i;

	/* an entry of the pool written: its damaged lines go (the next
	 * lookup finds what they were by the labels) */
	drop_damaged(f, e->pool);

	for (i = 0; i < f->n; i++)
		if (f->lines[i].parsed && !strcmp(f->lines[i].e.pv_uuid, e->pv_uuid))
			l = &f->lines[i];
	if (!l && !(l = file_add(f)))
		return -ENOMEM;
	if (l->parsed && !e->pool_uuid[0] && !strcmp(l->e.pool, e->pool) && l->e.pool_uuid[0]) {
		/* the same device of the same pool, its pool uuid not known
		 * to the caller: the one recorded stays */
		struct pool_devices_entry keep = *e;
		snprintf(keep.pool_uuid, sizeof(keep.pool_uuid), "%s", l->e.pool_uuid);
		l->e = keep;
		return 1;
	}
	l->parsed = 1;
	l->e = *e;
	return 1;
}

int pool_devices_add(const struct pool_devices_entry *e)
{
	if (!entry_valid(e)) {
		log_error("devices file: bad entry for pool '%.64s' (name, uuids or path)", e->pool);
		return -EINVAL;
	}
	return modify(edit_add, e);
}

/* Drop the entries of pool ARG; returns 1 (rewrite) if any went. */
static int edit_remove_pool(struct file *f, const void *arg)
{
	size_t i, o = 0;
	int any = 0;

	for (i = 0; i < f->n; i++) {
		if (f->lines[i].parsed && !strcmp(f->lines[i].e.pool, arg)) {
			any = 1;
			continue;
		}
		f->lines[o++] = f->lines[i];
	}
	f->n = o;
	return drop_damaged(f, arg) || any;
}

int pool_devices_remove_pool(const char *pool)
{
	return modify(edit_remove_pool, pool);
}

/* Drop the entry of device uuid ARG; 1 (rewrite) if it went. */
static int edit_remove_pv(struct file *f, const void *arg)
{
	size_t i, o = 0;
	int any = 0;

	for (i = 0; i < f->n; i++) {
		if (f->lines[i].parsed && !strcmp(f->lines[i].e.pv_uuid, arg)) {
			any = 1;
			continue;
		}
		f->lines[o++] = f->lines[i];
	}
	f->n = o;
	return any;
}

int pool_devices_remove_pv(const char *pv_uuid)
{
	return modify(edit_remove_pv, pv_uuid);
}

/* Read under a shared lock. */
static int read_locked(struct file *f)
{
	struct tp_lock *lk;
	int r;

	r = tp_lock_acquire(DEVICES_LOCK, TP_LOCK_SHARED, &lk);
	if (r) {
		log_error("cannot lock the devices file: %s", strerror(-r));
		return r;
	}
	r = file_read(f);
	tp_lock_release(lk);
	return r;
}

int pool_devices_list(struct pool_devices_entry **entries, size_t *n)
{
	struct file f;
	size_t i, o = 0;
	int r;

	*entries = NULL;
	*n = 0;
	r = read_locked(&f);
	if (r)
		return r;
	if (f.n) {
		*entries = malloc(f.n * sizeof(**entries));
		if (!*entries) {
			file_free(&f);
			return -ENOMEM;
		}
		for (i = 0; i < f.n; i++)
			if (f.lines[i].parsed)
				(*entries)[o++] = f.lines[i].e;
	}
	*n = o;
	file_free(&f);
	return 0;
}

int pool_devices_lookup_pool(const char *pool, struct pool_devices_entry *out, size_t max)
{
	struct pool_devices_entry *all;
	size_t n, i;
	int r, found = 0;

	r = pool_devices_list(&all, &n);
	if (r)
		return r;
	for (i = 0; i < n; i++) {
		if (strcmp(all[i].pool, pool))
			continue;
		if ((size_t)found < max)
			out[found] = all[i];
		found++;
	}
	free(all);
	return found;
}

int pool_devices_damaged(const char *pool, char *line, size_t len)
{
	struct file f;
	int r = read_locked(&f), found = 0;

	if (r)
		return r;
	for (size_t i = 0; i < f.n && !found; i++)
		if ((found = damaged_for(&f.lines[i], pool)) && line)
			snprintf(line, len, "%s", f.lines[i].raw);
	file_free(&f);
	return found;
}

int pool_devices_lookup_pv(const char *pv_uuid, struct pool_devices_entry *out)
{
	struct pool_devices_entry *all;
	size_t n, i;
	int r = pool_devices_list(&all, &n);

	if (r)
		return r;
	r = -ENOENT;
	for (i = 0; i < n; i++) {
		if (!strcmp(all[i].pv_uuid, pv_uuid)) {
			*out = all[i];
			r = 0;
			break;
		}
	}
	free(all);
	return r;
}

int pool_devices_pool_uuid(const char *pool, char uuid[VG_UUID_LEN + 1])
{
	struct pool_devices_entry *all;
	size_t n, i;
	int r = pool_devices_list(&all, &n);

	if (r)
		return r;
	uuid[0] = '\0';
	for (i = 0; i < n && !r; i++) {
		if (strcmp(all[i].pool, pool) || !all[i].pool_uuid[0])
			continue;
		if (!uuid[0])
			snprintf(uuid, VG_UUID_LEN + 1, "%s", all[i].pool_uuid);
		else if (strcmp(uuid, all[i].pool_uuid))
			r = -EEXIST;	/* entries of two pools: neither is trusted */
	}
	free(all);
	if (r)
		uuid[0] = '\0';
	return r ? r : uuid[0] ? 0 : -ENOENT;
}

/* Complete the entries of the VG's devices (ARG) that lack the pool uuid:
 * 1 (rewrite) if one did. */
static int edit_adopt(struct file *f, const void *arg)
{
	const struct vg *vg = arg;
	int any = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct pool_devices_entry *e = &f->lines[i].e;
		int ours = 0;

		if (!f->lines[i].parsed || e->pool_uuid[0] || strcmp(e->pool, vg->name))
			continue;
		for (unsigned k = 0; k < vg_nr_data(vg) && !ours; k++)
			ours = !strcmp(vg_data_dev(vg, k)->pv_uuid, e->pv_uuid);
		ours |= !strcmp(vg->dev[VG_ROLE_META].pv_uuid, e->pv_uuid) ||
			(vg->meta_mirror && !strcmp(vg->meta1.pv_uuid, e->pv_uuid));
		if (ours) {
			snprintf(e->pool_uuid, sizeof(e->pool_uuid), "%s", vg->uuid);
			any = 1;
		}
	}
	return any;
}

int pool_devices_adopt(const struct vg *vg)
{
	struct pool_devices_entry *all;
	size_t n, i;
	int r = pool_devices_list(&all, &n), need = 0;

	if (r)
		return r;
	for (i = 0; i < n && !need; i++)	/* a shared look first: mostly nothing to do */
		need = !all[i].pool_uuid[0] && !strcmp(all[i].pool, vg->name);
	free(all);
	return need ? modify(edit_adopt, vg) : 0;
}
