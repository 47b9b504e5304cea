/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvremove - remove thin volumes (their snapshots stay), in bounded steps
 * with progress (pool_volume_remove_progress; a removal another command
 * left under way is gone on with). Removing an
 * origin asks first (-y answers yes; without a terminal it is refused)
 * and names the snapshots that no longer record it. --wipe zeroes the
 * chunks only the volume maps before removing it (pool_volume_wipe_watched,
 * with its own progress line):
 * offline on the data device, live through the kernel; of an encrypted
 * volume it crypto-erases its header instead (pool_crypt_erase, offline),
 * naming the volumes that keep a copy. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "tools/cli.h"
#include "tools/pool_op.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct removal {
	const char *spec;	/* POOL/VOLUME as given */
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	int wipe;		/* --wipe */
	int now;		/* --now: never into the trash */
	int undo;		/* --undo */
	int purge;		/* --purge */
	const char *as;		/* --name (with --undo) */
	enum tp_progress_mode progress;
	const struct tp_command *cmd;
};

static void print_wipe(const struct removal *rm, const struct pool_wipe_result *w)
{
	char a[32], b[32];
	double mbs = w->seconds > 0 ? (double)w->wiped / w->seconds / 1e6 : 0;

	if (tp_log_verbosity() < 0)
		return;
	printf("Volume %s wiped%s: %s of chunks only it mapped now read zero (%llu extent%s, "
	       "%.2f s, %.0f MB/s)",
	       rm->spec, w->live ? " live" : "",
	       tp_size_format(w->wiped, 'h', a, sizeof(a)),
	       (unsigned long long)w->extents, w->extents == 1 ? "" : "s", w->seconds, mbs);
	if (w->direct)
		printf("; %s of them on the data device (chunks older than the volume's last "
		       "snapshot, which the kernel would copy)",
		       tp_size_format(w->direct, 'h', b, sizeof(b)));
	if (w->shared)
		printf("; %s shared with other volumes left to them",
		       tp_size_format(w->shared, 'h', b, sizeof(b)));
	printf(".\n");
}

/* The commands that erase the header each of LIST ("a, b": names of
 * POOL) keeps: FMT with the pool and the name, joined by "; ". */
static void print_each(const char *pool, const char *list, const char *fmt)
{
	char name[POOL_NAME_MAX + 1];
	int first = 1;

	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		printf(first ? "" : "; ");
		printf(fmt, pool, name, pool, name);
		first = 0;
		s += n;
		s += strspn(s, ", ");
	}
}

static void print_erase(const struct removal *rm, const struct pool_crypt_erase_result *e)
{
	const struct pool_head_erase *h = &e->head;
	char a[32];

	if (tp_log_verbosity() < 0)
		return;
	tp_size_format(e->header_len, 'h', a, sizeof(a));
	if (h->erased)
		printf("Volume %s crypto-erased: %llu chunk%s of its LUKS2 header (%s) overwritten "
		       "with random bytes; its data chunks were not zeroed (ciphertext no key opens "
		       "without the header).\n", rm->spec, (unsigned long long)h->erased,
		       h->erased == 1 ? "" : "s", a);
	else
		printf("Volume %s: nothing of its LUKS2 header (%s) was erased: no chunk of it was "
		       "the volume's alone%s; its data chunks were not zeroed.\n", rm->spec, a,
		       h->shared ? " (every one is shared, below)" : "");
	if (!h->shared)
		return;
	/* the holders keep the shared chunks as part of their own header,
	 * with whatever keyslots that header has now */
	printf("Volume %s: %llu chunk%s of its header %s shared with %s, which keep%s %s in %s "
	       "own header%s", rm->spec, (unsigned long long)h->shared, h->shared == 1 ? "" : "s",
	       h->shared == 1 ? "is" : "are", h->holders, h->nr_holders == 1 ? "s" : "",
	       h->shared == 1 ? "it" : "them", h->nr_holders == 1 ? "its" : "their",
	       h->nr_holders == 1 ? "" : "s");
	if (h->nr_vols + h->nr_trash)
		printf("; to erase %s: ", h->nr_vols + h->nr_trash == 1 ? "it" : "them");
	if (h->nr_vols)
		print_each(rm->pool, h->vols, "'tvremove --wipe %s/%s'");
	if (h->nr_vols && h->nr_trash)
		printf("; ");
	if (h->nr_trash)
		print_each(rm->pool, h->trash,
			   "'tvremove --undo %s/%s' then 'tvremove --wipe %s/%s'");
	printf(".\n");
}

