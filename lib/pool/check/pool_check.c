/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_check.c - tpcheck POOL: labels, VG copies, thin metadata, VG <->
 * thin consistency. See pool_check.h. The devices are opened by
 * pool_attach with a report (pool_open would refuse damaged thin
 * metadata); a pool the kernel runs is refused (-EBUSY). */
#include "lib/pool/check/pool_check_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/pool_crypt.h"
#include "lib/pool/mirror/mirror.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/crc32c.h"
#include "lib/base/log.h"
#include "lib/pool/host/host.h"
#include "metadata/thin/thin.h"
#include "metadata/thin/thin_sb.h"
#include "metadata/thin/thin_walk.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Is ID among IDS (N, ascending; NULL when N is 0)? */
static int has_id(const uint64_t *ids, size_t n, uint64_t id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), cmp_u64);
}

void pool_lost_add(struct pool_check_report *rep, const struct vg *vg, unsigned i)
{
	size_t used = strlen(rep->lost);

	rep->nr_lost++;
	if (used + strlen(vg->name) + strlen(vg->volumes[i].name) + 3 < sizeof(rep->lost))
		snprintf(rep->lost + used, sizeof(rep->lost) - used, "%s%s/%s", used ? " " : "",
			 vg->name, vg->volumes[i].name);
}

/* How many origins above volume I (a snapshot of a snapshot: 2). */
static unsigned depth(const struct vg *vg, unsigned i)
{
	unsigned d = 0;

	for (const char *o = vg->volumes[i].origin; o[0] && d <= vg->nr_volumes; d++) {
		const struct vg_volume *v = vg_find_volume(vg, o);

		if (!v)
			return d + 1;
		o = v->origin;
	}
	return d;
}

void pool_lost_order(struct pool_check_report *rep, const struct vg *vg)
{
	char was[sizeof(rep->lost) + 2];
	unsigned max = 0, n = rep->nr_lost;

	was[0] = ' ';
	memcpy(was + 1, rep->lost, strlen(rep->lost));
	strcpy(was + 1 + strlen(rep->lost), " ");
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		max = TP_MAX(max, depth(vg, i));
	rep->lost[0] = '\0';
	rep->nr_lost = 0;
	/* deepest first: each snapshot before its origin */
	for (unsigned d = max + 1; d-- > 0;)
		for (unsigned i = 0; i < vg->nr_volumes; i++) {
			char spec[VG_NAME_MAX * 2 + 4];

			snprintf(spec, sizeof(spec), " %s/%s ", vg->name, vg->volumes[i].name);
			if (depth(vg, i) == d && strstr(was, spec))
				pool_lost_add(rep, vg, i);
		}
	/* (names the list did not hold in full: counted as before) */
	if (rep->nr_lost < n)
		rep->nr_lost = n;
}

/* The VG's volumes against the thin device ids (IDS ascending). A
 * volume whose thin device is missing at the VG's own transaction (IN_STEP)
 * was lost (a salvage could not save its device): fatal, and 'tvremove'
 * takes it out of the VG. */
static void compare_devices(struct pool_check_report *rep, const struct vg *vg,
			    const uint64_t *ids, size_t n, int in_step, int lost)
{
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		uint64_t id = vg->volumes[i].dev_id;

		if (has_id(ids, n, id))
			continue;
		pool_problem(rep, in_step, "volume %s: thin device %" PRIu64 " is missing from the "
			     "thin metadata%s", vg->volumes[i].name, id,
			     lost ? " (its data is lost)" : "");
		if (!lost)
			continue;
		pool_lost_add(rep, vg, i);
	}
	if (rep->nr_lost)
		pool_lost_order(rep, vg);
	for (unsigned i = 0; i < vg->nr_receives; i++) {
		uint64_t id = vg->receives[i].dev_id;
		if (!has_id(ids, n, id))
			pool_problem(rep, in_step, "unfinished receive %s: thin device %" PRIu64
				     " is missing from the thin metadata", vg->receives[i].name, id);
	}
	/* a removal under way whose device was lost: tvremove ends it */
	for (unsigned i = 0; i < vg->nr_removals; i++) {
		uint64_t id = vg->removals[i].dev_id;
		size_t used = strlen(rep->lost);

		if (has_id(ids, n, id))
			continue;
		pool_problem(rep, in_step, "removal of %s: thin device %" PRIu64
			     " is missing from the thin metadata", vg->removals[i].name, id);
		if (!lost)
			continue;
		rep->nr_lost++;
		if (used + strlen(vg->name) + strlen(vg->removals[i].name) + 3 < sizeof(rep->lost))
			snprintf(rep->lost + used, sizeof(rep->lost) - used, "%s%s/%s",
				 used ? " " : "", vg->name, vg->removals[i].name);
	}
	/* a trash entry whose device was lost: its purge drops it */
	for (unsigned i = 0; i < vg->nr_trash; i++) {
		uint64_t id = vg->trash[i].dev_id;

		if (has_id(ids, n, id))
			continue;
		if (vg->trash[i].purging) {
			/* its purge was cut after the device was deleted: only
			 * the VG's entry is left, which the next change drops */
			pool_problem(rep, 0, "trash entry %s: its purge was interrupted after its "
				     "thin device %" PRIu64 " was deleted (the next change to the "
				     "pool, or 'tvremove --purge %s/%s', finishes it)",
				     vg->trash[i].name, id, vg->name, vg->trash[i].name);
			if (!rep->nr_purges++)
				snprintf(rep->purge, sizeof(rep->purge), "%s/%s", vg->name,
					 vg->trash[i].name);
			continue;
		}
		pool_problem(rep, in_step, "trash entry %s: thin device %" PRIu64 " is missing "
			     "from the thin metadata (it cannot come back; 'tvremove --purge %s/%s' "
			     "drops it)", vg->trash[i].name, id, vg->name, vg->trash[i].name);
	}
	for (size_t i = 0; i < n; i++)
		if (!vg_find_dev_id(vg, (uint32_t)ids[i]) || ids[i] > UINT32_MAX) {
			pool_problem(rep, 0, "thin device %" PRIu64 " belongs to no volume (its "
				     "space is lost until it is deleted: 'tprepair' deletes it)",
				     ids[i]);
			rep->nr_strays++;
		}
}

