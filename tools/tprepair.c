/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tprepair.c - repair a pool (labels, VG metadata, thin metadata) or
 * salvage a bare thin-metadata area.
 *
 *   tprepair [--force] [--transaction-id N] [--devices DATA,META] POOL
 *   tprepair --restorefile FILE --devices DATA,META POOL
 *   tprepair --metadata IN [--offset BYTES] [--size BYTES] -o OUT [--force]
 *            [--transaction-id N] [--data-block-size SECTORS] [--nr-data-blocks N]
 *   tprepair --list-backups POOL
 *
 * Never writes the input; refuses an OUT that is a pool device unless
 * --force. A clean pool is left alone (say so, exit 0) unless --force.
 * Prints what was done, what was lost and what to do next. Exit: 0
 * repaired or clean (losses listed), 3 bad command line, 4 repaired as
 * forced but volumes now read something else (named), 5 nothing could be
 * salvaged (OUT's superblock zeroed) or OUT refused, a backup refused, or
 * no backups to list. The work is lib/pool/pool_check.h. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool_check.h"
#include "tools/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_u64(const struct tp_command *cmd, const char *opt, const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return cli_usage_error(cmd, "%s wants a number, not '%s'", opt, s);
	return CLI_CONTINUE;
}

/* "B..E" for the inclusive range, or "B..end". */
static const char *range(char *buf, size_t len, uint64_t begin, uint64_t end)
{
	if (end == UINT64_MAX)
		snprintf(buf, len, "%" PRIu64 "..end", begin);
	else
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, begin, end - 1);
	return buf;
}

/* The names of the volumes with thin device ids in [BEGIN, END), "a, b"
 * in BUF; returns how many (0: a bare area, or ids the VG does not list). */
static unsigned names_in(const struct pool_repair_result *r, uint64_t begin, uint64_t end,
			 char *buf, size_t len)
{
	size_t used = 0;
	unsigned n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nr_volumes; i++) {
		if (r->volumes[i].dev_id < begin || r->volumes[i].dev_id >= end)
			continue;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", n ? ", " : "",
						 r->volumes[i].name);
		n++;
	}
	return n;
}

static void print_losses(const char *what, const struct pool_repair_result *r)
{
	if (!tp_cli.quiet)
		printf("%s: %" PRIu64 " thin device%s, %" PRIu64 " mapping%s written, transaction %"
		       PRIu64 "%s\n", what, r->nr_devices, tp_plural(r->nr_devices), r->nr_mappings,
		       tp_plural(r->nr_mappings), r->transaction_id,
		       r->scanned ? " (device trees found by scanning every block)" : "");
	for (size_t i = 0; i < r->nr_lost; i++) {
		const struct pool_repair_lost *l = &r->lost[i];
		char node[48] = "", rg[64], names[512];
		if (l->block != UINT64_MAX)
			snprintf(node, sizeof(node), ", bad node %" PRIu64, l->block);
		if (l->whole_device) {
			unsigned n = names_in(r, l->begin, l->end, names, sizeof(names));
			printf("lost: thin devices %s%s%s (%s%s)\n",
			       range(rg, sizeof(rg), l->begin, l->end),
			       n ? (n > 1 ? ": volumes " : ": volume ") : "", names, l->what, node);
		} else if (names_in(r, l->dev_id, l->dev_id + 1, names, sizeof(names))) {
			printf("lost: volume %s (thin device %" PRIu64 ") blocks %s (%s%s)\n", names,
			       l->dev_id, range(rg, sizeof(rg), l->begin, l->end), l->what, node);
		} else {
			printf("lost: thin device %" PRIu64 " blocks %s (%s%s)\n", l->dev_id,
			       range(rg, sizeof(rg), l->begin, l->end), l->what, node);
		}
	}
	if (r->details_rebuilt)
		printf("lost: the device details (made up from the mapping trees: creation times "
		       "and transaction ids are new, every mapping is treated as shared)\n");
	if (r->unmapped_in_use)
		printf("lost: the mappings of %" PRIu64 " data chunk%s the damaged metadata counted "
		       "in use (newer than the device trees found, or in a lost subtree: volumes may "
		       "read older content)\n", r->unmapped_in_use, tp_plural(r->unmapped_in_use));
	if (r->snapshot_dropped)
		printf("lost: the metadata snapshot (release it in any tool that still uses it)\n");
	if (r->nr_lost || r->details_rebuilt || r->unmapped_in_use)
		printf("next: lost blocks read as zeroes (or the snapshot origin's data); restore "
		       "them from a backup, run fsck on the affected volumes\n");
}