/* Where a volume removed into the trash went, until when, and how to undo
 * or empty it. */
static void print_trashed(struct pool *p, const struct removal *rm, const char *snaps)
{
	char keep[24];

	if (tp_log_verbosity() < 0)
		return;
	tp_duration_format(pool_volume_trash_retention(p), keep, sizeof(keep));
	printf("Volume %s moved to the trash of pool %s%s%s%s (kept %s): 'tvremove --undo %s' "
	       "brings it back, 'tvremove --purge %s' frees its space now.\n", rm->spec, rm->pool,
	       snaps ? "; " : "", snaps ? snaps : "", snaps ? " no longer record it as origin" : "",
	       keep, rm->spec, rm->spec);
}

/* Is NAME a valid pool (or volume) name? Logged when not. */
static int name_ok(const char *name, int pool)
{
	char spec[2 * POOL_NAME_MAX + 8], a[POOL_NAME_MAX + 1], b[POOL_NAME_MAX + 1];

	if (strlen(name) > POOL_NAME_MAX || strchr(name, '/')) {
		log_error("'%s' is not a valid name", name);
		return 0;
	}
	snprintf(spec, sizeof(spec), pool ? "%s/x" : "x/%s", name);
	return !pool_split_volume_spec(spec, a, b);
}

/* Bring back POOL/VOLUME from the trash (--undo [--name NEW]). */
static int undo_op(struct pool *p, void *arg)
{
	const struct removal *rm = arg;
	int r = pool_volume_untrash(p, rm->vol, rm->as);

	if (r == 1) {
		if (tp_log_verbosity() >= 0)
			printf("Volume %s was already back from the trash (by the pool's last "
			       "change).\n", rm->spec);
		return 0;
	}
	if (!r && tp_log_verbosity() >= 0) {
		if (rm->as)
			printf("Volume %s is back from the trash as %s/%s.\n", rm->spec, rm->pool,
			       rm->as);
		else
			printf("Volume %s is back from the trash.\n", rm->spec);
	}
	return r;
}

/* Purge POOL/VOLUME (every entry of that name) or POOL's whole trash. */
static int purge_op(struct pool *p, void *arg)
{
	const struct removal *rm = arg;
	struct tp_progress pg;
	unsigned nr = 0;
	int r;

	cli_progress_begin(&pg, rm->cmd, rm->progress, rm->spec, TP_PROGRESS_ITEMS, "chunks");
	r = pool_volume_trash_purge(p, rm->vol[0] ? rm->vol : NULL, &nr, tp_progress_cb, &pg);
	tp_progress_end(&pg, r >= 0);
	if (r == 1) {
		if (tp_log_verbosity() >= 0)
			printf("The trash entries of %s were already purged (an interrupted purge "
			       "is finished).\n", rm->spec);
		return 0;
	}
	if (tp_log_verbosity() >= 0 && (nr || !r))
		printf("Purged %u trash entr%s of %s%s.\n", nr, nr == 1 ? "y" : "ies", rm->spec,
		       r ? " before the failure" : "");
	return r;
}

/* tvremove --now or --wipe of a name only the trash holds: the checks
 * of a cut removal below would take the entry for their own finished
 * work. --now purges it (what it would have done had the volume been
 * live); --wipe is refused: the entry's chunks are no volume's to wipe.
 * 1 when the name is not the trash's alone (go on), else an exit. */