/* What the scrub (thin_check_io with THIN_CHECK_SCRUB) found on the legs
 * of P's metadata mirror, as findings: bad copies on one leg are
 * latent damage (the pool reads on, from the other leg; the legs are not
 * in sync), non-fatal, and tprepair rewrites them. */
int pool_meta_source_leg(struct pool *p, const struct thin_check_opts *opts,
			 struct thin_check_report *thin)
{
	struct thin_check_opts o = { opts ? opts->flags & THIN_CHECK_FAST : 0, NULL, NULL };
	struct thin_check_report tc[2];
	enum thin_check_verdict v[2];
	int k = -1;

	memset(tc, 0, sizeof(tc));
	for (unsigned i = 0; i < 2; i++) {
		struct io_engine *a = NULL;
		struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);

		v[i] = THIN_CHECK_FATAL;
		if (!pool_meta_leg_area_io(p, i, &a) && !thin_check_io(a, &o, &tc[i]))
			v[i] = tc[i].f.verdict;
		io_destroy(a);
		tp_log_capture_pop(outer);
	}
	if ((v[0] == THIN_CHECK_FATAL) != (v[1] == THIN_CHECK_FATAL))
		k = v[0] == THIN_CHECK_FATAL ? 1 : 0;
	if (k >= 0 && thin) {
		tc[k].scrub = thin->scrub;
		thin_check_report_free(thin);
		*thin = tc[k];
		memset(&tc[k], 0, sizeof(tc[k]));
	}
	thin_check_report_free(&tc[0]);
	thin_check_report_free(&tc[1]);
	return k;
}

/* SRC: the leg whose thin metadata alone is consistent while the other's
 * is not (pool_meta_source_leg), or -1. */
static void report_scrub(struct pool *p, const struct thin_scrub_report *s, int src,
			 struct pool_check_report *rep)
{
	struct pool_meta_leg leg[2];

	pool_meta_legs(p, leg);
	for (unsigned i = 0; s->ran && i < 2; i++) {
		uint64_t left = s->bad[i] - TP_MIN(s->bad[i], s->healed[i]);

		if (!left)
			continue;
		pool_problem(rep, 0, "metadata mirror leg %u (%s): %" PRIu64 " of %" PRIu64
			     " blocks in use bad there (%" PRIu64 " unreadable; first: block %"
			     PRIu64 "), good on leg %u: not in sync; 'tprepair %s' rewrites them",
			     i, leg[i].path, left, s->blocks, s->unreadable[i], s->first_bad[i],
			     1 - i, pool_name(p));
	}
	if (s->ran && s->mismatched > s->healed[0] + s->healed[1] && src >= 0)
		/* reads take the first leg's copy of such a block: a mix of
		 * the two, broken, unless the first is the consistent one */
		pool_problem(rep, (unsigned)src != io_copy_first(pool_meta_io(p)),
			     "metadata mirror: %" PRIu64 " blocks in use differ between the legs "
			     "though each validates; leg %d's thin metadata is consistent alone, "
			     "leg %d's is not%s; 'tprepair %s' copies leg %d's over the other's",
			     s->mismatched, src, 1 - src,
			     (unsigned)src != io_copy_first(pool_meta_io(p))
				     ? " (reads mix the two: do not use the pool)" : "",
			     pool_name(p), src);
	else if (s->ran && s->mismatched > s->healed[0] + s->healed[1])
		pool_problem(rep, 0, "metadata mirror: %" PRIu64 " blocks in use differ between "
			     "the legs though each validates; 'tprepair %s' copies leg %u's over "
			     "the other's", s->mismatched, pool_name(p),
			     io_copy_first(pool_meta_io(p)));
}

/* The mappings into chunks LO..HI, counted per thin device. */
struct cut_count {
	uint64_t lo, hi, dev_id;
	struct {
		uint64_t dev_id, chunks;
	} dev[64];
	unsigned nr;
};

static int cc_sb(void *ctx, const struct thin_ir_superblock *sb)
{
	(void)ctx;
	(void)sb;
	return 0;
}

static int cc_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static int cc_dev(void *ctx, const struct thin_ir_device *d)
{
	((struct cut_count *)ctx)->dev_id = d->dev_id;
	return 0;
}

static int cc_map(void *ctx, const struct thin_ir_mapping *runs, size_t n)
{
	struct cut_count *c = ctx;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = TP_MAX(runs[i].data_begin, c->lo);
		uint64_t b = TP_MIN(runs[i].data_begin + runs[i].length, c->hi);
		unsigned k;

		if (a >= b)
			continue;
		for (k = 0; k < c->nr && c->dev[k].dev_id != c->dev_id; k++)
			;
		if (k == c->nr && c->nr < TP_ARRAY_SIZE(c->dev)) {
			c->dev[k].dev_id = c->dev_id;
			c->dev[k].chunks = 0;
			c->nr++;
		}
		if (k < c->nr)
			c->dev[k].chunks += b - a;
	}
	return 0;
}

