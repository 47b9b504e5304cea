/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_backups.c - tprepair --list-backups: what the VG metadata backups
 * of every pool that had a name (host.h) record, read from this host's
 * files, and which of those pools the devices are (the devices file and
 * the labels of the devices it lists). See pool_check.h. */
#include "lib/pool/pool_check.h"
#include "lib/pool/host/host.h"

#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "metadata/vg/vg.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the file's first comment lines say made it, into E. */
static void find_description(const char *text, struct pool_backup_entry *e)
{
	const char *line = text;
	size_t plen = strlen(POOL_BACKUP_DESCRIPTION);

	while (*line == '#') {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len >= plen && !strncmp(line, POOL_BACKUP_DESCRIPTION, plen)) {
			size_t n = len - plen < sizeof(e->description) - 1 ? len - plen
									  : sizeof(e->description) - 1;
			memcpy(e->description, line + plen, n);
			e->description[n] = '\0';
			return;
		}
		if (!end)
			return;
		line = end + 1;
	}
}

/* Backup F into E. */
static void read_entry(const struct pool_backup_file *f, struct pool_backup_entry *e)
{
	char *text = NULL, why[sizeof(e->problem) + 2 * PATH_MAX];
	struct vg *vg = NULL;
	struct stat st;
	size_t len;
	int r;

	e->seqno = f->seqno;
	e->first_layout = f->dir_name[0] != '\0';
	snprintf(e->path, sizeof(e->path), "%s", f->path);
	if (!pool_backup_delta_base(f->path, &e->delta_base))
		e->delta_base = 0;
	snprintf(e->uuid, sizeof(e->uuid), "%s", f->uuid[0] ? f->uuid : f->dir_uuid);
	if (!stat(f->path, &st))
		e->mtime = (int64_t)st.st_mtime;
	if ((r = pool_backup_read_why(f->path, &text, &len, why, sizeof(why)))) {
		if (r == -EUCLEAN) {	/* a delta: what does not match ("FILE: ...") */
			size_t k = strlen(f->path), m;
			const char *w = !strncmp(why, f->path, k) && !strncmp(why + k, ": ", 2)
						? why + k + 2 : why;

			m = strnlen(w, sizeof(e->problem) - 1);
			memcpy(e->problem, w, m);
			e->problem[m] = '\0';
		} else
			snprintf(e->problem, sizeof(e->problem), "cannot be read: %s",
				 r == -EINVAL ? "not a regular file" : strerror(-r));
		return;
	}
	find_description(text, e);
	if (!len) {
		snprintf(e->problem, sizeof(e->problem), "an empty file");
	} else if ((r = vg_import_why(text, len, &vg, e->problem, sizeof(e->problem)))) {
		e->newer_format = r == -EPROTONOSUPPORT;
		if (!e->problem[0])
			snprintf(e->problem, sizeof(e->problem), "%s", strerror(ENOMEM));
	} else {
		e->readable = 1;
		e->transaction_id = vg->transaction_id;
		e->nr_volumes = vg->nr_volumes;
		e->nr_receives = vg->nr_receives;
		snprintf(e->pool, sizeof(e->pool), "%s", vg->name);
		snprintf(e->uuid, sizeof(e->uuid), "%s", vg->uuid);
		e->seqno = vg->seqno;	/* what a restore of it brings back */
		if (vg->seqno != f->seqno)
			snprintf(e->problem, sizeof(e->problem), "its file name says seqno %" PRIu64
				 ": renamed or copied, suspect ('tprepair --restorefile' refuses it "
				 "without --force)", f->seqno);
		else if (f->dir_uuid[0] && strcmp(f->dir_uuid, vg->uuid))
			snprintf(e->problem, sizeof(e->problem), "it lies in the directory of pool "
				 "uuid %s", f->dir_uuid);
		vg_free(vg);
	}
	free(text);
}

/* Which pool the devices of NAME are, from this host's devices file and
 * the labels of the devices it lists (read only, quietly): into L->uuid
 * and L->uuid_from, "" when nothing says or two things disagree. A label
 * that carries another device uuid than its entry's makes the entry
 * stale: it says nothing. */
