/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_io.c - whole-VG read and commit over the pool devices. See vg.h. */
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include "lib/base/log.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Does VG belong to the labelled devices PVS? An added data device
 * (data_index 1 and up) is matched by its device uuid among the VG's
 * data devices: its place in the label may lag one VG commit behind
 * after a device before it was taken away (tpreduce --data), until the
 * next writer brings the label in step; so may the new first one's when
 * the first was taken away (its label still says 1, the VG 0). 0, or
 * -EUCLEAN naming the device: another pool's (its pool uuid), or one VG
 * does not name in its role (an orphan of the pool, tptools(7)). */
static int matches_labels(const struct vg *vg, struct vg_pv *pvs, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct vg_label *l = &pvs[i].label;
		int at = l->role == VG_ROLE_DATA && l->data_index ? vg_data_index(vg, l->pv_uuid) : 0;
		const char *want = at >= 0 && l->role == VG_ROLE_DATA
					   ? vg_data_dev(vg, (unsigned)at)->pv_uuid
					   : vg->dev[l->role].pv_uuid;

		/* the second metadata device of a mirrored pool (index 1) */
		if (l->role == VG_ROLE_META && l->data_index)
			want = vg->meta_mirror ? vg->meta1.pv_uuid : "";

		if (strcmp(l->pool_uuid, vg->uuid)) {
			log_error("%s: its label names pool uuid %s, not pool %s's %s",
				  pvs[i].io->name, l->pool_uuid, vg->name, vg->uuid);
			return -EUCLEAN;
		}
		if (strcmp(l->pv_uuid, want) ||
		    (l->role == VG_ROLE_DATA && l->data_index && at < 0)) {
			log_error("%s: pool %s's VG metadata (seqno %llu) does not name its "
				  "device uuid %s as a %s device: it is no device of the pool in "
				  "that state", pvs[i].io->name, vg->name,
				  (unsigned long long)vg->seqno, l->pv_uuid,
				  l->role == VG_ROLE_DATA ? "data" : "metadata");
			return -EUCLEAN;
		}
	}
	return 0;
}

/* The last text vg_read imported, and the VG a reader gave back unchanged
 * (vg_read_release): a command reads its pool's VG more than once
 * (finding the pool's devices reads the metadata device's copy, the open
 * then every device's), and the import is the dearest part of a read, in
 * proportion to the volumes. A text byte for byte equal to the last one
 * imported takes the VG given back, so nothing is trusted that was not
 * read and checksummed in this read: only the parse is saved, and no copy
 * of a large VG is made (one pool of 100,000 volumes is 28 MB of model). */
static struct {
	char *text;
	size_t len;
	struct vg *vg;	/* given back by vg_read_release, or NULL */
	/* the VG the import of TEXT gave (compared, never dereferenced): the
	 * only one vg_read_release keeps */
	const struct vg *issued;
} last;

void vg_read_forget(void)
{
	free(last.text);
	vg_free(last.vg);
	memset(&last, 0, sizeof(last));
}

void vg_read_release(struct vg *vg)
{
	if (vg && !last.vg && last.text && vg == last.issued) {
		last.vg = vg;
		return;
	}
	vg_free(vg);
}

/* Import copy C into *VG. The text of a copy imported anew is kept as
 * the last one: taken from C (C->text then NULL), not copied. */
static int import_copy(struct vg_mda_copy *c, struct vg **vg)
{
	int r;

	if (last.vg && last.len == c->len && !memcmp(last.text, c->text, c->len)) {
		*vg = last.vg;
		last.vg = NULL;
		last.issued = *vg;
		(*vg)->seqno = (*vg)->text_seqno;	/* as the import gives it */
		return 0;
	}
	r = vg_import(c->text, c->len, vg);
	if (r)
		return r;
	vg_read_forget();
	last.text = c->text;
	last.len = c->len;
	last.issued = *vg;
	c->text = NULL;
	return 0;
}

/* The slots of ST holding the copy of SEQNO, refused: unusable, or with
 * NEWER a newer tptools' copy (newer_copy). */