/* The devices the devices file lists for P whose labels carry their
 * entry's device uuid and the pool uuid the entries record (read only),
 * opened into PVS (at most MAX): their count. What a check that could not
 * take the first two devices still reads the VG and the thin metadata
 * from: the added data devices, a mirror's second leg. */
static unsigned listed_pvs(const struct pool *p, struct vg_pv *pvs, unsigned max)
{
	struct pool_devices_entry ent[16];
	char uuid[VG_UUID_LEN + 1] = "";
	int n = pool_devices_lookup_pool(pool_name(p), ent, TP_ARRAY_SIZE(ent));
	unsigned k = 0;

	/* entries of two pools (an earlier pool of the name): none is trusted */
	if (pool_devices_pool_uuid(pool_name(p), uuid) == -EEXIST)
		return 0;
	for (int i = 0; i < n && i < (int)TP_ARRAY_SIZE(ent) && k < max; i++) {
		struct io_engine *io = NULL;
		struct vg_label *l = &pvs[k].label;

		if (io_fd_open(ent[i].path, IO_RDONLY, &io))
			continue;
		if (vg_label_read(io, l) == VG_LABEL_FOUND && !strcmp(l->pv_uuid, ent[i].pv_uuid) &&
		    (!uuid[0] || !strcmp(l->pool_uuid, uuid))) {
			snprintf(uuid, sizeof(uuid), "%s", l->pool_uuid);
			pvs[k++].io = io;
		} else {
			io_destroy(io);
		}
	}
	return k;
}

/* The first data device, not attached, shorter than the VG records (cut
 * short: an image file truncated): the chunks of the part cut off are
 * gone. The volumes that map any are reported lost (a finding whose text
 * holds "lost: volumes ..."), before the device is grown back and what
 * they map there reads as zeros. The VG is the one attach read, else the
 * metadata device's copy, else (that device cut short too) the copies of
 * the pool's other devices the devices file lists; the mappings are those
 * of the active area on the metadata device, else on a mirror's second
 * leg (its area laid out alike). */
static void cut_data_losses(struct pool *p, const char *paths, struct pool_check_report *rep)
{
	struct vg_pv listed[VG_MDA_MAX_DEVICES];
	struct vg *sv = NULL;
	const struct vg *vg = NULL;
	const struct vg_device *d = NULL;
	const struct vg_pv *meta = pool_pv(p, VG_ROLE_META);
	uint64_t chunk = 0, kept, size = 0;
	const struct thin_ir_visitor vis = { NULL, cc_sb, cc_end, cc_dev, cc_end, cc_map };
	struct thin_ir_visitor v = vis;
	struct io_engine *io = NULL;
	char path[VG_PATH_MAX + 1] = "", names[512] = "";
	struct cut_count *c = NULL;
	struct tp_log_capture quiet, *outer;
	uint64_t total = 0;
	unsigned nl = 0;

	if (pool_pv(p, VG_ROLE_DATA)->io || !paths)
		return;
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(paths, ","), paths);
	if (io_fd_open(path, IO_RDONLY, &io))
		return;
	size = io->size;
	io_destroy(io);
	outer = tp_log_capture_push(&quiet);
	vg = pool_vg(p) ? pool_vg(p) : !pool_vg_from_survivors(p, &sv) ? sv : NULL;
	if (!vg || !meta->io || vg->meta_mirror)
		nl = listed_pvs(p, listed, TP_ARRAY_SIZE(listed));
	if (!vg && nl && !vg_read(listed, nl, &sv, NULL))
		vg = sv;
	d = vg ? &vg->dev[VG_ROLE_DATA] : NULL;
	chunk = vg ? (uint64_t)vg->chunk_size * 512 : 0;
	if (!d || !chunk || size >= d->size || !(c = calloc(1, sizeof(*c))))
		goto out;
	kept = size > d->area[0].offset ? (size - d->area[0].offset) / chunk : 0;
	c->lo = kept;
	c->hi = vg_data_dev_chunks(vg, 0);
	v.ctx = c;
	/* the active area on the metadata device, then on a mirror's
	 * second leg: the first whose trees read whole */
	for (unsigned k = 0; c->lo < c->hi && k <= nl; k++) {
		const struct vg_pv *l = k ? &listed[k - 1] : NULL;
		struct io_engine *leg = l ? l->io : meta->io, *area = NULL;
		const struct vg_device *md = l ? &vg->meta1 : &vg->dev[VG_ROLE_META];
		int done;

		if (l && (!vg->meta_mirror || l->label.role != VG_ROLE_META ||
			  strcmp(l->label.pv_uuid, vg->meta1.pv_uuid)))
			continue;
		if (!leg || io_window_create(leg, md->area[vg->metadata_area].offset,
					     md->area[vg->metadata_area].size, 0, &area))
			continue;
		area->read_only = 1;
		c->nr = 0;
		done = !thin_walk_io(area, 0, &v, NULL);
		io_destroy(area);
		if (done)
			break;
		c->nr = 0;	/* unreadable: the check says so */
	}
	for (unsigned k = 0; k < c->nr; k++) {
		const struct vg_volume *vol = vg_find_dev_id(vg, (uint32_t)c->dev[k].dev_id);
		size_t used = strlen(names);

		total += c->dev[k].chunks;
		if (vol && used + strlen(vol->name) + 3 < sizeof(names))
			snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
				 vol->name);
	}