static void devices_identity(const char *name, struct pool_backup_listing *l)
{
	struct pool_devices_entry ent[16];
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	int n = pool_devices_lookup_pool(name, ent, TP_ARRAY_SIZE(ent));

	for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent); i++) {
		char from[sizeof(l->uuid_from)];
		const char *uuid = NULL;
		struct vg_label lab;
		int r = pool_read_label(ent[i].path, &lab);

		if (!r && !strcmp(lab.pv_uuid, ent[i].pv_uuid)) {
			uuid = lab.pool_uuid;
			snprintf(from, sizeof(from), "the label of %s", ent[i].path);
		} else if (r && ent[i].pool_uuid[0]) {
			uuid = ent[i].pool_uuid;
			snprintf(from, sizeof(from), "the devices file's entry for %s", ent[i].path);
		}
		if (!uuid)
			continue;
		if (l->uuid[0] && strcmp(l->uuid, uuid)) {
			l->uuid[0] = '\0';
			snprintf(l->uuid_from, sizeof(l->uuid_from), "the devices file lists "
				 "devices of two pools named %s", name);
			break;
		}
		if (!l->uuid[0]) {
			snprintf(l->uuid, sizeof(l->uuid), "%s", uuid);
			snprintf(l->uuid_from, sizeof(l->uuid_from), "%s", from);
		}
	}
	tp_log_capture_pop(outer);
}

/* One pool's entries: [begin, end) of the found files, its newest mtime. */
struct group {
	size_t begin, end;
	int64_t newest;
	int current;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->current != y->current)
		return x->current - y->current;	/* the pool on the devices last */
	return x->newest < y->newest ? -1 : x->newest > y->newest;
}

int pool_backup_listing(const char *pool, struct pool_backup_listing *l)
{
	struct pool_backup_entry *tmp = NULL;
	struct pool_backup_set s;
	struct group *g = NULL;
	size_t ng = 0, o = 0;
	char *root;
	const char *why;
	int r;

	memset(l, 0, sizeof(*l));
	if (!vg_name_valid(pool, &why)) {
		log_error("invalid pool name '%s': %s", pool, why);
		return -EINVAL;
	}
	if (!(root = pool_backup_root()))
		return -ENOMEM;
	snprintf(l->dir, sizeof(l->dir), "%s", root);
	free(root);
	snprintf(l->pool, sizeof(l->pool), "%s", pool);
	if ((r = pool_backup_find(pool, NULL, &s))) {
		log_error("pool %s: cannot read the backup directory %s: %s", pool, l->dir,
			  strerror(-r));
		return r;
	}
	devices_identity(pool, l);
	if (!s.n) {
		log_error("pool %s has no VG metadata backups in %s: this host keeps one for every "
			  "commit of a pool that it created or changed, and it has none of a pool "
			  "named %s; check the name ('tpstatus' lists the pools here), or copy the "
			  "backups from the host that changed the pool", pool, l->dir, pool);
		pool_backup_set_free(&s);
		return -ENOENT;
	}
	if (!(tmp = calloc(s.n, sizeof(*tmp))) || !(g = calloc(s.n, sizeof(*g)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s.n; i++)
		read_entry(&s.f[i], &tmp[i]);
	/* the found files come sorted by pool uuid, then seqno: one group a pool */
	for (size_t i = 0; i < s.n; i++) {
		if (!ng || strcmp(tmp[i].uuid, tmp[g[ng - 1].begin].uuid))
			g[ng++] = (struct group){ i, i, 0, l->uuid[0] && !strcmp(tmp[i].uuid, l->uuid) };
		g[ng - 1].end = i + 1;
		if (tmp[i].mtime > g[ng - 1].newest)
			g[ng - 1].newest = tmp[i].mtime;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	if (!(l->e = calloc(s.n, sizeof(*l->e)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < ng; k++) {
		l->current_listed |= g[k].current;
		for (size_t i = g[k].begin; i < g[k].end; i++) {
			l->e[o] = tmp[i];
			l->e[o++].other_pool = l->uuid[0] && !g[k].current;
		}
	}
	l->n = o;
	l->nr_pools = (unsigned)ng;
out:
	free(tmp);
	free(g);
	pool_backup_set_free(&s);
	if (r)
		pool_backup_listing_free(l);
	return r;
}

void pool_backup_listing_free(struct pool_backup_listing *l)
{
	free(l->e);
	l->e = NULL;
	l->n = 0;
}
