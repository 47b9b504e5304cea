/* pool_backups.c - tprepair --list-backups: what the VG metadata backups
 * of a pool (host.h) record, read from this host's files alone. See
 * pool_check.h. */
#include "lib/pool/pool_check.h"
#include "lib/pool/host/host.h"

#include "lib/base/log.h"
#include "lib/base/paths.h"
#include "metadata/vg/vg.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Is NAME "POOL.DIGITS" or "POOL.DIGITS.DIGITS", the name tpcreate gives
 * the backups of an earlier pool of that name when it moves them aside? */
static int earlier_name(const char *name, const char *pool)
{
	size_t n = strlen(pool);
	const char *s = name + n;
	int parts = 0;

	if (strncmp(name, pool, n) || *s != '.')
		return 0;
	while (*s == '.' && parts < 2) {
		size_t d = strspn(s + 1, "0123456789");
		if (!d)
			return 0;
		s += 1 + d;
		parts++;
	}
	return !*s;
}

/* The backup directories of earlier pools named POOL, into L. */
static void find_earlier(const char *pool, struct pool_backup_listing *l)
{
	char *base = tp_path_join(tp_config_dir(), "backup");
	struct dirent *de;
	DIR *d = base ? opendir(base) : NULL;

	free(base);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > POOL_NAME_MAX || !earlier_name(de->d_name, pool) ||
		    !vg_name_valid(de->d_name, NULL))
			continue;
		if (l->nr_earlier < sizeof(l->earlier) / sizeof(l->earlier[0]))
			memcpy(l->earlier[l->nr_earlier], de->d_name, len + 1);
		l->nr_earlier++;
	}
	closedir(d);
}

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

/* Backup SEQNO of POOL into E. */
static void read_entry(const char *pool, uint64_t seqno, struct pool_backup_entry *e)
{
	char *path = pool_backup_path(pool, seqno), *text = NULL;
	struct vg *vg = NULL;
	struct stat st;
	size_t len;
	int r;

	e->seqno = seqno;
	snprintf(e->path, sizeof(e->path), "%s", path ? path : "");
	if (!path) {
		snprintf(e->problem, sizeof(e->problem), "%s", strerror(ENOMEM));
		return;
	}
	if (!stat(path, &st))
		e->mtime = (int64_t)st.st_mtime;
	if ((r = pool_backup_read_file(path, &text, &len))) {
		snprintf(e->problem, sizeof(e->problem), "cannot be read: %s",
			 r == -EINVAL ? "not a regular file" : strerror(-r));
		free(path);
		return;
	}
	find_description(text, e);
	if (!len) {
		snprintf(e->problem, sizeof(e->problem), "an empty file");
	} else if (vg_import_why(text, len, &vg, e->problem, sizeof(e->problem))) {
		if (!e->problem[0])
			snprintf(e->problem, sizeof(e->problem), "%s", strerror(ENOMEM));
	} else {
		e->readable = 1;
		e->transaction_id = vg->transaction_id;
		e->nr_volumes = vg->nr_volumes;
		e->nr_receives = vg->nr_receives;
		snprintf(e->pool, sizeof(e->pool), "%s", vg->name);
		snprintf(e->uuid, sizeof(e->uuid), "%s", vg->uuid);
		if (vg->seqno != seqno)
			snprintf(e->problem, sizeof(e->problem), "its text records seqno %" PRIu64,
				 vg->seqno);
		vg_free(vg);
	}
	free(text);
	free(path);
}

/* "; backups of earlier pools of that name: A, B (list them with ...)" */
static void earlier_note(const char *pool, const struct pool_backup_listing *l, char *buf,
			 size_t len)
{
	size_t used = 0, shown = l->nr_earlier < 8 ? l->nr_earlier : 8;

	buf[0] = '\0';
	if (!l->nr_earlier)
		return;
	used += (size_t)snprintf(buf, len, "; backups of earlier pools named %s, moved aside "
				 "by tpcreate, are under the names ", pool);
	for (size_t i = 0; i < shown && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 l->earlier[i]);
	if (used < len)
		snprintf(buf + used, len - used, "%s (list them with 'tprepair --list-backups "
			 "%s')", l->nr_earlier > shown ? ", ..." : "", l->earlier[0]);
}

int pool_backup_listing(const char *pool, struct pool_backup_listing *l)
{
	char *dir, note[1024];
	uint64_t *seq = NULL;
	const char *why;
	size_t n;
	int r;

	memset(l, 0, sizeof(*l));
	if (!vg_name_valid(pool, &why)) {
		log_error("invalid pool name '%s': %s", pool, why);
		return -EINVAL;
	}
	if (!(dir = pool_backup_dir(pool)))
		return -ENOMEM;
	snprintf(l->dir, sizeof(l->dir), "%s", dir);
	free(dir);
	if ((r = pool_backup_list(pool, &seq, &n))) {
		log_error("pool %s: cannot read the backup directory %s: %s", pool, l->dir,
			  strerror(-r));
		return r;
	}
	find_earlier(pool, l);
	if (!n) {
		earlier_note(pool, l, note, sizeof(note));
		log_error("pool %s has no VG metadata backups in %s: this host keeps one for every "
			  "commit of a pool that it created or changed, and it has none of %s; check "
			  "the name ('tpstatus' lists the pools here), or copy the backups from the "
			  "host that changed the pool%s", pool, l->dir, pool, note);
		free(seq);
		return -ENOENT;
	}
	if (!(l->e = calloc(n, sizeof(*l->e)))) {
		free(seq);
		return -ENOMEM;
	}
	l->n = n;
	for (size_t i = 0; i < n; i++)
		read_entry(pool, seq[i], &l->e[i]);
	free(seq);
	/* the pool is the one the newest readable backup records */
	for (size_t i = n; i-- > 0;) {
		if (!l->e[i].readable)
			continue;
		snprintf(l->pool, sizeof(l->pool), "%s", l->e[i].pool);
		snprintf(l->uuid, sizeof(l->uuid), "%s", l->e[i].uuid);
		for (size_t j = 0; j < n; j++)
			l->e[j].other_pool = l->e[j].readable &&
					     (strcmp(l->e[j].uuid, l->uuid) ||
					      strcmp(l->e[j].pool, l->pool));
		break;
	}
	return 0;
}

void pool_backup_listing_free(struct pool_backup_listing *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}