out:
	tp_log_capture_pop(outer);
	if (total)
		pool_problem(rep, 1, "%s was cut short at byte %" PRIu64 " (of %" PRIu64 "): the "
			     "data chunks from %" PRIu64 " on are gone; lost: volume%s %s map %"
			     PRIu64 " of them, which read as zeros once it is grown back", path, size,
			     d->size, kept, strchr(names, ',') ? "s" : "", names[0] ? names : "?",
			     total);
	free(c);
	for (unsigned k = 0; k < nl; k++)
		io_destroy(listed[k].io);
	vg_free(sv);
}

/* A device of PATHS ("DATA,META") that attach found without a valid
 * label because it is cut short (its label intact but recording more
 * bytes than the device has, or the device too short to hold its label
 * while the VG records its role's size): that finding says so, naming
 * the device and both sizes, instead of "no valid tptools label". */
static void cut_short_labels(struct pool *p, const char *paths, struct pool_check_report *rep)
{
	struct vg *sv = NULL;
	const struct vg *vg = NULL;
	int looked = 0;

	for (const char *one = paths; one && *one;
	     one += strcspn(one, ",") + (one[strcspn(one, ",")] == ',')) {
		char path[VG_PATH_MAX + 1], prefix[VG_PATH_MAX + 32], msg[VG_PATH_MAX + 256];
		struct thin_check_problem *pr = NULL;
		size_t n;
		struct io_engine *io = NULL;
		uint64_t size, want;
		int role = -1;

		snprintf(path, sizeof(path), "%.*s", (int)strcspn(one, ","), one);
		snprintf(prefix, sizeof(prefix), "%s: no valid tptools label (", path);
		for (size_t i = 0; i < rep->f.nr_problems && !pr; i++)
			if (!strncmp(rep->f.problems[i].msg, prefix, strlen(prefix)))
				pr = &rep->f.problems[i];
		if (!pr || io_fd_open(path, IO_RDONLY, &io))
			continue;
		size = io->size;
		want = vg_label_cut_short(io);
		io_destroy(io);
		/* too short for its label: the size the VG records for the one
		 * of the first two roles attach did not take */
		if (!want && !looked++) {
			struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);

			vg = pool_vg(p) ? pool_vg(p) : !pool_vg_from_survivors(p, &sv) ? sv : NULL;
			tp_log_capture_pop(outer);
		}
		for (int k = 0; !want && vg && k < VG_NR_ROLES; k++)
			if (!pool_pv(p, (enum vg_role)k)->io && pool_pv(p, (enum vg_role)(1 - k))->io &&
			    size < vg->dev[k].size) {
				want = vg->dev[k].size;
				role = k;
			}
		if (!want)
			continue;
		if (role < 0)
			snprintf(msg, sizeof(msg), "%s is cut short: %" PRIu64 " bytes, but its label, "
				 "intact, records %" PRIu64, path, size, want);
		else
			snprintf(msg, sizeof(msg), "%s is cut short: %" PRIu64 " bytes, too few to hold "
				 "its label, but the VG metadata records %" PRIu64 " for the pool's %s "
				 "device", path, size, want, vg_role_name((enum vg_role)role));
		n = strnlen(msg, sizeof(pr->msg) - 1);
		memcpy(pr->msg, msg, n);
		pr->msg[n] = '\0';
	}
	vg_free(sv);
}

/* The standard CRC-32C of VG's text as tptools writes it; 0 when it
 * cannot be exported. */
static uint32_t text_crc(const struct vg *vg)
{
	char *text = NULL;
	size_t len = 0;
	uint32_t crc = 0;

	if (!vg_export(vg, &text, &len))
		crc = tp_crc32c(0xffffffff, text, len) ^ 0xffffffff;
	free(text);
	return crc;
}

/* What made backup TEXT (its description line, "after '...'"), into BUF. */
static void made_by(const char *text, char *buf, size_t len)
{
	size_t plen = strlen(POOL_BACKUP_DESCRIPTION);

	buf[0] = '\0';
	if (!strncmp(text, POOL_BACKUP_DESCRIPTION, plen))
		snprintf(buf, len, ", made %.*s", (int)strcspn(text + plen, "\n"), text + plen);
}

/* This host's newest VG metadata backup of P's pool (by its uuid: only
 * this pool's; a file whose text is another pool's, that does not read,
 * or whose name says another seqno than its text is passed by) against
 * the VG the devices hold: a backup newer than it (a commit this host
 * made that the devices lack), or one of its seqno with another text
 * (two texts of one seqno: the newest copies damaged on every device and
 * an older one rewritten under that seqno, or another host's commit).
 * Each is a non-fatal finding. A newer backup is one only with
 * COPIES_ONLY (NEXT, LEN bytes, is the advice to rewrite damaged VG
 * copies): its restore's advice replaces that one, which would lose the
 * backup's change. Another text of the seqno gives NEXT its advice when
 * NEXT is still "". PATHS: the devices, "DATA,META". */
static void backup_against_devices(struct pool *p, const char *paths, int copies_only,
				   struct pool_check_report *rep, char *next, size_t len)
{
	const struct vg *dv = pool_vg(p);
	struct pool_backup_set s = { NULL, 0 };
	struct tp_log_capture quiet, *outer;
	const char *name = pool_name(p);
	char *text = NULL, by[300] = "";
	struct vg *bv = NULL;
	const char *file = NULL;
	size_t tlen;