static int trashed_op(struct pool *p, const struct removal *rm)
{
	int t = pool_volume_trashed_only(p, rm->vol);

	if (!t)
		return 1;
	if (rm->wipe) {
		log_error("volume %s was not wiped: there is no volume %s, only an entry of that "
			  "name in the trash of pool %s, whose data is still there; 'tvremove --undo "
			  "%s' then 'tvremove --wipe %s' wipes and removes it ('tvremove --purge %s' "
			  "frees its chunks without zeroing them)", rm->spec, rm->vol, rm->pool,
			  rm->spec, rm->spec, rm->spec);
		return -ECANCELED;
	}
	if (t == 2) {
		if (tp_log_verbosity() >= 0)
			printf("The trash entries of %s were already purged (an interrupted purge "
			       "is finished).\n", rm->spec);
		return 0;
	}
	return purge_op(p, (void *)rm);
}

static int removal_op(struct pool *p, void *arg)
{
	const struct removal *rm = arg;
	struct pool_crypt_erase_result erased;
	char snaps[512];
	enum pool_volume_removal how;
	int r, trashed = 0;
	unsigned n;

	if ((rm->now || rm->wipe) && (r = trashed_op(p, rm)) != 1)
		return r;
	n = pool_volume_snapshots(p, rm->vol, snaps, sizeof(snaps));
	if (n && !cli_confirm("Volume %s is the origin of %u snapshot%s (%s); they keep their "
			      "data but no longer record their origin. Remove %s?",
			      rm->spec, n, n == 1 ? "" : "s", snaps, rm->spec)) {
		log_error("volume %s not removed: it is the origin of %s (-y removes it)",
			  rm->spec, snaps);
		return -ECANCELED;
	}
	how = rm->wipe ? pool_volume_removal_begun(p, rm->vol) : POOL_VOLUME_NOT_REMOVING;
	if (how == POOL_VOLUME_REMOVING_WIPED) {
		/* a tvremove --wipe cut after its wipe, run again */
		if (tp_log_verbosity() >= 0)
			printf("Volume %s was wiped before its removal began.\n", rm->spec);
	} else if (how == POOL_VOLUME_REMOVING_EMPTY) {
		if (tp_log_verbosity() >= 0)
			printf("Volume %s mapped no chunks when its removal began: there was "
			       "nothing to wipe.\n", rm->spec);
	} else if (rm->wipe && how == POOL_VOLUME_NOT_REMOVING &&
		   (r = pool_crypt_erase(p, rm->vol, &erased)) != 1) {
		/* an encrypted volume: its header destroyed is its data gone */
		if (r)
			return r;
		print_erase(rm, &erased);
	} else if (rm->wipe && how == POOL_VOLUME_NOT_REMOVING) {
		struct pool_wipe_result w;
		struct tp_progress pg;
		struct pool_wipe_params wp = { tp_progress_cb, &pg };

		cli_progress_begin(&pg, rm->cmd, rm->progress, rm->spec, TP_PROGRESS_BYTES, NULL);
		r = pool_volume_wipe_watched(p, rm->vol, &wp, &w);
		tp_progress_end(&pg, r == 0);
		if (r)
			return r;
		print_wipe(rm, &w);
	}
	{
		struct tp_progress pg;

		cli_progress_begin(&pg, rm->cmd, rm->progress, rm->spec, TP_PROGRESS_ITEMS,
				   "chunks");
		/* --wipe zeroed its data: nothing is left worth keeping */
		r = pool_volume_remove_or_trash(p, rm->vol, rm->now || rm->wipe, rm->wipe, &trashed,
						tp_progress_cb, &pg);
		tp_progress_end(&pg, r >= 0);
	}
	if (!r && trashed) {
		print_trashed(p, rm, n ? snaps : NULL);
		return 0;
	}
	if (r == 1 && trashed) {
		if (tp_log_verbosity() >= 0)
			printf("Volume %s was already moved to the trash (by the pool's last "
			       "change).\n", rm->spec);
		return 0;
	}
	if (r == 1) {	/* gone already: the pool's last change removed it */
		if (tp_log_verbosity() >= 0)
			printf("Volume %s was already removed (by the pool's last change).\n",
			       rm->spec);
		r = 0;
	} else if (!r && tp_log_verbosity() >= 0) {
		if (n)
			printf("Volume %s removed; %s no longer record%s it as origin.\n", rm->spec,
			       snaps, n == 1 ? "s" : "");
		else
			printf("Volume %s removed.\n", rm->spec);
	}
	if (!r && how == POOL_VOLUME_REMOVING_UNWIPED) {
		/* the removal is finished (the open finishes one under way),
		 * but the wipe asked for never ran and cannot now */
		log_error("volume %s was not wiped: its removal began without --wipe, so its "
			  "chunks went back to the pool's free chunks with their data not zeroed, "
			  "and which they were is no longer known; to erase all free chunks, "
			  "deactivate the pool and run 'tptrim %s' (an image file then reads zeros "
			  "there, a block device what it returns after a discard)", rm->spec,
			  rm->pool);
		return -ECANCELED;
	}
	return r;
}

