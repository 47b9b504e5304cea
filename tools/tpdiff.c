/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpdiff - where two thin volumes differ, from their mapping metadata.
 *
 *   tpdiff [--format human|json|xml] [-o FILE] [--devices D,M] POOL/A POOL/B
 *   tpdiff --snap1 ID --snap2 ID [-m[BLOCK]] [--verbose] [--offset B --size B]
 *          (--metadata FILE | FILE)
 *
 * The second form prints exactly what thin_delta 0.9.0 prints for the
 * same arguments (--thin1/--thin2 too). Exit: 0, 3 bad command line,
 * 5 no such volume or device, damaged metadata, output error. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_diff.h"
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum fmt { FMT_HUMAN, FMT_JSON, FMT_XML };

struct opts {
	const char *format, *output, *devices, *metadata, *snap1, *snap2, *msnap;
	const char *msnap_arg;	/* -mBLOCK, --metadata-snap=BLOCK */
	int msnap_given;
	struct cli_area area;
};

struct ranges {
	struct pool_diff_range *v;
	size_t n, cap;
};

static int keep(void *ctx, const struct pool_diff_range *r)
{
	struct ranges *rs = ctx;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct pool_diff_range *n = realloc(rs->v, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		rs->v = n;
		rs->cap = cap;
	}
	rs->v[rs->n++] = *r;
	return 0;
}

static const char *const json_kind[] = { "left_only", "right_only", "different" };
static const char *const human_kind[] = { "only in A", "only in B", "differs" };

static void print_human(FILE *f, const char *a, const char *b, const struct pool_diff_summary *s,
			const struct ranges *rs)
{
	char c[32], t[32];

	fprintf(f, "A %s, B %s: %" PRIu64 " range%s differ, %s (chunk %s)\n", a, b, s->ranges,
		s->ranges == 1 ? "" : "s", tp_size_format(s->bytes, 'h', t, sizeof(t)),
		tp_size_format(s->chunk, 'h', c, sizeof(c)));
	if (tp_cli.verbose > 0)
		fprintf(f, "read %" PRIu64 " mapping-tree node%s; %" PRIu64
			   " shared subtree%s skipped unread\n",
			s->nodes_read, s->nodes_read == 1 ? "" : "s", s->subtrees_shared,
			s->subtrees_shared == 1 ? "" : "s");
	if (!rs->n)
		return;
	fprintf(f, "%20s %20s  %s\n", "OFFSET", "LENGTH", "CHANGE");
	for (size_t i = 0; i < rs->n; i++)
		fprintf(f, "%20" PRIu64 " %20" PRIu64 "  %s\n", rs->v[i].offset, rs->v[i].length,
			human_kind[rs->v[i].kind]);
}

static void print_json(FILE *f, const char *a, const char *b, const struct pool_diff_summary *s,
		       const struct ranges *rs)
{
	fprintf(f,
		"{\n  \"left\": \"%s\",\n  \"right\": \"%s\",\n  \"chunk_size\": %" PRIu64
		",\n  \"left_size\": %" PRIu64 ",\n  \"right_size\": %" PRIu64
		",\n  \"differing_ranges\": %" PRIu64 ",\n  \"differing_bytes\": %" PRIu64
		",\n  \"ranges\": [",
		a, b, s->chunk, s->size_a, s->size_b, s->ranges, s->bytes);
	for (size_t i = 0; i < rs->n; i++)
		fprintf(f, "%s\n    { \"offset\": %" PRIu64 ", \"length\": %" PRIu64
			   ", \"change\": \"%s\" }",
			i ? "," : "", rs->v[i].offset, rs->v[i].length, json_kind[rs->v[i].kind]);
	fprintf(f, "%s]\n}\n", rs->n ? "\n  " : "");
}

/* The output file or standard output: an fd, or -1 after a message. */
static int open_output(const char *path)
{
	int fd;

	if (!path)
		return STDOUT_FILENO;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		log_error("%s: cannot create: %s", path, strerror(errno));
	return fd;
}

static int close_output(const char *path, int fd, int code)
{
	if (path && close(fd) && code == TP_EXIT_OK) {
		log_error("%s: %s", path, strerror(errno));
		return TP_EXIT_FAILED;
	}
	return code;
}