	const struct vg_pv *d = pool_pv(p, VG_ROLE_DATA), *m = pool_pv(p, VG_ROLE_META);
	char both[2 * VG_PATH_MAX + 2];

	if (!dv || !dv->uuid[0])
		return;
	/* the devices the check read (the restore's --devices) */
	if (d->io && m->io)
		snprintf(both, sizeof(both), "%s,%s", d->io->name, m->io->name);
	else
		snprintf(both, sizeof(both), "%s", paths ? paths : "DATA,META");
	outer = tp_log_capture_push(&quiet);
	if (pool_backup_find(NULL, dv->uuid, &s))
		s.n = 0;
	for (size_t i = s.n; i-- > 0 && !bv;) {
		uint64_t named;

		if (strcmp(s.f[i].uuid, dv->uuid) ||
		    pool_backup_read_file(s.f[i].path, &text, &tlen))
			continue;
		if (vg_import(text, tlen, &bv) || strcmp(bv->uuid, dv->uuid) ||
		    (pool_backup_name_seqno(s.f[i].path, &named) && named != bv->seqno)) {
			vg_free(bv);
			bv = NULL;
			free(text);
			text = NULL;
			continue;
		}
		file = s.f[i].path;
		made_by(text, by, sizeof(by));
	}
	tp_log_capture_pop(outer);
	/* newer than every copy on the devices: a finding only where the
	 * devices show damaged copies (COPIES_ONLY: the advice was to
	 * rewrite them). Without damage it is what a commit cut after its
	 * backup and before the devices leaves, the change not made (the
	 * crash simulator's cuts: test_pool_crash) */
	if (bv && bv->seqno > dv->seqno && copies_only) {
		pool_problem(rep, 0, "this host's newest VG metadata backup %s records seqno %"
			     PRIu64 ", newer than the devices' VG metadata (seqno %" PRIu64 ")", file,
			     bv->seqno, dv->seqno);
		snprintf(next, len, "the devices lack a commit this host made (backup seqno %" PRIu64
			 "%s): their newest VG copies were lost, or the devices were put back to an "
			 "older state; if that backup is the pool's state, restore it with 'tprepair "
			 "%s --restorefile %s --devices %s' (refused, nothing written, when it "
			 "disagrees with the thin metadata; 'tprepair --list-backups %s' lists the "
			 "backups); 'tprepair %s' would rewrite the damaged copies from the older VG "
			 "metadata, without that change", bv->seqno, by, name, file, both, name, name);
	} else if (bv && bv->seqno == dv->seqno) {
		uint32_t bc = text_crc(bv), dc = text_crc(dv);

		if (bc != dc) {
			pool_problem(rep, 0, "this host's VG metadata backup %s of seqno %" PRIu64
				     " holds another text (crc32c 0x%08" PRIx32 ") than the devices' VG "
				     "metadata (crc32c 0x%08" PRIx32 ")", file, bv->seqno, bc, dc);
			if (!next[0])
				snprintf(next, len, "two texts carry VG metadata seqno %" PRIu64 ": the "
					 "devices' and this host's backup%s (the devices' newest copies "
					 "lost and an older one rewritten under that seqno, or another "
					 "host's commit); the devices' is the pool's: compare it ('tpstatus "
					 "%s', 'tpchange %s') with what the backup records ('tprepair "
					 "--list-backups %s') and make again the change the devices lack "
					 "(its commit supersedes both)", bv->seqno, by, name, name, name);
		}
	}
	vg_free(bv);
	free(text);
	pool_backup_set_free(&s);
}

int pool_check_attached(struct pool *p, const struct thin_check_opts *opts,
			struct pool_check_report *rep, struct thin_check_report *thin)
{
	struct thin_check_opts o = *opts;
	struct io_engine *area = NULL;
	struct thin_sb sb;
	int r;

	if (pool_meta_area_io(p, 0, &area)) {
		pool_problem(rep, 1, "the active thin-metadata area lies beyond the end of %s",
			     pool_meta_dev_name(p));
		return 0;
	}
	if (pool_vg(p)->meta_mirror)
		o.flags |= THIN_CHECK_SCRUB;	/* (not with --fast: the check skips it) */
	r = thin_check_io(area, &o, thin);
	if (!r && thin->scrub.ran) {
		const struct thin_scrub_report *s = &thin->scrub;
		/* blocks that validate on both legs but differ: the leg
		 * consistent alone is the truth, its check the thin verdict */
		int src = s->mismatched > s->healed[0] + s->healed[1]
				  ? pool_meta_source_leg(p, &o, thin) : -1;

		report_scrub(p, &thin->scrub, src, rep);
		pool_meta_scrubbed(p, &thin->scrub, src >= 0 && (unsigned)src != io_copy_first(pool_meta_io(p)));
	}
	if (!r && thin->sb_ok && !thin_sb_read(area, 0, &sb) &&
	    (sb.flags & THIN_SB_FLAG_NEEDS_CHECK))
		pool_problem(rep, 0, "needs_check is set (the kernel's mark after a metadata "
			     "error); activation refuses until 'tprepair %s' clears it", pool_name(p));
	io_destroy(area);
	if (r || !thin->sb_ok)
		return r;
	if (thin->data_block_size != pool_vg(p)->chunk_size)
		pool_problem(rep, 1, "the thin metadata's data block size (%" PRIu32 " sectors) "
			     "differs from the pool's chunk (%" PRIu32 ")", thin->data_block_size,
			     pool_vg(p)->chunk_size);
	if (pool_vg(p)->transaction_id == thin->transaction_id) {
		/* a volume without its device is lost when the thin metadata is
		 * sound; damaged, its salvage may find the device yet */
		compare_devices(rep, pool_vg(p), thin->dev_ids, thin->nr_dev_ids, 1,
				!thin->f.nr_fatal);
	} else if (pool_vg(p)->transaction_id == thin->transaction_id + 1) {
		pool_problem(rep, 0, "an interrupted transaction: the VG metadata is at transaction %"
			     PRIu64 ", the thin metadata at %" PRIu64 " (the next change to the "
			     "pool completes it)", pool_vg(p)->transaction_id, thin->transaction_id);
		rep->interrupted = 1;
		compare_devices(rep, pool_vg(p), thin->dev_ids, thin->nr_dev_ids, 0, 0);
	} else {
		if (thin->transaction_id > pool_vg(p)->transaction_id)
			rep->vg_behind_tid = thin->transaction_id;	/* (strays: see below) */
		pool_problem(rep, 1, "transaction ids disagree: VG metadata %" PRIu64
			     ", thin metadata %" PRIu64 " (tprepair sets the thin one to the VG's)",
			     pool_vg(p)->transaction_id, thin->transaction_id);
		compare_devices(rep, pool_vg(p), thin->dev_ids, thin->nr_dev_ids, 1, 0);
	}
	return 0;
}