static void mark_copy(struct vg_mda_status *st, uint64_t seqno, int newer)
{
	for (unsigned d = 0; d < st->nr_pvs; d++)
		for (unsigned k = 0; k < VG_MDA_SLOTS; k++)
			if (st->slot[d][k].state == VG_SLOT_VALID && st->slot[d][k].seqno == seqno) {
				if (newer)
					st->slot[d][k].newer_copy = 1;
				else
					st->slot[d][k].unusable = 1;
			}
}

/* The name of the first device of PVS whose slot (in ST) holds the copy
 * of SEQNO (a copy one device alone may hold: the message names it, not
 * the pool's first device). */
static const char *holder(const struct vg_pv *pvs, const struct vg_mda_status *st,
			  uint64_t seqno)
{
	for (unsigned d = 0; d < st->nr_pvs; d++)
		for (unsigned k = 0; k < VG_MDA_SLOTS; k++)
			if (st->slot[d][k].state == VG_SLOT_VALID && st->slot[d][k].seqno == seqno)
				return pvs[d].io->name;
	return pvs[0].io->name;
}

/* The read met a slot a newer tptools wrote (VG_SLOT_NEWER in ST): said,
 * of the first such slot, as a text of a newer format is. */
static void say_newer_slot(const struct vg_pv *pvs, const struct vg_mda_status *st)
{
	for (unsigned d = 0; d < st->nr_pvs; d++) {
		for (unsigned k = 0; k < VG_MDA_SLOTS; k++) {
			const struct vg_mda_slot_status *s = &st->slot[d][k];

			if (s->state != VG_SLOT_NEWER)
				continue;
			if (s->newer_off)
				log_error("%s: VG metadata slot %u: the change record at byte %llu "
					  "(record version %u) is of a newer format than this tptools "
					  "reads; nothing was changed: run the tptools that wrote it",
					  pvs[d].io->name, k, (unsigned long long)s->newer_off,
					  s->newer_version);
			else
				log_error("%s: VG metadata slot %u (slot version %u) is of a newer "
					  "format than this tptools reads; nothing was changed: run the "
					  "tptools that wrote it", pvs[d].io->name, k, s->newer_version);
			return;
		}
	}
}

/* A check's read (VG_MDA_READ_WHOLE): the copies older than the one
 * taken (COPIES from FROM on, texts held) imported too, as a read would
 * import them once the newer ones are lost: a copy that does not import,
 * or makes another seqno, is unusable in ST (damage: tpcheck(8) names
 * it, the next commit writes over it, needs_repair), and one of a newer
 * format is said so (NEWER_COPY: a previous commit a newer tptools
 * wrote, no damage: tpcheck notes it, tprepair leaves it, and the next
 * commit writes over it as over any previous one). 0 or -ENOMEM. */
static int check_older(struct vg_mda_copy *copies, int from, int nr, struct vg_mda_status *st)
{
	for (int j = from; j < nr; j++) {
		struct vg *old = NULL;
		int r = vg_import(copies[j].text, copies[j].len, &old);

		if (r == -ENOMEM)
			return r;
		if (!r && old->seqno != copies[j].seqno) {
			log_error("VG metadata seqno %llu is stored under seqno %llu",
				  (unsigned long long)old->seqno,
				  (unsigned long long)copies[j].seqno);
			r = -EUCLEAN;
		}
		vg_free(old);
		if (!r)
			continue;
		if (r != -EPROTONOSUPPORT)
			st->needs_repair = 1;
		mark_copy(st, copies[j].seqno, r == -EPROTONOSUPPORT);
	}
	return 0;
}

int vg_read(struct vg_pv *pvs, unsigned n, struct vg **out, struct vg_mda_status *status)
{
	return vg_read_flags(pvs, n, out, 0, status);
}

int vg_read_flags(struct vg_pv *pvs, unsigned n, struct vg **out, unsigned flags,
		  struct vg_mda_status *status)
{
	struct vg_mda_copy copies[VG_MDA_MAX_DEVICES * VG_MDA_SLOTS];
	struct vg_mda_status st;
	struct vg *vg = NULL;
	int nr, i, r = -EUCLEAN, all = 0;

