/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_backup_match.c - which VG metadata backup fits the thin metadata
 * on a pool's metadata device (pool_check_int.h).
 *
 * A backup is a pool's VG at one commit: whose pool it is (its uuid), the
 * chunk size and data area the thin metadata's data blocks are laid out
 * by, the thin-metadata area that commit made active and the transaction
 * id the pool was at, and the thin devices its volumes, removals and
 * receives are. The thin superblock in that area holds the transaction id
 * of the last thin commit there, the data block size and number of data
 * blocks, and the device details tree holds the thin devices. All of them
 * agree for the backup of the state the devices hold. Any other backup
 * would make the volumes read something else: another pool's (its volumes
 * name thin devices of this one), another chunk size (every mapped block
 * read at another place), a smaller data area (blocks beyond it dropped),
 * or another moment (volumes it lists missing from the thin metadata,
 * thin devices it lists as no volume, which a salvage would lose).
 * Devices rolled back to an older state (a snapshot of the storage,
 * images copied back) agree with an older backup, not the newest one. */
#include "lib/pool/check/pool_check_int.h"
#include "lib/pool/core/core.h"

#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/host/host.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one thin-metadata area of the device holds, read once. */
struct seen_area {
	uint64_t offset, size;
	int sb_ok;			/* a superblock validates there */
	struct thin_sb sb;
	int ids_ok;			/* its device details could be read */
	uint64_t *ids;			/* ascending */
	size_t nr_ids;
};

/* The areas of META read so far (a backup makes one of two active; the
 * backups of another pool may lie elsewhere). */
struct fit_ctx {
	struct io_engine *meta;
	struct seen_area area[4];
	unsigned n;
	struct seen_area scratch;	/* beyond the four: read, used, dropped */
};

static void ctx_free(struct fit_ctx *c)
{
	for (unsigned i = 0; i < c->n; i++)
		free(c->area[i].ids);
	free(c->scratch.ids);
	memset(c, 0, sizeof(*c));
}

/* Read A (its offset and size set) from META, quietly. */
static void read_area(struct io_engine *meta, struct seen_area *a)
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	struct io_engine *w = NULL;
	struct thin_md *md = NULL;

	if (!a->size || !meta || io_window_create(meta, a->offset, a->size, 0, &w))
		goto out;
	w->read_only = 1;
	a->sb_ok = !thin_sb_read(w, 0, &a->sb);
	if (a->sb_ok && !thin_open(w, THIN_RDONLY, &md))
		a->ids_ok = !thin_list_devices(md, &a->ids, &a->nr_ids);
	thin_close(md);
out:
	io_destroy(w);
	tp_log_capture_pop(outer);
}

static const struct seen_area *area_of(struct fit_ctx *c, const struct vg_area *va)
{
	struct seen_area *a;

	for (unsigned i = 0; i < c->n; i++)
		if (c->area[i].offset == va->offset && c->area[i].size == va->size)
			return &c->area[i];
	if (c->n < TP_ARRAY_SIZE(c->area)) {
		a = &c->area[c->n++];
	} else {
		free(c->scratch.ids);
		a = &c->scratch;
	}
	memset(a, 0, sizeof(*a));
	a->offset = va->offset;
	a->size = va->size;
	read_area(c->meta, a);
	return a;
}