/* Parse the numbers of the salvage into P; CLI_CONTINUE or 3. */
static int parse_salvage(const struct tp_command *cmd, const char *tid, const char *nr, int dbs,
			 struct pool_repair_params *p)
{
	int code = CLI_CONTINUE;

	if (dbs < 0)
		return cli_usage_error(cmd, "--data-block-size must be positive");
	p->data_block_size = (uint32_t)dbs;
	if (tid) {
		code = parse_u64(cmd, "--transaction-id", tid, &p->transaction_id);
		p->set_transaction_id = 1;
	}
	if (code == CLI_CONTINUE && nr)
		code = parse_u64(cmd, "--nr-data-blocks", nr, &p->nr_data_blocks);
	return code;
}

/* The options of the bare-area mode need --metadata, and it needs -o;
 * SALVAGE: --data-block-size or --nr-data-blocks given. */
static int check_modes(const struct tp_command *cmd, const struct pool_repair_params *p,
		       struct cli_area *area, int salvage)
{
	if (p->metadata && !p->output)
		return cli_usage_error(cmd, "--metadata needs -o OUT (the input is never written)");
	if (!p->metadata && (p->output || area->offset_s || area->size_s || salvage))
		return cli_usage_error(cmd, "-o, --offset, --size, --data-block-size and "
				       "--nr-data-blocks need --metadata");
	if (p->metadata && p->restorefile)
		return cli_usage_error(cmd, "--restorefile restores a pool's labels and VG; it "
				       "does not go with --metadata");
	return cli_area(cmd, area, 1, NULL);
}

/* What a pool's repair did besides the salvage. */
static void print_pool_steps(const struct pool_repair_params *p,
			     const struct pool_repair_result *r)
{
	for (int i = 0; i < 2; i++)
		if (r->relabeled & (1u << i))
			printf("%s: rewrote the label of %s from %s\n", p->pool, r->device[i],
			       p->restorefile ? p->restorefile : "the other device's VG metadata");
	if (r->xrelabeled[0])
		printf("%s: rewrote the lost label and VG area of %s from the VG metadata\n",
		       p->pool, r->xrelabeled);
	if (r->vg_restored)
		printf("%s: VG metadata restored from %s onto every device of the pool\n", p->pool,
		       p->restorefile);
	if (r->vg_rewritten)
		printf("%s: damaged or stale VG metadata copies rewritten\n", p->pool);
	if (r->meta_resynced[0])
		printf("%s: the metadata mirror's stale leg %s resynced from the other\n", p->pool,
		       r->meta_resynced);
	if (r->meta_kept[0])
		printf("%s: metadata mirror leg %u's thin metadata as it was is kept in %s (its "
		       "blocks that differed from the other leg's were overwritten)\n", p->pool,
		       r->meta_kept_leg, r->meta_kept);
	if (r->meta_source)
		printf("%s: metadata mirror leg %d's thin metadata was consistent alone, leg %d's "
		       "was not: leg %d's active area was copied over leg %d's\n", p->pool,
		       r->meta_source - 1, 2 - r->meta_source, r->meta_source - 1,
		       2 - r->meta_source);
	for (int i = 0; i < 2; i++)
		if (r->meta_healed[i])
			printf("%s: rewrote %" PRIu64 " bad block%s of metadata mirror leg %d (%s) "
			       "from leg %d\n", p->pool, r->meta_healed[i],
			       r->meta_healed[i] == 1 ? "" : "s", i, r->meta_leg[i], 1 - i);
	if (r->strays_deleted)
		printf("%s: deleted %u thin device(s) that belonged to no volume (a receive or "
		       "creation cut short); their chunks are free again\n", p->pool,
		       r->strays_deleted);
	if (r->orphans_wiped)
		printf("%s: wiped the orphan label of %s (the pool's VG does not name it: a "
		       "change that added or took it away was cut short)\n", p->pool, r->orphans);
	if (r->txn_completed)
		printf("%s: completed the interrupted transaction %" PRIu64 " (the thin metadata "
		       "caught up with the VG)\n", p->pool, r->txn_completed);
	if (r->devices_recorded)
		printf("%s: recorded %u device%s in the devices file (its entr%s missing or "
		       "damaged)\n", p->pool, r->devices_recorded,
		       r->devices_recorded == 1 ? "" : "s", r->devices_recorded == 1 ? "y was" : "ies were");
	if (r->labels_synced)
		printf("%s: rewrote %u label%s that lagged behind the VG metadata\n", p->pool,
		       r->labels_synced, r->labels_synced == 1 ? "" : "s");
}