	*out = NULL;
	/* the newest copy alone (one text held: 11 MB at 100,000 volumes),
	 * every copy only when that one is not usable (below) or for a check
	 * (check_older) */
	all = !!(flags & VG_MDA_READ_WHOLE);
	nr = vg_mda_read_copies_flags(pvs, n, copies, all ? (unsigned)TP_ARRAY_SIZE(copies) : 1,
				      flags | VG_MDA_READ_NO_STALE, &st);
	if (nr < 0) {
		if (nr == -ENODATA)
			log_error("%s: no valid VG metadata on any pool device; restore it from a "
				  "backup with tprepair --restorefile", pvs[0].io->name);
		if (nr == -EPROTONOSUPPORT)
			say_newer_slot(pvs, &st);
		if (status)
			*status = st;
		return nr;
	}
	for (i = 0; i < nr; i++) {
		r = import_copy(&copies[i], &vg);
		if (r == -ENOMEM)
			break;
		if (r == -EPROTONOSUPPORT) {	/* a newer tptools' copy: said */
			log_error("%s: VG metadata seqno %llu is of a newer format than this tptools "
				  "reads; nothing was changed: run the tptools that wrote it",
				  holder(pvs, &st, copies[i].seqno),
				  (unsigned long long)copies[i].seqno);
			break;
		}
		if (!r && vg->seqno != copies[i].seqno) {
			log_error("VG metadata seqno %llu is stored under seqno %llu",
				  (unsigned long long)vg->seqno,
				  (unsigned long long)copies[i].seqno);
			r = -EUCLEAN;
		}
		/* A usable copy that does not name a device given is no reason
		 * to look further back: an older copy that does name it is an
		 * earlier state of the pool (the device taken away since, or
		 * an orphan's own copy), never the pool's current VG. */
		if (!r && (r = matches_labels(vg, pvs, n))) {
			vg_free(vg);
			vg = NULL;
			break;
		}
		if (!r) {
			vg->text_seqno = vg->seqno;
			vg->text_len = copies[i].len;
			vg->seqno = st.seqno;	/* supersede any newer unusable copy */
			if ((flags & VG_MDA_READ_WHOLE) && check_older(copies, i + 1, nr, &st)) {
				vg_free(vg);
				vg = NULL;
				r = -ENOMEM;
			}
			break;
		}
		vg_free(vg);
		vg = NULL;
		st.needs_repair = 1;
		mark_copy(&st, copies[i].seqno, 0);
		if (i + 1 == nr && nr == 1 && !all) {
			/* the older copies, read again (the first of them the
			 * one just refused; what the read says, said already) */
			struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
			struct vg_mda_status again;

			all = 1;
			vg_mda_free_copies(copies, (unsigned)nr);
			nr = vg_mda_read_copies_flags(pvs, n, copies,
						      (unsigned)TP_ARRAY_SIZE(copies),
						      flags | VG_MDA_READ_NO_STALE, &again);
			tp_log_capture_pop(outer);
			if (nr < 0) {
				r = nr;
				nr = 0;
				break;
			}
		}
		if (i + 1 < nr)
			log_warn("VG metadata seqno %llu is unusable; falling back to seqno %llu",
				 (unsigned long long)copies[i].seqno,
				 (unsigned long long)copies[i + 1].seqno);
	}
	vg_mda_free_copies(copies, (unsigned)nr);
	if (status)
		*status = st;
	if (r)
		return r;
	/* (said once a copy is taken: never before a refusal) */
	vg_mda_warn_stale(pvs, &st);
	*out = vg;
	return 0;
}

/* Does the text of VG (LEN bytes) fit a slot of every device's VG area?
 * 0, or -ENOSPC before anything is written, said with what the area holds
 * and what to do: fewer volumes, or a new pool with a larger area (an
 * area does not grow in place). */
static int fits(struct vg_pv *pvs, unsigned n, const struct vg *vg, size_t len)
{
	size_t cap = SIZE_MAX;
	unsigned at = 0;

	for (unsigned i = 0; i < n; i++)
		if (vg_mda_capacity(&pvs[i].label) < cap) {
			cap = vg_mda_capacity(&pvs[i].label);
			at = i;
		}
	if (len <= cap)
		return 0;
	log_error("pool %s: its VG metadata of %zu bytes (%u volumes) does not fit the VG "
		  "metadata area slot of %zu bytes on %s, which holds about %llu volumes like "
		  "these: remove volumes (tvremove), or make a new pool with a larger area "
		  "(tpcreate --vg-area, tpcreate(8)) and move the volumes into it (tpsend, "
		  "tprecv); a pool's VG area does not grow in place", vg->name, len,
		  vg->nr_volumes, cap, pvs[at].io->name,
		  (unsigned long long)((unsigned __int128)cap * vg->nr_volumes / len));
	return -ENOSPC;
}

