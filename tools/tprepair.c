/* tprepair.c - salvage damaged thin metadata.
 *
 *   tprepair [--transaction-id N] [--devices DATA,META] POOL
 *   tprepair --metadata IN [--offset BYTES] [--size BYTES] -o OUT
 *            [--transaction-id N] [--data-block-size SECTORS] [--nr-data-blocks N]
 *
 * Never writes the input. Prints what was lost and what to do next.
 * Exit: 0 repaired (possibly with losses, listed), 3 bad command line,
 * 5 nothing could be salvaged (OUT's superblock zeroed). The work is
 * metadata/thin/repair.h and lib/pool/pool_check.h. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool_check.h"
#include "metadata/thin/repair.h"
#include "metadata/thin/xml_cmd.h"
#include "tools/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void print_losses(const char *what, const struct thin_repair_report *r)
{
	if (!tp_cli.quiet)
		printf("%s: %" PRIu64 " thin devices, %" PRIu64 " mappings written, transaction %"
		       PRIu64 "%s\n", what, r->nr_devices, r->nr_mappings, r->transaction_id,
		       r->scanned ? " (device trees found by scanning every block)" : "");
	for (size_t i = 0; i < r->nr_lost; i++) {
		const struct thin_repair_lost *l = &r->lost[i];
		char node[48] = "", rg[64];
		if (l->block != UINT64_MAX)
			snprintf(node, sizeof(node), ", bad node %" PRIu64, l->block);
		if (l->whole_device)
			printf("lost: thin devices %s (%s%s)\n", range(rg, sizeof(rg), l->begin, l->end),
			       l->what, node);
		else
			printf("lost: thin device %" PRIu64 " blocks %s (%s%s)\n", l->dev_id,
			       range(rg, sizeof(rg), l->begin, l->end), l->what, node);
	}
	if (r->details_rebuilt)
		printf("lost: the device details (made up from the mapping trees: creation times "
		       "and transaction ids are new, every mapping is treated as shared)\n");
	if (r->snapshot_dropped)
		printf("lost: the metadata snapshot (release it in any tool that still uses it)\n");
	if (r->nr_lost || r->details_rebuilt)
		printf("next: lost blocks read as zeroes (or the snapshot origin's data); restore "
		       "them from a backup, run fsck on the affected volumes\n");
}

int cmd_tprepair(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *metadata = NULL, *output = NULL, *offset_s = NULL, *size_s = NULL;
	const char *devices = NULL, *tid_s = NULL, *nr_s = NULL, **args;
	int dbs = 0, nargs, code, r;
	const struct poptOption opts[] = {
		{ "metadata", '\0', POPT_ARG_STRING, &metadata, 0,
		  "repair a bare thin metadata area (file or device); needs -o", "IN" },
		{ "output", 'o', POPT_ARG_STRING, &output, 0,
		  "with --metadata: where the repaired metadata goes (an existing file or device, "
		  "not IN)", "OUT" },
		{ "offset", '\0', POPT_ARG_STRING, &offset_s, 0,
		  "with --metadata: the area starts this far into IN", "BYTES" },
		{ "size", '\0', POPT_ARG_STRING, &size_s, 0,
		  "with --metadata: length of the area in IN", "BYTES" },
		CLI_OPT_DEVICES(devices),
		{ "transaction-id", '\0', POPT_ARG_STRING, &tid_s, 0,
		  "transaction id to write (default: the VG's, or the old superblock's)", "N" },
		{ "data-block-size", '\0', POPT_ARG_INT, &dbs, 0,
		  "with --metadata: data block size in sectors when the superblock is lost", "SECTORS" },
		{ "nr-data-blocks", '\0', POPT_ARG_STRING, &nr_s, 0,
		  "with --metadata: data device size in blocks when the superblock is lost", "N" },
		POPT_TABLEEND
	};
	struct thin_repair_opts o = { 0 };
	struct thin_repair_report rep;
	struct io_engine *in = NULL, *out = NULL;
	uint64_t offset = 0, size = 0;
	struct cli cli;

	memset(&rep, 0, sizeof(rep));
	code = cli_begin(&cli, cmd, opts, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	code = cli_args(&cli, metadata ? 0 : 1, metadata ? 0 : 1, &args, &nargs);
	if (code == CLI_CONTINUE && metadata && !output)
		code = cli_usage_error(cmd, "--metadata needs -o OUT (the input is never written)");
	if (code == CLI_CONTINUE && !metadata && (output || offset_s || size_s || dbs || nr_s))
		code = cli_usage_error(cmd, "-o, --offset, --size, --data-block-size and "
				       "--nr-data-blocks need --metadata");
	if (code == CLI_CONTINUE && metadata && devices)
		code = cli_usage_error(cmd, "--devices is for a POOL, not with --metadata");
	if (code == CLI_CONTINUE && dbs < 0)
		code = cli_usage_error(cmd, "--data-block-size must be positive");
	if (code == CLI_CONTINUE && offset_s)
		code = cli_size(cmd, "--offset", offset_s, 'b', &offset);
	if (code == CLI_CONTINUE && size_s)
		code = cli_size(cmd, "--size", size_s, 'b', &size);
	if (code == CLI_CONTINUE && tid_s) {
		code = parse_u64(cmd, "--transaction-id", tid_s, &o.transaction_id);
		o.set_transaction_id = 1;
	}
	if (code == CLI_CONTINUE && nr_s)
		code = parse_u64(cmd, "--nr-data-blocks", nr_s, &o.nr_data_blocks);
	if (code != CLI_CONTINUE)
		goto done;
	o.data_block_size = (uint32_t)dbs;
	if (!metadata) {
		r = pool_repair(args[0], devices, &o, &rep);
		if (!r) {
			print_losses(args[0], &rep);
			if (!tp_cli.quiet)
				printf("%s: repaired into the spare area, which is now active; the "
				       "damaged copy stays in the spare until the next repair. Run "
				       "'tpcheck %s'.\n", args[0], args[0]);
		}
	} else {
		if (!strcmp(metadata, output)) {
			code = cli_usage_error(cmd, "OUT must not be IN: the input is never written");
			goto done;
		}
		r = thin_area_open(metadata, IO_RDONLY, offset, size, &in);
		if (!r)
			r = thin_area_open(output, 0, 0, 0, &out);
		if (!r)
			r = thin_repair_io(in, out, &o, &rep);
		if (!r)
			r = io_flush(out);
		if (!r) {
			print_losses(output, &rep);
			if (!tp_cli.quiet)
				printf("%s: repaired; check it with 'tpcheck --metadata %s' before use\n",
				       output, output);
		}
	}
	code = r == 0 ? TP_EXIT_OK : r == -EINVAL ? TP_EXIT_USAGE : TP_EXIT_FAILED;
	if (r)
		log_error("%s: repair failed (%s); the input is unchanged", metadata ? metadata : args[0],
			  strerror(-r));
done:
	thin_repair_report_free(&rep);
	io_destroy(in);
	io_destroy(out);
	cli_end(&cli);
	return code;
}
