/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpcheck.c - check a pool (labels, both VG copies on every device, the
 * thin metadata, VG <-> thin consistency) or a bare thin metadata area.
 *
 *   tpcheck [--fast] [--json] [-q] [--devices DATA,META] POOL
 *   tpcheck [--fast] [--json] [-q] --metadata FILE|DEV [--offset BYTES] [--size BYTES]
 *
 * Exit: 0 clean, 1 non-fatal damage, 2 fatal damage, 3 bad command line,
 * 5 could not run. The checks are lib/pool/pool_check.h; this file
 * parses and prints. With --json, standard output is always one JSON
 * object, also when the check could not run or the command line is bad
 * (then with the messages, which still go to standard error too). */
#include "lib/base/compiler.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool_check.h"
#include "tools/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* --json anywhere before "--": known before popt has parsed anything, so
 * a bad command line is reported as JSON too. */
static int wants_json(int argc, const char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			return 1;
	return 0;
}

/* Pass captured messages on to standard error, as they would have gone. */
static void replay(const struct tp_command *cmd, const struct tp_log_capture *cap)
{
	const char *s = cap->buf;

	while (*s) {
		size_t n = strcspn(s, "\n");
		fprintf(stderr, "%s: %.*s\n", cmd->name, (int)n, s);
		s += n + (s[n] == '\n');
	}
}

/* The JSON of a check that did not run: CODE and the messages. */
static void print_json_error(int code, const struct tp_log_capture *cap)
{
	const char *s = cap->buf;
	int first = 1;

	printf("{\n  \"result\": \"error\",\n  \"exit_code\": %d,\n  \"messages\": [", code);
	while (*s) {
		size_t n = strcspn(s, "\n");
		char line[2048];

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		printf("%s\n    ", first ? "" : ",");
		cli_json_string(line);
		first = 0;
		s += n + (s[n] == '\n');
	}
	printf("%s]\n}\n", first ? "" : "\n  ");
}

static const char *verdict_name(int code)
{
	return code == TP_EXIT_OK ? "clean" : code == TP_EXIT_DAMAGE ? "non-fatal" : "fatal";
}

/* The findings of the pool level (NULL for a bare area) and of the thin
 * metadata, in that order. */
struct findings {
	const struct pool_findings *f[2];
	const char *where[2];
};

static size_t nr_total(const struct findings *fs, int kept)
{
	size_t n = 0;

	for (int k = 0; k < 2; k++)
		if (fs->f[k])
			n += kept ? fs->f[k]->nr_kept : fs->f[k]->nr_fatal + fs->f[k]->nr_nonfatal;
	return n;
}

/* What a newer tptools wrote, for scripts: "vg" (the VG itself: not
 * checked, exit 2 without damage), "older_copy" (an earlier commit in an
 * older slot: a note, no damage), "none"; NULL for a bare area. */
static const char *newer_format_name(const struct pool_check_result *res)
{
	return res->newer_format ? "vg" : res->nr_newer_copies ? "older_copy" : "none";
}

static void print_json(const struct findings *fs, const struct pool_thin_summary *r,
		       const struct pool_scrub_result *s, int code,
		       const struct pool_check_result *res)
{
	int first = 1;

	printf("{\n  \"result\": \"%s\",\n  \"exit_code\": %d,\n", verdict_name(code), code);
	if (res) {
		printf("  \"newer_format\": \"%s\",\n  \"notes\": [", newer_format_name(res));
		if (res->nr_newer_copies) {
			printf("\n    ");
			cli_json_string(res->newer_copy);
			if (res->nr_newer_copies > 1)
				printf(",\n    \"... and %u more such cop%s on its other devices\"",
				       res->nr_newer_copies - 1,
				       res->nr_newer_copies == 2 ? "y" : "ies");
			printf("\n  ");
		}
		printf("],\n");
	}
	if (s && s->ran)
		printf("  \"scrub\": {\"live\": %s, \"integrity\": %s, \"blocks\": %" PRIu64
		       ", \"bad\": [%" PRIu64 ", %" PRIu64 "], \"rewritten\": [%" PRIu64 ", %" PRIu64
		       "], \"different\": %" PRIu64 "},\n", s->live ? "true" : "false",
		       s->integrity ? "true" : "false", s->blocks, s->bad[0], s->bad[1],
		       s->healed[0], s->healed[1], s->mismatched);
	printf("  \"thin\": {\"superblock_ok\": %s, \"transaction_id\": %" PRIu64
	       ", \"time\": %" PRIu32 ", \"data_block_size\": %" PRIu32
	       ", \"metadata_blocks\": %" PRIu64 ", \"metadata_used\": %" PRIu64
	       ", \"data_blocks\": %" PRIu64 ", \"data_used\": %" PRIu64 ", \"devices\": %" PRIu64
	       ", \"mappings\": %" PRIu64 ", \"metadata_snap\": %" PRIu64 "},\n",
	       r->sb_ok ? "true" : "false", r->transaction_id, r->time, r->data_block_size,
	       r->nr_meta_blocks, r->meta_used, r->nr_data_blocks, r->data_used, r->nr_devices,
	       r->nr_mappings, r->metadata_snap);
	printf("  \"fatal\": %zu,\n  \"non_fatal\": %zu,\n  \"problems\": [",
	       (fs->f[0] ? fs->f[0]->nr_fatal : 0) + fs->f[1]->nr_fatal,
	       (fs->f[0] ? fs->f[0]->nr_nonfatal : 0) + fs->f[1]->nr_nonfatal);
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; fs->f[k] && i < fs->f[k]->nr_kept; i++, first = 0) {
			printf("%s\n    {\"fatal\": %s, \"where\": \"%s\", \"message\": ",
			       first ? "" : ",", fs->f[k]->kept[i].fatal ? "true" : "false",
			       fs->where[k]);
			cli_json_string(fs->f[k]->kept[i].msg);
			putchar('}');
		}
	printf("%s]\n}\n", first ? "" : "\n  ");
}