/* The orphan labels of P (core: pool_orphan.c) as findings: non-fatal
 * (nothing of the pool is on them; its next writer, tprepair among
 * them, wipes them), a device whose own VG copy is ahead of the pool's
 * fatal (the devices read are behind the pool's state). */
static void pool_check_orphans(struct pool *p, struct pool_check_report *rep)
{
	struct pool_orphan o[POOL_ORPHANS_MAX];
	unsigned n = pool_orphans(p, o, TP_ARRAY_SIZE(o));

	for (unsigned i = 0; i < n; i++) {
		if (o[i].kind == POOL_ORPHAN_AHEAD) {
			pool_problem(rep, 1, "%s holds VG metadata seqno %" PRIu64 " of the pool, "
				     "which names it; the pool's devices hold %" PRIu64 ": they are "
				     "behind its state", o[i].path, o[i].own_seqno,
				     pool_vg(p)->seqno);
			rep->nr_ahead++;
			continue;
		}
		pool_problem(rep, 0, "%s: orphan label (%s device): the pool's VG does not name "
			     "it; %s", o[i].path, vg_role_name(o[i].label.role),
			     o[i].kind == POOL_ORPHAN_DROPPED ? "it was taken away, its wipe cut short"
							     : "it was being added, its commit cut short");
		if (!rep->nr_orphans++)
			snprintf(rep->orphan, sizeof(rep->orphan), "%.*s",
				 (int)sizeof(rep->orphan) - 1, o[i].path);
	}
}

/* Whether volume NAME is among REP's lost ones (no thin device). */
static int is_lost(const struct pool_check_report *rep, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = rep->lost; (s = strstr(s, name)); s += n)
		if ((s == rep->lost || s[-1] == ' ') && (s[n] == ' ' || !s[n]))
			return 1;
	return 0;
}

/* Every encrypted volume's LUKS2 header (lib/pool/crypt): one that was
 * read and is no LUKS2 header, one libcryptsetup refuses, or one that
 * carries another uuid than the VG records is a non-fatal finding: the
 * pool's metadata is sound and tprepair has nothing to do, but that
 * volume's content cannot be unlocked. A header that could not be read
 * at all, for a reason of this host's (no room or no directory for the
 * temporary copy in TMPDIR, an I/O error reading the pool, memory), is no
 * verdict on the volume: the check stops there with that error (tpcheck
 * could not check; exit 5), and no volume is blamed. Only over thin
 * metadata without fatal damage (else the mappings read may not be the
 * volume's), and not with --fast (16 MiB a volume at most, but a read of
 * data all the same). Snapshots that still share a header's first
 * chunk (the binary headers and the JSON) share its verdict: each
 * distinct header is read once. *N: the number found; NEXT (LEN bytes):
 * the way back for each, a rollback to a volume with the same LUKS uuid
 * whose header is sound, or none. 0 or the host's error (logged). */
/* One header read: the data block behind the volume's chunk 0 (the
 * binary headers and the JSON, which every change of the header
 * rewrites), and the verdict on it. */
struct luks_seen {
	uint64_t dblock;
	const char *uuid;	/* the VG's luks uuid it was checked against */
	int r;
	char why[512];
};