/* Did a pool's repair write anything (also when it failed later)? */
static int wrote_something(const struct pool_repair_result *r)
{
	return r->relabeled || r->xrelabeled[0] || r->vg_restored || r->vg_rewritten || r->salvaged ||
	       r->strays_deleted || r->meta_resynced[0] || r->orphans_wiped ||
	       r->meta_healed[0] || r->meta_healed[1] || r->labels_synced ||
	       r->devices_recorded || r->txn_completed || r->meta_source;
}

/* Print what was done; returns the exit code: 5 when nothing was written
 * and something is left that another command must fix (said, with that
 * command, as tpcheck's next: line says it). */
static int print_done(const struct pool_repair_params *p, const struct pool_repair_result *r)
{
	const char *what = p->metadata ? p->output : p->pool;

	if (p->metadata || r->salvaged)
		print_losses(what, r);
	if (!p->metadata && !wrote_something(r) && r->next[0]) {
		log_error("%s: nothing tprepair repairs is damaged, and nothing was written; what "
			  "is left: %s", what, r->next);
		return TP_EXIT_FAILED;
	}
	if (p->metadata && r->snapshot_trees) {
		/* never a plain success: the devices read another moment's content */
		log_error("%s: salvaged from the metadata snapshot of %s, of transaction %" PRIu64
			  " (its live device trees are lost): the thin devices read what they held "
			  "then, and those made or removed since are missing or back; written at "
			  "transaction %" PRIu64 ". Check it with 'tpcheck --metadata %s' and compare "
			  "it with what the pool should hold before use", what, p->metadata,
			  r->snapshot_transaction_id, r->transaction_id, what);
		return TP_EXIT_REREAD;
	}
	if (tp_cli.quiet)
		return TP_EXIT_OK;
	if (p->metadata) {
		printf("%s: repaired; check it with 'tpcheck --metadata %s' before use\n", what, what);
		return TP_EXIT_OK;
	}
	print_pool_steps(p, r);
	if (!wrote_something(r)) {
		printf("%s: clean: nothing to repair, nothing written ('tprepair --force %s' "
		       "salvages the thin metadata anyway)\n", what, what);
		return TP_EXIT_OK;
	}
	if (r->saved[0])
		printf("%s: the spare area's earlier content (the damaged copy an earlier repair "
		       "set aside) was kept in %s\n", what, r->saved);
	if (r->started_anew)
		printf("%s: nothing of its thin metadata could be salvaged: new, empty thin "
		       "metadata is active now (the damaged copy stays in the spare until the next "
		       "repair); every volume is lost. Run 'tpcheck %s'.\n", what, what);
	else if (r->salvaged)
		printf("%s: repaired into the spare area, which is now active; the damaged copy "
		       "stays in the spare until the next repair. Run 'tpcheck %s'.\n", what, what);
	else
		printf("%s: repaired. Run 'tpcheck %s'.\n", what, what);
	if (r->next[0])
		printf("next: %s\n", r->next);
	return TP_EXIT_OK;
}

/* A forced restore that made volumes read something else: said last, on
 * standard error, whatever -q says (the exit code is not 0). */
static void print_reread(const struct pool_repair_params *p, const struct pool_repair_result *r)
{
	if (!r->nr_reread && p->restorefile && r->reread_why[0]) {
		/* the contradiction stands though no volume kept a thin device
		 * to read otherwise: every one is reported lost above */
		log_error("%s: the backup %s contradicted the devices, and --force restored it "
			  "anyway (%s): none of its volumes kept its content (each is reported "
			  "lost); repair again with a backup that agrees ('tpcheck %s' names one, "
			  "if this host keeps it)", p->pool, p->restorefile, r->reread_why, p->pool);
		return;
	}
	if (!r->nr_reread)
		return;
	if (!p->restorefile) {	/* a salvage of thin metadata of another moment */
		log_error("%s: %u volume%s may read older content than before the damage: %s (%s); "
			  "restore their content from elsewhere if it matters", p->pool,
			  r->nr_reread, tp_plural(r->nr_reread), r->reread, r->reread_why);
		return;
	}
	log_error("%s: %u volume%s now read%s something else than before the repair: %s (the "
		  "backup %s contradicted the devices, and --force restored it anyway: %s); restore "
		  "their content from elsewhere, or repair again with a backup that agrees ('tpcheck "
		  "%s' names one, if this host keeps it)", p->pool, r->nr_reread,
		  r->nr_reread > 1 ? "s" : "", r->nr_reread > 1 ? "" : "s", r->reread,
		  p->restorefile, r->reread_why, p->pool);
}