/* Print the native formats through stdio on FD. */
static int print_native(int fd, enum fmt fmt, const char *a, const char *b,
			const struct pool_diff_summary *s, const struct ranges *rs)
{
	int dfd = dup(fd);
	FILE *f = dfd >= 0 ? fdopen(dfd, "w") : NULL;
	int bad;

	if (!f) {
		if (dfd >= 0)
			close(dfd);
		log_error("writing the output: %s", strerror(errno));
		return TP_EXIT_FAILED;
	}
	if (fmt == FMT_JSON)
		print_json(f, a, b, s, rs);
	else
		print_human(f, a, b, s, rs);
	bad = ferror(f);
	if (fclose(f) || bad) {
		log_error("writing the output failed");
		return TP_EXIT_FAILED;
	}
	return TP_EXIT_OK;
}

static int diff_volumes(const struct opts *o, enum fmt fmt, const char *a, const char *b)
{
	char pa[POOL_NAME_MAX + 1], va[POOL_NAME_MAX + 1];
	char pb[POOL_NAME_MAX + 1], vb[POOL_NAME_MAX + 1];
	struct pool_diff_summary s;
	struct ranges rs = { 0 };
	struct pool *p;
	int fd, code;

	if (pool_split_volume_spec(a, pa, va) || pool_split_volume_spec(b, pb, vb))
		return TP_EXIT_USAGE;
	if (strcmp(pa, pb)) {
		log_error("%s and %s are in different pools: only volumes of one pool share "
			  "mappings to compare", a, b);
		return TP_EXIT_USAGE;
	}
	if ((code = pool_open(pa, o->devices, POOL_RDONLY, &p)))
		return tp_exit_from_errno(code);	/* e.g. a FIFO as a device: 3 */
	if ((fd = open_output(o->output)) < 0) {
		pool_close(p);
		return TP_EXIT_FAILED;
	}
	if (fmt == FMT_XML) {
		struct pool_delta_params d = { .pool = p, .vol_a = va, .vol_b = vb,
					       .verbose = tp_cli.verbose > 0, .fd = fd };
		code = tp_exit_from_errno(pool_delta_xml(&d));
	} else {
		code = tp_exit_from_errno(pool_diff_volumes(p, va, vb, keep, &rs, &s));
		if (code == TP_EXIT_OK)
			code = print_native(fd, fmt, a, b, &s, &rs);
	}
	pool_close(p);
	free(rs.v);
	return close_output(o->output, fd, code);
}

static int parse_id(const struct tp_command *cmd, const char *opt, const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (!*s || *end || *s == '-' || errno)
		return cli_usage_error(cmd, "invalid %s '%s': a number", opt, s);
	return CLI_CONTINUE;
}

static int diff_metadata(const struct tp_command *cmd, struct opts *o, const char *file)
{
	struct pool_delta_params d = { .metadata = file, .verbose = tp_cli.verbose > 0 };
	int code = CLI_CONTINUE, fd;

	if (!o->snap1 || !o->snap2)
		return cli_usage_error(cmd, "--snap1 and --snap2 name the two thin devices");
	if (o->format && strcmp(o->format, "xml"))
		return cli_usage_error(cmd, "thin device ids print thin_delta's XML only");
	code = parse_id(cmd, "--snap1", o->snap1, &d.left);
	if (code == CLI_CONTINUE)
		code = parse_id(cmd, "--snap2", o->snap2, &d.right);
	if (code == CLI_CONTINUE && o->msnap_arg)
		code = parse_id(cmd, "--metadata-snap", o->msnap_arg, &d.metadata_snap_block);
	if (code == CLI_CONTINUE)
		code = cli_area(cmd, &o->area, 1, "");
	if (code != CLI_CONTINUE)
		return code;
	d.metadata_snap = o->msnap_given;
	d.offset = o->area.offset;
	d.size = o->area.size;
	if ((fd = open_output(o->output)) < 0)
		return TP_EXIT_FAILED;
	d.fd = fd;
	return close_output(o->output, fd, tp_exit_from_errno(pool_delta_xml(&d)));
}

/* thin_delta's -m takes an optional block number (-mBLOCK,
 * --metadata-snap=BLOCK), which popt cannot tell from its absence: those
 * options are taken out of ARGV into O before popt sees the rest. */