int vg_commit(struct vg_pv *pvs, unsigned n, struct vg *vg)
{
	return vg_commit_change(pvs, n, NULL, vg, NULL, NULL);
}

/* A writer's VG committed: where each volume's entry begins in the text
 * written, START, becomes its source, the text to follow (vg_source_text
 * or, without a caller for it, here), for the command's next commit
 * (vg_keep_source). Without memory there is none: the next commit
 * writes every volume. */
static void keep_source(struct vg *vg, uint32_t *start)
{
	struct vg_source *src;

	if (!start)
		return;
	if (!(src = calloc(1, sizeof(*src)))) {
		free(start);
		return;
	}
	src->start = start;
	src->n = vg->nr_volumes;
	vg_source_free(vg->source);
	vg->source = src;
}

void vg_source_text(struct vg *vg, char *text)
{
	if (vg->source && !vg->source->text)
		vg->source->text = text;
	else
		free(text);
}

int vg_commit_change(struct vg_pv *pvs, unsigned n, const struct vg *base, struct vg *vg,
		     char **out, size_t *out_len)
{
	uint64_t old = vg->seqno;
	char *text = NULL;
	uint32_t *start = NULL;
	size_t len;
	int r;

	r = matches_labels(vg, pvs, n);
	if (r)
		return -EINVAL;
	vg->seqno = old + 1;
	if ((r = vg_validate_change(base, vg))) {
		vg->seqno = old;
		return r;
	}
	vg->checked = 1;
	r = vg_export_checked(base, vg, &text, &len, vg_source_kept() ? &start : NULL);
	if (!r)
		r = fits(pvs, n, vg, len);
	if (!r)
		r = vg_mda_commit(pvs, n, vg->seqno, text, len, vg->text_seqno,
				  vg->format_version >= 2 ? VG_MDA_JOURNAL : 0);
	if (r) {
		vg->seqno = old;
		free(text);
		free(start);
		return r;
	}
	vg->text_seqno = vg->seqno;
	vg->text_len = len;
	keep_source(vg, start);
	if (out) {
		*out = text;
		*out_len = len;
	} else {
		vg_source_text(vg, text);
	}
	return 0;
}

/* The size the newest VG copy on IO's own areas (read through its label
 * L, matched to it by pool and device uuid) records for the device; 0
 * when there is none. */
static uint64_t own_vg_size(struct io_engine *io, const struct vg_label *l)
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	struct vg_pv pv = { .io = io, .label = *l };
	struct vg *vg = NULL;
	uint64_t size = 0;
	int i;

	if (!vg_read(&pv, 1, &vg, NULL)) {
		if (!strcmp(vg->dev[VG_ROLE_META].pv_uuid, l->pv_uuid))
			size = vg->dev[VG_ROLE_META].size;
		else if ((i = vg_data_index(vg, l->pv_uuid)) >= 0)
			size = vg_data_dev(vg, (unsigned)i)->size;
		else if (!strcmp(vg->meta1.pv_uuid, l->pv_uuid))
			size = vg->meta1.size;
	}
	vg_free(vg);
	tp_log_capture_pop(outer);
	return size;
}

int vg_label_read(struct io_engine *io, struct vg_label *l)
{
	return vg_label_load(io, l, own_vg_size);
}

uint64_t vg_label_cut_short(struct io_engine *io)
{
	return vg_label_cut_short_by(io, own_vg_size);
}

int vg_label_probe_path(const char *path, struct vg_label *l)
{
	struct io_engine *io;
	int r;

	memset(l, 0, sizeof(*l));
	r = io_fd_open(path, IO_RDONLY, &io);
	if (r)
		return r;
	r = vg_label_read(io, l);
	io_destroy(io);
	return r;
}
