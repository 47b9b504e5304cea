/* pool_backup_match.c - which VG metadata backup fits the thin metadata
 * on a pool's metadata device (pool_check_int.h).
 *
 * A backup records the thin-metadata area its commit made active and the
 * transaction id the pool was at; the thin superblock in that area holds
 * the transaction id of the last thin commit there. The two agree for the
 * backup of the state the devices hold. Any other backup points the VG at
 * thin metadata of another moment: volumes it lists are missing from the
 * thin metadata, or thin devices belong to no volume, and a salvage would
 * "repair" that by losing them. Devices rolled back to an older state (a
 * snapshot of the storage, images copied back) match an older backup,
 * not the newest one. */
#include "lib/pool/check/pool_check_int.h"
#include "lib/pool/core/core.h"

#include "lib/base/log.h"
#include "lib/pool/host/host.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The transaction id in the thin superblock of area A of META, or
 * UINT64_MAX when there is none to read (also: A lies beyond META). */
static uint64_t area_tid(const struct vg_area *a, struct io_engine *meta)
{
	struct io_engine *w;
	struct thin_sb sb;
	int r;

	if (!a->size || io_window_create(meta, a->offset, a->size, 0, &w))
		return UINT64_MAX;
	w->read_only = 1;
	r = thin_sb_read(w, 0, &sb);
	io_destroy(w);
	return r ? UINT64_MAX : sb.trans_id;
}

int pool_backup_matches(const struct vg *vg, struct io_engine *meta, uint64_t *sb_tid)
{
	*sb_tid = area_tid(&vg->dev[VG_ROLE_META].area[vg->metadata_area], meta);
	return *sb_tid != UINT64_MAX && *sb_tid == vg->transaction_id;
}

/* Backup SEQNO of POOL, imported: 0, or -errno (a file that does not
 * import is skipped by the caller). */
static int load(const char *pool, uint64_t seqno, struct vg **out)
{
	char *text;
	size_t len;
	int r = pool_backup_read(pool, seqno, &text, &len, NULL);

	if (r)
		return r;
	r = vg_import(text, len, out);
	free(text);
	return r;
}

/* "transaction 2 (area 0), unreadable (area 1)" into BUF. */
static void describe_areas(const struct vg *vg, struct io_engine *meta, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 2 && used < len; i++) {
		uint64_t tid = area_tid(&vg->dev[VG_ROLE_META].area[i], meta);

		if (tid == UINT64_MAX)
			used += (size_t)snprintf(buf + used, len - used, "%sno readable superblock "
						 "(area %u)", i ? ", " : "", i);
		else
			used += (size_t)snprintf(buf + used, len - used, "%stransaction %" PRIu64
						 " (area %u)", i ? ", " : "", tid, i);
	}
}

int pool_backup_pick(const char *pool, const char *uuid, struct io_engine *meta,
		     struct pool_backup_choice *c)
{
	uint64_t *seq, tid;
	size_t n;
	int r = pool_backup_list(pool, &seq, &n);

	memset(c, 0, sizeof(*c));
	if (r)
		return r;
	c->nr_backups = n;
	for (size_t i = n; i-- > 0 && !c->match;) {
		struct vg *vg = NULL;
		if (load(pool, seq[i], &vg) || strcmp(vg->name, pool) ||
		    (uuid && uuid[0] && strcmp(vg->uuid, uuid))) {
			vg_free(vg);
			continue;	/* unreadable, or of another pool of that name */
		}
		if (!c->newest) {
			c->newest = seq[i];
			c->newest_tid = vg->transaction_id;
			describe_areas(vg, meta, c->thin, sizeof(c->thin));
		}
		if (pool_backup_matches(vg, meta, &tid)) {
			c->match = seq[i];
			c->match_tid = tid;
		}
		vg_free(vg);
	}
	free(seq);
	return 0;
}

void pool_backup_advice(const char *pool, const struct pool_backup_choice *c,
			const char *devices, char *buf, size_t len)
{
	char *file = pool_backup_path(pool, c->match ? c->match : c->newest);
	char *dir = pool_backup_dir(pool);

	if (c->match && c->match == c->newest)
		snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s'", pool,
			 file ? file : "FILE", devices);
	else if (c->match)
		snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s' (the "
			 "newest backup whose transaction id, %" PRIu64 ", is the thin metadata's; "
			 "newer backups record changes the devices do not hold)", pool,
			 file ? file : "FILE", devices, c->match_tid);
	else if (c->newest)
		snprintf(buf, len, "no VG metadata backup in %s matches the thin metadata on the "
			 "metadata device (%s; the newest backup is at transaction %" PRIu64 "); "
			 "copy a matching backup there from another host, or restore the newest "
			 "anyway with 'tprepair %s --restorefile %s --devices %s --force', which "
			 "salvages the thin metadata to the backup's transaction id, reports "
			 "the volumes it lacks as lost and keeps the thin devices it does not "
			 "list", dir ? dir : "the backup dir", c->thin,
			 c->newest_tid, pool, file ? file : "FILE", devices);
	else
		snprintf(buf, len, "no VG metadata copy is left and %s holds no backup; copy one "
			 "there from another host, then run 'tprepair %s --restorefile FILE "
			 "--devices %s'", dir ? dir : "the backup dir", pool, devices);
	free(file);
	free(dir);
}