static void take_metadata_snap(int argc, const char **argv, int *nargc, const char **nargv,
			       struct opts *o)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (i && !strcmp(a, "--")) {
			while (i < argc)
				nargv[n++] = argv[i++];
			break;
		}
		if (i && (!strcmp(a, "-m") || !strcmp(a, "--metadata-snap"))) {
			o->msnap_given = 1;
		} else if (i && (!strncmp(a, "-m", 2) || !strncmp(a, "--metadata-snap=", 16))) {
			o->msnap_given = 1;
			o->msnap_arg = a[1] == 'm' ? a + 2 : a + 16;
		} else {
			nargv[n++] = a;
		}
	}
	nargv[n] = NULL;
	*nargc = n;
}

static int parse_format(const struct tp_command *cmd, const char *s, enum fmt *f)
{
	if (!s || !strcmp(s, "human"))
		*f = FMT_HUMAN;
	else if (!strcmp(s, "json"))
		*f = FMT_JSON;
	else if (!strcmp(s, "xml"))
		*f = FMT_XML;
	else
		return cli_usage_error(cmd, "unknown format '%s': use human, json or xml", s);
	return CLI_CONTINUE;
}

int cmd_tpdiff(const struct tp_command *cmd, int argc, const char **argv)
{
	struct opts o = { 0 };
	const struct poptOption opts[] = {
		{ "format", 'f', POPT_ARG_STRING, &o.format, 0,
		  "human (the default), json, or xml (thin_delta's)", "human|json|xml" },
		{ "output", 'o', POPT_ARG_STRING, &o.output, 0,
		  "write to FILE instead of standard output", "FILE" },
		CLI_OPT_DEVICES(o.devices),
		{ "metadata", '\0', POPT_ARG_STRING, &o.metadata, 0,
		  "compare thin devices of this metadata file or device (as thin_delta)", "FILE" },
		{ "snap1", '\0', POPT_ARG_STRING, &o.snap1, 0,
		  "with a metadata file: the left thin device id", "ID" },
		{ "thin1", '\0', POPT_ARG_STRING | POPT_ARGFLAG_DOC_HIDDEN, &o.snap1, 0,
		  "the same as --snap1", "ID" },
		{ "snap2", '\0', POPT_ARG_STRING, &o.snap2, 0,
		  "with a metadata file: the right thin device id", "ID" },
		{ "thin2", '\0', POPT_ARG_STRING | POPT_ARGFLAG_DOC_HIDDEN, &o.snap2, 0,
		  "the same as --snap2", "ID" },
		{ "metadata-snap", 'm', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &o.msnap, 'm',
		  "with a metadata file: read the held metadata snapshot (or the one at BLOCK)",
		  "BLOCK" },
		CLI_OPT_AREA(o.area, "with a metadata file: ", "FILE"),
		POPT_TABLEEND
	};
	const char **args, **nargv = calloc((size_t)argc + 1, sizeof(*nargv));
	enum fmt fmt = FMT_HUMAN;
	struct cli cli;
	int nargs, nargc, code;

	if (!nargv)
		return TP_EXIT_FAILED;
	take_metadata_snap(argc, argv, &nargc, nargv, &o);
	code = cli_begin(&cli, cmd, opts, nargc, nargv);
	if (code != CLI_CONTINUE) {
		free(nargv);
		return code;
	}
	code = cli_args(&cli, 0, 2, &args, &nargs);
	if (code == CLI_CONTINUE)
		code = parse_format(cmd, o.format, &fmt);
	if (code != CLI_CONTINUE)
		goto out;
	if (o.metadata || o.snap1 || o.snap2) {
		if (o.devices)
			code = cli_usage_error(cmd, "--devices is for POOL/A POOL/B, not thin device ids");
		else if (nargs != !o.metadata)
			code = cli_usage_error(cmd, "thin device ids take one metadata file or "
						    "device: --metadata FILE or FILE");
		else
			code = diff_metadata(cmd, &o, o.metadata ? o.metadata : args[0]);
	} else if (o.msnap_given || o.area.offset_s || o.area.size_s) {
		code = cli_usage_error(cmd, "--metadata-snap, --offset and --size are for a "
					    "metadata file with --snap1 and --snap2");
	} else if (nargs != 2) {
		code = cli_usage_error(cmd, "name two volumes: POOL/A POOL/B");
	} else {
		code = diff_volumes(&o, fmt, args[0], args[1]);
	}
out:
	cli_end(&cli);
	free(nargv);
	return code;
}