static int has_id(const struct seen_area *a, uint64_t id)
{
	size_t lo = 0, hi = a->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->ids[mid] == id)
			return 1;
		if (a->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Append ", " and the formatted text to F->why (bounded). */
static void say(struct pool_backup_fit *f, const char *fmt, ...) TP_PRINTF(2, 3);
static void say(struct pool_backup_fit *f, const char *fmt, ...)
{
	size_t used = strlen(f->why);
	va_list ap;

	if (used + 3 >= sizeof(f->why))
		return;
	if (used) {
		memcpy(f->why + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(f->why + used, sizeof(f->why) - used, fmt, ap);
	va_end(ap);
}

/* The ids of VG's thin devices that A lacks, and A's that VG does not
 * list (those at or above VG's next id: strays, see pool_repair.c). */
static void compare_ids(const struct vg *vg, const struct seen_area *a, struct pool_backup_fit *f)
{
	char missing[256] = "", unlisted[256] = "";
	const struct {
		const struct vg_volume *v;
		unsigned n;
	} lists[4] = { { vg->volumes, vg->nr_volumes }, { vg->removals, vg->nr_removals },
		       { vg->receives, vg->nr_receives }, { vg->trash, vg->nr_trash } };

	for (unsigned l = 0; l < 4; l++)
		for (unsigned i = 0; i < lists[l].n; i++) {
			const struct vg_volume *v = &lists[l].v[i];
			size_t used = strlen(missing);

			if (has_id(a, v->dev_id))
				continue;
			if (f->nr_missing++ < 4 && used < sizeof(missing))
				snprintf(missing + used, sizeof(missing) - used, "%s%" PRIu32 " (%s)",
					 used ? ", " : "", v->dev_id, v->name);
		}
	for (size_t i = 0; i < a->nr_ids; i++) {
		size_t used = strlen(unlisted);

		if (a->ids[i] <= VG_DEV_ID_MAX && vg_find_dev_id(vg, (uint32_t)a->ids[i]))
			continue;
		if (a->ids[i] >= vg->next_dev_id && a->ids[i] <= VG_DEV_ID_MAX) {
			f->nr_strays++;
			continue;
		}
		if (f->nr_unlisted++ < 4 && used < sizeof(unlisted))
			snprintf(unlisted + used, sizeof(unlisted) - used, "%s%" PRIu64,
				 used ? ", " : "", a->ids[i]);
	}
	if (f->nr_missing)
		say(f, "it lists thin device%s %s%s that the thin metadata lacks",
		    f->nr_missing > 1 ? "s" : "", missing, f->nr_missing > 4 ? ", ..." : "");
	if (f->nr_unlisted)
		say(f, "the thin metadata holds thin device%s %s%s, which it had handed out and "
		    "lists as no volume", f->nr_unlisted > 1 ? "s" : "", unlisted,
		    f->nr_unlisted > 4 ? ", ..." : "");
	if (f->nr_missing || f->nr_unlisted)
		f->bad |= POOL_FIT_IDS;
}

static void fit_in(struct fit_ctx *c, const struct vg *vg, const struct pool_identity *id,
		   struct pool_backup_fit *f)
{
	const struct vg_area *va = &vg->dev[VG_ROLE_META].area[vg->metadata_area];
	const struct seen_area *a = area_of(c, va);
	uint64_t chunks = vg_data_chunks(vg);
	char x[32], y[32];

	memset(f, 0, sizeof(*f));
	if (id && id->uuid[0] && strcmp(vg->uuid, id->uuid)) {
		f->bad |= POOL_FIT_UUID;
		say(f, "it is a backup of pool %s, uuid %s, but the devices are pool uuid %s's "
		    "(%s)", vg->name, vg->uuid, id->uuid, id->from);
	}
	for (int i = 0; id && i < VG_NR_ROLES; i++)
		if (id->pv_uuid[i][0] && strcmp(vg->dev[i].pv_uuid, id->pv_uuid[i])) {
			f->bad |= POOL_FIT_DEVICE;
			say(f, "it names device %s as its %s device, but %s was device %s",
			    vg->dev[i].pv_uuid, vg_role_name((enum vg_role)i), id->pv_path[i],
			    id->pv_uuid[i]);
		}
	if (!a->sb_ok) {
		f->bad |= POOL_FIT_NO_SB;
		say(f, "the thin-metadata area it makes active (area %u, at byte %" PRIu64 ") holds "
		    "no readable superblock", vg->metadata_area, va->offset);
		return;
	}
	f->sb_read = 1;
	f->tid = a->sb.trans_id;
	f->chunk = a->sb.data_block_size;
	f->nr_blocks = a->sb.data_sm.nr_blocks;
	if (f->chunk != vg->chunk_size) {
		f->bad |= POOL_FIT_CHUNK;
		say(f, "its chunk is %s, but the thin metadata's data blocks are %s",
		    tp_size_format_exact((uint64_t)vg->chunk_size << 9, x, sizeof(x)),
		    tp_size_format_exact((uint64_t)f->chunk << 9, y, sizeof(y)));
	}
	if (f->nr_blocks > chunks) {
		f->bad |= POOL_FIT_BLOCKS;
		say(f, "the thin metadata counts %" PRIu64 " data blocks, but the data area it "
		    "records holds %" PRIu64 " chunks", f->nr_blocks, chunks);
	}
	if (f->tid != vg->transaction_id) {
		f->bad |= POOL_FIT_TID;
		say(f, "it is at transaction %" PRIu64 ", the thin metadata at %" PRIu64,
		    vg->transaction_id, f->tid);
	}
	f->ids_read = a->ids_ok;
	if (a->ids_ok && !(f->bad & (POOL_FIT_UUID | POOL_FIT_CHUNK)))
		compare_ids(vg, a, f);
}

int pool_backup_fit(const struct vg *vg, struct io_engine *meta, const struct pool_identity *id,
		    struct pool_backup_fit *f)
{
	struct fit_ctx c = { .meta = meta };

	fit_in(&c, vg, id, f);
	ctx_free(&c);
	return f->bad == 0;
}

/* The backup FILE, imported, quietly: 0, or -errno (passed by). */
static int load(const char *file, struct vg **out)
{
	char *text;
	size_t len;
	int r = pool_backup_read_why(file, &text, &len, NULL, 0);

	*out = NULL;
	if (r)
		return r;
	r = vg_import_why(text, len, out, NULL, 0);
	free(text);
	return r;
}

/* Note backup F (VG, its fit FIT) as the newest of the candidates when it
 * is the first looked at. */
static void note_newest(struct pool_backup_choice *c, const struct pool_backup_file *f,
			const struct vg *vg, const struct pool_backup_fit *fit)
{
	if (c->newest[0])
		return;
	snprintf(c->newest, sizeof(c->newest), "%s", f->path);
	c->newest_seqno = f->seqno;
	c->newest_tid = vg->transaction_id;
	c->newest_fit = *fit;
	snprintf(c->newest_uuid, sizeof(c->newest_uuid), "%s", vg->uuid);
}

/* Walk the backups of one pool (S->f[BEGIN..END), one uuid, oldest first)
 * newest first: the newest that fits goes to *MATCH (its index), and C
 * learns the newest one. */
static void walk_pool(struct fit_ctx *ctx, const struct pool_backup_set *s, size_t begin,
		      size_t end, const struct pool_identity *id, struct pool_backup_choice *c,
		      int note, long *match, uint64_t *match_tid)
{
	*match = -1;
	for (size_t i = end; i-- > begin && *match < 0;) {
		struct pool_backup_fit fit;
		struct vg *vg;

		if (load(s->f[i].path, &vg))
			continue;	/* unreadable: --list-backups says why */
		/* changed since it was found, or renamed or copied under the
		 * name of another seqno (suspect: --restorefile refuses it) */
		if (strcmp(vg->uuid, s->f[i].uuid) || vg->seqno != s->f[i].seqno) {
			vg_free(vg);
			continue;
		}
		fit_in(ctx, vg, id, &fit);
		if (note)
			note_newest(c, &s->f[i], vg, &fit);
		if (!fit.bad) {
			*match = (long)i;
			*match_tid = vg->transaction_id;
		}
		vg_free(vg);
	}
}

int pool_backup_pick(const char *pool, const struct pool_identity *id, struct io_engine *meta,
		     struct pool_backup_choice *c)
{
	struct fit_ctx ctx = { .meta = meta };
	struct pool_backup_set s;
	int known = id && id->uuid[0];
	int r = pool_backup_find(known ? NULL : pool, known ? id->uuid : NULL, &s);

	memset(c, 0, sizeof(*c));
	if (r)
		return r;
	c->uuid_known = known;
	c->nr_backups = s.n;
	/* one pool at a time: a pool's seqnos say nothing about another's */
	for (size_t b = 0; b < s.n;) {
		size_t e = b + 1;
		long m;
		uint64_t tid = 0;

		while (e < s.n && !strcmp(s.f[e].uuid, s.f[b].uuid))
			e++;
		if (s.f[b].uuid[0]) {
			c->nr_pools++;
			walk_pool(&ctx, &s, b, e, id, c, known, &m, &tid);
			if (m >= 0 && !c->nr_fitting++) {
				snprintf(c->match, sizeof(c->match), "%s", s.f[m].path);
				snprintf(c->match_uuid, sizeof(c->match_uuid), "%s", s.f[m].uuid);
				c->match_seqno = s.f[m].seqno;
				c->match_tid = tid;
			} else if (m >= 0 && c->nr_fitting == 2) {
				snprintf(c->other, sizeof(c->other), "%s", s.f[m].path);
				snprintf(c->other_uuid, sizeof(c->other_uuid), "%s", s.f[m].uuid);
			}
		}
		b = e;
	}
	if (!known && c->nr_fitting > 1) {	/* two pools fit: none is picked */
		c->ambiguous = 1;
		c->match_seqno = 0;
	}
	pool_backup_set_free(&s);
	ctx_free(&ctx);
	return 0;
}

/* May the newest backup (of the pool the devices are) be restored with
 * --force? Only one whose volumes keep their meaning: this pool's, with
 * its chunk and data area; another moment, or no readable thin metadata
 * (the salvage then rebuilds it). */
static int force_is_safe(const struct pool_backup_choice *c)
{
	return c->uuid_known && c->newest[0] && !(c->newest_fit.bad & POOL_FIT_REINTERPRETS);
}

void pool_backup_advice(const char *pool, const struct pool_identity *id,
			const struct pool_backup_choice *c, const char *devices, char *buf,
			size_t len)
{
	char *root = pool_backup_root();
	const char *dir = root ? root : "the backup dir";

	if (c->match_seqno && c->uuid_known && !strcmp(c->match, c->newest))
		snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s' (the "
			 "newest backup of the pool on the devices, uuid %s, from %s; it agrees with "
			 "the thin metadata)", pool, c->match, devices, id->uuid, id->from);
	else if (c->match_seqno && c->uuid_known)
		snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s' (of "
			 "the pool on the devices, uuid %s: the newest backup whose transaction id, %"
			 PRIu64 ", is the thin metadata's, and whose chunk, data area and thin "
			 "devices agree with it; newer backups record changes the devices do not "
			 "hold: the newest, %s: %s)", pool, c->match, devices, id->uuid,
			 c->match_tid, c->newest, c->newest_fit.why);
	else if (c->match_seqno)
		snprintf(buf, len, "restore with 'tprepair %s --restorefile %s --devices %s' (a "
			 "backup of pool uuid %s, the only pool named %s whose backups agree with "
			 "the thin metadata%s; no pool uuid is left on the devices or in the devices "
			 "file)", pool, c->match, devices, c->match_uuid, pool,
			 id && (id->pv_uuid[0][0] || id->pv_uuid[1][0])
				 ? " and the device uuids the devices file records" : "");
	else if (c->ambiguous)
		snprintf(buf, len, "backups of %u pools that were named %s agree with the thin "
			 "metadata (uuid %s: %s; uuid %s: %s) and no pool uuid or device uuid is left "
			 "on the devices or in the devices file to tell them apart; compare them "
			 "with 'tprepair "
			 "--list-backups %s', then run 'tprepair %s --restorefile FILE --devices %s'",
			 c->nr_fitting, pool, c->match_uuid, c->match, c->other_uuid, c->other, pool,
			 pool, devices);
	else if (c->uuid_known && !c->newest[0])
		snprintf(buf, len, "no VG metadata copy is left and %s holds no readable backup of the "
			 "pool on the devices (uuid %s, from %s; 'tprepair --list-backups %s' shows "
			 "what there is of pools named %s); copy one there from another host, then "
			 "run 'tprepair %s --restorefile FILE --devices %s'", dir, id->uuid, id->from,
			 pool, pool, pool, devices);
	else if (force_is_safe(c))
		snprintf(buf, len, "no VG metadata backup of the pool on the devices (uuid %s) in "
			 "%s agrees with the thin metadata on the metadata device (the newest, %s: "
			 "%s); copy a matching backup there from another host, or restore the "
			 "newest anyway with 'tprepair %s --restorefile %s --devices %s --force', "
			 "which salvages the thin metadata to the backup's transaction id, reports "
			 "the volumes it lacks as lost and keeps the thin devices it does not list",
			 id->uuid, dir, c->newest, c->newest_fit.why, pool, c->newest, devices);
	else if (c->uuid_known)
		snprintf(buf, len, "no VG metadata backup of the pool on the devices (uuid %s) in "
			 "%s agrees with the thin metadata on the metadata device (the newest, %s: "
			 "%s), and restoring one that does not would make its volumes read "
			 "something else; copy a backup that agrees there from another host "
			 "('tprepair --list-backups %s' lists what there is), then run 'tprepair "
			 "%s --restorefile FILE --devices %s'", id->uuid, dir, c->newest,
			 c->newest_fit.why, pool, pool, devices);
	else if (c->nr_backups)
		snprintf(buf, len, "no VG metadata backup in %s of a pool named %s agrees with "
			 "the thin metadata on the metadata device, and no pool uuid is left on the "
			 "devices or in the devices file ('tprepair "
			 "--list-backups %s' lists the backups); copy a backup that agrees there "
			 "from another host, then run 'tprepair %s --restorefile FILE --devices %s'",
			 dir, pool, pool, pool, devices);
	else
		snprintf(buf, len, "no VG metadata copy is left and %s holds no backup of a pool "
			 "named %s; copy one there from another host, then run 'tprepair %s "
			 "--restorefile FILE --devices %s'", dir, pool, pool, devices);
	free(root);
}