static void print_text(const char *what, const struct findings *fs,
		       const struct pool_thin_summary *r, const struct pool_scrub_result *s, int code,
		       int fast, const char *next, int newer, const struct pool_check_result *res)
{
	size_t total = nr_total(fs, 0);

	if (res && res->nr_newer_copies) {
		printf("note: %s\n", res->newer_copy);
		if (res->nr_newer_copies > 1)
			printf("note: ... and %u more such cop%s on its other devices\n",
			       res->nr_newer_copies - 1, res->nr_newer_copies == 2 ? "y" : "ies");
	}

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; fs->f[k] && i < fs->f[k]->nr_kept; i++)
			printf("%s: %s\n", fs->f[k]->kept[i].fatal ? "error" : "warning",
			       fs->f[k]->kept[i].msg);
	if (total > nr_total(fs, 1))
		printf("... and %zu more problem%s\n", total - nr_total(fs, 1),
		       tp_plural(total - nr_total(fs, 1)));
	if (r->sb_ok)
		printf("%s: transaction %" PRIu64 ", %" PRIu64 " thin device%s, %" PRIu64
		       " mapping%s%s; metadata %" PRIu64 "/%" PRIu64 " blocks, data %" PRIu64
		       "/%" PRIu64 " blocks\n", what, r->transaction_id, r->nr_devices,
		       tp_plural(r->nr_devices), r->nr_mappings, tp_plural(r->nr_mappings),
		       fast ? " (not counted: --fast)" : "", r->meta_used, r->nr_meta_blocks,
		       r->data_used, r->nr_data_blocks);
	if (s && s->ran && s->live)
		printf("%s: the kernel read both legs of the metadata mirror (%" PRIu64 " blocks "
		       "each): %" PRIu64 " bad read%s corrected on leg 0, %" PRIu64 " on leg 1%s; "
		       "%" PRIu64 " blocks differed%s\n", what, s->blocks, s->healed[0],
		       s->healed[0] == 1 ? "" : "s", s->healed[1],
		       s->integrity ? " (dm-integrity)" : " (no integrity: only I/O errors)",
		       s->mismatched, s->healed[0] || s->healed[1] ? " (rewritten with them)" : "");
	else if (s && s->ran)
		printf("%s: metadata mirror legs compared: %" PRIu64 " blocks in use, %" PRIu64
		       " bad on leg 0, %" PRIu64 " bad on leg 1, %" PRIu64 " different\n", what,
		       s->blocks, s->bad[0], s->bad[1], s->mismatched);
	if (code == TP_EXIT_OK)
		printf("%s: clean%s\n", what, fast ? " (fast check: superblock, space maps, device "
						     "trees and tree roots only)" : "");
	else if (code == TP_EXIT_DAMAGE)
		printf("%s: non-fatal damage (%zu problem%s): the pool can be used meanwhile%s\n",
		       what, total, tp_plural(total),
		       next[0] ? "" : "; tprepair or the next change puts it right");
	else if (newer)
		printf("%s: not checked: its VG metadata is of a newer format than this tptools "
		       "reads, which is no damage\n", what);
	else
		printf("%s: FATAL damage (%zu problem%s): do not activate%s\n", what, total,
		       tp_plural(total), next[0] ? "" : "; see tprepair(8)");
	if (code != TP_EXIT_OK && next[0])
		printf("next: %s\n", next);
}