int cmd_tvremove(const struct tp_command *cmd, int argc, const char **argv)
{
	const char **args, *devices = NULL, *progress = NULL;
	struct removal rm = { 0 };
	int rc, nargs, i, code, failed = TP_EXIT_OK;
	struct cli cli;
	const struct poptOption opts[] = {
		CLI_OPT_DEVICES(devices),
		{ "wipe", 'w', POPT_ARG_NONE, &rm.wipe, 0,
		  "first write zeros over the chunks no other volume maps", NULL },
		{ "now", 0, POPT_ARG_NONE, &rm.now, 0,
		  "remove at once, never into the pool's trash", NULL },
		{ "undo", 0, POPT_ARG_NONE, &rm.undo, 0,
		  "bring the volume back from the pool's trash", NULL },
		{ "name", 0, POPT_ARG_STRING, &rm.as, 0,
		  "with --undo: the name it comes back under", "NAME" },
		{ "purge", 0, POPT_ARG_NONE, &rm.purge, 0,
		  "purge the volume (or with POOL alone, every volume) from the pool's trash",
		  NULL },
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	rm.cmd = cmd;
	if ((rc = cli_progress(cmd, progress, &rm.progress)) != CLI_CONTINUE) {
		cli_end(&cli);
		return rc;
	}
	rc = CLI_CONTINUE;
	if (rm.undo + rm.purge + (rm.now || rm.wipe) > 1)
		rc = cli_usage_error(cmd, "--undo, --purge and a removal (--now, --wipe) go one at "
					  "a time");
	else if (rm.as && (!rm.undo || nargs != 1))
		rc = cli_usage_error(cmd, "--name goes with --undo and one POOL/VOLUME");
	else if (rm.as && (!*rm.as || strlen(rm.as) > POOL_NAME_MAX || strchr(rm.as, '/') ||
			   !name_ok(rm.as, 0)))
		rc = cli_usage_error(cmd, "--name takes a volume name (not empty, no '/', at most "
					  "%d characters), not '%s'", POOL_NAME_MAX, rm.as);
	/* Check every argument before changing anything. */
	for (i = 0; i < nargs && rc == CLI_CONTINUE; i++)
		if (rm.purge && !strchr(args[i], '/') ? !name_ok(args[i], 1)
						       : !!pool_split_volume_spec(args[i], rm.pool, rm.vol))
			rc = TP_EXIT_USAGE;
	for (i = 0; i < nargs && rc != TP_EXIT_USAGE; i++) {
		rm.spec = args[i];
		if (rm.purge && !strchr(args[i], '/')) {
			snprintf(rm.pool, sizeof(rm.pool), "%s", args[i]);
			rm.vol[0] = '\0';
		} else if (pool_split_volume_spec(args[i], rm.pool, rm.vol)) {
			continue;
		}
		code = tool_pool_op(rm.pool, devices,
				    rm.undo ? undo_op : rm.purge ? purge_op : removal_op, &rm);
		if (code != TP_EXIT_OK)
			failed = code;
	}
	cli_end(&cli);
	return rc == TP_EXIT_USAGE ? rc : failed;
}