/* tprepair --list-backups POOL: one line per backup, each pool's oldest
 * first, the pool the devices are last. */
static int list_backups(const char *pool)
{
	struct pool_backup_listing l;
	int r = pool_backup_listing(pool, &l);

	if (r)
		return tp_exit_from_errno(r);
	printf("%5s %11s %-24s %7s  %-36s  %s  %s\n", "Seqno", "Transaction", "Time", "Volumes",
	       "Pool-uuid", "File", "Description");
	for (size_t i = 0; i < l.n; i++) {
		const struct pool_backup_entry *e = &l.e[i];
		char when[40] = "-", tid[24] = "-", vols[16] = "-";
		time_t t = (time_t)e->mtime;
		struct tm tm;

		if (e->mtime && localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", &tm);
		if (e->readable) {
			snprintf(tid, sizeof(tid), "%" PRIu64, e->transaction_id);
			snprintf(vols, sizeof(vols), "%u", e->nr_volumes);
		}
		printf("%5" PRIu64 " %11s %-24s %7s  %-36s  %s  ", e->seqno, tid, when, vols,
		       e->uuid[0] ? e->uuid : "-", e->path);
		if (!e->readable) {
			printf("%s: %s\n", e->newer_format ? "newer format" : "damaged", e->problem);
			continue;
		}
		printf("%s", e->description[0] ? e->description : "-");
		if (e->delta_base)
			printf("; a delta of backup %" PRIu64, e->delta_base);
		if (e->nr_receives)
			printf("; %u unfinished receive%s", e->nr_receives,
			       e->nr_receives > 1 ? "s" : "");
		if (e->other_pool)
			printf("; of another pool named %s", e->pool);
		else if (strcmp(e->pool, pool))
			printf("; when the pool was named %s", e->pool);
		if (e->problem[0])
			printf("; %s", e->problem);
		printf("\n");
	}
	if (l.uuid[0] && !l.current_listed)
		log_notice("this host keeps no backup of the pool %s on its devices (uuid %s, from "
			   "%s): the backups listed are of other pools that had the name", pool,
			   l.uuid, l.uuid_from);
	else if (l.uuid[0] && l.nr_pools > 1)
		log_notice("the pool %s on its devices is uuid %s (from %s); the backups of the %u "
			   "other pool%s that had the name are listed first, marked 'of another "
			   "pool'", pool, l.uuid, l.uuid_from, l.nr_pools - 1,
			   l.nr_pools > 2 ? "s" : "");
	else if (!l.uuid[0] && l.nr_pools > 1)
		log_notice("backups of %u pools that had the name %s are listed, each pool's "
			   "together (its uuid in the second column); nothing on this host says "
			   "which one the devices hold%s%s", l.nr_pools, pool,
			   l.uuid_from[0] ? ": " : "", l.uuid_from);
	pool_backup_listing_free(&l);
	return TP_EXIT_OK;
}

int cmd_tprepair(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_repair_params p = { 0 };
	struct cli_area area = { 0 };
	const char *tid_s = NULL, *nr_s = NULL, *progress = NULL;
	enum tp_progress_mode mode;
	struct tp_progress pg;
	int dbs = 0, list = 0, code, r, said;
	unsigned errors;
	const struct poptOption opts[] = {
		{ "metadata", '\0', POPT_ARG_STRING, &p.metadata, 0,
		  "repair a bare thin metadata area (file or device); needs -o", "IN" },
		{ "output", 'o', POPT_ARG_STRING, &p.output, 0,
		  "with --metadata: where the repaired metadata goes (an existing file or device, "
		  "not IN)", "OUT" },
		CLI_OPT_AREA(area, "with --metadata: ", "IN"),
		{ "force", 'f', POPT_ARG_NONE, &p.force, 0,
		  "with --metadata: write OUT even if it is a pool's device; with POOL: salvage "
		  "the thin metadata even when the check finds it clean", NULL },
		CLI_OPT_DEVICES(p.devices),
		{ "restorefile", '\0', POPT_ARG_STRING, &p.restorefile, 0,
		  "with POOL: rebuild lost labels and VG metadata from this VG backup (one of the "
		  "config dir's backup/POOL-UUID/*.vg, which --list-backups lists)", "FILE" },
		{ "transaction-id", '\0', POPT_ARG_STRING, &tid_s, 0,
		  "transaction id to write (default: the VG's, or the old superblock's)", "N" },
		{ "data-block-size", '\0', POPT_ARG_INT, &dbs, 0,
		  "with --metadata: data block size in sectors when the superblock is lost", "SECTORS" },
		{ "nr-data-blocks", '\0', POPT_ARG_STRING, &nr_s, 0,
		  "with --metadata: data device size in blocks when the superblock is lost", "N" },
		{ "list-backups", '\0', POPT_ARG_NONE, &list, 0,
		  "list the VG metadata backups this host keeps of each pool that had the name "
		  "POOL, with its uuid, oldest first (reads only this host's files and labels; "
		  "the pool's devices may be gone)", NULL },
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};
	struct pool_repair_result res = { 0 };
	struct cli cli;

	code = cli_parse_pool_or_area(&cli, cmd, opts, argc, argv, &p.metadata, &p.devices,
				      &p.pool);
	if (code != CLI_CONTINUE)
		return code;
	if (list) {
		if (p.metadata || p.output || p.devices || p.restorefile || p.force || tid_s ||
		    nr_s || dbs || area.offset_s || area.size_s)
			code = cli_usage_error(cmd, "--list-backups POOL takes no other option: it "
						    "reads only this host's backup files");
		else
			code = list_backups(p.pool);
		cli_end(&cli);
		return code;
	}
	code = check_modes(cmd, &p, &area, dbs || nr_s);
	if (code == CLI_CONTINUE)
		code = cli_device_list(cmd, "--devices", p.devices);
	if (code == CLI_CONTINUE)
		code = parse_salvage(cmd, tid_s, nr_s, dbs, &p);
	if (code == CLI_CONTINUE)
		code = cli_progress(cmd, progress, &mode);
	if (code == CLI_CONTINUE && p.metadata && !strcmp(p.metadata, p.output))
		code = cli_usage_error(cmd, "OUT must not be IN: the input is never written");
	if (code != CLI_CONTINUE)
		goto done;
	p.offset = area.offset;
	p.size = area.size;
	p.force_salvage = !p.metadata && p.force;
	cli_progress_begin(&pg, cmd, mode, p.metadata ? p.metadata : p.pool, TP_PROGRESS_ITEMS,
			   "mappings");
	p.progress = tp_progress_cb;
	p.progress_ctx = &pg;
	errors = tp_log_error_count();
	r = pool_repair_run(&p, &res);
	/* a refusal already said why (in the library's words): the errno
	 * is no second reason */
	said = tp_log_error_count() > errors;
	tp_progress_end(&pg, r == 0);
	code = r ? tp_exit_from_errno(r) : print_done(&p, &res);
	/* a forced restore of a backup that contradicts the devices is never
	 * a success, even when every volume it lists was lost */
	if (!r && (res.nr_reread || (p.restorefile && res.reread_why[0]))) {
		print_reread(&p, &res);
		code = TP_EXIT_REREAD;
	}
	if (r && !p.metadata && wrote_something(&res)) {
		if (res.salvaged) {	/* the salvage itself, and what it lost */
			print_losses(p.pool, &res);
			printf("%s: salvaged into the spare area, which is now active\n", p.pool);
		}
		print_pool_steps(&p, &res);	/* what was written before the failure */
		log_error("%s: repair failed (%s) after the steps above; run 'tpcheck %s'", p.pool,
			  strerror(-r), p.pool);
	} else if (r && !p.metadata && res.spare_written) {
		log_error("%s: repair failed (%s); the pool is unchanged but for its spare "
			  "thin-metadata area, which the salvage wrote (the pool does not use it; "
			  "its earlier content %s%s)", p.pool, strerror(-r),
			  res.saved[0] ? "is kept in " : "was zeroes, nothing to keep",
			  res.saved);
	} else if (r) {
		log_error("%s: %s (%s); the input is unchanged",
			  p.metadata ? p.metadata : p.pool, said ? "not repaired" : "repair failed",
			  r == -ENOTBLK ? "a device path was refused, as said above"
			  : r == -EREMOTE ? "the pool is another host's, as said above"
			  : said	  ? "as said above"
					  : strerror(-r));
	}
done:
	pool_repair_result_free(&res);
	cli_end(&cli);
	return code;
}