/* Print RES as asked; returns the exit code of its verdict. */
static int print_result(const char *what, int bare, const struct pool_check_result *res,
			int json, int fast)
{
	struct findings fs = { { bare ? NULL : &res->pool, &res->thin }, { "pool", "thin" } };
	int code = (int)TP_MAX(res->thin.verdict, res->pool.verdict);

	if (json)
		print_json(&fs, &res->sum, bare ? NULL : &res->scrub, code, bare ? NULL : res);
	else if (!tp_cli.quiet)
		print_text(what, &fs, &res->sum, bare ? NULL : &res->scrub, code, fast, res->next,
			   res->newer_format, bare ? NULL : res);
	return code;
}

/* Run the check P describes (progress as MODE asks: by default on a
 * terminal unless JSON or -q) and print its result; returns the exit code. */
static int run(const struct tp_command *cmd, struct pool_check_params *p, int json, int fast,
	       enum tp_progress_mode mode, struct pool_check_result *res)
{
	struct tp_progress pg;
	int r;

	p->flags |= fast ? POOL_CHECK_FAST : 0;
	cli_progress_begin(&pg, cmd, json && mode == TP_PROGRESS_AUTO ? TP_PROGRESS_NONE : mode,
			   p->pool ? p->pool : p->metadata, TP_PROGRESS_ITEMS, "mappings");
	p->progress = tp_progress_cb;
	p->progress_ctx = &pg;
	r = pool_check_run(p, res);
	tp_progress_end(&pg, r == 0);
	/* said where it was found (a path of the wrong kind, another host's
	 * pool, a refusal): only what no one said is said here */
	if (r && r != -ENOTBLK && r != -EREMOTE && !tp_log_error_count())
		log_error("%s: the check could not run: %s", p->pool ? p->pool : p->metadata,
			  strerror(-r));
	if (r)
		return tp_exit_from_errno(r);
	return print_result(p->pool ? p->pool : p->metadata, !p->pool, res, json, fast);
}

int cmd_tpcheck(const struct tp_command *cmd, int argc, const char **argv)
{
	struct pool_check_params p = { 0 };
	struct cli_area area = { 0 };
	int json = 0, fast = 0, scrub = 0, code;
	const char *progress = NULL;
	const struct poptOption opts[] = {
		{ "metadata", '\0', POPT_ARG_STRING, &p.metadata, 0,
		  "check a bare thin metadata area (file or device) instead of a pool", "FILE" },
		CLI_OPT_AREA(area, "with --metadata: ", "FILE"),
		CLI_OPT_DEVICES(p.devices),
		{ "fast", '\0', POPT_ARG_NONE, &fast, 0,
		  "bounded-time boot check: superblock, space maps, device trees, tree roots "
		  "(weaker than the full check)", NULL },
		{ "scrub", '\0', POPT_ARG_NONE, &scrub, 0,
		  "a mirrored pool: compare both legs of its thin metadata, also while it is "
		  "active (the kernel reads both; dm-integrity's bad reads are corrected)", NULL },
		{ "json", 'j', POPT_ARG_NONE, &json, 0, "print the report as JSON", NULL },
		CLI_OPT_PROGRESS(progress),
		POPT_TABLEEND
	};
	enum tp_progress_mode mode;
	struct pool_check_result res = { 0 };
	static struct tp_log_capture cap;
	int capture = wants_json(argc, argv);
	struct cli cli;

	if (capture)
		tp_log_capture(&cap);
	code = cli_parse_pool_or_area(&cli, cmd, opts, argc, argv, &p.metadata, &p.devices,
				      &p.pool);
	if (code != CLI_CONTINUE)
		goto done;
	code = cli_area(cmd, &area, p.metadata != NULL, "--offset and --size need --metadata");
	if (code != CLI_CONTINUE)
		goto out;
	p.offset = area.offset;
	p.size = area.size;
	code = cli_progress(cmd, progress, &mode);
	if (code == CLI_CONTINUE && scrub && (fast || p.metadata))
		code = cli_usage_error(cmd, "--scrub compares a mirrored pool's legs in full: not "
					    "with --fast or --metadata");
	if (code == CLI_CONTINUE) {
		p.flags = scrub ? POOL_CHECK_SCRUB : 0;
		code = run(cmd, &p, json, fast, mode, &res);
	}
out:
	pool_check_result_free(&res);
	cli_end(&cli);
done:
	if (capture) {
		tp_log_capture(NULL);
		if (code == TP_EXIT_USAGE || code == TP_EXIT_FAILED)
			print_json_error(code, &cap);
		replay(cmd, &cap);
	}
	return code;
}
