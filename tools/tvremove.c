/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvremove - remove thin volumes (their snapshots stay), in bounded steps
 * with progress (pool_volume_remove_progress; a removal another command
 * left under way is gone on with). Removing an
 * origin asks first (-y answers yes; without a terminal it is refused)
 * and names the snapshots that no longer record it. --wipe zeroes the
 * chunks only the volume maps before removing it (pool_volume_wipe_watched,
 * with its own progress line):
 * offline on the data device, live through the kernel. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
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

/* The snapshots of VOL in P, as "a, b" in BUF; returns how many. */
static unsigned snapshots_of(struct pool *p, const char *vol, char *buf, size_t len, int *err)
{
	struct pool_info info;
	unsigned n = 0;
	size_t used = 0;

	buf[0] = '\0';
	*err = pool_get_info(p, 0, &info);
	if (*err)
		return 0;
	for (unsigned i = 0; i < info.nr_volumes; i++) {
		if (strcmp(info.volumes[i].origin, vol))
			continue;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", n ? ", " : "",
						 info.volumes[i].name);
		n++;
	}
	pool_info_free(&info);
	return n;
}

static int removal_op(struct pool *p, void *arg)
{
	const struct removal *rm = arg;
	char snaps[512];
	enum pool_volume_removal how;
	int r;
	unsigned n = snapshots_of(p, rm->vol, snaps, sizeof(snaps), &r);

	if (r)
		return r;
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
		r = rm->wipe ? pool_volume_remove_wiped(p, rm->vol, tp_progress_cb, &pg)
			     : pool_volume_remove_progress(p, rm->vol, tp_progress_cb, &pg);
		tp_progress_end(&pg, r >= 0);
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
	/* Check every argument before changing anything. */
	for (i = 0; i < nargs && rc == CLI_CONTINUE; i++)
		if (pool_split_volume_spec(args[i], rm.pool, rm.vol))
			rc = TP_EXIT_USAGE;
	for (i = 0; i < nargs && rc != TP_EXIT_USAGE; i++) {
		rm.spec = args[i];
		if (!pool_split_volume_spec(args[i], rm.pool, rm.vol) &&
		    (code = tool_pool_op(rm.pool, devices, removal_op, &rm)) != TP_EXIT_OK)
			failed = code;
	}
	cli_end(&cli);
	return rc == TP_EXIT_USAGE ? rc : failed;
}