static int check_luks(struct pool *p, const char *name, struct pool_check_report *rep,
		      char *next, size_t len, unsigned *n)
{
	const struct vg *vg = pool_vg(p);
	const char *tmp = getenv("TMPDIR");
	struct luks_seen *seen = NULL;
	int *verdict = NULL;	/* per volume: 0 sound, 1 damaged, -1 not looked at */
	unsigned any = 0, nr_seen = 0;
	size_t used;
	int e = 0;

	*n = 0;
	for (unsigned i = 0; i < vg->nr_volumes; i++)
		any |= !!vg->volumes[i].luks_uuid[0];
	/* the mappings are read through the thin metadata (offline here) */
	if (!any || (!pool_thin(p) && (e = pool_open_thin(p)))) {
		if (any)
			pool_problem(rep, 0, "the encrypted volumes' headers could not be checked: "
				     "the thin metadata does not open: %s", strerror(-e));
		return 0;
	}
	if (!(seen = calloc(vg->nr_volumes, sizeof(*seen))) ||
	    !(verdict = calloc(vg->nr_volumes, sizeof(*verdict)))) {
		free(seen);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < vg->nr_volumes; i++) {
		const struct vg_volume *v = &vg->volumes[i];
		struct luks_seen *ls = NULL;
		uint64_t dblock;
		char why[512];
		int r, mapped;

		verdict[i] = -1;
		if (!v->luks_uuid[0] || is_lost(rep, v->name))
			continue;
		/* snapshots that still share the header's first chunk share
		 * its verdict: each distinct header is read once */
		mapped = !thin_lookup(pool_thin(p), v->dev_id, 0, &dblock, NULL);
		for (unsigned k = 0; mapped && k < nr_seen && !ls; k++)
			if (seen[k].dblock == dblock && !strcmp(seen[k].uuid, v->luks_uuid))
				ls = &seen[k];
		why[0] = '\0';
		if (ls) {
			r = ls->r;
			snprintf(why, sizeof(why), "%s", ls->why);
		} else {
			r = pool_crypt_header_probe(p, v->name, why, sizeof(why));
			if (mapped && (!r || r == -EUCLEAN || r == -ESTALE)) {
				ls = &seen[nr_seen++];
				ls->dblock = dblock;
				ls->r = r;
				ls->uuid = v->luks_uuid;
				snprintf(ls->why, sizeof(ls->why), "%s", why);
			}
		}
		if (!r) {
			verdict[i] = 0;
			continue;
		}
		if (r != -EUCLEAN && r != -ESTALE) {
			log_error("pool %s: the LUKS2 header of encrypted volume %s could not be "
				  "checked: %s; this is no damage of the volume but this host's "
				  "failing (the header is copied to a temporary file in TMPDIR, now "
				  "%s): put it right and run tpcheck again; nothing was written", name,
				  v->name, why[0] ? why : strerror(-r), tmp && *tmp ? tmp : "/tmp");
			/* never a usage error (exit 3): the check could not run */
			e = r == -EINVAL || r == -ERANGE || r == -ENOTBLK ? -EIO : r;
			goto out;
		}
		verdict[i] = 1;
		(*n)++;
		pool_problem(rep, 0, "encrypted volume %s/%s: %s; its content cannot be unlocked",
			     name, v->name, why);
	}
	/* the way back, for each: a volume with the same volume key (its
	 * LUKS uuid) whose header is sound, which a rollback puts back */
	snprintf(next, len, "tprepair cannot mend an encrypted volume's header (it is the "
		 "volume's content):");
	for (unsigned i = 0; *n && i < vg->nr_volumes; i++) {
		const struct vg_volume *v = &vg->volumes[i], *good = NULL;

		if (verdict[i] != 1)
			continue;
		for (unsigned k = 0; k < vg->nr_volumes && !good; k++)
			if (verdict[k] == 0 && !strcmp(vg->volumes[k].luks_uuid, v->luks_uuid))
				good = &vg->volumes[k];
		used = strlen(next);
		if (good)
			snprintf(next + used, len - used, " roll %s/%s back to %s, whose header is "
				 "sound ('tvrollback --to %s %s/%s');", name, v->name, good->name,
				 good->name, name, v->name);
		else
			snprintf(next + used, len - used, " %s/%s has no snapshot with a sound copy "
				 "of its header: its data cannot be unlocked;", name, v->name);
	}
	used = strlen(next);
	if (used && next[used - 1] == ';')
		next[used - 1] = '\0';
	if (!*n)
		next[0] = '\0';
out:
	free(seen);
	free(verdict);
	return e;
}

int pool_check(const char *name, const char *devices, const struct thin_check_opts *opts,
	       struct pool_check_report *rep, struct thin_check_report *thin, char *next,
	       size_t len)
{
	char luks_next[2048] = "";
	unsigned nr_luks = 0;
	char *listed = devices ? NULL : pool_devices_from_file(name);
	struct pool *p = NULL;
	size_t before;
	int r;

	memset(rep, 0, sizeof(*rep));
	memset(thin, 0, sizeof(*thin));
	if (!(p = pool_alloc())) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = pool_attach(p, name, devices ? devices : listed,
			     POOL_RDONLY | POOL_ATTACH_OFFLINE | POOL_ATTACH_WHOLE, rep, NULL)))
		goto out;
	cut_short_labels(p, devices ? devices : listed, rep);
	before = rep->f.nr_problems;
	if (pool_vg(p))
		r = pool_check_attached(p, opts, rep, thin);
	if (!r && pool_vg(p))
		pool_check_orphans(p, rep);
	if (!r)
		cut_data_losses(p, devices ? devices : listed, rep);
	if (!r && pool_vg(p) && !(opts->flags & THIN_CHECK_FAST) && !rep->f.nr_fatal &&
	    !thin->f.nr_fatal && thin->sb_ok)
		r = check_luks(p, name, rep, luks_next, sizeof(luks_next), &nr_luks);
	if (!r && pool_vg(p)) {
		/* labels behind the VG (an older label, or a change cut
		 * between its VG commit and the labels): a writer rewrites
		 * them, a reader takes the VG's word */
		const char *behind[16];
		unsigned n = pool_labels_behind(p, behind, TP_ARRAY_SIZE(behind));

		for (unsigned i = 0; i < n; i++)
			pool_problem(rep, 0, "the label of %s lags behind the VG metadata (its pool "
				     "name, size, areas or place differ); the next change to the "
				     "pool, or 'tprepair %s', rewrites it", behind[i], name);
		rep->nr_labels_behind = n;
	}
	if (!r) {
		/* strays alone: tprepair deletes them, no salvage; lost volumes
		 * and orphans are no damage of the thin metadata either; bad
		 * copies on one leg alone: tprepair rewrites them, no salvage */
		const struct thin_scrub_report *s = &thin->scrub;
		int legs = s->bad[0] > s->healed[0] || s->bad[1] > s->healed[1] ||
			   s->mismatched > s->healed[0] + s->healed[1];
		size_t leg_findings = (size_t)(s->bad[0] > s->healed[0]) +
				      (s->bad[1] > s->healed[1]) +
				      (s->mismatched > s->healed[0] + s->healed[1]);
		size_t own = rep->nr_strays + rep->nr_lost + rep->nr_orphans + rep->nr_ahead +
			     rep->nr_labels_behind + rep->interrupted + rep->nr_purges +
			     leg_findings + nr_luks;
		int thin_bad = rep->f.nr_problems - own > before || thin->f.nr_problems
				       ? 1 : rep->nr_strays ? 2
				       : legs && (s->unreadable[0] || s->unreadable[1]) ? 4
				       : legs ? 3 : 0;
		int rewrite = pool_repair_advice(p, devices, devices ? devices : listed, before > 0,
						 thin_bad, rep, next, len);

		if (rep->nr_purges && !next[0])
			snprintf(next, len, "run 'tvremove --purge %s' to finish the interrupted "
				 "purge", rep->purge);
		/* tprepair mends no header: its copy is in a snapshot or a backup */
		if (nr_luks && !next[0])
			snprintf(next, len, "%s", luks_next);
		/* last: the host's newest backup against the devices' VG; its
		 * restore comes before the advice to rewrite damaged VG copies
		 * (pool_repair_advice's, when that is the one it chose: the two
		 * above fill NEXT only when it is "") */
		backup_against_devices(p, devices ? devices : listed, rewrite, rep, next, len);
	}
out:
	free(listed);
	pool_close(p);
	return r;
}

void pool_check_report_free(struct pool_check_report *rep)
{
	if (rep)
		thin_check_findings_free(&rep->f);
}

int pool_check_scrub_live(const char *name, const char *devices, struct pool_check_report *rep,
			  struct pool_scrub_result *out, int *live)
{
	struct pool_live_scrub ls;
	struct thin_scrub_report tr;
	struct pool *p = pool_alloc();
	int r = 0;

	memset(rep, 0, sizeof(*rep));
	memset(out, 0, sizeof(*out));
	*live = 0;
	if (!p)
		return -ENOMEM;
	if (pool_attach(p, name, devices, POOL_RDONLY, NULL, NULL)) {
		r = 0;	/* the check says what is wrong */
		goto out;
	}
	if (!pool_vg(p)->meta_mirror) {
		log_error("pool %s has one metadata device: there are no legs to scrub ('tpcheck "
			  "%s' checks its thin metadata%s)", name, name,
			  pool_is_live(p) ? " once it is deactivated" : "");
		r = -EMEDIUMTYPE;
		goto out;
	}
	if (!pool_is_live(p))
		goto out;
	*live = 1;
	if ((r = pool_meta_scrub_live(p, &ls)))
		goto out;
	out->ran = out->live = 1;
	out->integrity = ls.integrity;
	/* in 4 KiB blocks, as the offline scrub counts (md counts sectors) */
	out->blocks = ls.sectors / 8;
	out->mismatched = (ls.mismatches + 7) / 8;
	for (unsigned i = 0; i < 2; i++) {
		struct pool_meta_leg leg[2];

		pool_meta_legs(p, leg);
		out->healed[i] = ls.corrected[i];
		if (ls.corrected[i])
			pool_problem(rep, 0, "metadata mirror leg %u (%s): %" PRIu64 " bad read%s "
				     "(dm-integrity) corrected from leg %u by the kernel's scrub",
				     i, leg[i].path, ls.corrected[i],
				     ls.corrected[i] == 1 ? "" : "s", 1 - i);
		if (ls.health[i] == 'D')
			pool_problem(rep, 0, "metadata mirror leg %u (%s) failed: the pool runs on "
				     "the other; 'tpchange --meta-replace DEV %s' puts it on DEV", i,
				     leg[i].path, name);
	}
	/* md counts the sectors it found different; where a leg's read
	 * failed (dm-integrity) it rewrote them from the other first: only
	 * differences without a read error are left for an offline repair */
	if (ls.mismatches && !ls.corrected[0] && !ls.corrected[1])
		pool_problem(rep, 0, "metadata mirror: %" PRIu64 " blocks differ between the legs "
			     "though both read without error; deactivate the pool and run "
			     "'tprepair %s'", out->mismatched, name);
	/* recorded as an offline scrub is: what is left bad (nothing, the
	 * kernel rewrote it) and what differs */
	memset(&tr, 0, sizeof(tr));
	tr.ran = 1;
	tr.blocks = out->blocks;
	tr.mismatched = out->mismatched;
	for (unsigned i = 0; i < 2; i++)
		tr.bad[i] = tr.healed[i] = ls.corrected[i];
	pool_meta_scrubbed(p, &tr, 0);
out:
	pool_close(p);
	return r;
}
